//! Host→board commands and how they are written: the single-byte commands, the 4-byte
//! bus-mode commands with their checksum, the LED frame (0x60) and the clock frame (0x2b,
//! see [`ClockCommand`]).
//!
//! Bytes that flash the firmware or change the board's EEPROM settings are not commands
//! here; [`ForbiddenCommand`] names them only so a board emulator can recognise them.
//! Nothing here knows about ports or timing (the board takes about ten bytes of input at a
//! time; pacing is the sender's business).

use super::clock_cmd::ClockCommand;
use super::cmd;
use super::encode::{EncodeError, check_max};
use super::msg;

/// A board's 14-bit bus address. Address 0 speaks to every board on the bus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct BusAddress(u16);

impl BusAddress {
    /// Address 0: every board.
    pub const ALL: BusAddress = BusAddress(0);
    /// The largest address.
    pub const MAX: u16 = 0x3fff;

    /// An address, if it fits 14 bits.
    pub fn new(value: u16) -> Option<BusAddress> {
        (value <= Self::MAX).then_some(BusAddress(value))
    }

    /// The address as a number.
    pub fn get(self) -> u16 {
        self.0
    }

    /// From its two 7-bit halves, most significant first (bit 7 of each is ignored).
    pub(super) fn from_bytes(high: u8, low: u8) -> BusAddress {
        BusAddress((u16::from(high & 0x7f) << 7) | u16::from(low & 0x7f))
    }

    /// Its two 7-bit halves, most significant first.
    pub(super) fn to_bytes(self) -> [u8; 2] {
        // Both halves are masked to seven bits.
        [((self.0 >> 7) & 0x7f) as u8, (self.0 & 0x7f) as u8]
    }
}

/// The request of a bus-mode command (bus mode is for several boards on one line; a single
/// board leaves it as soon as it sees a single-board command).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BusRequest {
    /// 0x81: send the clock (reply 0x84).
    SendClock,
    /// 0x82: send the board (reply 0x83).
    SendBoard,
    /// 0x83: send the changes since the last request (reply 0x85).
    SendChanges,
    /// 0x84: send the previous changes again (after a checksum error).
    RepeatChanges,
    /// 0x85: write a start tag into the event log (reply 0x88).
    SetStartGame,
    /// 0x86: send everything since the start tag (reply 0x86).
    SendFromStart,
    /// 0x87: ping (reply 0x87).
    Ping,
    /// 0x88: leave bus mode.
    EndBusMode,
    /// 0x89: reset as at power-up (takes some seconds).
    Reset,
    /// 0x8a: answer this ping, then ignore the next address-0 ping.
    IgnoreNextBusPing,
    /// 0x8b: send the version (reply 0x89).
    SendVersion,
    /// 0x8c: send the draughts board (reply 0x8a).
    SendBoard50B,
    /// 0x8d: send changes, clock and board in sequence.
    SendAllData,
}

impl BusRequest {
    /// Every request, in byte order.
    pub const ALL: [BusRequest; 13] = [
        BusRequest::SendClock,
        BusRequest::SendBoard,
        BusRequest::SendChanges,
        BusRequest::RepeatChanges,
        BusRequest::SetStartGame,
        BusRequest::SendFromStart,
        BusRequest::Ping,
        BusRequest::EndBusMode,
        BusRequest::Reset,
        BusRequest::IgnoreNextBusPing,
        BusRequest::SendVersion,
        BusRequest::SendBoard50B,
        BusRequest::SendAllData,
    ];

    /// The command byte (0x81–0x8d).
    pub fn byte(self) -> u8 {
        match self {
            BusRequest::SendClock => 0x81,
            BusRequest::SendBoard => 0x82,
            BusRequest::SendChanges => 0x83,
            BusRequest::RepeatChanges => 0x84,
            BusRequest::SetStartGame => 0x85,
            BusRequest::SendFromStart => 0x86,
            BusRequest::Ping => 0x87,
            BusRequest::EndBusMode => 0x88,
            BusRequest::Reset => 0x89,
            BusRequest::IgnoreNextBusPing => 0x8a,
            BusRequest::SendVersion => 0x8b,
            BusRequest::SendBoard50B => 0x8c,
            BusRequest::SendAllData => 0x8d,
        }
    }

    /// The request a byte stands for, if any.
    pub fn from_byte(byte: u8) -> Option<BusRequest> {
        Self::ALL.into_iter().find(|r| r.byte() == byte)
    }
}

/// A bus-mode command: four bytes, the request, the address in two 7-bit halves and a
/// checksum (the sum of the three, bit 7 cleared).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BusCommand {
    /// What is asked.
    pub request: BusRequest,
    /// Which board (0: all).
    pub address: BusAddress,
}

impl BusCommand {
    /// The four bytes of the command.
    ///
    /// ```
    /// use eboardd_core::protocol::dgt::{BusAddress, BusCommand, BusRequest};
    /// let address = BusAddress::new(0x806).unwrap();
    /// let bytes = BusCommand { request: BusRequest::SendClock, address }.to_bytes();
    /// assert_eq!(bytes, [0x81, 0x10, 0x06, 0x17]);
    /// ```
    pub fn to_bytes(&self) -> [u8; 4] {
        let [high, low] = self.address.to_bytes();
        let request = self.request.byte();
        [request, high, low, bus_checksum(&[request, high, low])]
    }
}

/// The checksum of bus-mode bytes: their sum with bit 7 cleared.
pub(super) fn bus_checksum(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0u8, |sum, b| sum.wrapping_add(*b)) & 0x7f
}

/// The LED command (0x60, Revelation II layout): `60 04 pattern start end 00`, fields in
/// the board's numbering (0 = a8 … 63 = h1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LedCommand {
    /// Pattern 0 (off) or 1 (on) from the start field to the end field. Firmware up to
    /// 3.21 honours only "on".
    Fields {
        /// Light them (pattern 1) or put them out (pattern 0).
        on: bool,
        /// The start field 0–63.
        start: u8,
        /// The end field 0–63.
        end: u8,
    },
    /// Every LED off (pattern 0, start field 0x40; firmware above 3.21).
    ClearAll,
    /// Whether a field's LED dims by itself when a piece changes there (pattern 2, start
    /// 1; default on; firmware above 3.21).
    AutoDim(bool),
    /// Whether the board reverses board and LED numbering by itself when it sees a reversed
    /// start position (pattern 2, start 2; default on; firmware above 3.21).
    AutoReverse(bool),
}

impl LedCommand {
    /// The pattern, start and end bytes.
    fn payload(&self) -> Result<[u8; 3], EncodeError> {
        Ok(match *self {
            LedCommand::Fields { on, start, end } => [
                u8::from(on),
                check_max("LED start field", start, 63)?,
                check_max("LED end field", end, 63)?,
            ],
            LedCommand::ClearAll => [0x00, 0x40, 0x40],
            LedCommand::AutoDim(on) => [0x02, 0x01, u8::from(on)],
            LedCommand::AutoReverse(on) => [0x02, 0x02, u8::from(on)],
        })
    }

    /// Reads the pattern, start and end bytes.
    pub(super) fn from_payload(
        pattern: u8,
        start: u8,
        end: u8,
    ) -> Result<LedCommand, LedPayloadError> {
        match (pattern, start, end) {
            (0x00, 0x40, _) => Ok(LedCommand::ClearAll),
            (0x00 | 0x01, 0..=63, 0..=63) => Ok(LedCommand::Fields {
                on: pattern == 0x01,
                start,
                end,
            }),
            (0x02, 0x01, 0x00 | 0x01) => Ok(LedCommand::AutoDim(end == 0x01)),
            (0x02, 0x02, 0x00 | 0x01) => Ok(LedCommand::AutoReverse(end == 0x01)),
            _ => Err(LedPayloadError {
                pattern,
                start,
                end,
            }),
        }
    }
}

/// An LED frame whose pattern, start and end bytes mean no LED command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("LED command with pattern 0x{pattern:02x}, start 0x{start:02x}, end 0x{end:02x}")]
pub(super) struct LedPayloadError {
    pattern: u8,
    start: u8,
    end: u8,
}

/// The size byte of the LED frame.
pub(super) const LED_SIZE: u8 = 0x04;

/// Command bytes the host must never send by accident: they flash firmware or change the
/// board's EEPROM settings. They cannot be encoded; [`super::CommandDecoder`] recognises
/// them so a board emulator can flag a host that sends one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ForbiddenCommand {
    /// 0x4e: jump to the boot loader (firmware flashing).
    StartBootloader,
    /// 0x51: draughts, scan black squares only (written to EEPROM).
    Scan50Black,
    /// 0x53: draughts, scan white squares only (written to EEPROM).
    Scan50White,
    /// 0x54: scan all squares (written to EEPROM).
    Scan100,
}

impl ForbiddenCommand {
    /// The byte.
    pub fn byte(self) -> u8 {
        match self {
            ForbiddenCommand::StartBootloader => 0x4e,
            ForbiddenCommand::Scan50Black => 0x51,
            ForbiddenCommand::Scan50White => 0x53,
            ForbiddenCommand::Scan100 => 0x54,
        }
    }

    /// The forbidden command a byte stands for, if any.
    pub fn from_byte(byte: u8) -> Option<ForbiddenCommand> {
        match byte {
            0x4e => Some(ForbiddenCommand::StartBootloader),
            0x51 => Some(ForbiddenCommand::Scan50Black),
            0x53 => Some(ForbiddenCommand::Scan50White),
            0x54 => Some(ForbiddenCommand::Scan100),
            _ => None,
        }
    }
}

/// A command the host sends to the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// 0x40: go idle, leave any update mode. No reply.
    Reset,
    /// 0x41: send one BWTIME.
    SendClock,
    /// 0x42: send one BOARD_DUMP.
    SendBoard,
    /// 0x43: update mode: FIELD_UPDATE on every change, BWTIME at least every second.
    SendUpdate,
    /// 0x44: update mode without the clock.
    SendUpdateBoard,
    /// 0x45: send SERIALNR.
    ReturnSerialNr,
    /// 0x46: send BUSADRES.
    ReturnBusAddress,
    /// 0x47: send TRADEMARK.
    SendTrademark,
    /// 0x49: send EE_MOVES (about 7.9 kB, 8 s at 9600 baud).
    SendEeMoves,
    /// 0x4a: switch to bus mode. No reply.
    ToBusMode,
    /// 0x4b: update mode: FIELD_UPDATE on every change, BWTIME only when it changed.
    SendUpdateNice,
    /// 0x4c: send BATTERY_STATUS (Bluetooth boards).
    SendBatteryStatus,
    /// 0x4d: send VERSION.
    SendVersion,
    /// 0x50: draughts, send the black squares (reply 0x94, which this decoder does not
    /// read).
    SendBoard50B,
    /// 0x52: draughts, send the white squares (reply 0x95, not read either).
    SendBoard50W,
    /// 0x55: send LONG_SERIALNR.
    ReturnLongSerialNr,
    /// 0x2b: a clock command.
    Clock(ClockCommand),
    /// 0x60: an LED command.
    Leds(LedCommand),
    /// 0x81–0x8d: a bus-mode command.
    Bus(BusCommand),
}

/// Single-byte commands and their bytes.
const SINGLE: [(Command, u8); 16] = [
    (Command::Reset, cmd::RESET),
    (Command::SendClock, cmd::SEND_CLOCK),
    (Command::SendBoard, cmd::SEND_BOARD),
    (Command::SendUpdate, cmd::SEND_UPDATE),
    (Command::SendUpdateBoard, cmd::SEND_UPDATE_BOARD),
    (Command::ReturnSerialNr, cmd::RETURN_SERIALNR),
    (Command::ReturnBusAddress, cmd::RETURN_BUSADRES),
    (Command::SendTrademark, cmd::SEND_TRADEMARK),
    (Command::SendEeMoves, cmd::SEND_EE_MOVES),
    (Command::ToBusMode, cmd::TO_BUSMODE),
    (Command::SendUpdateNice, cmd::SEND_UPDATE_NICE),
    (Command::SendBatteryStatus, cmd::SEND_BATTERY_STATUS),
    (Command::SendVersion, cmd::SEND_VERSION),
    (Command::SendBoard50B, cmd::SEND_BOARD_50B),
    (Command::SendBoard50W, cmd::SEND_BOARD_50W),
    (Command::ReturnLongSerialNr, cmd::RETURN_LONG_SERIALNR),
];

impl Command {
    /// The single-byte command a byte stands for, if any.
    pub fn from_single_byte(byte: u8) -> Option<Command> {
        SINGLE.iter().find(|(_, b)| *b == byte).map(|(c, _)| *c)
    }

    /// The byte of a single-byte command; `None` for the framed ones.
    pub fn single_byte(&self) -> Option<u8> {
        SINGLE.iter().find(|(c, _)| c == self).map(|(_, b)| *b)
    }

    /// The id of the message the board answers with, if it answers. A clock command is
    /// answered by a BWTIME ack, and only while the board is in an update mode.
    pub fn reply_id(&self) -> Option<u8> {
        match self {
            Command::SendClock | Command::Clock(_) => Some(msg::BWTIME),
            Command::SendBoard => Some(msg::BOARD_DUMP),
            Command::ReturnSerialNr => Some(msg::SERIALNR),
            Command::ReturnBusAddress => Some(msg::BUSADRES),
            Command::SendTrademark => Some(msg::TRADEMARK),
            Command::SendEeMoves => Some(msg::EE_MOVES),
            Command::SendBatteryStatus => Some(msg::BATTERY_STATUS),
            Command::SendVersion => Some(msg::VERSION),
            Command::ReturnLongSerialNr => Some(msg::LONG_SERIALNR),
            _ => None,
        }
    }

    /// Appends the command's bytes. On error nothing is appended.
    ///
    /// ```
    /// use eboardd_core::protocol::dgt::{ClockCommand, Command};
    /// let mut out = Vec::new();
    /// Command::SendUpdateNice.encode(&mut out).unwrap();
    /// Command::Clock(ClockCommand::Version).encode(&mut out).unwrap();
    /// assert_eq!(out, [0x4b, 0x2b, 0x03, 0x03, 0x09, 0x00]);
    /// ```
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        match self {
            Command::Clock(clock) => clock.encode(out)?,
            Command::Leds(leds) => {
                let [pattern, start, end] = leds.payload()?;
                out.extend_from_slice(&[cmd::SET_LEDS, LED_SIZE, pattern, start, end, 0x00]);
            }
            Command::Bus(bus) => out.extend_from_slice(&bus.to_bytes()),
            single => {
                if let Some(byte) = single.single_byte() {
                    out.push(byte);
                }
            }
        }
        Ok(())
    }

    /// The command's bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::new();
        self.encode(&mut out)?;
        Ok(out)
    }
}
