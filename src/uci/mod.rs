//! The UCI bridge: the board as a chess engine for GUIs, its `bestmove` the move a person
//! made on the board.
//!
//! - [`command`]: the GUI's lines → typed commands;
//! - [`mod@line`]: a game as a line of positions, and where two games meet;
//! - [`options`]: the engine's options (`UCI_Chess960`, `Laws`, `TouchMove`, `SettleMs`);
//! - [`engine`]: the engine itself, sans-IO: lines and board events in, lines and board
//!   actions out;
//! - [`input`]: the GUI's lines, each read with a bound;
//! - [`bridge`]: the thin IO loop (the GUI's lines in, the engine's lines out) that
//!   `eboardd uci` runs beside a board task: [`direct`] opens the board itself, [`follow`]
//!   follows a board of the running daemon over D-Bus.
//!
//! Our dialect of UCI is described in `protocols/uci.md`.

pub mod bridge;
pub mod command;
pub mod direct;
pub mod engine;
pub mod follow;
pub mod input;
pub mod line;
pub mod options;

pub use engine::{Action, Engine, Indication};
