//! The command line: one binary, one subcommand per job.
//!
//! The definitions here are the user's interface (`eboardd --help`); each subcommand lives
//! in its own file and drives the library. Errors are returned to `main`, which prints them
//! and picks the exit status.

mod bench;
mod demo;
mod record;

mod list;
mod replay;
mod run;
mod sim;
mod watch;

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::protocol::Protocol;

/// eboardd: reads DGT and Millennium e-boards, reconstructs the moves really played,
/// and publishes them.
#[derive(Debug, Parser)]
#[command(name = "eboardd", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Play a real game on an emulated board through the serial path, showing each event.
    Demo(demo::DemoArgs),
    /// Replay a recorded trace and print what eboardd decides, as JSON lines.
    Replay(replay::ReplayArgs),
    /// Run the daemon: boards on their ports, games journalled, the D-Bus service.
    Run(Box<run::RunArgs>),
    /// Follow the running daemon's boards over D-Bus.
    Watch(watch::WatchArgs),
    /// Probe the serial ports and say which have boards on them.
    List(list::ListArgs),
    /// Record a board's traffic to a trace file while printing what it decodes.
    Record(record::RecordArgs),
    /// Record a board's traffic to a trace file while printing what it decodes.

    /// Play a game with the simulated hand on an emulated board and write the trace.
    Sim(sim::SimArgs),
    /// Measure throughput and print the figures.
    Bench(bench::BenchArgs),
}

/// A protocol as named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProtocolArg {
    /// DGT e-boards.
    Dgt,
    /// Millennium ChessLink boards.
    Millennium,
}

impl From<ProtocolArg> for Protocol {
    fn from(p: ProtocolArg) -> Protocol {
        match p {
            ProtocolArg::Dgt => Protocol::Dgt,
            ProtocolArg::Millennium => Protocol::Millennium,
        }
    }
}

/// An error with the exit status it asks for.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct CliError {
    /// What went wrong, for people.
    pub message: String,
    /// The exit status.
    pub status: i32,
}

impl CliError {
    /// An error for bad input (a missing or malformed file): exit status 2.
    pub fn input(message: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
            status: 2,
        }
    }
}

/// Runs the command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Demo(args) => demo::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Record(args) => record::run(args),
        Command::Run(args) => run::run(*args),
        Command::Watch(args) => watch::run(args),
        Command::List(args) => list::run(args),

        Command::Bench(args) => bench::run(args),
        Command::Sim(args) => sim::run(args),
    }
}

/// A path argument.
pub type PathArg = PathBuf;
