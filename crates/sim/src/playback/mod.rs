//! A recorded board played back: the board side of a trace, sent to a live host.
//!
//! [`TraceBoard`] stands in for the board a trace was recorded from, so that a host that
//! knows nothing of the trace (the daemon) can be given its game: it sends the board's
//! bytes as they were recorded, in scaled time, and answers the host's commands minimally
//! with the board as it stands in the recording at that moment:
//! - DGT: a board request (0x42) gets a board dump; the recording starts playing once the
//!   host puts the board in an update mode (0x43, 0x44, 0x4b), as a real board sends field
//!   updates only then; nothing else is answered (no clock, no serial number).
//! - Millennium: `V` gets a version, `S` the status frame, `W`/`X`/`L` their echoes (with
//!   or without the parity bit, as the recording has it); the recording starts playing at
//!   the first `S`.
//!
//! It is sans-IO like the rest: host bytes in with their time, bytes out when due.
//! [`pty::serve`] puts one on a pseudo-terminal.

pub mod pty;

use std::collections::VecDeque;
use std::time::Duration;

use eboardd_core::protocol::{Protocol, dgt, millennium};
use eboardd_core::time::Time;
use eboardd_core::trace::{Direction, Trace};

/// The board side of a trace, playing to a live host (see the module documentation).
#[derive(Debug)]
pub struct TraceBoard {
    protocol: Protocol,
    /// The board's chunks: when they were read in the recording, and the bytes.
    script: Vec<(Time, Vec<u8>)>,
    next: usize,
    /// When the playing started (host time), and the recording's time then.
    origin: Option<(Time, Time)>,
    speed: f64,
    board: BoardState,
    out: VecDeque<Vec<u8>>,
}

#[derive(Debug)]
pub(crate) enum BoardState {
    Dgt {
        decoder: dgt::Decoder,
        host: dgt::CommandDecoder,
        fields: Box<[u8; 64]>,
    },
    Millennium {
        decoder: millennium::Decoder,
        host: millennium::CommandDecoder,
        status: Box<[u8; 64]>,
        parity: bool,
    },
}

impl TraceBoard {
    /// The board of `trace`, playing `speed` times faster than it was recorded.
    pub fn new(trace: &Trace, speed: f64) -> TraceBoard {
        let protocol = trace.header.protocol;
        let script: Vec<(Time, Vec<u8>)> = trace
            .chunks
            .iter()
            .filter(|c| c.dir == Direction::FromBoard)
            .map(|c| (c.t, c.bytes.clone()))
            .collect();
        let parity = script.iter().flat_map(|(_, b)| b).any(|b| b & 0x80 != 0);
        let mut board = (crate::kinds::kind(protocol).recording)(parity);
        // The board as it stood when first reported: what the host is told before playing.
        for (_, bytes) in &script {
            if board.follow(bytes) {
                break;
            }
        }
        board.reset_decoder();
        TraceBoard {
            protocol,
            script,
            next: 0,
            origin: None,
            speed: if speed.is_finite() && speed > 0.0 {
                speed
            } else {
                1.0
            },
            board,
            out: VecDeque::new(),
        }
    }

    /// The protocol of the recording.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// Whether every recorded chunk was sent.
    pub fn finished(&self) -> bool {
        self.next >= self.script.len()
    }

    /// The host wrote `bytes` at `now`.
    pub fn handle_host_bytes(&mut self, now: Time, bytes: &[u8]) {
        let mut dgt_commands = Vec::new();
        let mut millennium_commands = Vec::new();
        match &mut self.board {
            BoardState::Dgt { host, .. } => {
                host.push_bytes(bytes);
                while let Some(decoded) = host.poll() {
                    if let dgt::DecodedCommand::Command(c) = decoded {
                        dgt_commands.push(c);
                    }
                }
            }
            BoardState::Millennium { host, .. } => {
                host.push_bytes(bytes);
                while let Some(decoded) = host.poll() {
                    if let millennium::DecodedCommand::Command(c) = decoded {
                        millennium_commands.push(c);
                    }
                }
            }
        }
        for c in &dgt_commands {
            self.answer_dgt(now, c);
        }
        for c in &millennium_commands {
            self.answer_millennium(now, c);
        }
    }

    /// When the next recorded chunk is due (host time), once playing.
    pub fn poll_timeout(&self) -> Option<Time> {
        let (start, recorded) = self.origin?;
        let (t, _) = self.script.get(self.next)?;
        let after = t.saturating_since(recorded).as_secs_f64() / self.speed;
        Some(start + Duration::from_secs_f64(after))
    }

    /// Queues the recorded chunks due at `now`.
    pub fn handle_timeout(&mut self, now: Time) {
        while self.poll_timeout().is_some_and(|due| due <= now) {
            let bytes = self.script[self.next].1.clone();
            self.next += 1;
            self.board.follow(&bytes);
            self.out.push_back(bytes);
        }
    }

    /// The next bytes for the host.
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.out.pop_front()
    }

    fn start(&mut self, now: Time) {
        if self.origin.is_none() {
            let recorded = self.script.first().map_or(Time::ZERO, |(t, _)| *t);
            self.origin = Some((now, recorded));
        }
    }

    fn answer_dgt(&mut self, now: Time, command: &dgt::Command) {
        match command {
            dgt::Command::SendBoard => {
                if let BoardState::Dgt { fields, .. } = &self.board {
                    let dump = dgt::BoardMessage::BoardDump(fields.clone());
                    self.out.extend(dump.to_bytes().ok());
                }
            }
            dgt::Command::SendUpdate
            | dgt::Command::SendUpdateBoard
            | dgt::Command::SendUpdateNice => self.start(now),
            _ => {}
        }
    }

    fn answer_millennium(&mut self, now: Time, command: &millennium::Command) {
        let BoardState::Millennium { status, parity, .. } = &self.board else {
            return;
        };
        let reply = match command {
            millennium::Command::Version => {
                millennium::Reply::Version(millennium::Version { high: 1, low: 3 })
            }
            millennium::Command::Status => millennium::Reply::Status(status.clone()),
            millennium::Command::Write { address, data } => millennium::Reply::Write {
                address: *address,
                data: *data,
            },
            millennium::Command::LedsOff => millennium::Reply::LedsOff,
            millennium::Command::Leds(_) => millennium::Reply::Leds,
            _ => return,
        };
        let bytes = if *parity {
            reply.encode()
        } else {
            reply.encode_ascii()
        };
        self.out.push_back(bytes);
        if matches!(command, millennium::Command::Status) {
            self.start(now);
        }
    }
}

impl BoardState {
    /// A recorded DGT board before its first report.
    pub(crate) fn dgt(_parity: bool) -> BoardState {
        BoardState::Dgt {
            decoder: dgt::Decoder::new(),
            host: dgt::CommandDecoder::new(),
            fields: Box::new([0; 64]),
        }
    }

    /// A recorded Millennium board before its first report, answering with the parity bit
    /// or without it as the recording shows.
    pub(crate) fn millennium(parity: bool) -> BoardState {
        BoardState::Millennium {
            decoder: millennium::Decoder::new(),
            host: millennium::CommandDecoder::new(),
            status: Box::new([millennium::EMPTY_SQUARE_CHAR; 64]),
            parity,
        }
    }

    /// Follows the board's bytes; whether they completed a whole-board report.
    fn follow(&mut self, bytes: &[u8]) -> bool {
        let mut whole = false;
        match self {
            BoardState::Dgt {
                decoder, fields, ..
            } => {
                decoder.push_bytes(bytes);
                while let Some(d) = decoder.poll() {
                    match d {
                        dgt::Decoded::Message(dgt::BoardMessage::BoardDump(codes)) => {
                            *fields = codes;
                            whole = true;
                        }
                        dgt::Decoded::Message(dgt::BoardMessage::FieldUpdate { field, code }) => {
                            if let Some(f) = fields.get_mut(usize::from(field)) {
                                *f = code;
                            }
                        }
                        _ => {}
                    }
                }
            }
            BoardState::Millennium {
                decoder, status, ..
            } => {
                decoder.push_bytes(bytes);
                while let Some(d) = decoder.poll() {
                    if let millennium::Decoded::Reply(millennium::Reply::Status(s)) = d {
                        *status = s;
                        whole = true;
                    }
                }
            }
        }
        whole
    }

    fn reset_decoder(&mut self) {
        match self {
            BoardState::Dgt { decoder, .. } => decoder.clear(),
            BoardState::Millennium { decoder, .. } => decoder.clear(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use eboardd_core::trace::parse_trace;

    /// A recording: the start position dumped at 40 ms, e2 lifted at 2040 ms and the pawn
    /// on e4 at 2440 ms.
    fn dgt_trace() -> Trace {
        let mut codes = [0u8; 64];
        codes[..8].copy_from_slice(&[8, 9, 10, 12, 11, 10, 9, 8]);
        codes[8..16].copy_from_slice(&[7; 8]);
        codes[48..56].copy_from_slice(&[1; 8]);
        codes[56..].copy_from_slice(&[2, 3, 4, 6, 5, 4, 3, 2]);
        let dump = dgt::BoardMessage::BoardDump(Box::new(codes))
            .to_bytes()
            .expect("dump");
        let hex: Vec<String> = dump.iter().map(|b| format!("{b:02x}")).collect();
        let text = format!(
            "# eboard-trace 1\n# protocol: dgt\n0.0 > 40 42\n40.0 < {}\n\
             2040.0 < 8e 00 05 34 00\n2440.0 < 8e 00 05 24 01\n",
            hex.join(" ")
        );
        parse_trace(&text).expect("trace")
    }

    fn sent(board: &mut TraceBoard) -> Vec<Vec<u8>> {
        std::iter::from_fn(|| board.poll_transmit()).collect()
    }

    #[test]
    fn a_dgt_recording_answers_board_requests_and_plays_once_in_update_mode() {
        let mut board = TraceBoard::new(&dgt_trace(), 2.0);
        board.handle_host_bytes(Time::ZERO, &[0x40, 0x42]);
        let dump = sent(&mut board);
        assert_eq!(dump.len(), 1);
        assert_eq!(&dump[0][..3], &[0x86, 0x00, 0x43]);
        assert_eq!(dump[0][3 + 52], 0x01, "the white pawn on e2");
        assert_eq!(board.poll_timeout(), None, "not playing before update mode");
        board.handle_host_bytes(Time::from_millis(100), &[0x4b]);
        // The first recorded chunk (the dump) at once, then 2 s of recording in 1 s.
        assert_eq!(board.poll_timeout(), Some(Time::from_millis(100)));
        board.handle_timeout(Time::from_millis(100));
        assert_eq!(sent(&mut board).len(), 1);
        assert_eq!(board.poll_timeout(), Some(Time::from_millis(1100)));
        board.handle_timeout(Time::from_millis(1250));
        assert_eq!(sent(&mut board), [vec![0x8e, 0x00, 0x05, 0x34, 0x00]]);
        assert!(!board.finished());
        // A board request now: the dump shows the pawn lifted.
        board.handle_host_bytes(Time::from_millis(1251), &[0x42]);
        let dump = sent(&mut board);
        assert_eq!(dump[0][3 + 52], 0x00);
        board.handle_timeout(Time::from_millis(1300));
        assert_eq!(sent(&mut board), [vec![0x8e, 0x00, 0x05, 0x24, 0x01]]);
        assert!(board.finished());
    }

    #[test]
    fn a_millennium_recording_answers_v_and_s_with_its_own_parity() {
        let start =
            millennium::Reply::status_of(&shakmaty::Board::new(), millennium::CableSide::Right);
        let mut text = String::from("# eboard-trace 1\n# protocol: millennium\n5.0 <");
        for b in start.encode() {
            text.push_str(&format!(" {b:02x}"));
        }
        text.push('\n');
        let trace = parse_trace(&text).expect("trace");
        let mut board = TraceBoard::new(&trace, 1.0);
        board.handle_host_bytes(Time::ZERO, &millennium::Command::Version.encode());
        let v = sent(&mut board);
        assert_eq!(
            v,
            [millennium::Reply::Version(millennium::Version { high: 1, low: 3 }).encode()]
        );
        board.handle_host_bytes(Time::ZERO, &millennium::Command::Status.encode());
        assert_eq!(sent(&mut board), [start.encode()]);
        assert_eq!(
            board.poll_timeout(),
            Some(Time::ZERO),
            "playing from the first S"
        );
    }
}
