//! A board that plays a recorded trace back on a pseudo-terminal, for checking the daemon
//! end to end against recordings nobody here wrote (`.ci/trace-over-dbus`).
//!
//! ```text
//! trace-board [--speed N] [--linger SECONDS] TRACE LINK
//!     plays TRACE's board side on a new pseudo-terminal that LINK points at, N times
//!     faster than recorded (default 10), answering the host minimally; exits LINGER
//!     seconds (default 5) after the last recorded byte.
//! trace-board --expect GAME.json
//!     prints the game a generated trace's JSON describes: each move in SAN without
//!     +/#, one a line, then `fen: ` and the FEN after the last move.
//! ```

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use eboardd::playback::{TraceBoard, pty};
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("trace-board: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Vec<String>) -> Result<(), String> {
    let mut speed = 10.0;
    let mut linger = 5.0;
    let mut paths = Vec::new();
    let mut args = args.into_iter();
    while let Some(a) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|v| v.is_finite() && *v > 0.0)
                .ok_or_else(|| format!("{name} needs a positive number"))
        };
        match a.as_str() {
            "--speed" => speed = value("--speed")?,
            "--linger" => linger = value("--linger")?,
            "--expect" => {
                let json = args.next().ok_or("--expect needs a JSON file")?;
                return expect(&PathBuf::from(json));
            }
            _ => paths.push(PathBuf::from(a)),
        }
    }
    let [trace, link] = &paths[..] else {
        return Err("usage: trace-board [--speed N] [--linger SECONDS] TRACE LINK".into());
    };
    let trace = eboardd::trace::read_trace_file(trace).map_err(|e| e.to_string())?;
    let mut board = TraceBoard::new(&trace, speed);
    let mut port = pty::Pty::open(link).map_err(|e| format!("{}: {e}", link.display()))?;
    pty::serve(
        &mut port,
        &mut board,
        Duration::from_secs_f64(linger),
        &AtomicBool::new(false),
    )
    .map_err(|e| e.to_string())
}

/// Prints the moves and final FEN of a generated trace's JSON (`start_fen`, `san`).
fn expect(json: &PathBuf) -> Result<(), String> {
    let text = std::fs::read_to_string(json).map_err(|e| format!("{}: {e}", json.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let fen = value["start_fen"].as_str().ok_or("no start_fen")?;
    let mode = if value["chess960"].as_bool() == Some(true) {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let mut pos: Chess = fen
        .parse::<Fen>()
        .map_err(|e| e.to_string())?
        .into_position(mode)
        .map_err(|e| e.to_string())?;
    for san in value["san"].as_array().ok_or("no san")? {
        let san = san.as_str().ok_or("a san that is not text")?;
        let m = san
            .parse::<San>()
            .map_err(|e| format!("{san}: {e}"))?
            .to_move(&pos)
            .map_err(|e| format!("{san}: {e}"))?;
        println!("{}", san.trim_end_matches(['+', '#']));
        pos.play_unchecked(m);
    }
    println!("fen: {}", Fen::from_position(&pos, EnPassantMode::Legal));
    Ok(())
}
