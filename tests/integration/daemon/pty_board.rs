//! A board on a pseudo-terminal, reached by the daemon through a symlink (as through
//! `/dev/serial/by-id/…`), so that it can be unplugged and plugged back on the same path.

use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serialport::{SerialPort, TTYPort};

pub struct PtyBoard {
    master: TTYPort,
    link: PathBuf,
    received: Vec<u8>,
}

impl PtyBoard {
    /// Plugs a new board in at `link`.
    pub fn plug(link: &Path) -> PtyBoard {
        let (mut master, slave) = TTYPort::pair().expect("a pty pair");
        master
            .set_timeout(Duration::from_millis(20))
            .expect("pty timeout");
        let name = slave.name().expect("pty name");
        drop(slave);
        let _ = std::fs::remove_file(link);
        std::os::unix::fs::symlink(&name, link).expect("symlink to the pty");
        PtyBoard {
            master,
            link: link.to_path_buf(),
            received: Vec::new(),
        }
    }

    /// Pulls the plug: the daemon's end hangs up and the node is gone.
    pub fn unplug(self) {
        let _ = std::fs::remove_file(&self.link);
        drop(self.master);
    }

    /// Sends one line to the host.
    pub fn send(&mut self, line: &str) {
        self.master
            .write_all(format!("{line}\n").as_bytes())
            .expect("write to the host");
        self.master.flush().expect("flush");
    }

    /// Sends raw bytes to the host.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        self.master.write_all(bytes).expect("write to the host");
        self.master.flush().expect("flush");
    }

    /// Waits until the host has written something that satisfies `done`; returns all the
    /// bytes received so far (they stay received).
    pub fn wait_for(&mut self, limit: Duration, done: impl Fn(&[u8]) -> bool) -> Vec<u8> {
        let deadline = Instant::now() + limit;
        let mut buf = [0u8; 256];
        while !done(&self.received) {
            assert!(
                Instant::now() < deadline,
                "the host did not write what was expected; it wrote {:?}",
                String::from_utf8_lossy(&self.received)
            );
            match self.master.read(&mut buf) {
                Ok(n) => self.received.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == ErrorKind::TimedOut => {}
                // Nobody has the other end open yet: the daemon is still to (re)open it.
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
        self.received.clone()
    }

    /// Waits for the host to write the line `line`, and forgets what came before it.
    pub fn expect_line(&mut self, line: &str, limit: Duration) {
        let want = format!("{line}\n");
        let found = |b: &[u8]| b.windows(want.len()).any(|w| w == want.as_bytes());
        self.wait_for(limit, found);
        if let Some(i) = self
            .received
            .windows(want.len())
            .position(|w| w == want.as_bytes())
        {
            self.received.drain(..i + want.len());
        }
    }

    /// What the host wrote and was not yet consumed.
    pub fn pending(&mut self) -> Vec<u8> {
        let mut buf = [0u8; 256];
        if let Ok(n) = self.master.read(&mut buf) {
            self.received.extend_from_slice(&buf[..n]);
        }
        self.received.clone()
    }
}
