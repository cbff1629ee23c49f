//! The boards' wire protocols: bytes ⇄ typed messages, in both directions.
//!
//! Each protocol is sans-IO: a decoder is handed bytes as they were read and hands back
//! complete messages; encoders turn commands into bytes. Both directions are implemented for
//! both ends of the wire (host and board), so the same code serves the daemon, the board
//! emulator, replay and fuzzing. The codecs know nothing of ports, time or games.
//!
//! [`driver`] adds what talking to each board type takes beyond its codec (start-up and
//! its [`pace`], keep-alive, identity, LEDs, the clock, register handshakes), sans-IO with
//! the time handed in; [`Protocol::driver`] is the table of board types.

use std::fmt;
use std::str::FromStr;

pub mod dgt;
pub mod driver;
pub mod link;
pub mod millennium;
pub mod pace;
pub mod reading;

/// A board protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// DGT e-boards (serial, USB, Bluetooth; 9600 8N1, binary).
    Dgt,
    /// Millennium ChessLink boards (38400 7O1, ASCII with odd parity and XOR checksum).
    Millennium,
}

impl Protocol {
    /// Every board type, in the order a port is probed.
    pub const ALL: [Protocol; 2] = [Protocol::Dgt, Protocol::Millennium];

    /// The name used in traces, configuration and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Dgt => "dgt",
            Protocol::Millennium => "millennium",
        }
    }

    /// The boards that speak it, for people (`--help`).
    pub fn boards(self) -> &'static str {
        match self {
            Protocol::Dgt => "DGT e-boards",
            Protocol::Millennium => "Millennium ChessLink boards",
        }
    }

    /// How long after a physical change the board may still be reporting the squares as they
    /// were before it: a DGT board scans its fields one after another, a full scan taking
    /// 200–250 ms; a Millennium board sends its whole board every scan (about 61 ms as
    /// eboardd sets it up), so two scans.
    pub fn sensor_lag(self) -> std::time::Duration {
        match self {
            Protocol::Dgt => std::time::Duration::from_millis(250),
            Protocol::Millennium => std::time::Duration::from_micros(
                2 * u64::from(millennium::registers::scan_time_micros(
                    millennium::registers::STARTUP_SCAN_TIME,
                )),
            ),
        }
    }

    /// The line speed the protocol is opened at.
    pub fn baud_rate(self) -> u32 {
        match self {
            Protocol::Dgt => 9600,
            Protocol::Millennium => 38400,
        }
    }

    /// The line settings as a trace header writes them (`9600 8N1`).
    pub fn line_settings(self) -> &'static str {
        match self {
            Protocol::Dgt => "9600 8N1",
            Protocol::Millennium => "38400 7O1",
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown protocol name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown protocol {0:?} (expected dgt or millennium)")]
pub struct UnknownProtocol(pub String);

impl FromStr for Protocol {
    type Err = UnknownProtocol;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "dgt" => Ok(Protocol::Dgt),
            "millennium" | "chesslink" => Ok(Protocol::Millennium),
            _ => Err(UnknownProtocol(s.to_string())),
        }
    }
}
