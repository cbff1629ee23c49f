//! The broadcast relay: the games of every board as live PGN (issue 7).
//!
//! - [`pgn`]: the tags of a broadcast game and its PGN text.
//! - [`files`]: the PGN files of `--pgn-dir`, rewritten atomically on every change.
//! - [`http`]: `--relay-listen`, the same over HTTP with server-sent events.
//! - [`push`]: when to push to a broadcast server (at most once a second, back-off).
//! - [`lichess`]: `--lichess-round`, the round's PGN pushed to a lichess broadcast.
//! - [`page`]: the live page at `/` of `--relay-listen`, for people.

pub mod files;
pub mod http;
pub mod lichess;
pub mod page;
pub mod pgn;
pub mod push;
