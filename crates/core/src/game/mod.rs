//! Chess facts the layers share: start positions and (later) PGN and clocks.
//!
//! Nothing here knows about boards, bytes or time: only positions.

pub mod move_clock;
pub mod notation;
pub mod record;
pub mod start;
