//! Release: when the explanations of the board allow a move to be confirmed.
//!
//! A ply is confirmed when every remaining explanation agrees on it, it is complete (FIDE
//! 4.7) and it is released. Release is proved by whichever comes first:
//! - the opponent has started a move (every cheapest explanation is two plies or more);
//! - the piece cannot be moving on: the only explanation left is the complete move, with no
//!   alternative in which the piece is still sliding (a knight, a capture, a completed
//!   castling or promotion, the last free square of a line, a pawn that cannot go further);
//! - the board has settled for the settle window (explanations that need a piece resting
//!   on a transit square die then);
//! - the clock lever was pressed after the last change.
//!
//! A complete move that an unfinished one could still extend — the rook of a castling put
//! down first — waits for a longer ambiguity window. This module is a pure function of the
//! candidates, the times it is given and, asked only when it matters, when a candidate's
//! piece may still be moving on; it knows nothing of boards, IO or clocks.

use std::time::Duration;

use shakmaty::{Bitboard, Move};

use super::explain::Candidate;
use crate::time::Time;

/// What the candidates say should happen now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The board shows the confirmed position: nothing pending.
    Idle,
    /// Confirm this move now.
    Confirm(Move),
    /// A move is under way; decide again at this time (or at the next change).
    Wait(Option<Time>),
    /// Nothing explains the board without leaving squares unaccounted for; these squares are
    /// left unexplained by every cheapest explanation.
    Unexplained(Bitboard),
    /// The pieces are released and several complete sequences explain the board: no order
    /// of events tells them apart.
    Ambiguous,
}

/// The times a decision depends on.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// Now.
    pub now: Time,
    /// The last change of any square.
    pub last_change: Time,
    /// The clock lever was pressed after the last change.
    pub clock_pressed: bool,
    /// How long a board must stay still for the pieces on it to count as released.
    pub settle: Duration,
    /// How stale the board's report of a square may be.
    pub sensor_lag: Duration,
    /// How long a complete move waits for an unfinished alternative (castling rook-first).
    pub ambiguity: Duration,
    /// How long a piece that slid onto a square of its line may rest there, the hand still
    /// on it, before it goes on.
    pub slide_rest: Duration,
    /// How many plies explanations that need a piece nobody saw must hold for the first,
    /// which they all agree on, to be confirmed before the board settles: its piece is past
    /// moving on, and the later plies have changed the squares where the piece nobody saw
    /// could still have been reported. Three for the game; four for a history weighed
    /// against the confirmed game, where the board settling is the better proof until the
    /// plies would outgrow an explanation.
    pub unseen_passed: u8,
    /// A history weighed where the confirmed game cannot explain the board: its first ply
    /// counts before the board settles once two plies hold, all complete and needing one
    /// piece nobody saw at most, whatever that ply is (a pawn's double step swept off by
    /// the capture that follows is no capture itself).
    pub unseen_history: bool,
}

/// The fewest plies among the candidates that `keep` accepts.
fn min_len(cands: &[Candidate], keep: impl Fn(&Candidate) -> bool) -> Option<u8> {
    cands.iter().filter(|c| keep(c)).map(|c| c.len).min()
}

/// The first move every accepted candidate of `len` plies agrees on, and how many there are.
fn agree(cands: &[Candidate], keep: impl Fn(&Candidate) -> bool, len: u8) -> (Option<Move>, usize) {
    let mut first: Option<Move> = None;
    let mut same = true;
    let mut n = 0;
    for c in cands.iter().filter(|c| keep(c) && c.len == len) {
        n += 1;
        match (first, c.first()) {
            (None, m) => first = m,
            (Some(a), Some(b)) if a == b => {}
            _ => same = false,
        }
    }
    (if same { first } else { None }, n)
}

/// Decides from the candidates (as found by [`super::explain::explain`]) and the times.
/// `first_moves_on` tells when a candidate's first piece may still be moving on along its line
/// ([`super::explain::BaseMoves::first_moves_on`]), `first_slid` whether a candidate's first
/// piece, resting on its line, slid there ([`super::explain::BaseMoves::first_slid`]); they
/// are asked only when it matters.
pub fn decide(
    cands: &[Candidate],
    t: Timing,
    first_moves_on: impl Fn(&Candidate) -> Option<Time>,
    first_slid: impl Fn(&Candidate) -> bool,
) -> Verdict {
    let Some(best_cost) = cands.iter().map(Candidate::cost).min() else {
        return Verdict::Idle;
    };
    if best_cost > 0 {
        // Prefer explanations whose missing pieces were seen put where they belong (a
        // sensor that lost a piece) over ones where a piece never arrived.
        let cheapest = cands.iter().filter(|c| c.cost() == best_cost);
        let most = cheapest.clone().map(|c| c.vanished).max().unwrap_or(0);
        let mut common = Bitboard::FULL;
        for c in cheapest.filter(|c| c.vanished == most) {
            common &= c.unexplained;
        }
        // A sensor that lost a piece after it was put down must not hold the game up: when
        // the best explanations leave only such squares, the opponent has moved on since and
        // the piece cannot be moving on, the ply they agree on is confirmed (the lost square
        // waits to be put right or tolerated as a stale sensor).
        if u32::from(most) == best_cost {
            let lost = |c: &Candidate| c.cost() == best_cost && c.vanished == most;
            if let Some(len) = min_len(cands, lost).filter(|&len| len >= 2)
                && let (Some(m), _) = agree(cands, lost, len)
            {
                // Unless the lost piece may have been moving on along its line (a
                // slide's transit square looks the same).
                if !cands
                    .iter()
                    .any(|c| lost(c) && c.len == len && first_moves_on(c).is_some())
                {
                    return Verdict::Confirm(m);
                }
            }
        }
        return Verdict::Unexplained(common);
    }
    let stable = t.now.saturating_since(t.last_change) >= t.settle;
    // Only single moves under way (pieces lifted, or one in the hand): nothing to decide
    // before the board settles or the clock is pressed. The common case, answered in one
    // pass; the steps below come to the same.
    if !(stable || t.clock_pressed)
        && cands
            .iter()
            .filter(|c| c.cost() == 0)
            .all(|c| c.len == 1 && !c.complete)
    {
        return Verdict::Wait(Some(t.last_change + t.settle));
    }
    // Of the explanations that leave nothing unexplained, those that need the fewest pieces
    // the sensors never saw, and then those that also account for the most squares
    // tolerated as stale sensors.
    let best = cands
        .iter()
        .filter(|c| c.cost() == 0)
        .map(|c| (c.unseen, c.ghosted))
        .min()
        .unwrap_or((0, 0));
    let free = |c: &Candidate| c.cost() == 0 && (c.unseen, c.ghosted) == best;
    let Some(len) = min_len(cands, free) else {
        return Verdict::Idle;
    };
    if len == 0 {
        return Verdict::Idle;
    }
    // An explanation that needs a piece nobody saw is taken only once the board has stood
    // still for the settle window and nothing better has turned up.
    if best.0 > 0 && !stable {
        // Unless enough plies have begun after the first capture every explanation agrees
        // on ([`Timing::unseen_passed`]): a capture swept off at once and taken again
        // before a scan is never reported, and quick replies may never leave the board
        // still.
        if len >= t.unseen_passed
            && let (Some(m), _) = agree(cands, |c| c.cost() == 0, len)
            && m.is_capture()
            && cands.iter().filter(|c| c.cost() == 0).all(|c| c.len >= len)
        {
            return Verdict::Confirm(m);
        }
        // A history where the confirmed game cannot explain the board: two plies done, one
        // piece nobody saw (a double step swept off by the capture that follows).
        if t.unseen_history
            && len >= 2
            && let (Some(m), _) = agree(cands, |c| c.cost() == 0, len)
            && cands
                .iter()
                .filter(|c| c.cost() == 0)
                .all(|c| c.len >= len && c.complete && c.unseen <= 1)
        {
            return Verdict::Confirm(m);
        }
        return Verdict::Wait(Some(t.last_change + t.settle));
    }
    // A piece put down where a longer move of it passes may still be moving on: the
    // opponent's reach and the clock press may be reported before the sensors have caught up
    // with the slide, so they prove it released only once its squares have stood still for
    // the board's sensor lag. Worked out only where it can change the verdict.
    let moving_on = || {
        cands
            .iter()
            .filter(|c| free(c) && c.len == len)
            .filter_map(&first_moves_on)
            .max()
            .filter(|&at| t.now.saturating_since(at) < t.sensor_lag)
    };
    let (agreed, n) = agree(cands, free, len);
    // Plies that each leave a piece seen put down where none of them puts one (a rook seen
    // on f7 for half a second, read as going c7-d7), against plies one more that account
    // for every placement and agree on another first move (Rf7, the rook later going on
    // to d7): the piece was put down there as a move.
    if len >= 2
        && agreed.is_some()
        && cands
            .iter()
            .filter(|c| free(c) && c.len == len)
            .all(|c| c.strays > 0)
        && let (Some(m), k) = agree(cands, |c| free(c) && c.complete && c.strays == 0, len + 1)
        && k > 0
        && agreed != Some(m)
    {
        return Verdict::Confirm(m);
    }
    if let Some(m) = agreed {
        let complete = cands.iter().any(|c| free(c) && c.len == len && c.complete);
        if n == 1 && complete {
            return Verdict::Confirm(m);
        }
        if len >= 2 {
            // Sequences that all leave a placement seen unexplained (the first ply's piece
            // seen further along its line, still in the hand) prove no start of the
            // opponent's: the opponent may have reached out before the piece landed. They
            // wait to settle.
            let accounted = cands
                .iter()
                .any(|c| free(c) && c.len == len && c.strays == 0);
            match moving_on() {
                None if accounted => return Verdict::Confirm(m),
                Some(at) => return Verdict::Wait(Some(at + t.sensor_lag)),
                None => {}
            }
        }
    }
    if !(stable || t.clock_pressed) {
        return Verdict::Wait(Some(t.last_change + t.settle));
    }
    if !stable && let Some(at) = moving_on() {
        return Verdict::Wait(Some(at + t.sensor_lag));
    }
    // A piece that slid onto a square of its line may rest there longer, the hand still on
    // it: the move it may be making waits for the slide rest, unless the clock is pressed.
    if !t.clock_pressed
        && t.now.saturating_since(t.last_change) < t.slide_rest
        && cands
            .iter()
            .any(|c| free(c) && c.len == len && c.transit && first_slid(c))
    {
        return Verdict::Wait(Some(t.last_change + t.slide_rest));
    }
    // The pieces are released: nothing rests on a transit square any more.
    let settled = |c: &Candidate| free(c) && !c.transit;
    let Some(len) = min_len(cands, settled) else {
        return Verdict::Wait(None);
    };
    if len == 0 {
        return Verdict::Idle;
    }
    let (agreed, n) = agree(cands, settled, len);
    let complete: Vec<&Candidate> = cands
        .iter()
        .filter(|c| settled(c) && c.len == len && c.complete)
        .collect();
    if let Some(m) = agreed {
        if len >= 2 || complete.len() == n {
            return Verdict::Confirm(m);
        }
        return Verdict::Wait(None);
    }
    if complete.len() == n {
        // Several complete sequences: the ones that account for every placement the
        // sensors saw (a queen seen on d6, then resting on d5 on its way to d3, is Qd6
        // and Qd3, not Qd5 and Qd3) are the better, when they agree.
        let fewest = complete.iter().map(|c| c.strays).min().unwrap_or(0);
        let best = |c: &Candidate| settled(c) && c.complete && c.strays == fewest;
        if let (Some(m), k) = agree(cands, best, len)
            && k < complete.len()
        {
            return Verdict::Confirm(m);
        }
        return Verdict::Ambiguous;
    }
    if len == 1 && complete.len() == 1 {
        let waited = t.now.saturating_since(t.last_change) >= t.ambiguity;
        if (waited || t.clock_pressed)
            && let Some(m) = complete[0].first()
        {
            return Verdict::Confirm(m);
        }
        return Verdict::Wait(Some(t.last_change + t.ambiguity));
    }
    Verdict::Wait(None)
}
