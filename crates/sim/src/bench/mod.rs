//! What the benchmarks compare against and measure with.
//!
//! The fixed still-board matcher stands for what the peers do (wait a fixed time for a
//! still board, then look for one legal move that gives it), so the benchmark can put its
//! figures beside ours from the same run. Nothing here is used by the daemon.

pub mod accuracy;
pub mod laws;
pub mod still_board;
