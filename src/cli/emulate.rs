//! `eboardd emulate`: an emulated board on a pseudo-terminal for other programs to open,
//! played live by the simulated hand, or replaying a recorded trace.
//!
//! Live, the hand plays one side with moves of its own choosing (seeded, at random among
//! the legal moves) and carries out every move the host shows on the board (LEDs, clock
//! text) for the other side — what a person does when a GUI's engine is the opponent and
//! `eboardd uci` guides them. `play <uci>` on standard input makes the hand play a given
//! move. Standard output says what happens, one line each: `device <path>` first, then
//! `played <uci>` (the hand's own move), `carried <uci>` (a shown move carried out),
//! `over` (the game on the board has ended). With `--trace` the board side of a recording
//! is played back instead ([`crate::playback`]; `device <path>`). It runs until it is
//! signalled (SIGINT, SIGTERM or SIGHUP), whether or not standard input is open: a script
//! may start it in the background with no input at all.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::Duration;

use clap::{Args, ValueEnum};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Move, Position};

use super::{CliError, protocol_parser};
use crate::playback::{TraceBoard, pty};
use crate::protocol::Protocol;
use crate::sim::HandOptions;
use crate::sim::device::BoardOptions;
use crate::sim::live::{LiveBoard, View};
use crate::sim::rng::Rng;
use crate::trace::read_trace_file;
use crate::uci::line::GameLine;

/// Arguments of `eboardd emulate`.
#[derive(Debug, Args)]
pub struct EmulateArgs {
    /// The board.
    #[arg(long, value_parser = protocol_parser(), default_value_t = Protocol::Dgt)]
    pub protocol: Protocol,
    /// The side the hand plays with moves of its own; the other side's moves are carried
    /// out when the board shows them.
    #[arg(long, value_enum, default_value_t = SideArg::White)]
    pub side: SideArg,
    /// The position on the board at the start (default: the standard start).
    #[arg(long, value_name = "FEN")]
    pub fen: Option<String>,
    /// The seed of the hand and of its choice of moves.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How many times faster than real time the board and the hand run.
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// A DGT board without a DGT3000 clock.
    #[arg(long)]
    pub no_clock: bool,
    /// Play back the board's bytes of this trace instead.
    #[arg(long, value_name = "TRACE", conflicts_with_all = ["side", "fen", "no_clock", "protocol"])]
    pub trace: Option<PathBuf>,
}

/// Which side the hand plays on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SideArg {
    /// White.
    White,
    /// Black.
    Black,
    /// Neither: only shown moves and `play` commands.
    None,
}

/// Runs `eboardd emulate`.
pub fn run(args: EmulateArgs) -> anyhow::Result<()> {
    if !(args.speed.is_finite() && args.speed > 0.0 && args.speed <= 1000.0) {
        return Err(CliError::input("--speed must be a number above 0 and at most 1000").into());
    }
    let input = read_input();
    let stop = stop_on_signal()?;
    let result = match &args.trace {
        Some(path) => replay(path, args.speed, input, &stop),
        None => live(&args, input, &stop),
    };
    match result {
        // Whoever read our output has gone: so are we.
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            Ok(())
        }
        other => other,
    }
}

/// A flag raised when the process is asked to end (SIGINT, SIGTERM, SIGHUP).
fn stop_on_signal() -> anyhow::Result<Arc<AtomicBool>> {
    use tokio::signal::unix::{SignalKind, signal};
    let stop = Arc::new(AtomicBool::new(false));
    let raised = Arc::clone(&stop);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    // Registered here, before the board is offered, so no signal is missed.
    let (mut int, mut term, mut hup) = runtime.block_on(async {
        anyhow::Ok((
            signal(SignalKind::interrupt())?,
            signal(SignalKind::terminate())?,
            signal(SignalKind::hangup())?,
        ))
    })?;
    std::thread::spawn(move || {
        runtime.block_on(async {
            tokio::select! {
                _ = int.recv() => {}
                _ = term.recv() => {}
                _ = hup.recv() => {}
            }
        });
        raised.store(true, Ordering::Relaxed);
    });
    Ok(stop)
}

/// Standard input's lines on a channel; `None` when it ends.
fn read_input() -> Receiver<Option<String>> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            match line {
                Ok(l) => {
                    if tx.send(Some(l)).is_err() {
                        return;
                    }
                }
                Err(_) => break,
            }
        }
        let _ = tx.send(None);
    });
    rx
}

fn say(line: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}")?;
    out.flush()?;
    Ok(())
}

fn replay(
    path: &std::path::Path,
    speed: f64,
    input: Receiver<Option<String>>,
    stop: &AtomicBool,
) -> anyhow::Result<()> {
    let trace = read_trace_file(path).map_err(|e| CliError::input(e.to_string()))?;
    let dir = std::env::temp_dir().join(format!("eboardd-emulate-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let link = dir.join("board");
    let result = (|| {
        let mut pty = pty::Pty::open(&link)?;
        let mut board = TraceBoard::new(&trace, speed);
        say(&format!("device {}", link.display()))?;
        // Nothing is asked of standard input here: it is read only so a writer never blocks.
        std::thread::spawn(move || while let Ok(Some(_)) = input.recv() {});
        // Played until signalled, however long after the last recorded byte.
        pty::serve(&mut pty, &mut board, Duration::MAX, stop)?;
        anyhow::Ok(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn live(
    args: &EmulateArgs,
    input: Receiver<Option<String>>,
    stop: &AtomicBool,
) -> anyhow::Result<()> {
    let start = match &args.fen {
        None => Chess::default(),
        Some(f) => GameLine::from_fen(f, false)
            .map(|line| line.current().clone())
            .map_err(|e| CliError::input(format!("--fen {f:?}: {e}")))?,
    };
    let protocol = args.protocol;
    let options = BoardOptions {
        clock: !args.no_clock,
        ..BoardOptions::default()
    };
    let hand = HandOptions::default().with_speed(args.speed);
    let mut board = LiveBoard::start(protocol, &options, &start, args.seed, hand, args.speed)?;
    say(&format!("device {}", board.path()))?;
    let own = match args.side {
        SideArg::White => Some(Color::White),
        SideArg::Black => Some(Color::Black),
        SideArg::None => None,
    };
    let mut rng = Rng::derive(args.seed, "emulate: the hand's moves");
    let mut carried: Option<View> = None;
    let mut over = false;
    let mut input = Some(input);
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        match input.as_ref().map(Receiver::try_recv) {
            None | Some(Err(TryRecvError::Empty)) => {}
            Some(Ok(Some(line))) => {
                if let Some(m) = line.strip_prefix("play ").map(str::trim) {
                    match UciMove::from_ascii(m.as_bytes())
                        .ok()
                        .and_then(|u| u.to_move(board.position()).ok())
                    {
                        Some(mv) => {
                            let end = board.play(mv)?;
                            say(&format!("played {}", uci(mv)))?;
                            board.sleep_until(end);
                        }
                        None => tracing::warn!("not a legal move on the board: {m}"),
                    }
                }
                continue;
            }
            // Standard input has ended: the game goes on until the process is signalled.
            Some(Ok(None) | Err(TryRecvError::Disconnected)) => input = None,
        }
        let pos = board.position().clone();
        if pos.is_game_over() {
            if !over {
                over = true;
                say("over")?;
            }
            std::thread::sleep(Duration::from_millis(20));
            continue;
        }
        if own == Some(pos.turn()) {
            // Thinks a moment, then moves.
            let think = rng.millis(400.0, 1500.0);
            board.sleep_until(board.now() + think);
            let legal = pos.legal_moves();
            let mv = legal[rng.index(legal.len())];
            let end = board.play(mv)?;
            say(&format!("played {}", uci(mv)))?;
            board.sleep_until(end);
            continue;
        }
        let view = board.view();
        if carried.as_ref() != Some(&view)
            && let Some(mv) = board.guided_move()
        {
            // Sees the lights (or the clock's text), reaches for the piece.
            board.sleep_until(board.now() + rng.millis(300.0, 900.0));
            let end = board.play(mv)?;
            carried = Some(view);
            say(&format!("carried {}", uci(mv)))?;
            board.sleep_until(end);
            continue;
        }
        if view.shown.is_none()
            && view
                .clock_text
                .as_deref()
                .is_none_or(|t| t.trim().is_empty())
        {
            carried = None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn uci(m: Move) -> String {
    UciMove::from_standard(m).to_string()
}
