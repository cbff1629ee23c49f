//! The board's E2ROM registers (written with `W`, read with `R`) and the values eboardd
//! writes at every connect.
//!
//! The registers are non-volatile, so whatever another program left in them survives a power
//! cycle; the host therefore rewrites every register it depends on each time it connects,
//! with [`startup_writes`]. Why these values is explained in `protocols/millennium.md`. This
//! module only names registers and values; sending them and waiting for the `w` echoes
//! belongs to the device layer.

use super::Command;

/// Register 0x00, serial set-up: bit 0 set turns the block checksum off (for terminal
/// testing); 0 keeps it on.
pub const SERIAL_SETUP: u8 = 0x00;

/// Register 0x01, scan time in units of 2.048 ms. Default 20; values below 15 are taken as 20.
pub const SCAN_TIME: u8 = 0x01;

/// Register 0x02, automatic report mode (bits 0–2, see [`ReportMode`]).
pub const REPORT_MODE: u8 = 0x02;

/// Register 0x03, automatic report interval in units of 4.096 ms (used only by
/// [`ReportMode::AtInterval`]).
pub const REPORT_INTERVAL: u8 = 0x03;

/// Register 0x04, LED brightness: 0 is dim, anything above 14 is full.
pub const LED_BRIGHTNESS: u8 = 0x04;

/// The eONE's settings register (eONE only; its bits come from one host library and are
/// not confirmed elsewhere): bit 0 board reversed, bit 1 LEDs show errors, bit 2
/// auto-reverse on, bit 3 error LEDs on at start-up, bit 4 error LEDs cleared by an `L`
/// command, bit 5 chess rules on.
pub const EONE_SETTINGS: u8 = 0x06;

/// What eboardd writes to [`EONE_SETTINGS`]: not reversed, no auto-reverse, no error LEDs
/// and no chess rules of its own (eboardd turns the board and lights the LEDs), and any
/// error LED cleared by eboardd's `L` commands (bit 4).
pub const EONE_STARTUP_SETTINGS: u8 = 0x10;

/// Whether a `V` reply's version (four hex digits) is an eONE's: major version 2, as the
/// host library that documents [`EONE_SETTINGS`] tells them (another host counts every
/// version above 0x01FF as an eONE or a Supreme Tournament, told apart by `I00`).
pub fn version_is_eone(version: &str) -> bool {
    version.len() == 4 && u16::from_str_radix(version, 16).is_ok_and(|v| v >> 8 == 0x02)
}

/// When the board sends status frames by itself (register 0x02).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReportMode {
    /// After every scan (the factory default, about 24 frames/s at the default scan time).
    EveryScan,
    /// Never: the host asks with `S`.
    Off,
    /// At the interval in register 0x03.
    AtInterval,
    /// After any scan that differs from the one before.
    OnChange,
    /// On a change that has held for this many scans (2 to 5): the board's own debounce.
    OnChangeDebounced(u8),
}

impl ReportMode {
    /// The register value (0–7). A debounce outside 2–5 is clamped into it.
    pub fn value(self) -> u8 {
        match self {
            ReportMode::EveryScan => 0,
            ReportMode::Off => 1,
            ReportMode::AtInterval => 2,
            ReportMode::OnChange => 3,
            ReportMode::OnChangeDebounced(scans) => scans.clamp(2, 5) + 2,
        }
    }

    /// The mode a register value selects (only bits 0–2 count).
    pub fn from_value(value: u8) -> Self {
        match value & 0x07 {
            0 => ReportMode::EveryScan,
            1 => ReportMode::Off,
            2 => ReportMode::AtInterval,
            3 => ReportMode::OnChange,
            debounced => ReportMode::OnChangeDebounced(debounced - 2),
        }
    }
}

/// The scan time written at start-up: 20 units of 2.048 ms = 40.96 ms, about 24 scans a
/// second. It is the factory default and the value the official text calls safe for every
/// piece; shorter scans miss slow pieces and longer ones delay every report.
pub const STARTUP_SCAN_TIME: u8 = 20;

/// The report mode written at start-up: on every change, with no board-side debounce. The
/// host debounces (with time stamps), so the board should report each change at the scan
/// that saw it, and stay quiet while nothing moves.
pub const STARTUP_REPORT_MODE: ReportMode = ReportMode::OnChange;

/// The LED brightness written at start-up: full (anything above 14 is full).
pub const STARTUP_BRIGHTNESS: u8 = 15;

/// The register writes eboardd sends at every connect, in order: checksum on, scan time,
/// report mode, brightness. Each is answered by a `w` echo
/// ([`Reply::answers`](super::Reply::answers) matches them).
///
/// ```
/// use eboardd_core::protocol::millennium::registers::startup_writes;
/// let text: Vec<Vec<u8>> = startup_writes().iter().map(|c| c.encode_ascii()).collect();
/// assert_eq!(text[2], b"W020356");
/// ```
pub fn startup_writes() -> [Command; 4] {
    [
        Command::Write {
            address: SERIAL_SETUP,
            data: 0,
        },
        Command::Write {
            address: SCAN_TIME,
            data: STARTUP_SCAN_TIME,
        },
        Command::Write {
            address: REPORT_MODE,
            data: STARTUP_REPORT_MODE.value(),
        },
        Command::Write {
            address: LED_BRIGHTNESS,
            data: STARTUP_BRIGHTNESS,
        },
    ]
}

/// The scan time a register value gives, in microseconds (values below 15 act as 20).
pub fn scan_time_micros(value: u8) -> u32 {
    let units = if value < 15 { 20 } else { value };
    u32::from(units) * 2048
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_mode_values_round_trip() {
        for value in 0u8..8 {
            assert_eq!(ReportMode::from_value(value).value(), value);
        }
        assert_eq!(ReportMode::OnChangeDebounced(9).value(), 7);
        assert_eq!(ReportMode::from_value(0xF3), ReportMode::OnChange);
    }

    #[test]
    fn startup_writes_turn_checksum_on_and_report_changes_without_debounce() {
        let writes = startup_writes();
        assert_eq!(
            writes[0],
            Command::Write {
                address: 0,
                data: 0
            }
        );
        assert_eq!(
            writes[2],
            Command::Write {
                address: 2,
                data: 3
            }
        );
    }

    #[test]
    fn short_scan_times_act_as_the_default() {
        assert_eq!(scan_time_micros(20), 40_960);
        assert_eq!(scan_time_micros(3), 40_960);
        assert_eq!(scan_time_micros(15), 30_720);
        assert_eq!(scan_time_micros(255), 522_240);
    }
}
