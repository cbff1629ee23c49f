//! A played-back board on a pseudo-terminal, reached through a symlink.
//!
//! [`serve`] makes a pseudo-terminal pair, points `link` at its slave end (a host opens
//! that path as it would `/dev/ttyUSB0`), and runs a [`TraceBoard`] on the master end in
//! wall time until the recording is played and `linger` has passed, or `stop` is set. It
//! blocks: run it on a thread of its own (or as the whole of a small program).

use std::io::{self, ErrorKind, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serialport::{SerialPort, TTYPort};

use super::TraceBoard;
use eboardd_core::time::Time;

/// The longest the loop waits for the host before looking at the recording again.
const POLL: Duration = Duration::from_millis(5);

/// A pseudo-terminal whose slave end `link` points at.
pub struct Pty {
    master: TTYPort,
    // Kept open so that the pseudo-terminal stays usable while hosts open and close it.
    _slave: TTYPort,
}

impl Pty {
    /// Makes the pair and the symlink (replacing whatever `link` was).
    pub fn open(link: &Path) -> io::Result<Pty> {
        let (master, slave) = TTYPort::pair().map_err(io::Error::from)?;
        let name = slave
            .name()
            .ok_or_else(|| io::Error::other("the pseudo-terminal has no name"))?;
        match std::fs::remove_file(link) {
            Err(e) if e.kind() != ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        std::os::unix::fs::symlink(&name, link)?;
        Ok(Pty {
            master,
            _slave: slave,
        })
    }
}

/// Plays `board` on `pty` until the recording is over and `linger` has passed, or `stop`
/// is set. Bytes the host does not read in time are dropped, as on a line.
pub fn serve(
    pty: &mut Pty,
    board: &mut TraceBoard,
    linger: Duration,
    stop: &AtomicBool,
) -> io::Result<()> {
    let origin = Instant::now();
    let now = || Time::from_micros(u64::try_from(origin.elapsed().as_micros()).unwrap_or(0));
    let mut finished_at: Option<Instant> = None;
    let mut buf = [0u8; 512];
    while !stop.load(Ordering::Relaxed) {
        board.handle_timeout(now());
        while let Some(bytes) = board.poll_transmit() {
            pty.master.set_timeout(Duration::from_millis(50))?;
            match pty.master.write_all(&bytes) {
                Err(e) if !matches!(e.kind(), ErrorKind::TimedOut | ErrorKind::Interrupted) => {
                    return Err(e);
                }
                _ => {}
            }
        }
        if board.finished() {
            let at = *finished_at.get_or_insert_with(Instant::now);
            if at.elapsed() >= linger {
                return Ok(());
            }
        }
        let wait = board
            .poll_timeout()
            .map_or(POLL, |due| {
                Duration::from_micros(due.saturating_since(now()).as_micros() as u64)
            })
            .clamp(Duration::from_micros(200), POLL);
        pty.master.set_timeout(wait)?;
        match pty.master.read(&mut buf) {
            Ok(n) if n > 0 => board.handle_host_bytes(now(), &buf[..n]),
            Ok(_) => {}
            // A signal (the one that asks us to stop, say) cut the wait short.
            Err(e) if matches!(e.kind(), ErrorKind::TimedOut | ErrorKind::Interrupted) => {}
            // No host has the port open right now.
            Err(e) if e.raw_os_error() == Some(5) || e.kind() == ErrorKind::BrokenPipe => {
                std::thread::sleep(wait)
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
