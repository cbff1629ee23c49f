//! What the judge is handed for a ply, taken from the tracker's game record, and the
//! arbiter's side of the tracker's gate. It knows nothing of events or timers.

use std::time::Duration;

use shakmaty::{Bitboard, Board, Chess, Move, Position, Square};

use super::illegal;
use super::judge::{self, Previous, Rules};
use super::reading;
use crate::tracker::game::{Game, SquareEvent};
use crate::tracker::gate::MoveGate;

/// The arbiter's side of the tracker's gate.
#[derive(Debug, Clone, Copy)]
pub(super) struct Gatekeeper {
    pub(super) enforce: bool,
    pub(super) rules: Rules,
}

impl MoveGate for Gatekeeper {
    fn allow(&self, game: &Game, m: Move, log: &[SquareEvent]) -> bool {
        if !self.enforce {
            return true;
        }
        let (events, previous) = ply_input(game, game.len(), log, m, self.rules.margins.order);
        let found = judge::judge(&self.rules, game.position(), m, &events, previous);
        !found.iter().any(|f| f.rule.enforced())
    }

    fn illegal_under_way(&self, pos: &Chess, sensed: &Board, squares: Bitboard) -> bool {
        illegal::illegal_under_way(pos, sensed, squares, self.rules.identity)
    }
}

/// The squares a move puts its pieces on.
pub(super) fn destinations(m: Move) -> Bitboard {
    match m {
        Move::Castle { king, rook } => {
            let side = shakmaty::CastlingSide::from_queen_side(rook < king);
            Bitboard::from(Square::from_coords(side.king_to_file(), king.rank()))
                | Bitboard::from(Square::from_coords(side.rook_to_file(), rook.rank()))
        }
        _ => Bitboard::from(m.to()),
    }
}

/// The events of the ply played from position `index` of `game` whose own log is `log`,
/// with the lifts carried over from the ply before ([`reading::carried`]), and that ply.
pub(super) fn ply_input(
    game: &Game,
    index: usize,
    log: &[SquareEvent],
    mv: Move,
    margin: Duration,
) -> (Vec<SquareEvent>, Option<Previous>) {
    let prev = index.checked_sub(1).and_then(|i| game.plies().get(i));
    let mut out = match (prev, game.position_at(index)) {
        (Some(prev), Some(before)) => {
            reading::carried(&prev.log, before.board(), before.turn(), margin)
        }
        _ => Vec::new(),
    };
    // A carried square whose next change in `log` does not start from what the carried
    // events left there, or which `log` leaves alone although the move ends with something
    // else there, changed unseen in between (moves were taken back meanwhile): its carried
    // events are stale.
    let after = game.position_at(index).map(|p| {
        let mut p = p.clone();
        p.play_unchecked(mv);
        p
    });
    let stale: Bitboard = out
        .iter()
        .map(|e| e.square)
        .filter(|&sq| {
            let left = out.iter().rev().find(|e| e.square == sq).map(|e| e.after);
            let next = log
                .iter()
                .find(|e| e.square == sq)
                .map(|e| e.before)
                .or_else(|| after.as_ref().map(|p| p.board().piece_at(sq)));
            matches!((left, next), (Some(l), Some(n)) if l != n)
        })
        .collect();
    out.retain(|e| !stale.contains(e.square));
    out.extend_from_slice(log);
    let previous = prev.map(|p| Previous {
        squares: destinations(p.mv),
        end: p.log.last().map_or(p.confirmed_at, |e| e.t),
    });
    (out, previous)
}
