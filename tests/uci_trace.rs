//! A recorded board played back on a pseudo-terminal, and a GUI asking `eboardd uci` for one
//! side's moves: every `bestmove` is the move of the recording.

mod uci_common;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use eboardd::sim::trace_pty::TracePty;
use eboardd::trace::read_trace_file;

use uci_common::Gui;

/// Plays `trace` back at `speed` and asks for the moves at `asked` (indexes into `moves`);
/// the other moves are sent as the GUI's own.
fn ask_for_moves(trace: &str, protocol: &str, moves: &[&str], asked: &[usize], speed: f64) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/traces")
        .join(trace);
    let trace = read_trace_file(&path).expect("the trace reads");
    let mut pty = TracePty::open().expect("pty");
    let device = pty.path().to_string();
    let stop = Arc::new(AtomicBool::new(false));
    let player_stop = Arc::clone(&stop);
    let player = std::thread::spawn(move || pty.run(&trace, speed, &player_stop));
    let mut gui = Gui::start(&["--device", &device, "--protocol", protocol]);
    gui.send("uci");
    gui.wait_for(Duration::from_secs(5), |l| l == "uciok");
    let settle = (250.0 / speed).round().max(20.0);
    gui.send(&format!("setoption name SettleMs value {settle}"));
    for &i in asked {
        let mut line = "position startpos".to_string();
        if i > 0 {
            line.push_str(" moves ");
            line.push_str(&moves[..i].join(" "));
        }
        gui.send(&line);
        gui.send("go wtime 60000 btime 60000");
        let answer = gui.expect_protocol(Duration::from_secs(20));
        assert_eq!(answer, format!("bestmove {}", moves[i]), "ply {}", i + 1);
    }
    gui.close_input();
    assert_eq!(
        gui.wait_exit(Duration::from_secs(3)),
        Some(0),
        "the end of input ends it"
    );
    stop.store(true, Ordering::Relaxed);
    let stats = player.join().expect("player").expect("played");
    assert!(stats.host_bytes > 0 && stats.board_bytes > 0);
}

#[test]
fn a_recorded_dgt_board_gives_whites_moves_as_bestmoves() {
    ask_for_moves(
        "dgt-opening.trace",
        "dgt",
        &["e2e4", "e7e5", "g1f3"],
        &[0, 2],
        2.0,
    );
}

#[test]
fn a_recorded_dgt_board_turned_round_gives_blacks_move() {
    ask_for_moves(
        "dgt-opening-rotated.trace",
        "dgt",
        &["e2e4", "e7e5", "g1f3"],
        &[1],
        2.0,
    );
}

#[test]
fn a_recorded_millennium_board_gives_blacks_move() {
    ask_for_moves(
        "millennium-cable-right-parity.trace",
        "millennium",
        &["e2e4", "e7e5", "g1f3"],
        &[1],
        2.0,
    );
}
