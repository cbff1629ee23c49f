//! `eboardd demo`: a real game played on an emulated board, through the real serial path.
//!
//! A simulated hand plays the game on an emulated DGT (or Millennium) board that sits on a
//! pseudo-terminal; eboardd opens the other end exactly as it opens a board on
//! `/dev/ttyUSB0`, and shows the board and each event as it decides them. It ends with the
//! game's PGN.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::Args;
use shakmaty::fen::Fen;
use shakmaty::{Board, Chess, Position};

use super::{CliError, LawsArgs, protocol_parser};
use crate::device::{Device, DeviceOutput};
use crate::event::{GameEvent, TimedEvent};
use crate::game::record::GameRecord;
use crate::pipeline::CoreConfig;
use crate::protocol::Protocol;
use crate::sim::device::{BoardOptions, EmulatedBoard};
use crate::sim::pty::PtyBoard;
use crate::sim::{Game, Hand, HandOptions, games, pgn};
use crate::time::Time;

/// Arguments of `eboardd demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// How many times faster than real time the hand plays.
    #[arg(long, default_value_t = 4.0)]
    pub speed: f64,
    /// The board.
    #[arg(long, value_parser = protocol_parser(), default_value_t = Protocol::Dgt)]
    pub protocol: Protocol,
    /// A PGN file to play a game from (default: an embedded famous game).
    #[arg(long)]
    pub game: Option<PathBuf>,
    /// Which game of the PGN file (or of the embedded ones), from 1.
    #[arg(long, default_value_t = 1)]
    pub index: usize,
    /// The hand's seed (how it slides, captures, hesitates).
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// How the game is judged.
    #[command(flatten)]
    pub laws: LawsArgs,
}

/// Runs `eboardd demo`.
pub fn run(args: DemoArgs) -> anyhow::Result<()> {
    if !(args.speed.is_finite() && args.speed > 0.0 && args.speed <= 1000.0) {
        return Err(CliError::input("--speed must be a number above 0 and at most 1000").into());
    }
    let game = pick_game(&args)?;
    let protocol = args.protocol;
    let performance = Hand::new(args.seed, HandOptions::default()).play(&game)?;
    let timeline = performance.timeline;
    let end = timeline.events.last().map_or(Time::ZERO, |e| e.t) + Duration::from_secs(3);
    let board = EmulatedBoard::with_options(
        protocol,
        &BoardOptions::default(),
        &timeline.start,
        args.seed,
    );
    let mut pty = PtyBoard::open(board, args.speed)?;
    let path = PathBuf::from(pty.path());
    let stop = Arc::new(AtomicBool::new(false));

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let start_fen = game.start_fen();
    let standard = game.start == Chess::default();
    let config = CoreConfig {
        start_fen: (!standard).then(|| start_fen.clone()),
        laws: args.laws.config(None)?,
        ..CoreConfig::default()
    };
    // Open the port before the board starts playing, as a daemon would be waiting.
    let mut device = runtime.block_on(async { Device::open(&path, protocol, config) })?;
    // The start-up is paced (a DGT board's takes about a second): it is all written before
    // the hand starts, so the board is listening for the first move.
    runtime.block_on(device.start())?;
    let stop_board = Arc::clone(&stop);
    let board_thread = std::thread::spawn(move || {
        let stats = pty.run(&timeline, end, &stop_board);
        // Keep the line open until the host is done reading.
        while !stop_board.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(20));
        }
        stats
    });

    let mut view = View::new(&game, protocol, args.speed);
    let plies = game.moves.len() as u32;
    let wall_limit = Duration::from_secs_f64(end.as_ms_f64() / 1000.0 / args.speed + 5.0);
    let result = runtime.block_on(async {
        let mut deadline = tokio::time::Instant::now() + wall_limit;
        let mut finishing = false;
        loop {
            tokio::select! {
                out = device.next() => match out {
                    Err(crate::device::DeviceError::Disconnected { .. }) if finishing => break,
                    Err(e) => return Err(e.into()),
                    Ok(DeviceOutput::Event(event)) => {
                        view.show(&event);
                        if !finishing && view.record.moves.len() as u32 >= plies && plies > 0 {
                            // The last move is in; let what follows it (a result) arrive.
                            finishing = true;
                            deadline = tokio::time::Instant::now() + Duration::from_millis(500);
                        }
                    }
                    Ok(DeviceOutput::Sensed(_)) => {}
                },
                () = tokio::time::sleep_until(deadline) => break,
            }
        }
        anyhow::Ok(())
    });
    stop.store(true, Ordering::Relaxed);
    let _ = board_thread.join();
    result?;
    view.finish(&game);
    Ok(())
}

fn pick_game(args: &DemoArgs) -> anyhow::Result<Game> {
    let games = match &args.game {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| CliError::input(format!("{}: {e}", path.display())))?;
            pgn::parse_games(&text)
                .map_err(|e| CliError::input(format!("{}: {e}", path.display())))?
        }
        None => games::real_games(),
    };
    let found = games.len();
    games
        .into_iter()
        .nth(args.index.saturating_sub(1))
        .ok_or_else(|| {
            CliError::input(format!("there is no game {} (found {found})", args.index)).into()
        })
}

/// What the terminal shows.
struct View {
    record: GameRecord,
    board: Board,
    lines: Vec<String>,
    redraw: bool,
    title: String,
}

impl View {
    fn new(game: &Game, protocol: Protocol, speed: f64) -> View {
        let redraw = std::io::stdout().is_terminal();
        let title = format!(
            "eboardd demo: {} on an emulated {protocol} board ({speed}x)",
            game.name()
        );
        if !redraw {
            println!("{title}");
        }
        View {
            record: GameRecord::default(),
            board: game.start.board().clone(),
            lines: Vec::new(),
            redraw,
            title,
        }
    }

    fn show(&mut self, event: &TimedEvent) {
        self.record.apply(&event.event);
        let line = match &event.event {
            GameEvent::Board {
                placement,
                orientation,
            } => {
                format!("board reported: {placement} ({})", orientation.as_str())
            }
            GameEvent::NewGame { fen, .. } => {
                self.set_board(fen);
                format!("new game: {fen}")
            }
            GameEvent::Move {
                ply, san, uci, fen, ..
            } => {
                self.set_board(fen);
                let number = ply.div_ceil(2);
                let dots = if ply % 2 == 1 { "." } else { "..." };
                format!("{number}{dots} {san:<8} ({uci})")
            }
            GameEvent::Clock { .. } => return,
            GameEvent::Violation {
                article,
                laws,
                detail,
                ..
            } => format!("{laws} {article}: {detail}"),
            GameEvent::Due {
                article, detail, ..
            } => format!("due ({article}): {detail}"),
            other => serde_json::to_string(other).unwrap_or_default(),
        };
        let line = format!("{:>9.1} s  {line}", event.t.as_ms_f64() / 1000.0);
        if self.redraw {
            self.lines.push(line);
            let keep = self.lines.len().saturating_sub(12);
            self.lines.drain(..keep);
            let mut out = std::io::stdout().lock();
            let _ = write!(
                out,
                "\x1b[2J\x1b[H{}\n\n{}\n",
                self.title,
                render(&self.board)
            );
            for l in &self.lines {
                let _ = writeln!(out, "{l}");
            }
            let _ = out.flush();
        } else {
            println!("{line}");
        }
    }

    fn set_board(&mut self, fen: &str) {
        if let Ok(f) = fen.parse::<Fen>() {
            self.board = f.into_setup().board;
        }
    }

    fn finish(&self, game: &Game) {
        let tag = |k: &str| {
            game.tags
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.as_str())
                .unwrap_or("?")
        };
        let mut record = self.record.clone();
        if record.result.is_none() && record.moves.len() == game.moves.len() {
            record.result = game.result.as_deref().and_then(|r| r.parse().ok());
        }
        let tags = [
            ("Event", tag("Event")),
            ("Site", tag("Site")),
            ("Date", tag("Date")),
            ("Round", tag("Round")),
            ("White", tag("White")),
            ("Black", tag("Black")),
        ];
        println!();
        print!("{}", record.to_pgn(&tags));
    }
}

/// The board as eight lines of text, White at the bottom.
fn render(board: &Board) -> String {
    let mut out = String::new();
    for rank in (0..8).rev() {
        out.push_str(&format!("  {} ", rank + 1));
        for file in 0..8 {
            let sq =
                shakmaty::Square::from_coords(shakmaty::File::new(file), shakmaty::Rank::new(rank));
            out.push(' ');
            out.push(board.piece_at(sq).map_or('.', |p| p.char()));
        }
        out.push('\n');
    }
    out.push_str("     a b c d e f g h");
    out
}
