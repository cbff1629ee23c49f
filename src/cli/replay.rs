//! `eboardd replay`: a trace through the same core the daemon runs, in trace time.

use std::io::{self, BufWriter, Write};

use clap::{Args, ValueEnum};

use super::{CliError, LawsArgs, PathArg};
use crate::event::TimedEvent;
use crate::game::record::GameRecord;
use crate::laws::LawsConfig;
use crate::pipeline::{BoardCore, CoreConfig};
use crate::relay::pgn::{PgnTags, game_pgn};
use crate::time::Time;
use crate::trace::{Direction, Trace, read_trace_file};

/// How long after the last line of a trace timers may still fire.
const TAIL_MS: u64 = 60_000;

/// Arguments of `eboardd replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// What to print.
    #[arg(long, value_enum, default_value_t = ReplayFormat::Jsonl)]
    pub format: ReplayFormat,
    /// How the game is judged.
    #[command(flatten)]
    pub laws: LawsArgs,
    /// The trace file.
    pub trace: PathArg,
}

/// Output formats of `eboardd replay`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReplayFormat {
    /// The game events as JSON lines (the contract).
    Jsonl,
    /// The game as PGN.
    Pgn,
    /// One confirmed move per line in UCI notation, as the game ends up.
    Uci,
    /// Every decoded message and square change with its time (debugging).
    Sensors,
}

/// Runs `eboardd replay`.
pub fn run(args: ReplayArgs) -> anyhow::Result<()> {
    let trace = read_trace_file(&args.trace)
        .map_err(|e| CliError::input(format!("{}: {e}", args.trace.display())))?;
    let stdout = io::stdout();
    let laws = args.laws.config(trace.header.laws.as_deref())?;
    let mut out = BufWriter::new(stdout.lock());
    replay(&trace, args.format, laws, &mut out)?;
    out.flush()?;
    Ok(())
}

/// Replays `trace`, judged by `laws`, and writes the chosen output.
pub fn replay(
    trace: &Trace,
    format: ReplayFormat,
    laws: LawsConfig,
    out: &mut impl Write,
) -> io::Result<()> {
    let config = CoreConfig {
        start_fen: trace.header.start_fen.clone(),
        keep_sensed: format == ReplayFormat::Sensors,
        laws,
        ..CoreConfig::default()
    };
    let mut core = BoardCore::new(trace.header.protocol, config);
    let mut record = GameRecord::default();
    let mut last = Time::ZERO;
    for chunk in trace
        .chunks
        .iter()
        .filter(|c| c.dir == Direction::FromBoard)
    {
        advance_timers(&mut core, chunk.t);
        emit(&mut core, format, &mut record, out)?;
        core.handle_input(chunk.t, &chunk.bytes);
        emit(&mut core, format, &mut record, out)?;
        last = chunk.t;
    }
    advance_timers(
        &mut core,
        Time::from_millis(last.as_micros() / 1000 + TAIL_MS),
    );
    emit(&mut core, format, &mut record, out)?;
    match format {
        ReplayFormat::Uci => out.write_all(record.uci_lines().as_bytes())?,
        ReplayFormat::Pgn => {
            let title = trace
                .header
                .other
                .iter()
                .find(|(k, _)| k == "title")
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| "eboardd replay".to_string());
            let tags = PgnTags {
                event: Some(title),
                ..PgnTags::default()
            };
            out.write_all(game_pgn(&tags, &record, None).as_bytes())?;
        }
        _ => {}
    }
    Ok(())
}

fn advance_timers(core: &mut BoardCore, until: Time) {
    while let Some(due) = core.poll_timeout() {
        if due > until {
            break;
        }
        core.handle_timeout(due);
    }
}

fn emit(
    core: &mut BoardCore,
    format: ReplayFormat,
    record: &mut GameRecord,
    out: &mut impl Write,
) -> io::Result<()> {
    if format == ReplayFormat::Sensors {
        while let Some(item) = core.poll_sensed() {
            writeln!(out, "{item}")?;
        }
    }
    while let Some(event) = core.poll_event() {
        record.apply(&event.event);
        if format == ReplayFormat::Jsonl {
            writeln!(out, "{}", event.to_json_line())?;
        } else if format == ReplayFormat::Sensors {
            writeln!(out, "{}", sensors_event_line(&event))?;
        }
    }
    Ok(())
}

fn sensors_event_line(event: &TimedEvent) -> String {
    format!("{} event {}", event.t, event.to_json_line())
}
