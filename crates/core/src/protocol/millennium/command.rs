//! Host→board: the [`Command`] type, its grammar and the [`CommandDecoder`] a board emulator
//! (and the round-trip tests) read a host with.
//!
//! Commands are framed like replies: by type letter and the fixed length it implies (`V`,
//! `S`, `X`, `T` 3 characters; `R` 5; `W` 7; `L` 167, checksum included). A real board
//! ignores a command whose checksum is wrong; the decoder reports it as skipped.

use nom::Parser;
use nom::multi::fill;
use nom::sequence::preceded;

use super::frame::{FrameBuffer, Grammar, PResult, Step, checked, hex_byte, letter};
use super::leds::{LED_COUNT, LedFrame};

/// A host→board command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `V`: ask for the firmware version (answered by `v`).
    Version,
    /// `S`: ask for the status of every square (answered by `s`).
    Status,
    /// `L`: set the pattern of every LED (answered by `l`).
    Leds(LedFrame),
    /// `X`: put every LED out (answered by `x`).
    LedsOff,
    /// `T`: reset the board. There is no reply; the board restarts for about 3 s and clears its
    /// status and LEDs.
    Reset,
    /// `W`: write a value to an E2ROM register (answered by a `w` echo). See
    /// [`registers`](super::registers).
    Write {
        /// The register address.
        address: u8,
        /// The value to write.
        data: u8,
    },
    /// `R`: read an E2ROM register (answered by `r`).
    Read {
        /// The register address.
        address: u8,
    },
}

impl Command {
    /// The type letter that starts the command's frame.
    pub fn letter(&self) -> u8 {
        match self {
            Command::Version => b'V',
            Command::Status => b'S',
            Command::Leds(_) => b'L',
            Command::LedsOff => b'X',
            Command::Reset => b'T',
            Command::Write { .. } => b'W',
            Command::Read { .. } => b'R',
        }
    }

    /// The type letter of the reply the board answers with, or `None` for [`Command::Reset`],
    /// which gets none.
    pub fn reply_letter(&self) -> Option<u8> {
        match self {
            Command::Reset => None,
            other => Some(other.letter().to_ascii_lowercase()),
        }
    }

    /// The length of the command's frame in characters, checksum included.
    pub fn frame_len(&self) -> usize {
        match self {
            Command::Version | Command::Status | Command::LedsOff | Command::Reset => 3,
            Command::Read { .. } => 5,
            Command::Write { .. } => 7,
            Command::Leds(_) => 3 + 2 * (1 + LED_COUNT),
        }
    }
}

/// What the command decoder hands back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodedCommand {
    /// A complete command whose checksum was right.
    Command(Command),
    /// Bytes dropped (garbage, bad checksum), and why.
    Skipped {
        /// How many bytes were dropped.
        bytes: usize,
        /// Why, for people.
        reason: String,
    },
}

/// The command grammar.
pub(crate) struct Commands;

impl Grammar for Commands {
    type Frame = Command;
    const WHAT: &'static str = "command";

    fn is_letter(c: u8) -> bool {
        matches!(c, b'V' | b'S' | b'L' | b'X' | b'T' | b'W' | b'R')
    }

    fn parse(input: &[u8]) -> PResult<'_, Command> {
        match input.first() {
            Some(b'S') => bare(b'S', Command::Status, input),
            Some(b'V') => bare(b'V', Command::Version, input),
            Some(b'X') => bare(b'X', Command::LedsOff, input),
            Some(b'T') => bare(b'T', Command::Reset, input),
            Some(b'L') => leds(input),
            Some(b'W') => checked(preceded(letter(b'W'), (hex_byte, hex_byte)))
                .map(|(address, data)| Command::Write { address, data })
                .parse(input),
            // Any other first byte fails in `letter`, as `R` is the only one left.
            _ => checked(preceded(letter(b'R'), hex_byte))
                .map(|address| Command::Read { address })
                .parse(input),
        }
    }
}

/// A command that is only its letter and checksum.
fn bare(c: u8, command: Command, input: &[u8]) -> PResult<'_, Command> {
    checked(letter(c)).map(|_| command.clone()).parse(input)
}

/// `L` + slot time + 81 LED patterns (2 hex digits each) + checksum.
fn leds(input: &[u8]) -> PResult<'_, Command> {
    let mut patterns = [0u8; LED_COUNT];
    let (rest, slot_time) = checked(preceded(
        letter(b'L'),
        (hex_byte, fill(hex_byte, &mut patterns)),
    ))
    .map(|(slot_time, ())| slot_time)
    .parse(input)?;
    Ok((
        rest,
        Command::Leds(LedFrame::from_parts(slot_time, patterns)),
    ))
}

/// A streaming decoder of host→board bytes (bit 7 is masked on the way in), for the board
/// emulator. It works like [`Decoder`](super::Decoder), with commands instead of replies.
///
/// ```
/// use eboardd_core::protocol::millennium::{Command, CommandDecoder, DecodedCommand};
/// let mut decoder = CommandDecoder::new();
/// decoder.push_bytes(&[0x57, 0xB0, 0x32, 0xB0, 0xB3, 0xB5, 0xB6]);
/// assert_eq!(
///     decoder.poll(),
///     Some(DecodedCommand::Command(Command::Write { address: 2, data: 3 }))
/// );
/// ```
#[derive(Debug, Clone, Default)]
pub struct CommandDecoder {
    buffer: FrameBuffer,
}

impl CommandDecoder {
    /// A decoder with nothing buffered.
    pub fn new() -> Self {
        Self::default()
    }

    /// A decoder that holds at most `limit` unread bytes (at least
    /// [`MIN_BUFFER_LIMIT`](super::MIN_BUFFER_LIMIT)).
    pub fn with_buffer_limit(limit: usize) -> Self {
        Self {
            buffer: FrameBuffer::with_limit(limit),
        }
    }

    /// Appends bytes as read from the line.
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        self.buffer.push(bytes);
    }

    /// The next complete command or skip report; `None` when more bytes are needed.
    pub fn poll(&mut self) -> Option<DecodedCommand> {
        self.buffer.next::<Commands>().map(|step| match step {
            Step::Frame(command) => DecodedCommand::Command(command),
            Step::Skipped { bytes, reason } => DecodedCommand::Skipped { bytes, reason },
        })
    }

    /// How many received bytes wait for the rest of their frame.
    pub fn buffered(&self) -> usize {
        self.buffer.buffered()
    }

    /// Forgets every buffered byte.
    pub fn clear(&mut self) {
        self.buffer.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(bytes: &[u8]) -> Vec<DecodedCommand> {
        let mut decoder = CommandDecoder::new();
        decoder.push_bytes(bytes);
        std::iter::from_fn(|| decoder.poll()).collect()
    }

    #[test]
    fn bare_commands_decode_from_their_wire_bytes() {
        let stream = [
            0xD6, 0xB5, 0xB6, 0xD3, 0xB5, 0xB3, 0x58, 0xB5, 0x38, 0x54, 0xB5, 0x34,
        ];
        assert_eq!(
            decode_all(&stream),
            [
                DecodedCommand::Command(Command::Version),
                DecodedCommand::Command(Command::Status),
                DecodedCommand::Command(Command::LedsOff),
                DecodedCommand::Command(Command::Reset),
            ]
        );
    }

    #[test]
    fn read_command_from_its_wire_bytes() {
        assert_eq!(
            decode_all(&[0x52, 0xB0, 0x32, 0xB5, 0xB0]),
            [DecodedCommand::Command(Command::Read { address: 2 })]
        );
    }

    #[test]
    fn led_command_reads_slot_time_and_all_81_patterns() {
        let mut text = String::from("L20");
        for k in 0..LED_COUNT {
            text.push_str(&format!("{:02X}", k));
        }
        let sum = crate::protocol::millennium::checksum(text.as_bytes());
        text.push_str(&format!("{sum:02X}"));
        assert_eq!(text.len(), 167);
        let out = decode_all(text.as_bytes());
        let [DecodedCommand::Command(Command::Leds(frame))] = &out[..] else {
            panic!("{out:?}");
        };
        assert_eq!(frame.slot_time(), 0x20);
        assert_eq!(frame.pattern(80), Some(80));
        assert_eq!(frame.pattern(0), Some(0));
    }

    #[test]
    fn reply_letters_are_garbage_to_the_command_decoder() {
        let out = decode_all(b"v010374X58");
        assert_eq!(
            out,
            [
                DecodedCommand::Skipped {
                    bytes: 7,
                    reason: "bytes that start no command".into()
                },
                DecodedCommand::Command(Command::LedsOff)
            ]
        );
    }

    #[test]
    fn command_with_a_bad_checksum_is_skipped() {
        let out = decode_all(b"W020357S53");
        assert!(
            matches!(&out[..], [DecodedCommand::Skipped { bytes: 7, reason }, DecodedCommand::Command(Command::Status)] if reason.contains("checksum")),
            "{out:?}"
        );
    }

    #[test]
    fn only_reset_gets_no_reply() {
        assert_eq!(Command::Reset.reply_letter(), None);
        assert_eq!(Command::Read { address: 0 }.reply_letter(), Some(b'r'));
        assert_eq!(Command::Leds(LedFrame::new(0)).frame_len(), 167);
    }
}
