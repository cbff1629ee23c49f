//! The daemon end to end: a private bus started by the test (busd, in process), boards on
//! pseudo-terminals, a D-Bus client watching. Nothing needs to be installed.

mod cli;
mod game;
mod introspection;
mod links;
mod pgn_dir;
mod pty_board;
mod real_board;
mod restart;
mod script_core;
mod support;
