//! The manager object: `org.eboardd.EBoard1.Manager` at `/org/eboardd/EBoard1`.
//!
//! It attaches and detaches devices (udev's `eboardctl@.service` calls it), lists the
//! boards, and announces boards as they come and go. The same object carries
//! `org.freedesktop.DBus.ObjectManager`, so clients can enumerate every board at once.

use std::path::PathBuf;

use zbus::object_server::SignalEmitter;
use zbus::{ObjectPath, OwnedObjectPath, interface};

use super::error::Error;
use super::{Exporter, board_path};
use crate::daemon::Daemon;

/// The manager object.
pub struct ManagerObject {
    daemon: Daemon,
    exporter: Exporter,
}

impl ManagerObject {
    /// The manager of `daemon`'s boards.
    pub fn new(daemon: Daemon, exporter: Exporter) -> Self {
        ManagerObject { daemon, exporter }
    }
}

/// Whether the device is a terminal (a USB or Bluetooth serial port, a pseudo-terminal):
/// anything else (`/dev/null`, a disk, a file) never carries a board and would leave a
/// board object behind that can never connect. Opened without waiting for a carrier and
/// without becoming our controlling terminal.
fn is_serial_port(device: &std::path::Path) -> Result<(), String> {
    use rustix::fs::{Mode, OFlags, open};
    let fd = open(
        device,
        OFlags::RDWR | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| e.to_string())?;
    if rustix::termios::isatty(&fd) {
        Ok(())
    } else {
        Err("not a terminal device".into())
    }
}

/// The electronic chessboards eboardd follows.
#[interface(name = "org.eboardd.EBoard1.Manager")]
impl ManagerObject {
    /// Attaches the serial device at this absolute path and returns its board's object.
    /// The device's configured settings apply; attaching a device already attached returns
    /// its object.
    async fn attach_device(&self, path: String) -> Result<OwnedObjectPath, Error> {
        let device = PathBuf::from(&path);
        crate::daemon::config::check_device_path(&device)
            .map_err(|e| Error::InvalidArgs(e.to_string()))?;
        if !device.is_absolute() {
            return Err(Error::InvalidArgs(format!(
                "the device path must be absolute: {:?}",
                crate::text::quote(&path)
            )));
        }
        if !device.exists() {
            return Err(Error::InvalidArgs(format!(
                "no such device: {}",
                crate::text::quote(&path)
            )));
        }
        if let Err(why) = is_serial_port(&device) {
            return Err(Error::InvalidArgs(format!(
                "not a serial port: {}: {why}",
                crate::text::quote(&path)
            )));
        }
        let handle = self.daemon.attach_device(&device).await?;
        self.exporter.sync().await?;
        Ok(OwnedObjectPath::try_from(board_path(handle.id()))?)
    }

    /// Detaches the board on this device; its game stays journalled.
    async fn detach_device(&self, path: String) -> Result<(), Error> {
        self.daemon.detach(&PathBuf::from(&path)).await?;
        self.exporter.sync().await?;
        Ok(())
    }

    /// The boards' objects.
    #[zbus(property)]
    async fn boards(&self) -> Vec<OwnedObjectPath> {
        self.exporter.paths().await
    }

    /// The asynchronous tasks the daemon runs now (a few per board and client, to watch
    /// for leaks on a long-running daemon).
    #[zbus(property(emits_changed_signal = "false"))]
    async fn tasks(&self) -> u32 {
        let alive = tokio::runtime::Handle::current()
            .metrics()
            .num_alive_tasks();
        u32::try_from(alive).unwrap_or(u32::MAX)
    }

    /// A board was attached.
    #[zbus(signal)]
    pub async fn board_added(
        emitter: &SignalEmitter<'_>,
        board: ObjectPath<'_>,
    ) -> zbus::Result<()>;

    /// A board was detached.
    #[zbus(signal)]
    pub async fn board_removed(
        emitter: &SignalEmitter<'_>,
        board: ObjectPath<'_>,
    ) -> zbus::Result<()>;
}
