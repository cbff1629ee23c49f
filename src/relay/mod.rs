//! The broadcast relay: the games of every board as live PGN (issue 7).
//!
//! - [`pgn`]: the tags of a broadcast game and its PGN text.
//! - [`files`]: the PGN files of `--pgn-dir`, rewritten atomically on every change.

pub mod files;
pub mod pgn;
