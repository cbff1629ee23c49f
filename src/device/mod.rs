//! A board on a serial port: the thin IO shell around one [`BoardCore`], the same core
//! the daemon drives.
//!
//! [`Device`] opens the port exactly as the daemon does ([`link::open`]: exclusively, 8N1 at
//! the protocol's speed; Millennium parity is done in software by the codec), and then
//! turns reads, timers and writes into calls on the sans-IO core, handing back what the
//! core decides: the start-up and its pacing, the DGT keep-alive and board checks, clock
//! commands, LEDs only on boards that have them, Millennium register writes checked and
//! retried. Time is tokio's, so tests can pause and drive it. Reconnection, many boards
//! and publishing are the daemon's business, not this module's.

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::time::Instant;
use tokio_serial::SerialStream;

use crate::daemon::core::{BoardCore, CommandError, Core, CoreCommand};
use crate::daemon::link::{self, LinkError};
use crate::event::TimedEvent;
use crate::pipeline::CoreConfig;
use crate::protocol::Protocol;
use crate::sensing::Sensed;
use crate::time::Time;
use crate::trace::{Direction, TraceHeader, TraceWriter};

/// Why a device stopped or could not start.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// The port could not be opened.
    #[error("{0}")]
    Open(LinkError),
    /// The board went away (unplugged, powered off, link lost).
    #[error("{path}: board disconnected ({reason})")]
    Disconnected {
        /// The device path.
        path: String,
        /// What showed it.
        reason: String,
    },
    /// Writing the trace failed.
    #[error("writing the trace: {0}")]
    Trace(io::Error),
    /// The core refused a command.
    #[error("{0}")]
    Refused(CommandError),
}

/// Something the device hands back.
#[derive(Debug, Clone, PartialEq)]
pub enum DeviceOutput {
    /// A game event decided by the core.
    Event(TimedEvent),
    /// A sensed item (only when the core keeps them, for `record` and debugging).
    Sensed(Sensed),
}

/// A board on a serial port.
#[derive(Debug)]
pub struct Device {
    path: PathBuf,
    protocol: Protocol,
    port: SerialStream,
    core: BoardCore,
    origin: Instant,
    trace: Option<TraceWriter<BufWriter<File>>>,
    buf: Vec<u8>,
}

/// The longest [`Device::start`] waits for the start-up to be written.
const START_LIMIT: Duration = Duration::from_secs(3);

impl Device {
    /// Opens the board at `path` for `protocol`. The port is opened as [`link::open`]
    /// opens it.
    pub fn open(path: &Path, protocol: Protocol, core: CoreConfig) -> Result<Device, DeviceError> {
        let port = link::open(path, protocol.baud_rate()).map_err(DeviceError::Open)?;
        Ok(Device {
            path: path.to_path_buf(),
            protocol,
            port,
            core: BoardCore::new(protocol, core),
            origin: Instant::now(),
            trace: None,
            buf: vec![0; 4096],
        })
    }

    /// Records every read and write from now on to a trace file at `out`.
    pub fn record_to(&mut self, out: &Path, title: &str) -> Result<(), DeviceError> {
        let file = File::create(out).map_err(DeviceError::Trace)?;
        let mut header = TraceHeader::new(self.protocol);
        header.serial = Some(self.protocol.line_settings().to_string());
        header.laws = self.core.laws().map(|l| l.edition.name().to_string());
        header.other.push(("title".to_string(), title.to_string()));
        header
            .other
            .push(("device".to_string(), self.path.display().to_string()));
        self.trace =
            Some(TraceWriter::new(BufWriter::new(file), &header).map_err(DeviceError::Trace)?);
        Ok(())
    }

    /// The time since the device was opened, as the core counts it.
    pub fn now(&self) -> Time {
        Time::from_micros(self.origin.elapsed().as_micros() as u64)
    }

    fn instant(&self, t: Time) -> Instant {
        self.origin + Duration::from_micros(t.as_micros())
    }

    /// The board's core.
    pub fn core(&self) -> &BoardCore {
        &self.core
    }

    /// The board's core, for commands (a new game, a game to resume, a move to show).
    pub fn core_mut(&mut self) -> &mut BoardCore {
        &mut self.core
    }

    /// Gives the core a command now, and writes what it has to send at once.
    pub async fn command(&mut self, command: CoreCommand) -> Result<(), DeviceError> {
        let now = self.now();
        let answer = self.core.handle_command(now, command);
        self.flush().await?;
        answer.map_err(DeviceError::Refused)
    }

    /// Starts the link: the core's start-up for the protocol, written as the core paces it
    /// (a DGT board's first command 400 ms after the port opened, each next one 100 ms
    /// after the one before; the waits are tokio's). Returns once it is all written, or
    /// after [`START_LIMIT`].
    pub async fn start(&mut self) -> Result<(), DeviceError> {
        let now = self.now();
        self.core.handle_connected(now);
        let limit = Instant::now() + START_LIMIT;
        loop {
            self.flush().await?;
            let Some(due) = self.core.pacing_due().filter(|_| self.core.has_queued()) else {
                return Ok(());
            };
            let due = self.instant(due);
            if due > limit {
                return Ok(());
            }
            tokio::time::sleep_until(due).await;
            let now = self.now();
            self.core.handle_timeout(now);
        }
    }

    /// Writes what the core has to send now (and to the trace).
    async fn flush(&mut self) -> Result<(), DeviceError> {
        while let Some(bytes) = self.core.poll_transmit() {
            let now = self.now();
            if let Some(trace) = &mut self.trace {
                trace
                    .write(now, Direction::ToBoard, &bytes)
                    .and_then(|()| trace.flush())
                    .map_err(DeviceError::Trace)?;
            }
            self.port
                .write_all(&bytes)
                .await
                .map_err(|e| self.disconnected(&e))?;
        }
        Ok(())
    }

    /// Waits for the next thing the core decides, reading the port, writing what the core
    /// sends (keep-alive, clock, LEDs) and running its timers meanwhile.
    pub async fn next(&mut self) -> Result<DeviceOutput, DeviceError> {
        loop {
            self.flush().await?;
            if let Some(reason) = self.core.link_lost() {
                return Err(DeviceError::Disconnected {
                    path: self.path.display().to_string(),
                    reason,
                });
            }
            if let Some(item) = self.core.poll_sensed() {
                return Ok(DeviceOutput::Sensed(item));
            }
            if let Some(event) = self.core.poll_event() {
                return Ok(DeviceOutput::Event(event));
            }
            let deadline = self.core.poll_timeout().map(|t| self.instant(t));
            tokio::select! {
                read = self.port.read(&mut self.buf) => {
                    let n = read.map_err(|e| self.disconnected(&e))?;
                    if n == 0 {
                        return Err(DeviceError::Disconnected {
                            path: self.path.display().to_string(),
                            reason: "end of file".to_string(),
                        });
                    }
                    let now = self.now();
                    if let Some(trace) = &mut self.trace {
                        trace
                            .write(now, Direction::FromBoard, &self.buf[..n])
                            .and_then(|()| trace.flush())
                            .map_err(DeviceError::Trace)?;
                    }
                    self.core.handle_input(now, &self.buf[..n]);
                }
                () = sleep_until_opt(deadline) => {
                    let now = self.now();
                    self.core.handle_timeout(now);
                }
            }
        }
    }

    fn disconnected(&self, e: &io::Error) -> DeviceError {
        DeviceError::Disconnected {
            path: self.path.display().to_string(),
            reason: e.to_string(),
        }
    }
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}
