//! `eboardd bench accuracy`: real games played by the simulated hand on emulated boards.
//!
//! Every game is played by a seeded hand, sensed by the board model of each protocol,
//! encoded by the emulated board into the bytes a host reads, written as a trace, and then
//! replayed in virtual time through the same core the daemon runs. The same traces go
//! through the fixed 250 ms still-board matcher in the same run, so the figures stand side
//! by side. Tracker throughput is measured on the sensed square changes alone.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use shakmaty::Position;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, ValueEnum};

use crate::bench::accuracy::{GameScore, Summary, Truth, score_trace};
use crate::pipeline::CoreConfig;
use crate::protocol::Protocol;
use crate::sim::device::BoardOptions;
use crate::sim::{Game, HandOptions, TraceOptions, games, generate_trace, pgn, simulate};
use crate::time::Time;
use crate::trace::parse_trace;
use crate::tracker::{SlideRests, Tracker, TrackerConfig};

/// Options of `eboardd bench accuracy`.
#[derive(Debug, Clone, Args)]
pub struct AccuracyArgs {
    /// PGN files or folders of them (default: the games embedded in eboardd).
    #[arg(long = "pgn")]
    pub pgn: Vec<PathBuf>,
    /// Play at most this many games (0: all).
    #[arg(long, default_value_t = 0)]
    pub games: usize,
    /// Hands (seeds) per game and protocol.
    #[arg(long, default_value_t = 1)]
    pub seeds: u64,
    /// Which boards.
    #[arg(long, value_parser = boards_parser(), default_value = "both")]
    pub protocol: Boards,
    /// How the hand plays.
    #[arg(long, value_enum, default_value_t = HandStyle::Default)]
    pub hand: HandStyle,
    /// Divide the hand's thinking and motions by this (1: as people play; the torture
    /// hand's own speed is multiplied by it).
    #[arg(long, value_name = "FACTOR", default_value_t = 1.0)]
    pub hand_speed: f64,
    /// Print every game that is not reconstructed exactly (`laws`: every observation
    /// missed and every false report).
    #[arg(long)]
    pub verbose: bool,
    /// eboardd's settle window in milliseconds (`accuracy`, `traces`; default: the
    /// tracker's).
    #[arg(long, value_name = "MS")]
    pub settle_ms: Option<u64>,
    /// Whose slid pieces eboardd waits for, in case they rest on their way (`accuracy`,
    /// `traces`; default: the tracker's).
    #[arg(long, value_name = "WHOSE", value_parser = slide_rests_parser())]
    pub slide_rests: Option<SlideRests>,
    /// Write every trace not reconstructed exactly to this folder, with its truth beside it
    /// (`NAME.trace`, `NAME.json`), to replay and debug.
    #[arg(long, value_name = "DIR")]
    pub keep_failures: Option<PathBuf>,
}

/// `--slide-rests`: the tracker's [`SlideRests`] by name, each with its help.
fn slide_rests_parser() -> impl TypedValueParser<Value = SlideRests> {
    PossibleValuesParser::new(
        SlideRests::ALL.map(|w| PossibleValue::new(w.as_str()).help(w.whose())),
    )
    .try_map(|name| name.parse::<SlideRests>())
}

/// Which boards to play on: one type, or all (`None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Boards(pub Option<Protocol>);

/// Reads `--protocol`: a board type of the table, or `both`.
fn boards_parser() -> impl TypedValueParser<Value = Boards> {
    let names =
        crate::cli::protocol_values().chain([PossibleValue::new("both").help("Every board type")]);
    PossibleValuesParser::new(names).try_map(|name| match name.as_str() {
        "both" => Ok(Boards(None)),
        one => one.parse::<Protocol>().map(|p| Boards(Some(p))),
    })
}

/// How the hand plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HandStyle {
    /// As people at a tournament board do.
    Default,
    /// Fast, with many slides, quick replies, flicker and touches (no takebacks or
    /// illegal moves, which have no single right answer to score against).
    Torture,
    /// At a normal pace, but messy: long rests on transit squares, captured pieces set
    /// down near by before they leave the board, pieces knocked over and put back, many
    /// captures pushed off, quick replies after about half the moves.
    Messy,
}

fn load_games(args: &AccuracyArgs) -> anyhow::Result<Vec<Game>> {
    let mut out = Vec::new();
    if args.pgn.is_empty() {
        out.extend(games::real_games());
        out.extend(games::drills());
    }
    for path in &args.pgn {
        let mut files = Vec::new();
        if path.is_dir() {
            for e in std::fs::read_dir(path)? {
                let p = e?.path();
                if p.extension().is_some_and(|x| x == "pgn") {
                    files.push(p);
                }
            }
            files.sort();
        } else {
            files.push(path.clone());
        }
        for f in files {
            let text =
                std::fs::read_to_string(&f).map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?;
            for game in pgn::read_games(&text) {
                match game {
                    Ok(g) if !g.moves.is_empty() => out.push(g),
                    Ok(_) => {}
                    Err(e) => eprintln!("eboardd: {}: skipped: {e}", f.display()),
                }
            }
        }
    }
    if args.games > 0 {
        out.truncate(args.games);
    }
    Ok(out)
}

/// Runs `eboardd bench accuracy`.
pub(super) fn run(args: &AccuracyArgs) -> anyhow::Result<()> {
    let games = load_games(args)?;
    let protocols: &[Protocol] = match &args.protocol.0 {
        Some(one) => std::slice::from_ref(one),
        None => &Protocol::ALL,
    };
    let hand = match args.hand {
        HandStyle::Default => HandOptions::default(),
        HandStyle::Torture => HandOptions {
            takeback: 0.0,
            illegal: 0.0,
            result_gesture: 0.0,
            ..HandOptions::torture()
        },
        HandStyle::Messy => HandOptions::messy(),
    };
    if !(args.hand_speed.is_finite() && args.hand_speed > 0.0) {
        anyhow::bail!("--hand-speed: a positive number, not {}", args.hand_speed);
    }
    let hand = {
        let speed = hand.speed * args.hand_speed;
        hand.with_speed(speed)
    };
    let ours = ours(args.settle_ms, args.slide_rests);
    let peers = CoreConfig {
        reconstruction: crate::bench::still_board::reconstruction(Duration::from_millis(250)),
        ..CoreConfig::default()
    };
    println!(
        "accuracy: {} games x {} hand(s) x {} board type(s), hand {:?} at speed {}, eboardd settle {} ms, slide rests {:?}",
        games.len(),
        args.seeds,
        protocols.len(),
        args.hand,
        hand.speed,
        ours.tracker.settle.as_millis(),
        ours.tracker.slide_rests
    );
    let started = Instant::now();
    let mut totals = [Summary::default(), Summary::default()];
    for &protocol in protocols {
        let mut summaries = [Summary::default(), Summary::default()];
        let mut failures = 0usize;
        for (gi, game) in games.iter().enumerate() {
            for seed in 0..args.seeds {
                let seed = seed * 1_000_003 + gi as u64;
                let options = TraceOptions {
                    hand,
                    board: BoardOptions {
                        turned: seed % 2 == 1,
                        parity: !seed.is_multiple_of(3),
                        ..BoardOptions::default()
                    },
                    ..TraceOptions::default()
                };
                let generated = match generate_trace(game, protocol, seed, &options) {
                    Ok(g) => g,
                    Err(e) => {
                        eprintln!("eboardd: game {}: not simulated: {e}", game.number);
                        continue;
                    }
                };
                let trace = parse_trace(&generated.text)?;
                let truth: Truth = serde_json::from_str(&generated.truth.to_json())?;
                for (i, config) in [&ours, &peers].into_iter().enumerate() {
                    let score = score_trace(&trace, &truth, config.clone());
                    if i == 0 && !score.exact() {
                        failures += 1;
                        if args.verbose || failures <= 10 {
                            report_failure(protocol, game, seed, &score);
                        }
                        if let Some(dir) = &args.keep_failures {
                            std::fs::create_dir_all(dir)?;
                            let name = format!("{protocol}-{gi:04}-{seed}");
                            std::fs::write(dir.join(format!("{name}.trace")), &generated.text)?;
                            std::fs::write(
                                dir.join(format!("{name}.json")),
                                generated.truth.to_json(),
                            )?;
                        }
                    }
                    summaries[i].add(&score);
                    totals[i].add(&score);
                }
            }
        }
        println!("{protocol}:");
        print_summaries(&summaries);
    }
    println!("all boards:");
    print_summaries(&totals);
    println!("  ({:.1} s)", started.elapsed().as_secs_f64());
    throughput(&games, protocols, &hand)?;
    Ok(())
}

/// eboardd's line and the still-board matcher's, each with its corrections and time
/// wrong on a line of its own below (the first lines keep the format other tools read).
fn print_summaries(summaries: &[Summary; 2]) {
    for (name, summary) in ["eboardd", "still-250ms"].into_iter().zip(summaries) {
        println!("  {name:<13}{summary}");
        println!("  {:<13}{}", "", summary.history());
    }
}

/// eboardd's configuration, with the settle window and slide rests asked for.
pub(super) fn ours(settle_ms: Option<u64>, slide_rests: Option<SlideRests>) -> CoreConfig {
    let mut config = CoreConfig::default();
    if let Some(ms) = settle_ms {
        config.tracker.settle = Duration::from_millis(ms);
    }
    if let Some(whose) = slide_rests {
        config.tracker.slide_rests = whose;
    }
    config
}

fn report_failure(protocol: Protocol, game: &Game, seed: u64, score: &GameScore) {
    let name = |k: &str| {
        game.tags
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    println!(
        "  not exact: {protocol} game {} ({} - {}) seed {seed}: {}/{} correct, misread {}, missed {}, retract {}, {}, wrong {:.0} ms at most, {:.0} ms in all",
        game.number,
        name("White"),
        name("Black"),
        score.correct,
        score.expected,
        score.misread,
        score.missed,
        score.retracts,
        if score.ends_right() {
            "ends right"
        } else {
            "ends wrong"
        },
        score.longest_wrong_ms,
        score.wrong_ms,
    );
}

/// Square changes per second through the tracker alone (as the daemon configures it for
/// each protocol), on one core, in rounds of at least 200,000 changes each: the best round
/// (the code's speed when nothing else takes the core) and the median one, of at least
/// five rounds and as many more as fit in about two seconds.
fn throughput(games: &[Game], protocols: &[Protocol], hand: &HandOptions) -> anyhow::Result<()> {
    let mut runs = Vec::new();
    for &protocol in protocols {
        let config = TrackerConfig {
            sensor_lag: Some(protocol.sensor_lag()),
            ..TrackerConfig::default()
        };
        for (gi, game) in games.iter().enumerate() {
            if let Ok(sim) = simulate(game, protocol, gi as u64, hand) {
                let changes: Vec<_> = sim.sensed.iter().map(|s| (s.t, s.change)).collect();
                runs.push((config.clone(), game.start.board().clone(), changes));
            }
        }
    }
    let total: usize = runs.iter().map(|(_, _, c)| c.len()).sum();
    if total == 0 {
        return Ok(());
    }
    let repeats = 200_000usize.div_ceil(total);
    let mut rounds = Vec::new();
    let begun = Instant::now();
    while rounds.len() < 5 || (begun.elapsed().as_secs_f64() < 2.0 && rounds.len() < 50) {
        let start = Instant::now();
        for _ in 0..repeats {
            for (config, board, changes) in &runs {
                let mut tracker = Tracker::new(config.clone());
                tracker.handle_board(Time::ZERO, board);
                for &(t, change) in changes {
                    while let Some(due) = tracker.poll_timeout().filter(|&d| d <= t) {
                        tracker.handle_timeout(due);
                    }
                    tracker.handle_change(t, change);
                    while tracker.poll_event().is_some() {}
                }
            }
        }
        rounds.push(start.elapsed().as_secs_f64());
    }
    rounds.sort_by(f64::total_cmp);
    let (best, median) = (rounds[0], rounds[rounds.len() / 2]);
    let changes = total * repeats;
    println!(
        "tracker throughput: {:.0} square changes/s on one core, best of {} rounds of {changes} \
         changes ({:.3} s); median round {:.0}/s",
        changes as f64 / best,
        rounds.len(),
        best,
        changes as f64 / median,
    );
    Ok(())
}
