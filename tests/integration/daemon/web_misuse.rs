//! The HTTP front under misuse, on loopback and bounded: idle connections past the cap,
//! slow and oversized request heads, malformed requests, event streams nobody reads. Each
//! test checks that a normal `GET /games.pgn` keeps answering meanwhile, and that HTTP's
//! finer points (HEAD, conditional requests, resumed event streams) hold.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use eboardd::relay::http::{self, RelayState};
use eboardd::web::{Connections, WebOptions};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use crate::daemon::support::LIMIT;

const GAMES: &str = "[Event \"?\"]\n\n1. e4 *\n";

struct Relay {
    addr: SocketAddr,
    state: Arc<RelayState>,
    connections: Arc<Connections>,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// A relay on a loopback port with one game published, under `options`.
async fn relay(options: WebOptions) -> Relay {
    eboardd::web::raise_descriptor_limit();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let state = RelayState::new();
    state.publish_pgn(vec![(0, GAMES.to_string())], GAMES.to_string());
    let connections = Connections::new(options.max_connections);
    let routes = http::router(state.clone(), &options);
    let server = tokio::spawn(http::serve_with(
        listener,
        routes,
        Arc::new(options),
        connections.clone(),
    ));
    Relay {
        addr,
        state,
        connections,
        server,
    }
}

/// Sends `request` as it is and reads the answer to the end (bounded by the limit).
async fn exchange(addr: SocketAddr, request: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).await.expect("connect");
    s.write_all(request).await.expect("request");
    let mut out = Vec::new();
    let read = tokio::time::timeout(LIMIT, s.read_to_end(&mut out)).await;
    assert!(read.is_ok(), "an answer and the end within the limit");
    String::from_utf8_lossy(&out).into_owned()
}

/// `GET path` with `extra` header lines, closing after the answer.
async fn get(addr: SocketAddr, path: &str, extra: &str) -> String {
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n{extra}\r\n");
    exchange(addr, request.as_bytes()).await
}

/// A header's value in an answer, by name in any case.
fn header<'a>(answer: &'a str, name: &str) -> Option<&'a str> {
    let head = answer.split("\r\n\r\n").next()?;
    head.lines().skip(1).find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// Times `n` normal GETs of `/games.pgn`, each checked and answered within the limit; the
/// 99th percentile, for the log (the figures that count come from `examples/daemon-bench.rs
/// --misuse`, a release build alone on the machine).
async fn normal_gets(addr: SocketAddr, n: usize) -> Duration {
    // The game of the in-process relays; a daemon without boards serves an empty one.
    normal_gets_of(addr, n, GAMES).await
}

/// As [`normal_gets`], for a relay whose `/games.pgn` is `games`.
async fn normal_gets_of(addr: SocketAddr, n: usize, games: &str) -> Duration {
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        let answer = get(addr, "/games.pgn", "").await;
        times.push(t.elapsed());
        assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
        assert!(answer.ends_with(games), "{answer}");
    }
    times.sort();
    times[(n * 99 / 100).min(n - 1)]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_past_the_cap_give_way_to_a_normal_get() {
    // No timeout frees a place before the normal GETs give up (the limit): only the cap
    // makes room for them.
    let options = WebOptions {
        max_connections: 64,
        header_timeout: 6 * LIMIT,
        idle_timeout: 6 * LIMIT,
        ..WebOptions::default()
    };
    let relay = relay(options).await;
    // Five times the cap, never sending a byte.
    let mut idle = Vec::new();
    for _ in 0..320 {
        idle.push(TcpStream::connect(relay.addr).await.expect("connect"));
    }
    let p99 = normal_gets(relay.addr, 100).await;
    eprintln!("320 idle connections, cap 64: GET /games.pgn p99 {p99:?}");
    assert!(
        relay.connections.open() <= 64 + 1,
        "the cap holds: {} open",
        relay.connections.open()
    );
    drop(idle);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_head_sent_too_slowly_is_cut_off() {
    let options = WebOptions {
        header_timeout: Duration::from_millis(500),
        ..WebOptions::default()
    };
    let relay = relay(options).await;
    let mut slow = TcpStream::connect(relay.addr).await.expect("connect");
    let start = Instant::now();
    slow.write_all(b"GET /games.pgn HTTP/1.1\r\nHo")
        .await
        .expect("write");
    let mut rest = Vec::new();
    let ended = tokio::time::timeout(LIMIT, async {
        // One byte every 200 ms does not keep it open past the header timeout.
        loop {
            tokio::select! {
                read = slow.read_to_end(&mut rest) => return read.is_ok() || read.is_err(),
                _ = tokio::time::sleep(Duration::from_millis(200)) => {
                    if slow.write_all(b"s").await.is_err() {
                        return true;
                    }
                }
            }
        }
    })
    .await;
    assert_eq!(ended, Ok(true), "the connection is closed");
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(450),
        "not before the timeout: {took:?}"
    );
    assert!(!String::from_utf8_lossy(&rest).contains("200 OK"));
    assert!(normal_gets(relay.addr, 5).await < LIMIT);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_request_heads_are_refused_with_431() {
    let relay = relay(WebOptions::default()).await;
    // A 20 KiB header: more than the 16 KiB a head may have.
    let big = format!(
        "GET /games.pgn HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: {}\r\n\r\n",
        "x".repeat(20 * 1024)
    );
    let answer = exchange(relay.addr, big.as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.1 431"), "{answer:.80}");
    // A 1 MB request line, written while the server answers.
    let mut s = TcpStream::connect(relay.addr).await.expect("connect");
    let line = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(1 << 20));
    let (mut r, mut w) = s.split();
    let (_, answer) = tokio::join!(w.write_all(line.as_bytes()), async {
        let mut out = Vec::new();
        let _ = tokio::time::timeout(LIMIT, r.read_to_end(&mut out)).await;
        String::from_utf8_lossy(&out).into_owned()
    });
    assert!(
        answer.is_empty()
            || answer.starts_with("HTTP/1.1 431")
            || answer.starts_with("HTTP/1.1 414"),
        "{answer:.80}"
    );
    assert!(normal_gets(relay.addr, 5).await < LIMIT);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_requests_get_4xx_or_505_and_well_formed_ones_the_fine_points() {
    let relay = relay(WebOptions::default()).await;
    let a = relay.addr;
    let status = |answer: &str| answer.split(' ').nth(1).unwrap_or("").to_string();
    let bad_version = exchange(a, b"GET /games.pgn HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n").await;
    assert!(
        ["505", "400"].contains(&status(&bad_version).as_str()),
        "{bad_version}"
    );
    let no_version = exchange(a, b"GET /games.pgn\r\nHost: 127.0.0.1\r\n\r\n").await;
    assert_eq!(status(&no_version), "400", "{no_version}");
    let no_colon = exchange(a, b"GET /games.pgn HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n").await;
    assert_eq!(status(&no_colon), "400", "{no_colon}");
    // Bare line feeds are read as line ends.
    let bare_lf = exchange(
        a,
        b"GET /games.pgn HTTP/1.1\nHost: 127.0.0.1\nConnection: close\n\n",
    )
    .await;
    assert_eq!(status(&bare_lf), "200", "{bare_lf}");
    // HEAD: the GET's headers, no body.
    let head = exchange(
        a,
        b"HEAD /games.pgn HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(status(&head), "200", "{head}");
    assert!(head.ends_with("\r\n\r\n"), "no body: {head}");
    assert_eq!(
        header(&head, "content-length"),
        Some(GAMES.len().to_string().as_str())
    );
    let post = exchange(
        a,
        b"POST /games.pgn HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(status(&post), "405", "{post}");
    // A query string is not part of the path; board numbers are plain digits.
    assert_eq!(status(&get(a, "/games.pgn?x=1", "").await), "200");
    for odd in [
        "/board/+1.pgn",
        "/board/01.pgn",
        "/board/1.pgn.txt",
        "/board/2.pgn",
    ] {
        assert_eq!(status(&get(a, odd, "").await), "404", "{odd}");
    }
    let first = get(a, "/board/1.pgn", "").await;
    assert_eq!(status(&first), "200", "{first}");
    assert!(
        header(&first, "date").is_some_and(|d| d.ends_with(" GMT")),
        "{first}"
    );
    let etag = header(&first, "etag").expect("an ETag").to_string();
    let modified = header(&first, "last-modified")
        .expect("Last-Modified")
        .to_string();
    for matching in [
        etag.clone(),
        format!("W/{etag}"),
        "*".to_string(),
        format!("\"nope\", {etag}"),
    ] {
        let again = get(a, "/board/1.pgn", &format!("If-None-Match: {matching}\r\n")).await;
        assert_eq!(status(&again), "304", "If-None-Match: {matching}\n{again}");
        assert!(again.ends_with("\r\n\r\n"), "no body: {again}");
    }
    let other = get(a, "/board/1.pgn", "If-None-Match: \"nope\"\r\n").await;
    assert_eq!(status(&other), "200");
    let since = get(
        a,
        "/games.pgn",
        &format!("If-Modified-Since: {modified}\r\n"),
    )
    .await;
    assert_eq!(status(&since), "304", "{since}");
    // A new version is a new tag.
    relay
        .state
        .publish_pgn(vec![(0, "1. d4 *\n".to_string())], "1. d4 *\n".to_string());
    let changed = get(a, "/board/1.pgn", &format!("If-None-Match: {etag}\r\n")).await;
    assert_eq!(status(&changed), "200", "{changed}");
    assert!(changed.ends_with("1. d4 *\n"));
}

/// Opens `/events` with `extra` headers; the reader past the head.
async fn open_events(addr: SocketAddr, extra: &str) -> BufReader<TcpStream> {
    let mut s = TcpStream::connect(addr).await.expect("connect");
    let request = format!("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}\r\n");
    s.write_all(request.as_bytes()).await.expect("request");
    let mut r = BufReader::new(s);
    let mut line = String::new();
    r.read_line(&mut line).await.expect("status");
    assert_eq!(line, "HTTP/1.1 200 OK\r\n");
    while line != "\r\n" {
        line.clear();
        r.read_line(&mut line).await.expect("header");
    }
    r
}

/// The next SSE line starting with `prefix` (bounded by the limit).
async fn next_line(r: &mut BufReader<TcpStream>, prefix: &str) -> String {
    let wait = async {
        let mut line = String::new();
        loop {
            line.clear();
            let n = r.read_line(&mut line).await.expect("read");
            assert!(n > 0, "the stream ended");
            if line.starts_with(prefix) {
                return line.trim_end().to_string();
            }
        }
    };
    tokio::time::timeout(LIMIT, wait)
        .await
        .expect("within the limit")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_carry_ids_resume_after_last_event_id_and_keep_alive_when_quiet() {
    let options = WebOptions {
        idle_timeout: Duration::from_secs(2),
        ..WebOptions::default()
    };
    let relay = relay(options).await;
    for n in 1..=3 {
        relay.state.publish_event(format!("{{\"n\":{n}}}"));
    }
    // A new listener gets what comes from now on, numbered on.
    let mut fresh = open_events(relay.addr, "").await;
    relay.state.publish_event("{\"n\":4}".to_string());
    assert_eq!(next_line(&mut fresh, "id:").await, "id: 4");
    assert_eq!(next_line(&mut fresh, "data:").await, "data: {\"n\":4}");
    // One coming back after event 2 gets 3 and 4, then the new ones.
    let mut back = open_events(relay.addr, "Last-Event-ID: 2\r\n").await;
    assert_eq!(next_line(&mut back, "data:").await, "data: {\"n\":3}");
    assert_eq!(next_line(&mut back, "data:").await, "data: {\"n\":4}");
    relay.state.publish_event("{\"n\":5}".to_string());
    assert_eq!(next_line(&mut back, "id:").await, "id: 5");
    // Quiet: a comment every quarter of the idle timeout keeps it open past the timeout.
    let start = Instant::now();
    assert_eq!(next_line(&mut back, ":").await, ": keep-alive");
    while start.elapsed() < Duration::from_secs(3) {
        next_line(&mut back, ":").await;
    }
    relay.state.publish_event("{\"n\":6}".to_string());
    assert_eq!(next_line(&mut back, "data:").await, "data: {\"n\":6}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_streams_nobody_reads_are_closed_and_gets_go_on() {
    let options = WebOptions {
        idle_timeout: Duration::from_secs(1),
        ..WebOptions::default()
    };
    let relay = relay(options).await;
    let mut deaf = Vec::new();
    for _ in 0..200 {
        // A small receive window, as a stalled phone's: the server's writes stall soon.
        let socket = tokio::net::TcpSocket::new_v4().expect("socket");
        socket.set_recv_buffer_size(4096).expect("SO_RCVBUF");
        let mut s = socket.connect(relay.addr).await.expect("connect");
        s.write_all(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            .await
            .expect("request");
        // The answer's head says the stream is open; from then on, nothing is read.
        let mut head = Vec::new();
        while !head.ends_with(b"\r\n\r\n") {
            let mut byte = [0u8; 1];
            let read = tokio::time::timeout(LIMIT, s.read_exact(&mut byte)).await;
            assert!(matches!(read, Ok(Ok(1))), "the stream's head");
            head.push(byte[0]);
        }
        deaf.push(s);
    }
    // 256 KiB of events to each, unread.
    let line = format!("{{\"pad\":\"{}\"}}", "x".repeat(4 * 1024));
    for _ in 0..64 {
        relay.state.publish_event(line.clone());
    }
    let p99 = normal_gets(relay.addr, 50).await;
    eprintln!("200 SSE clients that never read: GET /games.pgn p99 {p99:?}");
    let closed = async {
        while relay.connections.open() > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(LIMIT, closed)
        .await
        .expect("the stalled streams are closed after the idle timeout");
    drop(deaf);
}

/// `eboardd run --relay-listen 0` under a descriptor limit of `nofile` (soft and hard), its
/// log in `log`; the child and the relay's address.
fn run_relay(dir: &std::path::Path, nofile: u64, log: &std::path::Path) -> (Child, SocketAddr) {
    use std::os::unix::process::CommandExt;
    let address = crate::daemon::support::start_bus(dir);
    let notify_path = dir.join("notify");
    let notify = std::os::unix::net::UnixDatagram::bind(&notify_path).expect("notify socket");
    notify.set_read_timeout(Some(LIMIT)).expect("timeout");
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_eboardd"));
    command
        .args([
            "run",
            "--bus-address",
            &address,
            "--relay-listen",
            "0",
            "--state-dir",
        ])
        .arg(dir.join("state"))
        .env("NOTIFY_SOCKET", &notify_path)
        .env("EBOARDD_LOG", "info")
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(log).expect("log file"));
    // SAFETY: setrlimit is async-signal-safe and touches nothing of the parent's.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: nofile as libc::rlim_t,
                rlim_max: nofile as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = Child(command.spawn().expect("spawn eboardd run"));
    let mut buf = [0u8; 512];
    let n = notify.recv(&mut buf).expect("READY from eboardd run");
    assert!(String::from_utf8_lossy(&buf[..n]).contains("READY=1"));
    let text = std::fs::read_to_string(log).expect("log");
    let text = without_colours(&text);
    let addr = text
        .lines()
        .find(|l| l.contains("relay listening"))
        .and_then(|l| l.split("addr=").nth(1))
        .and_then(|a| a.split_whitespace().next())
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("the relay's address in the log:\n{text}"));
    (child, addr)
}

/// `text` without terminal colour sequences.
fn without_colours(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\x1b') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        rest = rest.find('m').map_or("", |end| &rest[end + 1..]);
    }
    out.push_str(rest);
    out
}

/// Kills the child when the test ends.
struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn under_1024_descriptors_2000_connections_leave_the_relay_answering_and_the_log_small() {
    let limit = eboardd::web::raise_descriptor_limit().unwrap_or(u64::MAX);
    let attempts = 2000.min(usize::try_from(limit.saturating_sub(300)).unwrap_or(2000));
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("eboardd.log");
    let (daemon, addr) = run_relay(dir.path(), 1024, &log);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let mut held = Vec::new();
        let mut refused = 0;
        for _ in 0..attempts {
            match tokio::time::timeout(LIMIT, TcpStream::connect(addr)).await {
                Ok(Ok(s)) => held.push(s),
                _ => refused += 1,
            }
        }
        let p99 = normal_gets_of(addr, 50, "\r\n\r\n").await;
        eprintln!(
            "{attempts} connection attempts ({refused} not taken) under 1,024 descriptors: \
             GET /games.pgn p99 {p99:?}"
        );
        drop(held);
    });
    // The peak resident set of the daemon, from the kernel.
    let status =
        std::fs::read_to_string(format!("/proc/{}/status", daemon.0.id())).expect("/proc status");
    let peak_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmHWM");
    eprintln!("daemon peak RSS {peak_kb} kB");
    assert!(peak_kb < 64 * 1024, "peak RSS {peak_kb} kB");
    let size = std::fs::metadata(&log).map_or(0, |m| m.len());
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(size < 1 << 20, "the log grew to {size} bytes");
    let warnings = text.lines().filter(|l| l.contains("cannot accept")).count();
    assert!(warnings <= 1, "{warnings} accept warnings:\n{text}");
    drop(daemon);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_requests_are_answered_in_order_on_one_connection() {
    let relay = relay(WebOptions::default()).await;
    let one = "GET /board/1.pgn HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    let missing = "GET /board/2.pgn HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    let last = "HEAD /games.pgn HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    let answer = exchange(relay.addr, format!("{one}{missing}{one}{last}").as_bytes()).await;
    let statuses: Vec<&str> = answer
        .match_indices("HTTP/1.1 ")
        .map(|(at, _)| &answer[at + 9..at + 12])
        .collect();
    assert_eq!(statuses, ["200", "404", "200", "200"], "{answer}");
    assert_eq!(answer.matches(GAMES).count(), 2, "{answer}");
}
