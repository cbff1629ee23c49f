//! The MQTT commands as processes: `eboardd run --mqtt` SIGKILLed and started again in the
//! middle of a game, with the relay following; `eboardd watch --mqtt` printing a host's
//! moves.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use eboardd::mqtt::aggregate::{BoardMap, MapEntry};
use eboardd::protocol::Protocol;
use eboardd::sim::HandOptions;
use eboardd::sim::device::BoardOptions;

use crate::daemon::emulated::EmulatedPty;
use crate::daemon::emulated_game::{game_limit_at, opera, play, truth_sans};
use crate::daemon::emulated_links::{Guard, spawn_daemon_with};
use crate::daemon::mqtt::{moves_of, start_relay, try_wait_for_text, wait_for_text};
use crate::daemon::mqtt_broker::Broker;
use crate::daemon::support::*;

/// Starts `eboardd run --mqtt` on `link`, publishing as `name`; its log goes to `log`.
fn spawn_host(
    address: &str,
    broker: &Broker,
    name: &str,
    state: &std::path::Path,
    link: &std::path::Path,
    log: &std::path::Path,
) -> Guard {
    let url = broker.url();
    let extra = [
        "--mqtt",
        url.as_str(),
        "--mqtt-name",
        name,
        "--event",
        "Hall Open",
        "--round",
        "3",
    ];
    spawn_daemon_with(address, state, link, log, &extra)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_sigkilled_mid_game_and_started_again_loses_no_move_in_the_relay() {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(broker) = Broker::start(dir.path()) else {
        return;
    };
    let address = start_bus(dir.path());
    let map = BoardMap {
        boards: vec![MapEntry {
            number: 1,
            host: "host-k".into(),
            board: Some(0),
            serial: None,
            white: Some("White 1".into()),
            black: Some("Black 1".into()),
        }],
    };
    let (relay, server, addr) = start_relay(&broker, map).await;
    let speed = 6.0;
    let hand = HandOptions {
        clock_press: 1.0,
        ..HandOptions::default()
    };
    let board = BoardOptions {
        clock: true,
        ..BoardOptions::default()
    };
    let played = play(&opera(), Protocol::Dgt, 11, hand, board);
    let truth = truth_sans(&played.perf);
    let end = played.perf.timeline.end();
    let limit = game_limit_at(&played.perf, speed);
    let link = board_link(dir.path(), "k0");
    let emulated = EmulatedPty::start(
        &link,
        played.board,
        played.perf.timeline.clone(),
        speed,
        vec![],
    );
    let state = dir.path().join("state");
    let log = dir.path().join("daemon.log");
    let daemon = spawn_host(&address, &broker, "host-k", &state, &link, &log);
    wait_for_text(addr, "/board/1.pgn", limit, |t| moves_of(t).len() >= 8).await;
    // SIGKILL: no goodbye, no flush; the broker says offline for it.
    drop(daemon);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let _daemon = spawn_host(&address, &broker, "host-k", &state, &link, &log);
    tokio::task::block_in_place(|| {
        emulated.wait(limit, "the whole game played", |s| {
            (s.reached >= end).then_some(())
        })
    });
    let pgn = try_wait_for_text(addr, "/board/1.pgn", LIMIT, |t| {
        moves_of(t) == truth && t.contains("[Result \"1-0\"]")
    })
    .await
    .unwrap_or_else(|e| {
        panic!(
            "{e}\ndaemon log:\n{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        )
    });
    assert!(pgn.contains("[White \"White 1\"]"), "{pgn}");
    relay.abort();
    server.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_over_mqtt_prints_every_move_of_every_host_once() {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(broker) = Broker::start(dir.path()) else {
        return;
    };
    let out = dir.path().join("watch.out");
    let mut watch = Guard(
        Command::new(env!("CARGO_BIN_EXE_eboardd"))
            .args(["watch", "--mqtt", &broker.url(), "--format", "uci"])
            .stdout(std::fs::File::create(&out).expect("watch output"))
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn eboardd watch"),
    );
    // Subscribed before the game: its connection shows on the broker's port.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let started = Instant::now();
    let host = crate::daemon::mqtt::Host::start(dir.path(), &broker, "hall-w", 1, 11).await;
    let played_out = started
        + Duration::from_secs_f64(
            host.ends[0].as_ms_f64() / 1000.0 / crate::daemon::mqtt::HALL_SPEED,
        );
    let deadline = played_out + LIMIT;
    let handle = host.daemon.board(0).await.expect("board");
    loop {
        // What the daemon journalled, as watch prints it.
        let mut record = eboardd::game::record::GameRecord::default();
        for e in handle.game_events().await {
            record.apply(&e);
        }
        let want: Vec<String> = record
            .moves
            .iter()
            .map(|m| format!("hall-w/0 {}", m.uci))
            .collect();
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        let moves: Vec<String> = text
            .lines()
            .filter(|l| !l.contains("info string"))
            .map(str::to_string)
            .collect();
        if Instant::now() >= played_out && !want.is_empty() && moves == want {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "watch printed:\n{text}\nwanted:\n{}",
            want.join("\n")
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(
        watch.0.try_wait().expect("status").is_none(),
        "still watching"
    );
    host.stop().await;
}
