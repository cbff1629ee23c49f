//! The one IO shell around a board's core: an open port, the core's clock, and the turn
//! that moves bytes and time between them.
//!
//! Every place that reads a real board (the daemon's board tasks, `eboardd uci --device`,
//! `record`, `demo`) drives its [`Core`] through a [`Port`]: [`Port::step`] writes what the
//! core has to send, then waits for the first of the board's bytes, the core's next
//! deadline or the caller's own, and hands it to the core. A step is cancel-safe: bytes
//! the core gave up are kept until they are written, and a read or a wait dropped half-way
//! loses nothing, so a shell may race it against its own inbox in a `select!`. Time is
//! tokio's, counted by a [`Clock`] from when the shell started, so tests can pause it.

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::time::Instant;
use tokio_serial::SerialStream;

use super::LinkError;
use crate::daemon::core::Core;
use crate::time::Time;
use crate::timer::Timer;
use crate::trace::{Direction, TraceWriter};

/// How long one write to the board may take before the link counts as lost.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(2);

/// The core's clock: [`Time`] counted from when it was started, on tokio's clock.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    origin: Instant,
}

impl Clock {
    /// A clock that reads zero now.
    pub fn start() -> Clock {
        Clock {
            origin: Instant::now(),
        }
    }

    /// The time now.
    pub fn now(&self) -> Time {
        Time::from_micros(u64::try_from(self.origin.elapsed().as_micros()).unwrap_or(u64::MAX))
    }

    /// The instant a core's time stands for.
    pub fn instant(&self, t: Time) -> Instant {
        self.origin + Duration::from_micros(t.as_micros())
    }
}

/// A trace being written: every byte both ways, timed from when it started.
type Recorder = (TraceWriter<BufWriter<File>>, Instant);

/// An open port to a board.
#[derive(Debug)]
pub struct Port {
    path: PathBuf,
    stream: SerialStream,
    /// Bytes the core gave up that are not written yet.
    out: Vec<u8>,
    buf: Box<[u8]>,
    timer: Timer,
    recorder: Option<Recorder>,
    trace_error: Option<io::Error>,
}

impl Port {
    /// The shell for `stream`, the port opened at `path`.
    pub fn new(path: &Path, stream: SerialStream) -> Port {
        Port {
            path: path.to_path_buf(),
            stream,
            out: Vec::new(),
            buf: vec![0; 4096].into_boxed_slice(),
            timer: Timer::new(),
            recorder: None,
            trace_error: None,
        }
    }

    /// The port's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes every byte read and written from now on to `trace`, timed from now.
    pub fn record_to(&mut self, trace: TraceWriter<BufWriter<File>>) {
        self.recorder = Some((trace, Instant::now()));
    }

    /// Why the trace stopped being written, once: the recording ends at the first failed
    /// write, the link goes on.
    pub fn take_trace_error(&mut self) -> Option<io::Error> {
        self.trace_error.take()
    }

    /// Whether bytes the core gave up are still to be written.
    pub fn writing(&self) -> bool {
        !self.out.is_empty()
    }

    /// One turn: writes what `core` has to send, then waits for bytes from the board, the
    /// core's next deadline or `until`, whichever comes first, and hands it to the core.
    /// Fails when the link is lost: the port failed or hung up, a write took longer than
    /// [`WRITE_TIMEOUT`], or the core says the board stopped answering. Cancel-safe.
    pub async fn step<C: Core + ?Sized>(
        &mut self,
        core: &mut C,
        clock: &Clock,
        until: Option<Instant>,
    ) -> Result<(), LinkError> {
        self.write(core).await?;
        if let Some(reason) = core.link_lost() {
            return Err(LinkError {
                unplugged: false,
                reason,
            });
        }
        let deadline = core
            .poll_timeout()
            .map(|t| clock.instant(t))
            .into_iter()
            .chain(until)
            .min();
        tokio::select! {
            read = self.stream.read(&mut self.buf) => {
                let n = match read {
                    Ok(0) => return Err(LinkError::end_of_file()),
                    Ok(n) => n,
                    Err(e) => return Err(LinkError::from_io(&e)),
                };
                let now = clock.now();
                record(&mut self.recorder, &mut self.trace_error, Direction::FromBoard, &self.buf[..n]);
                core.handle_input(now, &self.buf[..n]);
            }
            () = self.timer.sleep_until(deadline) => {
                core.handle_timeout(clock.now());
            }
        }
        Ok(())
    }

    /// Writes what the core has to send now. Cancel-safe: what was taken from the core
    /// and not yet written stays in `out`.
    pub async fn write<C: Core + ?Sized>(&mut self, core: &mut C) -> Result<(), LinkError> {
        loop {
            if self.out.is_empty() {
                let Some(bytes) = core.poll_transmit() else {
                    return Ok(());
                };
                record(
                    &mut self.recorder,
                    &mut self.trace_error,
                    Direction::ToBoard,
                    &bytes,
                );
                self.out = bytes;
                continue;
            }
            match tokio::time::timeout(WRITE_TIMEOUT, self.stream.write(&self.out)).await {
                Ok(Ok(0)) => return Err(LinkError::end_of_file()),
                Ok(Ok(n)) => {
                    self.out.drain(..n);
                }
                Ok(Err(e)) => return Err(LinkError::from_io(&e)),
                Err(_) => {
                    return Err(LinkError {
                        unplugged: false,
                        reason: "writing to the board timed out".into(),
                    });
                }
            }
        }
    }
}

fn record(
    recorder: &mut Option<Recorder>,
    failed: &mut Option<io::Error>,
    dir: Direction,
    bytes: &[u8],
) {
    if let Some((w, start)) = recorder {
        let t = Time::from_micros(u64::try_from(start.elapsed().as_micros()).unwrap_or(0));
        if let Err(e) = w.write(t, dir, bytes).and_then(|()| w.flush()) {
            *recorder = None;
            *failed = Some(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use serialport::{SerialPort, TTYPort};

    use super::*;
    use crate::daemon::core::{CommandError, CoreCommand};
    use crate::event::Orientation;
    use crate::event::TimedEvent;

    /// A core with one long message to send and nothing else to do.
    struct Talker {
        out: Option<Vec<u8>>,
    }

    impl Core for Talker {
        fn handle_connected(&mut self, _: Time) {}
        fn handle_input(&mut self, _: Time, _: &[u8]) {}
        fn handle_timeout(&mut self, _: Time) {}
        fn handle_command(&mut self, _: Time, _: CoreCommand) -> Result<(), CommandError> {
            Ok(())
        }
        fn poll_event(&mut self) -> Option<TimedEvent> {
            None
        }
        fn poll_transmit(&mut self) -> Option<Vec<u8>> {
            self.out.take()
        }
        fn poll_timeout(&self) -> Option<Time> {
            None
        }
        fn placement(&self) -> Option<String> {
            None
        }
        fn orientation(&self) -> Option<Orientation> {
            None
        }
        fn serial(&self) -> Option<String> {
            None
        }
    }

    #[tokio::test]
    async fn a_step_dropped_while_writing_loses_no_byte_and_repeats_none() {
        let (mut board, host) = TTYPort::pair().expect("a pty pair");
        let path = host.name().expect("the pty has a name");
        let stream = super::super::open(Path::new(&path), 9600).expect("open the pty");
        let mut port = Port::new(Path::new(&path), stream);
        // Far more than the pseudo-terminal holds: the write waits for the board to read.
        let message: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let mut core = Talker {
            out: Some(message.clone()),
        };
        let clock = Clock::start();
        let first = tokio::time::timeout(
            Duration::from_millis(50),
            port.step(&mut core, &clock, None),
        )
        .await;
        assert!(first.is_err(), "the step waits on the full line");
        assert!(port.writing(), "what the core gave up is kept");

        let expected = message.len();
        board
            .set_timeout(Duration::from_secs(10))
            .expect("a read timeout");
        let reader = std::thread::spawn(move || {
            let mut got = Vec::new();
            let mut buf = [0u8; 4096];
            while got.len() < expected {
                match board.read(&mut buf) {
                    Ok(n) => got.extend_from_slice(&buf[..n]),
                    Err(e) => panic!("reading the board end: {e}"),
                }
            }
            got
        });
        // Every step is dropped after a moment, whether it wrote or waited.
        let mut steps = 0;
        while port.writing() {
            let _ =
                tokio::time::timeout(Duration::from_millis(2), port.step(&mut core, &clock, None))
                    .await;
            steps += 1;
            assert!(steps < 100_000, "the write makes no progress");
        }
        let got = reader.join().expect("the reader");
        assert_eq!(got.len(), message.len());
        assert!(got == message, "the bytes arrive once each, in order");
        drop(host);
    }
}
