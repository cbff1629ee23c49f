//! Board models: what each board's sensors report about the physical board, and when.
//!
//! [`dgt`] and [`millennium`] are sans-IO state machines in virtual time: they are told
//! when to sample, sample a [`Cursor`] on the hand's [`Timeline`], and queue the messages
//! the board would send, with the times their bytes cross the line. [`BoardModel`] wraps
//! either one and [`BoardModel::run`] drives it over a whole timeline. What the host sees
//! comes out as [`Sensed`] square changes, each traced back to the ply that caused it.
//! No bytes are made here: the protocol codecs encode the messages.

pub mod dgt;
pub mod line;
pub mod millennium;

use std::time::Duration;

use crate::protocol::Protocol;
use crate::sensing::SquareChange;
use crate::sim::rng::Rng;
use crate::sim::timeline::{Cursor, Part, Squares, Timeline};
use crate::time::Time;

pub use dgt::{DgtConfig, DgtMessage, DgtModel, DgtOutput};
pub use millennium::{MillenniumConfig, MillenniumModel, MillenniumOutput, ReportMode};

/// A square change as the host sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sensed {
    /// When the host has the whole message that reports it.
    pub t: Time,
    /// When the board's sensor looked at the square.
    pub sampled: Time,
    /// The change.
    pub change: SquareChange,
    /// The ply whose physical change this reports (0: the start position).
    pub ply: u32,
    /// What that physical change was part of.
    pub part: Part,
}

/// Either board model.
#[derive(Debug, Clone)]
pub enum BoardModel {
    /// A DGT board.
    Dgt(Box<DgtModel>),
    /// A Millennium board.
    Millennium(Box<MillenniumModel>),
}

/// How long after the last physical change a run keeps scanning.
const TAIL: Duration = Duration::from_millis(1000);

impl BoardModel {
    /// A board of `protocol` with its default settings that has seen `start`; `seed`
    /// draws its scan phase (and the DGT board's scan lengths).
    pub fn new(protocol: Protocol, start: &Squares, seed: u64) -> BoardModel {
        match protocol {
            Protocol::Dgt => BoardModel::dgt(DgtConfig::default(), start, seed),
            Protocol::Millennium => {
                let cfg = MillenniumConfig::default();
                BoardModel::millennium(cfg, start, seed)
            }
        }
    }

    /// A DGT board with `cfg`.
    pub fn dgt(cfg: DgtConfig, start: &Squares, seed: u64) -> BoardModel {
        BoardModel::Dgt(Box::new(DgtModel::new(cfg, start, seed)))
    }

    /// A Millennium board with `cfg`, its scan phase drawn from `seed`.
    pub fn millennium(cfg: MillenniumConfig, start: &Squares, seed: u64) -> BoardModel {
        let mut rng = Rng::derive(seed, "millennium-scan");
        let period = cfg.scan_period().as_micros() as u64;
        let phase = Duration::from_micros(rng.range_u64(0, period.saturating_sub(1)));
        BoardModel::Millennium(Box::new(MillenniumModel::new(cfg, start, phase)))
    }

    /// The protocol the board speaks.
    pub fn protocol(&self) -> Protocol {
        match self {
            BoardModel::Dgt(_) => Protocol::Dgt,
            BoardModel::Millennium(_) => Protocol::Millennium,
        }
    }

    /// When the board next samples a square.
    pub fn poll_timeout(&self) -> Time {
        match self {
            BoardModel::Dgt(m) => m.poll_timeout(),
            BoardModel::Millennium(m) => m.poll_timeout(),
        }
    }

    /// Samples the square due now from `physical` (advanced to `poll_timeout`).
    pub fn handle_timeout(&mut self, physical: &Cursor<'_>) {
        match self {
            BoardModel::Dgt(m) => m.handle_timeout(physical),
            BoardModel::Millennium(m) => m.handle_timeout(physical),
        }
    }

    /// The sensed changes since the last call.
    pub fn take_sensed(&mut self) -> Vec<Sensed> {
        match self {
            BoardModel::Dgt(m) => m.take_sensed(),
            BoardModel::Millennium(m) => m.take_sensed(),
        }
    }

    /// Drives the board over `timeline` until a second after its last change, and
    /// returns what the host sensed, in time order. The board's messages stay queued
    /// for [`DgtModel::poll_transmit`] / [`MillenniumModel::poll_transmit`].
    pub fn run(&mut self, timeline: &Timeline) -> Vec<Sensed> {
        self.run_until(timeline, timeline.end() + TAIL)
    }

    /// Drives the board over `timeline` until `end`.
    pub fn run_until(&mut self, timeline: &Timeline, end: Time) -> Vec<Sensed> {
        let mut cursor = Cursor::new(timeline);
        while self.poll_timeout() <= end {
            cursor.advance_to(self.poll_timeout());
            self.handle_timeout(&cursor);
        }
        self.take_sensed()
    }
}

/// For each ply (index `ply - 1`), the time the host received the last report caused by
/// the ply's move; `None` for a ply the board never reported.
pub fn last_reports(sensed: &[Sensed], plies: usize) -> Vec<Option<Time>> {
    let mut out = vec![None; plies];
    for s in sensed {
        if s.part == Part::Move
            && s.ply >= 1
            && let Some(slot) = out.get_mut(s.ply as usize - 1)
        {
            *slot = Some(slot.map_or(s.t, |t: Time| t.max(s.t)));
        }
    }
    out
}
