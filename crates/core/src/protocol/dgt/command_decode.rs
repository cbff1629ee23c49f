//! Reading host→board bytes as a board does: for the board emulator and for tests that
//! check what the host sent.
//!
//! Single-byte commands are one byte; a clock frame (0x2b) is read by its size byte; an LED
//! frame (0x60) is six bytes; a bus command (0x81–0x8d) is four bytes with a checksum.
//! Bytes that start no command, and frames that are malformed, are reported as skipped;
//! forbidden commands (boot loader, EEPROM settings) are reported as such. Sans-IO, like
//! the board→host [`super::Decoder`].

use nom::bytes::streaming::take;
use nom::error::{ErrorKind, ParseError};
use nom::number::streaming::u8 as byte;
use nom::{Err, IResult, Parser};

use super::buffer::StreamBuffer;
use super::clock_cmd::{self, decode_payload};
use super::cmd;
use super::command::{
    BusAddress, BusCommand, BusRequest, Command, ForbiddenCommand, LED_SIZE, LedCommand,
    bus_checksum,
};
use super::decode::MAX_BUFFERED;

/// What the command decoder hands back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodedCommand {
    /// A complete, well-formed command.
    Command(Command),
    /// A byte the host must never send (firmware flashing, EEPROM settings).
    Forbidden(ForbiddenCommand),
    /// Bytes that make no command, and why.
    Skipped {
        /// How many bytes were dropped.
        bytes: usize,
        /// Why, for people.
        reason: String,
    },
}

/// A refusal: drop `skip` bytes from the front, for `reason`.
#[derive(Debug)]
struct Refusal {
    skip: usize,
    reason: String,
}

impl<'a> ParseError<&'a [u8]> for Refusal {
    fn from_error_kind(_: &'a [u8], kind: ErrorKind) -> Self {
        Refusal {
            skip: 1,
            reason: format!("parser error {kind:?}"),
        }
    }
    fn append(_: &'a [u8], _: ErrorKind, other: Self) -> Self {
        other
    }
}

type Res<'a, T> = IResult<&'a [u8], T, Refusal>;

fn refuse<T>(skip: usize, reason: String) -> Res<'static, T> {
    Err(Err::Error(Refusal { skip, reason }))
}

/// Whether a byte can start a command (or a forbidden one).
fn starts_command(b: u8) -> bool {
    b == cmd::CLOCK_MESSAGE
        || b == cmd::SET_LEDS
        || BusRequest::from_byte(b).is_some()
        || Command::from_single_byte(b).is_some()
        || ForbiddenCommand::from_byte(b).is_some()
}

/// A byte with bit 7 clear, or the frame is refused (dropping its first byte only).
fn seven_bit(what: &'static str) -> impl Fn(&[u8]) -> Res<'_, u8> {
    move |input| {
        let (rest, value) = byte(input)?;
        if value & 0x80 != 0 {
            return refuse(1, format!("{what} with a byte that has bit 7 set"));
        }
        Ok((rest, value))
    }
}

/// `2b size 03 sub payload… 00`.
fn clock_frame(input: &[u8]) -> Res<'_, Command> {
    let (rest, _) = byte(input)?;
    let (rest, size) = byte(rest)?;
    if !(3..=clock_cmd::MAX_SIZE).contains(&size) {
        return refuse(1, format!("clock frame with size {size} (3-15)"));
    }
    let (_, marker) = byte(rest)?;
    if marker != clock_cmd::START {
        return refuse(1, format!("clock frame with start marker 0x{marker:02x}"));
    }
    let (rest, body) = take(size).parse(rest)?;
    let frame_len = 2 + usize::from(size);
    let [_start, sub, payload @ .., end] = body else {
        return refuse(1, "clock frame too short".into());
    };
    if *end != clock_cmd::END {
        return refuse(1, format!("clock frame with end marker 0x{end:02x}"));
    }
    match decode_payload(*sub, payload) {
        Ok(command) => Ok((rest, Command::Clock(command))),
        Err(why) => refuse(frame_len, why.to_string()),
    }
}

/// `60 04 pattern start end 00`.
fn led_frame(input: &[u8]) -> Res<'_, Command> {
    let (rest, _) = byte(input)?;
    let (rest, size) = byte(rest)?;
    if size != LED_SIZE {
        return refuse(1, format!("LED frame with size {size} (expected 4)"));
    }
    let (rest, (pattern, start, end, terminator)) = (byte, byte, byte, byte).parse(rest)?;
    if terminator != 0x00 {
        return refuse(1, format!("LED frame with end marker 0x{terminator:02x}"));
    }
    match LedCommand::from_payload(pattern, start, end) {
        Ok(leds) => Ok((rest, Command::Leds(leds))),
        Err(why) => refuse(6, why.to_string()),
    }
}

/// `request high low checksum`.
fn bus_command(input: &[u8]) -> Res<'_, Command> {
    let (rest, request_byte) = byte(input)?;
    let Some(request) = BusRequest::from_byte(request_byte) else {
        return refuse(1, format!("0x{request_byte:02x} is no bus command"));
    };
    let what = "bus command";
    let (rest, (high, low, sum)) =
        (seven_bit(what), seven_bit(what), seven_bit(what)).parse(rest)?;
    let expected = bus_checksum(&[request_byte, high, low]);
    if sum != expected {
        return refuse(
            1,
            format!("bus command with checksum 0x{sum:02x}, expected 0x{expected:02x}"),
        );
    }
    let address = BusAddress::from_bytes(high, low);
    Ok((rest, Command::Bus(BusCommand { request, address })))
}

/// One command, forbidden command or refusal off the front of `input` (not empty).
fn next(input: &[u8]) -> Res<'_, DecodedCommand> {
    let (_, first) = byte(input)?;
    if let Some(command) = Command::from_single_byte(first) {
        return Ok((&input[1..], DecodedCommand::Command(command)));
    }
    if let Some(forbidden) = ForbiddenCommand::from_byte(first) {
        return Ok((&input[1..], DecodedCommand::Forbidden(forbidden)));
    }
    let command = match first {
        cmd::CLOCK_MESSAGE => clock_frame(input),
        cmd::SET_LEDS => led_frame(input),
        _ if BusRequest::from_byte(first).is_some() => bus_command(input),
        _ => {
            let run = input
                .iter()
                .position(|b| starts_command(*b))
                .unwrap_or(input.len())
                .max(1);
            return refuse(run, format!("{run} byte(s) that start no command"));
        }
    };
    command.map(|(rest, command)| (rest, DecodedCommand::Command(command)))
}

/// A streaming decoder of host→board bytes, as the board reads them.
///
/// Push bytes as they are written, then call [`poll`](CommandDecoder::poll) until it
/// returns `None`. Buffers at most [`MAX_BUFFERED`] unpolled bytes, like
/// [`super::Decoder`].
#[derive(Debug, Default)]
pub struct CommandDecoder {
    buf: StreamBuffer,
}

impl CommandDecoder {
    /// A decoder with nothing buffered.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends bytes as written by the host.
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        self.buf.push(bytes, MAX_BUFFERED);
    }

    /// The next command, forbidden command or skip report; `None` when more bytes are
    /// needed.
    pub fn poll(&mut self) -> Option<DecodedCommand> {
        let overflow = self.buf.take_overflow();
        if overflow > 0 {
            return Some(DecodedCommand::Skipped {
                bytes: overflow,
                reason: format!(
                    "{overflow} byte(s) dropped: more than {MAX_BUFFERED} bytes were pushed without polling"
                ),
            });
        }
        let input = self.buf.pending();
        if input.is_empty() {
            return None;
        }
        let (used, decoded) = match next(input) {
            Ok((rest, decoded)) => (input.len() - rest.len(), decoded),
            Err(Err::Incomplete(_)) => return None,
            Err(Err::Error(r) | Err::Failure(r)) => {
                let bytes = r.skip.clamp(1, input.len());
                (
                    bytes,
                    DecodedCommand::Skipped {
                        bytes,
                        reason: r.reason,
                    },
                )
            }
        };
        self.buf.consume(used);
        Some(decoded)
    }

    /// How many bytes are buffered and not yet decoded or dropped.
    pub fn buffered(&self) -> usize {
        self.buf.pending().len()
    }
}
