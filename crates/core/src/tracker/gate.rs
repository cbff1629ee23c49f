//! The gate: a hook through which the arbiter may hold back a complete move, and keep the
//! squares of an illegal move from being taken for stale sensors.
//!
//! The tracker asks the gate twice, and knows nothing of why it answers as it does:
//! - just before it confirms a move ([`MoveGate::allow`]): a move held back is not
//!   confirmed, the tracker waits for the next change (no mismatch is reported for it), and
//!   [`Tracker::held`] says which move waits. The arbiter's `enforce` mode holds back a move
//!   that breaks the touch-move rules until the board is put right and the due piece moves.
//! - before it tolerates squares nothing legal explains as stale sensors
//!   ([`MoveGate::illegal_under_way`]): squares that show (part of) a completed illegal
//!   move stay unexplained instead, so the game does not advance until the position is put
//!   right or a legal move replaces it (Article 7.5).
//!
//! Without a gate (the default) every move is confirmed as decided and every lasting
//! unexplained square may become a ghost. This file is the whole hook.

use std::fmt;

use shakmaty::{Bitboard, Board, Chess, Move};

use super::Tracker;
use super::game::{Game, SquareEvent};

/// What the tracker asks before it confirms a move or tolerates unexplained squares.
pub trait MoveGate: Send + Sync {
    /// Whether `m`, complete on the board, may be confirmed; `log` holds the lifts and
    /// placements since the last confirmed ply of `game`.
    fn allow(&self, game: &Game, m: Move, log: &[SquareEvent]) -> bool;

    /// Whether `squares`, which no legal move explains on the `sensed` board, show (part of)
    /// an illegal move from `pos`: then they are not tolerated as stale sensors.
    fn illegal_under_way(&self, pos: &Chess, sensed: &Board, squares: Bitboard) -> bool;
}

/// The gate's state inside the tracker.
#[derive(Default)]
pub struct Gate {
    gate: Option<Box<dyn MoveGate>>,
    held: Option<Move>,
}

impl fmt::Debug for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gate")
            .field("installed", &self.gate.is_some())
            .field("held", &self.held)
            .finish()
    }
}

impl Tracker {
    /// Installs (or with `None` removes) the gate.
    pub fn set_gate(&mut self, gate: Option<Box<dyn MoveGate>>) {
        self.gate = Gate { gate, held: None };
    }

    /// The complete move the gate last held back, until the gate lets a move through.
    pub fn held(&self) -> Option<Move> {
        self.gate.held
    }

    /// Asks the gate about `m`; `true` when it is held back.
    pub(super) fn gate_holds(&mut self, m: Move) -> bool {
        let (Some(gate), Some(game)) = (&self.gate.gate, &self.game) else {
            return false;
        };
        let hold = !gate.allow(game, m, &self.log);
        self.gate.held = hold.then_some(m);
        hold
    }

    /// Asks the gate whether `squares` show an illegal move under way or done.
    pub(super) fn gate_sees_illegal(&self, squares: Bitboard) -> bool {
        let (Some(gate), Some(game)) = (&self.gate.gate, &self.game) else {
            return false;
        };
        gate.illegal_under_way(game.position(), &self.sensed, squares)
    }
}
