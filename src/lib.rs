//! eboardd: a Linux daemon for electronic chessboards.
//!
//! The crate is layered as one way through the house: `protocol` (bytes ⇄ messages),
//! `sensing` (what stands on each square), `tracker` (lifts and placements → confirmed
//! moves), `laws` (the arbiter: FIDE Article 4 by edition), then the [`event::GameEvent`]
//! stream that every sink reads. Everything up to the event stream is sans-IO: it is handed
//! bytes and the current [`time::Time`] and hands back events; the shell (`device`,
//! `daemon`, the CLI) owns ports, clocks and tasks.

pub mod bench;
pub mod cli;
pub mod daemon;
pub mod dbus;
pub mod device;

pub mod event;
pub mod game;
pub mod laws;
pub mod livechess;
pub mod mqtt;
pub mod pipeline;
pub mod playback;
pub mod protocol;
pub mod relay;
pub mod sensing;
pub mod sim;
pub mod text;
pub mod time;
pub mod timer;
pub mod trace;
pub mod tracker;
pub mod uci;
pub mod web;
