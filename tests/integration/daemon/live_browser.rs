//! The live page in a real browser: headless Chromium (Debian's `chromium`), driven over
//! its DevTools protocol, shows a game played on an emulated board — every move within a
//! second of the daemon publishing it (the event D-Bus sends as `Move`), the squares to
//! put right, and the board going away and coming back — and a screenshot is written.
//!
//! Without Chromium the test says so and passes, unless `EBOARDD_REQUIRE_CHROMIUM=1`
//! (`.ci/run` installs it and sets that).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
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
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;
use tokio_tungstenite::tungstenite::Message;

use crate::daemon::support::{LIMIT, Signals, client, options, start_bus};

/// The browser's program, if there is one.
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("EBOARDD_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|d| ["chromium", "chromium-browser"].map(|n| d.join(n)))
        .find(|p| p.is_file())
}

/// A headless browser, killed when dropped.
struct Browser {
    child: tokio::process::Child,
    ws: tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
    next: u64,
    session: Option<String>,
    _profile: tempfile::TempDir,
}

impl Browser {
    async fn start(program: &Path) -> Browser {
        let profile = tempfile::tempdir().expect("profile dir");
        let mut child = tokio::process::Command::new(program)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--hide-scrollbars",
                "--remote-debugging-port=0",
                "--window-size=1280,820",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start chromium");
        let stderr = child.stderr.take().expect("stderr");
        let mut lines = tokio::io::BufReader::new(stderr).lines();
        let find = async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(at) = line.find("ws://") {
                    return line[at..].trim().to_string();
                }
            }
            panic!("chromium ended without a DevTools address");
        };
        let url = tokio::time::timeout(LIMIT * 3, find)
            .await
            .expect("chromium's DevTools address within the limit");
        // Its further messages are of no interest, but must not fill the pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let (ws, _) = tokio_tungstenite::connect_async(url.as_str())
            .await
            .expect("DevTools connection");
        Browser {
            child,
            ws,
            next: 1,
            session: None,
            _profile: profile,
        }
    }

    /// Sends one DevTools command (to the page once attached) and returns its result.
    async fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(s) = &self.session {
            message["sessionId"] = json!(s);
        }
        self.ws
            .send(Message::text(message.to_string()))
            .await
            .expect("send to chromium");
        let answer = async {
            while let Some(m) = self.ws.next().await {
                let Ok(Message::Text(text)) = m else { continue };
                let v: Value = serde_json::from_str(text.as_str()).unwrap_or(Value::Null);
                if v["id"] == json!(id) {
                    return v;
                }
            }
            panic!("chromium closed the DevTools connection");
        };
        let v = tokio::time::timeout(LIMIT, answer)
            .await
            .unwrap_or_else(|_| panic!("{method}: no answer within the limit"));
        assert!(v.get("error").is_none(), "{method}: {v}");
        v["result"].clone()
    }

    /// Opens `url` in a new page and talks to that page from then on.
    async fn open(&mut self, url: &str) {
        let target = self.call("Target.createTarget", json!({"url": url})).await;
        let id = target["targetId"].clone();
        let attached = self
            .call(
                "Target.attachToTarget",
                json!({"targetId": id, "flatten": true}),
            )
            .await;
        self.session = attached["sessionId"].as_str().map(str::to_string);
    }

    /// The value of a JavaScript expression in the page.
    async fn eval(&mut self, expression: &str) -> Value {
        let r = self
            .call(
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true}),
            )
            .await;
        r["result"]["value"].clone()
    }

    /// Evaluates `expression` until `done` holds for it, within `limit`; the value.
    async fn until(
        &mut self,
        expression: &str,
        limit: Duration,
        done: impl Fn(&Value) -> bool,
    ) -> Value {
        let start = Instant::now();
        loop {
            let v = self.eval(expression).await;
            if done(&v) {
                return v;
            }
            assert!(
                start.elapsed() < limit,
                "the page did not show it within {limit:?}: {expression} is {v}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

/// The hand plays `uci` on the live board (legal there).
fn play(board: &mut LiveBoard, uci: &str) {
    let m = shakmaty::uci::UciMove::from_ascii(uci.as_bytes())
        .expect("uci")
        .to_move(board.position())
        .expect("legal on the board");
    board.play(m).expect("the hand plays");
}

fn new_board(seed: u64) -> LiveBoard {
    let board_options = BoardOptions {
        clock: false,
        ..BoardOptions::default()
    };
    LiveBoard::start(
        Protocol::Dgt,
        &board_options,
        &shakmaty::Chess::default(),
        seed,
        HandOptions::plain(),
        2.0,
    )
    .expect("an emulated board")
}

/// Points the link the daemon opens at `board`'s pseudo-terminal.
fn link_to(link: &Path, board: &LiveBoard) {
    let _ = std::fs::remove_file(link);
    std::os::unix::fs::symlink(board.path(), link).expect("symlink");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_in_a_browser_shows_moves_within_a_second_a_board_to_put_right_and_away_and_back()
{
    let Some(program) = chromium() else {
        if std::env::var_os("EBOARDD_REQUIRE_CHROMIUM").is_some_and(|v| v == "1") {
            panic!("EBOARDD_REQUIRE_CHROMIUM=1 but no chromium on PATH");
        }
        eprintln!("skipped: no chromium on PATH (apt-get install chromium)");
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let link = dir.path().join("board0");
    let mut board = new_board(7);
    link_to(&link, &board);
    let config = BoardConfig {
        protocol: ProtocolChoice::Fixed(Protocol::Dgt),
        white: Some("Anna".into()),
        black: Some("Boris".into()),
        ..BoardConfig::for_device(&link)
    };
    let mut daemon_options = options(
        &dir.path().join("state"),
        eboardd::daemon::core::pipeline_factory(),
    );
    daemon_options.boards = vec![config.clone()];
    let daemon = Daemon::new(daemon_options);
    let address = start_bus(dir.path());
    let service = eboardd::dbus::serve(
        daemon.clone(),
        &eboardd::dbus::Bus::Address(address.clone()),
    )
    .await
    .expect("serve on the bus");
    let bus = client(&address).await;
    let mut signals = Signals::record(&bus).await;
    let state = RelayState::new();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr: SocketAddr = listener.local_addr().expect("addr");
    let web = WebOptions::default();
    let routes = http::router(state.clone(), &web)
        .merge(eboardd::relay::page::router(daemon.clone(), state.clone()));
    let server = tokio::spawn(http::serve_with(
        listener,
        routes,
        Arc::new(web),
        Connections::new(64),
    ));
    let relay = spawn_pgn_dir(
        daemon.clone(),
        PgnDir::in_memory(PgnTags::default()).serve(state),
    );
    let handle = daemon.attach(config).await.expect("attach");
    let mut status = handle.watch_status();
    tokio::time::timeout(
        LIMIT,
        status.wait_for(|s| s.connected && !s.placement.is_empty()),
    )
    .await
    .expect("the board connects within the limit")
    .expect("status");

    let mut browser = Browser::start(&program).await;
    browser
        .open(&format!("http://127.0.0.1:{}/", addr.port()))
        .await;
    let card = r#"document.querySelector('.card[data-board="1"]')"#;
    let names = format!("{card} && {card}.innerText");
    let text = browser
        .until(&names, LIMIT, |v| {
            v.as_str().is_some_and(|t| t.contains("Boris"))
        })
        .await;
    assert!(text.as_str().is_some_and(|t| t.contains("Anna")), "{text}");
    browser
        .until(
            "document.getElementById('livetext').textContent",
            LIMIT,
            |v| v == "live",
        )
        .await;

    // Every move on the page within a second of its D-Bus `Move` signal.
    signals.clear();
    let last = format!("{card} && {card}.querySelector('.last').textContent");
    let mut worst = Duration::ZERO;
    for (uci, shown) in [
        ("e2e4", "1. e4"),
        ("e7e5", "1… e5"),
        ("g1f3", "2. Nf3"),
        ("b8c6", "2… Nc6"),
        ("f1b5", "3. Bb5"),
    ] {
        play(&mut board, uci);
        let signal = signals.next("Move").await;
        let (_, signalled, _, _) = signal
            .body()
            .deserialize::<(u32, String, String, String)>()
            .expect("a Move signal's body");
        assert_eq!(signalled, uci, "the move signalled");
        let t = Instant::now();
        browser
            .until(&last, Duration::from_secs(1), |v| v == shown)
            .await;
        worst = worst.max(t.elapsed());
    }
    eprintln!("each move on the page at most {worst:?} after its Move signal");

    // A rook put where it cannot go: the page frames a8 and a5 and says what belongs there.
    board
        .misplace(shakmaty::Square::A8, shakmaty::Square::A5)
        .expect("misplaced");
    let note = format!("{card} && ({card}.querySelector('.note.bad') || {{}}).textContent");
    let said = browser
        .until(&note, LIMIT, |v| {
            v.as_str().is_some_and(|t| t.contains("a8"))
        })
        .await;
    let said = said.as_str().unwrap_or_default().to_string();
    assert!(
        said.contains("a8: black rook") && said.contains("a5: nothing"),
        "{said}"
    );
    let framed = browser
        .eval(&format!("{card}.querySelectorAll('rect.fix').length"))
        .await;
    assert_eq!(framed, json!(2));
    let shot = browser
        .call("Page.captureScreenshot", json!({"format": "png"}))
        .await;
    let png = decode_base64(shot["data"].as_str().unwrap_or_default());
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("live-page.png");
    std::fs::write(&out, &png).expect("write the screenshot");
    eprintln!("screenshot: {}", out.display());
    board.put_right().expect("put right");
    browser
        .until(&note, LIMIT, |v| v.is_null() || v == "")
        .await;

    // The board goes away (the daemon tells a silent board after some seconds; the page
    // looks at the boards' link states every second), and comes back.
    let badge = format!("{card} && {card}.querySelector('.badge.ok, .badge.away').textContent");
    drop(board.stop());
    browser.until(&badge, LIMIT * 2, |v| v == "away").await;
    let back = new_board(8);
    link_to(&link, &back);
    browser.until(&badge, LIMIT * 3, |v| v == "connected").await;

    drop(browser);
    drop(service);
    relay.abort();
    server.abort();
    daemon.shutdown().await;
    drop(back);
}

/// Standard base64 (DevTools sends screenshots so).
fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for v in text.bytes().filter_map(value) {
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}
