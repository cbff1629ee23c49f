//! The Millennium ChessLink protocol (see `protocols/millennium.md`): bytes ⇄ typed messages
//! in both directions, for the daemon (host side) and the board emulator (board side).
//!
//! This module turns the bytes of a ChessLink line into [`Reply`] and [`Command`] values and
//! back. It owns the wire rules: odd parity in bit 7 (done in software, as ports are opened
//! 8N1), the XOR block checksum, fixed-length framing by type letter, the two orders of the
//! status payload ([`CableSide`]), the 81 corner LEDs and the E2ROM registers. It must not
//! know about IO (ports, Bluetooth), time (timeouts, retries, debouncing belong to the device
//! and sensing layers) or games (what a position means, which move was played).
//!
//! * Host side: encode a [`Command`] with [`Command::encode`], feed what the board sends to a
//!   [`Decoder`] and [`poll`](Decoder::poll) it for [`Decoded`] replies and skip reports.
//!   Replies are matched to requests by type ([`Reply::answers`]), never by order: status
//!   frames may arrive between a command and its reply.
//! * Board side (emulator, tests): feed what the host sends to a [`CommandDecoder`] and answer
//!   with [`Reply::encode`]; [`status_from_board`] builds a status payload.
//! * LEDs: [`LedFrame`] with [`square_leds`] for both cable sides.
//! * Start-up settings: [`registers`].
//!
//! INTERFACE CONTRACT (used by `sensing`, `sim` and `replay`): [`CableSide`], [`Reply`] (with
//! `Reply::Status` holding the 64 7-bit status characters in wire order), [`piece_from_char`],
//! [`status_square`], [`Decoded`] and [`Decoder`] (`new`, `push_bytes`, `poll`).

use std::fmt;

use shakmaty::Board;

mod command;
mod decode;
pub mod driver;
mod encode;
mod frame;
mod leds;
pub mod registers;
mod status;
pub mod watch;
mod wire;
pub mod writes;

pub use command::{Command, CommandDecoder, DecodedCommand};
pub use decode::Decoder;
pub use frame::{DEFAULT_BUFFER_LIMIT, MIN_BUFFER_LIMIT};
pub use leds::{
    LED_COUNT, LedFrame, LedIndexOutOfRange, MOVE_FROM_PATTERN, MOVE_SLOT_TIME, MOVE_TO_PATTERN,
    square_leds,
};
pub use status::{
    EMPTY_SQUARE_CHAR, InvalidSquareChar, START_CHARS_CABLE_LEFT, START_CHARS_CABLE_RIGHT,
    board_from_status, char_from_piece, piece_from_char, status_from_board, status_index,
    status_square,
};
pub use wire::{checksum, strip_parity, with_odd_parity};

/// Which side of the board the ChessLink cable is on, seen from White.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CableSide {
    /// Cable on White's right: status index 0 = h1, 1 = g1 … 7 = a1, 8 = h2 … 63 = a8
    /// (what boards send in practice; the default).
    #[default]
    Right,
    /// Cable on White's left: the official order, index 0 = a8 … 63 = h1.
    Left,
}

impl CableSide {
    /// The other side: the board turned 180°.
    pub fn flipped(self) -> Self {
        match self {
            CableSide::Right => CableSide::Left,
            CableSide::Left => CableSide::Right,
        }
    }
}

/// The firmware version a `v` reply carries: two bytes sent as 4 hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Version {
    /// The high byte (first two digits).
    pub high: u8,
    /// The low byte (last two digits).
    pub low: u8,
}

impl Version {
    /// The version as one 16-bit number, high byte first (`v0103` → 0x0103).
    pub fn as_u16(self) -> u16 {
        u16::from_be_bytes([self.high, self.low])
    }
}

impl fmt::Display for Version {
    /// The 4 hex digits as sent (`0103`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02X}{:02X}", self.high, self.low)
    }
}

/// A board→host reply, matched by its type letter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// `v`: the answer to [`Command::Version`].
    Version(Version),
    /// `s`: the 64 square characters in wire order (7-bit ASCII: `KQRBNPkqrbnp.`), sent
    /// unasked after scans and in answer to [`Command::Status`]. Read them with
    /// [`board_from_status`] or [`piece_from_char`] and [`status_square`].
    Status(Box<[u8; 64]>),
    /// `l`: the LED pattern of a [`Command::Leds`] was taken.
    Leds,
    /// `x`: the LEDs were put out ([`Command::LedsOff`]).
    LedsOff,
    /// `w`: the echo of a [`Command::Write`] to the E2ROM.
    Write {
        /// The register address written.
        address: u8,
        /// The value written.
        data: u8,
    },
    /// `r`: the answer to a [`Command::Read`] of the E2ROM.
    Read {
        /// The register address read.
        address: u8,
        /// The value it holds.
        data: u8,
    },
}

impl Reply {
    /// The type letter that starts the reply's frame.
    pub fn letter(&self) -> u8 {
        match self {
            Reply::Version(_) => b'v',
            Reply::Status(_) => b's',
            Reply::Leds => b'l',
            Reply::LedsOff => b'x',
            Reply::Write { .. } => b'w',
            Reply::Read { .. } => b'r',
        }
    }

    /// The length of the reply's frame in characters, checksum included.
    pub fn frame_len(&self) -> usize {
        match self {
            Reply::Version(_) | Reply::Write { .. } | Reply::Read { .. } => 7,
            Reply::Status(_) => 67,
            Reply::Leds | Reply::LedsOff => 3,
        }
    }

    /// Whether this reply answers `command`: same type, and for `w`/`r` the same register
    /// (and for `w` the same value echoed). [`Command::Reset`] gets no reply at all.
    ///
    /// ```
    /// use eboardd_core::protocol::millennium::{Command, Reply};
    /// let write = Command::Write { address: 2, data: 3 };
    /// assert!(Reply::Write { address: 2, data: 3 }.answers(&write));
    /// assert!(!Reply::Write { address: 2, data: 7 }.answers(&write));
    /// assert!(!Reply::Leds.answers(&write));
    /// ```
    pub fn answers(&self, command: &Command) -> bool {
        match (self, command) {
            (Reply::Version(_), Command::Version)
            | (Reply::Status(_), Command::Status)
            | (Reply::Leds, Command::Leds(_))
            | (Reply::LedsOff, Command::LedsOff) => true,
            (
                Reply::Write { address, data },
                Command::Write {
                    address: a,
                    data: d,
                },
            ) => address == a && data == d,
            (Reply::Read { address, .. }, Command::Read { address: a }) => address == a,
            _ => false,
        }
    }

    /// The status reply a board with the cable on `side` sends for a position (for the board
    /// emulator).
    pub fn status_of(board: &Board, side: CableSide) -> Reply {
        Reply::Status(Box::new(status_from_board(board, side)))
    }
}

/// What the decoder hands back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    /// A complete reply whose checksum was right.
    Reply(Reply),
    /// Bytes dropped (garbage, bad checksum), and why.
    Skipped {
        /// How many bytes were dropped.
        bytes: usize,
        /// Why, for people.
        reason: String,
    },
}

/// The commands a board is sent when it is opened, encoded with parity: `V` (is a board
/// there?), the register writes of [`registers::startup_writes`], `X` (LEDs off, they keep
/// whatever the last program left), then `S` for the whole board.
pub fn startup_commands() -> Vec<Vec<u8>> {
    let mut out = vec![Command::Version.encode()];
    out.extend(registers::startup_writes().iter().map(Command::encode));
    out.push(Command::LedsOff.encode());
    out.push(Command::Status.encode());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_reads_as_one_number_and_prints_as_sent() {
        let v = Version { high: 1, low: 3 };
        assert_eq!(v.as_u16(), 0x0103);
        assert_eq!(v.to_string(), "0103");
    }

    #[test]
    fn replies_answer_their_own_command_type_only() {
        let commands = [
            Command::Version,
            Command::Status,
            Command::Leds(LedFrame::new(0)),
            Command::LedsOff,
            Command::Reset,
            Command::Write {
                address: 1,
                data: 2,
            },
            Command::Read { address: 1 },
        ];
        let replies = [
            Reply::Version(Version::default()),
            Reply::Status(Box::new([b'.'; 64])),
            Reply::Leds,
            Reply::LedsOff,
            Reply::Write {
                address: 1,
                data: 2,
            },
            Reply::Read {
                address: 1,
                data: 9,
            },
        ];
        for reply in &replies {
            let answered: Vec<&Command> = commands.iter().filter(|c| reply.answers(c)).collect();
            assert_eq!(answered.len(), 1, "{reply:?}");
            assert_eq!(answered[0].reply_letter(), Some(reply.letter()));
        }
        assert!(
            !Reply::Read {
                address: 2,
                data: 9
            }
            .answers(&Command::Read { address: 1 })
        );
    }

    #[test]
    fn status_reply_of_the_start_position_per_side() {
        let board = Board::new();
        assert_eq!(
            Reply::status_of(&board, CableSide::Right),
            Reply::Status(Box::new(*START_CHARS_CABLE_RIGHT))
        );
        assert_eq!(
            Reply::status_of(&board, CableSide::Left),
            Reply::Status(Box::new(*START_CHARS_CABLE_LEFT))
        );
        assert_eq!(CableSide::Right.flipped(), CableSide::Left);
    }
}
