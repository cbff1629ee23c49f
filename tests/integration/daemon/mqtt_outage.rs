//! A broker outage across a restart of the host: `eboardd run --mqtt` cannot reach the
//! broker, the game goes on, the daemon is stopped (SIGTERM) and started again while the
//! broker is still away. When the broker is reachable again, every event the daemon
//! confirmed meanwhile must be published, by whichever life of the daemon confirmed it:
//! the relay has every move, and the event topic has every move once (QoS 1's duplicates,
//! which carry the same `run` and `seq`, aside).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use eboardd::event::GameEvent;
use eboardd::game::record::GameRecord;
use eboardd::mqtt::aggregate::{BoardMap, MapEntry};
use eboardd::mqtt::message::{EventMessage, Position};
use eboardd::protocol::Protocol;
use eboardd::sim::HandOptions;
use eboardd::sim::device::BoardOptions;
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};

use crate::daemon::emulated::EmulatedPty;
use crate::daemon::emulated_game::{game_limit_at, opera, play, truth_sans};
use crate::daemon::emulated_links::{Guard, spawn_daemon_with};
use crate::daemon::mqtt::{moves_of, start_relay, try_wait_for_text, wait_for_text};
use crate::daemon::mqtt_broker::Broker;
use crate::daemon::mqtt_cut::CutProxy;
use crate::daemon::support::*;

/// Every event heard on a topic filter, by position (a duplicate lands on its original).
type Heard = Arc<Mutex<BTreeMap<Position, EventMessage>>>;

/// Subscribes to `filter` on every connection and keeps every event heard.
fn listen(port: u16, filter: &str) -> (Heard, tokio::task::JoinHandle<()>) {
    let options = MqttOptions::new("test-outage-listener", "127.0.0.1", port);
    let (client, mut eventloop) = AsyncClient::new(options, 64);
    let heard: Heard = Arc::default();
    let keep = Arc::clone(&heard);
    let filter = filter.to_string();
    let task = tokio::spawn(async move {
        loop {
            match eventloop.poll().await {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    let _ = client.try_subscribe(filter.clone(), QoS::AtLeastOnce);
                }
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    if let Ok(m) = EventMessage::from_json(&p.payload) {
                        let mut heard = keep.lock().unwrap_or_else(|e| e.into_inner());
                        if let Some(before) = heard.get(&m.at) {
                            assert_eq!(before, &m, "two events at one position");
                        }
                        heard.insert(m.at, m);
                    }
                }
                Ok(_) => {}
                Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
            }
        }
    });
    (heard, task)
}

/// The moves the heard events make, followed in order, and the move events heard twice
/// at different positions (the same ply and move: published twice).
fn moves_heard(heard: &Heard) -> (Vec<String>, Vec<String>) {
    let heard = heard.lock().unwrap_or_else(|e| e.into_inner());
    let mut record = GameRecord::default();
    let mut seen = std::collections::BTreeSet::new();
    let mut twice = Vec::new();
    for m in heard.values() {
        if let GameEvent::Move { ply, uci, .. } = &m.event.event
            && !seen.insert((*ply, uci.to_string()))
        {
            twice.push(format!("{ply} {uci} at {:?}", m.at));
        }
        record.apply(&m.event.event);
    }
    (
        record.moves.iter().map(|m| m.san.to_string()).collect(),
        twice,
    )
}

/// Stops the daemon with SIGTERM, as systemd does, and waits for it to end.
fn terminate(mut daemon: Guard) {
    let pid = i32::try_from(daemon.0.id()).expect("a pid");
    // SAFETY: kill(2) on the pid of a child this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0, "SIGTERM");
    let deadline = Instant::now() + LIMIT;
    while daemon.0.try_wait().expect("wait").is_none() {
        assert!(
            Instant::now() < deadline,
            "the daemon did not end on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_confirmed_while_the_broker_is_away_survive_a_restart_of_the_host() {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(broker) = Broker::start(dir.path()) else {
        return;
    };
    let address = start_bus(dir.path());
    let map = BoardMap {
        boards: vec![MapEntry {
            number: 1,
            host: "host-r".into(),
            board: Some(0),
            serial: None,
            white: Some("White 1".into()),
            black: Some("Black 1".into()),
        }],
    };
    let (relay, server, addr) = start_relay(&broker, map).await;
    let (heard, listener) = listen(broker.port, "eboardd/host-r/board/0/event");
    // The host reaches the broker through a proxy that can be cut; the relay does not.
    let proxy = CutProxy::start(broker.port).await;
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
    let plies = played.perf.truth.plies.clone();
    let end = played.perf.timeline.end();
    let limit = game_limit_at(&played.perf, speed);
    let link = board_link(dir.path(), "r0");
    let emulated = EmulatedPty::start(
        &link,
        played.board,
        played.perf.timeline.clone(),
        speed,
        vec![],
    );
    let state = dir.path().join("state");
    let log = dir.path().join("daemon.log");
    let url = format!("mqtt://127.0.0.1:{}", proxy.port);
    let extra = [
        "--mqtt",
        url.as_str(),
        "--mqtt-name",
        "host-r",
        "--event",
        "Hall Open",
        "--round",
        "3",
    ];
    let daemon = spawn_daemon_with(&address, &state, &link, &log, &extra);
    wait_for_text(addr, "/board/1.pgn", limit, |t| moves_of(t).len() >= 6).await;

    // The broker goes away for the host.
    proxy.set_cut(true);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let at_cut = wait_for_text(addr, "/board/1.pgn", LIMIT, |_| true).await;
    let cut_ply = moves_of(&at_cut).len();
    assert!(cut_ply + 10 < plies.len(), "the game goes on after the cut");
    // Moves are confirmed while it is away: the board plays on past the next 4 plies.
    let played_to = |ply: usize| {
        let at = plies[ply].move_start;
        tokio::task::block_in_place(|| {
            emulated.wait(limit, "the board played on", |s| {
                (s.reached >= at).then_some(())
            })
        });
    };
    played_to(cut_ply + 4);
    terminate(daemon);
    // Started again, the broker still away; more moves.
    let _daemon = spawn_daemon_with(&address, &state, &link, &log, &extra);
    played_to(cut_ply + 8);
    let relay_meanwhile = wait_for_text(addr, "/board/1.pgn", LIMIT, |_| true).await;
    assert!(
        moves_of(&relay_meanwhile).len() <= cut_ply + 1,
        "the broker was away for the host:\n{relay_meanwhile}"
    );
    proxy.set_cut(false);

    tokio::task::block_in_place(|| {
        emulated.wait(limit, "the whole game played", |s| {
            (s.reached >= end).then_some(())
        })
    });
    let daemon_log = || std::fs::read_to_string(&log).unwrap_or_default();
    let pgn = try_wait_for_text(addr, "/board/1.pgn", LIMIT, |t| {
        moves_of(t) == truth && t.contains("[Result \"1-0\"]")
    })
    .await
    .unwrap_or_else(|e| panic!("{e}\ndaemon log:\n{}", daemon_log()));
    assert!(pgn.contains("[White \"White 1\"]"), "{pgn}");
    // Every move as an event, each once: those of the cut, of both lives, included.
    let deadline = Instant::now() + LIMIT;
    loop {
        let (moves, twice) = moves_heard(&heard);
        assert!(twice.is_empty(), "moves published twice: {twice:?}");
        if moves == truth {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the events heard make {moves:?}; the game is {truth:?}\ndaemon log:\n{}",
            daemon_log()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Everything acknowledged: the spool is emptied, so a later start publishes nothing
    // again.
    let spool = state.join("mqtt").join("board-0.spool");
    let deadline = Instant::now() + LIMIT;
    while std::fs::metadata(&spool).map_or(1, |m| m.len()) > 0 {
        assert!(
            Instant::now() < deadline,
            "the spool still holds:\n{}",
            std::fs::read_to_string(&spool).unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    listener.abort();
    relay.abort();
    server.abort();
}
