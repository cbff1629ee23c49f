//! The payloads of the board's identification and status messages (VERSION,
//! BATTERY_STATUS), with the helpers that read their fields. Pure data: no IO, no time.

use std::fmt;

/// The firmware version a VERSION message reports: main and sub version, 7 bits each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FirmwareVersion {
    /// The main version (1 in "1.02").
    pub major: u8,
    /// The sub version (2 in "1.02").
    pub minor: u8,
}

impl fmt::Display for FirmwareVersion {
    /// Formats as the board's manuals do: "3.10", "1.02".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:02}", self.major, self.minor)
    }
}

/// A BATTERY_STATUS report (nine data bytes). Counts are as sent; 0x7f in the time-left
/// fields means "not available".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct BatteryStatus {
    /// Charge remaining, in percent.
    pub percent: u8,
    /// Hours left (running or charging); 0x7f: not available.
    pub hours_left: u8,
    /// Minutes left; 0x7f: not available.
    pub minutes_left: u8,
    /// Hours switched on.
    pub on_hours: u8,
    /// Minutes switched on.
    pub on_minutes: u8,
    /// Days in standby.
    pub standby_days: u8,
    /// Hours in standby.
    pub standby_hours: u8,
    /// Minutes in standby.
    pub standby_minutes: u8,
    /// Status bits: bit 0 charging, bit 1 discharging.
    pub flags: u8,
}

impl BatteryStatus {
    /// The "not available" value of the time-left fields.
    pub const NOT_AVAILABLE: u8 = 0x7f;

    /// The battery is charging (flags bit 0).
    pub fn charging(&self) -> bool {
        self.flags & 0x01 != 0
    }

    /// The battery is discharging (flags bit 1).
    pub fn discharging(&self) -> bool {
        self.flags & 0x02 != 0
    }

    /// Hours and minutes left, when the board knows them.
    pub fn time_left(&self) -> Option<(u8, u8)> {
        (self.hours_left != Self::NOT_AVAILABLE && self.minutes_left != Self::NOT_AVAILABLE)
            .then_some((self.hours_left, self.minutes_left))
    }

    /// Reads the nine data bytes.
    pub(super) fn from_bytes(d: &[u8; 9]) -> BatteryStatus {
        BatteryStatus {
            percent: d[0],
            hours_left: d[1],
            minutes_left: d[2],
            on_hours: d[3],
            on_minutes: d[4],
            standby_days: d[5],
            standby_hours: d[6],
            standby_minutes: d[7],
            flags: d[8],
        }
    }

    /// The nine data bytes (bit 7 is checked by the frame writer).
    pub(super) fn to_bytes(self) -> [u8; 9] {
        [
            self.percent,
            self.hours_left,
            self.minutes_left,
            self.on_hours,
            self.on_minutes,
            self.standby_days,
            self.standby_hours,
            self.standby_minutes,
            self.flags,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_prints_with_two_digit_minor() {
        let v = FirmwareVersion { major: 1, minor: 2 };
        assert_eq!(v.to_string(), "1.02");
    }

    #[test]
    fn battery_time_left_is_absent_when_not_available() {
        let mut b = BatteryStatus {
            hours_left: 3,
            minutes_left: 20,
            flags: 0x01,
            ..BatteryStatus::default()
        };
        assert_eq!(b.time_left(), Some((3, 20)));
        assert!(b.charging() && !b.discharging());
        b.hours_left = BatteryStatus::NOT_AVAILABLE;
        assert_eq!(b.time_left(), None);
    }
}
