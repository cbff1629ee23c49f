//! One board's sans-IO core: bytes and time in, game events and bytes to send out.
//!
//! [`BoardCore`] strings the layers together for one board — the protocol decoder and the
//! sensed board ([`crate::sensing`]), then the move tracker, then the arbiter
//! ([`crate::laws`]) — and turns what they decide into [`TimedEvent`]s, stamping each move
//! with its clock times ([`MoveClocks`]). On a live link it also talks to the board through
//! its type's driver (start-up, pacing, keep-alive, LEDs, the clock: the link side in
//! [`crate::board`], where it implements [`crate::board::Core`] for the shells). Replay,
//! the daemon, the UCI bridge, `watch`, `record`, the demo and the benchmarks all drive
//! this one type, so they all take the same path; replay and the benchmarks never connect
//! it, so it sends nothing there. Like the layers it joins, it owns no port, no clock and
//! no task: callers hand it `now`.
//!
//! - handlers: [`BoardCore::handle_input`], [`BoardCore::handle_timeout`],
//!   [`BoardCore::handle_reconnected`], and [`crate::board::Core`]'s connect and commands
//! - polls: [`BoardCore::poll_event`], [`BoardCore::poll_sensed`],
//!   [`BoardCore::poll_timeout`], and [`crate::board::Core::poll_transmit`]
//! - getters: [`BoardCore::sensing`], [`BoardCore::laws`]

use shakmaty::uci::UciMove;
use std::collections::VecDeque;
use std::sync::Arc;

use std::time::Duration;

/// How long a confirmed move waits for the clock press that gives its times, when the
/// mover's clock still runs at confirmation; after that it goes out with the times counted
/// from the running clock.
pub const PRESS_WAIT: Duration = Duration::from_secs(10);

use crate::board::link::Link;
use crate::event::{GameEvent, TimedEvent};
use crate::game::move_clock::MoveClocks;
use crate::laws::{Arbiter, LawsConfig, View};
use crate::protocol::Protocol;
use crate::sensing::{Sensed, Sensing, SensingConfig, SquareChange};
use crate::time::Time;
use crate::tracker::{Tracker, TrackerConfig, TrackerError};

/// How one board is read and judged.
#[derive(Debug, Clone, Default)]
pub struct CoreConfig {
    /// How the sensed board is read.
    pub sensing: SensingConfig,
    /// The FEN the game starts from, when it is not a start position on the board.
    pub start_fen: Option<String>,
    /// Keep every sensed item for [`BoardCore::poll_sensed`] (debugging output).
    pub keep_sensed: bool,
    /// How moves are reconstructed from square changes.
    pub reconstruction: Reconstruction,
    /// How the move tracker decides (with [`Reconstruction::Tracker`]); its `start_fen` is
    /// taken from [`CoreConfig::start_fen`] when that is set.
    pub tracker: TrackerConfig,
    /// The edition of the Laws and the touch-move mode the arbiter applies (with
    /// [`Reconstruction::Tracker`]).
    pub laws: LawsConfig,
}

/// How moves are reconstructed from square changes.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Reconstruction {
    /// Not at all: only the board and clock are reported.
    None,
    /// The move tracker ([`crate::tracker`]).
    #[default]
    Tracker,
    /// Another matcher, made for each core (one to compare with, in a benchmark).
    Matcher(MatcherFactory),
}

/// A way of reading moves from the sensed board other than the tracker: it is handed every
/// whole board and square change and decides moves on its own, with no arbiter.
pub trait Matcher: std::fmt::Debug + Send {
    /// A whole sensed board at `now`.
    fn handle_board(&mut self, now: Time, board: &shakmaty::Board);
    /// One square changed at `now`.
    fn handle_change(&mut self, now: Time, change: SquareChange);
    /// When [`Matcher::handle_timeout`] should next be called, if at all.
    fn poll_timeout(&self) -> Option<Time>;
    /// Lets timers due at or before `now` fire.
    fn handle_timeout(&mut self, now: Time);
    /// The next event decided.
    fn poll_event(&mut self) -> Option<TimedEvent>;
}

/// Makes a [`Matcher`] for a core, handed the game's start FEN when one is set.
#[derive(Clone)]
pub struct MatcherFactory(pub Arc<dyn Fn(Option<String>) -> Box<dyn Matcher> + Send + Sync>);

impl MatcherFactory {
    /// A factory calling `make`.
    pub fn new(make: impl Fn(Option<String>) -> Box<dyn Matcher> + Send + Sync + 'static) -> Self {
        MatcherFactory(Arc::new(make))
    }
}

impl std::fmt::Debug for MatcherFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MatcherFactory")
    }
}

impl PartialEq for MatcherFactory {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

#[derive(Debug)]
enum Reconstructor {
    None,
    Tracker(Box<Tracker>),
    Matcher(Box<dyn Matcher>),
}

/// One board's core (sans-IO).
#[derive(Debug)]
pub struct BoardCore {
    sensing: Sensing,
    reconstructor: Reconstructor,
    keep_sensed: bool,
    sensed: VecDeque<Sensed>,
    /// The live link's side: the driver, the bytes to send and their pacing, the LEDs.
    pub(crate) link: Link,
    events: VecDeque<TimedEvent>,
    arbiter: Option<Arbiter>,
    clocks: MoveClocks,
    /// A confirmed move waiting for its clock press, and until when it waits.
    held: Option<(TimedEvent, Time)>,
    no_press_wait: bool,
    /// What the tracker was handed since the last whole board, in order (handed again to a
    /// fresh tracker when a game is taken over, [`BoardCore::resume`]); `None` once longer
    /// than [`MAX_REPLAY`].
    replay: Option<Vec<Sensed>>,
}

/// Why a game could not be started or taken over on a board.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// The board's moves are not read by the tracker ([`Reconstruction`] is not
    /// [`Reconstruction::Tracker`]).
    #[error("this board's moves are not tracked")]
    NotTracked,
    /// The tracker refused the game (its FEN or its moves).
    #[error(transparent)]
    Tracker(#[from] TrackerError),
}

/// How many sensed items since the last whole board are kept for a game taken over; past
/// that, the board as sensed then is handed whole instead.
const MAX_REPLAY: usize = 1024;

impl BoardCore {
    /// A core for a board speaking `protocol`.
    pub fn new(protocol: Protocol, config: CoreConfig) -> Self {
        let mut arbiter = None;
        let reconstructor = match &config.reconstruction {
            Reconstruction::None => Reconstructor::None,
            Reconstruction::Tracker => {
                let mut cfg = config.tracker.clone();
                cfg.sensor_lag.get_or_insert(protocol.sensor_lag());
                if config.start_fen.is_some() {
                    cfg.start_fen = config.start_fen.clone();
                }
                let mut tracker = Tracker::new(cfg);
                let a = Arbiter::new(config.laws.clone());
                tracker.set_gate(Some(a.gate(tracker.config().piece_identity)));
                arbiter = Some(a);
                Reconstructor::Tracker(Box::new(tracker))
            }
            Reconstruction::Matcher(make) => {
                Reconstructor::Matcher((make.0)(config.start_fen.clone()))
            }
        };
        let mut sensing = config.sensing.clone();
        if sensing.expected.is_none() {
            sensing.expected = config
                .start_fen
                .as_deref()
                .and_then(|f| f.parse::<shakmaty::fen::Fen>().ok())
                .map(|f| f.into_setup().board);
        }
        BoardCore {
            sensing: Sensing::new(protocol, sensing),
            reconstructor,
            keep_sensed: config.keep_sensed,
            sensed: VecDeque::new(),
            link: Link::new(protocol),
            events: VecDeque::new(),
            arbiter,
            clocks: MoveClocks::default(),
            held: None,
            no_press_wait: false,
            replay: Some(Vec::new()),
        }
    }

    /// Sends every move as soon as it is decided, never holding it for the clock press (the
    /// UCI bridge: a GUI wants the move, not the clock's times at the press).
    pub fn send_moves_at_once(&mut self) {
        self.no_press_wait = true;
        self.release();
    }

    /// The arbiter's configuration (with [`Reconstruction::Tracker`]).
    pub fn laws(&self) -> Option<&LawsConfig> {
        self.arbiter.as_ref().map(Arbiter::config)
    }

    /// The sensed board.
    pub fn sensing(&self) -> &Sensing {
        &self.sensing
    }

    /// The move tracker (with [`Reconstruction::Tracker`]).
    pub fn tracker(&self) -> Option<&Tracker> {
        match &self.reconstructor {
            Reconstructor::Tracker(t) => Some(t),
            _ => None,
        }
    }

    /// Handles bytes read from the board at `now`.
    pub fn handle_input(&mut self, now: Time, bytes: &[u8]) {
        self.link.heard(now);
        self.fire_timers(now);
        self.sensing.handle_input(now, bytes);
        while let Some(item) = self.sensing.poll() {
            self.route(&item);
            if self.keep_sensed {
                self.sensed.push_back(item);
            }
        }
        self.collect(now);
    }

    /// The board stands `orientation` round from now on (a user's command): the sensed board
    /// is read again that way and the tracker sees it whole.
    pub fn set_orientation(&mut self, now: Time, orientation: crate::event::Orientation) {
        self.fire_timers(now);
        self.sensing.set_orientation(now, orientation);
        while let Some(item) = self.sensing.poll() {
            self.route(&item);
            if self.keep_sensed {
                self.sensed.push_back(item);
            }
        }
        self.collect(now);
    }

    /// The link to the board came back after a loss: its next full report is taken as a
    /// whole (see [`Sensing::resync`]), so moves made meanwhile are recovered together.
    pub fn handle_reconnected(&mut self) {
        self.sensing.resync();
    }

    /// Lets timers due at or before `now` fire.
    pub fn handle_timeout(&mut self, now: Time) {
        self.fire_timers(now);
        self.link.handle_timeout(now);
    }

    /// Lets the reading's timers (tracker, arbiter, a move held for its clock press) due
    /// at or before `now` fire.
    fn fire_timers(&mut self, now: Time) {
        if self.held.as_ref().is_some_and(|(_, due)| *due <= now) {
            self.release();
        }
        match &mut self.reconstructor {
            Reconstructor::None => {}
            Reconstructor::Tracker(t) => {
                if t.poll_timeout().is_some_and(|due| due <= now) {
                    t.handle_timeout(now);
                }
                if let Some(a) = &mut self.arbiter
                    && a.poll_timeout().is_some_and(|due| due <= now)
                {
                    a.handle_view(now, &view(t));
                }
            }
            Reconstructor::Matcher(m) => {
                if m.poll_timeout().is_some_and(|due| due <= now) {
                    m.handle_timeout(now);
                }
            }
        }
        self.collect(now);
    }

    /// When [`BoardCore::handle_timeout`] should next be called, if at all.
    pub fn poll_timeout(&self) -> Option<Time> {
        let held = self.held.as_ref().map(|(_, due)| *due);
        let own = match &self.reconstructor {
            Reconstructor::None => None,
            Reconstructor::Tracker(t) => {
                let a = self.arbiter.as_ref().and_then(Arbiter::poll_timeout);
                match (t.poll_timeout(), a) {
                    (Some(x), Some(y)) => Some(x.min(y)),
                    (x, y) => x.or(y),
                }
            }
            Reconstructor::Matcher(m) => m.poll_timeout(),
        };
        [own, held, self.link.poll_timeout()]
            .into_iter()
            .flatten()
            .min()
    }

    fn collect(&mut self, now: Time) {
        let mut decided = Vec::new();
        match &mut self.reconstructor {
            Reconstructor::None => {}
            Reconstructor::Tracker(t) => {
                while let Some(e) = t.poll_event() {
                    if let Some(a) = &mut self.arbiter {
                        a.handle_event(&e, &view(t));
                        decided.push(e);
                        while let Some(v) = a.poll_event() {
                            decided.push(v);
                        }
                    } else {
                        decided.push(e);
                    }
                }
                if let Some(a) = &mut self.arbiter {
                    a.handle_view(now, &view(t));
                    while let Some(v) = a.poll_event() {
                        decided.push(v);
                    }
                }
            }
            Reconstructor::Matcher(m) => {
                while let Some(e) = m.poll_event() {
                    decided.push(e);
                }
            }
        }
        for e in decided {
            self.push_decided(e);
        }
    }

    /// Queues an event the reconstructor or the arbiter decided. A move whose mover's clock
    /// still runs is held until the press (or [`PRESS_WAIT`], or the next decision) so that
    /// it carries the clock's times at the press; it keeps the time it was decided.
    fn push_decided(&mut self, mut e: TimedEvent) {
        self.release();
        if !self.no_press_wait && self.clocks.awaits_press(&e.event) {
            let due = e.t + PRESS_WAIT;
            self.held = Some((e, due));
        } else {
            self.clocks.stamp(e.t, &mut e.event);
            self.events.push_back(e);
        }
    }

    /// Sends the held move, if any, with the clock times known now.
    fn release(&mut self) {
        if let Some((mut e, _)) = self.held.take() {
            self.clocks.stamp(e.t, &mut e.event);
            self.events.push_back(e);
        }
    }

    /// Starts a new game from `fen` now, whatever the board shows (a user's command).
    pub fn new_game(&mut self, now: Time, fen: &str) -> Result<(), GameError> {
        match &mut self.reconstructor {
            Reconstructor::Tracker(t) => t.command_new_game(now, fen)?,
            _ => return Err(GameError::NotTracked),
        }
        self.collect(now);
        Ok(())
    }

    /// Takes over a game already played and published (after a restart, or a game that
    /// followed its board from another port): its start FEN and its moves in UCI notation.
    /// What was decided about the game it replaces and not yet polled (a move held for its
    /// clock press among it) is dropped, and the arbiter starts afresh; the board as sensed
    /// is then explained from the game's position, so plies played meanwhile are found.
    ///
    /// The game is taken over by a fresh tracker, handed again what the board reported since
    /// its last whole report, in order: a ply under way when the game was taken over is
    /// followed as if the game had been there all along.
    pub fn resume(&mut self, now: Time, fen: &str, moves: &[UciMove]) -> Result<(), GameError> {
        let Reconstructor::Tracker(t) = &mut self.reconstructor else {
            return Err(GameError::NotTracked);
        };
        let items = self.replay.clone().unwrap_or_else(|| {
            vec![Sensed::Board {
                t: now,
                board: self.sensing.board(),
                orientation: self.sensing.orientation(),
                first: false,
            }]
        });
        let since = items.first().map_or(now, sensed_time).min(now);
        let mut fresh = Tracker::new(t.config().clone());
        fresh.resume(since, fen, moves)?;
        let arbiter = self
            .arbiter
            .as_ref()
            .map(|a| Arbiter::new(a.config().clone()));
        if let Some(a) = &arbiter {
            fresh.set_gate(Some(a.gate(fresh.config().piece_identity)));
        }
        **t = fresh;
        self.arbiter = arbiter;
        self.held = None;
        self.events.clear();
        for item in &items {
            if let Reconstructor::Tracker(t) = &mut self.reconstructor {
                match item {
                    Sensed::Board { t: at, board, .. } => t.handle_board(*at, board),
                    Sensed::Change { t: at, change } => t.handle_change(*at, *change),
                    Sensed::ClockPress { t: at } => t.handle_clock_press(*at),
                    _ => {}
                }
            }
            self.collect(sensed_time(item));
        }
        self.fire_timers(now);
        self.collect(now);
        Ok(())
    }

    /// The next game event decided.
    pub fn poll_event(&mut self) -> Option<TimedEvent> {
        self.events.pop_front()
    }

    /// The next sensed item (only with [`CoreConfig::keep_sensed`]).
    pub fn poll_sensed(&mut self) -> Option<Sensed> {
        self.sensed.pop_front()
    }

    fn route(&mut self, item: &Sensed) {
        match item {
            Sensed::Link { t, info } => {
                let orientation = self.sensing().orientation();
                self.link.link_info(*t, info.clone(), orientation);
            }
            Sensed::Skipped { t, .. } => self.link.skipped(*t),
            _ => {}
        }
        if let Reconstructor::Tracker(tracker) = &mut self.reconstructor {
            match item {
                Sensed::Board { .. } => self.replay = Some(vec![item.clone()]),
                Sensed::Change { .. } | Sensed::ClockPress { .. } => {
                    if let Some(r) = &mut self.replay {
                        if r.len() < MAX_REPLAY {
                            r.push(item.clone());
                        } else {
                            self.replay = None;
                        }
                    }
                }
                _ => {}
            }
            match item {
                Sensed::Board { t, board, .. } => tracker.handle_board(*t, board),
                Sensed::Change { t, change } => tracker.handle_change(*t, *change),
                Sensed::ClockPress { t } => tracker.handle_clock_press(*t),
                _ => {}
            }
        }
        if let Reconstructor::Matcher(m) = &mut self.reconstructor {
            match item {
                Sensed::Board { t, board, .. } => m.handle_board(*t, board),
                Sensed::Change { t, change } => m.handle_change(*t, *change),
                _ => {}
            }
        }
        match item {
            Sensed::Board {
                t,
                board,
                orientation,
                first: true,
            } => self.events.push_back(TimedEvent {
                t: *t,
                event: GameEvent::Board {
                    placement: board.to_string(),
                    orientation: *orientation,
                },
            }),
            Sensed::Clock { t, reading } => {
                self.clocks.observe(*t, *reading);
                if self
                    .held
                    .as_ref()
                    .is_some_and(|(e, _)| !self.clocks.awaits_press(&e.event))
                {
                    self.release();
                }
                self.events.push_back(TimedEvent {
                    t: *t,
                    event: GameEvent::Clock {
                        white_ms: reading.white_ms,
                        black_ms: reading.black_ms,
                        running: reading.running,
                    },
                })
            }
            _ => {}
        }
    }
}

/// What the arbiter looks at, from the tracker.
fn view(t: &Tracker) -> View<'_> {
    View {
        game: t.game(),
        pending: t.pending_log(),
        sensed: t.sensed(),
        held: t.held(),
        identity: t.config().piece_identity,
    }
}

/// When a sensed item was read.
fn sensed_time(item: &Sensed) -> Time {
    match item {
        Sensed::Board { t, .. }
        | Sensed::Change { t, .. }
        | Sensed::ClockPress { t }
        | Sensed::Clock { t, .. }
        | Sensed::Link { t, .. }
        | Sensed::Skipped { t, .. }
        | Sensed::Message { t, .. } => *t,
    }
}
