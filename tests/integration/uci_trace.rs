//! A recorded board played back on a pseudo-terminal, and a GUI asking `eboardd uci` for one
//! side's moves: every `bestmove` is the move of the recording.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use eboardd::playback::{TraceBoard, pty};
use eboardd::trace::read_trace_file;

use crate::uci_common::Gui;

/// What a GUI gone wrong sends between its commands: unknown commands, commands cut short
/// or with bad arguments, moves that are not legal, bytes that are not UTF-8, control
/// characters, a very long line, blank lines.
fn nonsense() -> Vec<Vec<u8>> {
    let mut lines: Vec<Vec<u8>> = [
        "hello engine",
        "position",
        "position fen",
        "position fen not a fen at all moves e2e4",
        "position startpos moves e2e5",
        "go wtime soon btime later",
        "setoption name",
        "setoption name SettleMs value -40",
        "setoption name NoSuchOption value 1",
        "debug sideways",
        "",
        "   \t  ",
    ]
    .iter()
    .map(|l| format!("{l}\n").into_bytes())
    .collect();
    lines.push(b"\xff\xfe position \xc3\x28 go\n".to_vec());
    lines.push(b"\x00\x01\x02\x1b[2J\r\n".to_vec());
    lines.push([vec![b'x'; 200_000], b"\n".to_vec()].concat());
    lines
}

/// Plays `trace` back at `speed` and asks for the moves at `asked` (indexes into `moves`);
/// the other moves are sent as the GUI's own. With `garbled`, [`nonsense`] comes before
/// every command.
fn ask_for_moves(trace: &str, protocol: &str, moves: &[&str], asked: &[usize], speed: f64) {
    ask(trace, protocol, moves, asked, speed, false);
}

fn ask(trace: &str, protocol: &str, moves: &[&str], asked: &[usize], speed: f64, garbled: bool) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/traces")
        .join(trace);
    let trace = read_trace_file(&path).expect("the trace reads");
    let dir = tempfile::tempdir().expect("tempdir");
    let link = dir.path().join("board");
    let mut pty = pty::Pty::open(&link).expect("pty");
    let device = link.display().to_string();
    let stop = Arc::new(AtomicBool::new(false));
    let player_stop = Arc::clone(&stop);
    let player = std::thread::spawn(move || {
        let mut board = TraceBoard::new(&trace, speed);
        pty::serve(&mut pty, &mut board, Duration::from_secs(30), &player_stop)
    });
    let mut gui = Gui::start(&["--device", &device, "--protocol", protocol]);
    let garble = |gui: &mut Gui| {
        if garbled {
            for line in nonsense() {
                gui.send_raw(&line);
            }
        }
    };
    garble(&mut gui);
    gui.send("uci");
    gui.wait_for(Duration::from_secs(5), |l| l == "uciok");
    let settle = (250.0 / speed).round().max(20.0);
    garble(&mut gui);
    gui.send(&format!("setoption name SettleMs value {settle}"));
    for &i in asked {
        let mut line = "position startpos".to_string();
        if i > 0 {
            line.push_str(" moves ");
            line.push_str(&moves[..i].join(" "));
        }
        garble(&mut gui);
        gui.send(&line);
        garble(&mut gui);
        gui.send("isready");
        assert_eq!(gui.expect_protocol(Duration::from_secs(5)), "readyok");
        gui.send("go wtime 60000 btime 60000");
        let answer = gui.expect_protocol(Duration::from_secs(20));
        assert_eq!(answer, format!("bestmove {}", moves[i]), "ply {}", i + 1);
    }
    if garbled {
        for line in &gui.transcript {
            assert!(
                line.len() < 1000,
                "the engine's lines stay short: {}…",
                &line[..80]
            );
        }
        for answer in [
            "unknown command ignored: hello engine",
            "unknown command ignored: \u{fffd}",
            "unknown command ignored: \\u{0}\\u{1}\\u{2}\\u{1b}[2J",
            "ignored: position fen without a FEN",
            "setoption ignored: there is no option named \"NoSuchOption\"",
        ] {
            let line = format!("info string {answer}");
            assert!(gui.transcript.contains(&line), "no {line:?}");
        }
        assert!(
            gui.transcript
                .iter()
                .all(|l| !l.contains(|c: char| c.is_control())),
            "no control character goes to the GUI"
        );
    }
    gui.close_input();
    assert_eq!(
        gui.wait_exit(Duration::from_secs(3)),
        Some(0),
        "the end of input ends it"
    );
    stop.store(true, Ordering::Relaxed);
    player.join().expect("player").expect("played");
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

#[test]
fn a_gui_sending_nonsense_between_its_commands_still_gets_every_move() {
    ask(
        "dgt-opening.trace",
        "dgt",
        &["e2e4", "e7e5", "g1f3"],
        &[0, 2],
        2.0,
        true,
    );
}
