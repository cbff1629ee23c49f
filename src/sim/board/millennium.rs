//! A model of a Millennium ChessLink board's sensing, in virtual time.
//!
//! The board scans its 64 squares one after another in its own index order (which depends
//! on the side the cable is on), a scan lasting the scan-time register × 2.048 ms (default
//! 20: 40.96 ms). At the end of every scan it decides, by its report-mode register, whether
//! to send a status frame (`s` + 64 squares + checksum, 67 bytes at 38400 baud): every scan
//! (the default), never, at an interval, on any change, or on a change that has been stable
//! for 2–5 scans. The host sees a frame when its last byte has arrived; the sensed square
//! changes are the differences between consecutive frames the host received. A host `S`
//! request gets the last complete scan.
//!
//! Sans-IO like the DGT model: [`MillenniumModel::poll_timeout`] says when the next square
//! is sampled and [`MillenniumModel::handle_timeout`] samples it from a [`Cursor`]. Frames
//! come out as [`MillenniumOutput`]s in chess coordinates; cable side and parity are applied
//! by the byte encoder.

use std::collections::VecDeque;
use std::time::Duration;

use super::Sensed;
use super::dgt::field_to_square;
use super::line::SerialLine;
use crate::protocol::millennium::CableSide;
use crate::sensing::SquareChange;
use crate::sim::timeline::{Cursor, Part, Squares};
use crate::time::Time;

/// The scan time register's unit.
const SCAN_UNIT_US: u64 = 2048;
/// The report interval register's unit.
const INTERVAL_UNIT_US: u64 = 4096;

/// When the board sends status frames by itself (register 0x02, bits 0–2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportMode {
    /// After every scan (0, the factory default).
    EveryScan,
    /// Never; the host asks with `S` (1).
    Off,
    /// At the interval of register 0x03 (2).
    Interval,
    /// After a scan that differs from the one before (3).
    OnChange,
    /// After a change that has stayed the same for this many scans (4–7: 2–5 scans).
    OnStableChange(u8),
}

impl ReportMode {
    /// The mode a register 0x02 value selects.
    pub fn from_register(value: u8) -> ReportMode {
        match value & 0x07 {
            0 => ReportMode::EveryScan,
            1 => ReportMode::Off,
            2 => ReportMode::Interval,
            3 => ReportMode::OnChange,
            n => ReportMode::OnStableChange(n - 2),
        }
    }
}

/// How the Millennium board is modelled: its registers and its cable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MillenniumConfig {
    /// Register 0x01: scan time in units of 2.048 ms; values below 15 mean 20.
    pub scan_register: u8,
    /// Register 0x02: report mode.
    pub report_register: u8,
    /// Register 0x03: report interval in units of 4.096 ms (report mode 2).
    pub interval_register: u8,
    /// The side of the cable, which fixes the square order.
    pub cable: CableSide,
    /// Whether the odd-parity bit is present in bit 7 of every byte (a board read 8N1)
    /// or stripped (read 7O1).
    pub parity: bool,
    /// Line speed.
    pub baud: u32,
}

impl Default for MillenniumConfig {
    fn default() -> Self {
        MillenniumConfig {
            scan_register: 20,
            report_register: 0,
            interval_register: 10,
            cable: CableSide::Right,
            parity: true,
            baud: 38400,
        }
    }
}

impl MillenniumConfig {
    /// The time one scan takes.
    pub fn scan_period(&self) -> Duration {
        let reg = if self.scan_register < 15 {
            20
        } else {
            self.scan_register
        };
        Duration::from_micros(u64::from(reg) * SCAN_UNIT_US)
    }

    /// The report mode.
    pub fn report_mode(&self) -> ReportMode {
        ReportMode::from_register(self.report_register)
    }
}

/// A status frame with its times on the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MillenniumOutput {
    /// When its first byte left the board.
    pub start: Time,
    /// When its last byte reached the host.
    pub end: Time,
    /// The 64 squares in chess coordinates (indexed by `Square as usize`).
    pub squares: Box<Squares>,
}

/// The status frame's length on the wire.
pub const STATUS_LEN: usize = 67;

/// The sensing side of one Millennium board.
#[derive(Debug, Clone)]
pub struct MillenniumModel {
    cfg: MillenniumConfig,
    scanning: Squares,
    causes: [(u32, Part); 64],
    last_scan: Squares,
    stable_scans: u32,
    last_sent: Squares,
    last_interval: Time,
    scan_start: Time,
    next_index: u8,
    line: SerialLine,
    out: VecDeque<MillenniumOutput>,
    sensed: Vec<Sensed>,
    frames: u64,
}

impl MillenniumModel {
    /// A board that has seen `start`; its first scan begins at `phase` (less than a scan).
    pub fn new(cfg: MillenniumConfig, start: &Squares, phase: Duration) -> MillenniumModel {
        MillenniumModel {
            cfg,
            scanning: *start,
            causes: [(0, Part::Move); 64],
            last_scan: *start,
            stable_scans: 0,
            last_sent: *start,
            last_interval: Time::ZERO,
            scan_start: Time::ZERO + phase.min(cfg.scan_period()),
            next_index: 0,
            line: SerialLine::new(cfg.baud),
            out: VecDeque::new(),
            sensed: Vec::new(),
            frames: 0,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &MillenniumConfig {
        &self.cfg
    }

    /// Changes a register as a `W` command would (0x01, 0x02, 0x03 matter here).
    pub fn write_register(&mut self, address: u8, value: u8) {
        match address {
            0x01 => self.cfg.scan_register = value,
            0x02 => self.cfg.report_register = value,
            0x03 => self.cfg.interval_register = value,
            _ => {}
        }
    }

    /// The square a status index stands for on this board.
    pub fn index_square(&self, index: u8) -> shakmaty::Square {
        field_to_square(index, self.cfg.cable == CableSide::Right)
    }

    /// The square sampled next (at [`poll_timeout`](Self::poll_timeout)).
    pub fn next_square(&self) -> shakmaty::Square {
        self.index_square(self.next_index)
    }

    /// When the next square is sampled.
    pub fn poll_timeout(&self) -> Time {
        let period = self.cfg.scan_period().as_micros() as u64;
        self.scan_start + Duration::from_micros(period * u64::from(self.next_index) / 64)
    }

    /// Samples the square due at [`poll_timeout`](Self::poll_timeout) from `physical`
    /// (advanced to that instant); at the end of a scan, maybe sends a frame.
    pub fn handle_timeout(&mut self, physical: &Cursor<'_>) {
        let now = self.poll_timeout();
        let square = self.index_square(self.next_index);
        self.scanning[square as usize] = physical.squares()[square as usize];
        self.causes[square as usize] = physical.cause(square);
        if self.next_index < 63 {
            self.next_index += 1;
            return;
        }
        self.next_index = 0;
        self.scan_start = self.scan_start + self.cfg.scan_period();
        let changed = self.scanning != self.last_scan;
        self.stable_scans = if changed { 0 } else { self.stable_scans + 1 };
        self.last_scan = self.scanning;
        let send = match self.cfg.report_mode() {
            ReportMode::EveryScan => true,
            ReportMode::Off => false,
            ReportMode::Interval => {
                let every = u64::from(self.cfg.interval_register.max(1)) * INTERVAL_UNIT_US;
                if now.as_micros() >= self.last_interval.as_micros() + every {
                    self.last_interval = now;
                    true
                } else {
                    false
                }
            }
            ReportMode::OnChange => changed,
            ReportMode::OnStableChange(n) => {
                self.last_scan != self.last_sent && self.stable_scans + 1 >= u32::from(n)
            }
        };
        if send {
            self.send_frame(now);
        }
    }

    /// The host sent `S` at `now`: queue the last complete scan.
    pub fn request_status(&mut self, now: Time) {
        self.send_frame(now);
    }

    fn send_frame(&mut self, now: Time) {
        let squares = self.last_scan;
        let (start, end) = self.line.send(now, STATUS_LEN);
        for sq in shakmaty::Square::ALL {
            let i = sq as usize;
            if squares[i] != self.last_sent[i] {
                let (ply, part) = self.causes[i];
                self.sensed.push(Sensed {
                    t: end,
                    sampled: now,
                    change: SquareChange {
                        square: sq,
                        piece: squares[i],
                    },
                    ply,
                    part,
                });
            }
        }
        self.last_sent = squares;
        self.frames += 1;
        self.out.push_back(MillenniumOutput {
            start,
            end,
            squares: Box::new(squares),
        });
    }

    /// How many status frames have been sent.
    pub fn frames_sent(&self) -> u64 {
        self.frames
    }

    /// The next frame for the host, in the order they are sent.
    pub fn poll_transmit(&mut self) -> Option<MillenniumOutput> {
        self.out.pop_front()
    }

    /// The sensed changes so far (taken out).
    pub fn take_sensed(&mut self) -> Vec<Sensed> {
        std::mem::take(&mut self.sensed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Square;

    #[test]
    fn cable_right_turns_the_official_order() {
        let m = MillenniumModel::new(MillenniumConfig::default(), &[None; 64], Duration::ZERO);
        assert_eq!(m.index_square(0), Square::H1);
        assert_eq!(m.index_square(1), Square::G1);
        assert_eq!(m.index_square(8), Square::H2);
        assert_eq!(m.index_square(63), Square::A8);
        let left = MillenniumConfig {
            cable: CableSide::Left,
            ..MillenniumConfig::default()
        };
        let m = MillenniumModel::new(left, &[None; 64], Duration::ZERO);
        assert_eq!(m.index_square(0), Square::A8);
    }

    #[test]
    fn default_scan_is_forty_milliseconds() {
        let cfg = MillenniumConfig::default();
        assert_eq!(cfg.scan_period(), Duration::from_micros(40_960));
        let low = MillenniumConfig {
            scan_register: 3,
            ..cfg
        };
        assert_eq!(low.scan_period(), Duration::from_micros(40_960));
        assert_eq!(ReportMode::from_register(7), ReportMode::OnStableChange(5));
    }
}
