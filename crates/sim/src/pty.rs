//! An emulated board on a pseudo-terminal, playing a hand's timeline in real or scaled time.
//!
//! [`PtyBoard`] is the thin shell around an [`EmulatedBoard`]: it owns the master end of a
//! pseudo-terminal pair and keeps the slave end open, so a host (the daemon, `eboardd
//! record`, a test) can open [`PtyBoard::path`] as if it were the board's serial port. Its
//! [`run`](PtyBoard::run) loop maps wall time to the timeline's virtual time (`speed` times
//! faster), reads what the host writes, runs the board's scans when they fall due and
//! writes the board's bytes when they would have arrived. [`run_live`](PtyBoard::run_live)
//! does the same for a game made while it runs (a live hand's moves arrive on a channel).
//! With [`super::live`] it is the only part of `sim` that touches a clock or a file
//! descriptor, and it blocks the calling thread: run it on a thread of its own.

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::time::{Duration, Instant};

use serialport::{SerialPort, TTYPort};

use super::device::{EmulatedBoard, Transmission};
use super::timeline::{Cursor, PhysicalEvent, Squares, Timeline};
use eboardd_core::time::Time;

/// The longest a run waits for the host before it looks at its stop flag again.
const POLL: Duration = Duration::from_millis(50);

/// The longest a live run waits before it looks for the hand's next move.
const LIVE_POLL: Duration = Duration::from_millis(5);

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Bytes the host wrote.
    pub host_bytes: usize,
    /// Bytes the board sent.
    pub board_bytes: usize,
    /// The virtual time reached.
    pub reached: Time,
}

/// An emulated board behind a pseudo-terminal.
#[derive(Debug)]
pub struct PtyBoard {
    board: EmulatedBoard,
    master: TTYPort,
    // Kept open so that the pseudo-terminal stays usable while hosts open and close it.
    slave: TTYPort,
    path: String,
    speed: f64,
    writes: Option<Sender<(Instant, Vec<u8>)>>,
}

impl PtyBoard {
    /// A new pseudo-terminal with `board` on its master end; the timeline will play
    /// `speed` times faster than real time (1.0: real time).
    pub fn open(board: EmulatedBoard, speed: f64) -> io::Result<PtyBoard> {
        let (master, slave) = TTYPort::pair().map_err(io::Error::from)?;
        let path = slave
            .name()
            .ok_or_else(|| io::Error::other("the pseudo-terminal has no name"))?;
        Ok(PtyBoard {
            board,
            master,
            slave,
            path,
            speed: if speed.is_finite() && speed > 0.0 {
                speed
            } else {
                1.0
            },
            writes: None,
        })
    }

    /// From now on, each of the board's transmissions goes to `writes` with the instant it
    /// was written to the host (to measure what the host makes of the bytes, and how fast).
    pub fn log_writes(&mut self, writes: Sender<(Instant, Vec<u8>)>) {
        self.writes = Some(writes);
    }

    /// The path a host opens: the slave end (`/dev/pts/N`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The slave end, for a host in the same process.
    pub fn slave(&self) -> &TTYPort {
        &self.slave
    }

    /// The emulated board.
    pub fn board(&self) -> &EmulatedBoard {
        &self.board
    }

    /// Plays `timeline` from its start until the virtual time `until`, or until `stop` is
    /// set. The board answers the host throughout.
    pub fn run(
        &mut self,
        timeline: &Timeline,
        until: Time,
        stop: &AtomicBool,
    ) -> io::Result<RunStats> {
        let origin = Instant::now();
        let speed = self.speed;
        let virtual_now = || virtual_time(origin, speed);
        let mut cursor = Cursor::new(timeline);
        let mut pending = VecDeque::new();
        let mut stats = RunStats::default();
        loop {
            let now = virtual_now();
            stats.reached = now;
            if now > until || stop.load(Ordering::Relaxed) {
                break;
            }
            self.turn(&mut cursor, &mut pending, &mut stats, &virtual_now, POLL)?;
        }
        Ok(stats)
    }

    /// Plays a game made live: the board starts as `start`, and every batch of physical
    /// changes received on `changes` (a hand's move, from now on) joins its timeline. Virtual
    /// time runs from `origin`, `speed` times faster than wall time. After every turn
    /// `observe` sees the board (what the host made it show). Runs until `stop` is set.
    pub fn run_live(
        &mut self,
        start: Squares,
        origin: Instant,
        changes: &Receiver<Vec<PhysicalEvent>>,
        stop: &AtomicBool,
        observe: &mut dyn FnMut(&EmulatedBoard),
    ) -> io::Result<RunStats> {
        let speed = self.speed;
        let virtual_now = || virtual_time(origin, speed);
        let mut timeline = Timeline::new(start, Vec::new());
        let mut pending = VecDeque::new();
        let mut stats = RunStats::default();
        let mut sampled = Time::ZERO;
        loop {
            // A cursor reads the timeline as it stands; it is made again when it grows.
            let mut cursor = Cursor::new(&timeline);
            cursor.advance_to(sampled);
            let arrived = loop {
                if stop.load(Ordering::Relaxed) {
                    return Ok(stats);
                }
                if let Ok(batch) = changes.try_recv() {
                    break batch;
                }
                stats.reached = virtual_now();
                self.turn(
                    &mut cursor,
                    &mut pending,
                    &mut stats,
                    &virtual_now,
                    LIVE_POLL,
                )?;
                sampled = self.board.poll_timeout().min(stats.reached);
                observe(&self.board);
            };
            timeline.events.extend(arrived);
            timeline.events.sort_by_key(|e| e.t);
        }
    }

    /// One turn of a run: the board samples what is due, sends what has reached the host,
    /// and waits for the host's bytes until the board next has something to send, or at
    /// most `max_wait`.
    ///
    /// A sample is taken from the timeline at its own virtual time however late the loop
    /// gets to it, and a message it causes cannot reach the host before the board's
    /// [`report_lead`](EmulatedBoard::report_lead) has passed. So the loop need not wake
    /// for every sample (a Millennium board samples a square every 640 µs): it wakes that
    /// lead after the next sample is due, takes every sample due by then, and the host
    /// still gets each message at the instant its last byte would have arrived.
    fn turn(
        &mut self,
        cursor: &mut Cursor<'_>,
        pending: &mut VecDeque<Transmission>,
        stats: &mut RunStats,
        virtual_now: &dyn Fn() -> Time,
        max_wait: Duration,
    ) -> io::Result<()> {
        let now = virtual_now();
        while self.board.poll_timeout() <= now {
            cursor.advance_to(self.board.poll_timeout());
            self.board.handle_timeout(cursor);
        }
        while let Some(t) = self.board.poll_transmit() {
            pending.push_back(t);
        }
        while pending.front().is_some_and(|t| t.end <= now) {
            if let Some(t) = pending.pop_front() {
                self.master.write_all(&t.bytes)?;
                stats.board_bytes += t.bytes.len();
                if let Some(writes) = &self.writes {
                    let _ = writes.send((Instant::now(), t.bytes));
                }
            }
        }
        // Wait for the host until the board may next have bytes for it.
        let due = self.board.poll_timeout() + self.board.report_lead();
        let next = pending.front().map_or(due, |t| t.end.min(due));
        let wait_virtual = next.saturating_since(now);
        let wait = Duration::from_secs_f64(wait_virtual.as_secs_f64() / self.speed).min(max_wait);
        self.master
            .set_timeout(wait.max(Duration::from_micros(200)))
            .map_err(io::Error::from)?;
        let mut buf = [0u8; 512];
        match self.master.read(&mut buf) {
            Ok(0) => {}
            Ok(n) => {
                stats.host_bytes += n;
                let at = virtual_now();
                while self.board.poll_timeout() <= at {
                    cursor.advance_to(self.board.poll_timeout());
                    self.board.handle_timeout(cursor);
                }
                self.board.handle_host_bytes(at, &buf[..n]);
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
                ) => {}
            // No host has the port open right now.
            Err(e) if e.raw_os_error() == Some(5) => std::thread::sleep(POLL),
            Err(e) => return Err(e),
        }
        Ok(())
    }
}

/// Virtual time: wall time since `origin`, `speed` times faster.
fn virtual_time(origin: Instant, speed: f64) -> Time {
    let wall = origin.elapsed().as_secs_f64() * speed;
    Time::from_micros((wall * 1e6) as u64)
}
