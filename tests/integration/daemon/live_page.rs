//! The live page of `--relay-listen`: served whole from the daemon (nothing loaded from
//! elsewhere), and `/boards.json`, which it draws from, following a game on an emulated
//! board: its moves as the event stream announces them, a board put wrong and right, and
//! the board going away.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use eboardd::daemon::Daemon;
use eboardd::daemon::config::{BoardConfig, ProtocolChoice};
use eboardd::protocol::Protocol;
use eboardd::relay::files::{PgnDir, spawn_pgn_dir};
use eboardd::relay::http::{self, RelayState};
use eboardd::relay::pgn::PgnTags;
use eboardd::sim::HandOptions;
use eboardd::sim::device::BoardOptions;
use eboardd::sim::live::LiveBoard;
use eboardd::web::{Connections, WebOptions};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use crate::daemon::support::{LIMIT, options};

/// The relay with the page, for `daemon`, on a loopback port.
async fn serve_page(
    daemon: &Daemon,
    state: Arc<RelayState>,
) -> (SocketAddr, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let options = WebOptions::default();
    let routes = http::router(state.clone(), &options)
        .merge(eboardd::relay::page::router(daemon.clone(), state));
    let connections = Connections::new(options.max_connections);
    let server = tokio::spawn(http::serve_with(
        listener,
        routes,
        Arc::new(options),
        connections,
    ));
    (addr, server)
}

/// `method path` on a fresh connection: the head and the body.
async fn request(addr: SocketAddr, method: &str, path: &str) -> (String, String) {
    let mut s = TcpStream::connect(addr).await.expect("connect");
    let req = format!("{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.expect("request");
    let mut out = String::new();
    tokio::time::timeout(LIMIT, s.read_to_string(&mut out))
        .await
        .expect("an answer within the limit")
        .expect("response");
    let (head, body) = out.split_once("\r\n\r\n").expect("a head");
    (head.to_string(), body.to_string())
}

async fn boards(addr: SocketAddr) -> Value {
    let (head, body) = request(addr, "GET", "/boards.json").await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("JSON: {e}\n{body}"))
}

/// Asks `/boards.json` until board 1 satisfies `done` (bounded by the limit); board 1.
async fn board_until(addr: SocketAddr, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let all = boards(addr).await;
        let one = all["boards"][0].clone();
        if done(&one) {
            return one;
        }
        assert!(
            start.elapsed() < LIMIT,
            "{what} not within the limit: {one}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The squares where two FEN placements differ.
fn differing(a: &str, b: &str) -> Vec<String> {
    let expand = |p: &str| -> Vec<char> {
        p.split(' ')
            .next()
            .unwrap_or("")
            .split('/')
            .flat_map(|row| {
                row.chars().flat_map(|c| match c.to_digit(10) {
                    Some(n) => vec![' '; n as usize],
                    None => vec![c],
                })
            })
            .collect()
    };
    let (a, b) = (expand(a), expand(b));
    (0..64)
        .filter(|&i| a.get(i) != b.get(i))
        .map(|i| format!("{}{}", (b'a' + (i % 8) as u8) as char, 8 - i / 8))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_is_served_whole_and_loads_nothing_from_elsewhere() {
    let dir = tempfile::tempdir().expect("tempdir");
    let daemon = Daemon::new(options(
        &dir.path().join("state"),
        eboardd::daemon::core::pipeline_factory(),
    ));
    let (addr, server) = serve_page(&daemon, RelayState::new()).await;
    let (head, page) = request(addr, "GET", "/").await;
    assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
    let lower = head.to_ascii_lowercase();
    assert!(
        lower.contains("content-type: text/html; charset=utf-8"),
        "{head}"
    );
    assert!(
        lower.contains("content-security-policy: default-src 'none'"),
        "{head}"
    );
    assert_eq!(page, eboardd::relay::page::PAGE);
    // It follows this server's event stream and board list, by path.
    assert!(page.contains("new EventSource(\"/events\")"));
    assert!(page.contains("fetch(\"/boards.json\""));
    // No address elsewhere: the one URL in it is the SVG namespace, which is a name.
    let mut rest = page.as_str();
    while let Some(at) = rest.find("://") {
        let before = &rest[..at];
        let scheme_at = before
            .rfind(|c: char| !c.is_ascii_alphanumeric())
            .map_or(0, |i| i + 1);
        let url: String = rest[scheme_at..]
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != '"' && *c != '\'' && *c != ')')
            .collect();
        assert_eq!(url, "http://www.w3.org/2000/svg", "an address elsewhere");
        rest = &rest[at + 3..];
    }
    for loader in [
        "src=", "@import", "url(", "<link", "<iframe", "<img", "import(",
    ] {
        assert!(!page.contains(loader), "the page loads something: {loader}");
    }
    for (at, _) in page.match_indices("href") {
        let value = page[at..].split(['"', '\'']).nth(1).unwrap_or("");
        assert!(value.starts_with('/'), "a link off this server: {value:?}");
    }
    let (head, body) = request(addr, "HEAD", "/").await;
    assert!(
        head.starts_with("HTTP/1.1 200 OK") && body.is_empty(),
        "{head}"
    );
    let list = boards(addr).await;
    assert_eq!(list["boards"], Value::Array(Vec::new()), "{list}");
    server.abort();
    daemon.shutdown().await;
}

/// The hand plays `uci` on the live board (legal there).
fn play(board: &mut LiveBoard, uci: &str) {
    let m = shakmaty::uci::UciMove::from_ascii(uci.as_bytes())
        .expect("uci")
        .to_move(board.position())
        .expect("legal on the board");
    board.play(m).expect("the hand plays");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_board_list_follows_moves_within_a_second_a_board_put_wrong_and_right_and_going_away() {
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
    let config = BoardConfig {
        protocol: ProtocolChoice::Fixed(Protocol::Dgt),
        white: Some("Anna \"A\"".into()),
        black: Some("Boris".into()),
        ..BoardConfig::for_device(board.path())
    };
    let mut daemon_options = options(
        &dir.path().join("state"),
        eboardd::daemon::core::pipeline_factory(),
    );
    // The players come from the configuration, as in `eboardd run`.
    daemon_options.boards = vec![config.clone()];
    let daemon = Daemon::new(daemon_options);
    let state = RelayState::new();
    let (addr, server) = serve_page(&daemon, state.clone()).await;
    let tags = PgnTags {
        event: Some("Club".into()),
        ..PgnTags::default()
    };
    let relay = spawn_pgn_dir(daemon.clone(), PgnDir::in_memory(tags).serve(state));
    daemon.attach(config).await.expect("attach");
    let start = board_until(addr, "the start position", |b| {
        b["connected"] == true && !b["placement"].as_str().unwrap_or("").is_empty()
    })
    .await;
    assert_eq!(start["board"], 1);
    assert_eq!(start["protocol"], "dgt");
    let names = board_until(addr, "the players", |b| b["white"] != "?").await;
    assert_eq!(
        (&names["white"], &names["black"]),
        (&Value::from("Anna \"A\""), &Value::from("Boris"))
    );

    // The page's way: the event stream says a move came, the list then has it.
    let mut sse = TcpStream::connect(addr).await.expect("connect");
    sse.write_all(b"GET /events HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .expect("request");
    let mut sse = BufReader::new(sse);
    let mut line = String::new();
    while line != "\r\n" {
        line.clear();
        sse.read_line(&mut line).await.expect("head");
    }
    let mut worst = Duration::ZERO;
    for (ply, uci, san) in [(1, "e2e4", "e4"), (2, "e7e5", "e5"), (3, "g1f3", "Nf3")] {
        play(&mut board, uci);
        let announced = async {
            loop {
                line.clear();
                sse.read_line(&mut line).await.expect("event");
                if line.starts_with("data: ") && line.contains("\"event\":\"move\"") {
                    return;
                }
            }
        };
        tokio::time::timeout(LIMIT, announced)
            .await
            .expect("the move announced within the limit");
        let t = Instant::now();
        let listed = boards(addr).await;
        worst = worst.max(t.elapsed());
        let one = &listed["boards"][0];
        let moves = one["moves"].as_array().expect("moves");
        assert_eq!(moves.len(), ply, "{one}");
        assert_eq!(
            (&moves[ply - 1]["san"], &moves[ply - 1]["uci"]),
            (&Value::from(san), &Value::from(uci))
        );
        assert_eq!(
            differing(
                one["placement"].as_str().unwrap_or(""),
                one["fen"].as_str().unwrap_or("")
            ),
            Vec::<String>::new()
        );
    }
    eprintln!("a move in /boards.json at most {worst:?} after its event");
    assert!(worst < Duration::from_secs(1), "{worst:?}");

    // A rook put where it cannot go: the list shows where the board differs.
    board
        .misplace(shakmaty::Square::A8, shakmaty::Square::A5)
        .expect("misplaced");
    let wrong = board_until(addr, "the misplaced rook", |b| {
        differing(
            b["placement"].as_str().unwrap_or(""),
            b["fen"].as_str().unwrap_or(""),
        )
        .len()
            == 2
    })
    .await;
    let mut squares = differing(
        wrong["placement"].as_str().unwrap_or(""),
        wrong["fen"].as_str().unwrap_or(""),
    );
    squares.sort();
    assert_eq!(squares, ["a5", "a8"], "{wrong}");
    board.put_right().expect("put right");
    board_until(addr, "the board put right", |b| {
        differing(
            b["placement"].as_str().unwrap_or(""),
            b["fen"].as_str().unwrap_or(""),
        )
        .is_empty()
            && b["moves"].as_array().is_some_and(|m| m.len() == 3)
    })
    .await;

    // The board goes away.
    drop(board.stop());
    let away = board_until(addr, "the board away", |b| b["connected"] == false).await;
    assert_eq!(
        away["moves"].as_array().map(Vec::len),
        Some(3),
        "the game stays: {away}"
    );
    relay.abort();
    server.abort();
    daemon.shutdown().await;
}
