//! eboardd: a Linux daemon for electronic chessboards.
//!
//! This crate is the shell: the daemon, its sinks (D-Bus, UCI, relay, LiveChess, MQTT) and
//! the command line. It stands on two crates of the workspace: `eboardd-core` (protocol
//! codecs and board drivers, sensing, tracker, laws, the board core, the game record, the
//! [`event::GameEvent`] stream, the trace format; sans-IO, handed bytes and the current
//! [`time::Time`], handing back events) and `eboardd-sim` (the simulated hand, board
//! models, emulated boards, playback and the accuracy benchmark). Both are re-exported
//! here under their old paths, so `eboardd::tracker`, `eboardd::sim` and
//! `eboardd::daemon::core` name what they always named.

pub mod cli;
pub mod daemon;
pub mod dbus;
pub mod device;
pub mod link;
pub mod livechess;
pub mod mqtt;
pub mod relay;
pub mod timer;
pub mod uci;
pub mod web;

pub use eboardd_core::{
    event, game, laws, pipeline, protocol, sensing, text, time, trace, tracker,
};
pub use eboardd_sim as sim;
pub use eboardd_sim::{bench, playback};
