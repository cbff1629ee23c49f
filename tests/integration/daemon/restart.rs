//! The daemon killed mid-game and started again: not one confirmed move lost.

use eboardd::dbus::board_path;
use eboardd::event::GameEvent;

use crate::daemon::game::wait_for_ply;
use crate::daemon::pty_board::PtyBoard;
use crate::daemon::support::*;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

#[test]
fn a_daemon_killed_mid_game_resumes_every_confirmed_move_from_its_journal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let state = dir.path().join("state");
    let link = board_link(dir.path(), "board0");
    let mut board = PtyBoard::plug(&link);
    let client_rt = runtime();
    let conn = client_rt.block_on(client(&address));
    let proxy = client_rt.block_on(async { board_proxy(&conn, board_path(0)).await });

    // First life: three moves confirmed, then the process dies without any shutdown.
    let first = runtime();
    first.block_on(start_daemon(&address, &state, vec![scripted_board(&link)]));
    board.expect_line("hello", LIMIT);
    board.send(&format!("board {START}"));
    for m in ["e2e4", "c7c5", "g1f3"] {
        board.send(&format!("move {m}"));
    }
    client_rt.block_on(wait_for_ply(&proxy, 3));
    let fen_before = client_rt.block_on(proxy.fen()).expect("Fen");
    first.shutdown_background();

    // Second life on the same state directory and board.
    let second = runtime();
    let (_daemon, _service, seen) =
        second.block_on(start_daemon(&address, &state, vec![scripted_board(&link)]));
    let resumed_fen = client_rt.block_on(async {
        let proxy = board_proxy(&conn, board_path(0)).await;
        wait_for_ply(&proxy, 3).await;
        proxy.fen().await.expect("Fen")
    });
    assert_eq!(resumed_fen, fen_before);
    board.expect_line("hello", LIMIT);
    let resumed = seen.lock().map(|s| s.resumed.clone()).unwrap_or_default();
    assert_eq!(resumed.len(), 1, "the new core was handed the game");
    let ucis: Vec<String> = resumed[0]
        .iter()
        .filter_map(|e| match e {
            GameEvent::Move { uci, .. } => Some(uci.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(ucis, ["e2e4", "c7c5", "g1f3"]);

    board.send("move d7d6");
    client_rt.block_on(wait_for_ply(&proxy, 4));
    let pgn = client_rt.block_on(proxy.pgn()).expect("Pgn");
    assert!(pgn.contains("1. e4 c5 2. Nf3 d6"), "{pgn}");
}
