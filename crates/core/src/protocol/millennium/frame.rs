//! Framing shared by both directions: the nom parsers for the pieces every frame is made of
//! (type letter, hex fields, square characters, checksum) and the buffer that turns a byte
//! stream into frames and skip reports.
//!
//! A frame is found by its type letter and read to the fixed length that letter implies; it
//! is never found by hunting for something that looks like a checksum. The parsers are
//! streaming: on a short input they answer `Incomplete`, and they fail as soon as a byte
//! cannot belong to the frame, so a truncated frame is dropped without waiting for bytes
//! that belong to the next one. The buffer is generic over a [`Grammar`]: which letters
//! start a frame and how to parse one. It knows nothing about what frames mean.

use nom::error::{ErrorKind, ParseError};
use nom::{Err, IResult, Needed, Parser};

use super::status::is_square_char;
use super::wire::{checksum, hex_value};

/// Why a frame could not be read. Positions are kept as the length of the input left from the
/// offending byte on, which is what a nom parser sees; [`Fault::describe`] turns them into
/// offsets within the frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fault {
    /// A byte that cannot stand at this place of the frame.
    Syntax {
        /// Input length from the offending byte on.
        remaining: usize,
    },
    /// The frame was complete but its checksum did not match its characters.
    Checksum {
        /// The XOR of the characters received.
        computed: u8,
        /// The value of the checksum digits received.
        received: u8,
    },
}

impl ParseError<&[u8]> for Fault {
    fn from_error_kind(input: &[u8], _kind: ErrorKind) -> Self {
        Fault::Syntax {
            remaining: input.len(),
        }
    }

    fn append(_input: &[u8], _kind: ErrorKind, other: Self) -> Self {
        other
    }
}

impl Fault {
    /// A sentence for people saying what was wrong with the frame that starts `frame`.
    pub(crate) fn describe(self, frame: &[u8]) -> String {
        let letter = frame.first().map_or('?', |&c| char::from(c));
        match self {
            Fault::Checksum { computed, received } => format!(
                "bad checksum in '{letter}' frame: characters give {computed:02X}, frame says {received:02X}"
            ),
            Fault::Syntax { remaining } => {
                let offset = frame.len().saturating_sub(remaining);
                match frame.get(offset) {
                    Some(&byte) if letter == 's' && (1..=64).contains(&offset) => format!(
                        "'s' frame: character {byte:#04x} for square index {} is not a piece or '.'",
                        offset - 1
                    ),
                    Some(&byte) => format!(
                        "character {byte:#04x} at offset {offset} does not fit a '{letter}' frame"
                    ),
                    None => format!("'{letter}' frame is malformed at offset {offset}"),
                }
            }
        }
    }
}

/// The result type of every frame parser: nom's, over 7-bit bytes, with [`Fault`] errors.
pub(crate) type PResult<'a, O> = IResult<&'a [u8], O, Fault>;

/// One hex digit (either case) as its value.
pub(crate) fn hex_digit(input: &[u8]) -> PResult<'_, u8> {
    nom::combinator::map_opt(nom::number::streaming::u8::<&[u8], Fault>, hex_value).parse(input)
}

/// Two hex digits, high nibble first, as one byte.
pub(crate) fn hex_byte(input: &[u8]) -> PResult<'_, u8> {
    (hex_digit, hex_digit)
        .map(|(high, low)| (high << 4) | low)
        .parse(input)
}

/// The type letter `letter`.
pub(crate) fn letter<'a>(letter: u8) -> impl Parser<&'a [u8], Output = u8, Error = Fault> {
    nom::combinator::verify(nom::number::streaming::u8::<&[u8], Fault>, move |&c| {
        c == letter
    })
}

/// Which 7-bit characters may stand for a square, as a table for the hot loop.
const SQUARE_CHARS: [bool; 128] = {
    let mut table = [false; 128];
    let mut c = 0;
    while c < 128 {
        table[c] = is_square_char(c as u8);
        c += 1;
    }
    table
};

/// The 64 square characters of a status payload. Fails at the first character that is not a
/// square, even before all 64 have arrived.
pub(crate) fn square_chars(input: &[u8]) -> PResult<'_, &[u8; 64]> {
    let bad = input
        .iter()
        .take(64)
        .position(|&c| !SQUARE_CHARS.get(usize::from(c)).copied().unwrap_or(false));
    if let Some(bad) = bad {
        return Err(Err::Error(Fault::Syntax {
            remaining: input.len() - bad,
        }));
    }
    match input.split_first_chunk::<64>() {
        Some((chars, rest)) => Ok((rest, chars)),
        None => Err(Err::Incomplete(Needed::new(64 - input.len()))),
    }
}

/// Runs `body`, then reads the two checksum digits and checks them against the XOR of every
/// character `body` consumed.
pub(crate) fn checked<'a, P>(
    mut body: P,
) -> impl Parser<&'a [u8], Output = P::Output, Error = Fault>
where
    P: Parser<&'a [u8], Error = Fault>,
{
    move |input: &'a [u8]| {
        let (rest, output) = body.parse(input)?;
        let consumed = input.get(..input.len() - rest.len()).unwrap_or_default();
        let (rest, received) = hex_byte(rest)?;
        let computed = checksum(consumed);
        if computed == received {
            Ok((rest, output))
        } else {
            Err(Err::Error(Fault::Checksum { computed, received }))
        }
    }
}

/// The frames of one direction of the line.
pub(crate) trait Grammar {
    /// What a frame decodes to.
    type Frame;
    /// What the frames are called, for skip reasons ("reply", "command").
    const WHAT: &'static str;
    /// Whether a 7-bit character is the type letter of a frame.
    fn is_letter(c: u8) -> bool;
    /// Parses one frame from the start of `input`, whose first byte is a type letter.
    fn parse(input: &[u8]) -> PResult<'_, Self::Frame>;
}

/// What the buffer hands back: a frame or a skip report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step<T> {
    /// A frame whose checksum was right.
    Frame(T),
    /// Bytes dropped and why.
    Skipped {
        /// How many.
        bytes: usize,
        /// Why, for people.
        reason: String,
    },
}

/// The default most bytes a decoder holds between polls (1 MiB, about ten minutes of a board
/// reporting every scan). Bytes beyond it are dropped, oldest first, and reported as skipped.
pub const DEFAULT_BUFFER_LIMIT: usize = 1 << 20;

/// The smallest buffer limit a decoder accepts: room for two of the longest frames.
pub const MIN_BUFFER_LIMIT: usize = 512;

/// A byte buffer of 7-bit characters waiting to be framed.
#[derive(Debug, Clone)]
pub(crate) struct FrameBuffer {
    /// Received characters with bit 7 cleared; `buf[start..]` is not yet consumed.
    buf: Vec<u8>,
    /// Where the unconsumed characters start.
    start: usize,
    /// The most characters kept.
    limit: usize,
    /// Characters dropped for lack of room and not yet reported.
    overflow: usize,
}

impl Default for FrameBuffer {
    fn default() -> Self {
        Self::with_limit(DEFAULT_BUFFER_LIMIT)
    }
}

impl FrameBuffer {
    /// An empty buffer that keeps at most `limit` characters (at least [`MIN_BUFFER_LIMIT`]).
    pub(crate) fn with_limit(limit: usize) -> Self {
        Self {
            buf: Vec::new(),
            start: 0,
            limit: limit.max(MIN_BUFFER_LIMIT),
            overflow: 0,
        }
    }

    /// How many received characters are not yet consumed.
    pub(crate) fn buffered(&self) -> usize {
        self.buf.len() - self.start
    }

    /// Forgets every buffered character.
    pub(crate) fn clear(&mut self) {
        self.buf.clear();
        self.start = 0;
        self.overflow = 0;
    }

    /// Appends bytes as read from the line, clearing bit 7 of each.
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        if self.start > 0 {
            self.buf.copy_within(self.start.., 0);
            self.buf.truncate(self.buf.len() - self.start);
            self.start = 0;
        }
        let mut bytes = bytes;
        let total = self.buf.len() + bytes.len();
        if total > self.limit {
            let excess = total - self.limit;
            self.overflow += excess;
            if excess >= self.buf.len() {
                let from_new = excess - self.buf.len();
                self.buf.clear();
                bytes = bytes.get(from_new..).unwrap_or_default();
            } else {
                self.buf.drain(..excess);
            }
        }
        self.buf.extend(bytes.iter().map(|&b| b & 0x7F));
    }

    /// The next frame or skip report, or `None` when more bytes are needed.
    pub(crate) fn next<G: Grammar>(&mut self) -> Option<Step<G::Frame>> {
        if self.overflow > 0 {
            let bytes = std::mem::take(&mut self.overflow);
            return Some(Step::Skipped {
                bytes,
                reason: format!(
                    "{bytes} oldest bytes dropped: more than {} bytes were pushed without polling",
                    self.limit
                ),
            });
        }
        let input = self.buf.get(self.start..).unwrap_or_default();
        let first = *input.first()?;
        let (mut dropped, reason) = if G::is_letter(first) {
            match G::parse(input) {
                Ok((rest, frame)) => {
                    self.start += input.len() - rest.len();
                    return Some(Step::Frame(frame));
                }
                Err(Err::Incomplete(_)) => return None,
                Err(Err::Error(fault) | Err::Failure(fault)) => {
                    // Drop only the type letter: a valid frame may start inside this one.
                    (1 + garbage_run::<G>(&input[1..]), fault.describe(input))
                }
            }
        } else {
            let run = garbage_run::<G>(input);
            (run, format!("bytes that start no {}", G::WHAT))
        };
        // Keep dropping while what follows is also a frame that fails, so one broken frame is
        // one report; stop at a frame that parses or may still parse.
        while let Some(rest) = input.get(dropped..).filter(|rest| !rest.is_empty()) {
            match G::parse(rest) {
                Err(Err::Error(_) | Err::Failure(_)) => {
                    dropped += 1 + garbage_run::<G>(&rest[1..]);
                }
                _ => break,
            }
        }
        self.start += dropped;
        if self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
        }
        Some(Step::Skipped {
            bytes: dropped,
            reason,
        })
    }
}

/// How many characters at the start of `input` are not a type letter.
fn garbage_run<G: Grammar>(input: &[u8]) -> usize {
    input
        .iter()
        .position(|&c| G::is_letter(c))
        .unwrap_or(input.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_byte_reads_either_case_and_waits_for_its_second_digit() {
        assert_eq!(hex_byte(b"7a!"), Ok((&b"!"[..], 0x7A)));
        assert_eq!(hex_byte(b"7"), Err(Err::Incomplete(Needed::new(1))));
        assert_eq!(
            hex_byte(b"7G"),
            Err(Err::Error(Fault::Syntax { remaining: 1 }))
        );
    }

    #[test]
    fn square_chars_fail_early_on_a_character_that_is_no_square() {
        assert_eq!(square_chars(b"RNB"), Err(Err::Incomplete(Needed::new(61))));
        assert_eq!(
            square_chars(b"RNBs"),
            Err(Err::Error(Fault::Syntax { remaining: 1 }))
        );
    }

    #[test]
    fn checked_compares_the_xor_of_the_consumed_characters() {
        let mut parser = checked(letter(b'x'));
        assert_eq!(parser.parse(b"x78"), Ok((&b""[..], b'x')));
        assert_eq!(
            parser.parse(b"x79"),
            Err(Err::Error(Fault::Checksum {
                computed: 0x78,
                received: 0x79
            }))
        );
        assert_eq!(parser.parse(b"x7"), Err(Err::Incomplete(Needed::new(1))));
    }

    #[test]
    fn fault_description_names_the_square_index_of_a_bad_status_character() {
        let mut frame = vec![b's'];
        frame.extend_from_slice(&[b'.'; 10]);
        frame.push(b'x');
        let fault = Fault::Syntax { remaining: 1 };
        assert!(fault.describe(&frame).contains("square index 10"));
    }
}
