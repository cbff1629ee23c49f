//! `--livechess-listen`: the LiveChess WebSocket API, used by a real WebSocket client over
//! loopback, with games played by the simulator's hand on emulated boards.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use eboardd::daemon::Daemon;
use eboardd::daemon::board::BoardHandle;
use eboardd::daemon::config::{BoardConfig, ProtocolChoice};
use eboardd::daemon::core::{START_FEN, pipeline_factory};
use eboardd::protocol::Protocol;
use eboardd::sim::device::BoardOptions;
use eboardd::sim::pgn::parse_games;
use eboardd::sim::{Game, HandOptions, games};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

use crate::daemon::emulated::EmulatedPty;
use crate::daemon::emulated_game::{SPEED, game_limit, opera, play, truth_sans};
use crate::daemon::support::*;

/// A set-up position (not reachable from the start in a few moves) and a game from it.
const SET_UP: &str = "4k3/pp6/8/3p4/4P3/8/PP6/4K3 w - - 0 1";
const SET_UP_GAME: &str = r#"[Event "set-up"]
[SetUp "1"]
[FEN "4k3/pp6/8/3p4/4P3/8/PP6/4K3 w - - 0 1"]
[Result "*"]

1. exd5 Kd7 2. Kd2 Kd6 3. Kc3 Kxd5 4. b4 a6 *
"#;

fn set_up_game() -> Game {
    parse_games(SET_UP_GAME)
        .expect("the set-up game parses")
        .swap_remove(0)
}

/// The placement part of a FEN.
fn placement(fen: &str) -> &str {
    fen.split(' ').next().unwrap_or_default()
}

/// A LiveChess client on a real WebSocket; feed messages that arrive while it waits for an
/// answer are kept for later.
struct Client {
    ws: WebSocketStream<TcpStream>,
    next_id: i64,
    feeds: VecDeque<Value>,
}

impl Client {
    async fn connect(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr).await.expect("connect");
        let url = format!("ws://{addr}/api/v1.0");
        let (ws, response) = tokio_tungstenite::client_async(url, stream)
            .await
            .expect("WebSocket handshake");
        assert_eq!(response.status().as_u16(), 101);
        Client {
            ws,
            next_id: 1,
            feeds: VecDeque::new(),
        }
    }

    async fn send_text(&mut self, text: &str) {
        self.ws
            .send(Message::text(text.to_string()))
            .await
            .expect("send");
    }

    /// The next JSON message from the server, within `limit`.
    async fn next(&mut self, limit: Duration) -> Value {
        let wait = async {
            loop {
                match self.ws.next().await {
                    Some(Ok(Message::Text(t))) => {
                        return serde_json::from_str::<Value>(t.as_str()).expect("JSON");
                    }
                    Some(Ok(Message::Close(c))) => panic!("the server closed: {c:?}"),
                    Some(Ok(_)) => {}
                    Some(Err(e)) => panic!("the connection failed: {e}"),
                    None => panic!("the connection ended"),
                }
            }
        };
        tokio::time::timeout(limit, wait)
            .await
            .expect("a message within the limit")
    }

    /// Sends `text` and returns the answer to call `id`.
    async fn answer_to(&mut self, id: i64, text: &str) -> Value {
        self.send_text(text).await;
        loop {
            let m = self.next(LIMIT).await;
            if m["response"] == "feed" {
                self.feeds.push_back(m);
            } else if m["id"] == json!(id) {
                return m;
            } else {
                panic!("an answer to another call: {m}");
            }
        }
    }

    /// Sends a call (an id is added) and returns its answer.
    async fn call(&mut self, mut call: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        call["id"] = json!(id);
        self.answer_to(id, &call.to_string()).await
    }

    /// The first message of feed `feed` whose `param` satisfies `done`, within `limit`;
    /// every message of the feed up to it is handed to `seen` first.
    async fn feed_until(
        &mut self,
        feed: i64,
        limit: Duration,
        mut seen: impl FnMut(&Value),
        done: impl Fn(&Value) -> bool,
    ) -> Value {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let m = match self.feeds.pop_front() {
                Some(m) => m,
                None => {
                    let left = deadline.saturating_duration_since(tokio::time::Instant::now());
                    self.next(left).await
                }
            };
            assert_eq!(m["response"], "feed", "only feed messages here: {m}");
            if m["id"] != json!(feed) {
                continue;
            }
            seen(&m["param"]);
            if done(&m["param"]) {
                return m["param"].clone();
            }
        }
    }
}

fn subscribe(feed: i64, serialnr: &str) -> Value {
    json!({"call": "subscribe",
           "param": {"feed": "eboardevent", "id": feed, "param": {"serialnr": serialnr}}})
}

fn method(feed: i64, name: &str, param: Value) -> Value {
    json!({"call": "call", "param": {"id": feed, "method": name, "param": param}})
}

/// A daemon with the production core and `boards` attached, and the LiveChess API on a
/// loopback port.
async fn livechess_daemon(
    state: &Path,
    boards: &[(&Path, Protocol)],
) -> (Daemon, Vec<BoardHandle>, SocketAddr) {
    let daemon = Daemon::new(options(state, pipeline_factory()));
    let mut handles = Vec::new();
    for (link, protocol) in boards {
        let config = BoardConfig {
            protocol: ProtocolChoice::Fixed(*protocol),
            ..BoardConfig::for_device(link)
        };
        handles.push(daemon.attach(config).await.expect("attach"));
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(eboardd::livechess::serve(listener, daemon.clone()));
    (daemon, handles, addr)
}

/// Waits until the board is connected and has reported its squares.
async fn connected(handle: &BoardHandle) {
    let mut status = handle.watch_status();
    tokio::time::timeout(
        LIMIT,
        status.wait_for(|s| s.connected && !s.placement.is_empty()),
    )
    .await
    .expect("the board connects within the limit")
    .expect("the board's task runs");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eboards_lists_a_dgt_and_a_millennium_board_and_each_has_a_feed() {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let dgt_link = board_link(dir.path(), "dgt0");
    let ml_link = board_link(dir.path(), "chesslink0");
    let dgt = play(
        &set_up_game(),
        Protocol::Dgt,
        1,
        HandOptions::default(),
        BoardOptions::default(),
    );
    let ml = play(
        &set_up_game(),
        Protocol::Millennium,
        2,
        HandOptions::default(),
        BoardOptions::default(),
    );
    let _dgt = EmulatedPty::start_held(&dgt_link, dgt.board, dgt.perf.timeline, SPEED);
    let _ml = EmulatedPty::start_held(&ml_link, ml.board, ml.perf.timeline, SPEED);
    let (_daemon, handles, addr) = livechess_daemon(
        &dir.path().join("state"),
        &[(&dgt_link, Protocol::Dgt), (&ml_link, Protocol::Millennium)],
    )
    .await;
    for h in &handles {
        connected(h).await;
    }

    let mut client = Client::connect(addr).await;
    // lichess.org/dgt's first call, exactly as it sends it.
    let list = client.answer_to(1, r#"{"id":1,"call":"eboards"}"#).await;
    assert_eq!(list["response"], "call", "{list}");
    assert_eq!(list["id"], json!(1), "the id comes back a number");
    assert!(list["time"].is_u64(), "{list}");
    let boards = list["param"].as_array().expect("a list of boards");
    assert_eq!(boards.len(), 2, "{list}");
    let (one, two) = (&boards[0], &boards[1]);
    assert_eq!(one["serialnr"], "1");
    assert_eq!(two["serialnr"], "2");
    assert_eq!(one["source"], json!(dgt_link.display().to_string()));
    assert_eq!(two["source"], json!(ml_link.display().to_string()));
    for b in boards {
        assert_eq!(b["state"], "ACTIVE", "{b}");
        assert_eq!(b["board"], placement(SET_UP), "{b}");
        assert_eq!(b["flipped"], false, "{b}");
        assert!(b["battery"].is_null() && b["clock"].is_null(), "{b}");
    }
    let comment = |b: &Value| b["comment"].as_str().unwrap_or_default().to_string();
    assert!(comment(one).starts_with("dgt"), "{one}");
    assert!(comment(two).starts_with("millennium"), "{two}");

    // A string id is a number too; each board has its feed, the first message at once.
    let sub = client
        .answer_to(
            5,
            r#"{"id":"5","call":"subscribe","param":{"feed":"eboardevent","id":"3","param":{"serialnr":"2"}}}"#,
        )
        .await;
    assert_eq!(
        (&sub["response"], &sub["id"], &sub["param"]),
        (&json!("call"), &json!(5), &Value::Null),
        "{sub}"
    );
    let first = client.feed_until(3, LIMIT, |_| {}, |_| true).await;
    assert_eq!(first["serialnr"], "2");
    assert_eq!(first["board"], placement(SET_UP));
    assert_eq!(first["san"], json!([]));
    let sub = client.call(subscribe(4, "1")).await;
    assert_eq!(sub["response"], "call", "{sub}");
    let first = client.feed_until(4, LIMIT, |_| {}, |_| true).await;
    assert_eq!(first["serialnr"], "1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_feed_delivers_the_san_of_the_game_as_it_is_played() {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let link = board_link(dir.path(), "dgt0");
    let played = play(
        &opera(),
        Protocol::Dgt,
        11,
        HandOptions::default(),
        BoardOptions::default(),
    );
    let perf = played.perf;
    let truth = truth_sans(&perf);
    let board = EmulatedPty::start_held(&link, played.board, perf.timeline.clone(), SPEED);
    let (_daemon, handles, addr) =
        livechess_daemon(&dir.path().join("state"), &[(&link, Protocol::Dgt)]).await;
    connected(&handles[0]).await;

    let mut client = Client::connect(addr).await;
    let sub = client.call(subscribe(1, "1")).await;
    assert_eq!(sub["response"], "call", "{sub}");
    let first = client.feed_until(1, LIMIT, |_| {}, |_| true).await;
    assert_eq!(first["start"], START_FEN);
    assert_eq!(first["san"], json!([]));
    assert_eq!(first["match"], true, "{first}");

    board.release();
    let mut lists: Vec<Vec<String>> = Vec::new();
    let last = client
        .feed_until(
            1,
            game_limit(&perf),
            |p| {
                let san: Vec<String> =
                    serde_json::from_value(p["san"].clone()).expect("san is a list");
                if lists.last() != Some(&san) {
                    lists.push(san);
                }
            },
            |p| p["san"].as_array().is_some_and(|s| s.len() == truth.len()),
        )
        .await;
    // Every list is the game so far: each move shows up once, in order.
    for san in &lists {
        assert_eq!(san[..], truth[..san.len()], "{lists:?}");
    }
    let lengths: Vec<usize> = lists.iter().map(Vec::len).collect();
    assert!(lengths.windows(2).all(|w| w[0] < w[1]), "{lengths:?}");
    assert_eq!(last["start"], START_FEN);
    // The board ends as the game does (the move's last message may already say so).
    let final_fen = &perf.truth.plies.last().expect("plies").fen_after;
    let matched = if last["match"] == true {
        last
    } else {
        client
            .feed_until(1, LIMIT, |_| {}, |p| p["match"] == true)
            .await
    };
    assert_eq!(matched["board"], placement(final_fen));
    assert_eq!(matched["san"], json!(truth));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setup_starts_the_boards_game_from_the_fen_and_its_moves_are_confirmed() {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let link = board_link(dir.path(), "dgt0");
    let played = play(
        &set_up_game(),
        Protocol::Dgt,
        5,
        HandOptions::default(),
        BoardOptions::default(),
    );
    let perf = played.perf;
    let truth = truth_sans(&perf);
    let board = EmulatedPty::start_held(&link, played.board, perf.timeline.clone(), SPEED);
    let (_daemon, handles, addr) =
        livechess_daemon(&dir.path().join("state"), &[(&link, Protocol::Dgt)]).await;
    connected(&handles[0]).await;

    let mut client = Client::connect(addr).await;
    client.call(subscribe(7, "1")).await;
    // The daemon does not know the position: the board does not match its game.
    let first = client.feed_until(7, LIMIT, |_| {}, |_| true).await;
    assert_eq!(first["board"], placement(SET_UP));
    assert_eq!(first["match"], false, "{first}");

    let done = client
        .call(method(7, "setup", json!({"fen": SET_UP})))
        .await;
    assert_eq!(done["response"], "call", "{done}");
    let set = client
        .feed_until(
            7,
            LIMIT,
            |_| {},
            |p| p["start"] == SET_UP && p["match"] == true,
        )
        .await;
    assert_eq!(set["san"], json!([]));
    assert_eq!(handles[0].status().fen, SET_UP);

    board.release();
    let last = client
        .feed_until(
            7,
            game_limit(&perf),
            |_| {},
            |p| p["san"].as_array().is_some_and(|s| s.len() == truth.len()),
        )
        .await;
    assert_eq!(last["start"], SET_UP);
    assert_eq!(last["san"], json!(truth));
    assert_eq!(last["san"][0], "exd5");

    // A setup with a position the game passed through moves the feed's start only: the
    // board's game keeps its moves.
    let after_two = &perf.truth.plies[1].fen_after;
    let done = client
        .call(method(7, "setup", json!({"fen": after_two})))
        .await;
    assert_eq!(done["response"], "call", "{done}");
    let rebased = client
        .feed_until(7, LIMIT, |_| {}, |p| p["start"] == json!(after_two))
        .await;
    assert_eq!(rebased["san"], json!(truth[2..]));
    assert_eq!(handles[0].status().ply as usize, truth.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flip_reads_a_turned_board_the_other_way_round() {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let link = board_link(dir.path(), "dgt0");
    let turned = BoardOptions {
        turned: true,
        ..BoardOptions::default()
    };
    let played = play(
        &set_up_game(),
        Protocol::Dgt,
        8,
        HandOptions::default(),
        turned,
    );
    let perf = played.perf;
    let truth = truth_sans(&perf);
    let board = EmulatedPty::start_held(&link, played.board, perf.timeline.clone(), SPEED);
    let (_daemon, handles, addr) =
        livechess_daemon(&dir.path().join("state"), &[(&link, Protocol::Dgt)]).await;
    connected(&handles[0]).await;

    let mut client = Client::connect(addr).await;
    client.call(subscribe(1, "1")).await;
    // Not a start position: nothing tells the daemon the board is turned.
    let first = client.feed_until(1, LIMIT, |_| {}, |_| true).await;
    assert_eq!(first["flipped"], false);
    assert_ne!(first["board"], placement(SET_UP));

    let done = client.call(method(1, "flip", json!({"flip": true}))).await;
    assert_eq!(done["response"], "call", "{done}");
    let flipped = client
        .feed_until(1, LIMIT, |_| {}, |p| p["flipped"] == true)
        .await;
    assert_eq!(
        flipped["board"],
        placement(SET_UP),
        "read the right way now"
    );
    let list = client.call(json!({"call": "eboards"})).await;
    assert_eq!(list["param"][0]["flipped"], true, "{list}");

    // The board is read turned from now on: the game from the set-up is confirmed.
    client
        .call(method(1, "setup", json!({"fen": SET_UP})))
        .await;
    board.release();
    let last = client
        .feed_until(
            1,
            game_limit(&perf),
            |_| {},
            |p| p["san"].as_array().is_some_and(|s| s.len() == truth.len()),
        )
        .await;
    assert_eq!(last["san"], json!(truth));
    assert_eq!(last["flipped"], true);

    // Flipped back: the board is read as it was at first.
    let done = client.call(method(1, "flip", json!({"flip": false}))).await;
    assert_eq!(done["response"], "call", "{done}");
    let back = client
        .feed_until(1, LIMIT, |_| {}, |p| p["flipped"] == false)
        .await;
    assert_eq!(back["match"], false, "{back}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_and_unknown_calls_get_errors_and_the_connection_stays_usable() {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let link = board_link(dir.path(), "dgt0");
    let game = games::real_games().swap_remove(0);
    let played = play(
        &game,
        Protocol::Dgt,
        3,
        HandOptions::default(),
        BoardOptions::default(),
    );
    let _board = EmulatedPty::start_held(&link, played.board, played.perf.timeline, SPEED);
    let (_daemon, handles, addr) =
        livechess_daemon(&dir.path().join("state"), &[(&link, Protocol::Dgt)]).await;
    connected(&handles[0]).await;
    let mut client = Client::connect(addr).await;

    let error = |m: &Value| {
        assert_eq!(m["response"], "error", "{m}");
        m["param"]["message"]
            .as_str()
            .expect("a message")
            .to_string()
    };
    client.send_text("this is not JSON").await;
    let m = client.next(LIMIT).await;
    assert!(error(&m).starts_with("not JSON"), "{m}");
    assert!(m["id"].is_null());
    client.send_text("[1, 2, 3]").await;
    assert!(error(&client.next(LIMIT).await).contains("object"));
    client
        .ws
        .send(Message::binary(vec![0u8, 1, 2]))
        .await
        .expect("send");
    assert!(error(&client.next(LIMIT).await).contains("JSON text"));
    let m = client.answer_to(9, r#"{"id":9,"call":"dance"}"#).await;
    assert!(error(&m).contains("unknown call"), "{m}");
    let m = client
        .answer_to(10, r#"{"id":"10","call":"subscribe","param":{"feed":"eboardevent","id":1,"param":{"serialnr":"99"}}}"#)
        .await;
    assert!(error(&m).contains("no board"), "{m}");
    let m = client
        .call(method(42, "setup", json!({"fen": SET_UP})))
        .await;
    assert!(error(&m).contains("subscribe first"), "{m}");
    client.call(subscribe(1, "1")).await;
    let m = client
        .call(method(
            1,
            "setup",
            json!({"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}),
        ))
        .await;
    assert!(error(&m).contains("not a legal position"), "{m}");
    let m = client.call(method(1, "castle", json!({}))).await;
    assert!(error(&m).contains("unknown method"), "{m}");
    let m = client
        .call(json!({"call": "unsubscribe", "param": {"id": 2}}))
        .await;
    assert!(error(&m).contains("no feed 2"), "{m}");

    // Still usable: a real call is answered, and the feed is still there.
    let list = client.call(json!({"call": "eboards"})).await;
    assert_eq!(list["param"][0]["serialnr"], "1", "{list}");
    let m = client
        .call(json!({"call": "unsubscribe", "param": {"id": 1}}))
        .await;
    assert_eq!(m["response"], "call", "{m}");
    assert_eq!(handles[0].status().ply, 0, "nothing bad reached the board");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_paths_are_not_the_api_and_eboards_answers_over_plain_http() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempfile::tempdir().expect("tempdir");
    let (_daemon, _handles, addr) = livechess_daemon(&dir.path().join("state"), &[]).await;
    let stream = TcpStream::connect(addr).await.expect("connect");
    let refused = tokio_tungstenite::client_async(format!("ws://{addr}/other"), stream).await;
    match refused {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => {
            assert_eq!(r.status().as_u16(), 404)
        }
        other => panic!("a WebSocket elsewhere than /api/v1.0: {other:?}"),
    }
    let mut s = TcpStream::connect(addr).await.expect("connect");
    s.write_all(b"GET /api/v1.0/eboards HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .await
        .expect("request");
    let mut out = String::new();
    s.read_to_string(&mut out).await.expect("response");
    assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
    assert!(
        out.to_ascii_lowercase()
            .contains("content-type: application/json"),
        "{out}"
    );
    assert!(out.ends_with("\r\n\r\n[]"), "{out}");
}

/// Kills the child if the test fails before it is stopped.
struct Guard(std::process::Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `eboardd run` with no board and `extra` options; returns it, once it told systemd
/// it is ready, with its log lines.
fn run_daemon(dir: &Path, extra: &[&str]) -> (Guard, std::sync::mpsc::Receiver<String>) {
    use std::io::BufRead;
    let address = start_bus(dir);
    let notify_path = dir.join("notify");
    let notify = std::os::unix::net::UnixDatagram::bind(&notify_path).expect("notify socket");
    notify.set_read_timeout(Some(LIMIT)).expect("timeout");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_eboardd"))
        .args(["run", "--bus-address", &address, "--state-dir"])
        .arg(dir.join("state"))
        .args(extra)
        .env("NOTIFY_SOCKET", &notify_path)
        .env("EBOARDD_LOG", "info")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn eboardd run");
    let (tx, rx) = std::sync::mpsc::channel();
    if let Some(err) = child.stderr.take() {
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(err).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
    }
    let guard = Guard(child);
    let mut buf = [0u8; 512];
    let n = notify.recv(&mut buf).expect("READY from eboardd run");
    assert!(String::from_utf8_lossy(&buf[..n]).contains("READY=1"));
    (guard, rx)
}

/// Stops the daemon with SIGTERM and returns the rest of its log.
fn stop(mut daemon: Guard, log: std::sync::mpsc::Receiver<String>) -> Vec<String> {
    let pid = daemon.0.id().to_string();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status();
    assert!(killed.is_ok_and(|s| s.success()));
    let status = daemon.0.wait().expect("wait");
    assert!(status.success(), "{status:?}");
    // The log ends when the process does.
    log.iter().collect()
}

#[test]
fn run_serves_the_api_only_when_asked_and_a_bare_port_on_loopback() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (daemon, log) = run_daemon(&made(dir.path().join("plain")), &[]);
    let lines = stop(daemon, log);
    assert!(lines.iter().any(|l| l.contains("starting")), "{lines:?}");
    assert!(
        !lines.iter().any(|l| l.contains("LiveChess")),
        "not asked, not served: {lines:?}"
    );

    let (daemon, log) = run_daemon(
        &made(dir.path().join("served")),
        &["--livechess-listen", "0"],
    );
    let line = log
        .iter()
        .find(|l| l.contains("LiveChess API listening on ws://"))
        .expect("the address in the log");
    let url = line
        .split("ws://")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("a URL");
    let (host, path) = url.split_once('/').expect("HOST:PORT/PATH");
    assert_eq!(path, "api/v1.0", "{line}");
    let addr: SocketAddr = host.parse().expect("an address");
    assert_eq!(addr.ip(), std::net::Ipv4Addr::LOCALHOST, "{line}");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let list = rt.block_on(async {
        let mut client = Client::connect(addr).await;
        client.call(json!({"call": "eboards"})).await
    });
    assert_eq!(list["param"], json!([]), "{list}");
    stop(daemon, log);
}

/// `path`, made as a directory.
fn made(path: std::path::PathBuf) -> std::path::PathBuf {
    std::fs::create_dir_all(&path).expect("create dir");
    path
}

/// A WebSocket handshake to `/api/v1.0` with `headers` added; its status, or 101.
async fn handshake_with(addr: SocketAddr, headers: &[(&str, &str)]) -> u16 {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let stream = TcpStream::connect(addr).await.expect("connect");
    let mut request = format!("ws://{addr}/api/v1.0")
        .into_client_request()
        .expect("request");
    for (name, value) in headers {
        request.headers_mut().insert(
            tokio_tungstenite::tungstenite::http::HeaderName::from_bytes(name.as_bytes())
                .expect("name"),
            value.parse().expect("value"),
        );
    }
    match tokio_tungstenite::client_async(request, stream).await {
        Ok((_, response)) => response.status().as_u16(),
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => r.status().as_u16(),
        Err(e) => panic!("the handshake failed: {e}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_from_other_origins_and_rebound_host_names_are_refused() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempfile::tempdir().expect("tempdir");
    let (_daemon, _handles, addr) = livechess_daemon(&dir.path().join("state"), &[]).await;
    assert_eq!(
        handshake_with(addr, &[("origin", "https://evil.example")]).await,
        403
    );
    assert_eq!(handshake_with(addr, &[("origin", "null")]).await, 403);
    assert_eq!(
        handshake_with(addr, &[("origin", "https://lichess.org")]).await,
        101
    );
    assert_eq!(
        handshake_with(addr, &[("origin", "http://localhost:8080")]).await,
        101
    );
    assert_eq!(
        handshake_with(addr, &[]).await,
        101,
        "no Origin: not a browser"
    );
    assert_eq!(handshake_with(addr, &[("host", "evil.example")]).await, 403);
    // DNS rebinding: the list over plain HTTP with another host name.
    let mut s = TcpStream::connect(addr).await.expect("connect");
    s.write_all(
        b"GET /api/v1.0/eboards HTTP/1.1\r\nHost: rebind.attacker.example:1982\r\n\
          Connection: close\r\n\r\n",
    )
    .await
    .expect("request");
    let mut out = String::new();
    s.read_to_string(&mut out).await.expect("response");
    assert!(out.starts_with("HTTP/1.1 403"), "{out}");
    assert!(out.contains("not this machine"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_holds_a_bounded_number_of_feeds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let link = board_link(dir.path(), "dgt0");
    let played = play(
        &opera(),
        Protocol::Dgt,
        11,
        HandOptions::default(),
        BoardOptions::default(),
    );
    let _board = EmulatedPty::start_held(&link, played.board, played.perf.timeline, SPEED);
    let (_daemon, handles, addr) =
        livechess_daemon(&dir.path().join("state"), &[(&link, Protocol::Dgt)]).await;
    connected(&handles[0]).await;
    let most = eboardd::livechess::server::MAX_FEEDS as i64;
    let mut client = Client::connect(addr).await;
    for feed in 1..=most {
        let sub = client.call(subscribe(feed, "1")).await;
        assert_eq!(sub["response"], "call", "feed {feed}: {sub}");
    }
    let over = client.call(subscribe(most + 1, "1")).await;
    assert_eq!(over["response"], "error", "{over}");
    assert!(
        over["param"].to_string().contains("unsubscribe one first"),
        "{over}"
    );
    // Subscribing a feed it holds again replaces it; one given back makes room.
    let again = client.call(subscribe(most, "1")).await;
    assert_eq!(again["response"], "call", "{again}");
    let gone = client
        .call(json!({"call": "unsubscribe", "param": {"feed": "eboardevent", "id": 1}}))
        .await;
    assert_eq!(gone["response"], "call", "{gone}");
    let room = client.call(subscribe(most + 1, "1")).await;
    assert_eq!(room["response"], "call", "{room}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dgt_board_is_named_by_its_serial_number_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let link = board_link(dir.path(), "dgt0");
    let played = play(
        &opera(),
        Protocol::Dgt,
        11,
        HandOptions::default(),
        BoardOptions::default(),
    );
    let _board = EmulatedPty::start_held(&link, played.board, played.perf.timeline, SPEED);
    let (_daemon, handles, addr) =
        livechess_daemon(&dir.path().join("state"), &[(&link, Protocol::Dgt)]).await;
    connected(&handles[0]).await;
    let mut status = handles[0].watch_status();
    let serial = tokio::time::timeout(LIMIT, status.wait_for(|s| !s.serial.is_empty()))
        .await
        .expect("the board says its serial number within the limit")
        .expect("status")
        .serial
        .clone();
    let number = serial
        .split_whitespace()
        .last()
        .expect("a number")
        .to_string();
    assert_eq!(number, "10960", "the emulated board's number ({serial:?})");
    let mut client = Client::connect(addr).await;
    for name in [number.as_str(), serial.as_str()] {
        let sub = client.call(subscribe(7, name)).await;
        assert_eq!(sub["response"], "call", "{name:?}: {sub}");
        let first = client.feed_until(7, LIMIT, |_| {}, |_| true).await;
        assert_eq!(first["serialnr"], "1", "{first}");
    }
    let wrong = client.call(subscribe(8, "10961")).await;
    assert_eq!(wrong["response"], "error", "{wrong}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_websocket_frames_end_that_connection_only() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempfile::tempdir().expect("tempdir");
    let (_daemon, _handles, addr) = livechess_daemon(&dir.path().join("state"), &[]).await;
    let mut bystander = Client::connect(addr).await;
    let frames: [&[u8]; 4] = [
        // A text frame a client sent unmasked.
        b"\x81\x05hello",
        // A reserved opcode.
        b"\x83\x80\x00\x00\x00\x00",
        // A length of 2^63 - 1.
        b"\x81\xff\x7f\xff\xff\xff\xff\xff\xff\xff\x00\x00\x00\x00",
        // A masked text frame that is not UTF-8.
        b"\x81\x82\x00\x00\x00\x00\xff\xfe",
    ];
    for frame in frames {
        let mut s = TcpStream::connect(addr).await.expect("connect");
        s.write_all(
            b"GET /api/v1.0 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n\
              Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\
              Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
        )
        .await
        .expect("handshake");
        let mut head = Vec::new();
        while !head.ends_with(b"\r\n\r\n") {
            let mut byte = [0u8; 1];
            s.read_exact(&mut byte)
                .await
                .expect("the handshake's answer");
            head.push(byte[0]);
        }
        assert!(
            head.starts_with(b"HTTP/1.1 101"),
            "{}",
            String::from_utf8_lossy(&head)
        );
        s.write_all(frame).await.expect("frame");
        let mut rest = Vec::new();
        let ended = tokio::time::timeout(LIMIT, s.read_to_end(&mut rest)).await;
        assert!(ended.is_ok(), "the connection is ended for {frame:?}");
    }
    let list = bystander.call(json!({"call": "eboards"})).await;
    assert_eq!(list["response"], "call", "the other client goes on: {list}");
}
