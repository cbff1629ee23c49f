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

use shakmaty::uci::UciMove;
use shakmaty::{Bitboard, Chess, Color, Move, Piece, Position, Square, attacks};

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

/// Whether a ply of `line` moves a piece again from a square an earlier ply of it put a
/// piece on, or puts a piece where an earlier one left (a king and a rook moved in turn, as
/// a castling would). Only such a line can be read in fewer plies.
fn builds_on(line: &[Move]) -> bool {
    let lands = |m: &Move| match m {
        // Either side's castling squares: a castling ply puts pieces on its rank.
        Move::Castle { .. } => {
            explain::reach(*m, Color::White).0 | explain::reach(*m, Color::Black).0
        }
        _ => Bitboard::from(m.to()),
    };
    let from = |m: &Move| match m {
        Move::Castle { king, rook } => Bitboard::from(*king) | Bitboard::from(*rook),
        _ => m.from().map_or(Bitboard::EMPTY, Bitboard::from),
    };
    line.iter().enumerate().any(|(j, later)| {
        line[..j].iter().any(|earlier| {
            (lands(earlier) & from(later)).any() || (from(earlier) & lands(later)).any()
        })
    })
}

/// How many plies back a history may start that the confirmed game is weighed against
/// before a ply is confirmed, when that game leaves no piece stray: a rest confirmed as a
/// move, and the opponent's reply meanwhile.
const BEFORE_CONFIRMING_UNDO: usize = 2;

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
    were_taken(&base.pos, c.moves(), evidence, slack, &strays)
}

/// Whether each of the pieces `seen` put down on their squares is a piece that `c`
/// captures, set down near the capture square after its capture can have begun.
fn were_taken(
    base: &Chess,
    moves: impl Iterator<Item = Move>,
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
    let mut pos = base.clone();
    let mut prev_start: Option<Time> = None;
    for m in moves {
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
    base: &Chess,
    moves: impl Iterator<Item = Move> + Clone,
    evidence: &Evidence,
    slack: Duration,
    earlier: &[u16; 64],
) -> bool {
    let mut put = *earlier;
    let before = base.board();
    for sq in evidence.placed {
        if let Some(p) = before.piece_at(sq) {
            put[sq.to_usize()] |= piece_bit(p);
        }
    }
    let mut pos = base.clone();
    for m in moves.clone() {
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
    unaccounted.is_empty() || were_taken(base, moves, evidence, slack, &unaccounted)
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

/// An earlier position of the game a history may start from, and what the board says
/// happened since.
struct Start {
    /// How many confirmed plies it undoes.
    undo: usize,
    /// The position.
    pos: Chess,
    /// Every lift and placement since, in order.
    log: Vec<SquareEvent>,
    /// The evidence of that log.
    evidence: Box<Evidence>,
    /// The pieces the ply before it put down, square by square (see
    /// [`placements_accounted`]).
    earlier: [u16; 64],
}

/// The histories worth asking the release rules about, found for one state of the inputs.
#[derive(Debug, Default)]
pub(super) struct Histories {
    /// The tracker's epoch they were found for, which explanations were kept, and how many
    /// plies back at most.
    epoch: Option<(u64, Keep, usize)>,
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
        let keep = if matches!(why, Doubt::InHand | Doubt::Unexplained | Doubt::Placed) {
            Keep::Complete
        } else {
            Keep::Cheapest
        };
        // Weighed against the confirmed game by its length (a rest confirmed as a move, the
        // opponent replying meanwhile), histories further back than one that moves a piece
        // again are weighed only when the confirmed game leaves a piece stray (most plies:
        // none, and the search from far back is the costliest).
        // The earlier positions, worked out once for that check and the search.
        let mut starts = None;
        let deepest = match why {
            Doubt::BeforeConfirming | Doubt::Rival => {
                let free: Vec<&Candidate> = self.cands.iter().filter(|c| c.cost() == 0).collect();
                let lines: Vec<Vec<Move>> = free.iter().map(|c| c.moves().collect()).collect();
                let all = self
                    .cfg
                    .piece_identity
                    .then(|| self.starts(self.cfg.max_plies));
                let strays = !self.confirmed_accounts_for_placements(all.as_deref(), &lines);
                starts = all;
                let this = &*self;
                // A reading whose last ply is under way leaves its piece in the hand: a
                // shorter history may put it down, so it bounds nothing.
                let reach = |cap: usize| {
                    free.iter().zip(&lines).map(move |(c, l)| {
                        if c.complete {
                            this.moved_again_within(l, cap)
                        } else {
                            cap
                        }
                    })
                };
                if lines.is_empty() || strays {
                    self.cfg.max_plies
                } else if before_confirming {
                    reach(BEFORE_CONFIRMING_UNDO).max().unwrap_or(0)
                } else {
                    // Fewer plies in all than every reading of the confirmed game.
                    reach(1).min().unwrap_or(0)
                }
            }
            _ => self.cfg.max_plies,
        };
        self.find_histories(keep, deepest, starts);
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
                && (h.undo > BEFORE_CONFIRMING_UNDO
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
            // the confirmed ones, so that the lift is no new ply's beginning; or one more,
            // with no piece nobody saw, where the ply the hand holds is that one played
            // (a capture whose victim was set down and read as a move, then taken off).
            let one_more = usize::from(min) == h.undo + 1
                && h.cands
                    .iter()
                    .filter(|c| c.cost() == 0 && done(c) && c.len == min)
                    .all(|c| c.unseen == 0);
            if why == Doubt::InHand && (h.undo > 2 || (usize::from(min) != h.undo && !one_more)) {
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
                && (self.log.iter().all(|e| e.after.is_none())
                    || self.lifted_where_no_move_begins())
                && shortest.iter().all(|c| c.unseen > 0)
                && now.saturating_since(self.last_change) < KNOCKED_AT_MOST
            {
                let at = self.last_change + KNOCKED_AT_MOST;
                wake = Some(wake.map_or(at, |w: Time| w.min(at)));
                continue;
            }
            let verdict = decide(
                &shortest,
                if matches!(why, Doubt::Unexplained | Doubt::Placed) {
                    Timing {
                        unseen_passed: 4,
                        unseen_history: true,
                        ..self.timing_for(now, Some(h.base.turn()))
                    }
                } else {
                    Timing {
                        unseen_passed: 4,
                        ..self.timing_for(now, Some(h.base.turn()))
                    }
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

    /// Whether the cheapest reading of the board on the game leaves unexplained only
    /// squares now empty, nothing put on them since the game's last ply, where no legal
    /// move after that reading begins (a piece of the side to move that cannot move, in
    /// check say, or one the side to move cannot take), and nothing put down since the
    /// first of them was lifted: pieces knocked off, not plies.
    fn lifted_where_no_move_begins(&self) -> bool {
        let (Some(base), Some(cheapest)) =
            (&self.base, self.cands.iter().map(Candidate::cost).min())
        else {
            return false;
        };
        cheapest > 0
            && self.cands.iter().any(|c| {
                if c.cost() != cheapest {
                    return false;
                }
                // Nothing put down since (play going on is no piece lying knocked over), and
                // nothing put on those squares before.
                let first_lift = self
                    .log
                    .iter()
                    .position(|e| c.unexplained.contains(e.square) && e.after.is_none());
                if first_lift.is_none_or(|i| self.log[i..].iter().any(|e| e.after.is_some()))
                    || self
                        .log
                        .iter()
                        .any(|e| c.unexplained.contains(e.square) && e.after.is_some())
                    || (c.unexplained & self.sensed.occupied()).any()
                {
                    return false;
                }
                let mut pos = base.pos.clone();
                for m in c.moves() {
                    pos = match pos.play(m) {
                        Ok(p) => p,
                        Err(_) => return false,
                    };
                }
                let moves = pos.legal_moves();
                c.unexplained.into_iter().all(|sq| {
                    pos.board().piece_at(sq).is_some()
                        && !moves.iter().any(|m| m.from() == Some(sq) || m.to() == sq)
                })
            })
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

    /// The earlier positions a history may start from, fewest plies undone first, at most
    /// `deepest` plies back: only plies the sensors were seen playing (a ply confirmed from
    /// a whole-board report or a resumed game has nothing to weigh it against).
    fn starts(&self, deepest: usize) -> Vec<Start> {
        let mut out = Vec::new();
        let Some(game) = self.game.as_ref().filter(|g| !g.finished) else {
            return out;
        };
        let n = game.len();
        let plies = game.plies();
        let mut log: Vec<SquareEvent> = self.log.clone();
        for undo in 1..=self.cfg.max_plies.min(n).min(deepest) {
            let ply = &plies[n - undo];
            if ply.log.is_empty() || ply.log.iter().all(|e| e.whole) {
                break;
            }
            log = merged(&ply.log, &log);
            let Some(pos) = game.position_at(n - undo) else {
                break;
            };
            let evidence = Box::new(Evidence::from_log(&log));
            // What the ply before the history put down: its own events (a ply confirmed
            // with the next one may share them), and the piece it captured, set down near
            // the capture for a moment (the events of that come after the ply's last).
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
            out.push(Start {
                undo,
                pos: pos.clone(),
                log: log.clone(),
                evidence,
                earlier,
            });
        }
        out
    }

    /// Whether the confirmed plies since each earlier position a history may start from,
    /// followed by one of `pending` (the readings of the plies since), account for every
    /// piece seen put down (see [`placements_accounted`]). Where they do, no history finds
    /// a piece the confirmed game leaves stray. A line longer than the search's depth is
    /// not weighed as the confirmed game there, and so counts as accounted.
    ///
    /// `starts`: [`Tracker::starts`] as far back as the search goes (`None` on a board
    /// that does not tell pieces apart, where no piece is stray).
    fn confirmed_accounts_for_placements(
        &self,
        starts: Option<&[Start]>,
        pending: &[Vec<Move>],
    ) -> bool {
        let (Some(game), Some(starts)) = (&self.game, starts) else {
            return true;
        };
        let slack = self.slide_window();
        let n = game.len();
        pending.iter().any(|line| {
            starts.iter().all(|st| {
                st.undo + line.len() > self.cfg.max_plies.min(explain::MAX_PLIES)
                    || placements_accounted(
                        &st.pos,
                        game.plies()[n - st.undo..]
                            .iter()
                            .map(|p| p.mv)
                            .chain(line.iter().copied()),
                        &st.evidence,
                        slack,
                        &st.earlier,
                    )
            })
        })
    }

    /// The most confirmed plies back, up to `cap`, from which the
    /// confirmed plies followed by `pending` move a piece again from a square a ply of
    /// theirs put it on, or put a piece where one of theirs left (a king and a rook moved
    /// in turn, as a castling would): 0 when none does. A line where no ply builds on
    /// another that way has no shorter history: each of its plies changes squares no other
    /// ply changes.
    fn moved_again_within(&self, pending: &[Move], cap: usize) -> usize {
        let Some(game) = &self.game else { return 0 };
        let n = game.len();
        (1..=cap.min(n))
            .rev()
            .find(|&undo| {
                let line: Vec<Move> = game.plies()[n - undo..]
                    .iter()
                    .map(|p| p.mv)
                    .chain(pending.iter().copied())
                    .collect();
                builds_on(&line)
            })
            .unwrap_or(0)
    }

    /// Finds the histories for the current inputs from at most `deepest` plies back,
    /// unless already found.
    /// `starts`: [`Tracker::starts`] already worked out for these inputs, if any (those
    /// further back than `deepest` are left out).
    fn find_histories(&mut self, keep: Keep, deepest: usize, starts: Option<Vec<Start>>) {
        if self.histories.epoch == Some((self.epoch, keep, deepest)) {
            return;
        }
        let mut starts = starts.unwrap_or_else(|| self.starts(deepest));
        starts.retain(|st| st.undo <= deepest);
        let mut found = Vec::new();
        if let Some(game) = &self.game
            && !game.finished
        {
            let n = game.len();
            let plies = game.plies();
            for Start {
                undo,
                pos,
                log,
                evidence,
                earlier,
            } in starts
            {
                let ply = &plies[n - undo];
                let base = BaseMoves::new(pos);
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
                                placements_accounted(
                                    &base.pos,
                                    c.moves(),
                                    &evidence,
                                    slack,
                                    &earlier,
                                )
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
                    log,
                    evidence,
                    cands,
                    strays,
                });
            }
        }
        self.histories = Histories {
            epoch: Some((self.epoch, keep, deepest)),
            found,
        };
    }

    /// Takes the game back to the position of `h`, retracting the plies undone (latest
    /// first), with everything the sensors reported since as the pending log.
    fn take_back_to(&mut self, now: Time, h: History) {
        let Some(game) = &mut self.game else { return };
        let n = game.len();
        let keep = n - h.undo;
        let undone: Vec<(u32, UciMove)> = game.plies()[keep..]
            .iter()
            .enumerate()
            .map(|(i, p)| ((keep + i + 1) as u32, p.uci))
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

#[cfg(test)]
mod tests {
    use shakmaty::uci::UciMove;
    use shakmaty::{Chess, Position};

    use super::builds_on;

    /// The moves of `ucis` played in turn from the start position.
    fn line(ucis: &[&str]) -> Vec<shakmaty::Move> {
        let mut pos = Chess::default();
        ucis.iter()
            .map(|u| {
                let m = u.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
                pos.play_unchecked(m);
                m
            })
            .collect()
    }

    #[test]
    fn only_a_line_where_a_piece_moves_again_can_be_read_in_fewer_plies() {
        // Bd3 then Bc4 is Bc4 in one ply.
        assert!(builds_on(
            &line(&["e2e4", "e7e5", "f1d3", "g8f6", "d3c4"])[2..]
        ));
        // Three pieces moved once each: no ply to spare.
        assert!(!builds_on(&line(&["e2e4", "e7e5", "g1f3"])));
        // A capture and its recapture move two pieces once each.
        assert!(!builds_on(&line(&["e2e4", "d7d5", "e4d5", "d8d5"])[1..3]));
        // A piece put where another of its side left (as a castling's king and rook do).
        assert!(builds_on(&line(&["g1f3", "e7e5", "h1g1"])));
    }
}
