//! The hand's primitive actions on the physical board: lift, place, push off, wait.
//!
//! A [`Choreo`] keeps the physical board, the hand's clock and the timeline being written.
//! Every action checks the physics (a piece is only lifted from an occupied square and
//! only placed on an empty one, unless it pushes the other off) and appends the changes
//! the sensors would see, including flicker as a piece settles or leaves. It knows nothing
//! of chess rules: the move choreographies in `moves` decide what to do.

use std::time::Duration;

use shakmaty::{Piece, Square};

use super::HandOptions;
use crate::SimError;
use crate::behaviour::Behaviour;
use crate::rng::Rng;
use crate::timeline::{ClockPress, Part, PhysicalEvent, Squares};
use eboardd_core::time::Time;

/// The hand at work: board, clock, timeline and the behaviours of the current ply.
#[derive(Debug)]
pub(crate) struct Choreo {
    pub(crate) board: Squares,
    pub(crate) now: Time,
    pub(crate) events: Vec<PhysicalEvent>,
    pub(crate) ply: u32,
    pub(crate) part: Part,
    pub(crate) rng: Rng,
    pub(crate) opts: HandOptions,
    /// Behaviours used in the current ply, in order, without repeats.
    pub(crate) used: Vec<Behaviour>,
    pub(crate) presses: Vec<ClockPress>,
    last_change: [Option<Time>; 64],
}

impl Choreo {
    pub(crate) fn new(start: Squares, rng: Rng, opts: HandOptions) -> Choreo {
        Choreo {
            board: start,
            now: Time::ZERO,
            events: Vec::new(),
            ply: 0,
            part: Part::Move,
            rng,
            opts,
            used: Vec::new(),
            presses: Vec::new(),
            last_change: [None; 64],
        }
    }

    /// Notes a behaviour for the current ply (once).
    pub(crate) fn note(&mut self, b: Behaviour) {
        if !self.used.contains(&b) {
            self.used.push(b);
        }
    }

    /// `true` with probability `p`, drawing nothing when `p` is zero: an option the older
    /// presets leave at zero then leaves their draws, and so their timelines, as they were.
    pub(crate) fn maybe(&mut self, p: f64) -> bool {
        p > 0.0 && self.rng.chance(p)
    }

    /// Waits a fixed span.
    pub(crate) fn wait(&mut self, d: Duration) {
        self.now = self.now + d;
    }

    /// Waits a physical span between `lo_ms` and `hi_ms` (not scaled by speed).
    pub(crate) fn pause(&mut self, lo_ms: f64, hi_ms: f64) {
        let d = self.rng.millis(lo_ms, hi_ms);
        self.wait(d);
    }

    /// Waits a human span between `lo_ms` and `hi_ms`, divided by the speed factor.
    pub(crate) fn human(&mut self, lo_ms: f64, hi_ms: f64) {
        let s = self.opts.speed();
        let d = self.rng.millis(lo_ms / s, hi_ms / s);
        self.wait(d);
    }

    /// The hand carrying a piece from `a` to `b`: longer for longer distances.
    pub(crate) fn carry(&mut self, a: Square, b: Square) {
        let extra = 25.0 * f64::from(a.distance(b));
        self.human(150.0 + extra, 380.0 + extra);
    }

    /// What stands on `sq` now.
    pub(crate) fn at(&self, sq: Square) -> Option<Piece> {
        self.board[sq as usize]
    }

    fn inconsistent(&self, detail: String) -> SimError {
        SimError::Inconsistent {
            ply: self.ply,
            detail,
        }
    }

    fn emit(&mut self, sq: Square, piece: Option<Piece>) {
        // Changes of one square are strictly ordered in time.
        if let Some(last) = self.last_change[sq as usize]
            && self.now <= last
        {
            self.now = last + Duration::from_micros(1);
        }
        self.events.push(PhysicalEvent {
            t: self.now,
            square: sq,
            piece,
            ply: self.ply,
            part: self.part,
        });
        self.last_change[sq as usize] = Some(self.now);
        self.board[sq as usize] = piece;
    }

    /// Toggles `sq` between `a` and `b` an even number of times within about 30 ms,
    /// starting and ending with `a` already emitted; no-op unless flicker is drawn.
    fn maybe_flicker(&mut self, sq: Square, a: Option<Piece>, b: Option<Piece>) {
        if !self.rng.chance(self.opts.flicker) {
            return;
        }
        self.note(Behaviour::Flicker);
        let pairs = self.rng.range_u64(1, 2);
        for _ in 0..pairs {
            self.pause(2.0, 8.0);
            self.emit(sq, b);
            self.pause(2.0, 8.0);
            self.emit(sq, a);
        }
    }

    /// Lifts the piece on `sq`; an error if the square is empty.
    pub(crate) fn lift(&mut self, sq: Square) -> Result<Piece, SimError> {
        let piece = self
            .at(sq)
            .ok_or_else(|| self.inconsistent(format!("lift from empty {sq}")))?;
        self.emit(sq, None);
        self.maybe_flicker(sq, None, Some(piece));
        Ok(piece)
    }

    /// Places `piece` on `sq`; an error if the square is occupied.
    pub(crate) fn place(&mut self, sq: Square, piece: Piece) -> Result<(), SimError> {
        if let Some(other) = self.at(sq) {
            return Err(self.inconsistent(format!("place {piece:?} on {sq} held by {other:?}")));
        }
        self.emit(sq, Some(piece));
        self.maybe_flicker(sq, Some(piece), None);
        Ok(())
    }

    /// Places `piece` on `sq` pushing the piece there off the board: the square changes from
    /// one piece to the other with no empty period. Returns the piece pushed off.
    pub(crate) fn push_off(&mut self, sq: Square, piece: Piece) -> Result<Piece, SimError> {
        let victim = self
            .at(sq)
            .ok_or_else(|| self.inconsistent(format!("push off on empty {sq}")))?;
        self.emit(sq, Some(piece));
        Ok(victim)
    }

    /// The time of the last change written, if any.
    pub(crate) fn last_event_time(&self) -> Option<Time> {
        self.events.last().map(|e| e.t)
    }
}
