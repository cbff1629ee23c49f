//! Unplugging, failing boards and probing, on real pseudo-terminals.

use eboardd::daemon::Daemon;
use eboardd::daemon::config::{BoardConfig, ProtocolChoice};
use eboardd::daemon::core::pipeline_factory;
use eboardd::dbus::{self, Bus, board_path};

use crate::daemon::game::wait_for_ply;
use crate::daemon::pty_board::PtyBoard;
use crate::daemon::support::*;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn board_unplugged_mid_game_comes_back_and_the_game_goes_on_with_the_moves_made_meanwhile() {
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let link = board_link(dir.path(), "board0");
    let mut board = PtyBoard::plug(&link);
    let conn = client(&address).await;
    let mut signals = Signals::record(&conn).await;
    let (_daemon, _service, seen) = start_daemon(
        &address,
        &dir.path().join("state"),
        vec![scripted_board(&link)],
    )
    .await;
    let proxy = board_proxy(&conn, board_path(0)).await;
    tokio::task::block_in_place(|| board.expect_line("hello", LIMIT));
    board.send(&format!("board {START}"));
    board.send("move e2e4");
    board.send("move e7e5");
    wait_for_ply(&proxy, 2).await;
    signals.clear();

    board.unplug();
    let connected = signals.changed("Connected").await;
    assert!(
        !bool::try_from(connected).expect("b"),
        "shown as disconnected"
    );

    // While it was away the players went on: 2. Nf3 Nc6. Plugged back on the same path,
    // the board reports the whole board and the game takes the two moves up.
    let mut board = PtyBoard::plug(&link);
    tokio::task::block_in_place(|| board.expect_line("hello", LIMIT));
    let connected = signals.changed("Connected").await;
    assert!(bool::try_from(connected).expect("b"), "connected again");
    board.send("board r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R");
    let (ply, _, san, _): (u32, String, String, String) = signals
        .next("Move")
        .await
        .body()
        .deserialize()
        .expect("Move");
    assert_eq!((ply, san.as_str()), (3, "Nf3"));
    let (ply, _, san, _): (u32, String, String, String) = signals
        .next("Move")
        .await
        .body()
        .deserialize()
        .expect("Move");
    assert_eq!((ply, san.as_str()), (4, "Nc6"));
    board.send("move f1b5");
    wait_for_ply(&proxy, 5).await;
    let pgn = proxy.pgn().await.expect("Pgn");
    assert!(pgn.contains("1. e4 e5 2. Nf3 Nc6 3. Bb5"), "{pgn}");
    let made = seen.lock().map(|s| s.made).unwrap_or(0);
    assert_eq!(made, 1, "the same core went on across the reconnection");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_board_never_stalls_another() {
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let link = board_link(dir.path(), "good");
    let missing = board_link(dir.path(), "missing");
    let mut board = PtyBoard::plug(&link);
    let conn = client(&address).await;
    let boards = vec![scripted_board(&missing), scripted_board(&link)];
    let (daemon, _service, _) = start_daemon(&address, &dir.path().join("state"), boards).await;
    let good = board_proxy(&conn, board_path(1)).await;
    let absent = board_proxy(&conn, board_path(0)).await;
    tokio::task::block_in_place(|| board.expect_line("hello", LIMIT));
    board.send(&format!("board {START}"));
    board.send("move c2c4");
    wait_for_ply(&good, 1).await;
    assert!(!absent.connected().await.expect("Connected"));
    // The missing board answers while it retries, and refuses what needs a board.
    match absent.set_leds(&["a1"]).await {
        Err(zbus::Error::MethodError(n, _, _)) => {
            assert_eq!(n.as_str(), "org.eboardd.EBoard1.Error.NotConnected")
        }
        other => panic!("expected NotConnected, got {other:?}"),
    }
    assert!(
        daemon.all_alive(LIMIT).await,
        "every board's task answers the watchdog"
    );
    // It is found once it appears.
    let mut late = PtyBoard::plug(&missing);
    tokio::task::block_in_place(|| late.expect_line("hello", LIMIT));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_auto_board_answering_v_is_probed_as_millennium_and_started() {
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let link = board_link(dir.path(), "chesslink");
    let mut board = PtyBoard::plug(&link);
    let conn = client(&address).await;
    let options = options(&dir.path().join("state"), pipeline_factory());
    let daemon = Daemon::new(options);
    let config = BoardConfig {
        protocol: ProtocolChoice::Auto,
        ..BoardConfig::for_device(&link)
    };
    daemon.attach(config).await.expect("attach");
    let _service = dbus::serve(daemon.clone(), &Bus::Address(address.clone()))
        .await
        .expect("serve");
    // DGT is tried first: reset and board request. A ChessLink board ignores them.
    tokio::task::block_in_place(|| {
        board.wait_for(LIMIT, |b| b.ends_with(&[0x40, 0x42]));
    });
    // Then `V` (with odd parity), which it answers with its version.
    let v = [0xd6, 0xb5, 0xb6];
    tokio::task::block_in_place(|| {
        board.wait_for(LIMIT, |b| b.windows(3).any(|w| w == v));
    });
    board.send_bytes(&[0x76, 0xb0, 0x31, 0xb0, 0xb3, 0x37, 0x34]);
    let proxy = board_proxy(&conn, board_path(0)).await;
    let wait = async {
        while proxy.protocol().await.expect("Protocol") != "millennium" {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(LIMIT, wait)
        .await
        .expect("probed as millennium");
    assert!(proxy.connected().await.expect("Connected"));
    // The start-up follows: status reports on every change (W0203), then a status request.
    let w0203 = [0x57, 0xb0, 0x32, 0xb0, 0xb3, 0xb5, 0xb6];
    tokio::task::block_in_place(|| {
        board.wait_for(LIMIT, |b| b.windows(7).any(|w| w == w0203));
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_record_directory_every_board_s_traffic_is_written_as_a_trace() {
    let dir = tempfile::tempdir().expect("tempdir");
    let link = board_link(dir.path(), "board0");
    let mut board = PtyBoard::plug(&link);
    let seen = std::sync::Arc::new(std::sync::Mutex::new(
        crate::daemon::script_core::Seen::default(),
    ));
    let mut opts = options(
        &dir.path().join("state"),
        crate::daemon::script_core::factory(seen),
    );
    let traces = dir.path().join("traces");
    opts.record_dir = Some(traces.clone());
    let daemon = Daemon::new(opts);
    daemon.attach(scripted_board(&link)).await.expect("attach");
    tokio::task::block_in_place(|| board.expect_line("hello", LIMIT));
    board.send("serial X1");
    let wait = async {
        loop {
            let found = std::fs::read_dir(&traces)
                .into_iter()
                .flatten()
                .filter_map(Result::ok)
                .find_map(|e| {
                    let t = eboardd::trace::read_trace_file(&e.path()).ok()?;
                    let has_input = t.from_board().next().is_some();
                    has_input.then_some(t)
                });
            if let Some(t) = found {
                return t;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    let trace = tokio::time::timeout(LIMIT, wait).await.expect("a trace");
    let to_board: Vec<u8> = trace
        .chunks
        .iter()
        .filter(|c| c.dir == eboardd::trace::Direction::ToBoard)
        .flat_map(|c| c.bytes.clone())
        .collect();
    assert_eq!(to_board, b"hello\n");
    let from_board: Vec<u8> = trace.from_board().flat_map(|c| c.bytes.clone()).collect();
    assert_eq!(from_board, b"serial X1\n");
    daemon.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_boards_play_at_once_each_its_own_game() {
    const BOARDS: usize = 8;
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let links: Vec<_> = (0..BOARDS)
        .map(|i| board_link(dir.path(), &format!("board{i}")))
        .collect();
    let mut boards: Vec<PtyBoard> = links.iter().map(|l| PtyBoard::plug(l)).collect();
    let conn = client(&address).await;
    let configs = links.iter().map(|l| scripted_board(l)).collect();
    let (_daemon, _service, _) = start_daemon(&address, &dir.path().join("state"), configs).await;
    // Board i plays i + 1 plies of the same opening.
    let opening = [
        "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6",
    ];
    for (i, board) in boards.iter_mut().enumerate() {
        tokio::task::block_in_place(|| board.expect_line("hello", LIMIT));
        board.send(&format!("board {START}"));
        for m in &opening[..=i] {
            board.send(&format!("move {m}"));
        }
    }
    for (i, link) in links.iter().enumerate() {
        let proxy = board_proxy(&conn, board_path(i as u32)).await;
        wait_for_ply(&proxy, i as u32 + 1).await;
        assert_eq!(
            proxy.device().await.expect("Device"),
            link.display().to_string()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dgt_boards_start_up_as_recorded_leaves_90_ms_or_more_between_commands() {
    let dir = tempfile::tempdir().expect("tempdir");
    let link = board_link(dir.path(), "dgt0");
    let mut board = PtyBoard::plug(&link);
    let mut opts = options(&dir.path().join("state"), pipeline_factory());
    let traces = dir.path().join("traces");
    opts.record_dir = Some(traces.clone());
    let daemon = Daemon::new(opts);
    daemon
        .attach(BoardConfig {
            protocol: ProtocolChoice::Fixed(eboardd::protocol::Protocol::Dgt),
            ..BoardConfig::for_device(&link)
        })
        .await
        .expect("attach");
    // The whole start-up, the clock's version last (nothing answers it).
    let startup: Vec<u8> = eboardd::protocol::dgt::startup_commands().concat();
    tokio::task::block_in_place(|| {
        board.wait_for(LIMIT, |b| b.len() > startup.len());
    });
    let trace = std::fs::read_dir(&traces)
        .expect("the record directory")
        .filter_map(Result::ok)
        .find_map(|e| eboardd::trace::read_trace_file(&e.path()).ok())
        .expect("a trace");
    let host: Vec<_> = trace
        .chunks
        .iter()
        .filter(|c| c.dir == eboardd::trace::Direction::ToBoard)
        .collect();
    // The codec's start-up in its order, the clock's command queued apart (after the
    // first keep-alive, maybe).
    let (clock, board_commands): (Vec<Vec<u8>>, Vec<Vec<u8>>) =
        eboardd::protocol::dgt::startup_commands()
            .into_iter()
            .partition(|c| c.first() == Some(&0x2b));
    let written: Vec<Vec<u8>> = host.iter().map(|c| c.bytes.clone()).collect();
    assert_eq!(
        written[..board_commands.len()],
        board_commands[..],
        "{written:02x?}"
    );
    assert!(written.contains(&clock[0]), "{written:02x?}");
    // The board's command buffer holds ten bytes: the first command 300 ms or more after
    // the port was opened, each next one 90 ms or more after the one before.
    assert!(
        host[0].t >= eboardd::time::Time::from_millis(300),
        "first command at {}",
        host[0].t
    );
    for pair in host.windows(2) {
        let gap = pair[1].t.as_micros() - pair[0].t.as_micros();
        assert!(
            gap >= 90_000,
            "{:02x?} then {:02x?}: {gap} µs apart",
            pair[0].bytes,
            pair[1].bytes
        );
    }
    daemon.shutdown().await;
}
