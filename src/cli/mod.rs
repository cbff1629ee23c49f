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
use clap::{Args, Parser, Subcommand};

use crate::daemon::config::ProtocolChoice;
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

/// Reads `auto` (ask the board) or a protocol named on the command line.
pub fn protocol_choice_parser() -> impl TypedValueParser<Value = ProtocolChoice> {
    let names = std::iter::once("auto").chain(Protocol::ALL.map(Protocol::as_str));
    PossibleValuesParser::new(names.map(PossibleValue::new))
        .try_map(|name| name.parse::<ProtocolChoice>())
}

/// Reads an edition of the FIDE Laws named on the command line, offering every one
/// (`Edition::ALL`).
pub fn edition_parser() -> impl TypedValueParser<Value = Edition> {
    let values = Edition::ALL.map(|e| PossibleValue::new(e.name()).help(e.summary()));
    PossibleValuesParser::new(values).try_map(|name| name.parse::<Edition>())
}

/// Reads a touch-move mode named on the command line, offering every one
/// (`TouchMove::ALL`).
pub fn touch_move_parser() -> impl TypedValueParser<Value = TouchMove> {
    let values = TouchMove::ALL.map(|m| PossibleValue::new(m.name()).help(m.summary()));
    PossibleValuesParser::new(values).try_map(|name| name.parse::<TouchMove>())
}

/// How the game is judged: the arbiter's options, shared by the subcommands that decide
/// the game.
#[derive(Debug, Clone, Args)]
pub struct LawsArgs {
    /// The edition of the FIDE Laws the arbiter applies and cites [default: the trace's
    /// `laws` header, else fide-2023].
    #[arg(long, value_parser = edition_parser())]
    pub laws: Option<Edition>,
    /// What the arbiter does with touch-move breaches.
    #[arg(long, value_parser = touch_move_parser(), default_value_t = TouchMove::Report)]
    pub touch_move: TouchMove,
}

impl LawsArgs {
    /// The arbiter's configuration; `header` is a trace's `laws` header, used when `--laws`
    /// is not given. An unknown header edition is an error.
    pub fn config(&self, header: Option<&str>) -> Result<LawsConfig, CliError> {
        let edition = match (self.laws, header) {
            (Some(edition), _) => edition,
            (None, Some(h)) => h
                .trim()
                .parse::<Edition>()
                .map_err(|e| CliError::input(format!("trace header: {e}")))?,
            (None, None) => Edition::default(),
        };
        Ok(LawsConfig {
            edition,
            touch_move: self.touch_move,
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
