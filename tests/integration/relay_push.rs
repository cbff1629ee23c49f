//! `--lichess-round`: the round's PGN pushed over real HTTP to a server on 127.0.0.1 that
//! stands in for lichess and says when each push arrived (in tokio's time, paused where the
//! test is about timing).
//!
//! Every test logs through one subscriber at TRACE (the daemon's own filter for the HTTP
//! client's wire traces included), and the token must never be in what it wrote.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use eboardd::event::GameEvent;
use eboardd::relay::files::PgnDir;
use eboardd::relay::lichess::{LichessPush, LichessToken, spawn_lichess_push};
use eboardd::relay::pgn::PgnTags;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

const TOKEN: &str = "lip_TestTokenDoNotLog_7Qx2Zr9";
const ROUND: &str = "rOuNd123";

/// Everything the tests logged, at TRACE.
fn logs() -> &'static Mutex<Vec<u8>> {
    static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        use tracing_subscriber::layer::SubscriberExt;
        use tracing_subscriber::util::SubscriberInitExt;
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let writer = Arc::clone(&buffer);
        // As the daemon logs (src/main.rs), with everything on: the `log` records of the HTTP
        // client come through too.
        tracing_subscriber::registry()
            .with(tracing_subscriber::EnvFilter::new("trace"))
            .with(tracing_subscriber::filter::filter_fn(
                eboardd::relay::lichess::loggable,
            ))
            .with(
                tracing_subscriber::fmt::layer()
                    .with_ansi(false)
                    .with_writer(move || Capture(Arc::clone(&writer))),
            )
            .init();
        buffer
    })
}

struct Capture(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn logged() -> String {
    String::from_utf8_lossy(&logs().lock().unwrap_or_else(|e| e.into_inner())).into_owned()
}

/// A push as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    at: Instant,
    request_line: String,
    authorization: Option<String>,
    content_type: Option<String>,
    body: String,
}

/// What the server answers: status, extra headers, body.
type Answer = (u16, Vec<(&'static str, String)>, String);

/// A lichess stand-in on 127.0.0.1: answers from a script, then 200 with a games reply.
struct Server {
    base: String,
    script: Arc<Mutex<VecDeque<Answer>>>,
    seen: mpsc::UnboundedReceiver<Seen>,
}

impl Server {
    async fn start(script: Vec<Answer>) -> Server {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let script = Arc::new(Mutex::new(VecDeque::from(script)));
        let (tx, seen) = mpsc::unbounded_channel();
        let answers = Arc::clone(&script);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let answer = answers
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .pop_front()
                    .unwrap_or_else(|| {
                        (
                            200,
                            Vec::new(),
                            r#"{"games":[{"tags":{},"moves":1}]}"#.into(),
                        )
                    });
                tokio::spawn(serve(stream, answer, tx.clone()));
            }
        });
        Server { base, script, seen }
    }

    /// The next push to arrive (bounded in wall time, whatever tokio's clock does).
    async fn next(&mut self) -> Seen {
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        loop {
            match self.seen.try_recv() {
                Ok(s) => return s,
                Err(mpsc::error::TryRecvError::Disconnected) => panic!("the server stopped"),
                Err(mpsc::error::TryRecvError::Empty) => {}
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no push within 20 s of wall time"
            );
            tokio::select! {
                s = self.seen.recv() => return s.expect("the server runs"),
                () = tokio::time::sleep(Duration::from_millis(100)) => {}
            }
        }
    }
}

async fn serve(mut stream: tokio::net::TcpStream, answer: Answer, tx: mpsc::UnboundedSender<Seen>) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
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
    let header = |name: &str| {
        head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_string())
        })
    };
    let length: usize = header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let seen = Seen {
        at: Instant::now(),
        request_line: head.lines().next().unwrap_or_default().to_string(),
        authorization: header("authorization"),
        content_type: header("content-type"),
        body: String::from_utf8_lossy(&buf[head_end..head_end + length]).into_owned(),
    };
    let (status, headers, body) = answer;
    // An unfriendly server: it echoes the request's Authorization header in its error page.
    let body = body.replace(
        "{authorization}",
        seen.authorization.as_deref().unwrap_or(""),
    );
    let _ = tx.send(seen);
    let mut out = format!("HTTP/1.1 {status} X\r\nConnection: close\r\n");
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str(&format!(
        "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    ));
    let _ = stream.write_all(out.as_bytes()).await;
    let _ = stream.shutdown().await;
}

fn token() -> LichessToken {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("token");
    std::fs::write(&path, format!("{TOKEN}\n")).expect("write");
    LichessToken::read(&path).expect("a token").0
}

fn pusher(base: &str) -> LichessPush {
    LichessPush::new(base, ROUND, token()).expect("a push")
}

fn mv(ply: u32, uci: &str, san: &str) -> GameEvent {
    GameEvent::Move {
        ply,
        uci: uci.parse().expect("uci"),
        san: san.parse().expect("san"),
        fen: String::new(),
        clock_ms: None,
        emt_ms: None,
        alternatives: Vec::new(),
    }
}

/// The round's relay with two boards, handing its games.pgn to a push.
fn round() -> (PgnDir, watch::Receiver<String>) {
    let (tx, rx) = watch::channel(String::new());
    let tags = PgnTags {
        event: Some("Push Open".into()),
        round: Some("5".into()),
        ..PgnTags::default()
    };
    let mut files = PgnDir::in_memory(tags).push_to(tx);
    files.add_board(0, Some("Anna".into()), Some("Boris".into()));
    files.add_board(1, Some("Clara".into()), Some("Dmitri".into()));
    (files, rx)
}

fn play(files: &mut PgnDir, board: u32, event: &GameEvent) {
    assert!(files.apply(board, event));
    files.write(board).expect("in memory");
}

#[tokio::test]
async fn pushes_carry_the_bearer_token_and_every_boards_game_in_board_order() {
    logs();
    let mut server = Server::start(Vec::new()).await;
    let (mut files, games) = round();
    let task = spawn_lichess_push(pusher(&server.base), games);
    play(&mut files, 1, &mv(1, "d2d4", "d4"));
    let first = server.next().await;
    assert_eq!(
        first.request_line,
        format!("POST /api/broadcast/round/{ROUND}/push HTTP/1.1")
    );
    assert_eq!(first.authorization, Some(format!("Bearer {TOKEN}")));
    assert!(
        first
            .content_type
            .as_deref()
            .is_some_and(|c| c.starts_with("text/plain")),
        "{first:?}"
    );
    assert_eq!(first.body, files.games_pgn());
    let one = first.body.find("[Round \"5.1\"]").expect("board 1");
    let two = first.body.find("[Round \"5.2\"]").expect("board 2");
    assert!(one < two, "board order:\n{}", first.body);
    assert!(first.body.contains("[White \"Clara\"]"), "{}", first.body);
    assert!(first.body.contains("1. d4 *"), "{}", first.body);

    play(&mut files, 0, &mv(1, "e2e4", "e4"));
    let second = server.next().await;
    assert_eq!(second.body, files.games_pgn());
    assert!(second.body.contains("1. e4 *\n\n[Event"), "{}", second.body);
    task.abort();
}

#[tokio::test(start_paused = true)]
async fn a_burst_of_moves_is_pushed_at_most_once_a_second_and_the_last_push_has_them_all() {
    logs();
    let mut server = Server::start(Vec::new()).await;
    let (mut files, games) = round();
    let task = spawn_lichess_push(pusher(&server.base), games);
    let start = Instant::now();
    // 60 plies on two boards within 1.5 s: a burst no push rate could follow move by move.
    let moves = [
        ("g1f3", "Nf3"),
        ("g8f6", "Nf6"),
        ("f3g1", "Ng1"),
        ("f6g8", "Ng8"),
    ];
    for ply in 1..=30u32 {
        let (uci, san) = moves[(ply as usize - 1) % 4];
        for board in 0..2 {
            play(&mut files, board, &mv(ply, uci, san));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let last = files.games_pgn();
    let mut pushes = Vec::new();
    loop {
        let seen = server.next().await;
        let done = seen.body == last;
        pushes.push(seen);
        if done {
            break;
        }
    }
    let times: Vec<Duration> = pushes.iter().map(|p| p.at - start).collect();
    for pair in times.windows(2) {
        assert!(
            pair[1] - pair[0] >= Duration::from_secs(1),
            "pushes less than a second apart: {times:?}"
        );
    }
    // The burst lasted 1.5 s: a push at once, one a second later, and the rest coalesced.
    assert!(pushes.len() <= 3, "{} pushes: {times:?}", pushes.len());
    assert!(
        times.last().is_some_and(|t| *t <= Duration::from_secs(3)),
        "{times:?}"
    );
    // Nothing changed since: no more pushes.
    tokio::time::sleep(Duration::from_secs(10)).await;
    assert!(
        server.seen.try_recv().is_err(),
        "a push of an unchanged PGN"
    );
    task.abort();
}

#[tokio::test(start_paused = true)]
async fn errors_back_off_growing_the_retry_after_is_honoured_and_pushes_recover() {
    logs();
    let script = vec![
        (500, Vec::new(), "oops".to_string()),
        (502, Vec::new(), String::new()),
        (503, Vec::new(), String::new()),
        (429, vec![("Retry-After", "7".to_string())], String::new()),
        (429, Vec::new(), String::new()),
        (500, Vec::new(), String::new()),
    ];
    let mut server = Server::start(script).await;
    let (mut files, games) = round();
    let task = spawn_lichess_push(pusher(&server.base), games);
    play(&mut files, 0, &mv(1, "e2e4", "e4"));
    let mut times = Vec::new();
    for _ in 0..7 {
        let seen = server.next().await;
        assert_eq!(seen.body, files.games_pgn(), "the same PGN again");
        times.push(seen.at);
    }
    let gaps: Vec<u64> = times
        .windows(2)
        .map(|w| (w[1] - w[0]).as_millis() as u64)
        .collect();
    // 1 s, 2 s, 4 s of back-off; the server's 7 s; a bare 429 waits a minute; then 32 s
    // (the sixth failure in a row).
    assert_eq!(gaps, [1000, 2000, 4000, 7000, 60_000, 32_000], "{gaps:?}");
    // Recovered: the next change goes within a second, and a failure starts at 1 s again.
    let recovered = *times.last().expect("pushes");
    play(&mut files, 1, &mv(1, "c2c4", "c4"));
    let next = server.next().await;
    assert!(
        next.at - recovered <= Duration::from_secs(1),
        "{:?}",
        next.at - recovered
    );
    assert_eq!(next.body, files.games_pgn());
    server
        .script
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push_back((500, Vec::new(), String::new()));
    play(&mut files, 1, &mv(2, "e7e5", "e5"));
    let failed = server.next().await;
    let retried = server.next().await;
    assert_eq!(retried.at - failed.at, Duration::from_secs(1));
    task.abort();
}

#[tokio::test(start_paused = true)]
async fn the_token_never_reaches_the_logs_even_when_pushes_fail() {
    logs();
    // A server that echoes the token in its error pages, and one that is not there.
    let mut server = Server::start(vec![
        (
            401,
            Vec::new(),
            "{\"error\":\"bad token {authorization}\"}".into(),
        ),
        (500, Vec::new(), "internal error for {authorization}".into()),
    ])
    .await;
    let (mut files, games) = round();
    let task = spawn_lichess_push(pusher(&server.base), games);
    play(&mut files, 0, &mv(1, "e2e4", "e4"));
    for _ in 0..3 {
        server.next().await;
    }
    task.abort();

    let nobody = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        format!("http://{}", l.local_addr().expect("addr"))
    };
    let (tx, rx) = watch::channel(String::new());
    let push = pusher(&nobody);
    tracing::debug!(?push, "pushing where nobody listens");
    let task = spawn_lichess_push(push, rx);
    tx.send_replace("[Event \"x\"]\n\n*\n".into());
    // Three failed connections: 1 s and 2 s of back-off.
    tokio::time::sleep(Duration::from_secs(4)).await;
    task.abort();

    let text = logged();
    assert!(text.contains("the server answered 401"), "{text}");
    assert!(
        text.contains("Bearer <token>"),
        "the echo, scrubbed: {text}"
    );
    assert!(
        text.contains("failures=3"),
        "the unreachable server: {text}"
    );
    assert!(
        text.contains("ureq"),
        "the HTTP client's own records are captured: {text}"
    );
    let chars: Vec<char> = TOKEN.chars().collect();
    for window in chars.windows(10) {
        let piece: String = window.iter().collect();
        assert!(
            !text.contains(&piece),
            "a piece of the token ({piece}) is in the logs:\n{text}"
        );
    }
}
