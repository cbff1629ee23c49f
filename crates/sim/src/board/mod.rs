//! Board models: what each board's sensors report about the physical board, and when.
//!
//! [`dgt`] and [`millennium`] are sans-IO state machines in virtual time: they are told
//! when to sample, sample a [`Cursor`] on the hand's [`Timeline`], and queue the messages
//! the board would send ([`Outgoing`]: in chess terms, with the time they are ready and the
//! square changes they reveal to the host). [`mod@line`] times them on the serial line.
//! [`BoardModel`] joins a model and its line and [`BoardModel::run`] drives them over a
//! whole timeline; what the host learns comes out as [`SensedChange`]s, each traced back to
//! the ply that caused it. No bytes are made here: `sim::device` encodes the messages with
//! the protocol codecs.

pub mod dgt;
pub mod line;
pub mod millennium;

use std::time::Duration;

use crate::rng::Rng;
use crate::timeline::{Cursor, Part, Squares, Timeline};
use eboardd_core::protocol::Protocol;
use eboardd_core::sensing::SquareChange;
use eboardd_core::time::Time;

pub use dgt::{DgtConfig, DgtMessage, DgtModel};
pub use line::{Sent, SerialLine};
pub use millennium::{MillenniumConfig, MillenniumModel};

/// A square change as the host learns it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SensedChange {
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

/// A square change a message reveals, with where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reveal {
    /// The change.
    pub change: SquareChange,
    /// When the sensor looked.
    pub sampled: Time,
    /// The ply of the physical change seen.
    pub ply: u32,
    /// What that physical change was part of.
    pub part: Part,
}

/// A message a board model has ready for the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing<M> {
    /// When it is ready to send.
    pub ready: Time,
    /// The message.
    pub message: M,
    /// The square changes the host learns from it.
    pub reveals: Vec<Reveal>,
}

impl<M> Outgoing<M> {
    /// The same outgoing message in another form.
    pub fn map<N>(self, f: impl FnOnce(M) -> N) -> Outgoing<N> {
        Outgoing {
            ready: self.ready,
            message: f(self.message),
            reveals: self.reveals,
        }
    }
}

/// What a board model sent, in chess terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelMessage {
    /// A DGT message.
    Dgt(DgtMessage),
    /// A Millennium status frame (squares in chess coordinates).
    Status(Box<Squares>),
}

#[derive(Debug, Clone)]
enum Kind {
    Dgt(Box<DgtModel>),
    Millennium(Box<MillenniumModel>),
}

/// A board model and its serial line.
#[derive(Debug, Clone)]
pub struct BoardModel {
    kind: Kind,
    line: SerialLine,
    sent: Vec<Sent<ModelMessage>>,
    sensed: Vec<SensedChange>,
}

/// How long after the last physical change a run keeps scanning.
const TAIL: Duration = Duration::from_millis(1000);

impl BoardModel {
    /// A board of `protocol` with its default settings that has seen `start`; `seed`
    /// draws its scan phase (and the DGT board's scan lengths).
    pub fn new(protocol: Protocol, start: &Squares, seed: u64) -> BoardModel {
        (crate::kinds::kind(protocol).model)(start, seed)
    }

    /// A DGT board with `cfg`.
    pub fn dgt(cfg: DgtConfig, start: &Squares, seed: u64) -> BoardModel {
        BoardModel::with_kind(Kind::Dgt(Box::new(DgtModel::new(cfg, start, seed))))
    }

    /// A Millennium board with `cfg`, its scan phase drawn from `seed`.
    pub fn millennium(cfg: MillenniumConfig, start: &Squares, seed: u64) -> BoardModel {
        let model = MillenniumModel::new(cfg, start, millennium_phase(&cfg, seed));
        BoardModel::with_kind(Kind::Millennium(Box::new(model)))
    }

    fn with_kind(kind: Kind) -> BoardModel {
        let protocol = match kind {
            Kind::Dgt(_) => Protocol::Dgt,
            Kind::Millennium(_) => Protocol::Millennium,
        };
        BoardModel {
            kind,
            line: SerialLine::new(protocol.baud_rate()),
            sent: Vec::new(),
            sensed: Vec::new(),
        }
    }

    /// The protocol the board speaks.
    pub fn protocol(&self) -> Protocol {
        match self.kind {
            Kind::Dgt(_) => Protocol::Dgt,
            Kind::Millennium(_) => Protocol::Millennium,
        }
    }

    /// The DGT model, if this is a DGT board.
    pub fn as_dgt(&self) -> Option<&DgtModel> {
        match &self.kind {
            Kind::Dgt(m) => Some(m),
            Kind::Millennium(_) => None,
        }
    }

    /// The Millennium model, if this is a Millennium board.
    pub fn as_millennium(&self) -> Option<&MillenniumModel> {
        match &self.kind {
            Kind::Millennium(m) => Some(m),
            Kind::Dgt(_) => None,
        }
    }

    /// When the board next samples a square.
    pub fn poll_timeout(&self) -> Time {
        match &self.kind {
            Kind::Dgt(m) => m.poll_timeout(),
            Kind::Millennium(m) => m.poll_timeout(),
        }
    }

    /// Samples the square due now from `physical` (advanced to `poll_timeout`) and sends
    /// what the board has ready.
    pub fn handle_timeout(&mut self, physical: &Cursor<'_>) {
        let mut ready = Vec::new();
        match &mut self.kind {
            Kind::Dgt(m) => {
                m.handle_timeout(physical);
                while let Some(out) = m.poll_outgoing() {
                    let len = out.message.wire_len();
                    ready.push((out.map(ModelMessage::Dgt), len));
                }
            }
            Kind::Millennium(m) => {
                m.handle_timeout(physical);
                while let Some(out) = m.poll_outgoing() {
                    ready.push((out.map(ModelMessage::Status), millennium::STATUS_LEN));
                }
            }
        }
        for (out, len) in ready {
            let (sent, sensed) = self.line.transmit(out, len);
            self.sent.push(sent);
            self.sensed.extend(sensed);
        }
    }

    /// The sensed changes since the last call, in time order.
    pub fn take_sensed(&mut self) -> Vec<SensedChange> {
        std::mem::take(&mut self.sensed)
    }

    /// The messages sent so far, with their wire times.
    pub fn sent(&self) -> &[Sent<ModelMessage>] {
        &self.sent
    }

    /// Drives the board over `timeline` until a second after its last change, and
    /// returns what the host sensed, in time order.
    pub fn run(&mut self, timeline: &Timeline) -> Vec<SensedChange> {
        self.run_until(timeline, timeline.end() + TAIL)
    }

    /// Drives the board over `timeline` until `end`.
    pub fn run_until(&mut self, timeline: &Timeline, end: Time) -> Vec<SensedChange> {
        let mut cursor = Cursor::new(timeline);
        while self.poll_timeout() <= end {
            cursor.advance_to(self.poll_timeout());
            self.handle_timeout(&cursor);
        }
        self.take_sensed()
    }
}

/// The scan phase of a Millennium board drawn from `seed` (less than one scan).
pub fn millennium_phase(cfg: &MillenniumConfig, seed: u64) -> Duration {
    let mut rng = Rng::derive(seed, "millennium-scan");
    let period = cfg.scan_period().as_micros() as u64;
    Duration::from_micros(rng.range_u64(0, period.saturating_sub(1)))
}

/// For each ply (index `ply - 1`), the time the host received the last report caused by
/// the ply's move; `None` for a ply the board never reported.
pub fn last_reports(sensed: &[SensedChange], plies: usize) -> Vec<Option<Time>> {
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
