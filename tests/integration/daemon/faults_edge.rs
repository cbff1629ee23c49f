//! Hostile text from a board: serial numbers with NUL, control characters, or a kilobyte
//! of text. D-Bus strings may not hold NUL, and one such string would break the daemon's
//! bus connection for every board; the daemon must stay on the bus, publish the text made
//! printable, and keep the moves of that board and of the others flowing.

use std::cell::Cell;

use eboardd::daemon::Daemon;
use eboardd::daemon::config::{BoardConfig, ProtocolChoice};
use eboardd::daemon::core::pipeline_factory;
use eboardd::dbus::{self, Bus, board_path};
use eboardd::protocol::Protocol;
use eboardd::sim::HandOptions;
use eboardd::sim::device::BoardOptions;
use zbus::Message;

use crate::daemon::emulated::EmulatedPty;
use crate::daemon::emulated_game::{
    Followed, SPEED, game_limit_at, is_event, opera, play, truth_sans,
};
use crate::daemon::support::*;

/// A DGT message with id `id` and `data`, its length header right (a length the decoder
/// refuses is refused, bytes and all).
fn dgt_frame(id: u8, data: &[u8]) -> Vec<u8> {
    let total = data.len() + 3;
    let mut out = vec![id, ((total >> 7) & 0x7f) as u8, (total & 0x7f) as u8];
    out.extend_from_slice(data);
    out
}

/// The signals of the board at `path`.
fn of_board(seen: &[Message], path: &str) -> Vec<Message> {
    seen.iter()
        .filter(|m| m.header().path().is_some_and(|p| p.as_str() == path))
        .cloned()
        .collect()
}

/// Two DGT boards play the Opera game at once; board 0 names itself with a serial number
/// holding a NUL, an escape and a bell from power-on, and in mid-game sends a long serial
/// number of control characters and a kilobyte-long serial number. Every move of both
/// boards comes as a signal, the daemon keeps its name, and `Serial` reads printable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_serial_numbers_leave_the_daemon_on_the_bus() {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let conn = client(&address).await;
    let mut signals = Signals::record(&conn).await;
    let links = [
        board_link(dir.path(), "board0"),
        board_link(dir.path(), "board1"),
    ];
    let mut hostile = play(
        &opera(),
        Protocol::Dgt,
        5,
        HandOptions::default(),
        BoardOptions::default(),
    );
    hostile.board.set_serial("1\0\x1b\x075");
    let honest = play(
        &opera(),
        Protocol::Dgt,
        21,
        HandOptions::default(),
        BoardOptions::default(),
    );
    let limit = game_limit_at(&hostile.perf, SPEED).max(game_limit_at(&honest.perf, SPEED));
    let truths = [truth_sans(&hostile.perf), truth_sans(&honest.perf)];
    let boards = [
        EmulatedPty::start(
            &links[0],
            hostile.board,
            hostile.perf.timeline.clone(),
            SPEED,
            vec![],
        ),
        EmulatedPty::start(
            &links[1],
            honest.board,
            honest.perf.timeline.clone(),
            SPEED,
            vec![],
        ),
    ];
    let daemon = Daemon::new(options(&dir.path().join("state"), pipeline_factory()));
    for link in &links {
        let config = BoardConfig {
            protocol: ProtocolChoice::Fixed(Protocol::Dgt),
            ..BoardConfig::for_device(link)
        };
        daemon.attach(config).await.expect("attach");
    }
    let service = dbus::serve(daemon.clone(), &Bus::Address(address.clone()))
        .await
        .expect("serve");

    let results = Cell::new(0);
    let seen = signals
        .until(limit, |m| {
            // Hostile text in mid-game, once the first moves are through.
            if is_event(m, "move") && results.get() == 0 {
                results.set(1);
                boards[0].inject(&dgt_frame(0xa2, b"3.10 \x00\x01\x1b[2J\x7f\x07"));
                boards[0].inject(&dgt_frame(0x91, &[b'7'; 1024]));
                boards[0].inject(&dgt_frame(0x92, &[b'\0'; 600]));
            }
            if is_event(m, "result") {
                results.set(results.get() + 1);
            }
            results.get() == 3
        })
        .await;

    for (id, truth) in truths.iter().enumerate() {
        let path = board_path(id as u32);
        let followed = Followed::from(&of_board(&seen, &path));
        assert_eq!(&followed.sans, truth, "board {id}: {:?}", followed.counts);
        assert_eq!(followed.results, [("1-0".into(), "checkmate".into())]);
        let proxy = board_proxy(&conn, path).await;
        assert_eq!(proxy.ply().await.expect("Ply"), truth.len() as u32);
        let serial = proxy.serial().await.expect("Serial");
        assert!(
            !serial.is_empty() && !serial.chars().any(char::is_control),
            "board {id}: Serial {serial:?}"
        );
    }
    let serial = board_proxy(&conn, board_path(0))
        .await
        .serial()
        .await
        .expect("Serial");
    assert!(
        serial.contains("\\x00"),
        "the NUL is shown escaped: {serial:?}"
    );
    // Still the name's owner: a call by name reaches the daemon.
    let manager = manager_proxy(&conn).await;
    assert_eq!(manager.boards().await.expect("Boards").len(), 2);
    service.stop().await;
    daemon.shutdown().await;
    drop(boards);
}
