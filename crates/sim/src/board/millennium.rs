//! A model of a Millennium ChessLink board's sensing, in virtual time.
//!
//! The board scans its 64 squares one after another in its own index order (which depends
//! on the side the cable is on), a scan lasting the scan-time register × 2.048 ms (default
//! 20: 40.96 ms). At the end of every scan it decides, by its report-mode register, whether
//! to send a status frame: every scan (the factory default), never, at an interval, on any
//! change, or on a change that has held for 2–5 scans. A host `S` request gets the last
//! complete scan. The sensed square changes are the differences between consecutive frames
//! the host receives.
//!
//! Sans-IO like the DGT model: [`MillenniumModel::poll_timeout`] says when the next square
//! is sampled and [`MillenniumModel::handle_timeout`] samples it from a [`Cursor`]. Frames
//! come out as [`Outgoing`] boards in chess coordinates; the cable order, the checksum and
//! the parity bits are the codec's business.

use std::collections::VecDeque;
use std::time::Duration;

use shakmaty::Square;

use super::dgt::field_to_square;
use super::{Outgoing, Reveal};
use crate::timeline::{Cursor, Part, Squares};
use eboardd_core::protocol::millennium::CableSide;
use eboardd_core::protocol::millennium::registers::{self, ReportMode};
use eboardd_core::sensing::SquareChange;
use eboardd_core::time::Time;

/// The report interval register's unit.
const INTERVAL_UNIT_US: u64 = 4096;

/// The status frame's length on the wire.
pub const STATUS_LEN: usize = 67;

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
}

impl Default for MillenniumConfig {
    /// The factory settings, cable on the right.
    fn default() -> Self {
        MillenniumConfig {
            scan_register: 20,
            report_register: 0,
            interval_register: 10,
            cable: CableSide::Right,
        }
    }
}

impl MillenniumConfig {
    /// The time one scan takes.
    pub fn scan_period(&self) -> Duration {
        Duration::from_micros(u64::from(registers::scan_time_micros(self.scan_register)))
    }

    /// The report mode.
    pub fn report_mode(&self) -> ReportMode {
        ReportMode::from_value(self.report_register)
    }
}

/// The sensing side of one Millennium board.
#[derive(Debug, Clone)]
pub struct MillenniumModel {
    cfg: MillenniumConfig,
    scanning: Squares,
    causes: [(Time, u32, Part); 64],
    last_scan: Squares,
    stable_scans: u32,
    last_sent: Squares,
    last_interval: Time,
    scan_start: Time,
    next_index: u8,
    out: VecDeque<Outgoing<Box<Squares>>>,
    frames: u64,
}

impl MillenniumModel {
    /// A board that has seen `start`; its first scan begins at `phase` (less than a scan).
    pub fn new(cfg: MillenniumConfig, start: &Squares, phase: Duration) -> MillenniumModel {
        MillenniumModel {
            cfg,
            scanning: *start,
            causes: [(Time::ZERO, 0, Part::Move); 64],
            last_scan: *start,
            stable_scans: 0,
            last_sent: *start,
            last_interval: Time::ZERO,
            scan_start: Time::ZERO + phase.min(cfg.scan_period()),
            next_index: 0,
            out: VecDeque::new(),
            frames: 0,
        }
    }

    /// The configuration (registers as they stand now).
    pub fn config(&self) -> &MillenniumConfig {
        &self.cfg
    }

    /// Changes a register as a `W` command would (0x01, 0x02 and 0x03 matter here).
    pub fn write_register(&mut self, address: u8, value: u8) {
        match address {
            registers::SCAN_TIME => self.cfg.scan_register = value,
            registers::REPORT_MODE => self.cfg.report_register = value,
            registers::REPORT_INTERVAL => self.cfg.interval_register = value,
            _ => {}
        }
    }

    /// The square a status index stands for on this board.
    pub fn index_square(&self, index: u8) -> Square {
        field_to_square(index, self.cfg.cable == CableSide::Right)
    }

    /// The square sampled next (at [`poll_timeout`](Self::poll_timeout)).
    pub fn next_square(&self) -> Square {
        self.index_square(self.next_index)
    }

    /// When the next square is sampled.
    pub fn poll_timeout(&self) -> Time {
        let period = self.cfg.scan_period().as_micros() as u64;
        self.scan_start + Duration::from_micros(period * u64::from(self.next_index) / 64)
    }

    /// Samples the square due at [`poll_timeout`](Self::poll_timeout) from `physical`
    /// (advanced to that instant); at the end of a scan, maybe queues a frame.
    pub fn handle_timeout(&mut self, physical: &Cursor<'_>) {
        let now = self.poll_timeout();
        let square = self.next_square();
        self.scanning[square as usize] = physical.squares()[square as usize];
        let (ply, part) = physical.cause(square);
        self.causes[square as usize] = (now, ply, part);
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
            ReportMode::AtInterval => {
                let every = u64::from(self.cfg.interval_register.max(1)) * INTERVAL_UNIT_US;
                let due = now.as_micros() >= self.last_interval.as_micros() + every;
                if due {
                    self.last_interval = now;
                }
                due
            }
            ReportMode::OnChange => changed,
            ReportMode::OnChangeDebounced(n) => {
                self.last_scan != self.last_sent && self.stable_scans + 1 >= u32::from(n)
            }
        };
        if send {
            self.queue_frame(now);
        }
    }

    /// The host sent `S` at `now`: queue the last complete scan.
    pub fn request_status(&mut self, now: Time) {
        self.queue_frame(now);
    }

    /// The host sent `T` (reset) at `now`: the board restarts and scans afresh after
    /// `restart`, its registers kept (they live in the E2ROM).
    pub fn reset(&mut self, now: Time, restart: Duration) {
        self.out.clear();
        self.scan_start = now + restart;
        self.next_index = 0;
    }

    fn queue_frame(&mut self, now: Time) {
        let squares = self.last_scan;
        // In wire order, as the host reads them.
        let reveals = (0..64u8)
            .map(|i| self.index_square(i))
            .filter(|&sq| squares[sq as usize] != self.last_sent[sq as usize])
            .map(|sq| {
                let (sampled, ply, part) = self.causes[sq as usize];
                Reveal {
                    change: SquareChange {
                        square: sq,
                        piece: squares[sq as usize],
                    },
                    sampled,
                    ply,
                    part,
                }
            })
            .collect();
        self.last_sent = squares;
        self.frames += 1;
        self.out.push_back(Outgoing {
            ready: now,
            message: Box::new(squares),
            reveals,
        });
    }

    /// How many status frames have been queued.
    pub fn frames_sent(&self) -> u64 {
        self.frames
    }

    /// The next frame for the host, in the order they were made.
    pub fn poll_outgoing(&mut self) -> Option<Outgoing<Box<Squares>>> {
        self.out.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        for i in 0..64 {
            assert_eq!(
                m.index_square(i),
                eboardd_core::protocol::millennium::status_square(i, CableSide::Left)
            );
        }
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
    }
}
