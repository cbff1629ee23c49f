//! The simulator's emulated board, played by its hand, on a pseudo-terminal that can be
//! unplugged and plugged back on the same path (a symlink, as `/dev/serial/by-id/…`).
//!
//! [`EmulatedPty`] runs the board on a thread of its own, like `sim::pty::PtyBoard`, mapping
//! wall time to the hand's virtual time `speed` times faster; unlike it, the link can drop:
//! while unplugged the hand plays on, what the board sends is lost, and plugging it back
//! makes a new pseudo-terminal behind the same path. Outages can be scheduled in virtual
//! time (so they fall between the plies they are meant to), or made by hand. The hand
//! starts when the host first writes, so that the daemon sees the whole game (until the
//! board reports its changes, a DGT board's start-up, time runs at real speed), and after an
//! outage it waits until the host writes again: the daemon's back-off before reopening,
//! seconds of wall time, would otherwise be a minute of play in scaled time. Likewise
//! while no host has the port open (the daemon killed and not yet started again). The board
//! can also fall silent with its port still open ([`EmulatedPty::mute_at`]).

use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use eboardd::sim::device::{EmulatedBoard, Transmission};
use eboardd::sim::timeline::{Cursor, Timeline};
use eboardd::time::Time;
use serialport::{SerialPort, TTYPort};

/// The longest the board's loop waits for the host before looking at the board again.
const POLL: Duration = Duration::from_millis(5);

/// What the test sees of the board's thread.
#[derive(Debug, Default)]
pub struct State {
    /// Every byte the host wrote, over every plug.
    pub host: Vec<u8>,
    /// Whether the board is plugged in now.
    pub plugged: bool,
    /// How many times it was plugged in.
    pub plugs: u32,
    /// The virtual time reached.
    pub reached: Time,
    /// Why the thread stopped early, if it did.
    pub error: Option<String>,
    /// The messages cut short by [`EmulatedPty::cut_at`]: what was sent of each, and the
    /// whole message.
    pub cut: Vec<(Vec<u8>, Vec<u8>)>,
    /// The path the board was last plugged in at.
    pub link: PathBuf,
}

/// A change made to the board when the hand's virtual time reaches a moment.
type Change = (Time, Box<dyn FnOnce(&mut EmulatedBoard) + Send>);

/// Which of the board's messages a cut falls in.
type CutWhere = Box<dyn Fn(&[u8]) -> bool + Send>;

struct Shared {
    stop: AtomicBool,
    held: AtomicBool,
    unplugged_by_hand: AtomicBool,
    muted: AtomicBool,
    mute_at: Mutex<Option<Time>>,
    replug_at: Mutex<Option<Time>>,
    inject: Mutex<Vec<u8>>,
    changes: Mutex<Vec<Change>>,
    cut_at: Mutex<Option<(Time, CutWhere)>>,
    next_link: Mutex<Option<PathBuf>>,
    cut_back: Mutex<Option<Time>>,
    state: Mutex<State>,
    changed: Condvar,
}

/// An emulated board behind a pseudo-terminal that can be unplugged.
pub struct EmulatedPty {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl EmulatedPty {
    /// Plugs `board` in at `link` and starts playing `timeline` `speed` times faster than
    /// real time; during each `(down, back)` of `outages` (virtual times) it is unplugged.
    pub fn start(
        link: &Path,
        board: EmulatedBoard,
        timeline: Timeline,
        speed: f64,
        outages: Vec<(Time, Time)>,
    ) -> EmulatedPty {
        EmulatedPty::spawn(link, board, timeline, speed, outages, false)
    }

    /// Like [`EmulatedPty::start`], but the hand keeps still until [`EmulatedPty::release`]:
    /// the board answers and reports the start position meanwhile, and the game is then
    /// played from the moment of the release. (For boards without a clock: the clock's
    /// presses are not moved with the game.)
    pub fn start_held(
        link: &Path,
        board: EmulatedBoard,
        timeline: Timeline,
        speed: f64,
    ) -> EmulatedPty {
        EmulatedPty::spawn(link, board, timeline, speed, vec![], true)
    }

    /// Lets a held hand play (see [`EmulatedPty::start_held`]).
    pub fn release(&self) {
        self.shared.held.store(false, Ordering::Relaxed);
    }

    fn spawn(
        link: &Path,
        board: EmulatedBoard,
        timeline: Timeline,
        speed: f64,
        outages: Vec<(Time, Time)>,
        held: bool,
    ) -> EmulatedPty {
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            held: AtomicBool::new(held),
            unplugged_by_hand: AtomicBool::new(false),
            muted: AtomicBool::new(false),
            mute_at: Mutex::new(None),
            replug_at: Mutex::new(None),
            inject: Mutex::new(Vec::new()),
            changes: Mutex::new(Vec::new()),
            cut_at: Mutex::new(None),
            next_link: Mutex::new(None),
            cut_back: Mutex::new(None),
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
        });
        let mut runner = Runner {
            shared: Arc::clone(&shared),
            link: link.to_path_buf(),
            board,
            speed,
            outages,
            master: None,
        };
        // Plugged in before the daemon starts, as a board on a desk.
        if let Err(e) = runner.plug() {
            panic!("cannot plug the emulated board in: {e}");
        }
        let thread = std::thread::spawn(move || {
            if let Err(e) = runner.run(&timeline) {
                eprintln!("emulated board on {}: {e:?}", runner.link.display());
                runner.update(|s| s.error = Some(e.to_string()));
            }
            runner.unplug();
        });
        EmulatedPty {
            shared,
            thread: Some(thread),
        }
    }

    /// Waits until `check` holds of the board's state, or panics after `limit`.
    pub fn wait<T>(&self, limit: Duration, what: &str, check: impl Fn(&State) -> Option<T>) -> T {
        let deadline = Instant::now() + limit;
        let mut state = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(t) = check(&state) {
                return t;
            }
            if let Some(e) = &state.error {
                panic!("the emulated board stopped: {e}");
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "{what}: not within {limit:?}");
            state = self
                .shared
                .changed
                .wait_timeout(state, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Everything the host wrote so far.
    pub fn host_bytes(&self) -> Vec<u8> {
        self.wait(Duration::ZERO, "host bytes", |s| Some(s.host.clone()))
    }

    /// Waits until the host wrote bytes that `check` accepts.
    pub fn wait_host(&self, limit: Duration, what: &str, check: impl Fn(&[u8]) -> bool) {
        self.wait(limit, what, |s| check(&s.host).then_some(()));
    }

    /// Sends `bytes` to the host as if the line had garbled something, between the
    /// board's own messages.
    pub fn inject(&self, bytes: &[u8]) {
        self.shared
            .inject
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(bytes);
    }

    /// When the hand's virtual time reaches `t` (so that it falls between the plies it is
    /// meant to), the board stops answering with its port still open, as a board whose
    /// firmware hangs: what it would send is lost and the hand stops playing, until
    /// [`EmulatedPty::unmute`]. It still reads what the host writes.
    pub fn mute_at(&self, t: Time) {
        *self
            .shared
            .mute_at
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(t);
    }

    /// The board answers again; the hand plays on once the host writes again.
    pub fn unmute(&self) {
        self.shared.muted.store(false, Ordering::Relaxed);
    }

    /// When the hand's virtual time reaches `t`, `change` is made to the board (its clock
    /// stops acknowledging, say).
    pub fn change_at(&self, t: Time, change: impl FnOnce(&mut EmulatedBoard) + Send + 'static) {
        lock(&self.shared.changes).push((t, Box::new(change)));
    }

    /// From the hand's virtual time `t` on, the first message `which` accepts is cut short:
    /// half of it goes out, then the line is dead (nothing more the board sends arrives,
    /// and the hand waits) and, once the host has written again (so it has read what came),
    /// the plug is pulled. The board is plugged back in when the virtual time reaches
    /// `back`; the hand plays on meanwhile.
    pub fn cut_at(&self, t: Time, which: impl Fn(&[u8]) -> bool + Send + 'static, back: Time) {
        *lock(&self.shared.cut_at) = Some((t, Box::new(which)));
        *lock(&self.shared.replug_at) = None;
        *lock(&self.shared.cut_back) = Some(back);
    }

    /// The next time the board is plugged in, it is at `link` (another device node)
    /// instead.
    pub fn plug_next_at(&self, link: &Path) {
        *lock(&self.shared.next_link) = Some(link.to_path_buf());
    }

    /// Pulls the plug (until [`EmulatedPty::plug_at`]).
    pub fn unplug(&self) {
        self.shared.unplugged_by_hand.store(true, Ordering::Relaxed);
        self.wait(Duration::from_secs(5), "unplugged", |s| {
            (!s.plugged).then_some(())
        });
    }

    /// Plugs the board back in when the hand's virtual time reaches `t` (after
    /// [`EmulatedPty::unplug`]).
    pub fn plug_at(&self, t: Time) {
        *self
            .shared
            .replug_at
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(t);
    }
}

impl Drop for EmulatedPty {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The hand's virtual time: wall time `speed` times faster, while it runs.
struct VirtualClock {
    base: Time,
    since: Option<Instant>,
    speed: f64,
}

impl VirtualClock {
    fn now(&self) -> Time {
        let run = self.since.map_or(0.0, |s| s.elapsed().as_secs_f64());
        self.base + Duration::from_secs_f64(run * self.speed)
    }

    fn pause(&mut self) {
        self.base = self.now();
        self.since = None;
    }

    fn set_speed(&mut self, speed: f64) {
        if speed != self.speed {
            self.base = self.now();
            self.since = self.since.map(|_| Instant::now());
            self.speed = speed;
        }
    }

    fn resume(&mut self) {
        if self.since.is_none() {
            self.since = Some(Instant::now());
        }
    }
}

struct Runner {
    shared: Arc<Shared>,
    link: PathBuf,
    board: EmulatedBoard,
    speed: f64,
    outages: Vec<(Time, Time)>,
    master: Option<TTYPort>,
}

impl Runner {
    fn update(&self, f: impl FnOnce(&mut State)) {
        let mut state = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut state);
        self.shared.changed.notify_all();
    }

    fn plug(&mut self) -> std::io::Result<()> {
        let (master, slave) = TTYPort::pair().map_err(std::io::Error::from)?;
        let name = slave
            .name()
            .ok_or_else(|| std::io::Error::other("the pty has no name"))?;
        drop(slave);
        if let Some(link) = lock(&self.shared.next_link).take() {
            self.link = link;
        }
        let _ = std::fs::remove_file(&self.link);
        std::os::unix::fs::symlink(&name, &self.link)?;
        self.master = Some(master);
        let link = self.link.clone();
        self.update(|s| {
            s.plugged = true;
            s.plugs += 1;
            s.link = link;
        });
        Ok(())
    }

    fn unplug(&mut self) {
        let _ = std::fs::remove_file(&self.link);
        self.master = None;
        self.update(|s| s.plugged = false);
    }

    fn run(&mut self, timeline: &Timeline) -> std::io::Result<()> {
        let mut clock = VirtualClock {
            base: Time::ZERO,
            since: None,
            speed: self.speed,
        };
        let mut cursor = Cursor::new(timeline);
        // The virtual time the hand's game started at: none while the hand is held.
        let mut lead: Option<Time> = None;
        let physical = |lead: Option<Time>, t: Time| match lead {
            Some(l) => Time::ZERO + t.saturating_since(l),
            None => Time::ZERO,
        };
        let mut pending: std::collections::VecDeque<Transmission> = Default::default();
        let mut buf = [0u8; 512];
        // A message was cut short: the line is dead from then on, and the plug goes once
        // the host wrote more than it had (this many bytes) when it was cut.
        let mut dead_line: Option<usize> = None;
        while !self.shared.stop.load(Ordering::Relaxed) {
            let now = clock.now();
            if lead.is_none() && !self.shared.held.load(Ordering::Relaxed) {
                lead = Some(now);
            }
            {
                let mut at = self
                    .shared
                    .replug_at
                    .lock()
                    .unwrap_or_else(|e| e.into_inner());
                if at.is_some_and(|t| t <= now) {
                    *at = None;
                    self.shared
                        .unplugged_by_hand
                        .store(false, Ordering::Relaxed);
                }
            }
            if dead_line.is_some_and(|n| lock(&self.shared.state).host.len() > n) {
                dead_line = None;
                self.shared.unplugged_by_hand.store(true, Ordering::Relaxed);
                *lock(&self.shared.replug_at) = lock(&self.shared.cut_back).take();
                clock.resume();
            }
            let away = self.shared.unplugged_by_hand.load(Ordering::Relaxed)
                || self
                    .outages
                    .iter()
                    .any(|(down, back)| now >= *down && now < *back);
            match (away, self.master.is_some()) {
                (true, true) => self.unplug(),
                (false, false) => {
                    // Back: the hand waits until the host has the port again.
                    clock.pause();
                    self.plug()?;
                }
                _ => {}
            }
            {
                let mut at = self
                    .shared
                    .mute_at
                    .lock()
                    .unwrap_or_else(|e| e.into_inner());
                if at.is_some_and(|t| t <= now) {
                    *at = None;
                    self.shared.muted.store(true, Ordering::Relaxed);
                }
            }
            {
                let mut changes = lock(&self.shared.changes);
                let (due, later) = std::mem::take(&mut *changes)
                    .into_iter()
                    .partition::<Vec<_>, _>(|(t, _)| *t <= now);
                *changes = later;
                for (_, change) in due {
                    change(&mut self.board);
                }
            }
            let muted = self.shared.muted.load(Ordering::Relaxed);
            if muted || dead_line.is_some() {
                clock.pause();
            }
            while self.board.poll_timeout() <= now {
                cursor.advance_to(physical(lead, self.board.poll_timeout()));
                self.board.handle_timeout(&cursor);
            }
            while let Some(t) = self.board.poll_transmit() {
                if !muted {
                    pending.push_back(t);
                }
            }
            if muted {
                pending.clear();
            }
            while let Some(t) = pending.front().filter(|t| t.end <= now).cloned() {
                pending.pop_front();
                if dead_line.is_some() {
                    continue;
                }
                let cut = {
                    let mut at = lock(&self.shared.cut_at);
                    let hit = at
                        .as_ref()
                        .is_some_and(|(from, which)| *from <= t.start && which(&t.bytes));
                    if hit {
                        *at = None;
                    }
                    hit
                };
                if cut && let Some(master) = &mut self.master {
                    let sent = t.bytes[..t.bytes.len() / 2].to_vec();
                    master.write_all(&sent)?;
                    let written = lock(&self.shared.state).host.len();
                    dead_line = Some(written);
                    self.update(|s| s.cut.push((sent, t.bytes.clone())));
                    continue;
                }
                if let Some(master) = &mut self.master {
                    // Nobody listening and the buffer full: the bytes are lost, as on a line.
                    master.set_timeout(Duration::from_millis(1))?;
                    match master.write_all(&t.bytes) {
                        Ok(()) => {}
                        // Nobody listening, or the host just closed the port: lost too.
                        Err(e)
                            if e.kind() == ErrorKind::TimedOut
                                || e.kind() == ErrorKind::BrokenPipe
                                || e.raw_os_error() == Some(5) => {}
                        Err(e) => return Err(e),
                    }
                }
            }
            let garbage =
                std::mem::take(&mut *self.shared.inject.lock().unwrap_or_else(|e| e.into_inner()));
            if let (Some(master), false) = (&mut self.master, garbage.is_empty()) {
                master.write_all(&garbage)?;
            }
            self.update(|s| s.reached = now);
            let next = pending.front().map_or(self.board.poll_timeout(), |t| {
                t.end.min(self.board.poll_timeout())
            });
            let wait =
                Duration::from_secs_f64(next.saturating_since(now).as_secs_f64() / self.speed)
                    .clamp(Duration::from_micros(200), POLL);
            let Some(master) = &mut self.master else {
                std::thread::sleep(wait);
                continue;
            };
            master.set_timeout(wait)?;
            match master.read(&mut buf) {
                Ok(0) => {}
                Ok(n) => {
                    let at = clock.now();
                    while self.board.poll_timeout() <= at {
                        cursor.advance_to(physical(lead, self.board.poll_timeout()));
                        self.board.handle_timeout(&cursor);
                    }
                    self.board.handle_host_bytes(at, &buf[..n]);
                    if !muted && dead_line.is_none() {
                        clock.resume();
                    }
                    // A DGT host's start-up is paced (reset, update mode, the whole board,
                    // 100 ms apart): until it is done, time runs at the speed of life, as a
                    // person's hand does while a real board is being set up.
                    clock.set_speed(if self.board.reporting() {
                        self.speed
                    } else {
                        1.0
                    });
                    let bytes = buf[..n].to_vec();
                    self.update(|s| s.host.extend_from_slice(&bytes));
                }
                Err(e) if e.kind() == ErrorKind::TimedOut => {}
                // No host has the port open right now (EIO, or a hang-up): the daemon was
                // stopped or killed. The hand waits until it is back, as it would for a
                // restart that takes a moment.
                Err(e) if e.raw_os_error() == Some(5) || e.kind() == ErrorKind::BrokenPipe => {
                    clock.pause();
                    std::thread::sleep(wait)
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}
