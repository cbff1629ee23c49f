//! eboardd's integration tests, in one binary (one link instead of one per file). Each
//! module is one area; `daemon` runs the daemon end to end on a private bus. Run one
//! area with `cargo test --test integration tracker_moves::` (a module path filter).

mod cli_errors;
mod daemon;
mod demo;
mod dgt_codec;
mod dgt_throughput;
mod fuzz_found;
mod generated_docs;
mod laws_articles;
mod laws_claims;
mod laws_common;
mod laws_replay;
mod laws_takebacks;
mod millennium_codec;
mod millennium_throughput;
mod millennium_traces;
mod record_pty;
mod relay_push;
mod replay_golden;
mod sim_boards;
mod sim_devices;
mod sim_hand;
mod sim_pty;
mod sim_shared_data;
mod sim_traces;
mod tracker_common;
mod tracker_corrections;
mod tracker_games;
mod tracker_moves;
mod tracker_samples;
mod tracker_scan;
mod uci_common;
mod uci_daemon;
mod uci_game;
mod uci_trace;
