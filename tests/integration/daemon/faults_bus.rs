//! The daemon's bus connection killed under it, and refused for a while, as when the
//! broker restarts: the daemon logs it, connects again with back-off, exports its boards
//! again with their state and owns its name again; the game goes on meanwhile and no move
//! is lost.

use eboardd::dbus::{BUS_NAME, board_path};
use futures_util::StreamExt;

use crate::daemon::bus_relay::BusRelay;
use crate::daemon::game::wait_for_ply;
use crate::daemon::pty_board::PtyBoard;
use crate::daemon::support::*;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

/// Waits (bounded) until `BUS_NAME` has an owner (`true`) or none (`false`).
async fn wait_for_owner(dbus: &zbus::fdo::DBusProxy<'_>, owned: bool) {
    let name = zbus::names::BusName::try_from(BUS_NAME).expect("name");
    let mut changes = dbus
        .receive_name_owner_changed_with_args(&[(0, BUS_NAME)])
        .await
        .expect("NameOwnerChanged");
    let wait = async {
        loop {
            if dbus
                .name_has_owner(name.clone())
                .await
                .expect("NameHasOwner")
                == owned
            {
                return;
            }
            changes.next().await.expect("the signal stream");
        }
    };
    tokio::time::timeout(LIMIT, wait)
        .await
        .unwrap_or_else(|_| panic!("{BUS_NAME} owned: never {owned}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_bus_connection_comes_back_with_the_name_the_objects_and_the_whole_game() {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let broker = start_bus(dir.path());
    let relay = BusRelay::start(dir.path(), &broker);
    let link = board_link(dir.path(), "board0");
    let mut board = PtyBoard::plug(&link);
    let conn = client(&broker).await;
    let dbus = zbus::fdo::DBusProxy::new(&conn).await.expect("DBus");
    let (_daemon, service, _seen) = start_daemon(
        relay.address(),
        &dir.path().join("state"),
        vec![scripted_board(&link)],
    )
    .await;
    let proxy = board_proxy(&conn, board_path(0)).await;
    board.expect_line("hello", LIMIT);
    board.send(&format!("board {START}"));
    for m in ["e2e4", "c7c5", "g1f3"] {
        board.send(&format!("move {m}"));
    }
    wait_for_ply(&proxy, 3).await;
    assert!(service.health().owns_name());

    // The broker drops the daemon and will not take it back for now.
    relay.refuse(true);
    relay.cut();
    wait_for_owner(&dbus, false).await;
    // The game goes on without the bus.
    board.send("move d7d6");
    board.send("move d2d4");
    let refused = relay.accepted();
    // Back-off: the daemon keeps trying (and is refused at least once more).
    let tries = async {
        while relay.accepted() < refused + 2 {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(LIMIT, tries)
        .await
        .expect("the daemon tries again");
    assert!(!service.health().owns_name(), "no name, no watchdog ping");

    // The broker takes it again: the name, the board and the whole game are back.
    relay.refuse(false);
    wait_for_owner(&dbus, true).await;
    wait_for_ply(&proxy, 5).await;
    let pgn = proxy.pgn().await.expect("Pgn");
    assert!(pgn.contains("1. e4 c5 2. Nf3 d6 3. d4"), "{pgn}");
    let manager = manager_proxy(&conn).await;
    assert_eq!(manager.boards().await.expect("Boards").len(), 1);
    assert!(service.health().owns_name());

    // And moves flow as signals again.
    let mut signals = Signals::record(&conn).await;
    board.send("move c5d4");
    let moved = signals.next("Move").await;
    let (ply, uci, _, _): (u32, String, String, String) = moved.body().deserialize().expect("Move");
    assert_eq!((ply, uci.as_str()), (6, "c5d4"));
    service.stop().await;
}

/// The notifications a process sends to systemd, read from a socket of our own.
struct Notifications {
    socket: std::os::unix::net::UnixDatagram,
}

impl Notifications {
    fn bind(path: &std::path::Path) -> Notifications {
        let socket = std::os::unix::net::UnixDatagram::bind(path).expect("notify socket");
        Notifications { socket }
    }

    /// The next notification that holds `what`, within `limit`; `None` if none came.
    fn next(&self, what: &str, limit: std::time::Duration) -> Option<String> {
        let end = std::time::Instant::now() + limit;
        let mut buf = [0u8; 4096];
        loop {
            let left = end.checked_duration_since(std::time::Instant::now())?;
            self.socket
                .set_read_timeout(Some(left.max(std::time::Duration::from_millis(1))))
                .expect("timeout");
            let Ok(n) = self.socket.recv(&mut buf) else {
                return None;
            };
            let text = String::from_utf8_lossy(&buf[..n]).into_owned();
            if text.contains(what) {
                return Some(text);
            }
        }
    }
}

/// The daemon pings the systemd watchdog only while it owns its name: cut off the bus and
/// refused, it withholds the pings (systemd would restart it); back on the bus, it pings
/// again.
#[test]
fn the_watchdog_is_pinged_only_while_the_daemon_owns_its_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let broker = start_bus(dir.path());
    let relay = BusRelay::start(dir.path(), &broker);
    let notify = Notifications::bind(&dir.path().join("notify"));
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "").expect("config");
    // Pings every 150 ms (half the interval).
    let period = std::time::Duration::from_millis(150);
    let mut daemon = std::process::Command::new(env!("CARGO_BIN_EXE_eboardd"))
        .args(["run", "--bus-address", relay.address(), "--config"])
        .arg(&config)
        .arg("--state-dir")
        .arg(dir.path().join("state"))
        .env("NOTIFY_SOCKET", dir.path().join("notify"))
        .env("WATCHDOG_USEC", "300000")
        .env_remove("WATCHDOG_PID")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn eboardd run");
    let ready = notify.next("READY=1", LIMIT);
    let pinged = notify.next("WATCHDOG=1", LIMIT);

    relay.refuse(true);
    relay.cut();
    // Whatever was on its way when the connection went, then ten periods of silence.
    let _ = notify.next("WATCHDOG=1", period * 2);
    let withheld = notify.next("WATCHDOG=1", period * 10);

    relay.refuse(false);
    let again = notify.next("WATCHDOG=1", LIMIT);
    let _ = daemon.kill();
    let _ = daemon.wait();
    assert!(ready.is_some(), "READY=1");
    assert!(pinged.is_some(), "a first ping");
    assert_eq!(withheld, None, "no ping while off the bus");
    assert!(again.is_some(), "pings again once back on the bus");
}
