//! The move tracker: from sensed square changes with their times to the moves really played.
//!
//! The tracker keeps two things: the confirmed game position, and the sensed board. Whatever
//! differs between them must be explained by a short sequence of legal moves from the
//! confirmed position (one ply usually, up to four when play is fast or after a reconnect):
//! each lifted square is a from-square or a captured piece, each placed square a to-square,
//! and a piece resting on the line it slides along is in *transit* ([`explain`]). A ply is
//! confirmed when every remaining explanation agrees on it, it is complete (FIDE 4.7), and it
//! is released ([`release`]): the opponent started a move, the piece cannot be moving on,
//! the board settled for the settle window, or the clock lever was pressed. Slides, captures
//! in any order, castling either way round (Chess960 too), en passant, promotions in any
//! order and fast replies are one mechanism, not a special case each.
//!
//! Boards report late and miss brief states: a DGT board scans its fields one after
//! another, so a slide's last square may be reported after the opponent's lift, and a piece
//! taken again within one scan may never be reported. The tracker is told the board's
//! sensor lag ([`TrackerConfig::sensor_lag`]): a piece that could still be sliding on counts
//! as released by the opponent or the clock only once its squares have stood still that
//! long, and plies keep their order within it. An explanation that needs a piece nobody saw
//! is taken only when nothing else explains the board and the board has settled. A
//! whole-board report after a reconnect has no order of its own: its changes came before
//! anything reported after it, but at any time after what was reported before the link
//! went (a ply begun then may have ended while the board was away). A board that is exactly
//! the position after a few plies is explained by the shortest legal sequences leading
//! there ([`jump`]).
//!
//! It also recognises game starts ([`start`]), takebacks (the board back in an earlier
//! position of the game), retracts (a confirmed move whose piece moves on before the
//! opponent touched anything), mismatches (a board nothing legal explains: reported once,
//! and the game goes on when the pieces are put right; squares whose sensors stay wrong are
//! tolerated as *ghosts* so that the game goes on meanwhile) and the result gesture
//! ([`gesture`]).
//!
//! It is sans-IO in the style of quinn-proto: it is handed the time with every input and
//! never reads a clock, does no IO, and knows nothing of protocols, serial ports or sinks.
//!
//! - Handlers: [`Tracker::handle_board`] (a full sensed placement: the first report, a dump
//!   after a reconnect), [`Tracker::handle_change`] (one square changed),
//!   [`Tracker::handle_clock_press`] (the clock lever changed side), and
//!   [`Tracker::handle_timeout`].
//! - Polls: [`Tracker::poll_event`] (the next [`TimedEvent`]: `new_game`, `move`,
//!   `retract`, `takeback`, `mismatch`, `result`) and [`Tracker::poll_timeout`] (when to
//!   call `handle_timeout` next).
//! - Getters: [`Tracker::position`], [`Tracker::ply`], [`Tracker::sensed`],
//!   [`Tracker::game`] (the plies with their UCI, SAN, FEN and per-ply sensor log, for PGN,
//!   UCI and the arbiter), [`Tracker::pending_log`], [`Tracker::chess960`],
//!   [`Tracker::ghosts`], [`Tracker::config`].

mod command;
mod correct;
pub mod explain;
pub mod game;
pub mod gate;
pub mod gesture;
pub mod jump;
pub mod release;
pub mod start;

use std::collections::VecDeque;
use std::time::Duration;

use shakmaty::uci::UciMove;
use shakmaty::{
    Bitboard, Board, Chess, Color, KnownOutcome, Move, Position, Role, Square, attacks,
};

use crate::event::{GameEvent, TimedEvent};
use crate::sensing::SquareChange;
use crate::time::Time;

use correct::Doubt;
use explain::{BaseMoves, Candidate, Evidence, Keep, MAX_PLIES, Sight, diff};
use game::{Game, SquareEvent};
use release::{Timing, Verdict, decide};
use start::{Start, recognise};

/// How the tracker decides.
#[derive(Debug, Clone, PartialEq)]
pub struct TrackerConfig {
    /// How long the board must stay still for a placed piece to count as released. The
    /// default, 260 ms, is above the longest pause between two sensor reports of one slide
    /// (a DGT board scans its squares in 200–250 ms, so a piece resting on a transit square
    /// for one scan can stand 250 ms between reports), so a slide's transit squares are not
    /// confirmed. Most moves are confirmed sooner, when their piece cannot be moving on.
    pub settle: Duration,
    /// How stale the board's report of a square may be (the board's scan): a piece put down
    /// where a longer move of it passes counts as released by the opponent's reach or the
    /// clock press only once its squares have stood still this long, since a slide's last
    /// square may be reported after the opponent's lift. `None`: no lag (an ideal sensor);
    /// the board core sets the protocol's ([`crate::protocol::Protocol::sensor_lag`]).
    pub sensor_lag: Option<Duration>,
    /// How long a complete move waits while an unfinished move could still extend it (the
    /// rook of a castling put down before the king is touched), unless the clock or the
    /// opponent proves it sooner.
    pub ambiguity: Duration,
    /// How long a piece that slid onto a square where a longer move of it passes may rest
    /// there before the move counts as released (unless the opponent or the clock proves it
    /// sooner): a hand sliding a piece may stop on the way, the hand still on it, and go on.
    pub slide_rest: Duration,
    /// Which players' slid pieces wait the slide rest.
    pub slide_rests: SlideRests,
    /// How long the board must stay unexplained before a `mismatch` is reported.
    pub mismatch_after: Duration,
    /// Whether the board reports which piece stands on a square (DGT, Millennium). `false`
    /// for occupancy-only boards: the pieces reported are placeholders.
    pub piece_identity: bool,
    /// The piece an occupancy-only board promotes to.
    pub promotion_default: Role,
    /// A set-up start (full FEN); else the standard or any Chess960 start seen on the board
    /// starts a game.
    pub start_fen: Option<String>,
    /// The longest sequence of plies a board jump is explained by (at most 4).
    pub max_plies: usize,
}

/// The settle window unless configured otherwise: the shortest that keeps the accuracy
/// benchmark from confirming a slide's transit square on either board type (see the
/// README's figures).
pub const DEFAULT_SETTLE: Duration = Duration::from_millis(260);

/// Which players' slid pieces wait the slide rest ([`TrackerConfig::slide_rest`]) before
/// their move counts as released.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SlideRests {
    /// None: a slid piece is released when the board settles, as any other; a rest on the
    /// way is confirmed and then corrected when the piece goes on.
    Never,
    /// A player's, once the player has been seen, in this game, to rest a piece on its way
    /// (a move confirmed, then continued by the same piece along its line): one correction,
    /// then the player's slides are waited for. Players who slide without resting lose no
    /// time.
    #[default]
    Learned,
    /// Every player's, from the first move: no rest on the way is ever confirmed, and every
    /// slide that stops where its piece could go on waits the slide rest.
    Always,
}

impl SlideRests {
    /// Every setting, from the one that waits least.
    pub const ALL: [SlideRests; 3] = [SlideRests::Never, SlideRests::Learned, SlideRests::Always];

    /// The setting's name in configuration files.
    pub fn as_str(self) -> &'static str {
        match self {
            SlideRests::Never => "never",
            SlideRests::Learned => "learned",
            SlideRests::Always => "always",
        }
    }

    /// Whose slides wait, in a few words (`--help`).
    pub fn whose(self) -> &'static str {
        match self {
            SlideRests::Never => "Nobody's",
            SlideRests::Learned => "A player's once seen resting a piece on its way",
            SlideRests::Always => "Everybody's, from the first move",
        }
    }
}

/// A slide-rests name that is not one of `never`, `learned`, `always`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown slide-rests {0:?} (expected never, learned or always)")]
pub struct UnknownSlideRests(pub String);

// Read by name (`never`, `learned`, `always`), as the configuration file writes it.
crate::deserialize_from_str!(SlideRests);

impl std::str::FromStr for SlideRests {
    type Err = UnknownSlideRests;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SlideRests::ALL
            .into_iter()
            .find(|w| w.as_str() == s.trim())
            .ok_or_else(|| UnknownSlideRests(s.to_string()))
    }
}

/// The slide rest unless configured otherwise: above the longest rest of a hand on a slid
/// piece on its way (700 ms), and a scan.
pub const DEFAULT_SLIDE_REST: Duration = Duration::from_millis(800);

impl Default for TrackerConfig {
    fn default() -> Self {
        TrackerConfig {
            settle: DEFAULT_SETTLE,
            sensor_lag: None,
            ambiguity: Duration::from_millis(1200),
            slide_rest: DEFAULT_SLIDE_REST,
            slide_rests: SlideRests::Learned,
            mismatch_after: Duration::from_millis(1000),
            piece_identity: true,
            promotion_default: Role::Queen,
            start_fen: None,
            max_plies: MAX_PLIES,
        }
    }
}

/// A configuration or a game the tracker cannot work with.
#[derive(Debug, thiserror::Error)]
pub enum TrackerError {
    /// The start FEN does not parse or is not a legal position.
    #[error("start FEN: {0}")]
    StartFen(#[from] crate::game::start::FenError),
    /// A move of a game to resume is not legal where it stands.
    #[error("move {number} ({uci}) of the game to resume is not legal")]
    ResumedMove {
        /// Which move, from 1.
        number: usize,
        /// The move as given.
        uci: UciMove,
    },
}

/// The move tracker (see the module documentation).
#[derive(Debug)]
pub struct Tracker {
    cfg: TrackerConfig,
    fixed_start: Option<Start>,
    game: Option<Game>,
    base: Option<BaseMoves>,
    sensed: Board,
    seen: bool,
    last_change: Time,
    clock_at: Option<Time>,
    log: Vec<SquareEvent>,
    evidence: Box<Evidence>,
    ghost: Bitboard,
    events: VecDeque<TimedEvent>,
    timeout: Option<Time>,
    cands: Vec<Candidate>,
    reported: Bitboard,
    gate: gate::Gate,
    /// Counts every change to what the explanations depend on (the sensed board, the
    /// evidence, the base position, the ghosts), so that a timeout with nothing changed
    /// reuses the candidates found before.
    epoch: u64,
    explained: Option<u64>,
    /// Earlier positions of the game that explain the board (history correction).
    histories: correct::Histories,
    /// Histories rewritten since the tracker was made.
    corrections: u64,
    /// The sides (by [`Color`] index: white 0) seen, in this game, to rest a piece on its
    /// way: a move confirmed and then continued along its line by the same piece.
    rests_on_way: [bool; 2],
    /// The last takeback, while no ply has been confirmed since: the game length it went
    /// back to, and every lift and placement of the plies it undid and of the ply then
    /// under way, in order. A captured piece set down on the square its capturer's victim
    /// came from looks like a takeback for a moment; the board that follows shows it was
    /// not one.
    taken_back: Option<(usize, Vec<SquareEvent>)>,
    /// The first ply every explanation of the board agreed on, while those explanations
    /// filled the search's depth (the game length it follows, and the ply): one more ply
    /// played quickly puts the board beyond the search, and that ply is then the game.
    at_horizon: Option<(usize, Move)>,
}

/// Whether a move of the piece `was` moved, from where `was` started to `to`, passes over
/// the square `was` ended on: the piece going further along its line.
fn goes_further(was: Move, to: Square) -> bool {
    was.from()
        .is_some_and(|from| attacks::between(from, to).contains(was.to()))
}

/// What the search for explanations sees, made the same way for every search.
fn sight<'a>(
    cfg: &TrackerConfig,
    sensed: &'a Board,
    ghost: Bitboard,
    evidence: &'a Evidence,
) -> Sight<'a> {
    Sight {
        sensed,
        identity: cfg.piece_identity,
        ghost,
        evidence,
        promotion_default: cfg.promotion_default,
        order_slack: explain::order_slack(cfg.sensor_lag),
    }
}

/// One candidate as the tracker's logs show it: its moves, cost, ghosted, unseen and
/// stray counts, the squares it leaves unexplained, and whether its last move rests on a
/// transit square or is complete.
fn describe(c: &Candidate) -> String {
    let moves: Vec<String> = c.moves().map(|m| m.to_string()).collect();
    let unexplained: Vec<String> = c.unexplained.into_iter().map(|s| s.to_string()).collect();
    format!(
        "[{}] cost {} g{} u{} s{} unexplained {:?}{}{}",
        moves.join(" "),
        c.cost(),
        c.ghosted,
        c.unseen,
        c.strays,
        unexplained,
        if c.transit { " transit" } else { "" },
        if c.complete { " complete" } else { "" },
    )
}

/// Squares tolerated as stale sensors at most (one broken sensor).
const MAX_GHOSTS: usize = 1;

/// How long a piece may stay in the hand, the board otherwise still, before a history that
/// explains the board with every piece down is weighed against the confirmed game.
const HELD_LONG: Duration = Duration::from_millis(1000);

/// A captured piece lifted off and set down beside takes the hand at least this long from
/// one square to the other; a slide going on from a square of its line, much less.
const SET_DOWN_AFTER: Duration = Duration::from_millis(300);

/// A piece moved by one hand is put down within this long of its lift 49 times in 50; a
/// piece the opponent lifted off the square it went to and set down beside arrives later.
const UNSEEN_SET_DOWN_AIR: Duration = Duration::from_millis(560);

/// A ply's piece reported put down this long after the next ply's first lift still ended
/// in turn, as far as telling readings apart goes (the order of one scan).
const IN_TURN_SLACK: Duration = Duration::from_millis(100);

/// Events kept in the pending log at most (a board left alone with pieces being shuffled).
const MAX_LOG: usize = 4096;

impl Tracker {
    /// A tracker with this configuration. An unusable `start_fen` is ignored (the board's
    /// start position is then awaited); use [`Tracker::try_new`] to be told.
    pub fn new(config: TrackerConfig) -> Self {
        match Self::try_new(config.clone()) {
            Ok(t) => t,
            Err(e) => {
                tracing::warn!("{e}; waiting for a start position on the board instead");
                Self::try_new(TrackerConfig {
                    start_fen: None,
                    ..config
                })
                .unwrap_or_else(|_| Self::build(TrackerConfig::default(), None))
            }
        }
    }

    /// A tracker with this configuration, or why it cannot be built.
    pub fn try_new(config: TrackerConfig) -> Result<Self, TrackerError> {
        let fixed = match &config.start_fen {
            Some(fen) => Some(Start::from_fen(fen)?),
            None => None,
        };
        Ok(Self::build(config, fixed))
    }

    fn build(mut cfg: TrackerConfig, fixed_start: Option<Start>) -> Self {
        cfg.max_plies = cfg.max_plies.clamp(1, MAX_PLIES);
        Tracker {
            cfg,
            fixed_start,
            game: None,
            base: None,
            sensed: Board::empty(),
            seen: false,
            last_change: Time::ZERO,
            clock_at: None,
            log: Vec::new(),
            evidence: Box::default(),
            ghost: Bitboard::EMPTY,
            events: VecDeque::new(),
            timeout: None,
            cands: Vec::new(),
            reported: Bitboard::EMPTY,
            gate: gate::Gate::default(),
            epoch: 0,
            explained: None,
            histories: correct::Histories::default(),
            corrections: 0,
            rests_on_way: [false; 2],
            taken_back: None,
            at_horizon: None,
        }
    }

    // ---------------------------------------------------------------- getters

    /// The configuration.
    pub fn config(&self) -> &TrackerConfig {
        &self.cfg
    }

    /// The confirmed position, once a game has started.
    pub fn position(&self) -> Option<&Chess> {
        self.game.as_ref().map(Game::position)
    }

    /// The number of confirmed plies of the current game.
    pub fn ply(&self) -> u32 {
        self.game.as_ref().map_or(0, |g| g.len() as u32)
    }

    /// The sensed board (placeholder pieces on occupancy-only boards).
    pub fn sensed(&self) -> &Board {
        &self.sensed
    }

    /// The current game: start, confirmed plies (UCI, SAN, FEN, sensor log), positions.
    pub fn game(&self) -> Option<&Game> {
        self.game.as_ref()
    }

    /// Whether the current game uses Chess960 castling.
    pub fn chess960(&self) -> bool {
        self.game.as_ref().is_some_and(|g| g.start().chess960)
    }

    /// The lifts and placements since the last confirmed ply, in order: the ply being
    /// played (for the arbiter).
    pub fn pending_log(&self) -> &[SquareEvent] {
        &self.log
    }

    /// Squares whose sensors disagree with the game and are tolerated as stale.
    pub fn ghosts(&self) -> Bitboard {
        self.ghost
    }

    /// How many times a misread history was corrected (confirmed plies retracted and
    /// replaced by the ones the board proves).
    pub fn corrections(&self) -> u64 {
        self.corrections
    }

    // ---------------------------------------------------------------- handlers

    /// A full sensed placement: the first report, or a dump after a reconnect. The squares
    /// that differ from the sensed board are taken as changed now, in no particular order.
    pub fn handle_board(&mut self, now: Time, board: &Board) {
        let changed = diff(&self.sensed, board, self.cfg.piece_identity)
            | if self.seen {
                Bitboard::EMPTY
            } else {
                Bitboard::FULL
            };
        for sq in changed {
            let before = self.sensed.piece_at(sq);
            let after = board.piece_at(sq);
            if self.seen && self.same(before, after) {
                continue;
            }
            self.record(now, sq, before, after, true);
        }
        self.sensed = board.clone();
        self.epoch += 1;
        self.seen = true;
        self.evaluate(now, true);
    }

    /// One square changed. A repeated report of what the square already shows is ignored.
    pub fn handle_change(&mut self, now: Time, change: SquareChange) {
        let sq = change.square;
        let before = self.sensed.piece_at(sq);
        if self.seen && self.same(before, change.piece) {
            return;
        }
        match change.piece {
            Some(p) => self.sensed.set_piece_at(sq, p),
            None => self.sensed.discard_piece_at(sq),
        }
        self.record(now, sq, before, change.piece, false);
        self.seen = true;
        self.evaluate(now, false);
    }

    /// The clock lever changed side: the player who pressed it has released their pieces.
    pub fn handle_clock_press(&mut self, now: Time) {
        self.clock_at = Some(now);
        self.evaluate(now, false);
    }

    /// Time has passed; call at [`Tracker::poll_timeout`] (earlier calls do no harm).
    pub fn handle_timeout(&mut self, now: Time) {
        if self.timeout.is_some_and(|t| now >= t) {
            self.evaluate(now, false);
        }
    }

    // ---------------------------------------------------------------- polls

    /// The next event decided, if any.
    pub fn poll_event(&mut self) -> Option<TimedEvent> {
        self.events.pop_front()
    }

    /// When [`Tracker::handle_timeout`] should be called next, if at all.
    pub fn poll_timeout(&self) -> Option<Time> {
        self.timeout
    }

    // ---------------------------------------------------------------- internals

    fn same(&self, a: Option<shakmaty::Piece>, b: Option<shakmaty::Piece>) -> bool {
        if self.cfg.piece_identity {
            a == b
        } else {
            a.is_some() == b.is_some()
        }
    }

    fn record(
        &mut self,
        now: Time,
        sq: shakmaty::Square,
        before: Option<shakmaty::Piece>,
        after: Option<shakmaty::Piece>,
        whole: bool,
    ) {
        self.last_change = self.last_change.max(now);
        self.ghost.discard(sq);
        let ev = SquareEvent {
            t: now,
            square: sq,
            before,
            after,
            whole,
        };
        self.evidence.add(&ev);
        self.epoch += 1;
        if self.log.len() >= MAX_LOG {
            self.log.drain(..MAX_LOG / 2);
        }
        self.log.push(ev);
    }

    fn emit(&mut self, now: Time, event: GameEvent) {
        self.events.push_back(TimedEvent { t: now, event });
    }

    fn stable_for(&self, now: Time, d: Duration) -> bool {
        now.saturating_since(self.last_change) >= d
    }

    fn start_game(&mut self, now: Time, start: Start) {
        self.emit(
            now,
            GameEvent::NewGame {
                fen: start.fen(),
                chess960: start.chess960,
            },
        );
        self.base = Some(BaseMoves::new(start.pos.clone()));
        self.epoch += 1;
        self.game = Some(Game::new(start));
        self.rests_on_way = [false; 2];
        self.taken_back = None;
        self.log.clear();
        self.evidence.rebuild(&[]);
        self.ghost = Bitboard::EMPTY;
        self.reported = Bitboard::EMPTY;
        self.clock_at = None;
    }

    /// Starts a game if the board shows a start position that is news. Returns whether
    /// one started, or when to look again.
    fn check_start(&mut self, now: Time, dump: bool) -> Result<bool, Option<Time>> {
        if let (None, Some(fixed)) = (&self.game, &self.fixed_start) {
            let fixed = fixed.clone();
            self.start_game(now, fixed);
            return Ok(true);
        }
        let Some(start) = recognise(&self.sensed, self.cfg.piece_identity) else {
            return Ok(false);
        };
        let news = match &self.game {
            None => true,
            Some(g) => g.finished || !g.is_empty() || g.start().pos.board() != start.pos.board(),
        };
        if !news {
            return Ok(false);
        }
        // A Chess960 arrangement may be a standard set-up still being put right.
        if start.chess960 && !dump && !self.stable_for(now, self.cfg.settle) {
            return Err(Some(self.last_change + self.cfg.settle));
        }
        self.start_game(now, start);
        Ok(true)
    }

    fn explain_now(&mut self) {
        if self.explained == Some(self.epoch) {
            return;
        }
        self.explained = Some(self.epoch);
        let Some(base) = &self.base else {
            self.cands.clear();
            return;
        };
        let sight = sight(&self.cfg, &self.sensed, self.ghost, &self.evidence);
        // Only the cheapest explanations count for what follows.
        explain::explain(
            base,
            &sight,
            self.cfg.max_plies,
            Keep::Cheapest,
            &mut self.cands,
        );
    }

    /// What the candidates of the sensed board say should happen now.
    fn verdict(&self, now: Time) -> Verdict {
        let base = self.base.as_ref();
        // A capture begun by taking the victim off first, its piece put down on the way:
        // the piece may rest there, the hand still on it, whoever plays it.
        let resting_capture = |c: &Candidate| {
            c.len == 1 && c.transit && explain::capture_begun_with_victim(c, &self.evidence)
        };
        let mut timing = self.timing(now);
        if self
            .cands
            .iter()
            .any(|c| c.cost() == 0 && resting_capture(c))
        {
            timing.slide_rest = timing.slide_rest.max(self.cfg.slide_rest);
        }
        decide(
            &self.cands,
            timing,
            |c| base.and_then(|b| self.first_moves_on(b, c, &self.evidence, b.turn())),
            |c| {
                resting_capture(c)
                    || base.is_some_and(|b| b.first_slid(c, &self.evidence, self.slide_window()))
            },
        )
    }

    /// How long a slid piece of the side `turn` may rest on its way (see
    /// [`TrackerConfig::slide_rest`] and [`SlideRests`]).
    fn slide_rest(&self, turn: Option<Color>) -> Duration {
        let rests = match self.cfg.slide_rests {
            SlideRests::Never => false,
            SlideRests::Always => true,
            SlideRests::Learned => turn.is_some_and(|c| self.rests_on_way[c as usize]),
        };
        if rests {
            self.cfg.slide_rest
        } else {
            Duration::ZERO
        }
    }

    /// Notes that the side `turn` rested a piece on its way: the move `was`, confirmed,
    /// turned out to be the first part of `is`, a longer move of the same piece.
    fn note_rest(&mut self, turn: Color, was: Move, is: Move) {
        if is.from().is_some()
            && was.from() == is.from()
            && goes_further(was, is.to())
            && !self.rests_on_way[turn as usize]
        {
            tracing::debug!(side = ?turn, "a piece rested on its way: slides now wait the slide rest");
            self.rests_on_way[turn as usize] = true;
        }
    }

    /// When the first piece of `c` may still be moving on (see
    /// [`BaseMoves::first_moves_on`]), `turn` being its side: for a side whose slides may
    /// rest on the way, as [`BaseMoves::first_moves_on_resting`].
    fn first_moves_on(
        &self,
        base: &BaseMoves,
        c: &Candidate,
        evidence: &Evidence,
        turn: Color,
    ) -> Option<Time> {
        // A later ply that moves the piece off that square again, other than further along
        // its line, shows it came to rest there.
        if let Some(first) = c.first()
            && c.moves()
                .skip(1)
                .any(|m| m.from() == Some(first.to()) && !goes_further(first, m.to()))
        {
            return None;
        }
        if self.slide_rest(Some(turn)).is_zero() {
            base.first_moves_on(c, evidence)
        } else {
            base.first_moves_on_resting(c, evidence, self.slide_window())
        }
    }

    /// How soon after leaving its origin a piece seen next to it slid there.
    fn slide_window(&self) -> Duration {
        explain::SLIDE_STEP + self.cfg.sensor_lag.unwrap_or(Duration::ZERO)
    }

    fn timing(&self, now: Time) -> Timing {
        self.timing_for(now, self.base.as_ref().map(BaseMoves::turn))
    }

    /// The times a decision on a move of `turn` depends on.
    fn timing_for(&self, now: Time, turn: Option<Color>) -> Timing {
        Timing {
            now,
            last_change: self.last_change,
            clock_pressed: self.clock_at.is_some_and(|c| c >= self.last_change),
            settle: self.cfg.settle,
            sensor_lag: self.cfg.sensor_lag.unwrap_or(Duration::ZERO),
            ambiguity: self.cfg.ambiguity,
            slide_rest: self.slide_rest(turn),
            unseen_passed: 3,
            unseen_history: false,
        }
    }

    /// Decides everything the board now allows, as often as it allows.
    fn evaluate(&mut self, now: Time, dump: bool) {
        self.timeout = None;
        let mut unexplained = false;
        // When an earlier position of the game may explain the board.
        let mut history_at: Option<Time> = None;
        for _ in 0..64 {
            unexplained = false;
            match self.check_start(now, dump) {
                Ok(true) => continue,
                Ok(false) => {}
                Err(t) => {
                    self.timeout = t;
                    break;
                }
            }
            let Some(game) = &self.game else { break };
            if game.finished {
                break;
            }
            if self.cfg.piece_identity && gesture::kings_in_centre(&self.sensed).is_some() {
                if self.stable_for(now, self.cfg.settle) {
                    if let Some((result, reason)) = gesture::kings_in_centre(&self.sensed) {
                        self.finish(now, result, reason);
                    }
                } else {
                    self.timeout = Some(self.last_change + self.cfg.settle);
                }
                break;
            }
            self.explain_now();
            let verdict = self.verdict(now);
            if !matches!(verdict, Verdict::Unexplained(_)) {
                self.at_horizon = self.first_at_horizon();
            }
            if tracing::enabled!(tracing::Level::TRACE) {
                self.trace_decision(now, verdict);
            }
            // A whole board after a reconnect: plies played while the board was away.
            if dump && !matches!(verdict, Verdict::Confirm(_) | Verdict::Idle) {
                match self.try_jump(now) {
                    Some(true) => continue,
                    Some(false) => {
                        unexplained = true;
                        break;
                    }
                    None => {}
                }
            }
            // Squares tolerated as stale sensors may hide a misread ply: a history that
            // explains the board without them wins. So may a piece of the last move lifted
            // again before anything else (a slider that rested on its way and went on, the
            // opponent replying at once): read as the opponent's ply first, it would make
            // the next ply of the mover out of the rest of the slide.
            let moved_on = self.last_piece_lifted_first();
            let ghosts = self.ghost.any() && !self.victim_set_aside(now, self.ghost);
            if (ghosts || moved_on) && !matches!(verdict, Verdict::Unexplained(_)) {
                match self.try_correct(
                    now,
                    if self.ghost.any() {
                        Doubt::Unexplained
                    } else {
                        Doubt::Rival
                    },
                ) {
                    Ok(true) => continue,
                    Ok(false) => {}
                    Err(t) => history_at = t,
                }
            } else if let Some(set_aside) = self.in_hand_doubt(verdict) {
                // The board stands still with a piece in the hand on the game as confirmed,
                // but an earlier position may explain it with every piece down (a victim
                // taken off first and set down for a moment, read as a rest going on): a
                // piece held longer than a move takes is the likelier misreading.
                if set_aside || self.stable_for(now, HELD_LONG) {
                    match self.try_correct(now, Doubt::InHand) {
                        Ok(true) => continue,
                        Ok(false) => {}
                        Err(t) => history_at = t,
                    }
                } else {
                    history_at = Some(self.last_change + HELD_LONG);
                }
            } else if self.cfg.piece_identity && matches!(verdict, Verdict::Confirm(_)) {
                // Before a ply is confirmed on the game: a piece seen put down where none of
                // the last plies could have put it (a slider confirmed where it rested, then
                // seen further on) proves another history.
                match self.try_correct(now, Doubt::BeforeConfirming) {
                    Ok(true) => continue,
                    Ok(false) => {}
                    Err(t) => {
                        // That history is not decided yet: neither is this ply.
                        self.timeout = t;
                        break;
                    }
                }
            }
            match verdict {
                Verdict::Idle => break,
                Verdict::Confirm(m) if self.gate_holds(m) => break,
                // The last ply's piece lifted again first of its side (the opponent may
                // have reached out before) and read as going on along its line after
                // a ply with a piece nobody saw (or going anywhere after plies with two):
                // more likely that piece going on from a rest, the opponent's reply under
                // way. A history that says so is proved once the reply's piece lands;
                // until then, or a held piece's time, nothing.
                Verdict::Confirm(m)
                    if self.last_piece_lifted_first_of_its_side()
                        && !self.stable_for(now, HELD_LONG)
                        && self.unseen_before_going_on(m) =>
                {
                    self.timeout = Some(self.last_change + HELD_LONG);
                    break;
                }
                Verdict::Confirm(m) => self.confirm(now, m),
                Verdict::Wait(t) => {
                    self.timeout = t;
                    break;
                }
                Verdict::Ambiguous => {
                    // Readings that only the confirmed game's last ply makes long (a slider
                    // confirmed where it rested, the opponent's piece moving twice meanwhile)
                    // may have a history with fewer plies in all.
                    match self.try_correct(now, Doubt::Rival) {
                        Ok(true) => continue,
                        Ok(false) => {}
                        Err(t) => history_at = t,
                    }
                    if let Some((m, others)) = self.transposed() {
                        self.confirm_reading(now, m, &others);
                        continue;
                    }
                    if let Some(m) = self.in_turn_reading() {
                        self.confirm(now, m);
                        continue;
                    }
                    unexplained = true;
                    break;
                }
                Verdict::Unexplained(common) => {
                    if self.try_redo(now) {
                        continue;
                    }
                    // Plies played faster than they could be confirmed: the board has gone
                    // beyond the search's depth from a first ply all explanations agreed
                    // on a moment ago. That ply is the game; the rest is explained from it.
                    if let Some((len, m)) = self.at_horizon.take()
                        && self.game.as_ref().is_some_and(|g| g.len() == len)
                    {
                        tracing::debug!(t_ms = now.as_ms_f64(), "beyond the search: {m}");
                        self.confirm(now, m);
                        continue;
                    }
                    // The last ply's piece gone on along its way before a takeback: in
                    // a repeated position the board after it may also be an earlier
                    // position of the game, but a piece going on is the likelier reading.
                    // (Not when it stood there for longer than a rest, and the opponent
                    // may be taking it: lifted off first and set down beside.)
                    let retract =
                        if self.last_piece_stood() && self.victim_lifted_first(now, common) {
                            Ok(false)
                        } else {
                            self.try_retract(now)
                        };
                    match retract {
                        Ok(true) => continue,
                        Ok(false) => {
                            if !self.victim_moved_aside(now) && self.try_takeback(now) {
                                continue;
                            }
                        }
                        Err(t) => self.timeout = t,
                    }
                    if !self.victim_set_aside(now, common) {
                        let why = if (common & self.sensed.occupied()).any()
                            && !self.capture_of_last_under_way()
                        {
                            Doubt::Placed
                        } else {
                            Doubt::Unexplained
                        };
                        match self.try_correct(now, why) {
                            Ok(true) => continue,
                            Ok(false) => {}
                            Err(t) => history_at = t,
                        }
                    }
                    if !self.stable_for(now, self.cfg.settle) {
                        self.timeout = Some(self.last_change + self.cfg.settle);
                        unexplained = true;
                        break;
                    }
                    if common.any() && self.gate_sees_illegal(common) {
                        unexplained = true;
                        break;
                    }
                    if !self.stable_for(now, self.cfg.mismatch_after) {
                        // A piece held in the hand is no stale sensor: wait longer.
                        self.timeout = Some(self.last_change + self.cfg.mismatch_after);
                        unexplained = true;
                        break;
                    }
                    if common.any()
                        && !common.is_subset(self.ghost)
                        && (self.ghost | common).count() <= MAX_GHOSTS
                    {
                        // A sensor that stays wrong, where no history explains the board:
                        // tolerate it and go on. Never more squares than that: a game
                        // the board contradicts on two squares is a game misread, and it
                        // stays a mismatch until the pieces are put right.
                        self.ghost |= common;
                        self.epoch += 1;
                        continue;
                    }
                    unexplained = true;
                    break;
                }
            }
        }
        if let Some(t) = history_at {
            self.timeout = Some(self.timeout.map_or(t, |o| o.min(t)));
        }
        self.check_mismatch(now, unexplained);
    }

    /// Whether the squares `common` that no explanation accounts for hold a captured
    /// piece set down near its capture while it is fresh, on its way off the board: not a
    /// sign of another history.
    fn victim_set_aside(&self, now: Time, common: Bitboard) -> bool {
        self.last_victim_set_aside(now, common) || self.victim_lifted_first(now, common)
    }

    /// Whether the squares `common` that no explanation accounts for each hold a piece of
    /// the side not to move, lifted a moment ago from a square near by where the side to
    /// move can take it: a capture begun by taking the victim off first, the victim set
    /// down beside the board's play before the capturer arrives.
    fn victim_lifted_first(&self, now: Time, common: Bitboard) -> bool {
        let Some(base) = &self.base else { return false };
        let turn = base.pos.turn();
        // The piece the last ply moved, lifted again within a rest's time and put down
        // further along its line, is going on (a rest), not a victim. Left standing longer,
        // its move was made: a lift now is the opponent's, taking it.
        let last = self.last_ply().map(|p| p.mv);
        let rest_ends = self.last_put_down() + correct::REST_AT_MOST;
        let going_on = |from: Square, to: Square, lifted: Time| {
            last.is_some_and(|m| m.to() == from && goes_further(m, to) && lifted <= rest_ends)
        };
        common.any()
            && common.into_iter().all(|sq| {
                let Some(p) = self.sensed.piece_at(sq) else {
                    return false;
                };
                p.color != turn
                    && self.log.iter().any(|e| {
                        e.before == Some(p)
                            && e.after.is_none()
                            && !e.whole
                            && e.square != sq
                            && !going_on(e.square, sq, e.t)
                            && e.square.distance(sq) <= correct::SET_DOWN_NEAR
                            && now.saturating_since(e.t) <= correct::SET_DOWN_FRESH
                            && base
                                .moves
                                .iter()
                                .any(|m| m.is_capture() && m.to() == e.square)
                    })
            })
    }

    /// The last confirmed ply.
    fn last_ply(&self) -> Option<&game::Ply> {
        self.game.as_ref().and_then(|g| g.plies().last())
    }

    /// When the last ply's piece was put down on its square (when the ply was confirmed,
    /// if its log does not say).
    fn last_put_down(&self) -> Time {
        let Some(p) = self.last_ply() else {
            return Time::ZERO;
        };
        p.log
            .iter()
            .rev()
            .find(|e| e.square == p.mv.to() && e.after.is_some())
            .map_or(p.confirmed_at, |e| e.t)
    }

    /// Whether the last ply's piece stood on its square for longer than a rest before it
    /// was lifted again: its move was made, and the lift is the opponent's.
    fn last_piece_stood(&self) -> bool {
        let Some(p) = self.last_ply() else {
            return false;
        };
        let to = p.mv.to();
        self.log
            .iter()
            .find(|e| e.square == to && e.after.is_none())
            .is_some_and(|e| e.t > self.last_put_down() + correct::REST_AT_MOST)
    }

    /// Whether the board differs from the game only by a piece of the side not to move,
    /// lifted off a square the side to move can capture on and set down near by (on the
    /// square it came from, say): a capture begun by taking the victim off first, which
    /// looks like a takeback for a moment.
    fn victim_moved_aside(&self, now: Time) -> bool {
        let Some(base) = &self.base else { return false };
        let wrong = diff(&self.sensed, base.pos.board(), self.cfg.piece_identity);
        let held = wrong & self.sensed.occupied();
        let turn = base.pos.turn();
        let lifted = (wrong & !self.sensed.occupied())
            .into_iter()
            .all(|sq| base.pos.board().color_at(sq) == Some(!turn));
        held.any() && lifted && self.victim_lifted_first(now, held)
    }

    /// Whether the squares `common` each hold the piece the last ply captured, set down
    /// within 2 squares of the capture and 2 s of it.
    fn last_victim_set_aside(&self, now: Time, common: Bitboard) -> bool {
        let Some(game) = &self.game else { return false };
        let Some(last) = game.plies().last() else {
            return false;
        };
        let (Some(role), Some(at)) = (last.mv.capture(), correct::victim_square(last.mv)) else {
            return false;
        };
        let victim = shakmaty::Piece {
            color: game.position().turn(),
            role,
        };
        // A victim the ply before put on the capture square without the board ever seeing
        // it there (only a board that tells pieces apart can say) was likelier never
        // there: the piece beside is no victim set aside but another reading's evidence.
        if let [.., before, last] = game.plies()
            && self.cfg.piece_identity
            && before.mv.to() == at
            && !before
                .log
                .iter()
                .chain(&last.log)
                .any(|e| e.square == at && e.after == Some(victim))
        {
            return false;
        }
        common.any()
            && now.saturating_since(last.confirmed_at) <= correct::SET_DOWN_FRESH
            && common.into_iter().all(|sq| {
                sq.distance(at) <= correct::SET_DOWN_NEAR
                    && self.sensed.piece_at(sq) == Some(victim)
            })
    }

    /// The first ply of every explanation of the board, when there is one, none leaves
    /// anything unexplained, and the longest fills the search's depth.
    fn first_at_horizon(&self) -> Option<(usize, Move)> {
        let len = self.game.as_ref()?.len();
        // Of readings otherwise alike, the one that accounts for every placement seen (a
        // rook seen on a6 went to a6, not to a5 or a3).
        let strays = self
            .cands
            .iter()
            .filter(|c| c.cost() == 0)
            .map(|c| c.strays)
            .min()?;
        let free: Vec<&Candidate> = self
            .cands
            .iter()
            .filter(|c| c.cost() == 0 && c.strays == strays)
            .collect();
        let first = free.first()?.first()?;
        let deep = free
            .iter()
            .any(|c| usize::from(c.len) >= self.cfg.max_plies.min(MAX_PLIES));
        (deep && free.iter().all(|c| c.first() == Some(first))).then_some((len, first))
    }

    fn trace_decision(&self, now: Time, verdict: Verdict) {
        let cands: Vec<String> = self
            .cands
            .iter()
            .filter(|c| c.cost() <= 1)
            .take(12)
            .map(describe)
            .collect();
        tracing::trace!(
            t_ms = now.as_ms_f64(),
            ?verdict,
            "{} candidates: {}",
            self.cands.len(),
            cands.join("; ")
        );
    }

    fn check_mismatch(&mut self, now: Time, unexplained: bool) {
        let Some(game) = &self.game else { return };
        let wrong = diff(
            &self.sensed,
            game.position().board(),
            self.cfg.piece_identity,
        );
        let squares = if unexplained {
            wrong
        } else {
            wrong & self.ghost
        };
        if squares.is_empty() {
            self.reported = Bitboard::EMPTY;
            return;
        }
        if squares == self.reported || game.finished {
            return;
        }
        if self.stable_for(now, self.cfg.mismatch_after) {
            self.reported = squares;
            let names = squares.into_iter().collect();
            let nearest = self.nearest();
            self.emit(
                now,
                GameEvent::Mismatch {
                    squares: names,
                    nearest,
                },
            );
        } else {
            let t = self.last_change + self.cfg.mismatch_after;
            self.timeout = Some(self.timeout.map_or(t, |o| o.min(t)));
        }
    }

    /// The legal position nearest to the sensed board: after the plies of the cheapest
    /// explanation that has any (FEN), if it leaves fewer squares unexplained than the
    /// game's position.
    fn nearest(&self) -> Option<String> {
        let base = self.base.as_ref()?;
        let here = self.cands.iter().find(|c| c.len == 0).map(Candidate::cost);
        let best = self
            .cands
            .iter()
            .filter(|c| c.len > 0)
            .min_by_key(|c| (c.cost(), c.len))?;
        if here.is_some_and(|h| h <= best.cost()) {
            return None;
        }
        let mut pos = base.pos.clone();
        for m in best.moves() {
            pos.play_unchecked(m);
        }
        Some(game::fen_of(&pos))
    }

    fn finish(&mut self, now: Time, result: KnownOutcome, reason: &str) {
        if let Some(g) = &mut self.game {
            g.finished = true;
        }
        self.emit(
            now,
            GameEvent::Result {
                result,
                reason: reason.to_string(),
            },
        );
    }

    /// Confirms `m`, a legal move of the current position.
    fn confirm(&mut self, now: Time, m: Move) {
        self.confirm_reading(now, m, &[]);
    }

    /// Confirms `m`, a legal move of the current position, which the sensors cannot tell
    /// from the moves `others` (written as its `alternatives`).
    fn confirm_reading(&mut self, now: Time, m: Move, others: &[Move]) {
        let (Some(game), Some(base)) = (&mut self.game, &self.base) else {
            return;
        };
        let Some(e) = base.effect(m) else {
            return;
        };
        let turn = base.pos.turn();
        let san = game::san_of(m, &base.moves);
        // The position after the move (the search may have built it already).
        let Some(next) = self.base.take().map(|b| b.into_after(m)) else {
            return;
        };
        let after = next.pos.board();
        // The events up to the one that completed the move belong to this ply.
        let squares = e.touched | e.path;
        let done = self
            .log
            .iter()
            .rposition(|ev| squares.contains(ev.square) && ev.after == after.piece_at(ev.square))
            .map_or(0, |i| i + 1);
        // When the move is the first of several plies that explain the board, the events on
        // the later plies' squares are theirs too, even those before this one's last: the
        // event that completed this move may be a later ply's (a piece of this move taken
        // at once and another put in its place).
        // (Past the search's depth, the explanations at hand leave a square unexplained:
        // the cheapest of them.)
        let cheapest = self.cands.iter().map(|c| c.cost()).min().unwrap_or(0);
        let theirs = self
            .cands
            .iter()
            .filter(|c| c.cost() == cheapest && c.len >= 2 && c.first() == Some(m))
            .fold(Bitboard::EMPTY, |acc, c| acc | c.later_reach(turn));
        // Changes that came in one whole-board report have no order: those on squares that
        // still differ from the game after this ply stay for the plies still to be
        // confirmed (and those on this ply's squares are its own as well). The events after
        // the one that completed the move stay too.
        let still = diff(&self.sensed, after, self.cfg.piece_identity);
        // Lifting this move's piece off its origin is this move's alone, even where a later
        // ply lands (a queen that goes back to the square it left, taking a piece put there).
        let (origin, mover) = (m.from(), Some(e.moving));
        let own_lift = |ev: &SquareEvent| {
            !ev.whole && Some(ev.square) == origin && ev.after.is_none() && ev.before == mover
        };
        let mut ply_log = Vec::with_capacity(done);
        let mut seen = 0;
        self.log.retain(|ev| {
            seen += 1;
            if seen > done {
                return true;
            }
            let mine = squares.contains(ev.square) || !theirs.contains(ev.square);
            if mine && (!ev.whole || squares.contains(ev.square) || !still.contains(ev.square)) {
                ply_log.push(*ev);
            }
            (ev.whole && still.contains(ev.square)) || (theirs.contains(ev.square) && !own_lift(ev))
        });
        let number = game.len() as u32 + 1;
        let mode = game.mode();
        let has_moves = !next.moves.is_empty();
        let (ply, fen) = game.push(m, (san, next.pos.clone(), has_moves), now, ply_log);
        let event = GameEvent::Move {
            ply: number,
            uci: ply.uci,
            san: ply.san,
            fen,
            clock_ms: None,
            emt_ms: None,
            alternatives: others.iter().map(|o| o.to_uci(mode)).collect(),
        };
        let outcome = game.outcome(has_moves);
        self.evidence.rebuild(&self.log);
        self.ghost &= diff(&self.sensed, next.pos.board(), self.cfg.piece_identity);
        self.base = Some(next);
        self.epoch += 1;
        self.clock_at = None;
        self.emit(now, event);
        if let Some((result, reason)) = outcome {
            self.finish(now, result, reason);
        }
    }

    /// The board, reported whole, shows the position after several plies: confirms them
    /// when one shortest sequence of legal moves leads there (`Some(true)`); `Some(false)`
    /// when several do (nothing tells them apart: a mismatch); `None` when none does.
    fn try_jump(&mut self, now: Time) -> Option<bool> {
        let game = self.game.as_ref()?;
        if game.finished || !self.ghost.is_empty() {
            return None;
        }
        let found = jump::find(
            game.position(),
            &self.sensed,
            self.cfg.piece_identity,
            self.cfg.max_plies,
        );
        match found {
            // Read mid-move: what the board shows is a move under way in no more plies (a
            // piece in the hand, and the one it takes already off the board), which the
            // explanation follows as usual. A longer sequence that ends in the board as read
            // made those pieces vanish with captures nobody played.
            jump::Jump::Found(moves)
                if self
                    .cands
                    .iter()
                    .any(|c| c.cost() == 0 && !c.complete && usize::from(c.len) <= moves.len()) =>
            {
                None
            }
            jump::Jump::Found(moves) => {
                let log = std::mem::take(&mut self.log);
                for m in moves {
                    self.confirm(now, m);
                }
                // What the board reported belongs to the last of the plies found (the
                // evidence, rebuilt from the empty log by each confirmation, is empty).
                if let Some(g) = &mut self.game
                    && let Some(last) = g.last_ply_mut()
                {
                    last.log = log;
                }
                Some(true)
            }
            jump::Jump::Ambiguous => Some(false),
            // Read mid-move: the piece in the hand is put down in a moment.
            jump::Jump::InHand | jump::Jump::None => None,
        }
    }

    /// When the released board is explained only by sequences that each need a piece the
    /// sensors never saw (a pawn taken at once, en passant or not), and they all end in the
    /// same position, the order cannot matter for the game from here on: the first is
    /// taken, rather than leaving the game stuck. The first moves of the other sequences,
    /// which the sensors cannot tell from it, come with it (none of them is the first).
    fn transposed(&self) -> Option<(Move, Vec<Move>)> {
        let base = self.base.as_ref()?;
        let best = self.cands.iter().filter(|c| c.cost() == 0 && c.complete);
        let least = best.clone().map(|c| (c.unseen, c.ghosted, c.len)).min()?;
        if least.0 == 0 {
            return None;
        }
        let mut end: Option<Chess> = None;
        let mut first = None;
        let mut others: Vec<Move> = Vec::new();
        for c in best.filter(|c| (c.unseen, c.ghosted, c.len) == least) {
            let mut pos = base.pos.clone();
            for m in c.moves() {
                pos.play_unchecked(m);
            }
            match &end {
                None => {
                    first = c.first();
                    end = Some(pos);
                }
                Some(e) if e.board() == pos.board() && e.turn() == pos.turn() => {
                    if let Some(m) = c.first()
                        && Some(m) != first
                        && !others.contains(&m)
                    {
                        others.push(m);
                    }
                }
                Some(_) => return None,
            }
        }
        first.map(|m| (m, others))
    }

    /// Of complete readings the board cannot tell apart, the first move of those alone
    /// whose plies each end before the next begins: a queen seen on d3 before the
    /// opponent's reply and on d4 only after it went to d3, not d4 (the reply waits for
    /// the move's end). Within [`IN_TURN_SLACK`]; squares a later ply puts a piece on
    /// again say nothing.
    fn in_turn_reading(&self) -> Option<Move> {
        let best = self.cands.iter().filter(|c| c.cost() == 0 && c.complete);
        let least = best.clone().map(|c| (c.unseen, c.ghosted, c.len)).min()?;
        let ev = &self.evidence;
        let in_turn = |c: &Candidate| {
            let moves: Vec<Move> = c.moves().collect();
            moves.iter().enumerate().all(|(i, m)| {
                let (Some(next), Move::Normal { to, .. }) = (moves.get(i + 1), m) else {
                    return true;
                };
                if moves[i + 1..].iter().any(|later| later.to() == *to) {
                    return true;
                }
                match (
                    ev.first_placed_at[to.to_usize()],
                    next.from().and_then(|f| ev.first_lifted_at[f.to_usize()]),
                ) {
                    (Some(end), Some(start)) => end <= start + IN_TURN_SLACK,
                    _ => true,
                }
            })
        };
        let mut first = None;
        let mut out_of_turn = false;
        for c in best.filter(|c| (c.unseen, c.ghosted, c.len) == least) {
            if !in_turn(c) {
                out_of_turn = true;
                continue;
            }
            match first {
                None => first = c.first(),
                Some(m) if c.first() == Some(m) => {}
                Some(_) => return None,
            }
        }
        first.filter(|_| out_of_turn)
    }

    /// The board shows an earlier position of the game: the players took moves back.
    fn try_takeback(&mut self, now: Time) -> bool {
        let Some(game) = &mut self.game else {
            return false;
        };
        let identity = self.cfg.piece_identity;
        let (sensed, ghost) = (&self.sensed, self.ghost);
        let Some(j) = game.earlier_board(0, |b| (diff(sensed, b, identity) & !ghost).is_empty())
        else {
            return false;
        };
        let undone: Vec<SquareEvent> = game.plies()[j..]
            .iter()
            .flat_map(|p| p.log.iter().copied())
            .collect();
        self.taken_back = Some((j, correct::merged(&undone, &self.log)));
        game.truncate(j);
        let pos = game.position().clone();
        self.base = Some(BaseMoves::new(pos));
        self.epoch += 1;
        self.log.clear();
        self.evidence.rebuild(&[]);
        self.clock_at = None;
        self.emit(now, GameEvent::Takeback { ply: j as u32 });
        true
    }

    /// The board, unexplained since a takeback, is explained when the plies taken back are
    /// put back: the players did not take them back (a captured piece was set down for a
    /// moment where the capturer's victim had come from). The plies are confirmed again by
    /// the usual decision, from every lift and placement since they began.
    fn try_redo(&mut self, now: Time) -> bool {
        let Some((ply, undone)) = self.taken_back.take() else {
            return false;
        };
        if self.game.as_ref().is_none_or(|g| g.len() != ply) {
            return false;
        }
        let log = correct::merged(&undone, &self.log);
        let pending = std::mem::replace(&mut self.log, log);
        self.evidence.rebuild(&self.log);
        self.epoch += 1;
        self.explain_now();
        if matches!(self.verdict(now), Verdict::Unexplained(_)) {
            self.log = pending;
            self.evidence.rebuild(&self.log);
            self.epoch += 1;
            self.explain_now();
            self.taken_back = Some((ply, undone));
            return false;
        }
        tracing::debug!(
            ply,
            "plies taken back put back: the board shows they were played"
        );
        true
    }

    /// Whether every explanation of the board that leaves nothing unexplained has a piece
    /// still in the hand.
    fn only_in_hand(&self) -> bool {
        self.cands.iter().any(|c| c.cost() == 0)
            && self
                .cands
                .iter()
                .filter(|c| c.cost() == 0)
                .all(|c| c.len > 0 && !c.complete)
    }

    /// Whether the side to move has lifted a piece that can take the last ply's piece
    /// where it stands: a capture under way, whose victim may be lifted off and set down
    /// near by before the capturer lands.
    fn capture_of_last_under_way(&self) -> bool {
        let (Some(base), Some(last)) = (&self.base, self.last_ply()) else {
            return false;
        };
        let to = last.mv.to();
        self.log.iter().any(|e| {
            e.after.is_none()
                && !e.whole
                && e.before.is_some_and(|p| p.color == base.pos.turn())
                && base
                    .moves
                    .iter()
                    .any(|m| m.is_capture() && m.from() == Some(e.square) && m.to() == to)
        })
    }

    /// Whether the game as confirmed explains the board only with a piece in the hand
    /// worth doubting: the board standing still (`verdict` waits for nothing), or the
    /// piece a captured one set aside and now taken off. `Some(true)` in the second case.
    fn in_hand_doubt(&self, verdict: Verdict) -> Option<bool> {
        let Verdict::Wait(wait) = verdict else {
            return None;
        };
        if !self.only_in_hand() {
            return None;
        }
        let set_aside = self.set_aside_taken_off();
        (wait.is_none() || set_aside).then_some(set_aside)
    }

    /// Whether the pieces lifted since the last confirmed ply are one piece, taken off the
    /// square the side to move's last ply was confirmed on, where it was put down a moment
    /// after a piece like it was lifted off the square the opponent's ply then went to:
    /// that ply's piece went there and was captured, lifted off first and set down beside,
    /// and is now taken off the board, rather than a new move beginning.
    fn set_aside_taken_off(&self) -> bool {
        let Some(game) = &self.game else { return false };
        let [.., mine, theirs] = game.plies() else {
            return false;
        };
        let (y, x) = (mine.mv.to(), theirs.mv.to());
        let mut lifts = self.log.iter().filter(|e| e.before.is_some() && !e.whole);
        let (Some(off), None) = (lifts.next(), lifts.next()) else {
            return false;
        };
        if off.square != y || x == y || x.distance(y) > correct::SET_DOWN_NEAR {
            return false;
        }
        // On a square that ply's piece slid across on its way, a lift followed at once by
        // the placement further on is the slide going on, not a piece set down.
        let across = mine
            .mv
            .from()
            .is_some_and(|from| attacks::between(from, y).contains(x));
        let Some(down) = mine.last_put_on(y) else {
            return false;
        };
        let like = |p: Option<shakmaty::Piece>| !self.cfg.piece_identity || p == down.after;
        if off.t.saturating_since(down.t) > correct::SET_DOWN_FRESH {
            return false;
        }
        let mut on_x = mine
            .log
            .iter()
            .chain(&theirs.log)
            .filter(|e| e.square == x && !e.whole)
            .peekable();
        if on_x.peek().is_none_or(|e| e.t >= down.t) {
            return self.set_aside_unseen(mine, theirs, down.t, off.t);
        }
        on_x.any(|e| {
            e.t < down.t
                && e.after.is_none()
                && like(e.before)
                && down.t.saturating_since(e.t) <= correct::SET_DOWN_FRESH
                && (!across || down.t.saturating_since(e.t) >= SET_DOWN_AFTER)
        })
    }

    /// The case of [`Tracker::set_aside_taken_off`] where the board never saw the mover's
    /// piece on the capture square `x` (put down there and lifted off by the opponent
    /// between two scans): nothing was reported on `x` before the opponent's piece came,
    /// the mover's piece could have gone there, neither ply took anything as read, and
    /// the piece reached the square it was put down on (`down`) too long after its lift
    /// for one move of the hand, put down nowhere on its way; and it is taken off (`off`)
    /// a while after the opponent's piece came, not as a quick reply.
    fn set_aside_unseen(
        &self,
        mine: &game::Ply,
        theirs: &game::Ply,
        down: Time,
        off: Time,
    ) -> bool {
        let Some(game) = &self.game else { return false };
        let (
            Move::Normal {
                role,
                from,
                to: y,
                capture: None,
                promotion: None,
            },
            None,
        ) = (mine.mv, theirs.mv.capture())
        else {
            return false;
        };
        let x = theirs.mv.to();
        let Some(before) = game.position_at(game.len() - 2) else {
            return false;
        };
        let instead = Move::Normal {
            role,
            from,
            to: x,
            capture: None,
            promotion: None,
        };
        let Some(lift) = mine
            .log
            .iter()
            .rfind(|e| e.square == from && e.after.is_none() && !e.whole && e.t < down)
        else {
            return false;
        };
        let Some(came) = theirs.last_put_on(x) else {
            return false;
        };
        // (A piece slid across the board, put down on the squares of its way, takes longer.)
        let put_on_the_way = mine
            .log
            .iter()
            .any(|e| e.t > lift.t && e.t < down && e.after.is_some());
        y != x
            && !put_on_the_way
            && down.saturating_since(lift.t) >= UNSEEN_SET_DOWN_AIR
            && off.saturating_since(came.t) >= SET_DOWN_AFTER
            && before.is_legal(instead)
    }

    /// Whether every reading that leaves nothing unexplained and begins with `m` needs a
    /// piece nobody saw and moves the last confirmed ply's piece in a later ply: further
    /// along its line, or anywhere with two pieces nobody saw.
    fn unseen_before_going_on(&self, m: Move) -> bool {
        let Some(last) = self.last_ply().map(|p| p.mv) else {
            return false;
        };
        let mut readings = self
            .cands
            .iter()
            .filter(|c| c.cost() == 0 && c.first() == Some(m))
            .peekable();
        readings.peek().is_some()
            && readings.all(|c| {
                c.unseen > 0
                    && c.moves().skip(1).any(|p| {
                        p.from() == Some(last.to()) && (c.unseen > 1 || goes_further(last, p.to()))
                    })
            })
    }

    /// Whether the first square lifted since the last confirmed ply is that ply's
    /// destination: its piece lifted again before the opponent touched anything.
    fn last_piece_lifted_first(&self) -> bool {
        let Some(last) = self.last_ply() else {
            return false;
        };
        self.log
            .iter()
            .find(|e| e.before.is_some() && e.after.is_none() && !e.whole)
            .is_some_and(|e| e.square == last.mv.to())
    }

    /// Whether the first piece of the last confirmed ply's side lifted since that ply is its
    /// piece, lifted off the ply's destination (the opponent may have reached out first).
    fn last_piece_lifted_first_of_its_side(&self) -> bool {
        let Some(last) = self.last_ply() else {
            return false;
        };
        let to = last.mv.to();
        let Some(side) = self
            .game
            .as_ref()
            .and_then(|g| g.position_at(g.len() - 1))
            .map(|p| p.turn())
        else {
            return false;
        };
        self.log
            .iter()
            .find(|e| e.after.is_none() && !e.whole && e.before.is_some_and(|p| p.color == side))
            .is_some_and(|e| e.square == to)
    }

    /// The piece of the last confirmed move has moved on to another square before the
    /// opponent touched anything: withdraw the move (the caller then confirms the new one).
    fn try_retract(&mut self, now: Time) -> Result<bool, Option<Time>> {
        let Some(game) = &self.game else {
            return Ok(false);
        };
        let n = game.len();
        let (Some(last), Some(prev)) = (game.plies().last(), game.position_at(n.wrapping_sub(1)))
        else {
            return Ok(false);
        };
        let last_mv = last.mv;
        let from = last_mv.from();
        let bm = BaseMoves::new(prev.clone());
        let Some(last_e) = bm.effect(last_mv) else {
            return Ok(false);
        };
        let mut evidence = Evidence::from_log(&last.log);
        for ev in &self.log {
            evidence.add(ev);
        }
        let sight = sight(&self.cfg, &self.sensed, self.ghost, &evidence);
        let mut cands = Vec::new();
        explain::explain(&bm, &sight, 1, Keep::All, &mut cands);
        cands.retain(|c| c.first() != Some(last_mv));
        let verdict = decide(
            &cands,
            self.timing_for(now, Some(prev.turn())),
            |c| self.first_moves_on(&bm, c, &evidence, prev.turn()),
            |c| bm.first_slid(c, &evidence, self.slide_window()),
        );
        let m = match verdict {
            Verdict::Confirm(m) => m,
            Verdict::Wait(t) => return Err(t),
            _ => return Ok(false),
        };
        let Some(e) = bm.effect(m) else {
            return Ok(false);
        };
        // Only the piece of the last move may have moved since (a stray piece taken off a
        // square where the game has none, a captured piece set down for a moment, is no
        // move of anybody's).
        let allowed = last_e.touched | e.touched | e.path;
        let board = prev.board();
        let stray = |ev: &SquareEvent| {
            ev.after.is_none()
                && ev.before.is_some()
                && board.piece_at(ev.square).is_none()
                && self.sensed.piece_at(ev.square).is_none()
        };
        if m.from() != from
            || self
                .log
                .iter()
                .any(|ev| !allowed.contains(ev.square) && !stray(ev))
        {
            return Ok(false);
        }
        if !self.stable_for(now, self.cfg.settle) {
            return Err(Some(self.last_change + self.cfg.settle));
        }
        let uci = last.uci;
        let turn = prev.turn();
        let mut log = last.log.clone();
        log.append(&mut self.log);
        if let Some(g) = &mut self.game {
            g.truncate(n - 1);
        }
        self.evidence.rebuild(&log);
        self.log = log;
        self.base = Some(bm);
        self.epoch += 1;
        self.note_rest(turn, last_mv, m);
        self.emit(now, GameEvent::Retract { ply: n as u32, uci });
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slide_rests_are_read_by_the_names_they_are_written_with() {
        for whose in SlideRests::ALL {
            assert_eq!(whose.as_str().parse::<SlideRests>(), Ok(whose));
        }
        assert_eq!(" always ".parse::<SlideRests>(), Ok(SlideRests::Always));
        let e = "sometimes"
            .parse::<SlideRests>()
            .expect_err("not a setting");
        assert_eq!(e, UnknownSlideRests("sometimes".to_string()));
        assert!(e.to_string().contains("never, learned or always"), "{e}");
    }
}
