//! The clock command (0x2b) and its sub-commands: what the host can tell a DGT XL or
//! DGT3000 clock through the board, and the ASCII→7-segment table for the XL display.
//!
//! A clock frame is `2b size 03 sub payload… 00`, where size counts the bytes after itself.
//! This file writes and reads frames; the rule "one clock command at a time, wait for its
//! ack" belongs to the layer that owns time and is only described here.

use nom::bytes::complete::take;
use nom::combinator::all_consuming;
use nom::number::complete::u8 as byte;
use nom::{IResult, Parser};

use super::cmd;
use super::encode::{EncodeError, check_max};

/// The start marker of a clock frame (after the size byte).
pub(super) const START: u8 = 0x03;
/// The end marker of a clock frame.
pub(super) const END: u8 = 0x00;
/// The size byte of the longest clock frame (REV2 ASCII).
pub(super) const MAX_SIZE: u8 = 0x0f;

/// Icon bits of the clock's displays.
pub mod icon {
    /// Bits of [`XlDisplay::icons`](super::XlDisplay::icons) (DISPLAY sub-command).
    pub mod xl {
        /// The right dot.
        pub const RIGHT_DOT: u8 = 0x01;
        /// The right colon.
        pub const RIGHT_COLON: u8 = 0x02;
        /// The right leading "1".
        pub const RIGHT_ONE: u8 = 0x04;
        /// The left dot.
        pub const LEFT_DOT: u8 = 0x08;
        /// The left colon.
        pub const LEFT_COLON: u8 = 0x10;
        /// The left leading "1".
        pub const LEFT_ONE: u8 = 0x20;
    }
    /// Bits of [`ClockIcons::left`](super::ClockIcons::left) and `right` (timing modes).
    pub mod mode {
        /// TIME.
        pub const TIME: u8 = 0x01;
        /// FISCH.
        pub const FISCHER: u8 = 0x02;
        /// DELAY.
        pub const DELAY: u8 = 0x04;
        /// Hourglass.
        pub const HOURGLASS: u8 = 0x08;
        /// Up-counting.
        pub const UP_COUNT: u8 = 0x10;
        /// BYO (byo-yomi).
        pub const BYO_YOMI: u8 = 0x20;
        /// END.
        pub const END: u8 = 0x40;
    }
    /// Bits of [`ClockIcons::left_period`](super::ClockIcons::left_period) and
    /// `right_period`.
    pub mod period {
        /// Period "1"; periods "2"–"5" are the next bits (0x02, 0x04, 0x08, 0x10).
        pub const FIRST: u8 = 0x01;
        /// The flag.
        pub const FLAG: u8 = 0x20;
    }
    /// Bits of [`ClockIcons::special`](super::ClockIcons::special).
    pub mod special {
        /// Clear all icons.
        pub const CLEAR_ALL: u8 = 0x01;
        /// Sound.
        pub const SOUND: u8 = 0x02;
        /// Black-white.
        pub const BLACK_WHITE: u8 = 0x04;
        /// White-black.
        pub const WHITE_BLACK: u8 = 0x08;
        /// Battery.
        pub const BATTERY: u8 = 0x10;
        /// Sound again.
        pub const SOUND_AGAIN: u8 = 0x20;
        /// Icons stay after a time change.
        pub const STAY: u8 = 0x40;
    }
}

/// What the DGT XL's 7-segment display shows, laid out as "1A:BC 1D:EF".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct XlDisplay {
    /// Segment bits of the digits A, B, C, D, E, F in reading order (the frame sends them
    /// as C B A F E D). Bits: 0x01 top, 0x02 right-top, 0x04 right-bottom, 0x08 bottom,
    /// 0x10 left-bottom, 0x20 left-top, 0x40 middle.
    pub segments: [u8; 6],
    /// Dots, colons and leading ones ([`icon::xl`]).
    pub icons: u8,
    /// Beep when shown.
    pub beep: bool,
}

impl XlDisplay {
    /// A display of up to six characters of text through [`xl_segments`].
    pub fn text(text: &str, icons: u8, beep: bool) -> XlDisplay {
        XlDisplay {
            segments: xl_segments(text),
            icons,
            beep,
        }
    }
}

/// The clock's icons (ICONS sub-command).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClockIcons {
    /// Left timing-mode icons ([`icon::mode`]).
    pub left: u8,
    /// Right timing-mode icons ([`icon::mode`]).
    pub right: u8,
    /// Left period and flag icons ([`icon::period`]).
    pub left_period: u8,
    /// Right period and flag icons ([`icon::period`]).
    pub right_period: u8,
    /// Special icons and flags ([`icon::special`]).
    pub special: u8,
}

/// A clock time to set: hours 0–9, minutes and seconds 0–59, sent in plain binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Hms {
    /// Hours 0–9.
    pub hours: u8,
    /// Minutes 0–59.
    pub minutes: u8,
    /// Seconds 0–59.
    pub seconds: u8,
}

impl Hms {
    /// A time from whole seconds; `None` above 9:59:59, what the clock can show.
    pub fn from_seconds(total: u32) -> Option<Hms> {
        let hours = u8::try_from(total / 3600).ok().filter(|h| *h <= 9)?;
        Some(Hms {
            hours,
            // Both remainders are below 60.
            minutes: (total / 60 % 60) as u8,
            seconds: (total % 60) as u8,
        })
    }

    /// The time in whole seconds.
    pub fn seconds(self) -> u32 {
        u32::from(self.hours) * 3600 + u32::from(self.minutes) * 60 + u32::from(self.seconds)
    }

    fn to_bytes(self, side: &'static [&'static str; 3]) -> Result<[u8; 3], EncodeError> {
        Ok([
            check_max(side[0], self.hours, 9)?,
            check_max(side[1], self.minutes, 59)?,
            check_max(side[2], self.seconds, 59)?,
        ])
    }
}

/// Which side runs after a set-and-run (the control byte as picochess sends it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RunningSide {
    /// 0x01: the left clock runs.
    Left,
    /// 0x02: the right clock runs.
    Right,
    /// 0x04: both stand still (pause).
    Neither,
}

impl RunningSide {
    fn byte(self) -> u8 {
        match self {
            RunningSide::Left => 0x01,
            RunningSide::Right => 0x02,
            RunningSide::Neither => 0x04,
        }
    }

    fn from_byte(byte: u8) -> Option<RunningSide> {
        match byte {
            0x01 => Some(RunningSide::Left),
            0x02 => Some(RunningSide::Right),
            0x04 => Some(RunningSide::Neither),
            _ => None,
        }
    }
}

/// A command to the clock, sent inside a 0x2b frame. The clock answers with an ack
/// (BWTIME, [`super::ClockAck`]) whose ack1 is the sub-command, and only while the board
/// is in an update mode; send the next clock command only after that ack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockCommand {
    /// 0x01: show segments on a DGT XL.
    Display(XlDisplay),
    /// 0x02: set the icons.
    Icons(ClockIcons),
    /// 0x03: leave the message display and show the times again.
    End,
    /// 0x08: ask for the pressed button (the ack carries no button data).
    Button,
    /// 0x09: ask for the clock's version (answered in the ack).
    Version,
    /// 0x0a: set both times and start (or pause) the clock. The clock must be in mode 23,
    /// otherwise it answers with an error ack; some clocks need [`ClockCommand::End`]
    /// afterwards.
    SetAndRun {
        /// The left time.
        left: Hms,
        /// The right time.
        right: Hms,
        /// Which side runs.
        run: RunningSide,
    },
    /// 0x0b: beep for `units` × 64 ms.
    Beep {
        /// The length in 64 ms units (16 = 1024 ms).
        units: u8,
    },
    /// 0x0c: show eight ASCII characters (DGT3000 only).
    Ascii {
        /// The characters.
        text: [u8; 8],
        /// Beep 0–15: 0 none, otherwise 62.5 ms + value/16 s.
        beep: u8,
    },
    /// 0x0d: show eleven ASCII characters (Revelation II firmware 3.24H and later, "Pi
    /// mode"; not in DGT's header).
    RevelationAscii {
        /// The characters.
        text: [u8; 11],
        /// Beep 0–15, as for [`ClockCommand::Ascii`].
        beep: u8,
    },
}

/// Text for a fixed-width clock text field: the first `N` characters, padded with spaces;
/// characters outside ASCII become '?'.
fn fixed_text<const N: usize>(text: &str) -> [u8; N] {
    let mut out = [b' '; N];
    for (slot, c) in out.iter_mut().zip(text.chars()) {
        *slot = if c.is_ascii() { c as u8 } else { b'?' };
    }
    out
}

impl ClockCommand {
    /// A DGT3000 text command: the first eight characters, padded with spaces, non-ASCII
    /// shown as '?'.
    pub fn ascii(text: &str, beep: u8) -> ClockCommand {
        ClockCommand::Ascii {
            text: fixed_text(text),
            beep,
        }
    }

    /// A Revelation II text command: the first eleven characters, padded with spaces,
    /// non-ASCII shown as '?'.
    pub fn revelation_ascii(text: &str, beep: u8) -> ClockCommand {
        ClockCommand::RevelationAscii {
            text: fixed_text(text),
            beep,
        }
    }

    /// The sub-command byte, which the ack's ack1 echoes.
    pub fn sub_command(&self) -> u8 {
        match self {
            ClockCommand::Display(_) => 0x01,
            ClockCommand::Icons(_) => 0x02,
            ClockCommand::End => 0x03,
            ClockCommand::Button => 0x08,
            ClockCommand::Version => 0x09,
            ClockCommand::SetAndRun { .. } => 0x0a,
            ClockCommand::Beep { .. } => 0x0b,
            ClockCommand::Ascii { .. } => 0x0c,
            ClockCommand::RevelationAscii { .. } => 0x0d,
        }
    }

    /// Appends the whole 0x2b frame. On error nothing is appended.
    pub(super) fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let start = out.len();
        out.extend_from_slice(&[cmd::CLOCK_MESSAGE, 0, START, self.sub_command()]);
        if let Err(e) = self.encode_payload(out) {
            out.truncate(start);
            return Err(e);
        }
        out.push(END);
        // At most 15 bytes follow the size byte.
        out[start + 1] = (out.len() - start - 2) as u8;
        Ok(())
    }

    fn encode_payload(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        match *self {
            ClockCommand::Display(display) => {
                let [a, b, c, d, e, f] = display.segments;
                let beep = if display.beep { 0x03 } else { 0x01 };
                out.extend_from_slice(&[c, b, a, f, e, d, display.icons, beep]);
            }
            ClockCommand::Icons(icons) => out.extend_from_slice(&[
                icons.left,
                icons.right,
                icons.left_period,
                icons.right_period,
                icons.special,
                0,
                0,
                0,
            ]),
            ClockCommand::End | ClockCommand::Button | ClockCommand::Version => {}
            ClockCommand::SetAndRun { left, right, run } => {
                out.extend_from_slice(&left.to_bytes(&[
                    "left hours",
                    "left minutes",
                    "left seconds",
                ])?);
                out.extend_from_slice(&right.to_bytes(&[
                    "right hours",
                    "right minutes",
                    "right seconds",
                ])?);
                out.push(run.byte());
            }
            ClockCommand::Beep { units } => out.push(units),
            ClockCommand::Ascii { text, beep } => encode_text(out, &text, beep)?,
            ClockCommand::RevelationAscii { text, beep } => encode_text(out, &text, beep)?,
        }
        Ok(())
    }
}

fn encode_text(out: &mut Vec<u8>, text: &[u8], beep: u8) -> Result<(), EncodeError> {
    if !text.is_ascii() {
        return Err(EncodeError::NotAscii { what: "clock text" });
    }
    out.extend_from_slice(text);
    out.push(check_max("clock text beep", beep, 15)?);
    Ok(())
}

type Res<'a, T> = IResult<&'a [u8], T>;

fn array<const N: usize>(input: &[u8]) -> Res<'_, [u8; N]> {
    take(N)
        .map(|bytes: &[u8]| {
            let mut out = [0; N];
            out.copy_from_slice(bytes);
            out
        })
        .parse(input)
}

fn hms(input: &[u8]) -> Res<'_, Hms> {
    (byte, byte, byte)
        .map(|(hours, minutes, seconds)| Hms {
            hours,
            minutes,
            seconds,
        })
        .parse(input)
}

/// What is wrong with the payload of a clock frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(super) enum PayloadError {
    /// The payload's length does not fit the sub-command.
    #[error("clock sub-command 0x{sub:02x} with a payload of {len} bytes")]
    Length {
        /// The sub-command.
        sub: u8,
        /// The payload's length.
        len: usize,
    },
    /// A sub-command that takes no payload came with one.
    #[error("clock sub-command 0x{0:02x} with a payload")]
    Unexpected(u8),
    /// A display command's beep byte is none of 00, 01, 03.
    #[error("clock display with beep byte 0x{0:02x}")]
    DisplayBeep(u8),
    /// A set-and-run command with more than 9 hours, 59 minutes or 59 seconds.
    #[error("clock set-and-run with an impossible time")]
    ImpossibleTime,
    /// A set-and-run command's control byte names no running side.
    #[error("clock set-and-run with control byte 0x{0:02x}")]
    ControlByte(u8),
    /// Clock text with a byte outside ASCII.
    #[error("clock text with a byte outside ASCII")]
    NotAscii,
    /// Clock text with a beep length above 15.
    #[error("clock text with beep {0} (0-15)")]
    TextBeep(u8),
    /// A sub-command the protocol does not have.
    #[error("unknown clock sub-command 0x{0:02x}")]
    Unknown(u8),
}

/// Runs a payload parser that must take the whole payload.
fn whole<'a, T>(
    sub: u8,
    payload: &'a [u8],
    parser: impl Parser<&'a [u8], Output = T, Error = nom::error::Error<&'a [u8]>>,
) -> Result<T, PayloadError> {
    all_consuming(parser)
        .parse(payload)
        .map(|(_, value)| value)
        .map_err(|_| PayloadError::Length {
            sub,
            len: payload.len(),
        })
}

/// Reads the payload of a clock frame whose size, start and end markers were checked.
pub(super) fn decode_payload(sub: u8, payload: &[u8]) -> Result<ClockCommand, PayloadError> {
    match sub {
        0x01 => {
            let ([c, b, a, f, e, d], icons, beep) = whole(sub, payload, (array::<6>, byte, byte))?;
            let beep = match beep {
                0x03 => true,
                0x00 | 0x01 => false,
                other => return Err(PayloadError::DisplayBeep(other)),
            };
            Ok(ClockCommand::Display(XlDisplay {
                segments: [a, b, c, d, e, f],
                icons,
                beep,
            }))
        }
        0x02 => {
            let ([left, right, left_period, right_period, special], _padding) =
                whole(sub, payload, (array::<5>, array::<3>))?;
            Ok(ClockCommand::Icons(ClockIcons {
                left,
                right,
                left_period,
                right_period,
                special,
            }))
        }
        0x03 | 0x08 | 0x09 if !payload.is_empty() => Err(PayloadError::Unexpected(sub)),
        0x03 => Ok(ClockCommand::End),
        0x08 => Ok(ClockCommand::Button),
        0x09 => Ok(ClockCommand::Version),
        0x0a => {
            let (left, right, ctl) = whole(sub, payload, (hms, hms, byte))?;
            let valid = |t: Hms| t.hours <= 9 && t.minutes <= 59 && t.seconds <= 59;
            if !valid(left) || !valid(right) {
                return Err(PayloadError::ImpossibleTime);
            }
            let run = RunningSide::from_byte(ctl).ok_or(PayloadError::ControlByte(ctl))?;
            Ok(ClockCommand::SetAndRun { left, right, run })
        }
        0x0b => Ok(ClockCommand::Beep {
            units: whole(sub, payload, byte)?,
        }),
        0x0c => {
            let (text, beep) = whole(sub, payload, (array::<8>, byte))?;
            check_text(&text, beep)?;
            Ok(ClockCommand::Ascii { text, beep })
        }
        0x0d => {
            let (text, beep) = whole(sub, payload, (array::<11>, byte))?;
            check_text(&text, beep)?;
            Ok(ClockCommand::RevelationAscii { text, beep })
        }
        _ => Err(PayloadError::Unknown(sub)),
    }
}

fn check_text(text: &[u8], beep: u8) -> Result<(), PayloadError> {
    if !text.is_ascii() {
        Err(PayloadError::NotAscii)
    } else if beep > 15 {
        Err(PayloadError::TextBeep(beep))
    } else {
        Ok(())
    }
}

/// The DGT XL 7-segment bits of a character, if the display can show it. Letters are
/// shown in one case only, so 'A' and 'a' give the same bits.
///
/// ```
/// use eboardd_core::protocol::dgt::seven_segment;
/// assert_eq!(seven_segment('8'), Some(0x7f));
/// assert_eq!(seven_segment('E'), Some(0x7b));
/// assert_eq!(seven_segment('%'), None);
/// ```
pub fn seven_segment(c: char) -> Option<u8> {
    Some(match c.to_ascii_lowercase() {
        '0' => 0x3f,
        '1' => 0x06,
        '2' => 0x5b,
        '3' => 0x4f,
        '4' => 0x66,
        '5' => 0x6d,
        '6' => 0x7d,
        '7' => 0x07,
        '8' => 0x7f,
        '9' => 0x6f,
        'a' => 0x5f,
        'b' => 0x7c,
        'c' => 0x58,
        'd' => 0x5e,
        'e' => 0x7b,
        'f' => 0x71,
        'g' => 0x3d,
        'h' => 0x74,
        'i' => 0x10,
        'j' => 0x1e,
        'k' => 0x75,
        'l' => 0x38,
        'm' => 0x55,
        'n' => 0x54,
        'o' => 0x5c,
        'p' => 0x73,
        'q' => 0x67,
        'r' => 0x50,
        's' => 0x6d,
        't' => 0x78,
        'u' => 0x3e,
        'v' => 0x2a,
        'w' => 0x7e,
        'x' => 0x64,
        'y' => 0x6e,
        'z' => 0x5b,
        ' ' => 0x00,
        '-' => 0x40,
        '/' => 0x52,
        '|' => 0x36,
        '\\' => 0x64,
        '?' => 0x53,
        '@' => 0x65,
        '=' => 0x48,
        '_' => 0x08,
        _ => return None,
    })
}

/// The six XL digits (A–F, reading order) for a text: its first six characters, padded with
/// blanks; characters the display cannot show become blanks.
pub fn xl_segments(text: &str) -> [u8; 6] {
    let mut out = [0; 6];
    for (slot, c) in out.iter_mut().zip(text.chars()) {
        *slot = seven_segment(c).unwrap_or(0);
    }
    out
}
