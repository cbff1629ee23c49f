//! `--pgn-dir`: the relay writes each board's game and `games.pgn` as moves are confirmed.

use std::path::Path;
use std::sync::{Arc, Mutex};

use eboardd::daemon::Daemon;
use eboardd::relay::files::{PgnDir, spawn_pgn_dir};
use eboardd::relay::http::RelayState;
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

/// One HTTP/1.1 GET over a fresh connection: the status line, headers and body as text.
async fn get(addr: std::net::SocketAddr, path: &str, extra: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let req = format!("GET {path} HTTP/1.1\r\nHost: test\r\n{extra}\r\n");
    s.write_all(req.as_bytes()).await.expect("request");
    let mut out = String::new();
    s.read_to_string(&mut out).await.expect("response");
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relay_serves_pgn_with_etags_and_streams_events() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let dir = tempfile::tempdir().expect("tempdir");
    let link = board_link(dir.path(), "board0");
    let mut board = PtyBoard::plug(&link);
    let config = scripted_board(&link);
    let daemon = Daemon::new(options(
        &dir.path().join("state"),
        script_core::factory(Arc::new(Mutex::new(script_core::Seen::default()))),
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let state = RelayState::new();
    let server = tokio::spawn(eboardd::relay::http::serve(listener, state.clone()));
    let relay = spawn_pgn_dir(
        daemon.clone(),
        PgnDir::in_memory(PgnTags::default()).serve(state),
    );
    daemon.attach(config).await.expect("attach");

    // The event stream, opened before the game.
    let mut sse = tokio::net::TcpStream::connect(addr).await.expect("connect");
    sse.write_all(b"GET /events HTTP/1.1\r\nHost: test\r\n\r\n")
        .await
        .expect("request");
    let mut sse = BufReader::new(sse);
    let mut status = String::new();
    sse.read_line(&mut status).await.expect("status");
    assert_eq!(status, "HTTP/1.1 200 OK\r\n");
    let mut line = String::new();
    while line != "\r\n" {
        line.clear();
        sse.read_line(&mut line).await.expect("header");
    }

    tokio::task::block_in_place(|| board.expect_line("hello", LIMIT));
    board.send(&format!("board {START}"));
    board.send("move e2e4");
    let wait_move = async {
        loop {
            line.clear();
            sse.read_line(&mut line).await.expect("event");
            if line.starts_with("data: ") && line.contains("\"event\":\"move\"") {
                return line.clone();
            }
        }
    };
    let data = tokio::time::timeout(LIMIT, wait_move)
        .await
        .expect("a move event within the limit");
    let json: serde_json::Value =
        serde_json::from_str(data.trim_start_matches("data: ").trim()).expect("JSON");
    assert_eq!(
        (json["san"].as_str(), json["board"].as_u64()),
        (Some("e4"), Some(1))
    );

    let wait_pgn = async {
        loop {
            let r = get(addr, "/board/1.pgn", "").await;
            if r.contains("1. e4 *") {
                return r;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    let first = tokio::time::timeout(LIMIT, wait_pgn)
        .await
        .expect("the PGN within the limit");
    assert!(first.starts_with("HTTP/1.1 200 OK\r\n"), "{first}");
    assert!(first.contains("Last-Modified: "), "{first}");
    let etag = first
        .lines()
        .find_map(|l| l.strip_prefix("ETag: "))
        .expect("an ETag")
        .to_string();
    let again = get(addr, "/board/1.pgn", &format!("If-None-Match: {etag}\r\n")).await;
    assert!(
        again.starts_with("HTTP/1.1 304 Not Modified\r\n"),
        "{again}"
    );
    let games = get(addr, "/games.pgn", "").await;
    assert!(games.ends_with("\r\n\r\n[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?.1\"]\n[White \"?\"]\n[Black \"?\"]\n[Result \"*\"]\n\n1. e4 *\n"), "{games}");
    let missing = get(addr, "/board/9.pgn", "").await;
    assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");

    relay.abort();
    server.abort();
    daemon.shutdown().await;
}
