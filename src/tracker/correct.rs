//! History correction: a board the confirmed game cannot explain, but an earlier position
//! of it can.
//!
//! When the sensed board is not explained from the confirmed position (or only by
//! tolerating squares as stale sensors), the last few confirmed plies may have been misread:
//! a slider that rested on a transit square longer than the settle window and then went on
//! to capture, a ply lost in fast play. The tracker then undoes up to
//! [`super::TrackerConfig::max_plies`] confirmed plies, one more at a time, and explains the
//! board from there, with no square tolerated as stale, with every lift and placement
//! reported since, in their order. When the release rules ([`super::release`]) would confirm
//! a first ply other than the one confirmed, that history is the clear best: the wrong plies
//! are retracted (latest first) and the right ones confirmed at once by the tracker's usual
//! decision, which now starts from the earlier position with the whole log.
//!
//! The fewest plies undone win: a history that keeps more of the confirmed game is tried
//! first. A board that equals an earlier position is a takeback, not a correction, and is
//! left to the takeback rule.
//!
//! Like the rest of the tracker it is handed `now` and does no IO.

use std::time::Duration;

use shakmaty::{Bitboard, Move, Piece, Position, Square, attacks};

use super::explain::{self, BaseMoves, Candidate, Evidence, Keep, piece_bit};
use super::game::SquareEvent;
use super::release::{Timing, Verdict, decide};
use super::sight;
use super::{Tracker, describe};
use crate::event::GameEvent;
use crate::time::Time;

/// The events of `earlier` and `later` in the order they were reported, each once (a
/// confirmed ply's log and the pending log may share events on the squares of a ply still
/// to be confirmed).
pub(super) fn merged(earlier: &[SquareEvent], later: &[SquareEvent]) -> Vec<SquareEvent> {
    let mut out: Vec<SquareEvent> = Vec::with_capacity(earlier.len() + later.len());
    out.extend_from_slice(earlier);
    for ev in later {
        if !earlier.contains(ev) {
            out.push(*ev);
        }
    }
    out.sort_by_key(|e| e.t);
    out
}

/// Where the piece `m` captures stood.
pub(super) fn victim_square(m: Move) -> Option<Square> {
    match m {
        Move::EnPassant { from, to } => Some(Square::from_coords(to.file(), from.rank())),
        _ => m.capture().map(|_| m.to()),
    }
}

/// How soon after the capture was confirmed its captured piece may be set down near it.
pub(super) const SET_DOWN_FRESH: Duration = Duration::from_secs(2);

/// How long a slider may rest on its way before going on, as far as a history is concerned
/// (a rest of up to 700 ms, reported up to a DGT scan late).
pub(super) const REST_AT_MOST: Duration = Duration::from_millis(1000);

/// How long a piece knocked off its square may stay off before it is put back.
const KNOCKED_AT_MOST: Duration = Duration::from_millis(2500);

/// How far from the capture square a captured piece may be set down (squares, any
/// direction).
pub(super) const SET_DOWN_NEAR: u32 = 2;

/// Whether every piece seen put down on a square that no ply of `c` touches or slides
/// across is a piece that `c` captures, set down near the capture square after its capture
/// can have begun, then taken off the board: a piece seen elsewhere, or before anything
/// could have captured it, was on the board, and a history without it is not the game
/// played.
fn strays_were_taken(
    base: &BaseMoves,
    c: &Candidate,
    evidence: &Evidence,
    slack: Duration,
) -> bool {
    let strays: Vec<(Square, u16)> = (evidence.placed & !c.reach(base.pos.turn()))
        .into_iter()
        .map(|sq| (sq, evidence.seen[sq.to_usize()]))
        .collect();
    were_taken(base, c, evidence, slack, &strays)
}

/// Whether each of the pieces `seen` put down on their squares is a piece that `c`
/// captures, set down near the capture square after its capture can have begun.
fn were_taken(
    base: &BaseMoves,
    c: &Candidate,
    evidence: &Evidence,
    slack: Duration,
    seen: &[(Square, u16)],
) -> bool {
    let first_lift = |squares: Bitboard| {
        squares
            .into_iter()
            .filter_map(|s| evidence.first_lifted_at[s.to_usize()])
            .min()
    };
    // The pieces `c` captures: which, where, and when the capture can have begun.
    let mut taken: Vec<(u16, Square, Option<Time>)> = Vec::new();
    let mut pos = base.pos.clone();
    let mut prev_start: Option<Time> = None;
    for m in c.moves() {
        let from = m.from().map_or(Bitboard::EMPTY, Bitboard::from);
        let start = first_lift(from);
        if let Some(sq) = victim_square(m)
            && let Some(piece) = pos.board().piece_at(sq)
        {
            let mut began = first_lift(from | Bitboard::from(sq));
            // A victim never seen on its square was lifted unseen: as early as the ply
            // that put it there began.
            if evidence.seen[sq.to_usize()] & piece_bit(piece) == 0 {
                began = match (began, prev_start) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
            }
            taken.push((piece_bit(piece), sq, began));
        }
        prev_start = start;
        pos.play_unchecked(m);
    }
    let after = |began: Option<Time>, put: Option<Time>| match (began, put) {
        (Some(b), Some(p)) => p + slack >= b,
        _ => true,
    };
    seen.iter().all(|&(sq, seen)| {
        let (first, last) = (
            evidence.first_placed_at[sq.to_usize()],
            evidence.changed_at[sq.to_usize()],
        );
        // Each piece seen there is one of the victims (two victims of two plies may be set
        // down on one square in turn); the first put down after its capture began, the
        // others before the square's last change.
        let near = |bit: u16| {
            taken
                .iter()
                .filter(move |&&(b, at, _)| b == bit && sq.distance(at) <= SET_DOWN_NEAR)
        };
        seen != 0
            && taken.iter().any(|&(bit, at, began)| {
                seen & bit != 0 && sq.distance(at) <= SET_DOWN_NEAR && after(began, first)
            })
            && (0..12)
                .map(|i| 1u16 << i)
                .filter(|bit| seen & bit != 0)
                .all(|bit| near(bit).any(|&(_, _, began)| after(began, last)))
    })
}

/// Whether every piece seen put down is one the history `c` accounts for there (a board
/// that tells pieces apart): a piece its plies put on that square or slide across it, the
/// piece that stood there before (put back), or a piece it captures, set down near the
/// capture after the capture can have begun. A history that leaves a piece seen on a square
/// where none of its plies could have put it (a bishop seen on b3 for seconds, in a history
/// where it went to b5) is not the game played.
///
/// `earlier` holds the pieces put down, square by square, by the ply before the history
/// (the events of a ply confirmed with the next one may be in both plies' logs).
fn placements_accounted(
    base: &BaseMoves,
    c: &Candidate,
    evidence: &Evidence,
    slack: Duration,
    earlier: &[u16; 64],
) -> bool {
    let mut put = *earlier;
    let before = base.pos.board();
    for sq in evidence.placed {
        if let Some(p) = before.piece_at(sq) {
            put[sq.to_usize()] |= piece_bit(p);
        }
    }
    let mut pos = base.pos.clone();
    for m in c.moves() {
        let turn = pos.turn();
        let mut mark = |squares: Bitboard, p: Piece| {
            for sq in squares {
                put[sq.to_usize()] |= piece_bit(p);
            }
        };
        match m {
            Move::Normal {
                role,
                from,
                to,
                promotion,
                ..
            } => {
                let line = attacks::between(from, to) | Bitboard::from(to);
                mark(line, Piece { color: turn, role });
                if let Some(r) = promotion {
                    mark(
                        Bitboard::from(to),
                        Piece {
                            color: turn,
                            role: r,
                        },
                    );
                }
            }
            Move::EnPassant { to, .. } => mark(Bitboard::from(to), turn.pawn()),
            Move::Castle { .. } => {
                let (touched, path) = explain::reach(m, turn);
                mark(touched | path, turn.king());
                mark(touched | path, turn.rook());
            }
            Move::Put { .. } => {}
        }
        pos.play_unchecked(m);
    }
    let unaccounted: Vec<(Square, u16)> = evidence
        .placed
        .into_iter()
        .map(|sq| (sq, evidence.seen[sq.to_usize()] & !put[sq.to_usize()]))
        .filter(|&(_, bits)| bits != 0)
        .collect();
    unaccounted.is_empty() || were_taken(base, c, evidence, slack, &unaccounted)
}

/// What the confirmed game leaves to doubt when histories are weighed against it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Doubt {
    /// The confirmed game does not explain the board, or only with squares tolerated as
    /// stale sensors: any history that explains it is weighed.
    Unexplained,
    /// As [`Doubt::Unexplained`], and a piece stands where the confirmed game cannot have
    /// put it: a history whose earlier plies put it there may have its last ply still
    /// under way (the opponent replying meanwhile).
    Placed,
    /// The confirmed game explains the board too (a piece of its last ply lifted again
    /// first): only the last ply may be undone, and only by a history that needs fewer
    /// plies in all than the confirmed game's explanations.
    Rival,
    /// The confirmed game explains the board, and a ply is about to be confirmed on it.
    /// Only two kinds of history are weighed: one whose confirmed plies leave a piece seen
    /// where none of them put it (however many plies it undoes), and one that undoes at
    /// most two plies, needs fewer plies in all, and whose first ply carries on the undone
    /// one along its line (a slider confirmed where it rested, the opponent's reply, and
    /// the slider's going on read as its next move).
    BeforeConfirming,
    /// The confirmed game explains the still board only with a piece in the hand: a
    /// history that undoes at most two plies and explains it with every piece down, by as
    /// many plies as it undoes, is weighed (a victim taken off first and set down for a
    /// moment, read as a rest going on).
    InHand,
}

/// One earlier position of the game and what the board says happened since.
#[derive(Debug)]
pub(super) struct History {
    /// How many confirmed plies it undoes.
    undo: usize,
    /// The position before them, with its legal moves.
    base: BaseMoves,
    /// Every lift and placement since that position, in order.
    log: Vec<SquareEvent>,
    /// The evidence of that log.
    evidence: Box<Evidence>,
    /// The cheapest explanations of the sensed board from there (all leave nothing
    /// unexplained).
    cands: Vec<Candidate>,
    /// The confirmed plies since that position, however the board is explained after them,
    /// leave a piece seen put down where none of them could have put it (a bishop that
    /// rested on f4, was confirmed there, and was then seen on g5).
    strays: bool,
}

/// The histories worth asking the release rules about, found for one state of the inputs.
#[derive(Debug, Default)]
pub(super) struct Histories {
    /// The tracker's epoch they were found for, and which explanations were kept.
    epoch: Option<(u64, Keep)>,
    /// Those whose cheapest explanation leaves nothing unexplained and starts with another
    /// ply than the confirmed one, fewest plies undone first.
    found: Vec<History>,
}

impl Tracker {
    /// Corrects the game from an earlier position when the board, as reported since then,
    /// proves other plies were played (see the module documentation): `Ok(true)` when the
    /// game was taken back to that position (the `retract`s are emitted; the caller then
    /// confirms the right plies), `Err(Some(t))` when a history may be proved at `t`.
    ///
    /// A history is weighed by its shortest explanations alone: of two readings of the same
    /// reports, the one with fewer plies played in that time is the game. `why` says what
    /// the confirmed game leaves to doubt, and so which histories are weighed ([`Doubt`]).
    pub(super) fn try_correct(&mut self, now: Time, why: Doubt) -> Result<bool, Option<Time>> {
        let rival = matches!(why, Doubt::Rival | Doubt::BeforeConfirming);
        let before_confirming = why == Doubt::BeforeConfirming;
        // A board with a piece in the hand on the confirmed game counts only explained with
        // every piece down: a piece nobody saw may be needed for that.
        self.find_histories(if why == Doubt::InHand {
            Keep::Complete
        } else {
            Keep::Cheapest
        });
        let window = self.slide_window();
        // Only where the board shows a piece the game cannot have put there may a
        // history's last ply be under way: a lift alone may be a piece knocked over.
        // (And only once the board has settled: a scan reports one square at a time.)
        let under_way = why == Doubt::Placed && self.stable_for(now, self.cfg.settle);
        let mut wake: Option<Time> = None;
        let mut chosen: Option<(usize, Move)> = None;
        for (i, h) in self.histories.found.iter().enumerate() {
            let rest = before_confirming && !h.strays;
            if rest
                && (h.undo > 2
                    || self
                        .cands
                        .iter()
                        .filter(|c| c.cost() == 0)
                        .map(|c| usize::from(c.len) + h.undo)
                        .min()
                        .is_none_or(|confirmed| {
                            h.cands
                                .iter()
                                .filter(|c| c.cost() == 0 && c.complete && c.len > 0)
                                .all(|c| usize::from(c.len) >= confirmed)
                        }))
            {
                continue;
            }
            if rival && !before_confirming && h.undo > 1 && !h.strays {
                continue;
            }
            if why == Doubt::Placed && !under_way {
                let at = self.last_change + self.cfg.settle;
                wake = Some(wake.map_or(at, |w: Time| w.min(at)));
            }
            let done = |c: &Candidate| c.complete || (under_way && c.len >= 2);
            let Some(min) = h
                .cands
                .iter()
                .filter(|c| c.cost() == 0 && done(c) && c.len > 0)
                .map(|c| c.len)
                .min()
            else {
                continue;
            };
            // With a piece in the hand: only a history that puts as many plies in place of
            // the confirmed ones, so that the lift is no new ply's beginning.
            if why == Doubt::InHand && (h.undo > 2 || usize::from(min) != h.undo) {
                continue;
            }
            // Fewer plies in all than any explanation of the confirmed game (as many do when
            // the confirmed game leaves a stray piece; a rest was weighed above).
            if rival
                && !rest
                && self.cands.iter().any(|c| {
                    c.cost() == 0
                        && if h.strays {
                            usize::from(c.len) + h.undo < usize::from(min)
                        } else {
                            c.len < min
                        }
                })
            {
                continue;
            }
            let shortest: Vec<Candidate> = h
                .cands
                .iter()
                .filter(|c| c.len <= min && (c.len == 0 || done(c)))
                .copied()
                .collect();
            // A board the game cannot explain only because pieces were lifted since its
            // last ply, read by a history only with a piece nobody saw, is a piece knocked
            // off its square until it has stayed off longer than a knocked piece does.
            if matches!(why, Doubt::Unexplained | Doubt::Placed)
                && self.log.iter().all(|e| e.after.is_none())
                && shortest.iter().all(|c| c.unseen > 0)
                && now.saturating_since(self.last_change) < KNOCKED_AT_MOST
            {
                let at = self.last_change + KNOCKED_AT_MOST;
                wake = Some(wake.map_or(at, |w: Time| w.min(at)));
                continue;
            }
            let verdict = decide(
                &shortest,
                Timing {
                    unseen_passed: 4,
                    ..self.timing_for(now, Some(h.base.turn()))
                },
                |c| self.first_moves_on(&h.base, c, &h.evidence, h.base.turn()),
                |c| h.base.first_slid(c, &h.evidence, window),
            );
            match verdict {
                Verdict::Confirm(m)
                    if self.differs_at(h.undo, m)
                        && (!rest || self.carries_on(h.undo, m, &h.evidence)) =>
                {
                    chosen = Some((i, m));
                    break;
                }
                Verdict::Wait(Some(t)) => wake = Some(wake.map_or(t, |w: Time| w.min(t))),
                _ => {}
            }
        }
        let Some((i, m)) = chosen else {
            return if wake.is_some() { Err(wake) } else { Ok(false) };
        };
        let h = self.histories.found.swap_remove(i);
        if tracing::enabled!(tracing::Level::DEBUG) {
            let cands: Vec<String> = h
                .cands
                .iter()
                .filter(|c| c.cost() == 0)
                .take(8)
                .map(describe)
                .collect();
            tracing::debug!(
                t_ms = now.as_ms_f64(),
                undo = h.undo,
                "history corrected: {}",
                cands.join("; ")
            );
        }
        self.histories = Histories::default();
        if let Some(was) = self.move_back(h.undo) {
            self.note_rest(h.base.turn(), was, m);
        }
        let strays = h.strays;
        self.take_back_to(now, h);
        if strays || why == Doubt::InHand {
            // The usual decision from there would still weigh the confirmed plies, stray
            // piece or piece in the hand and all, against the history: the history is the
            // game, so its first ply is confirmed now.
            self.explain_now();
            self.confirm(now, m);
        }
        Ok(true)
    }

    /// Whether `m` takes the piece of the confirmed ply `undo` plies back further along
    /// that ply's line, lifting it again within a rest's time of putting it down
    /// (`evidence`: the history's reports).
    fn carries_on(&self, undo: usize, m: Move, evidence: &Evidence) -> bool {
        self.move_back(undo).is_some_and(|was| {
            let at = was.to().to_usize();
            was.role() == m.role()
                && was.from().is_some()
                && was.from() == m.from()
                && super::goes_further(was, m.to())
                && match (evidence.first_placed_at[at], evidence.first_lifted_at[at]) {
                    (Some(put), Some(lifted)) => lifted <= put + REST_AT_MOST,
                    _ => false,
                }
        })
    }

    /// Whether `m` differs from the confirmed ply `undo` plies back.
    fn differs_at(&self, undo: usize, m: Move) -> bool {
        self.move_back(undo).is_some_and(|was| was != m)
    }

    /// The confirmed move `undo` plies back (1: the last).
    fn move_back(&self, undo: usize) -> Option<Move> {
        let g = self.game.as_ref()?;
        g.plies().get(g.len().checked_sub(undo)?).map(|p| p.mv)
    }

    /// Finds the histories for the current inputs, unless already found.
    fn find_histories(&mut self, keep: Keep) {
        if self.histories.epoch == Some((self.epoch, keep)) {
            return;
        }
        let mut found = Vec::new();
        if let Some(game) = &self.game
            && !game.finished
        {
            let n = game.len();
            let plies = game.plies();
            let mut log: Vec<SquareEvent> = self.log.clone();
            for undo in 1..=self.cfg.max_plies.min(n) {
                let ply = &plies[n - undo];
                // Only plies the sensors were seen playing: a ply confirmed from a
                // whole-board report or a resumed game has nothing to weigh it against.
                if ply.log.is_empty() || ply.log.iter().all(|e| e.whole) {
                    break;
                }
                log = merged(&ply.log, &log);
                let Some(pos) = game.position_at(n - undo) else {
                    break;
                };
                let base = BaseMoves::new(pos.clone());
                let evidence = Box::new(Evidence::from_log(&log));
                // What the ply before the history put down: its own events (a ply
                // confirmed with the next one may share them), and the piece it captured,
                // set down near the capture for a moment (the events of that come after
                // the ply's last).
                let mut earlier = [0u16; 64];
                if let Some(i) = (n - undo).checked_sub(1) {
                    let before = &plies[i];
                    for ev in &before.log {
                        if let Some(p) = ev.after {
                            earlier[ev.square.to_usize()] |= piece_bit(p);
                        }
                    }
                    if let (Some(role), Some(at), Some(mover)) = (
                        before.mv.capture(),
                        victim_square(before.mv),
                        game.position_at(i).map(|p| p.turn()),
                    ) {
                        let bit = piece_bit(Piece {
                            color: !mover,
                            role,
                        });
                        // Set down at once, while the capture is fresh.
                        let fresh = before.confirmed_at + SET_DOWN_FRESH;
                        for sq in Bitboard::FULL {
                            let put = evidence.first_placed_at[sq.to_usize()];
                            if sq.distance(at) <= SET_DOWN_NEAR && put.is_some_and(|t| t <= fresh) {
                                earlier[sq.to_usize()] |= bit;
                            }
                        }
                    }
                }
                let view = sight(&self.cfg, &self.sensed, Bitboard::EMPTY, &evidence);
                let mut cands = Vec::new();
                explain::explain(&base, &view, self.cfg.max_plies, keep, &mut cands);
                // A history counts only when the board shows it done: a piece in the hand
                // may be an adjustment or a knocked piece, which a history with a move
                // under way would take for a ply. A placement seen that no ply of the
                // history accounts for must be a piece the history captures, set down for a
                // moment beside the board's play.
                let slack = view.order_slack;
                let identity = self.cfg.piece_identity;
                // The confirmed plies since `base`, each the first of a complete explanation.
                let confirmed: Vec<Move> = plies[n - undo..].iter().map(|p| p.mv).collect();
                let is_confirmed_line = |c: &Candidate| {
                    c.complete
                        && c.cost() == 0
                        && usize::from(c.len) >= undo
                        && c.moves().take(undo).eq(confirmed.iter().copied())
                };
                let confirmed_seen = identity && cands.iter().any(&is_confirmed_line);
                // A history whose last ply is still under way (the opponent replying
                // meanwhile) is kept too: its earlier plies are done, and a board the game
                // cannot explain at all may be put right by them.
                cands.retain(|c| {
                    c.len == 0
                        || ((c.complete || c.len >= 2)
                            && if identity {
                                placements_accounted(&base, c, &evidence, slack, &earlier)
                            } else {
                                c.strays == 0 || strays_were_taken(&base, c, &evidence, slack)
                            })
                });
                let strays = confirmed_seen && !cands.iter().any(&is_confirmed_line);
                if tracing::enabled!(tracing::Level::TRACE) {
                    let some: Vec<String> = cands.iter().take(6).map(describe).collect();
                    tracing::trace!(undo, "history: {}", some.join("; "));
                }
                let free = cands.iter().any(|c| c.cost() == 0 && c.len > 0);
                let takeback = cands.iter().any(|c| c.cost() == 0 && c.len == 0);
                if !free || takeback {
                    continue;
                }
                // A history whose every explanation starts with the confirmed ply is the
                // one with fewer plies undone.
                if cands
                    .iter()
                    .filter(|c| c.cost() == 0)
                    .all(|c| c.first() == Some(ply.mv))
                {
                    continue;
                }
                found.push(History {
                    undo,
                    base,
                    log: log.clone(),
                    evidence,
                    cands,
                    strays,
                });
            }
        }
        self.histories = Histories {
            epoch: Some((self.epoch, keep)),
            found,
        };
    }

    /// Takes the game back to the position of `h`, retracting the plies undone (latest
    /// first), with everything the sensors reported since as the pending log.
    fn take_back_to(&mut self, now: Time, h: History) {
        let Some(game) = &mut self.game else { return };
        let n = game.len();
        let keep = n - h.undo;
        let undone: Vec<(u32, String)> = game.plies()[keep..]
            .iter()
            .enumerate()
            .map(|(i, p)| ((keep + i + 1) as u32, p.uci.clone()))
            .collect();
        game.truncate(keep);
        for (ply, uci) in undone.into_iter().rev() {
            self.emit(now, GameEvent::Retract { ply, uci });
        }
        self.log = h.log;
        self.evidence.rebuild(&self.log);
        self.base = Some(h.base);
        self.ghost = Bitboard::EMPTY;
        self.reported = Bitboard::EMPTY;
        self.corrections += 1;
        self.epoch += 1;
    }
}
