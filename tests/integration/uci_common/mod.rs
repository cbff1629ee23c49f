//! A UCI client for tests: runs `eboardd uci`, writes the GUI's lines and waits, with
//! bounded timeouts, for the engine's.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// `eboardd uci` as a GUI sees it.
pub struct Gui {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every line the engine wrote, in order.
    pub transcript: Vec<String>,
}

impl Gui {
    /// Starts `eboardd uci` with these arguments.
    pub fn start(args: &[&str]) -> Gui {
        let mut child = Command::new(env!("CARGO_BIN_EXE_eboardd"))
            .arg("uci")
            .env(
                "EBOARDD_LOG",
                std::env::var("EBOARDD_TEST_LOG").unwrap_or_else(|_| "warn".into()),
            )
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start eboardd uci");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Gui {
            stdin: child.stdin.take(),
            child,
            lines: rx,
            transcript: Vec::new(),
        }
    }

    /// Writes one line to the engine.
    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write to the engine");
        stdin.flush().expect("flush");
    }

    /// Writes raw bytes to the engine (not necessarily text, not necessarily a line).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to the engine");
        stdin.flush().expect("flush");
    }

    /// Closes the engine's input.
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// The next line within `limit`, or `None`.
    pub fn next_line(&mut self, limit: Duration) -> Option<String> {
        match self.lines.recv_timeout(limit) {
            Ok(line) => {
                self.transcript.push(line.clone());
                Some(line)
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Waits up to `limit` for a line that is not an `info string`; panics on none.
    pub fn expect_protocol(&mut self, limit: Duration) -> String {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Some(l) if l.starts_with("info string") => continue,
                Some(l) => return l,
                None => panic!(
                    "no answer within {limit:?}; the engine said:\n{}",
                    self.transcript.join("\n")
                ),
            }
        }
    }

    /// Waits up to `limit` for a line for which `wanted` holds, skipping others.
    pub fn wait_for(&mut self, limit: Duration, wanted: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Some(l) if wanted(&l) => return l,
                Some(_) => continue,
                None => panic!(
                    "the line waited for did not come within {limit:?}; the engine said:\n{}",
                    self.transcript.join("\n")
                ),
            }
        }
    }

    /// Whether a line for which `wanted` holds was heard already.
    pub fn heard(&self, wanted: impl Fn(&str) -> bool) -> bool {
        self.transcript.iter().any(|l| wanted(l))
    }

    /// The first line, already heard or arriving within `limit`, for which `wanted` holds;
    /// panics on none. For `info string`s, which may come before a `readyok` that
    /// [`Gui::expect_protocol`] skipped them to reach.
    pub fn heard_or_wait_for(&mut self, limit: Duration, wanted: impl Fn(&str) -> bool) -> String {
        match self.transcript.iter().find(|l| wanted(l)) {
            Some(l) => l.clone(),
            None => self.wait_for(limit, wanted),
        }
    }

    /// Every line that arrives within `span`.
    pub fn drain_for(&mut self, span: Duration) -> Vec<String> {
        let deadline = Instant::now() + span;
        let mut out = Vec::new();
        while let Some(l) = self.next_line(deadline.saturating_duration_since(Instant::now())) {
            out.push(l);
        }
        out
    }

    /// `uci` … `uciok`, then `isready` … `readyok`.
    pub fn handshake(&mut self) {
        self.send("uci");
        self.wait_for(Duration::from_secs(5), |l| l == "uciok");
        self.send("isready");
        assert_eq!(self.expect_protocol(Duration::from_secs(5)), "readyok");
    }

    /// Waits up to `limit` for the process to end; its exit status code.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<i32> {
        let deadline = Instant::now() + limit;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Gui {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Starts an in-process D-Bus broker (busd) on a socket under `dir`; returns its address.
pub fn start_bus(dir: &std::path::Path) -> String {
    let socket = dir.join("bus");
    let address = format!("unix:path={}", socket.display());
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        zruntime::block_on(async move {
            let mut bus = match busd::bus::Bus::for_address(Some(&address)).await {
                Ok(b) => b,
                Err(e) => {
                    let _ = tx.send(Err(e.to_string()));
                    return;
                }
            };
            let _ = tx.send(Ok(bus.address().to_string()));
            if let Err(e) = bus.run().await {
                eprintln!("test bus stopped: {e}");
            }
        })
    });
    rx.recv_timeout(Duration::from_secs(10))
        .expect("the bus starts")
        .expect("the bus listens")
}
