//! The sensed board: what stands on each square, in chess coordinates, and when it changed.
//!
//! [`Sensing`] is handed the bytes a board sent and the time they arrived. It decodes them
//! with the board's protocol, keeps the board as the sensors see it in the protocol's own
//! numbering, works out which way round the board stands, and hands back square-level
//! changes in chess coordinates, full reports, clock readings and clock presses. It is
//! sans-IO and knows nothing of games, moves or the Laws: a start position matters to it
//! only as the way to tell which way round the board stands.

mod clock;
mod frame;

use std::collections::VecDeque;

use shakmaty::{Board, Piece, Square};

pub use crate::protocol::link::LinkInfo;
pub use clock::ClockReading;
use frame::Frame;

use crate::event::Orientation;
use crate::game::start::start_kind;
use crate::protocol::Protocol;
use crate::protocol::reading::{Decoded, Reader, Reading, Report};
use crate::time::Time;

/// One square's new content as the sensors report it (already in chess coordinates).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SquareChange {
    /// The square.
    pub square: Square,
    /// What now stands there (`None`: empty). Boards without piece identity report a
    /// placeholder piece; the tracker is told so in its configuration.
    pub piece: Option<Piece>,
}

/// How a board is read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SensingConfig {
    /// Which way round the board stands, when the user fixed it; `None` works it out from
    /// the start position.
    pub orientation: Option<Orientation>,
    /// A set-up position the game starts from: like a start position, it tells which way
    /// round the board stands when the board shows it.
    pub expected: Option<Board>,
}

/// What the sensed board hands back, each with the time of the read that carried it.
#[derive(Debug, Clone, PartialEq)]
pub enum Sensed {
    /// A message decoded from the board, described for people (`--format sensors`).
    Message {
        /// When it arrived.
        t: Time,
        /// What it said.
        text: String,
    },
    /// Bytes the decoder dropped to get back in step.
    Skipped {
        /// When they arrived.
        t: Time,
        /// How many.
        bytes: usize,
        /// Why.
        reason: String,
    },
    /// A whole board: the first report, the first report after the link came back
    /// ([`Sensing::resync`]), or a report after the orientation turned.
    Board {
        /// When it arrived.
        t: Time,
        /// The pieces in chess coordinates.
        board: Board,
        /// Which way round the board stands.
        orientation: Orientation,
        /// Whether this is the first report of the board.
        first: bool,
    },
    /// One square changed.
    Change {
        /// When the report arrived.
        t: Time,
        /// The change.
        change: SquareChange,
    },
    /// A clock reading (DGT clocks through the board).
    Clock {
        /// When it arrived.
        t: Time,
        /// The reading, with sides already mapped to White and Black.
        reading: ClockReading,
    },
    /// The clock lever changed side: a player pressed the clock.
    ClockPress {
        /// When the reading that showed it arrived.
        t: Time,
    },
    /// The board said something about itself or its link (serial number, version, a
    /// clock acknowledgement, a reply to a command).
    Link {
        /// When it arrived.
        t: Time,
        /// What it said.
        info: LinkInfo,
    },
}

impl std::fmt::Display for Sensed {
    /// One line for people: the time, the kind, and what it says.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sensed::Message { t, text } => write!(f, "{t} message {text}"),
            Sensed::Skipped { t, bytes, reason } => {
                write!(f, "{t} decode_error skipped {bytes} bytes: {reason}")
            }
            Sensed::Board {
                t,
                board,
                orientation,
                first,
            } => write!(
                f,
                "{t} board {board} {}{}",
                orientation.as_str(),
                if *first { " first" } else { " turned" }
            ),
            Sensed::Change { t, change } => match change.piece {
                Some(p) => write!(f, "{t} change {} {}", change.square, p.char()),
                None => write!(f, "{t} change {} empty", change.square),
            },
            Sensed::Clock { t, reading } => write!(
                f,
                "{t} clock white {} black {} running {}",
                reading.white_ms,
                reading.black_ms,
                match reading.running {
                    Some(shakmaty::Color::White) => "white",
                    Some(shakmaty::Color::Black) => "black",
                    None => "none",
                }
            ),
            Sensed::ClockPress { t } => write!(f, "{t} clock_press"),
            Sensed::Link { t, info } => write!(f, "{t} link {info}"),
        }
    }
}

/// The sensed board of one e-board (sans-IO: bytes and time in, [`Sensed`] out).
#[derive(Debug)]
pub struct Sensing {
    protocol: Protocol,
    reader: Reader,
    frame: Frame,
    orientation: Orientation,
    orientation_fixed: bool,
    expected: Option<Board>,
    reported: bool,
    resync: bool,
    clock: clock::ClockState,
    clock_present: Option<bool>,
    out: VecDeque<Sensed>,
}

impl Sensing {
    /// A sensed board for `protocol` that has seen nothing yet.
    pub fn new(protocol: Protocol, config: SensingConfig) -> Self {
        Sensing {
            protocol,
            reader: Reader::new(protocol),
            frame: Frame::new(protocol),
            orientation: config.orientation.unwrap_or_default(),
            orientation_fixed: config.orientation.is_some(),
            expected: config.expected,
            reported: false,
            resync: false,
            clock: clock::ClockState::default(),
            clock_present: None,
            out: VecDeque::new(),
        }
    }

    /// The protocol being decoded.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// Which way round the board stands (as far as is known).
    pub fn orientation(&self) -> Orientation {
        self.orientation
    }

    /// Fixes which way round the board stands from now on (a user said so). When the board
    /// has reported and the orientation changes, the whole board is handed on again, read
    /// the new way ([`Sensed::Board`] with `first` false).
    pub fn set_orientation(&mut self, now: Time, orientation: Orientation) {
        self.orientation_fixed = true;
        if self.orientation == orientation {
            return;
        }
        self.orientation = orientation;
        if self.reported {
            self.push_board(now, false);
        }
    }

    /// Whether the board has reported all its squares yet.
    pub fn has_report(&self) -> bool {
        self.reported
    }

    /// The pieces as the sensors see them now, in chess coordinates.
    pub fn board(&self) -> Board {
        self.frame.to_board(self.orientation)
    }

    /// The link to the board was lost and is back: bytes of a message cut off by the loss
    /// are dropped, and the next full report of the board is handed on whole
    /// ([`Sensed::Board`] with `first` false) rather than square by square, since the
    /// pieces may have moved in any way and any order meanwhile.
    pub fn resync(&mut self) {
        self.reader.clear();
        self.resync = self.reported;
    }

    /// Handles bytes read from the board at `now`.
    pub fn handle_input(&mut self, now: Time, bytes: &[u8]) {
        self.reader.push_bytes(bytes);
        while let Some(decoded) = self.reader.poll() {
            match decoded {
                Decoded::Report(report) => self.handle_report(now, report),
                Decoded::Skipped { bytes, reason } => self.out.push_back(Sensed::Skipped {
                    t: now,
                    bytes,
                    reason,
                }),
            }
        }
    }

    /// The next thing sensed, in order.
    pub fn poll(&mut self) -> Option<Sensed> {
        self.out.pop_front()
    }

    fn handle_report(&mut self, now: Time, report: Report) {
        self.out.push_back(Sensed::Message {
            t: now,
            text: report.text,
        });
        if let Some(info) = report.link {
            self.out.push_back(Sensed::Link { t: now, info });
        }
        match report.reading {
            Reading::Whole { pieces, checks } => {
                // Once the board is followed, its square updates keep the picture whole: a
                // whole report sent to check them that differs says they did not come.
                let unreported = self.frame.differing(&pieces);
                if checks && self.reported && !self.resync && unreported > 0 {
                    self.out.push_back(Sensed::Link {
                        t: now,
                        info: LinkInfo::Unreported {
                            squares: u8::try_from(unreported).unwrap_or(u8::MAX),
                        },
                    });
                }
                self.handle_full(now, *pieces);
            }
            Reading::Square { index, piece } => self.handle_field(now, index, piece),
            Reading::Clock(times) => {
                let present = !times.no_clock();
                if self.clock_present != Some(present) {
                    self.clock_present = Some(present);
                    self.out.push_back(Sensed::Link {
                        t: now,
                        info: LinkInfo::ClockPresent(present),
                    });
                }
                let white_is_left = self.orientation == Orientation::Normal;
                if let Some((reading, pressed)) = self.clock.handle(&times, white_is_left) {
                    if pressed {
                        self.out.push_back(Sensed::ClockPress { t: now });
                    }
                    if let Some(reading) = reading {
                        self.out.push_back(Sensed::Clock { t: now, reading });
                    }
                }
            }
            Reading::Other => {}
        }
    }

    fn handle_full(&mut self, now: Time, pieces: [Option<Piece>; 64]) {
        if !self.reported {
            self.frame.set_all(pieces);
            self.reported = true;
            if !self.orientation_fixed {
                self.orientation = self.detect_orientation().unwrap_or(self.orientation);
            }
            self.push_board(now, true);
            return;
        }
        if self.resync {
            self.resync = false;
            self.frame.set_all(pieces);
            self.push_board(now, false);
            return;
        }
        for (index, piece) in pieces.into_iter().enumerate() {
            self.handle_field(now, index, piece);
        }
    }

    fn handle_field(&mut self, now: Time, index: usize, piece: Option<Piece>) {
        // Before the first full report, and after a reconnect until the next one (which is
        // handed on whole), a change only updates the picture.
        if !self.frame.set(index, piece) || !self.reported || self.resync {
            return;
        }
        let could_be_start = self.frame.count() == 32
            || self
                .expected
                .as_ref()
                .is_some_and(|b| b.occupied().count() == self.frame.count());
        if !self.orientation_fixed && could_be_start {
            let turned = self.orientation.flipped();
            if !self.is_start(&self.frame.to_board(self.orientation))
                && self.is_start(&self.frame.to_board(turned))
            {
                self.orientation = turned;
                self.push_board(now, false);
                return;
            }
        }
        self.out.push_back(Sensed::Change {
            t: now,
            change: SquareChange {
                square: self.frame.square(index, self.orientation),
                piece,
            },
        });
    }

    fn detect_orientation(&self) -> Option<Orientation> {
        [Orientation::Normal, Orientation::Rotated]
            .into_iter()
            .find(|&o| self.is_start(&self.frame.to_board(o)))
    }

    /// Whether `board` is a position a game starts from: a start position, or the set-up
    /// position the game is expected to start from.
    fn is_start(&self, board: &Board) -> bool {
        start_kind(board).is_some() || self.expected.as_ref() == Some(board)
    }

    fn push_board(&mut self, now: Time, first: bool) {
        self.out.push_back(Sensed::Board {
            t: now,
            board: self.frame.to_board(self.orientation),
            orientation: self.orientation,
            first,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::dgt;
    use shakmaty::fen::Fen;

    fn dgt_dump(board: &Board, turned: bool) -> Vec<u8> {
        let mut codes = [0u8; 64];
        for (square, piece) in board.iter() {
            let field = dgt::square_field(square);
            let field = if turned { 63 - field } else { field };
            codes[usize::from(field)] = dgt::piece_code(piece);
        }
        dgt::BoardMessage::BoardDump(Box::new(codes))
            .to_bytes()
            .expect("a dump encodes")
    }

    fn first_board(sensing: &mut Sensing) -> (Board, Orientation) {
        while let Some(item) = sensing.poll() {
            if let Sensed::Board {
                board, orientation, ..
            } = item
            {
                return (board, orientation);
            }
        }
        panic!("no board reported");
    }

    #[test]
    fn turned_board_is_recognised_from_the_start_position() {
        let mut s = Sensing::new(Protocol::Dgt, SensingConfig::default());
        s.handle_input(Time::ZERO, &dgt_dump(&Board::new(), true));
        assert_eq!(first_board(&mut s), (Board::new(), Orientation::Rotated));
    }

    #[test]
    fn turned_board_is_recognised_from_the_expected_set_up_position() {
        let setup = "r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R w - - 0 1"
            .parse::<Fen>()
            .expect("fen")
            .into_setup()
            .board;
        let mut s = Sensing::new(
            Protocol::Dgt,
            SensingConfig {
                expected: Some(setup.clone()),
                ..SensingConfig::default()
            },
        );
        s.handle_input(Time::ZERO, &dgt_dump(&setup, true));
        assert_eq!(first_board(&mut s), (setup, Orientation::Rotated));
    }

    #[test]
    fn after_a_resync_the_next_dump_comes_whole_not_square_by_square() {
        let mut s = Sensing::new(Protocol::Dgt, SensingConfig::default());
        s.handle_input(Time::ZERO, &dgt_dump(&Board::new(), false));
        first_board(&mut s);
        let moved = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 1"
            .parse::<Fen>()
            .expect("fen")
            .into_setup()
            .board;
        // Half a message, then the link drops.
        s.handle_input(Time::from_millis(5), &[0x8e, 0x00]);
        s.resync();
        s.handle_input(Time::from_millis(10), &dgt_dump(&moved, false));
        let items: Vec<Sensed> = std::iter::from_fn(|| s.poll()).collect();
        assert!(
            !items
                .iter()
                .any(|i| matches!(i, Sensed::Change { .. } | Sensed::Skipped { .. })),
            "{items:?}"
        );
        assert!(items.iter().any(|i| matches!(
            i,
            Sensed::Board { board, first: false, .. } if *board == moved
        )));
        // Later reports are square changes again.
        s.handle_input(Time::from_millis(20), &dgt_dump(&Board::new(), false));
        assert!(std::iter::from_fn(|| s.poll()).any(|i| matches!(i, Sensed::Change { .. })));
    }

    #[test]
    fn fixed_orientation_is_kept_whatever_the_board_shows() {
        let mut s = Sensing::new(
            Protocol::Dgt,
            SensingConfig {
                orientation: Some(Orientation::Normal),
                ..SensingConfig::default()
            },
        );
        s.handle_input(Time::ZERO, &dgt_dump(&Board::new(), true));
        let (board, orientation) = first_board(&mut s);
        assert_eq!(orientation, Orientation::Normal);
        assert_ne!(board, Board::new());
    }

    #[test]
    fn an_orientation_set_by_a_user_reads_the_board_again_that_way_and_stays() {
        let setup = "4k3/pp6/8/3p4/4P3/8/PP6/4K3 w - - 0 1"
            .parse::<Fen>()
            .expect("fen")
            .into_setup()
            .board;
        let mut s = Sensing::new(Protocol::Dgt, SensingConfig::default());
        s.handle_input(Time::ZERO, &dgt_dump(&setup, true));
        let (board, orientation) = first_board(&mut s);
        assert_eq!(
            orientation,
            Orientation::Normal,
            "nothing tells it is turned"
        );
        assert_ne!(board, setup);
        s.set_orientation(Time::from_millis(5), Orientation::Rotated);
        let items: Vec<Sensed> = std::iter::from_fn(|| s.poll()).collect();
        assert!(
            matches!(
                &items[..],
                [Sensed::Board { board, orientation: Orientation::Rotated, first: false, .. }]
                    if *board == setup
            ),
            "{items:?}"
        );
        // Fixed from now on: a start position read the normal way does not turn it back.
        s.handle_input(Time::from_millis(10), &dgt_dump(&Board::new(), false));
        assert_eq!(s.orientation(), Orientation::Rotated);
        while s.poll().is_some() {}
        s.set_orientation(Time::from_millis(20), Orientation::Rotated);
        assert!(
            s.poll().is_none(),
            "the same way round: nothing to read again"
        );
    }
}
