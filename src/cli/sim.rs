//! `eboardd sim`: a simulated game as a trace, with its truth beside it.

use std::path::PathBuf;

use clap::Args;

use super::bench::HandStyle;
use super::protocol_parser;
use crate::protocol::Protocol;
use crate::sim::device::BoardOptions;
use crate::sim::{HandOptions, TraceOptions, games, generate_trace, pgn};

/// Arguments of `eboardd sim`.
#[derive(Debug, Args)]
pub struct SimArgs {
    /// A PGN file to take the game from (default: the games embedded in eboardd, then the
    /// drills of special moves).
    #[arg(long)]
    pub pgn: Option<PathBuf>,
    /// Which game of the file, from 1.
    #[arg(long, default_value_t = 1)]
    pub game: usize,
    /// The board.
    #[arg(long, value_parser = protocol_parser(), default_value_t = Protocol::Dgt)]
    pub protocol: Protocol,
    /// The hand's seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How the hand plays.
    #[arg(long, value_enum, default_value_t = HandStyle::Default)]
    pub hand: HandStyle,
    /// The board stands turned round (DGT) or has its cable on White's left (Millennium).
    #[arg(long)]
    pub turned: bool,
    /// The trace to write; the truth goes beside it as `.json`.
    pub out: PathBuf,
}

/// Runs `eboardd sim`.
pub fn run(args: SimArgs) -> anyhow::Result<()> {
    let games = match &args.pgn {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| super::CliError::input(format!("{}: {e}", path.display())))?;
            pgn::parse_games(&text)
                .map_err(|e| super::CliError::input(format!("{}: {e}", path.display())))?
        }
        None => {
            let mut all = games::real_games();
            all.extend(games::drills());
            all
        }
    };
    let game = games.get(args.game.saturating_sub(1)).ok_or_else(|| {
        super::CliError::input(format!(
            "there is no game {} (found {})",
            args.game,
            games.len()
        ))
    })?;
    let hand = match args.hand {
        HandStyle::Default => HandOptions::default(),
        HandStyle::Torture => HandOptions::torture(),
        HandStyle::Messy => HandOptions::messy(),
    };
    let options = TraceOptions {
        hand,
        board: BoardOptions {
            turned: args.turned,
            ..BoardOptions::default()
        },
        ..TraceOptions::default()
    };
    let generated = generate_trace(game, args.protocol, args.seed, &options)?;
    std::fs::write(&args.out, &generated.text)?;
    std::fs::write(args.out.with_extension("json"), generated.truth.to_json())?;
    Ok(())
}
