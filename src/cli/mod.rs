//! The command line: one binary, one subcommand per job.
//!
//! The definitions here are the user's interface (`eboardd --help`); each subcommand lives
//! in its own file and drives the library. Errors are returned to `main`, which prints them
//! and picks the exit status.

mod bench;
mod demo;
mod emulate;
mod record;
mod relay;

mod list;
mod replay;
mod run;
mod sim;
mod uci;
mod watch;

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::laws::{Edition, LawsConfig, TouchMove};
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
    /// Follow the running daemon's boards over D-Bus (or every host's over MQTT).
    Watch(watch::WatchArgs),
    /// Broadcast the boards of many hosts, followed through an MQTT broker: PGN files,
    /// HTTP and the lichess push, in tournament board order.
    Relay(Box<relay::RelayArgs>),
    /// Be a UCI engine for chess GUIs: the bestmove is the move made on the board.
    Uci(uci::UciArgs),
    /// Probe the serial ports and say which have boards on them.
    List(list::ListArgs),
    /// Record a board's traffic to a trace file while printing what it decodes.
    Record(record::RecordArgs),
    /// Play a game with the simulated hand on an emulated board and write the trace.
    Sim(sim::SimArgs),
    /// Put an emulated board on a pseudo-terminal for other programs: played live by the
    /// simulated hand (carrying out the moves shown on it), or replaying a trace.
    Emulate(emulate::EmulateArgs),
    /// Measure throughput and print the figures.
    Bench(bench::BenchArgs),
}

/// Reads a protocol named on the command line, offering every board type in the table
/// (`Protocol::ALL`).
pub fn protocol_parser() -> impl TypedValueParser<Value = Protocol> {
    PossibleValuesParser::new(protocol_values()).try_map(|name| name.parse::<Protocol>())
}

/// Every board type of the table as a command-line value, with its help.
pub fn protocol_values() -> impl Iterator<Item = PossibleValue> {
    Protocol::ALL
        .into_iter()
        .map(|p| PossibleValue::new(p.as_str()).help(p.boards()))
}

/// An edition of the FIDE Laws as named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LawsArg {
    /// The Laws in force from 2023 (the default).
    #[value(name = "fide-2023")]
    Fide2023,
    /// The Laws of 2014 (Article 4 as in 2018).
    #[value(name = "fide-2014")]
    Fide2014,
    /// The classic text of Article 4 (numbered 1–7).
    #[value(name = "fide-classic")]
    FideClassic,
}

impl From<LawsArg> for Edition {
    fn from(a: LawsArg) -> Edition {
        match a {
            LawsArg::Fide2023 => Edition::Fide2023,
            LawsArg::Fide2014 => Edition::Fide2014,
            LawsArg::FideClassic => Edition::FideClassic,
        }
    }
}

/// The touch-move mode as named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum TouchMoveArg {
    /// Publish the move and the violation.
    #[default]
    Report,
    /// Training: a move breaking 4.3/4.4 is not confirmed; a `due` event says what to do.
    Enforce,
    /// Report no touch-move breaches.
    Off,
}

impl From<TouchMoveArg> for TouchMove {
    fn from(a: TouchMoveArg) -> TouchMove {
        match a {
            TouchMoveArg::Report => TouchMove::Report,
            TouchMoveArg::Enforce => TouchMove::Enforce,
            TouchMoveArg::Off => TouchMove::Off,
        }
    }
}

/// How the game is judged: the arbiter's options, shared by the subcommands that decide
/// the game.
#[derive(Debug, Clone, Args)]
pub struct LawsArgs {
    /// The edition of the FIDE Laws the arbiter applies and cites [default: the trace's
    /// `laws` header, else fide-2023].
    #[arg(long, value_enum)]
    pub laws: Option<LawsArg>,
    /// What the arbiter does with touch-move breaches.
    #[arg(long, value_enum, default_value_t = TouchMoveArg::Report)]
    pub touch_move: TouchMoveArg,
}

impl LawsArgs {
    /// The arbiter's configuration; `header` is a trace's `laws` header, used when `--laws`
    /// is not given. An unknown header edition is an error.
    pub fn config(&self, header: Option<&str>) -> Result<LawsConfig, CliError> {
        let edition = match (self.laws, header) {
            (Some(a), _) => Edition::from(a),
            (None, Some(h)) => h
                .trim()
                .parse::<Edition>()
                .map_err(|e| CliError::input(format!("trace header: {e}")))?,
            (None, None) => Edition::default(),
        };
        Ok(LawsConfig {
            edition,
            touch_move: self.touch_move.into(),
            ..LawsConfig::default()
        })
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
        Command::Relay(args) => relay::run(*args),
        Command::Uci(args) => uci::run(args),
        Command::List(args) => list::run(args),

        Command::Bench(args) => bench::run(args),
        Command::Sim(args) => sim::run(args),
        Command::Emulate(args) => emulate::run(args),
    }
}

/// A path argument.
pub type PathArg = PathBuf;
