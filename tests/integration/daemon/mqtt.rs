//! A hall of hosts over MQTT: daemons with emulated boards publish to a real Mosquitto on
//! 127.0.0.1, one relay follows them all; and the faults of a hall (the broker killed and
//! started again, the relay restarted) lose no move and repeat none.

use std::time::{Duration, Instant};

use eboardd::daemon::config::{BoardConfig, ProtocolChoice};
use eboardd::daemon::core::pipeline_factory;
use eboardd::daemon::{Daemon, board::BoardHandle};
use eboardd::mqtt::aggregate::{BoardMap, MapEntry};
use eboardd::mqtt::follow::spawn_relay;
use eboardd::mqtt::message::{EventMessage, StateMessage};
use eboardd::mqtt::publish::{Publisher, spawn_publisher};
use eboardd::protocol::Protocol;
use eboardd::relay::files::PgnDir;
use eboardd::relay::http::RelayState;
use eboardd::relay::page::HallView;
use eboardd::relay::pgn::PgnTags;
use eboardd::sim::HandOptions;
use eboardd::sim::device::BoardOptions;
use eboardd::web::{Connections, WebOptions};
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};

use crate::daemon::emulated::EmulatedPty;
use crate::daemon::emulated_game::{game_limit_at, opera, play, truth_sans};
use crate::daemon::emulated_links::pgn_sans;
use crate::daemon::mqtt_broker::Broker;
use crate::daemon::support::*;

/// How many times faster than real time the hall's hands play (slower than the D-Bus
/// tests: many boards share the machine here).
pub const HALL_SPEED: f64 = 6.0;

/// The round's tags, the same on the hosts and the relay.
fn round() -> PgnTags {
    PgnTags {
        event: Some("Hall Open".into()),
        round: Some("3".into()),
        ..PgnTags::default()
    }
}

/// One host: a daemon with emulated boards playing the Opera game, publishing as `name`.
pub struct Host {
    name: String,
    pub daemon: Daemon,
    publisher: Option<Publisher>,
    boards: Vec<EmulatedPty>,
    /// The truth of each board's game (SAN), by board number on the host.
    truths: Vec<Vec<String>>,
    /// When each board's game ends, in virtual time.
    pub ends: Vec<eboardd::time::Time>,
    pub limit: Duration,
}

impl Host {
    pub async fn start(
        dir: &std::path::Path,
        broker: &Broker,
        name: &str,
        boards: u32,
        seed: u64,
    ) -> Host {
        Host::start_with(dir, broker.settings(name), name, boards, seed, HALL_SPEED).await
    }

    /// [`Host::start`] with these MQTT settings, the boards played `speed` times faster than
    /// real time.
    pub async fn start_with(
        dir: &std::path::Path,
        settings: eboardd::mqtt::MqttSettings,
        name: &str,
        boards: u32,
        seed: u64,
        speed: f64,
    ) -> Host {
        let mut configs = Vec::new();
        let mut emulated = Vec::new();
        let mut truths = Vec::new();
        let mut ends = Vec::new();
        let mut limit = Duration::ZERO;
        for i in 0..boards {
            let link = board_link(dir, &format!("{name}-{i}"));
            let hand = HandOptions {
                clock_press: 1.0,
                ..HandOptions::default()
            };
            let board = BoardOptions {
                clock: true,
                ..BoardOptions::default()
            };
            let played = play(&opera(), Protocol::Dgt, seed + u64::from(i), hand, board);
            limit = limit.max(game_limit_at(&played.perf, speed));
            truths.push(truth_sans(&played.perf));
            ends.push(played.perf.timeline.end());
            emulated.push(EmulatedPty::start(
                &link,
                played.board,
                played.perf.timeline.clone(),
                speed,
                vec![],
            ));
            configs.push(BoardConfig {
                protocol: ProtocolChoice::Auto,
                white: Some(format!("{name} white {i}")),
                black: Some(format!("{name} black {i}")),
                ..BoardConfig::for_device(&link)
            });
        }
        let mut opts = options(&dir.join(format!("state-{name}")), pipeline_factory());
        opts.boards = configs.clone();
        let daemon = Daemon::new(opts);
        let publisher = spawn_publisher(daemon.clone(), &settings, round()).expect("publisher");
        for config in configs {
            daemon.attach(config).await.expect("attach");
        }
        Host {
            name: name.into(),
            daemon,
            publisher: Some(publisher),
            boards: emulated,
            truths,
            ends,
            limit,
        }
    }

    pub async fn stop(mut self) {
        self.daemon.shutdown().await;
        if let Some(p) = self.publisher.take() {
            p.stop().await;
        }
        drop(self.boards);
    }
}

/// A relay over MQTT with its HTTP server; `(relay task, server task, address)`.
pub async fn start_relay(
    broker: &Broker,
    map: BoardMap,
) -> (
    tokio::task::JoinHandle<()>,
    tokio::task::JoinHandle<()>,
    std::net::SocketAddr,
) {
    start_relay_with(broker.settings("test-relay"), map).await
}

/// [`start_relay`] with these MQTT settings.
pub async fn start_relay_with(
    settings: eboardd::mqtt::MqttSettings,
    map: BoardMap,
) -> (
    tokio::task::JoinHandle<()>,
    tokio::task::JoinHandle<()>,
    std::net::SocketAddr,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let state = RelayState::new();
    // As `eboardd relay --mqtt --relay-listen` serves it: the relay and the live page.
    let view = HallView::new();
    let options = WebOptions::default();
    let routes = eboardd::relay::http::router(state.clone(), &options).merge(
        eboardd::relay::page::hall_router(view.clone(), state.clone()),
    );
    let server = tokio::spawn(eboardd::relay::http::serve_with(
        listener,
        routes,
        std::sync::Arc::new(options),
        Connections::new(WebOptions::default().max_connections),
    ));
    let files = PgnDir::in_memory(round()).serve(state);
    let relay = spawn_relay(&settings, map, files, Some(view)).expect("relay");
    (relay, server, addr)
}

/// One HTTP GET: the body of a 200 answer, else `None`. The answer is read to the end of
/// the connection, so the request asks the server to close it (`Connection: close`):
/// without that, an HTTP/1.1 server keeps the connection open for the next request, and the
/// answer, the relay as it was when asked, would come out only when the server gives up
/// waiting (10 s later).
async fn get(addr: std::net::SocketAddr, path: &str) -> Option<String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.ok()?;
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).await.ok()?;
    let (head, body) = out.split_once("\r\n\r\n")?;
    head.starts_with("HTTP/1.1 200").then(|| body.to_string())
}

/// Polls `path` until `done` holds of it (returns it), or gives up after `limit` with the
/// last text seen.
pub async fn try_wait_for_text(
    addr: std::net::SocketAddr,
    path: &str,
    limit: Duration,
    done: impl Fn(&str) -> bool,
) -> Result<String, String> {
    let deadline = Instant::now() + limit;
    let mut last = String::new();
    loop {
        if let Some(text) = get(addr, path).await {
            if done(&text) {
                return Ok(text);
            }
            last = text;
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "{path} not as expected within {limit:?}; last:\n{last}"
            ));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// [`try_wait_for_text`], failing the test when it gives up.
pub async fn wait_for_text(
    addr: std::net::SocketAddr,
    path: &str,
    limit: Duration,
    done: impl Fn(&str) -> bool,
) -> String {
    try_wait_for_text(addr, path, limit, done)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The PGN a board's game gives as tournament board `number` (the relay's text), from the
/// events its daemon journalled.
async fn expected_pgn(handle: &BoardHandle, number: u32, white: &str, black: &str) -> String {
    let mut files = PgnDir::in_memory(round());
    let id = number - 1;
    files.add_board(id, Some(white.into()), Some(black.into()));
    for e in handle.game_events().await {
        files.apply(id, &e);
    }
    files.board_pgn(id).expect("the board's PGN")
}

/// The map of the hosts' boards: host `h` (of `hosts`) board `b` is number
/// `(hosts.len() - 1 - h) * per_host + b + 1` (the last host first, to show the map
/// orders), with players named after the number.
pub fn map_of(hosts: &[&str], per_host: u32) -> BoardMap {
    let mut boards = Vec::new();
    for (h, host) in hosts.iter().enumerate() {
        for b in 0..per_host {
            let number = (hosts.len() - 1 - h) as u32 * per_host + b + 1;
            boards.push(MapEntry {
                number,
                host: (*host).into(),
                board: Some(b),
                serial: None,
                white: Some(format!("White {number}")),
                black: Some(format!("Black {number}")),
            });
        }
    }
    BoardMap { boards }
}

/// The moves of a PGN, its comments left out.
pub fn moves_of(pgn: &str) -> Vec<String> {
    let mut plain = String::new();
    let mut depth = 0usize;
    for c in pgn.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    pgn_sans(&plain)
}

/// The host and map entry of the hall's board `number`.
fn mapped<'a>(hosts: &[&'a Host], map: &'a BoardMap, number: u32) -> (&'a Host, &'a MapEntry) {
    let e = map
        .boards
        .iter()
        .find(|e| e.number == number)
        .expect("mapped");
    let h = hosts.iter().find(|h| h.name == e.host).expect("host");
    (h, e)
}

/// The hall relay's live page: `/` is the page, and `/boards.json` has every board of the
/// map in board order, with its host, protocol and serial, and the moves of `expected`
/// (each board's PGN as the daemons journalled it).
async fn check_hall_page(
    addr: std::net::SocketAddr,
    hosts: &[&Host],
    map: &BoardMap,
    expected: &[String],
) {
    let page = get(addr, "/").await.expect("the live page");
    assert!(
        page.contains("<html") || page.contains("<!DOCTYPE"),
        "{page}"
    );
    let json = get(addr, "/boards.json").await.expect("boards.json");
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let boards = v["boards"].as_array().expect("boards");
    assert_eq!(boards.len(), expected.len(), "{json}");
    for (i, (b, want)) in boards.iter().zip(expected).enumerate() {
        let number = i as u32 + 1;
        assert_eq!(b["board"].as_u64(), Some(u64::from(number)), "{b}");
        let (h, _) = mapped(hosts, map, number);
        let device = b["device"].as_str().unwrap_or_default();
        assert!(device.starts_with(&format!("{}:", h.name)), "{b}");
        assert!(
            !b["protocol"].as_str().unwrap_or_default().is_empty(),
            "{b}"
        );
        let sans: Vec<String> = b["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| m["san"].as_str().unwrap_or_default().to_string())
            .collect();
        assert_eq!(sans, moves_of(want), "board {number}: {b}");
        assert_eq!(
            b["white"].as_str(),
            Some(format!("White {number}").as_str()),
            "{b}"
        );
    }
}

/// Waits until every emulated board has played its whole game, then until the relay's
/// `/games.pgn` is what the daemons journalled: every game, every move once, in board order
/// (each board's PGN as `/board/N.pgn` too).
pub async fn check_relay(
    addr: std::net::SocketAddr,
    hosts: &[&Host],
    map: &BoardMap,
    limit: Duration,
) {
    for h in hosts {
        for (board, end) in h.boards.iter().zip(&h.ends) {
            tokio::task::block_in_place(|| {
                board.wait(limit, "the whole game played", |s| {
                    (s.reached >= *end).then_some(())
                })
            });
        }
    }
    let find = |number: u32| {
        let (h, e) = mapped(hosts, map, number);
        (h, e.board.expect("by board"))
    };
    let total = map.boards.len() as u32;
    let deadline = Instant::now() + LIMIT;
    loop {
        // The daemons' games settle too (the last move is confirmed once it settles).
        let mut expected = Vec::new();
        let mut truth_kept = 0;
        let mut plies = Vec::new();
        for number in 1..=total {
            let (h, b) = find(number);
            let handle = h.daemon.board(b).await.expect("the board");
            let want = expected_pgn(
                &handle,
                number,
                &format!("White {number}"),
                &format!("Black {number}"),
            )
            .await;
            truth_kept += usize::from(moves_of(&want) == h.truths[b as usize]);
            plies.push((moves_of(&want).len(), h.truths[b as usize].len()));
            expected.push(want);
        }
        let games = get(addr, "/games.pgn").await.unwrap_or_default();
        let expected_games = expected.join("\n");
        if games == expected_games {
            for (i, want) in expected.iter().enumerate() {
                let board = get(addr, &format!("/board/{}.pgn", i + 1)).await;
                assert_eq!(board.as_ref(), Some(want), "board {}", i + 1);
            }
            check_hall_page(addr, hosts, map, &expected).await;
            // The daemons' reading of the boards is the tracker's business (a loaded
            // machine may stall one); games come through whole here.
            assert!(
                truth_kept > 0,
                "{truth_kept} of {total} games whole: {plies:?}"
            );
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the relay's games.pgn:\n{games}\nwhat the daemons journalled:\n{expected_games}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_publishes_numbered_events_and_a_retained_state_with_the_relays_pgn() {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(broker) = Broker::start(dir.path()) else {
        return;
    };
    // A subscriber from before the game: every message, in order.
    let mut options = MqttOptions::new("test-watcher", "127.0.0.1", broker.port);
    options.set_max_packet_size(4 << 20, 4 << 20);
    let (client, mut eventloop) = AsyncClient::new(options, 64);
    client
        .subscribe("eboardd/hall-a/#", QoS::AtLeastOnce)
        .await
        .expect("subscribe");
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let watcher = tokio::spawn(async move {
        while let Ok(event) = eventloop.poll().await {
            if let Event::Incoming(Packet::Publish(p)) = event {
                let _ = tx.send((p.topic.clone(), p.payload.to_vec(), p.retain));
            }
        }
    });
    let started = Instant::now();
    let host = Host::start(dir.path(), &broker, "hall-a", 1, 11).await;
    // Everything published until the game is played out, and a moment more.
    let played_out = started
        + Duration::from_secs_f64(host.ends[0].as_ms_f64() / 1000.0 / HALL_SPEED)
        + Duration::from_secs(2);

    let mut seqs = Vec::new();
    let mut sans: Vec<String> = Vec::new();
    let mut online = false;
    let mut last_state = None;
    let mut last_game_seq = 0;
    while let Ok(heard) = tokio::time::timeout_at(played_out.into(), rx.recv()).await {
        let (topic, payload, _) = heard.expect("the watcher runs");
        match topic.as_str() {
            "eboardd/hall-a/status" => online |= payload == b"online",
            "eboardd/hall-a/board/0/event" => {
                let m = EventMessage::from_json(&payload).expect("an event");
                assert_eq!((m.host.as_str(), m.board), ("hall-a", 0));
                seqs.push(m.at.seq);
                if !matches!(m.event.event, eboardd::event::GameEvent::Clock { .. }) {
                    last_game_seq = m.at.seq;
                }
                if let eboardd::event::GameEvent::Move { san, ply, .. } = &m.event.event {
                    sans.truncate(*ply as usize - 1);
                    sans.push(san.to_string());
                }
            }
            "eboardd/hall-a/board/0/state" => {
                last_state = Some(StateMessage::from_json(&payload).expect("a state"));
            }
            other => panic!("unexpected topic {other}"),
        }
    }
    let final_state = last_state.expect("states");
    assert!(online, "the host said it is online");
    let handle = host.daemon.board(0).await.expect("board");
    let mut record = eboardd::game::record::GameRecord::default();
    for e in handle.game_events().await {
        record.apply(&e);
    }
    let journalled: Vec<String> = record.moves.iter().map(|m| m.san.to_string()).collect();
    assert!(!journalled.is_empty(), "the board's game was read");
    assert_eq!(sans, journalled, "every move, in order");
    if journalled != host.truths[0] {
        eprintln!(
            "note: the daemon read {} of the game's {} plies",
            journalled.len(),
            host.truths[0].len()
        );
    }
    let expected_seqs: Vec<u64> = (1..=seqs.len() as u64).collect();
    assert_eq!(seqs, expected_seqs, "numbered from 1 without a gap");
    // Clock readings go on after the last game change; a state follows them within a second.
    assert!(final_state.seq <= *seqs.last().expect("events"));
    assert!(
        final_state.seq >= last_game_seq,
        "the state includes the game's last change"
    );
    assert_eq!(
        final_state.game.record(),
        record,
        "the state carries the game"
    );
    let status = handle.status();
    assert!(final_state.connected);
    assert_eq!(
        (final_state.protocol.as_str(), final_state.serial.as_str()),
        ("dgt", "3.10 10960")
    );
    assert_eq!(
        (final_state.fen.as_str(), final_state.ply),
        (status.fen.as_str(), status.ply)
    );
    assert!(final_state.clock.is_some(), "the board has a clock");
    assert_eq!(final_state.white.as_deref(), Some("hall-a white 0"));
    // The relay's own text for this host's board 1.
    let mut relay = PgnDir::in_memory(round());
    relay.add_board(0, final_state.white.clone(), final_state.black.clone());
    for e in handle.game_events().await {
        relay.apply(0, &e);
    }
    assert_eq!(Some(final_state.pgn.clone()), relay.board_pgn(0));
    assert!(final_state.pgn.contains("[%clk "), "{}", final_state.pgn);

    // A client that comes late gets the retained state and status at once.
    let mut late = MqttOptions::new("test-late", "127.0.0.1", broker.port);
    late.set_max_packet_size(4 << 20, 4 << 20);
    let (late_client, mut late_loop) = AsyncClient::new(late, 16);
    late_client
        .subscribe("eboardd/hall-a/+", QoS::AtLeastOnce)
        .await
        .expect("subscribe");
    late_client
        .subscribe("eboardd/hall-a/board/+/state", QoS::AtLeastOnce)
        .await
        .expect("subscribe");
    let mut retained = std::collections::BTreeMap::new();
    let got = tokio::time::timeout(LIMIT, async {
        while retained.len() < 2 {
            if let Ok(Event::Incoming(Packet::Publish(p))) = late_loop.poll().await
                && p.retain
            {
                retained.insert(p.topic.clone(), p.payload.to_vec());
            }
        }
    })
    .await;
    assert!(got.is_ok(), "retained messages: {:?}", retained.keys());
    assert_eq!(retained["eboardd/hall-a/status"], b"online");
    let state = StateMessage::from_json(&retained["eboardd/hall-a/board/0/state"]).expect("state");
    assert_eq!(state.game, final_state.game);

    // A clean stop says offline (retained).
    host.stop().await;
    let offline = tokio::time::timeout(LIMIT, async {
        loop {
            if let Ok(Event::Incoming(Packet::Publish(p))) = late_loop.poll().await
                && p.topic == "eboardd/hall-a/status"
                && p.payload.as_ref() == b"offline"
            {
                return;
            }
        }
    })
    .await;
    assert!(offline.is_ok(), "offline after the stop");
    watcher.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_hosts_of_eight_boards_make_one_relay_in_board_order() {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(broker) = Broker::start(dir.path()) else {
        return;
    };
    let names = ["host-a", "host-b", "host-c"];
    let map = map_of(&names, 8);
    let (relay, server, addr) = start_relay(&broker, map.clone()).await;
    let mut hosts = Vec::new();
    for (i, name) in names.iter().enumerate() {
        hosts.push(Host::start(dir.path(), &broker, name, 8, 100 + 10 * i as u64).await);
    }
    let limit = hosts.iter().map(|h| h.limit).max().unwrap_or(LIMIT) * 2;
    let refs: Vec<&Host> = hosts.iter().collect();
    check_relay(addr, &refs, &map, limit).await;
    relay.abort();
    server.abort();
    for h in hosts {
        h.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_broker_killed_and_started_again_mid_round_loses_no_move() {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(mut broker) = Broker::start(dir.path()) else {
        return;
    };
    let names = ["host-a", "host-b"];
    let map = map_of(&names, 2);
    let (relay, server, addr) = start_relay(&broker, map.clone()).await;
    let hosts = vec![
        Host::start(dir.path(), &broker, "host-a", 2, 300).await,
        Host::start(dir.path(), &broker, "host-b", 2, 310).await,
    ];
    // Mid-round: a few moves on the relay's first board.
    wait_for_text(addr, "/board/1.pgn", hosts[0].limit, |t| {
        pgn_sans(t).len() >= 6
    })
    .await;
    broker.kill();
    // Moves go on meanwhile, with nowhere to go.
    tokio::time::sleep(Duration::from_secs(3)).await;
    broker.restart();
    let limit = hosts.iter().map(|h| h.limit).max().unwrap_or(LIMIT) * 2;
    let refs: Vec<&Host> = hosts.iter().collect();
    check_relay(addr, &refs, &map, limit).await;
    relay.abort();
    server.abort();
    for h in hosts {
        h.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_restarted_mid_round_rebuilds_every_game_and_goes_on() {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(broker) = Broker::start(dir.path()) else {
        return;
    };
    let names = ["host-a", "host-b"];
    let map = map_of(&names, 2);
    let (relay, server, addr) = start_relay(&broker, map.clone()).await;
    let hosts = vec![
        Host::start(dir.path(), &broker, "host-a", 2, 11).await,
        Host::start(dir.path(), &broker, "host-b", 2, 13).await,
    ];
    wait_for_text(addr, "/board/1.pgn", hosts[0].limit, |t| {
        pgn_sans(t).len() >= 6
    })
    .await;
    relay.abort();
    server.abort();
    // Away a while: the broker keeps its session's events, and the states.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (relay, server, addr) = start_relay(&broker, map.clone()).await;
    let limit = hosts.iter().map(|h| h.limit).max().unwrap_or(LIMIT) * 2;
    let refs: Vec<&Host> = hosts.iter().collect();
    check_relay(addr, &refs, &map, limit).await;
    relay.abort();
    server.abort();
    for h in hosts {
        h.stop().await;
    }
}
