//! `--pgn-dir`: the relay writes each board's game and `games.pgn` as moves are confirmed.

use std::path::Path;
use std::sync::{Arc, Mutex};

use eboardd::daemon::Daemon;
use eboardd::relay::files::{PgnDir, spawn_pgn_dir};
use eboardd::relay::http::RelayState;
use eboardd::relay::pgn::PgnTags;

use crate::daemon::pty_board::PtyBoard;
use crate::daemon::script_core;
use crate::daemon::support::*;

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
    let req = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n{extra}\r\n");
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
    sse.write_all(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
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
    assert!(
        first.to_ascii_lowercase().contains("last-modified: "),
        "{first}"
    );
    let etag = first
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(": ")?;
            name.eq_ignore_ascii_case("etag").then_some(value)
        })
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

/// Polls `path` over HTTP (bounded by the limit) until its body satisfies `done`; the body.
async fn wait_for_body(
    addr: std::net::SocketAddr,
    path: &str,
    done: impl Fn(&str) -> bool,
) -> String {
    let last = std::sync::Mutex::new(String::new());
    let wait = async {
        loop {
            let r = get(addr, path, "").await;
            if let Some((_, body)) = r.split_once("\r\n\r\n")
                && done(body)
            {
                return body.to_string();
            }
            *last.lock().unwrap_or_else(|e| e.into_inner()) = r;
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    match tokio::time::timeout(LIMIT, wait).await {
        Ok(body) => body,
        Err(_) => panic!(
            "{path} not as expected within the limit; the last answer:\n{}",
            last.lock().unwrap_or_else(|e| e.into_inner())
        ),
    }
}

/// The hand plays `uci` on the live board (legal there).
fn play(board: &mut eboardd::sim::live::LiveBoard, uci: &str) {
    let m = shakmaty::uci::UciMove::from_ascii(uci.as_bytes())
        .expect("uci")
        .to_move(board.position())
        .expect("legal on the board");
    board.play(m).expect("the hand plays");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_illegal_move_is_flagged_in_the_feed_until_put_right_and_the_game_goes_on() {
    use eboardd::daemon::config::{BoardConfig, ProtocolChoice};
    use eboardd::protocol::Protocol;
    use eboardd::sim::HandOptions;
    use eboardd::sim::device::BoardOptions;
    use eboardd::sim::live::LiveBoard;
    use shakmaty::Square;

    let dir = tempfile::tempdir().expect("tempdir");
    let board_options = BoardOptions {
        clock: false,
        ..BoardOptions::default()
    };
    let mut board = LiveBoard::start(
        Protocol::Dgt,
        &board_options,
        &shakmaty::Chess::default(),
        7,
        HandOptions::plain(),
        2.0,
    )
    .expect("an emulated board");
    let daemon = Daemon::new(options(
        &dir.path().join("state"),
        eboardd::daemon::core::pipeline_factory(),
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let state = RelayState::new();
    let server = tokio::spawn(eboardd::relay::http::serve(listener, state.clone()));
    let pgn_dir = dir.path().join("pgn");
    std::fs::create_dir_all(&pgn_dir).expect("pgn dir");
    let relay = spawn_pgn_dir(
        daemon.clone(),
        PgnDir::new(&pgn_dir, PgnTags::default()).serve(state),
    );
    let config = BoardConfig {
        protocol: ProtocolChoice::Fixed(Protocol::Dgt),
        ..BoardConfig::for_device(board.path())
    };
    daemon.attach(config).await.expect("attach");
    let served = |body: &str| {
        let file = std::fs::read_to_string(pgn_dir.join("board-1.pgn")).expect("board-1.pgn");
        assert_eq!(file, body, "the file and the server say the same");
        let all = std::fs::read_to_string(pgn_dir.join("games.pgn")).expect("games.pgn");
        assert_eq!(all, body, "one board: games.pgn is its game");
    };

    // The game starts when the daemon sees the start position.
    wait_for_body(addr, "/board/1.pgn", |b| b.ends_with("\n\n*\n")).await;
    // Each move waits for the one before to be published: the test is not about quick play.
    for (m, shown) in [
        ("e2e4", "1. e4 *\n"),
        ("f7f5", "1. e4 f5 *\n"),
        ("d1h5", "2. Qh5+ *\n"),
    ] {
        play(&mut board, m);
        wait_for_body(addr, "/board/1.pgn", |b| b.ends_with(shown)).await;
    }
    let before = wait_for_body(addr, "/board/1.pgn", |b| b.ends_with("2. Qh5+ *\n")).await;

    // Black answers the check with a7-a6, which leaves the king in check (7.5).
    board.misplace(Square::A7, Square::A6).expect("misplaced");
    let flagged = wait_for_body(addr, "/board/1.pgn", |b| b.contains("Illegal move")).await;
    assert!(
        flagged.ends_with(
            "1. e4 f5 2. Qh5+ { Illegal move on the board: a6 (a7a6, Article 7.5). The game\n\
             goes on once it is corrected. } *\n"
        ),
        "published up to the illegal move, flagged on the last legal one:\n{flagged}"
    );
    assert_eq!(
        flagged.split_once("\n\n").map(|p| p.0),
        before.split_once("\n\n").map(|p| p.0)
    );
    served(&flagged);

    // Put right on the board: the flag goes, the game is as before.
    board.put_right().expect("put right");
    let corrected = wait_for_body(addr, "/board/1.pgn", |b| !b.contains("Illegal move")).await;
    assert_eq!(corrected, before);
    served(&corrected);

    // And the game goes on with the following moves.
    for (m, shown) in [
        ("g7g6", "g6 *\n"),
        ("h5g6", "3. Qxg6+ *\n"),
        ("h7g6", "hxg6 *\n"),
    ] {
        play(&mut board, m);
        wait_for_body(addr, "/board/1.pgn", |b| b.ends_with(shown)).await;
    }
    let after = wait_for_body(addr, "/board/1.pgn", |b| b.contains("hxg6")).await;
    assert!(
        after.ends_with("1. e4 f5 2. Qh5+ g6 3. Qxg6+ hxg6 *\n"),
        "{after}"
    );
    served(&after);

    relay.abort();
    server.abort();
    daemon.shutdown().await;
    drop(board);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_of_four_emulated_boards_is_four_correct_games_in_board_order() {
    use eboardd::daemon::config::{BoardConfig, ProtocolChoice};
    use eboardd::event::GameEvent;
    use eboardd::game::record::GameRecord;
    use eboardd::protocol::Protocol;
    use eboardd::relay::pgn::game_pgn;
    use eboardd::sim::HandOptions;
    use eboardd::sim::device::BoardOptions;

    use crate::daemon::emulated::EmulatedPty;
    use crate::daemon::emulated_game::{SPEED, play};

    let games = eboardd::sim::pgn::parse_games(
        "[Event \"a\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 *\n\n\
         [Event \"b\"]\n\n1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 *\n\n\
         [Event \"c\"]\n\n1. e4 Nc6 2. e5 d5 3. exd6 Nf6 4. dxc7 Qxc7 *\n\n\
         [Event \"d\"]\n\n1. c4 e5 2. Nc3 Nf6 3. g3 d5 4. cxd5 Nxd5 5. Bg2 Nb6 *\n",
    )
    .expect("four games");
    let dir = tempfile::tempdir().expect("tempdir");
    let pgn_dir = dir.path().join("pgn");
    std::fs::create_dir_all(&pgn_dir).expect("pgn dir");
    let round = PgnTags {
        event: Some("Four Boards".into()),
        round: Some("3".into()),
        ..PgnTags::default()
    };
    let mut configs = Vec::new();
    let mut boards = Vec::new();
    let mut expected = Vec::new();
    for (i, game) in games.iter().enumerate() {
        let n = i + 1;
        let protocol = if i % 2 == 0 {
            Protocol::Dgt
        } else {
            Protocol::Millennium
        };
        let board_options = BoardOptions {
            clock: false,
            ..BoardOptions::default()
        };
        let played = play(
            game,
            protocol,
            n as u64,
            HandOptions::default(),
            board_options,
        );
        let link = board_link(dir.path(), &format!("board{n}"));
        boards.push(EmulatedPty::start(
            &link,
            played.board,
            played.perf.timeline.clone(),
            SPEED,
            vec![],
        ));
        let config = BoardConfig {
            protocol: ProtocolChoice::Fixed(protocol),
            white: Some(format!("White {n}")),
            black: Some(format!("Black {n}")),
            ..BoardConfig::for_device(&link)
        };
        configs.push(config);
        // What the relay must write for this board: the game played, with its tags.
        let mut record = GameRecord::default();
        record.apply(&GameEvent::NewGame {
            fen: played.perf.truth.start_fen.clone(),
            chess960: false,
        });
        for p in &played.perf.truth.plies {
            record.apply(&GameEvent::Move {
                ply: p.ply,
                uci: p.uci.parse().expect("uci"),
                san: p.san.parse().expect("san"),
                fen: p.fen_after.clone(),
                clock_ms: None,
                emt_ms: None,
                alternatives: Vec::new(),
            });
        }
        let tags = PgnTags {
            board: Some(n as u32),
            white: Some(format!("White {n}")),
            black: Some(format!("Black {n}")),
            ..round.clone()
        };
        expected.push(game_pgn(&tags, &record, None));
    }
    let expected = expected.join("\n");
    let mut opts = options(
        &dir.path().join("state"),
        eboardd::daemon::core::pipeline_factory(),
    );
    opts.boards = configs.clone();
    let daemon = Daemon::new(opts);
    let relay = spawn_pgn_dir(daemon.clone(), PgnDir::new(&pgn_dir, round));
    for config in configs {
        daemon.attach(config).await.expect("attach");
    }

    let path = pgn_dir.join("games.pgn");
    let wait = async {
        loop {
            if std::fs::read_to_string(&path).is_ok_and(|t| t == expected) {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    };
    if tokio::time::timeout(LIMIT * 3, wait).await.is_err() {
        let got = std::fs::read_to_string(&path).unwrap_or_default();
        panic!("games.pgn:\n{got}\nexpected:\n{expected}");
    }
    let all = std::fs::read_to_string(&path).expect("games.pgn");
    let rounds: Vec<&str> = all
        .lines()
        .filter_map(|l| l.strip_prefix("[Round \""))
        .collect();
    assert_eq!(rounds, ["3.1\"]", "3.2\"]", "3.3\"]", "3.4\"]"]);
    for n in 1..=4 {
        let one = std::fs::read_to_string(pgn_dir.join(format!("board-{n}.pgn"))).expect("board");
        assert!(all.contains(&one), "board-{n}.pgn is its part of games.pgn");
    }
    relay.abort();
    daemon.shutdown().await;
    drop(boards);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_restart_the_feed_starts_from_the_resumed_game_not_from_its_next_move() {
    let dir = tempfile::tempdir().expect("tempdir");
    let link = board_link(dir.path(), "board0");
    let mut board = PtyBoard::plug(&link);
    let state = dir.path().join("state");
    let pgn_dir = dir.path().join("pgn");
    std::fs::create_dir_all(&pgn_dir).expect("pgn dir");
    let config = scripted_board(&link);
    let daemon = |config: &eboardd::daemon::config::BoardConfig| {
        let mut opts = options(
            &state,
            script_core::factory(Arc::new(Mutex::new(script_core::Seen::default()))),
        );
        opts.boards = vec![config.clone()];
        Daemon::new(opts)
    };

    // First life, without a relay: three moves, journalled.
    let first = daemon(&config);
    first.attach(config.clone()).await.expect("attach");
    tokio::task::block_in_place(|| board.expect_line("hello", LIMIT));
    board.send(&format!("board {START}"));
    for m in ["e2e4", "c7c5", "g1f3"] {
        board.send(&format!("move {m}"));
    }
    let journal = state.join("journal");
    let wait = async {
        loop {
            let text = std::fs::read_dir(&journal)
                .into_iter()
                .flatten()
                .filter_map(Result::ok)
                .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
                .collect::<String>();
            if text.contains("g1f3") {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(LIMIT, wait)
        .await
        .expect("journalled within the limit");
    first.shutdown().await;

    // Second life with the relay: the resumed game is published before any new move.
    let second = daemon(&config);
    let relay = spawn_pgn_dir(second.clone(), PgnDir::new(&pgn_dir, PgnTags::default()));
    second.attach(config).await.expect("attach");
    let resumed = wait_for_file(&pgn_dir.join("games.pgn"), |t| t.contains("1. e4")).await;
    assert!(resumed.ends_with("\n\n1. e4 c5 2. Nf3 *\n"), "{resumed}");
    tokio::task::block_in_place(|| board.expect_line("hello", LIMIT));
    board.send("move d7d6");
    let after = wait_for_file(&pgn_dir.join("games.pgn"), |t| t.contains("d6")).await;
    assert!(after.ends_with("\n\n1. e4 c5 2. Nf3 d6 *\n"), "{after}");
    relay.abort();
    second.shutdown().await;
}
