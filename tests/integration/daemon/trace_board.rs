//! The daemon given a recording nobody on the team wrote: a board plays a generated trace's
//! board side back on a pseudo-terminal (`eboardd::playback`), in scaled time; a D-Bus
//! client sees a `Move` signal for every move of the game, in order, and the `Fen`
//! property gives the position after the last one. The traces live beside the checkout
//! (`../shared/data/generated`, or `EBOARDD_TRACE_DIR`); nothing is checked without them.
//! `.ci/trace-over-dbus` makes the same check with real `busctl` on a `dbus-daemon`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use eboardd::daemon::config::ProtocolChoice;
use eboardd::dbus::board_path;
use eboardd::playback::{TraceBoard, pty};
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

use crate::daemon::emulated_game::{Followed, real_daemon};
use crate::daemon::support::*;

/// How many times faster than recorded the trace is played. The daemon's tracker runs on
/// wall time: much faster play than this makes its settle window span several plies.
const SPEED: f64 = 5.0;

/// The recording: `EBOARDD_TRACE_DIR` or `../shared/data/generated` beside the checkout.
fn trace_path(name: &str) -> PathBuf {
    std::env::var_os("EBOARDD_TRACE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/generated"))
        .join(name)
}

/// The moves (SAN without `+`/`#`) and final FEN a generated trace's JSON describes.
fn expected(json: &Path) -> (Vec<String>, String) {
    let text = std::fs::read_to_string(json).expect("the trace's JSON");
    let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let mode = if value["chess960"].as_bool() == Some(true) {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let mut pos: Chess = value["start_fen"]
        .as_str()
        .expect("start_fen")
        .parse::<Fen>()
        .expect("a FEN")
        .into_position(mode)
        .expect("a position");
    let mut sans = Vec::new();
    for san in value["san"].as_array().expect("san") {
        let san = san.as_str().expect("text");
        let m = san
            .parse::<San>()
            .expect("SAN")
            .to_move(&pos)
            .expect("legal");
        pos.play_unchecked(m);
        sans.push(san.trim_end_matches(['+', '#']).to_string());
    }
    (
        sans,
        Fen::from_position(&pos, EnPassantMode::Legal).to_string(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generated_dgt_trace_played_back_on_a_pty_gives_every_move_signal_and_the_final_fen() {
    let trace_file = trace_path("game-99-000-dgt.trace");
    let Ok(trace) = eboardd::trace::read_trace_file(&trace_file) else {
        eprintln!("skipped: {} not found", trace_file.display());
        return;
    };
    let (sans, fen) = expected(&trace_file.with_extension("json"));
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let link = board_link(dir.path(), "dgt0");
    let mut port = pty::Pty::open(&link).expect("a pty");
    let mut board = TraceBoard::new(&trace, SPEED);
    let stop = Arc::new(AtomicBool::new(false));
    let stop_board = Arc::clone(&stop);
    let player = std::thread::spawn(move || {
        pty::serve(&mut port, &mut board, Duration::from_secs(600), &stop_board)
    });
    let conn = client(&address).await;
    let mut signals = Signals::record(&conn).await;
    let (_daemon, _service) = real_daemon(
        &address,
        &dir.path().join("state"),
        &link,
        ProtocolChoice::Auto,
    )
    .await;

    let recorded = trace
        .chunks
        .last()
        .map_or(0.0, |c| c.t.as_ms_f64() / 1000.0);
    let limit = Duration::from_secs_f64(recorded / SPEED) + LIMIT;
    let last = sans.len() as u32;
    let seen = signals
        .until(limit, |m| crate::daemon::emulated_game::is_move(m, last))
        .await;
    let followed = Followed::from(&seen);
    assert_eq!(followed.count("Move"), sans.len(), "one Move per move");
    let got: Vec<&str> = followed
        .sans
        .iter()
        .map(|s| s.trim_end_matches(['+', '#']))
        .collect();
    assert_eq!(got, sans);
    let proxy = board_proxy(&conn, board_path(0)).await;
    assert_eq!(proxy.fen().await.expect("Fen"), fen);
    stop.store(true, Ordering::Relaxed);
    player
        .join()
        .expect("the player thread")
        .expect("the trace played");
}
