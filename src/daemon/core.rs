//! The seam between a board's task and its sans-IO core.
//!
//! A board's task ([`super::board`]) owns the port, the clock and the journal; everything it
//! decides about the game it asks of a [`Core`]: bytes and time in, events, bytes to send
//! and the next wake-up out, plus [`CoreCommand`]s from users (new game, set position, show
//! a move, resume a journalled game). [`PipelineCore`] is the production core, built on
//! [`crate::pipeline::BoardCore`]; tests drive the task with cores of their own. This module
//! knows nothing of tokio, files or D-Bus.
//!
//! - handlers: [`Core::handle_connected`], [`Core::handle_input`], [`Core::handle_timeout`],
//!   [`Core::handle_command`]
//! - polls: [`Core::poll_event`], [`Core::poll_transmit`], [`Core::poll_timeout`]
//! - getters: [`Core::placement`], [`Core::orientation`], [`Core::serial`]

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Square};

use crate::event::{GameEvent, Orientation, TimedEvent};
use crate::game::notation::fen_of;
use crate::game::record::GameRecord;
use crate::pipeline::{BoardCore, CoreConfig, Reconstruction};
use crate::protocol::{Protocol, dgt, millennium};
use crate::sensing::SensingConfig;
use crate::time::Time;
use crate::tracker::TrackerConfig;

use super::config::{Laws, TouchMove};

/// The FEN of the standard start position.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A position a game starts from, checked to be legal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSetup {
    /// The full FEN, normalised.
    pub fen: String,
    /// Whether Chess960 castling rules apply (castling rights that only Chess960 explains).
    pub chess960: bool,
}

impl GameSetup {
    /// The standard start position.
    pub fn standard() -> Self {
        GameSetup {
            fen: START_FEN.to_string(),
            chess960: false,
        }
    }

    /// Reads a FEN; the empty string is the standard start position.
    ///
    /// ```
    /// use eboardd::daemon::core::GameSetup;
    /// assert!(!GameSetup::parse("").unwrap().chess960);
    /// assert!(GameSetup::parse("8/8/8/8/8/8/8/8 w - - 0 1").is_err());
    /// ```
    pub fn parse(fen: &str) -> Result<GameSetup, String> {
        let fen = fen.trim();
        if fen.is_empty() {
            return Ok(GameSetup::standard());
        }
        let parsed: Fen = fen
            .parse()
            .map_err(|e| format!("not a FEN ({e}): {fen:?}"))?;
        match parsed
            .clone()
            .into_position::<Chess>(CastlingMode::Standard)
        {
            Ok(pos) => Ok(GameSetup {
                fen: fen_of(&pos),
                chess960: false,
            }),
            Err(standard) => match parsed.into_position::<Chess>(CastlingMode::Chess960) {
                Ok(pos) => Ok(GameSetup {
                    fen: Fen::from_position(&pos, shakmaty::EnPassantMode::Legal).to_string(),
                    chess960: true,
                }),
                Err(_) => Err(format!("not a legal position ({standard}): {fen:?}")),
            },
        }
    }

    /// The position, with its castling mode.
    pub fn position(&self) -> Option<(Chess, CastlingMode)> {
        let mode = if self.chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let fen: Fen = self.fen.parse().ok()?;
        fen.into_position(mode).ok().map(|p| (p, mode))
    }
}

/// A command into a board's core. The shell has checked every argument.
#[derive(Debug, Clone, PartialEq)]
pub enum CoreCommand {
    /// A new game starts from `setup` (the board is expected to be set up for it).
    NewGame(GameSetup),
    /// The game goes on from `setup`, which is what stands on the board now.
    SetPosition(GameSetup),
    /// Resume the game journalled before a restart: the events of the game so far, in order,
    /// starting with its `new_game`. The core must not emit them again.
    Resume(Vec<GameEvent>),
    /// Show a move on the board (LEDs) and clock: an opponent's move to be carried out.
    ShowMove(UciMove),
    /// Light these squares (none: all off).
    SetLeds(Vec<Square>),
    /// Show text on the clock.
    ClockText(String),
}

/// Why a core refused a command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// The board or this build cannot do it.
    #[error("not supported: {0}")]
    Unsupported(String),
    /// The command does not fit the game or the board now.
    #[error("{0}")]
    Rejected(String),
}

/// One board's core as the board's task drives it (sans-IO).
pub trait Core: Send {
    /// The port was (re)opened: queue the start-up commands and read the whole board again
    /// (moves made while it was away are then recovered or reported as a `mismatch`).
    fn handle_connected(&mut self, now: Time);
    /// Handles bytes read from the board at `now`.
    fn handle_input(&mut self, now: Time, bytes: &[u8]);
    /// Lets timers due at or before `now` fire.
    fn handle_timeout(&mut self, now: Time);
    /// Carries out a user's command.
    fn handle_command(&mut self, now: Time, command: CoreCommand) -> Result<(), CommandError>;
    /// The next game event decided.
    fn poll_event(&mut self) -> Option<TimedEvent>;
    /// The next bytes to write to the board.
    fn poll_transmit(&mut self) -> Option<Vec<u8>>;
    /// When [`Core::handle_timeout`] should next be called, if at all.
    fn poll_timeout(&self) -> Option<Time>;
    /// The sensed piece placement (FEN placement), once the board has reported it.
    fn placement(&self) -> Option<String>;
    /// Which way round the board stands, once known.
    fn orientation(&self) -> Option<Orientation>;
    /// The board's serial number, once it said it.
    fn serial(&self) -> Option<String>;
}

/// How a board's core is set up.
#[derive(Debug, Clone, PartialEq)]
pub struct CoreSettings {
    /// The fixed orientation, or `None` to tell from the start position.
    pub orientation: Option<Orientation>,
    /// The settle window.
    pub settle: Duration,
    /// The edition of the Laws.
    pub laws: Laws,
    /// The touch-move mode.
    pub touch_move: TouchMove,
}

/// Makes the core for a board once its protocol is known.
pub type CoreFactory = Arc<dyn Fn(Protocol, &CoreSettings) -> Box<dyn Core> + Send + Sync>;

/// The production core factory: a [`PipelineCore`] per board.
pub fn pipeline_factory() -> CoreFactory {
    Arc::new(|protocol, settings| Box::new(PipelineCore::new(protocol, settings)))
}

/// How often a DGT board is asked for its serial number to prove the link is alive.
pub const DGT_KEEPALIVE: Duration = Duration::from_secs(1);

/// The production core: [`BoardCore`] (codec, sensed board, tracker) plus the protocol's
/// start-up and keep-alive. New games, set positions and journalled games to resume go into
/// the tracker.
#[derive(Debug)]
pub struct PipelineCore {
    protocol: Protocol,
    core: BoardCore,
    transmit: VecDeque<Vec<u8>>,
    events: VecDeque<TimedEvent>,
    keepalive: Option<Time>,
}

impl PipelineCore {
    /// A core for a board speaking `protocol`.
    pub fn new(protocol: Protocol, settings: &CoreSettings) -> Self {
        let tracker = TrackerConfig {
            settle: settings.settle,
            ..TrackerConfig::default()
        };
        let config = CoreConfig {
            sensing: SensingConfig {
                orientation: settings.orientation,
                expected: None,
            },
            start_fen: None,
            keep_sensed: false,
            reconstruction: Reconstruction::Tracker,
            tracker,
        };
        PipelineCore {
            protocol,
            core: BoardCore::new(protocol, config),
            transmit: VecDeque::new(),
            events: VecDeque::new(),
            keepalive: None,
        }
    }
}

impl Core for PipelineCore {
    fn handle_connected(&mut self, now: Time) {
        self.core.handle_reconnected();
        self.transmit.extend(match self.protocol {
            Protocol::Dgt => dgt::startup_commands(),
            Protocol::Millennium => millennium::startup_commands(),
        });
        self.keepalive = keepalive_period(self.protocol).map(|p| now + p);
    }

    fn handle_input(&mut self, now: Time, bytes: &[u8]) {
        self.core.handle_input(now, bytes);
    }

    fn handle_timeout(&mut self, now: Time) {
        self.core.handle_timeout(now);
        if let Some(due) = self.keepalive.filter(|due| *due <= now) {
            self.transmit.extend(keepalive(self.protocol));
            self.keepalive = keepalive_period(self.protocol).map(|p| due.max(now) + p);
        }
    }

    fn handle_command(&mut self, now: Time, command: CoreCommand) -> Result<(), CommandError> {
        match command {
            CoreCommand::NewGame(setup) | CoreCommand::SetPosition(setup) => self
                .core
                .new_game(now, &setup.fen)
                .map_err(CommandError::Rejected),
            CoreCommand::Resume(events) => {
                let mut record = GameRecord::default();
                for e in &events {
                    record.apply(e);
                }
                let Some(fen) = record.start_fen.clone() else {
                    return Err(CommandError::Rejected(
                        "the journal holds no game start".to_string(),
                    ));
                };
                let moves: Vec<String> = record.moves.iter().map(|m| m.uci.clone()).collect();
                self.core
                    .resume(now, &fen, &moves)
                    .map_err(CommandError::Rejected)
            }
            CoreCommand::ShowMove(_) | CoreCommand::SetLeds(_) | CoreCommand::ClockText(_) => {
                Err(CommandError::Unsupported(format!(
                    "LEDs and clock text for {} boards arrive with the codec",
                    self.protocol
                )))
            }
        }
    }

    fn poll_event(&mut self) -> Option<TimedEvent> {
        self.events.pop_front().or_else(|| self.core.poll_event())
    }

    fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.transmit.pop_front()
    }

    fn poll_timeout(&self) -> Option<Time> {
        match (self.core.poll_timeout(), self.keepalive) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn placement(&self) -> Option<String> {
        let sensing = self.core.sensing();
        sensing.has_report().then(|| sensing.board().to_string())
    }

    fn orientation(&self) -> Option<Orientation> {
        let sensing = self.core.sensing();
        sensing.has_report().then(|| sensing.orientation())
    }

    fn serial(&self) -> Option<String> {
        None
    }
}

/// How often the board is poked to prove the link is alive, if at all.
fn keepalive_period(protocol: Protocol) -> Option<Duration> {
    match protocol {
        Protocol::Dgt => Some(DGT_KEEPALIVE),
        Protocol::Millennium => None,
    }
}

/// The keep-alive: DGT_RETURN_SERIALNR, as picochess's watchdog sends it.
fn keepalive(protocol: Protocol) -> Option<Vec<u8>> {
    match protocol {
        Protocol::Dgt => dgt::Command::ReturnSerialNr.to_bytes().ok(),
        Protocol::Millennium => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_fen_is_the_standard_start() {
        assert_eq!(
            GameSetup::parse("  ").expect("start"),
            GameSetup::standard()
        );
    }

    #[test]
    fn illegal_and_malformed_fens_are_refused_with_the_reason() {
        let e = GameSetup::parse("rnbqkbnr/pppppppp/8/8").expect_err("short");
        assert!(e.contains("not a FEN"), "{e}");
        let e = GameSetup::parse("8/8/8/8/8/8/8/8 w - - 0 1").expect_err("no kings");
        assert!(e.contains("not a legal position"), "{e}");
    }

    #[test]
    fn chess960_castling_rights_make_a_chess960_setup() {
        let s = GameSetup::parse("bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w EGeg - 0 1")
            .expect("960");
        assert!(s.chess960);
        assert!(s.position().is_some());
    }

    #[test]
    fn dgt_core_starts_with_a_reset_and_keeps_the_link_alive() {
        let settings = CoreSettings {
            orientation: None,
            settle: Duration::from_millis(300),
            laws: Laws::default(),
            touch_move: TouchMove::default(),
        };
        let mut core = PipelineCore::new(Protocol::Dgt, &settings);
        core.handle_connected(Time::ZERO);
        assert_eq!(core.poll_transmit(), Some(vec![0x40]));
        while core.poll_transmit().is_some() {}
        let due = core.poll_timeout().expect("keep-alive timer");
        assert_eq!(due, Time::from_millis(1000));
        core.handle_timeout(due);
        assert_eq!(core.poll_transmit(), Some(vec![0x45]));
        assert_eq!(core.poll_timeout(), Some(Time::from_millis(2000)));
    }

    #[test]
    fn pipeline_core_announces_a_commanded_new_game() {
        let settings = CoreSettings {
            orientation: None,
            settle: Duration::from_millis(300),
            laws: Laws::default(),
            touch_move: TouchMove::default(),
        };
        let mut core = PipelineCore::new(Protocol::Millennium, &settings);
        core.handle_command(Time::ZERO, CoreCommand::NewGame(GameSetup::standard()))
            .expect("accepted");
        assert_eq!(
            core.poll_event().map(|e| e.event),
            Some(GameEvent::NewGame {
                fen: START_FEN.into(),
                chess960: false
            })
        );
        let leds = core.handle_command(Time::ZERO, CoreCommand::SetLeds(vec![Square::E2]));
        assert!(matches!(leds, Err(CommandError::Unsupported(_))));
    }
}
