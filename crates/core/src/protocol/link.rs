//! What a board says about itself and its link rather than about the pieces: serial
//! numbers, versions, clock acknowledgements, replies to commands. Sensing picks them out
//! of the board's messages; the board's driver ([`super::driver`]) uses them for its
//! identity, the clock's one-command-at-a-time rule and to prove the link alive; nothing
//! here decides anything about a game.

use crate::protocol::{dgt, millennium};
use crate::text::board_text;

/// Something a board said about itself or its link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkInfo {
    /// The board's serial number as it sent it: DGT SERIALNR (`long` false) or
    /// LONG_SERIALNR (`long` true).
    Serial {
        /// The text as sent, trimmed and made printable ([`crate::text::board_text`]:
        /// control characters escaped, at most [`crate::text::MAX_BOARD_TEXT`] bytes).
        text: String,
        /// Whether this is the long serial number.
        long: bool,
    },
    /// The board's firmware version (DGT `3.10`; Millennium the four hex digits, `0103`).
    Version(String),
    /// A DGT clock's acknowledgement (of a command, or sent on its own).
    ClockAck(dgt::ClockAck),
    /// Whether a clock is attached to a DGT board, as its clock times say (told when it
    /// changes, and the first time).
    ClockPresent(bool),
    /// A Millennium reply other than a status frame or a write's echo, by its type letter
    /// (`l`, `x`, `r`).
    Reply(u8),
    /// A Millennium board's echo of a register write (`w`): the register and the value.
    Written {
        /// The register.
        address: u8,
        /// The value.
        data: u8,
    },
    /// A DGT board's dump, once the board was followed, shows squares changed that no field
    /// update reported: the board is not in an update mode (the command that asked for it
    /// was lost, or the board was reset meanwhile).
    Unreported {
        /// How many squares.
        squares: u8,
    },
}

impl std::fmt::Display for LinkInfo {
    /// A few words for people (`eboardd replay --format sensors`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinkInfo::Serial { text, long } => {
                write!(f, "{} {text}", if *long { "long_serial" } else { "serial" })
            }
            LinkInfo::Version(v) => write!(f, "version {v}"),
            LinkInfo::ClockAck(a) => write!(
                f,
                "clock_ack {:02x} {:02x} {:02x} {:02x}",
                a.bytes[0], a.bytes[1], a.bytes[2], a.bytes[3]
            ),
            LinkInfo::ClockPresent(p) => write!(f, "clock_present {p}"),
            LinkInfo::Reply(letter) => write!(f, "reply {}", char::from(*letter)),
            LinkInfo::Written { .. } => write!(f, "reply w"),
            LinkInfo::Unreported { squares } => write!(f, "unreported {squares}"),
        }
    }
}

/// What a DGT message says about the board or its link, if anything.
pub fn from_dgt(message: &dgt::BoardMessage) -> Option<LinkInfo> {
    match message {
        dgt::BoardMessage::SerialNr(s) => Some(LinkInfo::Serial {
            text: board_text(s.as_bytes()),
            long: false,
        }),
        dgt::BoardMessage::LongSerialNr(s) => Some(LinkInfo::Serial {
            text: board_text(s.as_bytes()),
            long: true,
        }),
        dgt::BoardMessage::Version(v) => Some(LinkInfo::Version(v.to_string())),
        dgt::BoardMessage::ClockAck(a) => Some(LinkInfo::ClockAck(*a)),
        _ => None,
    }
}

/// What a Millennium reply says about the board or its link, if anything.
pub fn from_millennium(reply: &millennium::Reply) -> Option<LinkInfo> {
    match reply {
        millennium::Reply::Status(_) => None,
        millennium::Reply::Version(v) => Some(LinkInfo::Version(v.to_string())),
        millennium::Reply::Write { address, data } => Some(LinkInfo::Written {
            address: *address,
            data: *data,
        }),
        other => Some(LinkInfo::Reply(other.letter())),
    }
}
