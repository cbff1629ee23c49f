//! The daemon end to end: a private bus started by the test (busd, in process), boards on
//! pseudo-terminals, a D-Bus client watching. Nothing needs to be installed.

mod bus_relay;
mod cli;
mod emulated;
mod emulated_game;
mod emulated_links;
mod faults;
mod faults_bus;
mod faults_edge;
mod faults_input;
mod faults_journal;
mod faults_process;
mod game;
mod introspection;
mod links;
mod live_browser;
mod live_page;
mod livechess;
mod mqtt;
mod mqtt_broker;
mod mqtt_cut;
mod mqtt_lichess;
mod mqtt_outage;
mod mqtt_process;
mod mqtt_tls;
mod pgn_dir;
mod pty_board;
mod real_board;
mod replug;
mod restart;
mod script_core;
mod support;
mod trace_board;
mod web_misuse;
