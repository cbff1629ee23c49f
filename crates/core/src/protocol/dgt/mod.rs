//! The DGT e-board protocol: bytes ⇄ typed messages in both directions, for both ends of
//! the wire (see `protocols/dgt.md` for the byte layouts and the quirks we handle).
//!
//! This module is a codec and nothing else. It does no IO, reads no clock and knows no
//! game: it is handed bytes and hands back messages, or is handed messages and hands back
//! bytes. Timing rules of the protocol (one clock command at a time, keep-alive, debouncing)
//! belong to the layers that own time; they are described in the protocol notes, not
//! enforced here.
//!
//! # Board → host
//! * [`Decoder`] turns the board's byte stream into [`BoardMessage`]s. It finds message
//!   starts by bit 7, validates each message's length by its id, drops damaged messages and
//!   reports every dropped byte as [`Decoded::Skipped`].
//! * [`BoardMessage::encode`] writes a message as a board would (for the board emulator and
//!   for tests).
//!
//! # Host → board
//! * [`Command`] is every command the host may send; [`Command::encode`] writes it.
//!   Commands that flash firmware or change the board's EEPROM settings are not commands
//!   here at all (see [`ForbiddenCommand`]).
//! * [`CommandDecoder`] reads host bytes as a board would (for the emulator and for tests).
//!
//! # Numbers
//! [`field_square`], [`piece_from_code`], [`FieldContent`] and the constants in [`msg`] and
//! [`cmd`] translate the board's numbering into shakmaty's types.
//!
//! ```
//! use eboardd_core::protocol::dgt::{BoardMessage, Decoded, Decoder};
//!
//! let mut decoder = Decoder::new();
//! decoder.push_bytes(&[0x8e, 0x00, 0x05, 0x34]);
//! assert_eq!(decoder.poll(), None); // the message is not complete yet
//! decoder.push_bytes(&[0x00]);
//! assert_eq!(
//!     decoder.poll(),
//!     Some(Decoded::Message(BoardMessage::FieldUpdate { field: 0x34, code: 0 }))
//! );
//! ```

mod buffer;
mod clock;
mod clock_cmd;
pub mod clock_queue;
mod codes;
mod command;
mod command_decode;
mod decode;
pub mod driver;
mod ee;
mod encode;
mod messages;

#[cfg(test)]
mod tests;

pub use clock::{ClockAck, ClockButton, ClockFace, ClockSide, ClockTimes, ack, status};
pub use clock_cmd::{
    ClockCommand, ClockIcons, Hms, RunningSide, XlDisplay, icon, seven_segment, xl_segments,
};
pub use codes::{
    EMPTY, FieldContent, SpecialPiece, cmd, field_square, is_field, msg, piece_code,
    piece_from_code, rotated_field, square_field,
};
pub use command::{BusAddress, BusCommand, BusRequest, Command, ForbiddenCommand, LedCommand};
pub use command_decode::{CommandDecoder, DecodedCommand};
pub use decode::{Decoder, MAX_BUFFERED, MAX_MESSAGE_LEN};
pub use ee::{EeRecord, EeTag};
pub use encode::EncodeError;
pub use messages::{BatteryStatus, FirmwareVersion};

/// A board→host message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoardMessage {
    /// BOARD_DUMP (0x86): the 64 piece codes in field order (field 0 = a8 … 63 = h1), as
    /// sent (read them with [`piece_from_code`] or [`FieldContent::from_code`]).
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
    /// VERSION (0x93): the board's firmware version.
    Version(FirmwareVersion),
    /// SERIALNR (0x91): the serial number as sent, 5 ASCII digits, or 9 characters on
    /// old boards (digits, a space and a 3-character storage version).
    SerialNr(String),
    /// LONG_SERIALNR (0xa2): the long serial number as sent (usually 10 ASCII characters;
    /// any length from 1 to 32 is accepted).
    LongSerialNr(String),
    /// TRADEMARK (0x92): the board's identification text (ASCII, up to 512 characters).
    Trademark(String),
    /// BATTERY_STATUS (0xa0): the battery report of a Bluetooth board.
    BatteryStatus(BatteryStatus),
    /// BUSADRES (0x90): the 14-bit bus address.
    BusAddress(BusAddress),
    /// EE_MOVES (0x8f): the board's event log, oldest record first.
    EeMoves(Vec<EeRecord>),
    /// DGT_NONE (0x80): a header-only message with no meaning. Some boards send many;
    /// the layer above may count them.
    DgtNone,
}

impl BoardMessage {
    /// The message id this message is sent with.
    pub fn id(&self) -> u8 {
        match self {
            BoardMessage::BoardDump(_) => msg::BOARD_DUMP,
            BoardMessage::FieldUpdate { .. } => msg::FIELD_UPDATE,
            BoardMessage::ClockTimes(_) | BoardMessage::ClockAck(_) => msg::BWTIME,
            BoardMessage::Version(_) => msg::VERSION,
            BoardMessage::SerialNr(_) => msg::SERIALNR,
            BoardMessage::LongSerialNr(_) => msg::LONG_SERIALNR,
            BoardMessage::Trademark(_) => msg::TRADEMARK,
            BoardMessage::BatteryStatus(_) => msg::BATTERY_STATUS,
            BoardMessage::BusAddress(_) => msg::BUSADRES,
            BoardMessage::EeMoves(_) => msg::EE_MOVES,
            BoardMessage::DgtNone => msg::NONE,
        }
    }
}

/// The commands a board is sent when it is opened: reset (leave any mode, and bus mode after
/// power-up), update mode with clock times when they change, then the whole board (so no
/// change falls between the board read and the first update: commands are paced 100 ms
/// apart, and the board is read as soon as it can be), who the board is (its serial
/// number, then the long one, which tells a Revelation II), the firmware version, and the
/// clock's version (its ack tells whether a clock is there).
pub fn startup_commands() -> Vec<Vec<u8>> {
    [
        Command::Reset,
        Command::SendUpdateNice,
        Command::SendBoard,
        Command::ReturnSerialNr,
        Command::ReturnLongSerialNr,
        Command::SendVersion,
        Command::Clock(ClockCommand::Version),
    ]
    .iter()
    .filter_map(|c| c.to_bytes().ok())
    .collect()
}

/// Whether a LONG_SERIALNR text says the board is a Revelation II (and so has LEDs): its
/// first four characters read as a version of 3.25 or more (`3.250010001` yes,
/// `0000000001` no), the test picochess makes on a Revelation II.
pub fn long_serial_is_revelation(text: &str) -> bool {
    let b = text.as_bytes();
    match b {
        [major, b'.', m1, m2, ..]
            if major.is_ascii_digit() && m1.is_ascii_digit() && m2.is_ascii_digit() =>
        {
            let version =
                u32::from(major - b'0') * 100 + u32::from(m1 - b'0') * 10 + u32::from(m2 - b'0');
            version >= 325
        }
        _ => false,
    }
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
