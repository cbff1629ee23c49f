//! `--pgn-dir`: the relay writes each board's game and `games.pgn` as moves are confirmed.

use std::path::Path;
use std::sync::{Arc, Mutex};

use eboardd::daemon::Daemon;
use eboardd::relay::files::{PgnDir, spawn_pgn_dir};
use eboardd::relay::pgn::PgnTags;

use crate::pty_board::PtyBoard;
use crate::script_core;
use crate::support::*;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

/// Waits (bounded) until `path` holds text that `done` accepts, and returns it.
async fn wait_for_file(path: &Path, done: impl Fn(&str) -> bool) -> String {
    let wait = async {
        loop {
            if let Ok(text) = std::fs::read_to_string(path)
                && done(&text)
            {
                return text;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(LIMIT, wait)
        .await
        .unwrap_or_else(|_| panic!("{} within the limit", path.display()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn confirmed_moves_are_written_to_the_boards_file_and_games_pgn() {
    let dir = tempfile::tempdir().expect("tempdir");
    let link = board_link(dir.path(), "board0");
    let mut board = PtyBoard::plug(&link);
    let pgn_dir = dir.path().join("pgn");
    std::fs::create_dir_all(&pgn_dir).expect("pgn dir");
    let config = scripted_board(&link);
    let mut opts = options(
        &dir.path().join("state"),
        script_core::factory(Arc::new(Mutex::new(script_core::Seen::default()))),
    );
    opts.boards = vec![config.clone()];
    let daemon = Daemon::new(opts);
    let round = PgnTags {
        event: Some("Test Open".into()),
        round: Some("2".into()),
        ..PgnTags::default()
    };
    let relay = spawn_pgn_dir(daemon.clone(), PgnDir::new(&pgn_dir, round));
    daemon.attach(config).await.expect("attach");

    tokio::task::block_in_place(|| board.expect_line("hello", LIMIT));
    board.send(&format!("board {START}"));
    board.send("clock 180000 180000 white");
    board.send("move e2e4");
    board.send("move e7e5");
    let one = wait_for_file(&pgn_dir.join("board-1.pgn"), |t| t.contains("1. e4 e5")).await;
    assert!(one.contains("[Event \"Test Open\"]\n"), "{one}");
    assert!(one.contains("[Round \"2.1\"]\n"), "{one}");
    assert!(
        one.contains("[White \"Anna\"]\n[Black \"Boris\"]\n"),
        "{one}"
    );
    let all = wait_for_file(&pgn_dir.join("games.pgn"), |t| t.contains("1. e4 e5")).await;
    assert_eq!(all, one);
    relay.abort();
    daemon.shutdown().await;
}
