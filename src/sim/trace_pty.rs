//! A recorded board on a pseudo-terminal: a trace's board bytes played back to a host.
//!
//! [`TracePty`] replays what a board sent in a recording (`<` chunks of a trace) at the
//! times they were sent, `speed` times faster, to whatever host opens [`TracePty::path`].
//! The recording's clock starts when the host first writes (a host's start-up is what the
//! board answered in the recording); what the host writes later is read and dropped. It is
//! a board that cannot be told anything: the bytes are the recording's, whatever the host
//! asks. Like [`super::pty`], it touches a clock and a file descriptor and blocks its
//! thread.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serialport::{SerialPort, TTYPort};

use super::pty::RunStats;
use crate::time::Time;
use crate::trace::{Direction, Trace};

/// The longest the loop waits for the host before looking at the clock again.
const POLL: Duration = Duration::from_millis(5);

/// A pseudo-terminal that plays a trace's board bytes.
#[derive(Debug)]
pub struct TracePty {
    master: TTYPort,
    // Kept open so that the pseudo-terminal stays usable while hosts open and close it.
    _slave: TTYPort,
    path: String,
}

impl TracePty {
    /// A new pseudo-terminal pair.
    pub fn open() -> io::Result<TracePty> {
        let (master, slave) = TTYPort::pair().map_err(io::Error::from)?;
        let path = slave
            .name()
            .ok_or_else(|| io::Error::other("the pseudo-terminal has no name"))?;
        Ok(TracePty {
            master,
            _slave: slave,
            path,
        })
    }

    /// The path a host opens (`/dev/pts/N`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Waits for the host's first bytes, then plays the board's chunks of `trace` at their
    /// times, `speed` times faster, until the last is sent or `stop` is set.
    pub fn run(&mut self, trace: &Trace, speed: f64, stop: &AtomicBool) -> io::Result<RunStats> {
        let speed = if speed.is_finite() && speed > 0.0 {
            speed
        } else {
            1.0
        };
        let mut stats = RunStats::default();
        let mut buf = [0u8; 512];
        self.master.set_timeout(POLL).map_err(io::Error::from)?;
        let origin = loop {
            if stop.load(Ordering::Relaxed) {
                return Ok(stats);
            }
            if self.read_host(&mut buf, &mut stats)? > 0 {
                break Instant::now();
            }
        };
        let first_host = trace
            .chunks
            .iter()
            .find(|c| c.dir == Direction::ToBoard)
            .map_or(Time::ZERO, |c| c.t);
        for chunk in trace
            .chunks
            .iter()
            .filter(|c| c.dir == Direction::FromBoard)
        {
            let due = origin + chunk.t.saturating_since(first_host).div_f64(speed);
            loop {
                if stop.load(Ordering::Relaxed) {
                    return Ok(stats);
                }
                let now = Instant::now();
                if now >= due {
                    break;
                }
                self.master
                    .set_timeout((due - now).clamp(Duration::from_micros(200), POLL))
                    .map_err(io::Error::from)?;
                self.read_host(&mut buf, &mut stats)?;
            }
            self.master.write_all(&chunk.bytes)?;
            stats.board_bytes += chunk.bytes.len();
            stats.reached = chunk.t;
        }
        Ok(stats)
    }

    /// Reads what the host wrote, if anything, and drops it; how many bytes.
    fn read_host(&mut self, buf: &mut [u8], stats: &mut RunStats) -> io::Result<usize> {
        match self.master.read(buf) {
            Ok(n) => {
                stats.host_bytes += n;
                Ok(n)
            }
            Err(e) if e.kind() == io::ErrorKind::TimedOut => Ok(0),
            // No host has the port open right now.
            Err(e) if e.raw_os_error() == Some(5) => {
                std::thread::sleep(POLL);
                Ok(0)
            }
            Err(e) => Err(e),
        }
    }
}
