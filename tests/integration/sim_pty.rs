//! An emulated board on a pseudo-terminal answers a host and plays a game.

use std::io::{Read, Write};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use eboardd::protocol::Protocol;
use eboardd::protocol::millennium::{Decoded, Decoder, Reply, startup_commands};
use eboardd::sim::device::EmulatedBoard;
use eboardd::sim::games::drills;
use eboardd::sim::pty::PtyBoard;
use eboardd::sim::{Hand, HandOptions};
use eboardd::time::Time;
use shakmaty::{Board, Position};

#[test]
fn a_millennium_board_on_a_pty_answers_the_host_and_plays_the_game() {
    let game = &drills()[0]; // en passant by both sides
    let perf = Hand::new(3, HandOptions::default().with_speed(3.0))
        .play(game)
        .expect("plays");
    let until = perf.timeline.end() + Duration::from_millis(800);
    let board = EmulatedBoard::new(Protocol::Millennium, &perf.timeline.start, 3);
    let speed = 40.0;
    let mut pty = PtyBoard::open(board, speed).expect("pty");
    let path = pty.path().to_string();
    let timeline = perf.timeline.clone();
    let stop = AtomicBool::new(false);
    let mut host = serialport::new(&path, 38400)
        .timeout(Duration::from_millis(20))
        .open_native()
        .expect("open the board's port");
    let mut received = Vec::new();
    std::thread::scope(|s| {
        let runner = s.spawn(|| pty.run(&timeline, until, &stop));
        for c in startup_commands() {
            host.write_all(&c).expect("write");
        }
        let wall = Duration::from_secs_f64(until.as_micros() as f64 / 1e6 / speed);
        let start = Instant::now();
        let mut buf = [0u8; 256];
        while start.elapsed() < wall + Duration::from_millis(200) {
            match host.read(&mut buf) {
                Ok(n) => received.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                Err(e) => panic!("read: {e}"),
            }
        }
        let stats = runner.join().expect("runner").expect("runs");
        assert!(stats.host_bytes > 0 && stats.board_bytes > 0);
        assert!(stats.reached >= until.min(Time::from_millis(1)));
    });
    let mut decoder = Decoder::new();
    decoder.push_bytes(&received);
    let mut replies = Vec::new();
    while let Some(d) = decoder.poll() {
        match d {
            Decoded::Reply(r) => replies.push(r),
            Decoded::Skipped { bytes, reason } => panic!("skipped {bytes}: {reason}"),
        }
    }
    assert!(
        matches!(replies.first(), Some(Reply::Version(_))),
        "{replies:?}"
    );
    assert_eq!(
        replies
            .iter()
            .filter(|r| matches!(r, Reply::Write { .. }))
            .count(),
        4
    );
    let last = replies
        .iter()
        .rev()
        .find_map(|r| match r {
            Reply::Status(chars) => Some(chars.clone()),
            _ => None,
        })
        .expect("a status frame");
    let seen: Board = eboardd::protocol::millennium::board_from_status(&last, Default::default())
        .expect("a valid frame");
    let end = game.positions().last().expect("positions").board().clone();
    assert_eq!(seen, end);
}

#[test]
fn a_dgt_board_on_a_pty_answers_the_host_and_plays_the_game() {
    use eboardd::protocol::dgt;
    let game = &drills()[3]; // castling on both wings
    let perf = Hand::new(5, HandOptions::default().with_speed(3.0))
        .play(game)
        .expect("plays");
    let until = perf.timeline.end() + Duration::from_millis(800);
    let board = EmulatedBoard::new(Protocol::Dgt, &perf.timeline.start, 5);
    let speed = 40.0;
    let mut pty = PtyBoard::open(board, speed).expect("pty");
    let path = pty.path().to_string();
    let timeline = perf.timeline.clone();
    let stop = AtomicBool::new(false);
    let mut host = serialport::new(&path, 9600)
        .timeout(Duration::from_millis(20))
        .open_native()
        .expect("open the board's port");
    let mut received = Vec::new();
    std::thread::scope(|s| {
        let runner = s.spawn(|| pty.run(&timeline, until, &stop));
        for c in dgt::startup_commands() {
            host.write_all(&c).expect("write");
        }
        let wall = Duration::from_secs_f64(until.as_micros() as f64 / 1e6 / speed);
        let start = Instant::now();
        let mut buf = [0u8; 256];
        while start.elapsed() < wall + Duration::from_millis(200) {
            match host.read(&mut buf) {
                Ok(n) => received.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                Err(e) => panic!("read: {e}"),
            }
        }
        runner.join().expect("runner").expect("runs");
    });
    let mut decoder = dgt::Decoder::new();
    decoder.push_bytes(&received);
    let mut pieces = [None; 64];
    let mut dumped = false;
    while let Some(d) = decoder.poll() {
        match d {
            dgt::Decoded::Message(dgt::BoardMessage::BoardDump(codes)) => {
                pieces = codes.map(dgt::piece_from_code);
                dumped = true;
            }
            dgt::Decoded::Message(dgt::BoardMessage::FieldUpdate { field, code }) => {
                pieces[usize::from(field)] = dgt::piece_from_code(code);
            }
            dgt::Decoded::Message(_) => {}
            dgt::Decoded::Skipped { bytes, reason } => panic!("skipped {bytes}: {reason}"),
        }
    }
    assert!(dumped);
    let mut seen = Board::empty();
    for (field, p) in pieces.iter().enumerate() {
        if let Some(p) = p {
            seen.set_piece_at(dgt::field_square(field as u8), *p);
        }
    }
    let end = game.positions().last().expect("positions").board().clone();
    assert_eq!(seen, end);
}

/// Reads from `port` until a byte `want` has come, or `limit` has passed.
fn read_until_byte(port: &mut dyn serialport::SerialPort, want: u8, limit: Duration) -> Vec<u8> {
    let start = Instant::now();
    let mut seen = Vec::new();
    let mut buf = [0u8; 256];
    while start.elapsed() < limit && !seen.contains(&want) {
        match port.read(&mut buf) {
            Ok(n) => seen.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(e) => panic!("reading the emulated board: {e}"),
        }
    }
    seen
}

/// `eboardd emulate ARGS` with standard input closed, the device it offers (from its first
/// line), and a host port open on it. The reader of its standard output is kept so that
/// the emulator can go on writing there.
fn start_emulate(
    args: &[&str],
    stderr: std::process::Stdio,
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStdout>,
    String,
    Box<dyn serialport::SerialPort>,
) {
    use std::io::BufRead;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_eboardd"))
        .arg("emulate")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("spawn eboardd emulate");
    let mut out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    out.read_line(&mut first).expect("first line");
    let path = first
        .trim()
        .strip_prefix("device ")
        .unwrap_or_else(|| panic!("no device line: {first:?}"))
        .to_string();
    let host = serialport::new(&path, 9600)
        .timeout(Duration::from_millis(50))
        .open()
        .expect("open the emulated board");
    (child, out, path, host)
}

/// Sends SIGTERM to `child` and waits for it to end.
fn terminate(child: &mut std::process::Child) -> std::process::ExitStatus {
    let pid = i32::try_from(child.id()).expect("pid");
    // SAFETY: kill(2) on our own child's pid, with a valid signal number.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    child.wait().expect("wait")
}

#[test]
fn emulate_with_no_standard_input_serves_its_board_until_signalled() {
    let (mut child, _out, path, mut host) = start_emulate(
        &["--protocol", "dgt", "--side", "none"],
        std::process::Stdio::null(),
    );
    // Standard input ended before the board was offered; the board still answers: a board
    // request (0x42) gets the board dump (0x86).
    for _ in 0..2 {
        host.write_all(&[0x42]).expect("ask for the board");
        let seen = read_until_byte(host.as_mut(), 0x86, Duration::from_secs(10));
        assert!(seen.contains(&0x86), "no board dump: {seen:02x?}");
    }
    assert!(child.try_wait().expect("try_wait").is_none(), "it ended");
    // SIGTERM ends it, cleanly, and the device it offered is gone.
    let status = terminate(&mut child);
    assert!(status.success(), "{status}");
    assert!(!std::path::Path::new(&path).exists(), "{path} left behind");
}

#[test]
fn a_replaying_emulator_ends_on_sigterm_quietly_while_a_host_reads_it() {
    use std::io::Read;
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/traces/dgt-opening.trace"
    );
    for _ in 0..5 {
        let (mut child, _out, _path, mut host) =
            start_emulate(&["--trace", trace], std::process::Stdio::piped());
        host.write_all(&[0x42]).expect("ask for the board");
        let _ = read_until_byte(host.as_mut(), 0x86, Duration::from_secs(5));
        // The signal comes while the board waits for the host's bytes.
        let status = terminate(&mut child);
        let mut said = String::new();
        child
            .stderr
            .take()
            .expect("stderr")
            .read_to_string(&mut said)
            .expect("stderr");
        assert!(status.success(), "{status}: {said}");
        assert!(!said.contains("Interrupted"), "{said}");
    }
}
