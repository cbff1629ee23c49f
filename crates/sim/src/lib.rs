//! Simulation: a hand that plays real games on a board the way people do, models of the
//! boards that turn the physical board into what their sensors report, and emulated boards
//! that speak each protocol's device side.
//!
//! The pieces, from the game to the bytes the host reads:
//! - [`pgn`]: games read from PGN (standard and Chess960), moves resolved with shakmaty;
//!   [`games`]: a few embedded real games and drills of every special move.
//! - [`hand`]: a seeded [`Hand`] turns a game into a [`Timeline`] of physical changes
//!   (what truly stands on each square, and when; clock presses) and the [`Truth`] a
//!   correct tracker reports: every move with the time of its last physical change, the
//!   behaviours used ([`Behaviour`]), touches and Article 4 observations, takebacks, the
//!   result gesture.
//! - [`board`]: sans-IO sensing models in virtual time. The DGT model scans its squares
//!   one after another over ~200–250 ms and reports a change at the next scan of its
//!   square; the Millennium model sends whole-board status frames per scan (~41 ms) as
//!   its registers say. They give the sensed square changes ([`SensedChange`]) with the
//!   times the host would see them, each traced to the ply that caused it.
//! - [`device`]: emulated boards (sans-IO) that answer every host command, run the models
//!   and encode everything with the protocol codecs, timed on the serial line;
//!   [`device::run_session`] drives one over a game.
//! - [`trace`]: [`generate_trace`] renders a simulated game as a trace in the contract
//!   format, with its truth. [`pty`]: the emulated board on a pseudo-terminal, in real or
//!   scaled time. [`live`]: the same, played live by a [`LiveHand`] one move at a time (a
//!   GUI's moves carried out as the board shows them), for the UCI bridge's tests.
//!
//! Everything but [`pty`] and [`live`] (the parts that touch a clock or a file
//! descriptor) is deterministic: no threads, no sleeps, no clocks, no files. A
//! seed gives the same timeline, bytes and truth on every machine ([`rng`] uses no
//! platform maths). [`simulate`] runs hand and sensing model for one game without bytes.
//!
//! ```
//! use eboardd_core::protocol::Protocol;
//! use eboardd_sim::{HandOptions, games, generate_trace, trace::TraceOptions};
//!
//! let game = &games::real_games()[0];
//! let options = TraceOptions { hand: HandOptions::torture(), ..TraceOptions::default() };
//! let out = generate_trace(game, Protocol::Dgt, 42, &options).unwrap();
//! assert!(out.text.starts_with("# eboard-trace 1\n# protocol: dgt\n"));
//! let json = out.truth.to_json(); // san, uci, move_end_ms, observations, notes...
//! assert!(json.contains("move_end_ms"));
//! ```

pub mod behaviour;
pub mod bench;
pub mod board;
pub mod device;
pub mod games;
pub mod hand;
mod kinds;
pub mod live;
pub mod pgn;
pub mod playback;
pub mod pty;
pub mod rng;
pub mod timeline;
pub mod trace;
pub mod truth;

pub use behaviour::Behaviour;
pub use board::{BoardModel, SensedChange};
pub use hand::{Hand, HandOptions, LiveHand, Performance};
pub use pgn::{Game, PgnError};
pub use timeline::{Part, PhysicalEvent, Timeline};
pub use trace::{GeneratedTrace, TraceOptions, generate_trace};
pub use truth::{PlyTruth, Truth};

use eboardd_core::protocol::Protocol;

/// Something the simulation could not do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// The game could not be read.
    #[error(transparent)]
    Pgn(#[from] PgnError),
    /// Something the simulation cannot do (yet), or could not write.
    #[error("{0}")]
    Unsupported(String),
    /// The hand's physical board and the game disagree: a bug in the simulation.
    #[error("simulation inconsistent at ply {ply}: {detail}")]
    Inconsistent {
        /// The ply being played.
        ply: u32,
        /// What went wrong.
        detail: String,
    },
}

/// One simulated game: the hand's performance and what the board's sensors reported.
#[derive(Debug, Clone)]
pub struct Simulation {
    /// The physical changes and the ground truth.
    pub performance: Performance,
    /// The sensed square changes with the times the host sees them.
    pub sensed: Vec<SensedChange>,
    /// The board model as it stood at the end (for its messages and settings).
    pub model: BoardModel,
}

impl Simulation {
    /// The ground truth.
    pub fn truth(&self) -> &Truth {
        &self.performance.truth
    }
}

/// Plays `game` with a hand seeded by `seed` on a board of `protocol` with its default
/// settings, and senses it.
pub fn simulate(
    game: &Game,
    protocol: Protocol,
    seed: u64,
    options: &HandOptions,
) -> Result<Simulation, SimError> {
    let performance = Hand::new(seed, *options).play(game)?;
    let mut model = BoardModel::new(protocol, &performance.timeline.start, seed);
    let sensed = model.run(&performance.timeline);
    Ok(Simulation {
        performance,
        sensed,
        model,
    })
}
