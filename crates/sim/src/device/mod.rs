//! Emulated boards, device side: the board models plus the protocol, in bytes.
//!
//! An emulated board reads what the host writes, answers every command as the real board
//! does, scans the physical board with its model and sends what the model reports, all
//! encoded with the project's protocol codecs and timed on the serial line. It is sans-IO:
//! [`EmulatedBoard::handle_host_bytes`] takes the host's bytes with their time,
//! [`EmulatedBoard::poll_timeout`] / [`EmulatedBoard::handle_timeout`] run the scans
//! against a [`Cursor`] on the hand's timeline, and [`EmulatedBoard::poll_transmit`] hands
//! back the bytes for the host with their wire times. [`run_session`] drives one over a
//! whole game; a pseudo-terminal emulator or a trace writer is a thin shell around it.

pub mod dgt;
pub mod millennium;

use std::time::Duration;

use shakmaty::Square;

use crate::board::SensedChange;
use crate::timeline::{Cursor, Squares, Timeline};
use eboardd_core::protocol::Protocol;
use eboardd_core::time::Time;

pub use dgt::{DgtDevice, DgtDeviceConfig};
pub use millennium::{MillenniumDevice, MillenniumDeviceConfig};

/// Bytes the board sent, with their times on the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transmission {
    /// When the first byte left the board.
    pub start: Time,
    /// When the last byte reached the host.
    pub end: Time,
    /// The bytes, exactly as on the line.
    pub bytes: Vec<u8>,
}

/// How an emulated board is set up, whatever its protocol.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoardOptions {
    /// The board stands turned 180°: a DGT board with its field 0 on h1, a Millennium
    /// board with its cable on White's left.
    pub turned: bool,
    /// Millennium: bytes carry the odd-parity bit (a port read 8N1 sees it).
    pub parity: bool,
    /// DGT: the shortest and longest full scan, in milliseconds.
    pub dgt_scan_ms: (f64, f64),
    /// Millennium: the scan-time register at power-on (units of 2.048 ms).
    pub millennium_scan_register: u8,
    /// DGT: a clock is attached (a DGT3000: it acknowledges clock commands, runs, and
    /// the hand's presses move its lever).
    pub clock: bool,
    /// DGT: the board is a Revelation II with LEDs (its long serial number starts with a
    /// firmware version of 3.25 or more).
    pub dgt_revelation: bool,
}

impl Default for BoardOptions {
    fn default() -> Self {
        BoardOptions {
            turned: false,
            parity: true,
            dgt_scan_ms: (200.0, 250.0),
            millennium_scan_register: 20,
            clock: false,
            dgt_revelation: false,
        }
    }
}

/// An emulated board of either protocol.
#[derive(Debug)]
pub enum EmulatedBoard {
    /// A DGT board.
    Dgt(Box<DgtDevice>),
    /// A Millennium ChessLink board.
    Millennium(Box<MillenniumDevice>),
}

impl EmulatedBoard {
    /// A board of `protocol` with default settings that has seen `start`.
    pub fn new(protocol: Protocol, start: &Squares, seed: u64) -> EmulatedBoard {
        EmulatedBoard::with_options(protocol, &BoardOptions::default(), start, seed)
    }

    /// A board of `protocol` set up as `options` say that has seen `start`.
    pub fn with_options(
        protocol: Protocol,
        options: &BoardOptions,
        start: &Squares,
        seed: u64,
    ) -> EmulatedBoard {
        (crate::kinds::kind(protocol).device)(options, start, seed)
    }

    /// A DGT board set up as `options` say.
    pub(crate) fn dgt(options: &BoardOptions, start: &Squares, seed: u64) -> EmulatedBoard {
        let cfg = DgtDeviceConfig {
            model: crate::board::DgtConfig {
                scan_min_ms: options.dgt_scan_ms.0,
                scan_max_ms: options.dgt_scan_ms.1,
                rotated: options.turned,
            },
            clock: options.clock,
            revelation: options.dgt_revelation,
            ..DgtDeviceConfig::default()
        };
        EmulatedBoard::Dgt(Box::new(DgtDevice::new(cfg, start, seed)))
    }

    /// A Millennium board set up as `options` say.
    pub(crate) fn millennium(options: &BoardOptions, start: &Squares, seed: u64) -> EmulatedBoard {
        let mut cfg = MillenniumDeviceConfig {
            parity: options.parity,
            ..MillenniumDeviceConfig::default()
        };
        cfg.model.scan_register = options.millennium_scan_register;
        if options.turned {
            cfg.model.cable = cfg.model.cable.flipped();
        }
        EmulatedBoard::Millennium(Box::new(MillenniumDevice::new(cfg, start, seed)))
    }

    /// A DGT board's serial number from now on (a ChessLink has none: nothing changes).
    pub fn set_serial(&mut self, serial: &str) {
        if let EmulatedBoard::Dgt(d) = self {
            d.set_serial(serial);
        }
    }

    /// Whether a DGT board's clock acknowledges commands from now on (see
    /// [`DgtDevice::set_clock_acks`]).
    pub fn set_clock_acks(&mut self, acks: bool) {
        if let EmulatedBoard::Dgt(d) = self {
            d.set_clock_acks(acks);
        }
    }

    /// The protocol the board speaks.
    pub fn protocol(&self) -> Protocol {
        match self {
            EmulatedBoard::Dgt(_) => Protocol::Dgt,
            EmulatedBoard::Millennium(_) => Protocol::Millennium,
        }
    }

    /// Whether the host follows the board's changes (a DGT board in an update mode, read
    /// whole since its last reset; a Millennium board always).
    pub fn reporting(&self) -> bool {
        match self {
            EmulatedBoard::Dgt(d) => d.reporting(),
            EmulatedBoard::Millennium(_) => true,
        }
    }

    /// The host wrote `bytes` at `now`.
    pub fn handle_host_bytes(&mut self, now: Time, bytes: &[u8]) {
        match self {
            EmulatedBoard::Dgt(d) => d.handle_host_bytes(now, bytes),
            EmulatedBoard::Millennium(d) => d.handle_host_bytes(now, bytes),
        }
    }

    /// When the board next samples a square.
    pub fn poll_timeout(&self) -> Time {
        match self {
            EmulatedBoard::Dgt(d) => d.poll_timeout(),
            EmulatedBoard::Millennium(d) => d.poll_timeout(),
        }
    }

    /// The least time from a sample (or a clock tick) to the arrival of the last byte of
    /// a message it causes: the shortest such message on the board's line. Samples taken
    /// up to this late still send their messages on time.
    pub fn report_lead(&self) -> Duration {
        match self {
            EmulatedBoard::Dgt(d) => d.report_lead(),
            EmulatedBoard::Millennium(d) => d.report_lead(),
        }
    }

    /// Samples the square due now from `physical` (advanced to `poll_timeout`).
    pub fn handle_timeout(&mut self, physical: &Cursor<'_>) {
        match self {
            EmulatedBoard::Dgt(d) => d.handle_timeout(physical),
            EmulatedBoard::Millennium(d) => d.handle_timeout(physical),
        }
    }

    /// The next bytes for the host.
    pub fn poll_transmit(&mut self) -> Option<Transmission> {
        match self {
            EmulatedBoard::Dgt(d) => d.poll_transmit(),
            EmulatedBoard::Millennium(d) => d.poll_transmit(),
        }
    }

    /// The move the board's LEDs show (the squares a piece is to leave and reach), as the
    /// host last set them.
    pub fn shown_move(&self) -> Option<(Square, Square)> {
        match self {
            EmulatedBoard::Dgt(d) => d
                .lit_fields()
                .map(|(a, b)| (d.model().field_square(a), d.model().field_square(b))),
            EmulatedBoard::Millennium(d) => d.shown_move(),
        }
    }

    /// The text on the board's clock, when the host put text there (DGT3000).
    pub fn clock_text(&self) -> Option<&str> {
        match self {
            EmulatedBoard::Dgt(d) => d.clock_text(),
            EmulatedBoard::Millennium(_) => None,
        }
    }

    /// The square changes sent to the host since the last call.
    pub fn take_sensed(&mut self) -> Vec<SensedChange> {
        match self {
            EmulatedBoard::Dgt(d) => d.take_sensed(),
            EmulatedBoard::Millennium(d) => d.take_sensed(),
        }
    }
}

/// What the host writes when it opens a board: the daemon's start-up sequence, all at
/// time zero ([`Protocol::startup_commands`]).
pub fn daemon_startup(protocol: Protocol) -> Vec<(Time, Vec<u8>)> {
    protocol
        .startup_commands()
        .into_iter()
        .map(|c| (Time::ZERO, c))
        .collect()
}

/// One session between a host and an emulated board over a game.
#[derive(Debug, Clone, Default)]
pub struct Session {
    /// What the host wrote, in time order.
    pub host: Vec<(Time, Vec<u8>)>,
    /// What the board sent, in time order.
    pub board: Vec<Transmission>,
    /// The square changes the host was sent.
    pub sensed: Vec<SensedChange>,
}

/// Drives `board` over `timeline` until `end`, with the host writing `host` (in time
/// order) along the way.
pub fn run_session(
    board: &mut EmulatedBoard,
    timeline: &Timeline,
    host: &[(Time, Vec<u8>)],
    end: Time,
) -> Session {
    let mut cursor = Cursor::new(timeline);
    let mut session = Session::default();
    let mut writes = host.iter().peekable();
    loop {
        let sample = board.poll_timeout();
        match writes.peek() {
            Some((t, bytes)) if *t <= sample => {
                cursor.advance_to(*t);
                board.handle_host_bytes(*t, bytes);
                session.host.push((*t, bytes.clone()));
                writes.next();
            }
            _ if sample <= end => {
                cursor.advance_to(sample);
                board.handle_timeout(&cursor);
            }
            _ => break,
        }
        while let Some(t) = board.poll_transmit() {
            session.board.push(t);
        }
    }
    session.sensed = board.take_sensed();
    session
}
