//! A board on a live link: the seam between the shell that owns its port and its sans-IO
//! core.
//!
//! The shell (the daemon's board task, or the device of `watch`, `record`, `demo` and
//! `uci --device`) owns the port, the clock and the journal; everything it
//! decides about the game it asks of a [`Core`]: bytes and time in, events, bytes to send
//! and the next wake-up out, plus [`CoreCommand`]s from users (new game, set position, show
//! a move, resume a journalled game). [`BoardCore`] is the production core (its link side
//! is in [`link`]); tests drive the task with cores of their own. This module
//! knows nothing of tokio, files or D-Bus.
//!
//! - handlers: [`Core::handle_connected`], [`Core::handle_input`], [`Core::handle_timeout`],
//!   [`Core::handle_command`]
//! - polls: [`Core::poll_event`], [`Core::poll_transmit`], [`Core::poll_timeout`]
//! - getters: [`Core::placement`], [`Core::orientation`], [`Core::serial`],
//!   [`Core::identity`], [`Core::link_lost`]
//!
//! What differs between board types (start-up and pacing, keep-alive, identity, the clock,
//! LED encoding, register handshakes) is the board type's driver
//! ([`crate::protocol::driver`]); the production core is the same for all of them.

use std::sync::Arc;
use std::time::Duration;

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Square};

use crate::event::{GameEvent, Orientation, TimedEvent};
use crate::game::notation::fen_of;
pub use crate::game::start::FenError;
use crate::game::start::read_fen;
use crate::laws::{Edition, TouchMove};
use crate::protocol::Protocol;
use crate::time::Time;

pub(crate) mod link;

pub use crate::pipeline::BoardCore;
pub use link::LED_GAP;

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
    /// use eboardd_core::board::GameSetup;
    /// assert!(!GameSetup::parse("").unwrap().chess960);
    /// assert!(GameSetup::parse("8/8/8/8/8/8/8/8 w - - 0 1").is_err());
    /// ```
    pub fn parse(fen: &str) -> Result<GameSetup, FenError> {
        if fen.trim().is_empty() {
            return Ok(GameSetup::standard());
        }
        let (pos, mode) = read_fen(fen)?;
        Ok(GameSetup {
            fen: fen_of(&pos),
            chess960: mode == CastlingMode::Chess960,
        })
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
    ShowMove {
        /// The move, legal in the game position.
        uci: UciMove,
        /// The move in SAN (filled in by the board's task, which knows the position).
        san: String,
    },
    /// Light these squares (none: all off).
    SetLeds(Vec<Square>),
    /// Show text on the clock.
    ClockText(String),
    /// The board stands this way round from now on (no longer told from the start
    /// position); the sensed board is read again that way.
    SetOrientation(Orientation),
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
    /// What tells this board from every other (a DGT board's serial number), once it said
    /// it; `None` for boards that cannot be told apart.
    fn identity(&self) -> Option<String> {
        None
    }
    /// Whether the board says its identity soon after the port is opened: the board's task
    /// then holds the game's events back until it did (or gives up waiting), in case the
    /// board on this port is another one, whose game is elsewhere.
    fn tells_identity(&self) -> bool {
        false
    }
    /// Why the link counts as dead although the port is open (the board stopped answering),
    /// once it does: the task then closes the port and opens it again.
    fn link_lost(&self) -> Option<String> {
        None
    }
}

/// How a board's core is set up.
#[derive(Debug, Clone, PartialEq)]
pub struct CoreSettings {
    /// The fixed orientation, or `None` to tell from the start position.
    pub orientation: Option<Orientation>,
    /// The settle window.
    pub settle: Duration,
    /// Whose slid pieces wait the slide rest.
    pub slide_rests: crate::tracker::SlideRests,
    /// The edition of the Laws.
    pub laws: Edition,
    /// The touch-move mode.
    pub touch_move: TouchMove,
}

impl Default for CoreSettings {
    /// Orientation told from the start position, the tracker's settle window and slide
    /// rests, and the default Laws and touch-move mode.
    fn default() -> Self {
        CoreSettings {
            orientation: None,
            settle: crate::tracker::DEFAULT_SETTLE,
            slide_rests: Default::default(),
            laws: Default::default(),
            touch_move: Default::default(),
        }
    }
}

/// Makes the core for a board once its protocol is known.
pub type CoreFactory = Arc<dyn Fn(Protocol, &CoreSettings) -> Box<dyn Core> + Send + Sync>;

/// The production core factory: a [`BoardCore`] per board.
pub fn pipeline_factory() -> CoreFactory {
    Arc::new(|protocol, settings| Box::new(BoardCore::for_settings(protocol, settings)))
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
        let e = GameSetup::parse("rnbqkbnr/pppppppp/8/8")
            .expect_err("short")
            .to_string();
        assert!(e.contains("not a FEN"), "{e}");
        let e = GameSetup::parse("8/8/8/8/8/8/8/8 w - - 0 1")
            .expect_err("no kings")
            .to_string();
        assert!(e.contains("not a legal position"), "{e}");
    }

    #[test]
    fn chess960_castling_rights_make_a_chess960_setup() {
        let s = GameSetup::parse("bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w EGeg - 0 1")
            .expect("960");
        assert!(s.chess960);
        assert!(s.position().is_some());
    }
}
