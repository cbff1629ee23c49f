//! The `eboardd` binary: parses the command line and runs the chosen job.

use clap::Parser;

use eboardd::cli::{Cli, CliError, run};

fn main() {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("EBOARDD_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let cli = Cli::parse();
    if let Err(err) = run(cli) {
        let status = err
            .downcast_ref::<CliError>()
            .map(|e| e.status)
            .unwrap_or(1);
        eprintln!("eboardd: {err:#}");
        std::process::exit(status);
    }
}
