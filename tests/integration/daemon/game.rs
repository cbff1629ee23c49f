//! A game played on a board, seen by a D-Bus client; bad calls refused.

use eboardd::dbus::board_path;
use eboardd::dbus::client::BoardProxy;

use crate::daemon::pty_board::PtyBoard;
use crate::daemon::support::*;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_on_a_pty_board_shows_in_every_signal_and_property() {
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let link = board_link(dir.path(), "board0");
    let mut board = PtyBoard::plug(&link);
    let conn = client(&address).await;
    let mut signals = Signals::record(&conn).await;
    let (_daemon, _service, _) = start_daemon(
        &address,
        &dir.path().join("state"),
        vec![scripted_board(&link)],
    )
    .await;

    let manager = manager_proxy(&conn).await;
    let boards = manager.boards().await.expect("Boards");
    assert_eq!(boards.len(), 1);
    assert_eq!(boards[0].as_str(), board_path(0));
    let proxy = board_proxy(&conn, board_path(0)).await;

    tokio::task::block_in_place(|| board.expect_line("hello", LIMIT));
    assert!(proxy.connected().await.expect("Connected"));
    assert_eq!(proxy.protocol().await.expect("Protocol"), "dgt");
    assert_eq!(
        proxy.device().await.expect("Device"),
        link.display().to_string()
    );
    assert_eq!(proxy.laws().await.expect("Laws"), "fide-2023");

    board.send("serial A1B2C3");
    board.send(&format!("board {START}"));
    let new_game = signals.next("NewGame").await;
    let (fen, chess960): (String, bool) = new_game.body().deserialize().expect("NewGame");
    assert_eq!(fen, format!("{START} w KQkq - 0 1"));
    assert!(!chess960);

    board.send("move e2e4");
    let mv = signals.next("Move").await;
    let (ply, uci, san, fen): (u32, String, String, String) =
        mv.body().deserialize().expect("Move");
    assert_eq!((ply, uci.as_str(), san.as_str()), (1, "e2e4", "e4"));
    assert_eq!(
        fen,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    let json: String = signals
        .next("Event")
        .await
        .body()
        .deserialize()
        .expect("Event");
    let line: serde_json::Value = serde_json::from_str(&json).expect("a JSON line");
    assert_eq!(line["event"], "move");
    assert_eq!(line["san"], "e4");

    board.send("move e7e5");
    board.send("move g1f3");
    signals.next("Move").await;
    let (ply, _, san, _): (u32, String, String, String) = signals
        .next("Move")
        .await
        .body()
        .deserialize()
        .expect("Move");
    assert_eq!((ply, san.as_str()), (3, "Nf3"));

    board.send("clock 180000 175500 black");
    let (w, b, running): (i64, i64, String) = signals
        .next("Clock")
        .await
        .body()
        .deserialize()
        .expect("Clock");
    assert_eq!((w, b, running.as_str()), (180_000, 175_500, "black"));
    board.send("violation 4.3a the knight on g8 was touched");
    let (ply, article, laws, detail): (u32, String, String, String) = signals
        .next("Violation")
        .await
        .body()
        .deserialize()
        .expect("Violation");
    assert_eq!(
        (ply, article.as_str(), laws.as_str()),
        (4, "4.3a", "fide-2023")
    );
    assert_eq!(detail, "the knight on g8 was touched");
    board.send("mismatch e4 e5");
    let (squares,): (Vec<String>,) = signals
        .next("Mismatch")
        .await
        .body()
        .deserialize()
        .expect("Mismatch");
    assert_eq!(squares, ["e4", "e5"]);
    board.send("retract");
    let (ply, uci): (u32, String) = signals
        .next("Retract")
        .await
        .body()
        .deserialize()
        .expect("Retract");
    assert_eq!((ply, uci.as_str()), (3, "g1f3"));
    board.send("takeback 1");
    let (ply,): (u32,) = signals
        .next("Takeback")
        .await
        .body()
        .deserialize()
        .expect("Takeback");
    assert_eq!(ply, 1);
    board.send("move e7e5");
    board.send("result 1/2-1/2 agreed");
    let (result, reason): (String, String) = signals
        .next("Result")
        .await
        .body()
        .deserialize()
        .expect("Result");
    assert_eq!((result.as_str(), reason.as_str()), ("1/2-1/2", "agreed"));

    assert_eq!(proxy.ply().await.expect("Ply"), 2);
    assert_eq!(
        proxy.fen().await.expect("Fen"),
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
    let pgn = proxy.pgn().await.expect("Pgn");
    assert!(pgn.trim_end().ends_with("1. e4 e5 1/2-1/2"), "{pgn}");
    assert_eq!(
        proxy.placement().await.expect("Placement"),
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"
    );
    assert_eq!(proxy.orientation().await.expect("Orientation"), "normal");
    assert_eq!(proxy.serial().await.expect("Serial"), "A1B2C3");

    // Methods reach the board.
    proxy.set_leds(&["e2", "e4"]).await.expect("SetLeds");
    proxy.clock_text("Your move").await.expect("ClockText");
    proxy.show_move("g1f3").await.expect("ShowMove");
    tokio::task::block_in_place(|| {
        board.expect_line("leds e2 e4", LIMIT);
        board.expect_line("text Your move", LIMIT);
        board.expect_line("show g1f3", LIMIT);
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn properties_changed_follows_the_game_and_the_link() {
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let link = board_link(dir.path(), "board0");
    let mut board = PtyBoard::plug(&link);
    let conn = client(&address).await;
    let mut signals = Signals::record(&conn).await;
    let (_daemon, _service, _) = start_daemon(
        &address,
        &dir.path().join("state"),
        vec![scripted_board(&link)],
    )
    .await;
    tokio::task::block_in_place(|| board.expect_line("hello", LIMIT));
    board.send(&format!("board {START}"));
    let placement = signals.changed("Placement").await;
    assert_eq!(String::try_from(placement).expect("s"), START);
    board.send("move d2d4");
    // One PropertiesChanged carries all that the move changed, before the Move signal.
    let mut changes = signals.changes("Fen").await;
    let fen = changes.remove("Fen").expect("Fen");
    assert_eq!(
        String::try_from(fen).expect("s"),
        "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1"
    );
    let ply = changes.remove("Ply").expect("Ply beside Fen");
    assert_eq!(u32::try_from(ply).expect("u"), 1);
    let pgn = changes.remove("Pgn").expect("Pgn beside Fen");
    assert!(String::try_from(pgn).expect("s").contains("1. d4 *"));
    let moved = signals.next("Move").await;
    let (ply, uci, ..): (u32, String, String, String) = moved.body().deserialize().expect("Move");
    assert_eq!((ply, uci.as_str()), (1, "d2d4"));
    board.unplug();
    let connected = signals.changed("Connected").await;
    assert!(!bool::try_from(connected).expect("b"));
    let mut board = PtyBoard::plug(&link);
    tokio::task::block_in_place(|| board.expect_line("hello", LIMIT));
    let connected = signals.changed("Connected").await;
    assert!(bool::try_from(connected).expect("b"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_calls_get_errors_that_say_what_was_wrong_and_change_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let link = board_link(dir.path(), "board0");
    let mut board = PtyBoard::plug(&link);
    let conn = client(&address).await;
    let (_daemon, _service, _) = start_daemon(
        &address,
        &dir.path().join("state"),
        vec![scripted_board(&link)],
    )
    .await;
    let proxy = board_proxy(&conn, board_path(0)).await;
    let manager = manager_proxy(&conn).await;
    tokio::task::block_in_place(|| board.expect_line("hello", LIMIT));
    board.send(&format!("board {START}"));
    board.send("move e2e4");
    wait_for_ply(&proxy, 1).await;
    let fen = proxy.fen().await.expect("Fen");

    let expect_error = |r: zbus::Result<()>, name: &str, words: &str| match r {
        Err(zbus::Error::MethodError(n, Some(text), _)) => {
            assert_eq!(n.as_str(), format!("org.eboardd.EBoard1.Error.{name}"));
            assert!(text.contains(words), "{text:?} should say {words:?}");
        }
        other => panic!("expected {name}, got {other:?}"),
    };
    expect_error(
        proxy.new_game("not a fen").await,
        "InvalidArgs",
        "not a FEN",
    );
    expect_error(
        proxy.new_game("8/8/8/8/8/8/8/8 w - - 0 1").await,
        "InvalidArgs",
        "not a legal position",
    );
    expect_error(proxy.set_position("").await, "InvalidArgs", "needs a FEN");
    expect_error(proxy.set_leds(&["e2", "z9"]).await, "InvalidArgs", "\"z9\"");
    expect_error(
        proxy.show_move("e2e4").await,
        "InvalidArgs",
        "not a legal move",
    );
    expect_error(proxy.show_move("hello").await, "InvalidArgs", "UCI");
    expect_error(
        proxy.clock_text("\u{7}beep").await,
        "InvalidArgs",
        "printable ASCII",
    );
    let detach = manager.detach_device("/dev/no-such-board").await;
    expect_error(detach, "NotAttached", "/dev/no-such-board");
    match manager.attach_device("relative/tty").await {
        Err(zbus::Error::MethodError(n, _, _)) => {
            assert_eq!(n.as_str(), "org.eboardd.EBoard1.Error.InvalidArgs")
        }
        other => panic!("expected InvalidArgs, got {other:?}"),
    }
    // A device that is no serial port leaves no board behind.
    expect_error(
        manager.attach_device("/dev/null").await.map(drop),
        "InvalidArgs",
        "not a serial port",
    );

    assert_eq!(proxy.fen().await.expect("Fen"), fen, "nothing changed");
    assert_eq!(proxy.ply().await.expect("Ply"), 1);
    assert_eq!(manager.boards().await.expect("Boards").len(), 1);
    let written = board.pending();
    assert!(
        written.is_empty(),
        "nothing was sent to the board: {written:?}"
    );

    // A detached board's object is gone: calls on it fail, and nothing else changes.
    manager
        .detach_device(&link.display().to_string())
        .await
        .expect("detach");
    let gone = proxy.new_game("").await;
    assert!(gone.is_err(), "{gone:?}");
    assert!(manager.boards().await.expect("Boards").is_empty());
}

/// Waits (bounded) until the board's Ply property reaches `ply`.
pub async fn wait_for_ply(proxy: &BoardProxy<'_>, ply: u32) {
    let wait = async {
        loop {
            if proxy.ply().await.expect("Ply") == ply {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(LIMIT, wait)
        .await
        .unwrap_or_else(|_| panic!("Ply did not reach {ply}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attach_and_detach_over_dbus_announce_the_board() {
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let link = board_link(dir.path(), "board0");
    let mut board = PtyBoard::plug(&link);
    let conn = client(&address).await;
    let mut signals = Signals::record(&conn).await;
    let (_daemon, _service, _) = start_daemon(&address, &dir.path().join("state"), vec![]).await;
    let manager = manager_proxy(&conn).await;
    assert!(manager.boards().await.expect("Boards").is_empty());
    let idle_tasks = manager.tasks().await.expect("Tasks");

    let device = link.display().to_string();
    let path = manager.attach_device(&device).await.expect("AttachDevice");
    let serving_tasks = manager.tasks().await.expect("Tasks");
    assert!(
        serving_tasks > idle_tasks,
        "a board's tasks count: {idle_tasks} -> {serving_tasks}"
    );
    assert_eq!(path.as_str(), board_path(0));
    let (added,): (zbus::OwnedObjectPath,) = signals
        .next("BoardAdded")
        .await
        .body()
        .deserialize()
        .expect("BoardAdded");
    assert_eq!(added, path);
    let again = manager
        .attach_device(&device)
        .await
        .expect("AttachDevice again");
    assert_eq!(again, path, "attaching twice gives the same board");
    assert_eq!(manager.boards().await.expect("Boards"), vec![path.clone()]);
    // Attached over D-Bus, a device gets the defaults: protocol auto, so it is probed.
    tokio::task::block_in_place(|| {
        board.wait_for(LIMIT, |b| b.windows(2).any(|w| w == [0x40, 0x42]));
    });

    manager.detach_device(&device).await.expect("DetachDevice");
    let (removed,): (zbus::OwnedObjectPath,) = signals
        .next("BoardRemoved")
        .await
        .body()
        .deserialize()
        .expect("BoardRemoved");
    assert_eq!(removed, path);
    assert!(manager.boards().await.expect("Boards").is_empty());
    // The board's tasks end with it (they wind down as the detach returns).
    let deadline = tokio::time::Instant::now() + LIMIT;
    let mut left = manager.tasks().await.expect("Tasks");
    while left > idle_tasks && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        left = manager.tasks().await.expect("Tasks");
    }
    assert!(
        left <= idle_tasks,
        "tasks after detaching: {left}, before attaching: {idle_tasks}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_configured_device_attached_by_udev_keeps_its_settings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let link = board_link(dir.path(), "board0");
    let mut board = PtyBoard::plug(&link);
    let conn = client(&address).await;
    let seen = std::sync::Arc::new(std::sync::Mutex::new(
        crate::daemon::script_core::Seen::default(),
    ));
    let mut opts = options(
        &dir.path().join("state"),
        crate::daemon::script_core::factory(seen),
    );
    // The configuration names the board by its link; udev attaches the node it points at.
    opts.boards = vec![scripted_board(&link)];
    let daemon = eboardd::daemon::Daemon::new(opts);
    let _service = eboardd::dbus::serve(daemon, &eboardd::dbus::Bus::Address(address.clone()))
        .await
        .expect("serve");
    let node = std::fs::canonicalize(&link).expect("the pty node");
    let manager = manager_proxy(&conn).await;
    manager
        .attach_device(&node.display().to_string())
        .await
        .expect("AttachDevice");
    // Protocol fixed by the configuration: no probe, straight to the start-up.
    let first = tokio::task::block_in_place(|| board.wait_for(LIMIT, |b| b.len() >= 5));
    assert!(first.starts_with(b"hello"), "{first:?}");
}
