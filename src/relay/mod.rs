//! The broadcast relay: the games of every board as live PGN (issue 7).
//!
//! - [`pgn`]: the tags of a broadcast game and its PGN text.

pub mod pgn;
