//! `eboardd record` on a real pseudo-terminal: the test plays the board on the other end.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serialport::{SerialPort, TTYPort};

const START_DUMP: [u8; 67] = {
    let mut d = [0u8; 67];
    d[0] = 0x86;
    d[1] = 0x00;
    d[2] = 0x43;
    let back = [0x08, 0x09, 0x0a, 0x0c, 0x0b, 0x0a, 0x09, 0x08];
    let white = [0x02, 0x03, 0x04, 0x06, 0x05, 0x04, 0x03, 0x02];
    let mut i = 0;
    while i < 8 {
        d[3 + i] = back[i];
        d[3 + 8 + i] = 0x07;
        d[3 + 48 + i] = 0x01;
        d[3 + 56 + i] = white[i];
        i += 1;
    }
    d
};

/// Reads from the board's end until `want` has been seen or the time is up.
fn read_until(master: &mut TTYPort, want: u8, limit: Duration) -> Vec<u8> {
    let mut seen = Vec::new();
    let start = Instant::now();
    let mut buf = [0u8; 64];
    while start.elapsed() < limit && !seen.contains(&want) {
        match master.read(&mut buf) {
            Ok(n) => seen.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(e) => panic!("reading the host's commands: {e}"),
        }
    }
    seen
}

#[test]
fn record_writes_a_trace_of_a_dgt_board_on_a_pty() {
    let (mut master, slave) = TTYPort::pair().expect("pty pair");
    master
        .set_timeout(Duration::from_millis(50))
        .expect("timeout");
    let slave_path = slave.name().expect("pty name");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("board.trace");

    let child = Command::new(env!("CARGO_BIN_EXE_eboardd"))
        .args([
            "record",
            "--device",
            &slave_path,
            "--protocol",
            "dgt",
            "--seconds",
            "3",
        ])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn eboardd record");

    // The host asks for the board (0x42); answer with the start position, then a move.
    let commands = read_until(&mut master, 0x42, Duration::from_secs(5));
    assert!(
        commands.contains(&0x42),
        "no board request: {commands:02x?}"
    );
    master.write_all(&START_DUMP).expect("write dump");
    master
        .write_all(&[0x8e, 0x00, 0x05, 0x34, 0x00])
        .expect("write update");
    master.flush().expect("flush");

    let output = child.wait_with_output().expect("wait");
    drop(slave);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        printed.contains("board_dump rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"),
        "{printed}"
    );
    assert!(printed.contains("change e2 empty"), "{printed}");

    let trace = eboardd::trace::read_trace_file(&out).expect("the trace reads back");
    assert_eq!(trace.header.protocol, eboardd::protocol::Protocol::Dgt);
    let written: Vec<u8> = trace
        .chunks
        .iter()
        .filter(|c| c.dir == eboardd::trace::Direction::ToBoard)
        .flat_map(|c| c.bytes.clone())
        .collect();
    assert!(written.contains(&0x42), "{written:02x?}");
    // The host's commands are paced for the board's 10-byte command buffer: the first
    // 300 ms or more after the port was opened, each next one 90 ms or more later.
    let host: Vec<_> = trace
        .chunks
        .iter()
        .filter(|c| c.dir == eboardd::trace::Direction::ToBoard)
        .collect();
    assert!(host.len() >= 5, "the whole start-up: {host:02x?}");
    assert!(
        host[0].t >= eboardd::time::Time::from_millis(300),
        "first command at {}",
        host[0].t
    );
    for pair in host.windows(2) {
        let gap = pair[1].t.as_micros() - pair[0].t.as_micros();
        assert!(
            gap >= 90_000,
            "{:02x?} then {:02x?}: {gap} µs apart",
            pair[0].bytes,
            pair[1].bytes
        );
    }
    let read: Vec<u8> = trace.from_board().flat_map(|c| c.bytes.clone()).collect();
    assert_eq!(&read[..67], &START_DUMP[..]);
    assert_eq!(&read[67..], &[0x8e, 0x00, 0x05, 0x34, 0x00]);
}
