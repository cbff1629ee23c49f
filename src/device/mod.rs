//! One board on a serial port, for the commands that read a single board (`record`,
//! `demo`, `uci --device`): a [`BoardCore`], the same core the daemon drives, behind the
//! one shell ([`Port`]) every reader of a real board uses.
//!
//! [`Device`] opens the port as the daemon does ([`link::open`]: exclusively, 8N1 at the
//! protocol's speed; Millennium parity is done in software by the codec), or takes one
//! [`link::connect`] found, and turns reads, timers and writes into calls on the sans-IO
//! core, handing back what the core decides: the start-up and its pacing, the DGT
//! keep-alive and board checks, clock commands, LEDs only on boards that have them,
//! Millennium register writes checked and retried. Time is tokio's, so tests can pause and
//! drive it. Reconnecting follows [`link::Reconnect`]; many boards and publishing are the
//! daemon's business, not this module's.

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::Path;
use std::time::Duration;

use tokio::time::Instant;

use crate::daemon::core::{BoardCore, CommandError, Core, CoreCommand};
use crate::event::TimedEvent;
use crate::link::{self, Clock, LinkError, Port};
use crate::pipeline::CoreConfig;
use crate::protocol::Protocol;
use crate::sensing::Sensed;
use crate::time::Time;
use crate::trace::{TraceHeader, TraceWriter};

/// Why a device stopped or could not start.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// The port could not be opened.
    #[error("{0}")]
    Open(LinkError),
    /// The board went away (unplugged, powered off, link lost).
    #[error("{path}: board disconnected ({})", link.reason)]
    Disconnected {
        /// The device path.
        path: String,
        /// What showed it, and whether it looked like unplugging.
        link: LinkError,
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
    protocol: Protocol,
    port: Port,
    core: BoardCore,
    clock: Clock,
}

/// The longest [`Device::start`] waits for the start-up to be written.
const START_LIMIT: Duration = Duration::from_secs(3);

impl DeviceError {
    /// The link error this is, or stands for: a lost link as it was seen (unplugged or
    /// not); anything else as a link that cannot go on.
    pub fn into_link(self) -> LinkError {
        match self {
            DeviceError::Open(link) | DeviceError::Disconnected { link, .. } => link,
            other => LinkError {
                unplugged: false,
                reason: other.to_string(),
            },
        }
    }
}

impl Device {
    /// Opens the board at `path` for `protocol`. The port is opened as [`link::open`]
    /// opens it.
    pub fn open(path: &Path, protocol: Protocol, core: CoreConfig) -> Result<Device, DeviceError> {
        let stream = link::open(path, protocol.baud_rate()).map_err(DeviceError::Open)?;
        Ok(Device::on(Port::new(path, stream), protocol, core))
    }

    /// The board on `port`, an open port of a `protocol` board (as [`link::connect`]
    /// gives it).
    pub fn on(port: Port, protocol: Protocol, core: CoreConfig) -> Device {
        Device {
            protocol,
            port,
            core: BoardCore::new(protocol, core),
            clock: Clock::start(),
        }
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
            .push(("device".to_string(), self.port.path().display().to_string()));
        let writer = TraceWriter::new(BufWriter::new(file), &header).map_err(DeviceError::Trace)?;
        self.port.record_to(writer);
        Ok(())
    }

    /// The time since the device was opened, as the core counts it.
    pub fn now(&self) -> Time {
        self.clock.now()
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
        self.write().await?;
        answer.map_err(DeviceError::Refused)
    }

    /// Starts the link: the core's start-up for the protocol, written as the core paces it
    /// (a DGT board's first command 400 ms after the port opened, each next one 100 ms
    /// after the one before; the waits are tokio's). Returns once the paced start-up is
    /// written, or after [`START_LIMIT`]; what the board answers meanwhile waits in the
    /// port for [`Device::next`], so that a command given between the two (a new game)
    /// comes before the board's moves.
    pub async fn start(&mut self) -> Result<(), DeviceError> {
        let now = self.now();
        self.core.handle_connected(now);
        let limit = Instant::now() + START_LIMIT;
        loop {
            self.write().await?;
            let Some(due) = self.core.pacing_due().filter(|_| self.core.has_queued()) else {
                break;
            };
            let due = self.clock.instant(due);
            if due > limit {
                break;
            }
            tokio::time::sleep_until(due).await;
            let now = self.now();
            self.core.handle_timeout(now);
        }
        self.trace_failed()
    }

    /// Waits for the next thing the core decides, reading the port, writing what the core
    /// sends (keep-alive, clock, LEDs) and running its timers meanwhile. Cancel-safe.
    pub async fn next(&mut self) -> Result<DeviceOutput, DeviceError> {
        loop {
            self.trace_failed()?;
            if let Some(item) = self.core.poll_sensed() {
                return Ok(DeviceOutput::Sensed(item));
            }
            if let Some(event) = self.core.poll_event() {
                return Ok(DeviceOutput::Event(event));
            }
            self.turn(None).await?;
        }
    }

    /// Writes what the core has to send now.
    async fn write(&mut self) -> Result<(), DeviceError> {
        self.port
            .write(&mut self.core)
            .await
            .map_err(|e| self.disconnected(e))
    }

    async fn turn(&mut self, until: Option<Instant>) -> Result<(), DeviceError> {
        self.port
            .step(&mut self.core, &self.clock, until)
            .await
            .map_err(|e| self.disconnected(e))
    }

    fn trace_failed(&mut self) -> Result<(), DeviceError> {
        match self.port.take_trace_error() {
            Some(e) => Err(DeviceError::Trace(e)),
            None => Ok(()),
        }
    }

    fn disconnected(&self, e: LinkError) -> DeviceError {
        DeviceError::Disconnected {
            path: self.port.path().display().to_string(),
            link: e,
        }
    }
}
