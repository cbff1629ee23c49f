//! The Millennium ChessLink protocol (see `protocols/millennium.md`).
//!
//! INTERFACE CONTRACT (the items below are used by `sensing`, `sim` and `replay`; keep their
//! names and meaning, add whatever else the protocol needs).

use shakmaty::{Piece, Square};

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

/// A board→host reply, matched by its type letter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// `s`: the 64 square characters in wire order (7-bit ASCII: `KQRBNPkqrbnp.`).
    Status(Box<[u8; 64]>),
    /// Any other reply (`v`, `l`, `x`, `w`, `r`): the decoder's own variants go here.
    Other,
}

/// The piece a status character stands for: `Some(None)` for an empty square (`.`),
/// `None` for a character that is not a square.
pub fn piece_from_char(c: u8) -> Option<Option<Piece>> {
    let _ = c;
    None
}

/// The square a status index (0–63) stands for with the cable on `side`.
pub fn status_square(index: u8, side: CableSide) -> Square {
    let _ = (index, side);
    Square::A1
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

/// A streaming decoder of board→host bytes (bit 7 is masked on the way in).
#[derive(Debug, Default)]
pub struct Decoder {}

impl Decoder {
    /// A decoder with nothing buffered.
    pub fn new() -> Self {
        Self::default()
    }
    /// Appends bytes as read from the port.
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        let _ = bytes;
    }
    /// The next complete reply or skip report; `None` when more bytes are needed.
    pub fn poll(&mut self) -> Option<Decoded> {
        None
    }
}
