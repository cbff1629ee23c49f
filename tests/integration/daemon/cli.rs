//! `eboardd run` and `eboardd watch` as processes on a private bus.

use std::io::{BufRead, BufReader};
use std::os::unix::net::UnixDatagram;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use eboardd::dbus::board_path;

use crate::daemon::pty_board::PtyBoard;
use crate::daemon::support::*;

/// Kills the child if the test fails before it is stopped.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn dgt_start_dump() -> Vec<u8> {
    let mut d = vec![0x86, 0x00, 0x43];
    d.extend([0x08, 0x09, 0x0a, 0x0c, 0x0b, 0x0a, 0x09, 0x08]);
    d.extend([0x07; 8]);
    d.extend([0x00; 32]);
    d.extend([0x01; 8]);
    d.extend([0x02, 0x03, 0x04, 0x06, 0x05, 0x04, 0x03, 0x02]);
    d
}

fn lines_of(child: &mut Child) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    if let Some(out) = child.stdout.take() {
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
    }
    rx
}

#[test]
fn run_probes_a_dgt_board_notifies_systemd_pings_the_watchdog_and_watch_prints_its_events() {
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let link = board_link(dir.path(), "dgt0");
    let mut board = PtyBoard::plug(&link);
    let notify_path = dir.path().join("notify");
    let notify = UnixDatagram::bind(&notify_path).expect("notify socket");
    notify.set_read_timeout(Some(LIMIT)).expect("timeout");
    let state = dir.path().join("state");

    let daemon = Command::new(env!("CARGO_BIN_EXE_eboardd"))
        .args(["run", "--bus-address", &address, "--state-dir"])
        .arg(&state)
        .arg("--device")
        .arg(&link)
        .env("NOTIFY_SOCKET", &notify_path)
        .env("WATCHDOG_USEC", "400000")
        .env("EBOARDD_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn eboardd run");
    let mut daemon = Guard(daemon);

    let mut buf = [0u8; 512];
    let n = notify
        .recv(&mut buf)
        .expect("a notification from eboardd run");
    let ready = String::from_utf8_lossy(&buf[..n]).to_string();
    assert!(ready.contains("READY=1"), "{ready}");
    assert!(ready.contains("STATUS="), "{ready}");
    let n = notify.recv(&mut buf).expect("a watchdog ping");
    let ping = String::from_utf8_lossy(&buf[..n]).to_string();
    assert_eq!(ping.trim(), "WATCHDOG=1");

    // The probe: reset and board request, answered with a board dump; then the start-up.
    board.wait_for(LIMIT, |b| b.windows(2).any(|w| w == [0x40, 0x42]));
    board.send_bytes(&dgt_start_dump());
    // The codec's start-up, its clock command sent apart (clock commands go one at a time).
    let (clock, startup): (Vec<Vec<u8>>, Vec<Vec<u8>>) = eboardd::protocol::dgt::startup_commands()
        .into_iter()
        .partition(|c| c.first() == Some(&0x2b));
    let startup = startup.concat();
    board.wait_for(LIMIT, |b| {
        b.windows(startup.len()).any(|w| w == startup.as_slice())
            && b.windows(5).any(|w| w == clock[0].as_slice())
    });

    let watch = Command::new(env!("CARGO_BIN_EXE_eboardd"))
        .args(["watch", "--bus-address", &address, "--board", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn eboardd watch");
    let mut watch = Guard(watch);
    let lines = lines_of(&mut watch.0);

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let conn = rt.block_on(client(&address));
    let proxy = rt.block_on(async { board_proxy(&conn, board_path(0)).await });
    assert_eq!(rt.block_on(proxy.protocol()).expect("Protocol"), "dgt");
    // Until watch has subscribed, events pass it by: start games until it prints one.
    let deadline = Instant::now() + LIMIT;
    let line = loop {
        assert!(Instant::now() < deadline, "watch printed nothing");
        rt.block_on(proxy.new_game("")).expect("NewGame");
        if let Ok(line) = lines.recv_timeout(Duration::from_millis(200)) {
            break line;
        }
    };
    let event: serde_json::Value = serde_json::from_str(&line).expect("a JSON line");
    assert_eq!(event["event"], "new_game");
    assert_eq!(
        event["fen"],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );

    // SIGTERM: a clean stop, and the game is in the journal.
    let pid = daemon.0.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status();
    assert!(killed.is_ok_and(|s| s.success()));
    let deadline = Instant::now() + LIMIT;
    let status = loop {
        if let Some(status) = daemon.0.try_wait().expect("wait") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "eboardd run did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    let journal = std::fs::read_dir(state.join("journal"))
        .expect("journal dir")
        .filter_map(Result::ok)
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect::<String>();
    assert!(journal.contains("\"event\":\"new_game\""), "{journal}");
}

#[test]
fn run_with_a_missing_config_file_exits_2_naming_it() {
    let out = Command::new(env!("CARGO_BIN_EXE_eboardd"))
        .args(["run", "--config", "/nonexistent/eboardd.toml"])
        .output()
        .expect("run eboardd");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/eboardd.toml"), "{err}");
}

#[test]
fn run_with_an_unknown_config_key_exits_2_naming_the_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config.toml");
    std::fs::write(
        &path,
        "[daemon]\nlaws = \"fide-2023\"\nstate_dir = \"/tmp\"\n",
    )
    .expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_eboardd"))
        .args(["run", "--config"])
        .arg(&path)
        .output()
        .expect("run eboardd");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 3"), "{err}");
    assert!(err.contains("state_dir"), "{err}");
}

#[test]
fn watch_without_a_running_daemon_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let out = Command::new(env!("CARGO_BIN_EXE_eboardd"))
        .args(["watch", "--bus-address", &address])
        .output()
        .expect("run eboardd watch");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not running"), "{err}");
}

#[test]
fn list_says_which_port_has_a_board_and_which_has_none() {
    let dir = tempfile::tempdir().expect("tempdir");
    let link = board_link(dir.path(), "dgt0");
    let silent = board_link(dir.path(), "silent");
    let mut board = PtyBoard::plug(&link);
    let _silent = PtyBoard::plug(&silent);
    let list = Command::new(env!("CARGO_BIN_EXE_eboardd"))
        .arg("list")
        .arg(&link)
        .arg(&silent)
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn eboardd list");
    board.wait_for(LIMIT, |b| b.windows(2).any(|w| w == [0x40, 0x42]));
    board.send_bytes(&dgt_start_dump());
    let out = list.wait_with_output().expect("list ends");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("{}\tdgt board", link.display())),
        "{text}"
    );
    assert!(
        text.contains(&format!("{}\tno board", silent.display())),
        "{text}"
    );
}

/// A lichess stand-in on 127.0.0.1 (one thread): every push's Authorization header and body
/// on the channel, each answered 200.
fn push_server() -> (String, mpsc::Receiver<(Option<String>, String)>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            let (head, length) = loop {
                if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&buf[..i + 4]).into_owned();
                    let length = head
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                        })
                        .unwrap_or(0);
                    break (head, length);
                }
                match stream.read(&mut chunk) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            };
            let start = head.len();
            while buf.len() < start + length {
                match stream.read(&mut chunk) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            }
            let auth = head.lines().find_map(|l| {
                l.strip_prefix("authorization: ")
                    .or_else(|| l.strip_prefix("Authorization: "))
                    .map(str::to_string)
            });
            let body = String::from_utf8_lossy(&buf[start..start + length]).into_owned();
            let reply = "{\"games\":[]}";
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{reply}",
                reply.len()
            );
            if tx.send((auth, body)).is_err() {
                break;
            }
        }
    });
    (base, rx)
}

#[test]
fn run_pushes_the_rounds_games_to_lichess_with_the_token_from_its_file() {
    use eboardd::protocol::Protocol;
    use eboardd::sim::HandOptions;
    use eboardd::sim::device::BoardOptions;
    use eboardd::sim::live::LiveBoard;

    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let token = "lip_CliTestToken_0123456789";
    let token_file = dir.path().join("lichess.token");
    std::fs::write(&token_file, format!("{token}\n")).expect("token file");
    let (base, pushes) = push_server();
    let options = BoardOptions {
        clock: false,
        ..BoardOptions::default()
    };
    let mut board = LiveBoard::start(
        Protocol::Dgt,
        &options,
        &shakmaty::Chess::default(),
        5,
        HandOptions::plain(),
        4.0,
    )
    .expect("an emulated board");
    let daemon = Command::new(env!("CARGO_BIN_EXE_eboardd"))
        .args(["run", "--bus-address", &address, "--state-dir"])
        .arg(dir.path().join("state"))
        .args([
            "--device",
            board.path(),
            "--round",
            "2",
            "--event",
            "Club Open",
        ])
        .args(["--lichess-round", "abcd1234", "--lichess-url", &base])
        .arg("--lichess-token-file")
        .arg(&token_file)
        .env("EBOARDD_LOG", "trace")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn eboardd run");
    let mut daemon = Guard(daemon);
    let stderr = daemon.0.stderr.take().expect("stderr");
    let log = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut BufReader::new(stderr), &mut text);
        text
    });

    let deadline = Instant::now() + LIMIT;
    let next = |what: &str| {
        let left = deadline.saturating_duration_since(Instant::now());
        pushes
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("{what}: no push within the limit"))
    };
    // The game starts when the daemon sees the start position: pushed at once.
    let (auth, first) = next("the new game");
    assert_eq!(auth.as_deref(), Some(format!("Bearer {token}").as_str()));
    assert!(first.contains("[Event \"Club Open\"]\n"), "{first}");
    assert!(first.contains("[Round \"2.1\"]\n"), "{first}");
    let m = shakmaty::uci::UciMove::from_ascii(b"e2e4")
        .expect("uci")
        .to_move(board.position())
        .expect("legal");
    board.play(m).expect("the hand plays");
    let body = loop {
        let (_, body) = next("the move");
        if body.contains("1. e4 *") {
            break body;
        }
    };
    assert!(body.ends_with("\n\n1. e4 *\n"), "{body}");

    let pid = daemon.0.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status();
    assert!(killed.is_ok_and(|s| s.success()));
    let _ = daemon.0.wait();
    let log = log.join().expect("the log");
    assert!(log.contains("pushing the round's PGN to lichess"), "{log}");
    assert!(
        !log.contains(token),
        "the token is in the daemon's log:\n{log}"
    );
    drop(board);
}

#[test]
fn run_with_a_missing_or_empty_lichess_token_file_exits_2_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("no.token");
    let run = |file: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_eboardd"))
            .args(["run", "--lichess-round", "abcd1234", "--lichess-token-file"])
            .arg(file)
            .arg("--state-dir")
            .arg(dir.path().join("state"))
            .output()
            .expect("run eboardd")
    };
    let out = run(&missing);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "cannot read the lichess token file {}",
            missing.display()
        )),
        "{err}"
    );
    let empty = dir.path().join("empty.token");
    std::fs::write(&empty, "\n").expect("write");
    let out = run(&empty);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is empty"), "{err}");
    // A round needs a token file.
    let out = Command::new(env!("CARGO_BIN_EXE_eboardd"))
        .args(["run", "--lichess-round", "abcd1234"])
        .output()
        .expect("run eboardd");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--lichess-token-file"), "{err}");
}
