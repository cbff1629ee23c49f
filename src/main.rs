//! The binary `eboardd`: parses the command line and runs the chosen job.

use clap::Parser;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use eboardd::cli::{Cli, CliError, Command, run};

/// The tracker makes and drops small values on every square change (positions, move
/// effects, candidate lists): mimalloc serves them in a fraction of the system allocator's
/// time. Built without transparent huge pages (`no_thp`), which cost a small daemon some
/// 10 MB of resident memory and the tracker no speed.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Logs to the journal when systemd runs us (`JOURNAL_STREAM` is set and the journal
/// answers), else to standard error. `EBOARDD_LOG` filters; the daemon logs at `info` by
/// default (boards connecting and going away), the other commands at `warn`.
fn init_logging(command: &Command) {
    let default = match command {
        Command::Run(_) => "info",
        _ => "warn",
    };
    let filter = EnvFilter::try_from_env("EBOARDD_LOG").unwrap_or_else(|_| EnvFilter::new(default));
    // The HTTP client's wire traces would show the lichess token: never logged.
    let registry =
        tracing_subscriber::registry()
            .with(filter)
            .with(tracing_subscriber::filter::filter_fn(
                eboardd::relay::lichess::loggable,
            ));
    let journald = std::env::var_os("JOURNAL_STREAM").and_then(|_| tracing_journald::layer().ok());
    match journald {
        Some(layer) => registry.with(layer).init(),
        None => registry
            .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
            .init(),
    }
}

fn main() {
    let cli = Cli::parse();
    init_logging(&cli.command);
    if let Err(err) = run(cli) {
        let status = err
            .downcast_ref::<CliError>()
            .map(|e| e.status)
            .unwrap_or(1);
        eprintln!("eboardd: {err:#}");
        std::process::exit(status);
    }
}
