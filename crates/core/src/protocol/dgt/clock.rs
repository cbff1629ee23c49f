//! BWTIME (0x8d): the clock as the board reports it, either as times or as the
//! acknowledgement of a clock command, and the conversion between the seven data bytes and
//! those two readings.
//!
//! Left and right are physical (seen from the front of the clock); which player sits where is
//! for the layers above. Nothing here knows about time passing or about games.

use super::encode::{EncodeError, check_max};

/// A side of the clock as seen from its front.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClockSide {
    /// The left display and button.
    Left,
    /// The right display and button.
    Right,
}

/// One clock face as BWTIME reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClockFace {
    /// Hours 0–9.
    pub hours: u8,
    /// Minutes 0–59.
    pub minutes: u8,
    /// Seconds 0–59.
    pub seconds: u8,
    /// The flag fell and the clock is blocked at zero.
    pub flag_fallen: bool,
    /// The time-per-move (Bronstein/Fischer) indicator.
    pub time_per_move: bool,
    /// A flag is shown while the clock may still run (next period).
    pub flag_shown: bool,
}

impl ClockFace {
    /// The time shown, in milliseconds.
    pub fn millis(&self) -> u64 {
        (u64::from(self.hours) * 3600 + u64::from(self.minutes) * 60 + u64::from(self.seconds))
            * 1000
    }

    /// Reads a face from its three bytes: flags and binary hours, BCD minutes, BCD seconds.
    /// `None` when a digit is not decimal or a value is out of range (hours above 9,
    /// minutes or seconds above 59).
    #[inline]
    pub(super) fn from_bytes(hours: u8, minutes: u8, seconds: u8) -> Option<ClockFace> {
        let face = ClockFace {
            hours: hours & 0x0f,
            minutes: from_bcd(minutes)?,
            seconds: from_bcd(seconds)?,
            flag_fallen: hours & 0x10 != 0,
            time_per_move: hours & 0x20 != 0,
            flag_shown: hours & 0x40 != 0,
        };
        (face.hours <= 9 && face.minutes <= 59 && face.seconds <= 59).then_some(face)
    }

    /// The three bytes of this face.
    pub(super) fn to_bytes(self) -> Result<[u8; 3], EncodeError> {
        let hours = check_max("clock hours", self.hours, 9)?
            | if self.flag_fallen { 0x10 } else { 0 }
            | if self.time_per_move { 0x20 } else { 0 }
            | if self.flag_shown { 0x40 } else { 0 };
        let minutes = to_bcd(check_max("clock minutes", self.minutes, 59)?);
        let seconds = to_bcd(check_max("clock seconds", self.seconds, 59)?);
        Ok([hours, minutes, seconds])
    }
}

/// Status bits of BWTIME's last data byte.
pub mod status {
    /// The clock is running (clear: stopped with start/stop).
    pub const RUNNING: u8 = 0x01;
    /// The lever is high on the right (so the right clock runs); clear: high on the left.
    pub const LEVER_RIGHT_HIGH: u8 = 0x02;
    /// The battery-low indicator is shown.
    pub const BATTERY_LOW: u8 = 0x04;
    /// "Right player's turn" since the 2015 header; real boards disagree (see
    /// `protocols/dgt.md`): do not use it to find the running side.
    pub const TURN_RIGHT: u8 = 0x08;
    /// "Left player's turn" since the 2015 header; as unreliable as [`TURN_RIGHT`].
    pub const TURN_LEFT: u8 = 0x10;
    /// No clock is connected and the times are not valid.
    pub const NO_CLOCK: u8 = 0x20;
}

/// BWTIME as clock times: left and right are physical, as seen from the front.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClockTimes {
    /// The left display.
    pub left: ClockFace,
    /// The right display.
    pub right: ClockFace,
    /// The raw status byte (d6).
    pub status: u8,
}

impl ClockTimes {
    /// Status bit 0: the clock is running.
    pub fn running(&self) -> bool {
        self.status & status::RUNNING != 0
    }
    /// Status bit 1: the lever is high on the right (so the right clock runs).
    pub fn lever_right_high(&self) -> bool {
        self.status & status::LEVER_RIGHT_HIGH != 0
    }
    /// Status bit 5: no clock is connected and the times are not valid.
    pub fn no_clock(&self) -> bool {
        self.status & status::NO_CLOCK != 0
    }
    /// Status bit 2: the clock shows its battery-low indicator.
    pub fn battery_low(&self) -> bool {
        self.status & status::BATTERY_LOW != 0
    }

    /// The side whose time is running: `None` when the clock is stopped. Derived from the
    /// lever (bit 1) and the running bit (bit 0) only; the turn bits 3 and 4 are ignored
    /// because real boards set bit 3 while the left clock runs.
    pub fn running_side(&self) -> Option<ClockSide> {
        if !self.running() {
            None
        } else if self.lever_right_high() {
            Some(ClockSide::Right)
        } else {
            Some(ClockSide::Left)
        }
    }

    /// The face of one side.
    pub fn face(&self, side: ClockSide) -> &ClockFace {
        match side {
            ClockSide::Left => &self.left,
            ClockSide::Right => &self.right,
        }
    }

    /// Whether every byte was zero. Bluetooth firmware 2.10 sends this after clock
    /// commands; it says nothing about the clock and is best ignored by the layer above.
    pub fn is_null(&self) -> bool {
        *self == ClockTimes::default()
    }
}

/// The meaning of ack bytes 0 and 1.
pub mod ack {
    /// ack0: the command was carried out.
    pub const OK: u8 = 0x10;
    /// ack0: the command failed (e.g. set-and-run outside mode 23).
    pub const ERROR: u8 = 0x40;
    /// ack1 bit 7: the clock sent this on its own, not as an answer.
    pub const AUTO: u8 = 0x80;
    /// ack1: the clock became ready (auto-generated).
    pub const AUTO_READY: u8 = 0x81;
    /// ack1: a button was pressed (auto-generated); ack3 says which.
    pub const AUTO_BUTTON: u8 = 0x88;
    /// ack1: mode report, ack3 holding the mode (auto-generated; meaning unsure).
    pub const AUTO_MODE: u8 = 0x8a;
    /// ack1: "not in mode 23" (auto-generated; meaning unsure).
    pub const AUTO_NOT_MODE_23: u8 = 0x90;
}

/// A clock button, as a button-press ack reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClockButton {
    /// ack3 = 0x31.
    Back,
    /// ack3 = 0x32.
    Plus,
    /// ack3 = 0x33.
    Run,
    /// ack3 = 0x34.
    Minus,
    /// ack3 = 0x35.
    Ok,
}

/// BWTIME as a clock acknowledgement: the four rebuilt 8-bit ack bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClockAck {
    /// ack0..ack3.
    pub bytes: [u8; 4],
}

impl ClockAck {
    /// ack0 is 0x10: the command was carried out.
    pub fn is_ok(&self) -> bool {
        self.bytes[0] == ack::OK
    }
    /// ack1: the clock sub-command acknowledged, or an auto-generated code (bit 7 set).
    pub fn answers(&self) -> u8 {
        self.bytes[1]
    }
    /// Whether the clock sent this on its own (ack1 bit 7).
    pub fn is_auto(&self) -> bool {
        self.bytes[1] & ack::AUTO != 0
    }
    /// For the answer to a version request (ack1 = 0x09): the clock's main and sub version
    /// from ack2's nibbles. Main version 2 is a DGT3000; others are a DGT XL.
    pub fn clock_version(&self) -> Option<(u8, u8)> {
        (self.bytes[1] == 0x09).then(|| (self.bytes[2] >> 4, self.bytes[2] & 0x0f))
    }
    /// For a button report (ack1 = 0x88): the button in ack3, if it is one of the five.
    /// Combinations of buttons show up in ack2 and are not decoded here.
    pub fn button(&self) -> Option<ClockButton> {
        if self.bytes[1] != ack::AUTO_BUTTON {
            return None;
        }
        match self.bytes[3] {
            0x31 => Some(ClockButton::Back),
            0x32 => Some(ClockButton::Plus),
            0x33 => Some(ClockButton::Run),
            0x34 => Some(ClockButton::Minus),
            0x35 => Some(ClockButton::Ok),
            _ => None,
        }
    }
}

/// What a BWTIME message carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Bwtime {
    Times(ClockTimes),
    Ack(ClockAck),
}

/// The marker nibble that makes a BWTIME an ack (an impossible hour count).
const ACK_MARK: u8 = 0x0a;

/// The six time bytes of a BWTIME whose times are impossible (a digit that is not decimal,
/// hours above 9, minutes or seconds above 59), right face first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ImpossibleTime(pub(super) [u8; 6]);

/// Reads BWTIME's seven data bytes: an ack when either hours nibble is 0x0a, times
/// otherwise.
#[inline]
pub(super) fn decode_bwtime(d: &[u8; 7]) -> Result<Bwtime, ImpossibleTime> {
    let [d0, d1, d2, d3, d4, d5, d6] = *d;
    if d0 & 0x0f == ACK_MARK || d3 & 0x0f == ACK_MARK {
        let spare = |byte: u8, bit: u8| if byte & bit != 0 { 0x80 } else { 0 };
        return Ok(Bwtime::Ack(ClockAck {
            bytes: [
                d1 | spare(d3, 0x10),
                d2 | spare(d3, 0x20),
                d4 | spare(d0, 0x10),
                d5 | spare(d0, 0x20),
            ],
        }));
    }
    match (
        ClockFace::from_bytes(d3, d4, d5),
        ClockFace::from_bytes(d0, d1, d2),
    ) {
        (Some(left), Some(right)) => Ok(Bwtime::Times(ClockTimes {
            left,
            right,
            status: d6,
        })),
        _ => Err(ImpossibleTime([d0, d1, d2, d3, d4, d5])),
    }
}

/// BWTIME's seven data bytes for clock times: right face first, then left, then status.
pub(super) fn encode_times(times: &ClockTimes) -> Result<[u8; 7], EncodeError> {
    let [d0, d1, d2] = times.right.to_bytes()?;
    let [d3, d4, d5] = times.left.to_bytes()?;
    let d6 = check_max("clock status byte", times.status, 0x7f)?;
    Ok([d0, d1, d2, d3, d4, d5, d6])
}

/// BWTIME's seven data bytes for an ack: the marker nibble in d0 and d3, the ack bytes'
/// low seven bits in d1, d2, d4, d5 and their bit 7 in bits 4 and 5 of d3 and d0.
pub(super) fn encode_ack(ack: &ClockAck) -> [u8; 7] {
    let [a0, a1, a2, a3] = ack.bytes;
    let high = |byte: u8, bit: u8| if byte & 0x80 != 0 { bit } else { 0 };
    [
        ACK_MARK | high(a2, 0x10) | high(a3, 0x20),
        a0 & 0x7f,
        a1 & 0x7f,
        ACK_MARK | high(a0, 0x10) | high(a1, 0x20),
        a2 & 0x7f,
        a3 & 0x7f,
        0,
    ]
}

/// A BCD byte (tens in the high nibble) as a number; `None` if a digit is not decimal.
#[inline]
pub(super) fn from_bcd(byte: u8) -> Option<u8> {
    let (tens, units) = (byte >> 4, byte & 0x0f);
    (tens <= 9 && units <= 9).then_some(tens * 10 + units)
}

/// A number 0–99 as a BCD byte.
pub(super) fn to_bcd(value: u8) -> u8 {
    ((value / 10) << 4) | (value % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bcd_round_trips_every_value_below_100() {
        for value in 0..100 {
            assert_eq!(from_bcd(to_bcd(value)), Some(value));
        }
        assert_eq!(from_bcd(0x1a), None);
    }

    #[test]
    fn running_side_follows_the_lever_not_the_turn_bits() {
        let mut times = ClockTimes {
            status: 0x09,
            ..ClockTimes::default()
        };
        assert_eq!(times.running_side(), Some(ClockSide::Left));
        times.status = 0x13;
        assert_eq!(times.running_side(), Some(ClockSide::Right));
        times.status = 0x0a;
        assert_eq!(times.running_side(), None);
    }

    #[test]
    fn version_ack_gives_the_clock_version() {
        let ack = ClockAck {
            bytes: [0x10, 0x09, 0x20, 0x00],
        };
        assert!(ack.is_ok());
        assert_eq!(ack.clock_version(), Some((2, 0)));
        assert_eq!(ack.button(), None);
    }

    #[test]
    fn button_ack_names_the_button() {
        let ack = ClockAck {
            bytes: [0x10, 0x88, 0x00, 0x33],
        };
        assert!(ack.is_auto());
        assert_eq!(ack.button(), Some(ClockButton::Run));
    }
}
