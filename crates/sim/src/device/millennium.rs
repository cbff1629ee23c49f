//! An emulated Millennium ChessLink board, device side, sans-IO.
//!
//! It reads the host's commands with the codec's [`CommandDecoder`] and answers each as the
//! board does (`V` version, `S` status, `L`/`X` LEDs, `W`/`R` E2ROM registers, `T` reset
//! with no reply and about three seconds of silence; a command with a bad checksum is
//! ignored), while its [`MillenniumModel`] scans the physical board and sends status frames
//! as its registers say. Every reply and frame is encoded with the codec ([`Reply::encode`],
//! with or without the parity bit) and timed on the 38400-baud line.

use std::collections::VecDeque;
use std::time::Duration;

use shakmaty::Board;

use super::Transmission;
use crate::board::line::SerialLine;
use crate::board::{MillenniumConfig, MillenniumModel, Outgoing, SensedChange, millennium_phase};
use crate::timeline::{Cursor, Squares};
use eboardd_core::protocol::millennium::registers;
use eboardd_core::protocol::millennium::{
    Command, CommandDecoder, DecodedCommand, LedFrame, Reply, Version, status_from_board,
};
use eboardd_core::time::Time;

/// How long the board takes to answer a command once it has arrived.
const REPLY_DELAY: Duration = Duration::from_micros(1500);

/// How long a reset keeps the board silent.
const RESET_TIME: Duration = Duration::from_secs(3);

/// How the emulated Millennium board behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MillenniumDeviceConfig {
    /// The sensing model's settings at power-on (registers and cable side).
    pub model: MillenniumConfig,
    /// Whether bytes carry the odd-parity bit in bit 7 (a port read 8N1 sees it) or not.
    pub parity: bool,
    /// The firmware version `V` reports.
    pub version: Version,
}

impl Default for MillenniumDeviceConfig {
    fn default() -> Self {
        MillenniumDeviceConfig {
            model: MillenniumConfig::default(),
            parity: true,
            version: Version { high: 1, low: 3 },
        }
    }
}

/// One emulated Millennium board.
#[derive(Debug, Clone)]
pub struct MillenniumDevice {
    cfg: MillenniumDeviceConfig,
    model: MillenniumModel,
    decoder: CommandDecoder,
    to_board: SerialLine,
    to_host: SerialLine,
    e2rom: [u8; 256],
    leds: LedFrame,
    silent_until: Time,
    out: VecDeque<Transmission>,
    sensed: Vec<SensedChange>,
}

impl MillenniumDevice {
    /// A board at power-on that has seen `start`; `seed` draws its scan phase.
    pub fn new(cfg: MillenniumDeviceConfig, start: &Squares, seed: u64) -> MillenniumDevice {
        let phase = millennium_phase(&cfg.model, seed);
        let mut e2rom = [0u8; 256];
        e2rom[usize::from(registers::SCAN_TIME)] = cfg.model.scan_register;
        e2rom[usize::from(registers::REPORT_MODE)] = cfg.model.report_register;
        e2rom[usize::from(registers::REPORT_INTERVAL)] = cfg.model.interval_register;
        MillenniumDevice {
            cfg,
            model: MillenniumModel::new(cfg.model, start, phase),
            decoder: CommandDecoder::new(),
            to_board: SerialLine::new(38400),
            to_host: SerialLine::new(38400),
            e2rom,
            leds: LedFrame::new(0),
            silent_until: Time::ZERO,
            out: VecDeque::new(),
            sensed: Vec::new(),
        }
    }

    /// The sensing model (its registers as they stand).
    pub fn model(&self) -> &MillenniumModel {
        &self.model
    }

    /// The LED pattern last set by the host.
    pub fn leds(&self) -> &LedFrame {
        &self.leds
    }

    /// The move the LEDs show, if they show one as [`LedFrame::show_move`] does: the
    /// square whose four corners run the from-pattern, and the one whose corners run the
    /// to-pattern.
    pub fn shown_move(&self) -> Option<(shakmaty::Square, shakmaty::Square)> {
        use eboardd_core::protocol::millennium::{MOVE_FROM_PATTERN, MOVE_TO_PATTERN, square_leds};
        let lit = |square: shakmaty::Square, pattern: u8| {
            square_leds(square, self.cfg.model.cable)
                .iter()
                .all(|&led| {
                    self.leds
                        .pattern(usize::from(led))
                        .is_some_and(|p| p & pattern == pattern)
                })
        };
        let only = |pattern: u8| {
            let mut found = shakmaty::Square::ALL
                .into_iter()
                .filter(|&s| lit(s, pattern));
            match (found.next(), found.next()) {
                (Some(s), None) => Some(s),
                _ => None,
            }
        };
        Some((only(MOVE_FROM_PATTERN)?, only(MOVE_TO_PATTERN)?))
    }

    /// The host wrote `bytes` at `now`. Call [`handle_timeout`](Self::handle_timeout) for
    /// every sample due up to `now` first.
    pub fn handle_host_bytes(&mut self, now: Time, bytes: &[u8]) {
        let (_, arrived) = self.to_board.send(now, bytes.len());
        self.decoder.push_bytes(bytes);
        let ready = arrived + REPLY_DELAY;
        while let Some(decoded) = self.decoder.poll() {
            let DecodedCommand::Command(command) = decoded else {
                // A bad checksum or garbage: the board ignores it.
                continue;
            };
            if ready < self.silent_until {
                continue;
            }
            let reply = match command {
                Command::Version => Some(Reply::Version(self.cfg.version)),
                Command::Status => {
                    self.model.request_status(ready);
                    self.drain_model();
                    None
                }
                Command::Leds(frame) => {
                    self.leds = frame;
                    Some(Reply::Leds)
                }
                Command::LedsOff => {
                    self.leds = LedFrame::new(self.leds.slot_time());
                    Some(Reply::LedsOff)
                }
                Command::Reset => {
                    self.model.reset(ready, RESET_TIME);
                    self.leds = LedFrame::new(0);
                    self.silent_until = ready + RESET_TIME;
                    None
                }
                Command::Write { address, data } => {
                    self.e2rom[usize::from(address)] = data;
                    self.model.write_register(address, data);
                    Some(Reply::Write { address, data })
                }
                Command::Read { address } => Some(Reply::Read {
                    address,
                    data: self.e2rom[usize::from(address)],
                }),
            };
            if let Some(reply) = reply {
                self.send(ready, &reply);
            }
        }
    }

    /// The least time from a sample to the arrival of the last byte of a message it
    /// causes: the only such message is a status frame (67 bytes).
    pub fn report_lead(&self) -> Duration {
        self.to_host.duration(67)
    }

    /// When the board next samples a square.
    pub fn poll_timeout(&self) -> Time {
        self.model.poll_timeout()
    }

    /// Samples the square due now from `physical` (advanced to `poll_timeout`).
    pub fn handle_timeout(&mut self, physical: &Cursor<'_>) {
        self.model.handle_timeout(physical);
        self.drain_model();
    }

    fn drain_model(&mut self) {
        while let Some(out) = self.model.poll_outgoing() {
            self.send_frame(out);
        }
    }

    fn send_frame(&mut self, out: Outgoing<Box<Squares>>) {
        let mut board = Board::empty();
        for sq in shakmaty::Square::ALL {
            if let Some(p) = out.message[sq as usize] {
                board.set_piece_at(sq, p);
            }
        }
        let reply = Reply::Status(Box::new(status_from_board(&board, self.cfg.model.cable)));
        let bytes = self.encode(&reply);
        let (sent, sensed) = self.to_host.transmit(out.map(|_| bytes), reply.frame_len());
        self.sensed.extend(sensed);
        self.out.push_back(Transmission {
            start: sent.start,
            end: sent.end,
            bytes: sent.message,
        });
    }

    fn send(&mut self, ready: Time, reply: &Reply) {
        let bytes = self.encode(reply);
        let (start, end) = self.to_host.send(ready, bytes.len());
        self.out.push_back(Transmission { start, end, bytes });
    }

    fn encode(&self, reply: &Reply) -> Vec<u8> {
        if self.cfg.parity {
            reply.encode()
        } else {
            reply.encode_ascii()
        }
    }

    /// The next bytes for the host, in the order they go on the line.
    pub fn poll_transmit(&mut self) -> Option<Transmission> {
        self.out.pop_front()
    }

    /// The square changes the host has been sent since the last call.
    pub fn take_sensed(&mut self) -> Vec<SensedChange> {
        std::mem::take(&mut self.sensed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::{Timeline, squares_of};
    use eboardd_core::protocol::millennium::{Decoded, Decoder};

    fn replies(dev: &mut MillenniumDevice) -> Vec<Reply> {
        let mut d = Decoder::new();
        while let Some(t) = dev.poll_transmit() {
            d.push_bytes(&t.bytes);
        }
        let mut out = Vec::new();
        while let Some(x) = d.poll() {
            if let Decoded::Reply(r) = x {
                out.push(r);
            }
        }
        out
    }

    #[test]
    fn answers_version_registers_leds_and_status() {
        let start = squares_of(&Board::default());
        let cfg = MillenniumDeviceConfig {
            model: MillenniumConfig {
                report_register: 1, // off: only answers
                ..MillenniumConfig::default()
            },
            ..MillenniumDeviceConfig::default()
        };
        let mut dev = MillenniumDevice::new(cfg, &start, 1);
        let mut host = Vec::new();
        for c in [
            Command::Version,
            Command::Write {
                address: 2,
                data: 1,
            },
            Command::Read { address: 1 },
            Command::LedsOff,
            Command::Leds(LedFrame::new(5)),
            Command::Status,
        ] {
            host.extend(c.encode());
        }
        dev.handle_host_bytes(Time::ZERO, &host);
        let r = replies(&mut dev);
        assert_eq!(r.len(), 6, "{r:?}");
        assert_eq!(r[0], Reply::Version(Version { high: 1, low: 3 }));
        assert_eq!(
            r[1],
            Reply::Write {
                address: 2,
                data: 1
            }
        );
        assert_eq!(
            r[2],
            Reply::Read {
                address: 1,
                data: 20
            }
        );
        assert_eq!(r[3], Reply::LedsOff);
        assert_eq!(r[4], Reply::Leds);
        assert_eq!(
            r[5],
            Reply::status_of(&Board::default(), Default::default())
        );
    }

    #[test]
    fn a_bad_checksum_gets_no_answer_and_reset_none_either() {
        let start = squares_of(&Board::default());
        let mut dev = MillenniumDevice::new(MillenniumDeviceConfig::default(), &start, 1);
        let mut bad = Command::Version.encode_ascii();
        bad[2] ^= 1;
        dev.handle_host_bytes(Time::ZERO, &bad);
        dev.handle_host_bytes(Time::ZERO, &Command::Reset.encode());
        dev.handle_host_bytes(Time::from_millis(10), &Command::Version.encode());
        assert!(replies(&mut dev).is_empty());
        // After the restart the board scans and reports again.
        let tl = Timeline {
            presses: Vec::new(),
            start,
            events: Vec::new(),
        };
        let mut cursor = Cursor::new(&tl);
        while dev.poll_timeout() < Time::from_millis(3200) {
            cursor.advance_to(dev.poll_timeout());
            dev.handle_timeout(&cursor);
        }
        let r = replies(&mut dev);
        assert!(!r.is_empty() && r.iter().all(|r| matches!(r, Reply::Status(_))));
    }
}
