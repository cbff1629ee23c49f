//! The DGT e-board protocol (see `protocols/dgt.md`).
//!
//! INTERFACE CONTRACT (the items below are used by `sensing`, `sim` and `replay`; keep their
//! names and meaning, add whatever else the protocol needs).

use shakmaty::{Piece, Square};

/// A board→host message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoardMessage {
    /// BOARD_DUMP (0x86): the 64 piece codes in field order (field 0 = a8 … 63 = h1).
    BoardDump(Box<[u8; 64]>),
    /// FIELD_UPDATE (0x8e): one field changed to a piece code (0 = empty).
    FieldUpdate {
        /// Field number 0–63.
        field: u8,
        /// New piece code, masked to its low nibble.
        code: u8,
    },
    /// BWTIME (0x8d) carrying clock times.
    ClockTimes(ClockTimes),
    /// BWTIME (0x8d) carrying a clock acknowledgement.
    ClockAck(ClockAck),
    /// Anything else (version, serial numbers, trademark, battery, bus address, EE moves,
    /// DGT_NONE): the decoder's own variants go here.
    Other,
}

/// One clock face as BWTIME reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClockFace {
    /// Hours 0–9.
    pub hours: u8,
    /// Minutes 0–59.
    pub minutes: u8,
    /// Seconds 0–59.
    pub seconds: u8,
    /// The flag fell and the clock is blocked at zero.
    pub flag_fallen: bool,
    /// The time-per-move (Bronstein/Fischer) indicator.
    pub time_per_move: bool,
    /// A flag is shown while the clock may still run (next period).
    pub flag_shown: bool,
}

impl ClockFace {
    /// The time shown, in milliseconds.
    pub fn millis(&self) -> u64 {
        (u64::from(self.hours) * 3600 + u64::from(self.minutes) * 60 + u64::from(self.seconds))
            * 1000
    }
}

/// BWTIME as clock times: left and right are physical, as seen from the front.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClockTimes {
    /// The left display.
    pub left: ClockFace,
    /// The right display.
    pub right: ClockFace,
    /// The raw status byte (d6).
    pub status: u8,
}

impl ClockTimes {
    /// Status bit 0: the clock is running.
    pub fn running(&self) -> bool {
        self.status & 0x01 != 0
    }
    /// Status bit 1: the lever is high on the right (so the right clock runs).
    pub fn lever_right_high(&self) -> bool {
        self.status & 0x02 != 0
    }
    /// Status bit 5: no clock is connected and the times are not valid.
    pub fn no_clock(&self) -> bool {
        self.status & 0x20 != 0
    }
}

/// BWTIME as a clock acknowledgement: the four rebuilt 8-bit ack bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClockAck {
    /// ack0..ack3.
    pub bytes: [u8; 4],
}

/// The piece a DGT piece code stands for; empty and the special pieces give `None`.
pub fn piece_from_code(code: u8) -> Option<Piece> {
    let _ = code;
    None
}

/// The square of a field number in the board's own numbering (0 = a8 … 63 = h1).
pub fn field_square(field: u8) -> Square {
    let _ = field;
    Square::A1
}

/// What the decoder hands back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    /// A complete message.
    Message(BoardMessage),
    /// Bytes dropped to get back in step, and why.
    Skipped {
        /// How many bytes were dropped.
        bytes: usize,
        /// Why, for people.
        reason: String,
    },
}

/// A streaming decoder of board→host bytes.
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
    /// The next complete message or skip report; `None` when more bytes are needed.
    pub fn poll(&mut self) -> Option<Decoded> {
        None
    }
}
