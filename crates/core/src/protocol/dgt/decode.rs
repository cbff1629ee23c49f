//! The streaming decoder of board→host bytes: framing, length checks per message id, and
//! getting back in step after damage.
//!
//! The rules (see `protocols/dgt.md`): a message starts at the only byte with bit 7 set,
//! followed by two 7-bit length bytes giving the total length. Bytes before a start are
//! dropped; a bit-7 byte inside a message's header or data ends that message (it is
//! dropped) and is tried as the start of the next one; a known id with the wrong length,
//! and an unknown id, are dropped with the 7-bit bytes after them. No byte with bit 7 set is
//! ever dropped except as the id of a message that was refused, so a damaged message can
//! never take the next good one with it.
//!
//! Sans-IO: bytes go in with [`Decoder::push_bytes`], results come out of
//! [`Decoder::poll`]. No time, no game knowledge.

use nom::bytes::complete::take_till;
use nom::bytes::streaming::take;
use nom::error::{ErrorKind, ParseError};
use nom::number::streaming::u8 as byte;
use nom::{Err, IResult, Parser};

use super::buffer::StreamBuffer;
use super::clock::{Bwtime, ImpossibleTime, decode_bwtime};
use super::command::BusAddress;
use super::ee::parse_records;
use super::encode::message_name;
use super::messages::{BatteryStatus, FirmwareVersion};
use super::{BoardMessage, Decoded, msg};

/// The longest message the decoder accepts, in bytes: EE_MOVES, 0x1F00 data bytes plus the
/// header. A partial message never keeps more than this buffered.
pub const MAX_MESSAGE_LEN: usize = EE_DATA_MAX + 3;

/// The most bytes the decoder holds that were pushed but not yet polled. If a caller
/// pushes more without polling, the oldest bytes are dropped and reported as skipped.
pub const MAX_BUFFERED: usize = 1 << 20;

/// The largest EE_MOVES data length (the board's 0x1F00-byte log).
const EE_DATA_MAX: usize = 0x1f00;
/// The largest TRADEMARK text accepted (the header promises 256; we allow twice that).
pub(super) const MAX_TRADEMARK: usize = 512;
/// The largest LONG_SERIALNR text accepted (boards send 10 or 11 characters).
pub(super) const MAX_LONG_SERIAL: usize = 32;

/// Why bytes were dropped; turned into text only when reported.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Reason {
    NoStart,
    UnknownId { id: u8 },
    LengthBit7 { id: u8 },
    BadLength { id: u8, total: usize },
    CutShort { id: u8, have: usize, total: usize },
    FieldOutOfRange { field: u8 },
    ImpossibleTime(ImpossibleTime),
    Parser(ErrorKind),
}

impl Reason {
    fn describe(&self, bytes: usize) -> String {
        match self {
            Reason::NoStart => format!("{bytes} byte(s) outside any message (no start byte)"),
            Reason::UnknownId { id } => format!("unknown message id 0x{id:02x}"),
            Reason::LengthBit7 { id } => format!(
                "{} (0x{id:02x}) header cut by a byte with bit 7 set",
                message_name(*id)
            ),
            Reason::BadLength { id, total } => format!(
                "{} (0x{id:02x}) with length {total}, expected {}",
                message_name(*id),
                expected_length(*id)
            ),
            Reason::CutShort { id, have, total } => format!(
                "{} (0x{id:02x}) cut short after {have} of {total} bytes by a new message start",
                message_name(*id)
            ),
            Reason::FieldOutOfRange { field } => {
                format!("FIELD_UPDATE for field {field} (fields are 0-63)")
            }
            Reason::ImpossibleTime(ImpossibleTime([d0, d1, d2, d3, d4, d5])) => format!(
                "BWTIME with an impossible time (right {d0:02x} {d1:02x} {d2:02x}, left {d3:02x} {d4:02x} {d5:02x})"
            ),
            Reason::Parser(kind) => format!("parser error {kind:?}"),
        }
    }
}

/// A refusal: drop `skip` bytes from the front, for `reason`.
#[derive(Debug)]
struct Reject {
    skip: usize,
    reason: Reason,
}

impl<'a> ParseError<&'a [u8]> for Reject {
    fn from_error_kind(_: &'a [u8], kind: ErrorKind) -> Self {
        // The streaming primitives used here only ask for more input; should one ever
        // fail, dropping the start byte is always safe.
        Reject {
            skip: 1,
            reason: Reason::Parser(kind),
        }
    }
    fn append(_: &'a [u8], _: ErrorKind, other: Self) -> Self {
        other
    }
}

fn reject<T>(skip: usize, reason: Reason) -> Result<T, Err<Reject>> {
    Err(Err::Error(Reject { skip, reason }))
}

/// The data lengths a known id may have; `None` for an unknown id.
fn length_ok(id: u8, data: usize) -> Option<bool> {
    Some(match id {
        msg::NONE => data == 0,
        msg::BOARD_DUMP => data == 64,
        msg::BWTIME => data == 7,
        msg::FIELD_UPDATE | msg::BUSADRES | msg::VERSION => data == 2,
        msg::EE_MOVES => data <= EE_DATA_MAX,
        msg::SERIALNR => data == 5 || data == 9,
        msg::TRADEMARK => data <= MAX_TRADEMARK,
        msg::BATTERY_STATUS => data == 9,
        msg::LONG_SERIALNR => (1..=MAX_LONG_SERIAL).contains(&data),
        _ => return None,
    })
}

/// The total lengths a known id may have, for people.
fn expected_length(id: u8) -> &'static str {
    match id {
        msg::NONE => "3",
        msg::BOARD_DUMP => "67",
        msg::BWTIME => "10",
        msg::FIELD_UPDATE | msg::BUSADRES | msg::VERSION => "5",
        msg::EE_MOVES => "at most 7939",
        msg::SERIALNR => "8 or 12",
        msg::TRADEMARK => "at most 515",
        msg::BATTERY_STATUS => "12",
        msg::LONG_SERIALNR => "4 to 35",
        _ => "none (unknown id)",
    }
}

/// How many bytes from the front to drop with a refused id: the id and the 7-bit bytes
/// after it, up to the next byte with bit 7 set or the end of what has arrived.
fn id_and_tail(input: &[u8]) -> usize {
    1 + input
        .get(1..)
        .and_then(|tail| tail.iter().position(|b| b & 0x80 != 0))
        .unwrap_or(input.len().saturating_sub(1))
}

/// A header length byte: 7 bits, or the header is cut at `position`.
fn length_byte(id: u8, position: usize) -> impl Fn(&[u8]) -> IResult<&[u8], u8, Reject> {
    move |input| {
        let (rest, value) = byte(input)?;
        if value & 0x80 != 0 {
            return reject(position, Reason::LengthBit7 { id });
        }
        Ok((rest, value))
    }
}

/// The header: a known id and a total length valid for it. Returns the id and the data
/// length.
fn header(input: &[u8]) -> IResult<&[u8], (u8, usize), Reject> {
    let (rest, id) = byte(input)?;
    let known = length_ok(id, 0).is_some();
    if !known {
        return reject(id_and_tail(input), Reason::UnknownId { id });
    }
    let (rest, (high, low)) = (length_byte(id, 1), length_byte(id, 2)).parse(rest)?;
    let total = (usize::from(high) << 7) | usize::from(low);
    match total.checked_sub(3) {
        Some(data) if length_ok(id, data) == Some(true) => Ok((rest, (id, data))),
        _ => reject(id_and_tail(input), Reason::BadLength { id, total }),
    }
}

/// The `len` data bytes of message `id`, all with bit 7 clear. A bit-7 byte among them ends
/// the message there, even before the rest has arrived: everything before it is refused.
/// `clean` is how many data bytes are already known to be clear (so a long message arriving
/// in pieces is scanned once).
fn data<'a>(
    input: &'a [u8],
    id: u8,
    len: usize,
    clean: &mut usize,
) -> IResult<&'a [u8], &'a [u8], Reject> {
    let have = &input[..len.min(input.len())];
    let from = (*clean).min(have.len());
    if let Some(at) = have[from..].iter().position(|b| b & 0x80 != 0) {
        let dropped = 3 + from + at;
        return reject(
            dropped,
            Reason::CutShort {
                id,
                have: dropped,
                total: len + 3,
            },
        );
    }
    *clean = have.len();
    take(len).parse(input)
}

/// One whole message off the front of `input`, which starts with a byte with bit 7 set.
fn frame<'a>(input: &'a [u8], clean: &mut usize) -> IResult<&'a [u8], BoardMessage, Reject> {
    let (rest, (id, len)) = header(input)?;
    let (rest, data) = data(rest, id, len, clean)?;
    match body(id, data) {
        Ok(message) => Ok((rest, message)),
        Err(reason) => reject(len + 3, reason),
    }
}

/// Text of 7-bit bytes (always ASCII, so always valid UTF-8).
fn ascii(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// The message a complete frame holds; `Err` says why its content is impossible.
fn body(id: u8, data: &[u8]) -> Result<BoardMessage, Reason> {
    // The header check already fixed the data length; this only keeps indexing total.
    let wrong = || Reason::BadLength {
        id,
        total: data.len() + 3,
    };
    Ok(match id {
        msg::FIELD_UPDATE => {
            let [field, code] = *data else {
                return Err(wrong());
            };
            if field > 63 {
                return Err(Reason::FieldOutOfRange { field });
            }
            BoardMessage::FieldUpdate {
                field,
                code: code & 0x0f,
            }
        }
        msg::BWTIME => {
            let bytes: &[u8; 7] = data.try_into().map_err(|_| wrong())?;
            match decode_bwtime(bytes).map_err(Reason::ImpossibleTime)? {
                Bwtime::Times(times) => BoardMessage::ClockTimes(times),
                Bwtime::Ack(ack) => BoardMessage::ClockAck(ack),
            }
        }
        msg::BOARD_DUMP => {
            let codes: [u8; 64] = data.try_into().map_err(|_| wrong())?;
            BoardMessage::BoardDump(Box::new(codes))
        }
        msg::VERSION => {
            let [major, minor] = *data else {
                return Err(wrong());
            };
            BoardMessage::Version(FirmwareVersion { major, minor })
        }
        msg::BUSADRES => {
            let [high, low] = *data else {
                return Err(wrong());
            };
            BoardMessage::BusAddress(BusAddress::from_bytes(high, low))
        }
        msg::SERIALNR => BoardMessage::SerialNr(ascii(data)),
        msg::LONG_SERIALNR => BoardMessage::LongSerialNr(ascii(data)),
        msg::TRADEMARK => BoardMessage::Trademark(ascii(data)),
        msg::BATTERY_STATUS => {
            let bytes: &[u8; 9] = data.try_into().map_err(|_| wrong())?;
            BoardMessage::BatteryStatus(BatteryStatus::from_bytes(bytes))
        }
        msg::EE_MOVES => BoardMessage::EeMoves(parse_records(data)),
        msg::NONE => BoardMessage::DgtNone,
        _ => return Err(Reason::UnknownId { id }),
    })
}

/// A streaming decoder of board→host bytes.
///
/// Push bytes as they are read, then call [`poll`](Decoder::poll) until it returns `None`.
/// Messages come out in the order they were sent; every dropped byte is reported once as
/// [`Decoded::Skipped`]. How the input is split into pushes never changes the messages.
///
/// Memory: the decoder holds the bytes pushed and not yet polled (at most
/// [`MAX_BUFFERED`]) and never waits on more than one partial message of at most
/// [`MAX_MESSAGE_LEN`] bytes.
#[derive(Debug, Default)]
pub struct Decoder {
    buf: StreamBuffer,
    /// Data bytes of the partial message at the front already known to have bit 7 clear.
    clean: usize,
}

impl Decoder {
    /// A decoder with nothing buffered.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends bytes as read from the port.
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        if self.buf.push(bytes, MAX_BUFFERED) {
            self.clean = 0;
        }
    }

    /// The next complete message or skip report; `None` when more bytes are needed.
    pub fn poll(&mut self) -> Option<Decoded> {
        let overflow = self.buf.take_overflow();
        if overflow > 0 {
            return Some(Decoded::Skipped {
                bytes: overflow,
                reason: format!(
                    "{overflow} byte(s) dropped: more than {MAX_BUFFERED} bytes were pushed without polling"
                ),
            });
        }
        let input = self.buf.pending();
        let first = *input.first()?;
        let (used, result) = if first & 0x80 == 0 {
            let found: IResult<&[u8], &[u8]> = take_till(|b: u8| b & 0x80 != 0).parse(input);
            let len = found.map_or(input.len(), |(_, garbage)| garbage.len());
            (len, Err(Reason::NoStart))
        } else {
            match frame(input, &mut self.clean) {
                Ok((rest, message)) => (input.len() - rest.len(), Ok(message)),
                Err(Err::Incomplete(_)) => return None,
                Err(Err::Error(r) | Err::Failure(r)) => {
                    // Never drop nothing (no progress) and never more than is there.
                    (r.skip.clamp(1, input.len()), Err(r.reason))
                }
            }
        };
        self.buf.consume(used);
        self.clean = 0;
        Some(match result {
            Ok(message) => Decoded::Message(message),
            Err(reason) => Decoded::Skipped {
                bytes: used,
                reason: reason.describe(used),
            },
        })
    }

    /// How many bytes are buffered and not yet decoded or dropped.
    pub fn buffered(&self) -> usize {
        self.buf.pending().len()
    }

    /// Forgets everything buffered (after a reconnect, say), without reporting it.
    pub fn clear(&mut self) {
        *self = Self::default();
    }
}
