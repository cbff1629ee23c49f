//! `eboardd relay --mqtt` pushing a hall of more than 64 boards to lichess: a lichess round
//! keeps 64 games, so the relay is given two rounds and each gets its boards, in board
//! order. The relay is the real program, the hosts' messages go through a real Mosquitto,
//! and a server on 127.0.0.1 stands in for lichess.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use eboardd::event::{GameEvent, TimedEvent};
use eboardd::mqtt::message::{EventMessage, GameState, MoveState, Position, StateMessage};
use eboardd::relay::files::PgnDir;
use eboardd::relay::pgn::PgnTags;
use eboardd::time::Time;
use rumqttc::{AsyncClient, MqttOptions, QoS};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::daemon::emulated_links::Guard;
use crate::daemon::mqtt_broker::Broker;
use crate::daemon::support::*;

/// The hall's boards: more than one lichess round holds.
const BOARDS: u32 = 70;
const HOST: &str = "hall-x";
const FIRST: &str = "roundOne1";
const SECOND: &str = "roundTwo2";
const TOKEN: &str = "lip_HallToken_70boards";

/// The opening every board plays some of: (UCI, SAN).
const MOVES: [(&str, &str); 6] = [
    ("e2e4", "e4"),
    ("e7e5", "e5"),
    ("g1f3", "Nf3"),
    ("b8c6", "Nc6"),
    ("f1b5", "Bb5"),
    ("a7a6", "a6"),
];

/// The last body pushed to each path.
type Pushed = Arc<Mutex<BTreeMap<String, String>>>;

/// A lichess stand-in: takes every push, keeps the last body of each path, answers 200.
async fn lichess_stand_in() -> (String, Pushed) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let pushed: Pushed = Arc::default();
    let keep = Arc::clone(&pushed);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(take_push(stream, Arc::clone(&keep)));
        }
    });
    (base, pushed)
}

async fn take_push(mut stream: tokio::net::TcpStream, pushed: Pushed) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0);
    while buf.len() < head_end + length {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let path = head
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_string();
    let body = String::from_utf8_lossy(&buf[head_end..head_end + length]).into_owned();
    let games = body.matches("[Event ").count();
    pushed
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(path, body);
    let reply = format!("{{\"games\":[{}]}}", vec!["{\"moves\":1}"; games].join(","));
    let out = format!(
        "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{reply}",
        reply.len()
    );
    let _ = stream.write_all(out.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// Host board `b` is tournament board `BOARDS - b` (the map orders, not the hosts).
fn number_of(board: u32) -> u32 {
    BOARDS - board
}

fn board_map() -> String {
    let mut map = String::new();
    for b in 0..BOARDS {
        let n = number_of(b);
        map.push_str(&format!(
            "[[board]]\nnumber = {n}\nhost = \"{HOST}\"\nboard = {b}\n\
             white = \"White {n}\"\nblack = \"Black {n}\"\n\n"
        ));
    }
    map
}

/// Host board `b`'s game: the first `b % 5 + 1` plies of [`MOVES`].
fn game_of(board: u32) -> GameState {
    GameState {
        moves: MOVES[..(board % 5 + 1) as usize]
            .iter()
            .map(|(uci, san)| MoveState {
                uci: (*uci).into(),
                san: (*san).into(),
                clock_ms: None,
                emt_ms: None,
            })
            .collect(),
        ..GameState::default()
    }
}

/// The `Round` tags of a PGN text, in order.
fn rounds_of(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("[Round \"")?.strip_suffix("\"]"))
        .map(str::to_string)
        .collect()
}

/// Waits until the last pushes to the two rounds are `first` and `second`.
async fn wait_for_pushes(pushed: &Pushed, first: &str, second: &str, log: &std::path::Path) {
    let path = |round: &str| format!("/api/broadcast/round/{round}/push");
    let deadline = Instant::now() + LIMIT;
    loop {
        let now = pushed.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let one = now.get(&path(FIRST)).cloned().unwrap_or_default();
        let two = now.get(&path(SECOND)).cloned().unwrap_or_default();
        if one == first && two == second {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "pushed to {FIRST}:\n{one}\npushed to {SECOND}:\n{two}\nwanted:\n{first}\nand\n{second}\n\
             relay log:\n{}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_of_70_boards_pushes_boards_1_to_64_to_one_round_and_the_rest_to_the_next() {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(broker) = Broker::start(dir.path()) else {
        return;
    };
    let (base, pushed) = lichess_stand_in().await;
    let map = dir.path().join("map.toml");
    std::fs::write(&map, board_map()).expect("map");
    let token = dir.path().join("token");
    std::fs::write(&token, TOKEN).expect("token");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    }
    let log = dir.path().join("relay.log");
    let rounds = format!("{FIRST},{SECOND}");
    let _relay = Guard(
        Command::new(env!("CARGO_BIN_EXE_eboardd"))
            .args(["relay", "--mqtt", &broker.url(), "--mqtt-name", "pusher"])
            .arg("--board-map")
            .arg(&map)
            .args(["--event", "Hall Open", "--round", "4"])
            .args(["--lichess-round", &rounds, "--lichess-url", &base])
            .arg("--lichess-token-file")
            .arg(&token)
            .env("EBOARDD_LOG", "eboardd=debug")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("relay log"))
            .spawn()
            .expect("spawn eboardd relay"),
    );

    // The host's boards, as its retained states say them, the last board first.
    let options = MqttOptions::new("test-hall-x", "127.0.0.1", broker.port);
    let (client, mut eventloop) = AsyncClient::new(options, 256);
    tokio::spawn(async move { while eventloop.poll().await.is_ok() {} });
    let run = 1_796_000_000_000;
    for b in (0..BOARDS).rev() {
        let state = StateMessage {
            host: HOST.into(),
            board: b,
            run,
            seq: 5,
            connected: true,
            protocol: "dgt".into(),
            game: game_of(b),
            ..StateMessage::default()
        };
        client
            .publish(
                format!("eboardd/{HOST}/board/{b}/state"),
                QoS::AtLeastOnce,
                true,
                state.to_json(),
            )
            .await
            .expect("publish");
    }
    // What the relay must make of them: the games in board order, with the round's tags.
    let tags = PgnTags {
        event: Some("Hall Open".into()),
        round: Some("4".into()),
        ..PgnTags::default()
    };
    let mut model = PgnDir::in_memory(tags);
    for b in 0..BOARDS {
        let id = number_of(b) - 1;
        let n = number_of(b);
        model.add_board(id, Some(format!("White {n}")), Some(format!("Black {n}")));
        for e in game_of(b).events() {
            model.apply(id, &e);
        }
    }
    let split = |model: &PgnDir| -> (String, String) {
        let games: Vec<String> = (0..BOARDS)
            .map(|id| model.board_pgn(id).expect("a board"))
            .collect();
        (games[..64].join("\n"), games[64..].join("\n"))
    };
    let (first, second) = split(&model);
    assert_eq!(
        rounds_of(&first),
        (1..=64).map(|n| format!("4.{n}")).collect::<Vec<_>>()
    );
    assert_eq!(
        rounds_of(&second),
        (65..=70).map(|n| format!("4.{n}")).collect::<Vec<_>>()
    );
    assert_eq!(format!("{first}\n{second}"), model.games_pgn());
    wait_for_pushes(&pushed, &first, &second, &log).await;

    // A move on host board 0 (tournament board 70): only the second round changes.
    let reply = GameEvent::Move {
        ply: 2,
        uci: "e7e5".parse().expect("uci"),
        san: "e5".parse().expect("san"),
        fen: String::new(),
        clock_ms: None,
        emt_ms: None,
        alternatives: Vec::new(),
    };
    let event = EventMessage {
        host: HOST.into(),
        board: 0,
        at: Position { run, seq: 6 },
        event: TimedEvent {
            t: Time::from_ms_f64(0.0),
            event: reply.clone(),
        },
    };
    client
        .publish(
            format!("eboardd/{HOST}/board/0/event"),
            QoS::AtLeastOnce,
            false,
            event.to_json(),
        )
        .await
        .expect("publish");
    model.apply(number_of(0) - 1, &reply);
    let (first_after, second_after) = split(&model);
    assert_eq!(first_after, first);
    assert!(second_after.contains("1. e4 e5 *"), "{second_after}");
    wait_for_pushes(&pushed, &first_after, &second_after, &log).await;
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(!logged.contains(TOKEN), "the token in the log:\n{logged}");
}
