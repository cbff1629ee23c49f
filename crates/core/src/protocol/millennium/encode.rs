//! Encoders for both directions: [`Command`]s as the host sends them and [`Reply`]s as a
//! board sends them.
//!
//! Every frame is its type letter, its payload (hex fields as 2 upper-case digits, status as
//! square characters) and the checksum as 2 upper-case hex digits. [`Command::encode`] and
//! [`Reply::encode`] give the bytes for the line, with odd parity in bit 7 of every byte;
//! the `encode_ascii` variants give the same frame as plain 7-bit text, for logs, docs and
//! for emulating a link that strips the parity bit.

use super::wire::{hex_pair, with_odd_parity};
use super::{Command, Reply};

/// Writes one frame, keeping the running checksum.
struct FrameWriter<'a> {
    out: &'a mut Vec<u8>,
    sum: u8,
    parity: bool,
}

impl<'a> FrameWriter<'a> {
    fn new(out: &'a mut Vec<u8>, len: usize, parity: bool) -> Self {
        out.reserve(len);
        Self {
            out,
            sum: 0,
            parity,
        }
    }

    fn char(&mut self, c: u8) {
        let c = c & 0x7F;
        self.sum ^= c;
        self.out
            .push(if self.parity { with_odd_parity(c) } else { c });
    }

    fn chars(&mut self, chars: &[u8]) {
        for &c in chars {
            self.char(c);
        }
    }

    fn hex(&mut self, value: u8) {
        self.chars(&hex_pair(value));
    }

    /// Appends the checksum of everything written so far.
    fn finish(mut self) {
        let sum = self.sum;
        self.hex(sum);
    }
}

impl Command {
    /// The command's frame as sent on the line: odd parity in bit 7 of every byte.
    ///
    /// ```
    /// use eboardd_core::protocol::millennium::Command;
    /// assert_eq!(Command::Version.encode(), [0xD6, 0xB5, 0xB6]);
    /// assert_eq!(
    ///     Command::Write { address: 2, data: 3 }.encode(),
    ///     [0x57, 0xB0, 0x32, 0xB0, 0xB3, 0xB5, 0xB6]
    /// );
    /// ```
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode_into(&mut out);
        out
    }

    /// Appends the command's frame, with odd parity, to `out`.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        self.write(out, true);
    }

    /// The command's frame as 7-bit text, without parity (`W0203` → `W020356`).
    pub fn encode_ascii(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write(&mut out, false);
        out
    }

    fn write(&self, out: &mut Vec<u8>, parity: bool) {
        let mut w = FrameWriter::new(out, self.frame_len(), parity);
        w.char(self.letter());
        match self {
            Command::Version | Command::Status | Command::LedsOff | Command::Reset => {}
            Command::Leds(frame) => {
                w.hex(frame.slot_time());
                for &pattern in frame.patterns() {
                    w.hex(pattern);
                }
            }
            Command::Write { address, data } => {
                w.hex(*address);
                w.hex(*data);
            }
            Command::Read { address } => w.hex(*address),
        }
        w.finish();
    }
}

impl Reply {
    /// The reply's frame as a board sends it: odd parity in bit 7 of every byte.
    ///
    /// A status payload is sent as given (bit 7 of each character cleared); characters that
    /// stand for no square are not refused here, so tests can build bad frames, but the
    /// decoders refuse them.
    ///
    /// ```
    /// use eboardd_core::protocol::millennium::{Reply, Version};
    /// assert_eq!(
    ///     Reply::Version(Version { high: 1, low: 3 }).encode(),
    ///     [0x76, 0xB0, 0x31, 0xB0, 0xB3, 0x37, 0x34]
    /// );
    /// ```
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode_into(&mut out);
        out
    }

    /// Appends the reply's frame, with odd parity, to `out`.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        self.write(out, true);
    }

    /// The reply's frame as 7-bit text, without parity (`v0103` → `v010374`).
    pub fn encode_ascii(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write(&mut out, false);
        out
    }

    fn write(&self, out: &mut Vec<u8>, parity: bool) {
        let mut w = FrameWriter::new(out, self.frame_len(), parity);
        w.char(self.letter());
        match self {
            Reply::Version(version) => {
                w.hex(version.high);
                w.hex(version.low);
            }
            Reply::Status(chars) => w.chars(&chars[..]),
            Reply::Leds | Reply::LedsOff => {}
            Reply::Write { address, data } | Reply::Read { address, data } => {
                w.hex(*address);
                w.hex(*data);
            }
        }
        w.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::super::{LedFrame, START_CHARS_CABLE_LEFT, START_CHARS_CABLE_RIGHT, Version};
    use super::*;

    #[test]
    fn command_golden_vectors_from_the_fact_sheet() {
        assert_eq!(Command::Version.encode(), [0xD6, 0xB5, 0xB6]);
        assert_eq!(Command::Status.encode(), [0xD3, 0xB5, 0xB3]);
        assert_eq!(Command::LedsOff.encode(), [0x58, 0xB5, 0x38]);
        assert_eq!(Command::Reset.encode(), [0x54, 0xB5, 0x34]);
        assert_eq!(
            Command::Write {
                address: 2,
                data: 3
            }
            .encode(),
            [0x57, 0xB0, 0x32, 0xB0, 0xB3, 0xB5, 0xB6]
        );
        assert_eq!(
            Command::Read { address: 2 }.encode(),
            [0x52, 0xB0, 0x32, 0xB5, 0xB0]
        );
    }

    #[test]
    fn ascii_encoding_is_the_readable_frame() {
        assert_eq!(Command::Version.encode_ascii(), b"V56");
        assert_eq!(
            Command::Write {
                address: 2,
                data: 3
            }
            .encode_ascii(),
            b"W020356"
        );
        assert_eq!(Command::Read { address: 2 }.encode_ascii(), b"R0250");
        assert_eq!(
            Reply::Version(Version { high: 1, low: 3 }).encode_ascii(),
            b"v010374"
        );
        assert_eq!(Reply::Leds.encode_ascii(), b"l6C");
        assert_eq!(Reply::LedsOff.encode_ascii(), b"x78");
        assert_eq!(
            Reply::Read {
                address: 1,
                data: 0x14
            }
            .encode_ascii(),
            b"r011476"
        );
    }

    #[test]
    fn led_command_is_167_characters_with_upper_case_hex() {
        let mut frame = LedFrame::new(0x2a);
        frame.set_led(0, 0xab).expect("LED 0 exists");
        let text = Command::Leds(frame).encode_ascii();
        assert_eq!(text.len(), 167);
        assert!(text.starts_with(b"L2AAB00"));
        assert!(
            text[1..]
                .iter()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_lowercase())
        );
    }

    #[test]
    fn both_start_frames_end_in_checksum_73() {
        for chars in [START_CHARS_CABLE_RIGHT, START_CHARS_CABLE_LEFT] {
            let text = Reply::Status(Box::new(*chars)).encode_ascii();
            assert_eq!(text.len(), 67);
            assert_eq!(&text[65..], b"73");
        }
    }

    #[test]
    fn every_encoded_byte_has_odd_parity() {
        let frames = [
            Command::Leds(LedFrame::show_move(
                shakmaty::Square::E2,
                shakmaty::Square::E4,
                crate::protocol::millennium::CableSide::Right,
            ))
            .encode(),
            Reply::Status(Box::new(*START_CHARS_CABLE_RIGHT)).encode(),
        ];
        for bytes in frames {
            assert!(bytes.iter().all(|b| b.count_ones() % 2 == 1));
        }
    }

    #[test]
    fn encode_into_appends() {
        let mut out = vec![0xAA];
        Command::Status.encode_into(&mut out);
        Reply::LedsOff.encode_into(&mut out);
        assert_eq!(out, [0xAA, 0xD3, 0xB5, 0xB3, 0xF8, 0x37, 0x38]);
    }
}
