//! Board→host: the reply grammar and the streaming [`Decoder`] the daemon reads a board with.
//!
//! Replies are framed by their type letter and the fixed length it implies (`v` 7, `s` 67,
//! `l` 3, `x` 3, `w` 7, `r` 7 characters, checksum included). Bytes that start no reply are
//! skipped up to the next reply letter; a frame that fails (bad checksum, a character that
//! cannot stand where it stands) is reported and only its type letter is consumed before the
//! search goes on, so a valid frame that began inside the broken one is still found.

use nom::Parser;
use nom::sequence::preceded;

use super::frame::{FrameBuffer, Grammar, PResult, Step, checked, hex_byte, letter, square_chars};
use super::{Decoded, Reply, Version};

/// The reply grammar.
pub(crate) struct Replies;

impl Grammar for Replies {
    type Frame = Reply;
    const WHAT: &'static str = "reply";

    fn is_letter(c: u8) -> bool {
        matches!(c, b'v' | b's' | b'l' | b'x' | b'w' | b'r')
    }

    fn parse(input: &[u8]) -> PResult<'_, Reply> {
        match input.first() {
            Some(b's') => status(input),
            Some(b'v') => version(input),
            Some(b'l') => checked(letter(b'l')).map(|_| Reply::Leds).parse(input),
            Some(b'x') => checked(letter(b'x')).map(|_| Reply::LedsOff).parse(input),
            Some(b'w') => checked(preceded(letter(b'w'), (hex_byte, hex_byte)))
                .map(|(address, data)| Reply::Write { address, data })
                .parse(input),
            // Any other first byte fails in `letter`, as `r` is the only one left.
            _ => checked(preceded(letter(b'r'), (hex_byte, hex_byte)))
                .map(|(address, data)| Reply::Read { address, data })
                .parse(input),
        }
    }
}

/// `s` + 64 square characters + checksum.
fn status(input: &[u8]) -> PResult<'_, Reply> {
    checked(preceded(letter(b's'), square_chars))
        .map(|chars| Reply::Status(Box::new(*chars)))
        .parse(input)
}

/// `v` + version high + version low (2 hex digits each) + checksum.
fn version(input: &[u8]) -> PResult<'_, Reply> {
    checked(preceded(letter(b'v'), (hex_byte, hex_byte)))
        .map(|(high, low)| Reply::Version(Version { high, low }))
        .parse(input)
}

/// A streaming decoder of board→host bytes (bit 7 is masked on the way in).
///
/// Push bytes as they are read with [`push_bytes`](Self::push_bytes), then call
/// [`poll`](Self::poll) until it returns `None`. The decoder never consumes a byte past the
/// end of the frame it returns, and holds at most [`DEFAULT_BUFFER_LIMIT`] bytes (or the limit
/// given to [`with_buffer_limit`](Self::with_buffer_limit)): bytes pushed beyond that without
/// polling are dropped, oldest first, and reported as skipped.
///
/// ```
/// use eboardd_core::protocol::millennium::{Decoded, Decoder, Reply, Version};
/// let mut decoder = Decoder::new();
/// decoder.push_bytes(&[0x76, 0xB0, 0x31, 0xB0, 0xB3, 0x37, 0x34]);
/// assert_eq!(
///     decoder.poll(),
///     Some(Decoded::Reply(Reply::Version(Version { high: 1, low: 3 })))
/// );
/// assert_eq!(decoder.poll(), None);
/// ```
///
/// [`DEFAULT_BUFFER_LIMIT`]: super::DEFAULT_BUFFER_LIMIT
#[derive(Debug, Clone, Default)]
pub struct Decoder {
    buffer: FrameBuffer,
}

impl Decoder {
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

    /// Appends bytes as read from the port.
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        self.buffer.push(bytes);
    }

    /// The next complete reply or skip report; `None` when more bytes are needed.
    pub fn poll(&mut self) -> Option<Decoded> {
        self.buffer.next::<Replies>().map(|step| match step {
            Step::Frame(reply) => Decoded::Reply(reply),
            Step::Skipped { bytes, reason } => Decoded::Skipped { bytes, reason },
        })
    }

    /// How many received bytes wait for the rest of their frame.
    pub fn buffered(&self) -> usize {
        self.buffer.buffered()
    }

    /// Forgets every buffered byte (after a reconnect or a `T` reset).
    pub fn clear(&mut self) {
        self.buffer.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::millennium::{START_CHARS_CABLE_RIGHT, with_odd_parity};

    fn decode_all(decoder: &mut Decoder) -> Vec<Decoded> {
        std::iter::from_fn(|| decoder.poll()).collect()
    }

    fn status_frame(chars: &[u8; 64]) -> Vec<u8> {
        let mut frame = vec![b's'];
        frame.extend_from_slice(chars);
        let sum = crate::protocol::millennium::checksum(&frame);
        frame.extend_from_slice(format!("{sum:02X}").as_bytes());
        frame
    }

    #[test]
    fn version_reply_from_the_wire_log() {
        let mut decoder = Decoder::new();
        decoder.push_bytes(&[0x76, 0xB0, 0x31, 0xB0, 0xB3, 0x37, 0x34]);
        assert_eq!(
            decode_all(&mut decoder),
            [Decoded::Reply(Reply::Version(Version { high: 1, low: 3 }))]
        );
    }

    #[test]
    fn short_replies_and_register_replies() {
        let mut decoder = Decoder::new();
        decoder.push_bytes(b"l6Cx78w020376r011476");
        assert_eq!(
            decode_all(&mut decoder),
            [
                Decoded::Reply(Reply::Leds),
                Decoded::Reply(Reply::LedsOff),
                Decoded::Reply(Reply::Write {
                    address: 2,
                    data: 3
                }),
                Decoded::Reply(Reply::Read {
                    address: 1,
                    data: 0x14
                }),
            ]
        );
    }

    #[test]
    fn status_frame_with_parity_bits() {
        let frame: Vec<u8> = status_frame(START_CHARS_CABLE_RIGHT)
            .into_iter()
            .map(with_odd_parity)
            .collect();
        let mut decoder = Decoder::new();
        decoder.push_bytes(&frame);
        assert_eq!(
            decode_all(&mut decoder),
            [Decoded::Reply(Reply::Status(Box::new(
                *START_CHARS_CABLE_RIGHT
            )))]
        );
    }

    #[test]
    fn incomplete_frame_waits_and_consumes_nothing() {
        let frame = status_frame(START_CHARS_CABLE_RIGHT);
        let mut decoder = Decoder::new();
        decoder.push_bytes(&frame[..66]);
        assert_eq!(decoder.poll(), None);
        assert_eq!(decoder.buffered(), 66);
        decoder.push_bytes(&frame[66..]);
        assert!(matches!(
            decoder.poll(),
            Some(Decoded::Reply(Reply::Status(_)))
        ));
        assert_eq!(decoder.buffered(), 0);
    }

    #[test]
    fn garbage_is_skipped_up_to_the_next_reply_letter() {
        let mut decoder = Decoder::new();
        decoder.push_bytes(b"\x00\x13ABCx78");
        assert_eq!(
            decode_all(&mut decoder),
            [
                Decoded::Skipped {
                    bytes: 5,
                    reason: "bytes that start no reply".into()
                },
                Decoded::Reply(Reply::LedsOff)
            ]
        );
    }

    #[test]
    fn bad_checksum_drops_that_frame_only() {
        let mut decoder = Decoder::new();
        decoder.push_bytes(b"v010375v010374");
        let out = decode_all(&mut decoder);
        assert!(
            matches!(&out[..], [Decoded::Skipped { bytes: 7, reason }, Decoded::Reply(Reply::Version(_))]
                if reason.contains("checksum")),
            "{out:?}"
        );
    }

    #[test]
    fn valid_frame_starting_inside_a_truncated_one_is_found() {
        // A status frame cut short, then a whole one: the first 's' fails at the second 's'.
        let whole = status_frame(START_CHARS_CABLE_RIGHT);
        let mut stream = whole[..30].to_vec();
        stream.extend_from_slice(&whole);
        let mut decoder = Decoder::new();
        decoder.push_bytes(&stream);
        let out = decode_all(&mut decoder);
        assert!(
            matches!(
                &out[..],
                [
                    Decoded::Skipped { bytes: 30, .. },
                    Decoded::Reply(Reply::Status(_))
                ]
            ),
            "{out:?}"
        );
    }

    #[test]
    fn valid_frame_hidden_behind_a_bogus_letter_is_found() {
        // 'l' wants two checksum digits; "v0" are not, so only the 'l' is dropped.
        let mut decoder = Decoder::new();
        decoder.push_bytes(b"lv010374");
        let out = decode_all(&mut decoder);
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(matches!(&out[0], Decoded::Skipped { bytes: 1, .. }));
        assert_eq!(
            out[1],
            Decoded::Reply(Reply::Version(Version { high: 1, low: 3 }))
        );
    }

    #[test]
    fn status_frame_with_an_invalid_character_is_skipped() {
        let mut chars = *START_CHARS_CABLE_RIGHT;
        chars[40] = b'Z';
        let mut decoder = Decoder::new();
        decoder.push_bytes(&status_frame(&chars));
        decoder.push_bytes(&status_frame(START_CHARS_CABLE_RIGHT));
        let out = decode_all(&mut decoder);
        assert!(
            matches!(&out[..], [Decoded::Skipped { bytes: 67, reason }, Decoded::Reply(Reply::Status(_))]
                if reason.contains("square index 40")),
            "{out:?}"
        );
    }

    #[test]
    fn pushing_past_the_limit_without_polling_drops_the_oldest_bytes() {
        let mut decoder = Decoder::with_buffer_limit(0);
        let frame = status_frame(START_CHARS_CABLE_RIGHT);
        for _ in 0..10 {
            decoder.push_bytes(&frame);
        }
        let out = decode_all(&mut decoder);
        let skipped: usize = out
            .iter()
            .map(|d| match d {
                Decoded::Skipped { bytes, .. } => *bytes,
                Decoded::Reply(_) => 0,
            })
            .sum();
        let replies = out
            .iter()
            .filter(|d| matches!(d, Decoded::Reply(_)))
            .count();
        assert!(
            decoder.buffered() + skipped + replies * 67 == 670,
            "{out:?}"
        );
        assert!(replies >= 6);
    }

    #[test]
    fn clear_forgets_a_partial_frame() {
        let mut decoder = Decoder::new();
        decoder.push_bytes(b"v01");
        decoder.clear();
        decoder.push_bytes(b"x78");
        assert_eq!(decode_all(&mut decoder), [Decoded::Reply(Reply::LedsOff)]);
    }
}
