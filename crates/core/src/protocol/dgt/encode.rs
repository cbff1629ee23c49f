//! Writing board→host messages as a board does (for the board emulator and for tests), and
//! the error every encoder of this module returns for a value the wire cannot carry.
//!
//! Every message is framed as the id byte, two 7-bit length bytes (the total length,
//! header included) and data bytes with bit 7 clear. No IO: bytes are appended to a `Vec`.

use super::clock::{encode_ack, encode_times};
use super::ee::encode_records;
use super::{BoardMessage, msg};

/// A value that cannot be put on the wire.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// A number above what its field can hold.
    #[error("{what} is {value}, above its maximum {max}")]
    OutOfRange {
        /// The field, for people.
        what: &'static str,
        /// The value given.
        value: u32,
        /// The largest value allowed.
        max: u32,
    },
    /// A text with a character outside 7-bit ASCII.
    #[error("{what} has a character outside 7-bit ASCII")]
    NotAscii {
        /// The field, for people.
        what: &'static str,
    },
    /// A text or list of the wrong length.
    #[error("{what} has length {len}, {expected}")]
    Length {
        /// The field, for people.
        what: &'static str,
        /// The length given.
        len: usize,
        /// What is allowed, for people.
        expected: &'static str,
    },
}

/// `value` if it is at most `max`, an [`EncodeError::OutOfRange`] otherwise.
pub(super) fn check_max(what: &'static str, value: u8, max: u8) -> Result<u8, EncodeError> {
    if value <= max {
        Ok(value)
    } else {
        Err(EncodeError::OutOfRange {
            what,
            value: u32::from(value),
            max: u32::from(max),
        })
    }
}

/// The bytes of an ASCII text whose length is in `lengths`.
pub(super) fn ascii_text<'a>(
    what: &'static str,
    text: &'a str,
    lengths: std::ops::RangeInclusive<usize>,
    expected: &'static str,
) -> Result<&'a [u8], EncodeError> {
    if !text.is_ascii() {
        return Err(EncodeError::NotAscii { what });
    }
    if !lengths.contains(&text.len()) {
        return Err(EncodeError::Length {
            what,
            len: text.len(),
            expected,
        });
    }
    Ok(text.as_bytes())
}

impl BoardMessage {
    /// Appends the message as the board sends it. On error nothing is appended.
    ///
    /// ```
    /// use eboardd_core::protocol::dgt::BoardMessage;
    /// let mut out = Vec::new();
    /// BoardMessage::FieldUpdate { field: 0x34, code: 0 }.encode(&mut out).unwrap();
    /// assert_eq!(out, [0x8e, 0x00, 0x05, 0x34, 0x00]);
    /// ```
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let start = out.len();
        out.extend_from_slice(&[self.id(), 0, 0]);
        let result = self.encode_data(out).and_then(|()| {
            let data = &out[start + 3..];
            if data.iter().any(|b| b & 0x80 != 0) {
                return Err(EncodeError::OutOfRange {
                    what: "a data byte (bit 7 marks message starts)",
                    value: data.iter().copied().max().map_or(0, u32::from),
                    max: 0x7f,
                });
            }
            let total = out.len() - start;
            if total > super::MAX_MESSAGE_LEN {
                return Err(EncodeError::Length {
                    what: "message",
                    len: total,
                    expected: "at most 7939 bytes (the EE_MOVES size)",
                });
            }
            // Below 2^14 by the check above, so both halves fit seven bits.
            out[start + 1] = ((total >> 7) & 0x7f) as u8;
            out[start + 2] = (total & 0x7f) as u8;
            Ok(())
        });
        if result.is_err() {
            out.truncate(start);
        }
        result
    }

    /// The message as the board sends it.
    pub fn to_bytes(&self) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::new();
        self.encode(&mut out)?;
        Ok(out)
    }

    /// Appends the data bytes (after the header).
    fn encode_data(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        match self {
            BoardMessage::BoardDump(codes) => out.extend_from_slice(&codes[..]),
            BoardMessage::FieldUpdate { field, code } => {
                let field = check_max("FIELD_UPDATE field", *field, 63)?;
                let code = check_max("FIELD_UPDATE piece code", *code, 0x0f)?;
                out.extend_from_slice(&[field, code]);
            }
            BoardMessage::ClockTimes(times) => out.extend_from_slice(&encode_times(times)?),
            BoardMessage::ClockAck(ack) => out.extend_from_slice(&encode_ack(ack)),
            BoardMessage::Version(version) => {
                let major = check_max("VERSION main version", version.major, 0x7f)?;
                let minor = check_max("VERSION sub version", version.minor, 0x7f)?;
                out.extend_from_slice(&[major, minor]);
            }
            BoardMessage::SerialNr(text) => {
                let text = ascii_text("SERIALNR", text, 5..=9, "expected 5 or 9")?;
                if text.len() != 5 && text.len() != 9 {
                    return Err(EncodeError::Length {
                        what: "SERIALNR",
                        len: text.len(),
                        expected: "expected 5 or 9",
                    });
                }
                out.extend_from_slice(text);
            }
            BoardMessage::LongSerialNr(text) => out.extend_from_slice(ascii_text(
                "LONG_SERIALNR",
                text,
                1..=super::decode::MAX_LONG_SERIAL,
                "expected 1 to 32",
            )?),
            BoardMessage::Trademark(text) => out.extend_from_slice(ascii_text(
                "TRADEMARK",
                text,
                0..=super::decode::MAX_TRADEMARK,
                "expected at most 512",
            )?),
            BoardMessage::BatteryStatus(battery) => out.extend_from_slice(&battery.to_bytes()),
            BoardMessage::BusAddress(address) => out.extend_from_slice(&address.to_bytes()),
            BoardMessage::EeMoves(records) => encode_records(records, out)?,
            BoardMessage::DgtNone => {}
        }
        Ok(())
    }
}

/// The id of a message as a name, for reports.
pub(super) fn message_name(id: u8) -> &'static str {
    match id {
        msg::NONE => "DGT_NONE",
        msg::BOARD_DUMP => "BOARD_DUMP",
        msg::BWTIME => "BWTIME",
        msg::FIELD_UPDATE => "FIELD_UPDATE",
        msg::EE_MOVES => "EE_MOVES",
        msg::BUSADRES => "BUSADRES",
        msg::SERIALNR => "SERIALNR",
        msg::TRADEMARK => "TRADEMARK",
        msg::VERSION => "VERSION",
        msg::BATTERY_STATUS => "BATTERY_STATUS",
        msg::LONG_SERIALNR => "LONG_SERIALNR",
        _ => "unknown message",
    }
}
