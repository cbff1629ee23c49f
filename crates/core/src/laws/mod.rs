//! The arbiter: FIDE Article 4 (touching and moving the pieces) and Article 7.5 (completed
//! illegal moves), by edition, applied to what the sensors saw.
//!
//! The board sees lifts and placements: a lift is a touch, a touch without a lift is
//! invisible, and a spoken j'adoube (4.2) is unheard. The arbiter reports what the sensors
//! prove and says in `detail` when an announced adjustment would excuse it. Its input is the
//! tracker's record of the game: for each confirmed ply, the position it was played from, the
//! move and the ordered log of lifts and placements ([`crate::tracker::game::Ply::log`]);
//! the lifts and placements of the ply being played; the sensed board. It judges a ply when
//! the tracker confirms it ([`judge`]), names a completed illegal move once the board has
//! been still for a while ([`illegal`]), follows who may still claim (4.8), and in `enforce`
//! mode holds back, through the tracker's gate ([`crate::tracker::gate`]), a move that breaks
//! 4.3/4.4, telling what is due. Article numbers come from the [`Edition`].
//!
//! It is sans-IO like the layers below it: it is handed `now` and never reads a clock. It
//! must not know how moves are recognised (explanations, release timing), protocols,
//! ports or sinks; it reads the tracker's game record, never its internals.
//!
//! - Handlers: [`Arbiter::handle_event`] (each event the tracker decided, in order),
//!   [`Arbiter::handle_view`] (after every input, and at [`Arbiter::poll_timeout`]).
//! - Polls: [`Arbiter::poll_event`] (`violation`, `claim_lapsed`, `due`),
//!   [`Arbiter::poll_timeout`].
//! - Getters: [`Arbiter::config`]; [`Arbiter::gate`] makes the tracker's gate (illegal moves
//!   in every mode, held-back moves in `enforce`).

mod config;
pub mod edition;
pub mod illegal;
mod input;
pub mod judge;
pub mod reading;

use std::collections::{HashSet, VecDeque};
use std::time::Duration;

use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{Bitboard, Board, Chess, Color, Move, Piece, Position, Square};

pub use config::{LawsConfig, TouchMove, UnknownTouchMove, View};
pub use edition::{Edition, Rule, UnknownEdition};
pub use judge::{Due, Finding, Margins, Previous, Rules};

use crate::event::{GameEvent, TimedEvent};
use crate::time::Time;
use crate::tracker::game::{Game, SquareEvent};
use crate::tracker::gate::MoveGate;
use input::{Gatekeeper, destinations, ply_input};

#[derive(Debug, Clone, Copy)]
struct OpenClaim {
    ply: u32,
    article: &'static str,
    claimant: Color,
}

/// The arbiter (see the module documentation).
#[derive(Debug)]
pub struct Arbiter {
    cfg: LawsConfig,
    events: VecDeque<TimedEvent>,
    timeout: Option<Time>,
    /// Breaches already published in this game: (ply, rule, square).
    reported: HashSet<(u32, Rule, Option<Square>)>,
    claims: Vec<OpenClaim>,
    /// The last held move looked at, with its ply.
    held_seen: Option<(u32, Move)>,
    /// Where held-back moves put their pieces in the ply being played (not 4.7: the player
    /// was told to put them back).
    withheld: Bitboard,
    /// The last confirmed move, until the opponent touches a piece (a one-ply takeback
    /// before that is the mover changing their mind: 4.7).
    last_move: Option<LastMove>,
    /// The last move taken back by its player, with how long its piece had rested: a 4.7
    /// breach once the same ply is played again with another move (a further takeback, or
    /// the same move played again, is the players taking moves back: no breach).
    taken_back: Option<(LastMove, Duration)>,
    /// The last still board looked at for a completed illegal move, with its ply.
    still_seen: Option<(u32, Board)>,
}

/// What the arbiter remembers of the last confirmed move.
#[derive(Debug, Clone, Copy)]
struct LastMove {
    ply: u32,
    mv: Move,
    /// When its last change was reported.
    placed: Time,
    /// When its piece was first lifted again, if it was.
    lifted: Option<Time>,
    piece: Piece,
    origin: Square,
    dest: Square,
    mover: Color,
}

impl Arbiter {
    /// An arbiter with this configuration.
    pub fn new(config: LawsConfig) -> Arbiter {
        Arbiter {
            cfg: config,
            events: VecDeque::new(),
            timeout: None,
            reported: HashSet::new(),
            claims: Vec::new(),
            held_seen: None,
            withheld: Bitboard::EMPTY,
            last_move: None,
            taken_back: None,
            still_seen: None,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &LawsConfig {
        &self.cfg
    }

    /// The tracker's gate ([`crate::tracker::gate`]) for this arbiter: it keeps the squares
    /// of an illegal move from being taken for stale sensors (every mode), and in `enforce`
    /// mode holds back a move that breaks 4.3 or 4.4 given the lifts and placements so far.
    pub fn gate(&self, identity: bool) -> Box<dyn MoveGate> {
        Box::new(Gatekeeper {
            enforce: self.cfg.touch_move == TouchMove::Enforce,
            rules: self.rules(identity),
        })
    }

    // ---------------------------------------------------------------- handlers

    /// An event the tracker decided, with the game as it stands after the tracker's step.
    pub fn handle_event(&mut self, event: &TimedEvent, view: &View) {
        let now = event.t;
        match &event.event {
            GameEvent::NewGame { .. } => {
                self.reported.clear();
                self.claims.clear();
                self.last_move = None;
                self.taken_back = None;
                self.new_ply();
            }
            GameEvent::Takeback { ply } => {
                self.reported.retain(|k| k.0 <= *ply);
                self.claims.retain(|c| c.ply <= *ply);
                self.new_ply();
                self.taken_back = self
                    .last_move
                    .take()
                    .filter(|last| last.ply == ply + 1)
                    .map(|last| {
                        (
                            last,
                            last.lifted.unwrap_or(now).saturating_since(last.placed),
                        )
                    })
                    .filter(|(_, rested)| *rested >= self.cfg.release);
            }
            GameEvent::Retract { ply, .. } => self.withdraw(now, *ply),
            GameEvent::Move { ply, uci, .. } => {
                let ply = *ply;
                self.lapse(now, |c| c.ply < ply, "the claimant has moved");
                let taken_back = self.taken_back.take();
                let replaced = view
                    .game
                    .and_then(|g| g.plies().get((ply as usize).saturating_sub(1)))
                    .map(|p| p.mv);
                self.judge_confirmed(now, ply, uci, view);
                if let Some((last, rested)) = taken_back.filter(|(l, _)| l.ply == ply)
                    && replaced.is_some_and(|m| m != last.mv)
                {
                    self.report_taken_back(now, last, rested);
                }
                self.new_ply();
            }
            _ => {}
        }
    }

    /// After every input and timeout: claims lost to a touch, moves held back, completed
    /// illegal moves.
    pub fn handle_view(&mut self, now: Time, view: &View) {
        self.timeout = None;
        let Some(game) = view.game else { return };
        let ply = game.len() as u32;
        if let Some(last) = &mut self.last_move
            && last.lifted.is_none()
        {
            last.lifted = view
                .pending
                .iter()
                .find(|e| e.square == last.dest && e.before.is_some())
                .map(|e| e.t);
        }
        if !self.claims.is_empty() || self.last_move.is_some() {
            let touched = claimant_touch(game.position(), view.pending);
            if touched.is_some() {
                self.last_move = None;
            }
            if let Some(colour) = touched {
                self.lapse(
                    now,
                    |c| c.ply == ply && c.claimant == colour,
                    "the claimant touched a piece",
                );
            }
        }
        if let Some(m) = view.held {
            self.judge_held(now, game, m, view);
        }
        self.check_illegal(now, game, view);
    }

    // ---------------------------------------------------------------- polls

    /// The next event decided, if any.
    pub fn poll_event(&mut self) -> Option<TimedEvent> {
        self.events.pop_front()
    }

    /// When [`Arbiter::handle_view`] should be called again, if the board stays as it is.
    pub fn poll_timeout(&self) -> Option<Time> {
        self.timeout
    }

    // ---------------------------------------------------------------- internals

    fn new_ply(&mut self) {
        self.held_seen = None;
        self.withheld = Bitboard::EMPTY;
    }

    fn article(&self, rule: Rule) -> &'static str {
        self.cfg.edition.article(rule).unwrap_or("?")
    }

    fn judge_confirmed(&mut self, now: Time, ply: u32, uci: &UciMove, view: &View) {
        if self.cfg.touch_move == TouchMove::Off {
            return;
        }
        let Some(game) = view.game else { return };
        let index = (ply as usize).saturating_sub(1);
        let (Some(p), Some(before)) = (game.plies().get(index), game.position_at(index)) else {
            return;
        };
        if p.uci != *uci {
            // Replaced within the same step; the later `move` event judges the new one.
            return;
        }
        let (events, previous) = ply_input(game, index, &p.log, p.mv, self.cfg.order_margin);
        if let Some(origin) = p.mv.from() {
            self.last_move = before.board().piece_at(origin).map(|piece| LastMove {
                ply,
                mv: p.mv,
                placed: p.log.last().map_or(p.confirmed_at, |e| e.t),
                lifted: None,
                piece,
                origin,
                dest: destinations(p.mv)
                    .into_iter()
                    .find(|&s| judge::lands(&p.mv, origin) == Some(s))
                    .unwrap_or(p.mv.to()),
                mover: before.turn(),
            });
        }
        let rules = self.rules(view.identity);
        let findings = judge::judge(&rules, before, p.mv, &events, previous);
        let withheld = self.withheld;
        let claimant = !before.turn();
        let lapsed = game.len() as u32 > ply
            || claimant_touch(game.position(), view.pending) == Some(claimant)
            || game.position_at(index + 1).is_some_and(|after| {
                !reading::carried(&p.log, after.board(), claimant, self.cfg.order_margin).is_empty()
            });
        for f in findings {
            if f.rule == Rule::ReleasedMovedOn && f.square.is_some_and(|s| withheld.contains(s)) {
                continue;
            }
            self.publish(now, ply, &f, claimant, lapsed);
        }
    }

    /// The last move was taken back by its player before the opponent touched anything,
    /// after its piece had rested long enough to count as released, and another move was
    /// then played instead: 4.7.
    fn report_taken_back(&mut self, now: Time, last: LastMove, rested: Duration) {
        if self.cfg.touch_move == TouchMove::Off {
            return;
        }
        let f = Finding {
            rule: Rule::ReleasedMovedOn,
            square: Some(last.dest),
            due: Due::Nothing,
            seen: format!(
                "{} was put down on {} (a legal move) and left there {:.1} s, then taken back \
                 to {} and another move made instead",
                judge::name(last.piece, last.origin),
                last.dest,
                rested.as_secs_f64(),
                last.origin
            ),
            adjustable: false,
        };
        self.publish(now, last.ply, &f, !last.mover, false);
    }

    fn rules(&self, identity: bool) -> Rules {
        Rules {
            margins: self.cfg.margins(),
            promotion_rule: self.cfg.edition.article(Rule::PromotedPieceFixed).is_some(),
            identity,
        }
    }

    fn judge_held(&mut self, now: Time, game: &Game, m: Move, view: &View) {
        let ply = game.len() as u32 + 1;
        if self.held_seen == Some((ply, m)) || !game.position().is_legal(m) {
            return;
        }
        self.held_seen = Some((ply, m));
        self.withheld |= destinations(m);
        let before = game.position();
        let (events, previous) =
            ply_input(game, game.len(), view.pending, m, self.cfg.order_margin);
        let findings = judge::judge(&self.rules(view.identity), before, m, &events, previous);
        for f in findings.iter().filter(|f| f.rule.enforced()) {
            self.publish(now, ply, f, !before.turn(), false);
            self.events.push_back(TimedEvent {
                t: now,
                event: GameEvent::Due {
                    ply,
                    article: self.article(f.rule).to_string(),
                    square: f.square,
                    detail: due_sentence(f, self.article(f.rule)),
                },
            });
        }
    }

    /// Ply `ply` was retracted (a misread corrected): what was reported on it and after it
    /// is withdrawn, and the plies are judged afresh when confirmed again.
    fn withdraw(&mut self, now: Time, ply: u32) {
        let mut gone: Vec<(u32, Rule, Option<Square>)> = self
            .reported
            .iter()
            .filter(|k| k.0 >= ply)
            .copied()
            .collect();
        gone.sort_by_key(|&(p, rule, square)| (p, self.article(rule), square));
        self.reported.retain(|k| k.0 < ply);
        for &(p, rule, square) in &gone {
            let article = self.article(rule);
            self.events.push_back(TimedEvent {
                t: now,
                event: GameEvent::Withdrawn {
                    ply: p,
                    article: article.to_string(),
                    square,
                    detail: format!(
                        "ply {p} was misread and has been corrected: the breach of {article} \
                         reported on it is withdrawn."
                    ),
                },
            });
        }
        self.claims.retain(|c| c.ply < ply);
        self.last_move = None;
        self.taken_back = None;
        self.new_ply();
    }

    fn publish(&mut self, now: Time, ply: u32, f: &Finding, claimant: Color, lapsed: bool) {
        if !self.reported.insert((ply, f.rule, f.square)) {
            return;
        }
        let ed = self.cfg.edition;
        let article = self.article(f.rule);
        let lapses = ed.claim_lapses(f.rule);
        let claimable = !(lapses && lapsed);
        let mut detail = format!("{} ({article})", f.seen);
        if f.adjustable {
            detail.push_str(&format!(
                ", unless j'adoube was said ({})",
                self.article(Rule::Adjust)
            ));
        }
        match f.rule {
            Rule::RookThenKing => detail.push_str("; the rook had to move instead"),
            Rule::ReleasedMovedOn => detail.push_str(
                "; the board cannot feel the hand: no breach if it never let go of the piece",
            ),
            _ => {}
        }
        detail.push('.');
        if claimable && lapses {
            self.claims.push(OpenClaim {
                ply,
                article,
                claimant,
            });
        }
        self.events.push_back(TimedEvent {
            t: now,
            event: GameEvent::Violation {
                ply,
                article: article.to_string(),
                laws: ed.name().to_string(),
                detail,
                claimable,
                square: f.square,
                uci: None,
                san: None,
            },
        });
    }

    fn lapse(&mut self, now: Time, which: impl Fn(&OpenClaim) -> bool, why: &str) {
        let rule = self.article(Rule::ClaimLapses);
        let (gone, keep): (Vec<OpenClaim>, Vec<OpenClaim>) =
            self.claims.iter().partition(|c| which(c));
        self.claims = keep;
        for c in gone {
            self.events.push_back(TimedEvent {
                t: now,
                event: GameEvent::ClaimLapsed {
                    ply: c.ply,
                    article: c.article.to_string(),
                    detail: format!(
                        "the breach of {} at ply {} can no longer be claimed: {why} ({rule})",
                        c.article, c.ply
                    ),
                },
            });
        }
    }

    fn check_illegal(&mut self, now: Time, game: &Game, view: &View) {
        let pos = game.position();
        let Some(last) = view.pending.last() else {
            return;
        };
        let differs = if view.identity {
            view.sensed != pos.board()
        } else {
            view.sensed.occupied() != pos.board().occupied()
        };
        if !differs {
            return;
        }
        let still_at = last.t + self.cfg.still;
        if now < still_at {
            self.timeout = Some(still_at);
            return;
        }
        let ply = game.len() as u32 + 1;
        if self
            .still_seen
            .as_ref()
            .is_some_and(|(p, b)| *p == ply && b == view.sensed)
        {
            return;
        }
        self.still_seen = Some((ply, view.sensed.clone()));
        let Some(m) = illegal::illegal_move_shown(pos, view.sensed, view.identity) else {
            return;
        };
        let target = match m {
            Move::Castle { king, rook } => Square::from_coords(
                shakmaty::CastlingSide::from_queen_side(rook < king).king_to_file(),
                king.rank(),
            ),
            _ => m.to(),
        };
        let key = (ply, Rule::IllegalMove, Some(target));
        if self.reported.contains(&key) {
            return;
        }
        self.reported.insert(key);
        self.withheld |= destinations(m);
        let uci = m.to_uci(game.mode());
        let article = self.article(Rule::IllegalMove);
        self.events.push_back(TimedEvent {
            t: now,
            event: GameEvent::Violation {
                ply,
                article: article.to_string(),
                laws: self.cfg.edition.name().to_string(),
                detail: format!(
                    "{uci} was completed but is illegal: {} ({article}); the game stays at ply \
                     {} until the position is put right or a legal move replaces it.",
                    illegal::why(pos, m),
                    ply - 1
                ),
                claimable: true,
                square: Some(target),
                uci: Some(uci),
                san: Some(San::from_move(pos, m)),
            },
        });
    }
}

/// The colour of the side to move in `pos`, if the lifts since the last confirmed ply show
/// it touched one of its own pieces (a lift of the other side's pieces may be the player who
/// just moved, or a capture: that is decided when the next move is confirmed).
fn claimant_touch(pos: &Chess, pending: &[SquareEvent]) -> Option<Color> {
    let side = pos.turn();
    pending
        .iter()
        .filter(|e| e.before.is_some())
        .any(|e| {
            pos.board()
                .piece_at(e.square)
                .is_some_and(|p| p.color == side)
        })
        .then_some(side)
}

/// What is due, for people.
fn due_sentence(f: &Finding, article: &str) -> String {
    use judge::name;
    let what = match f.due {
        Due::Move(sq, p) => format!("move {}", name(p, sq)),
        Due::Capture(sq, p) => format!("capture {}", name(p, sq)),
        Due::CaptureWith { with, target } => format!(
            "capture {} with {}",
            name(target.1, target.0),
            name(with.1, with.0)
        ),
        Due::Castle(side) => format!(
            "castle on the {}",
            if side.is_king_side() {
                "king's side"
            } else {
                "queen's side"
            }
        ),
        Due::NoCastling(_, rook) => {
            format!("move the rook on {rook} (castling that way is not allowed now)")
        }
        Due::KingMove(sq) => format!("make another legal move with the king on {sq}"),
        Due::PromoteTo(role) => format!("promote to the {} first chosen", judge::role_name(role)),
        Due::Nothing => "put the position right".to_string(),
    };
    format!("put the pieces back, then {what} ({article})")
}
