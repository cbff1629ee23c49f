//! A board's serial link: opening the port, finding which board answers on it, telling an
//! unplugged board from a broken one, and how long to wait before trying again; and the one
//! shell that drives a board's core over an open port ([`port`]).
//!
//! Unplugging shows up in many ways (end of file, `EIO`, broken pipe, `ENXIO`, `ENODEV`, the
//! node vanishing); they all mean "the board went away" and lead to a quiet reconnect with
//! back-off ([`Reconnect`]). Anything else is logged louder but retried the same way: a
//! board that cannot be opened now (permissions not yet granted by udev, a port held by
//! another program) may be openable later. The daemon's board tasks and `eboardd uci
//! --device` reconnect by the same policy. Nothing here decodes a game.

pub mod port;
pub mod probe;

pub use port::{Clock, Port};

use std::io;
use std::path::Path;
use std::time::Duration;

use tokio::time::Instant;

use tokio_serial::{SerialPortBuilderExt, SerialStream};

use crate::protocol::Protocol;
use probe::ProbeError;

/// The first wait before reopening a board.
pub const BACKOFF_MIN: Duration = Duration::from_millis(500);
/// The longest wait before reopening a board.
pub const BACKOFF_MAX: Duration = Duration::from_secs(10);

/// Why a link failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct LinkError {
    /// Whether this is what unplugging (or a lost radio link) looks like.
    pub unplugged: bool,
    /// What showed it, for people.
    pub reason: String,
}

impl LinkError {
    /// The link ended at end of file (the port was hung up).
    pub fn end_of_file() -> Self {
        LinkError {
            unplugged: true,
            reason: "end of file".to_string(),
        }
    }

    /// A link error from an IO error.
    pub fn from_io(e: &io::Error) -> Self {
        LinkError {
            unplugged: is_unplug(e),
            reason: e.to_string(),
        }
    }
}

/// Whether an IO error is one of the ways an unplugged board shows.
pub fn is_unplug(e: &io::Error) -> bool {
    const EIO: i32 = 5;
    const ENXIO: i32 = 6;
    const ENOENT: i32 = 2;
    const ENODEV: i32 = 19;
    if let Some(code) = e.raw_os_error() {
        return matches!(code, EIO | ENXIO | ENOENT | ENODEV);
    }
    matches!(
        e.kind(),
        io::ErrorKind::UnexpectedEof
            | io::ErrorKind::BrokenPipe
            | io::ErrorKind::NotFound
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
    )
}

/// Opens `path` exclusively, 8N1 at `baud`, without flow control.
pub fn open(path: &Path, baud: u32) -> Result<SerialStream, LinkError> {
    if !path.exists() {
        return Err(LinkError {
            unplugged: true,
            reason: format!("{} does not exist", path.display()),
        });
    }
    tokio_serial::new(path.to_string_lossy(), baud)
        .data_bits(tokio_serial::DataBits::Eight)
        .parity(tokio_serial::Parity::None)
        .stop_bits(tokio_serial::StopBits::One)
        .flow_control(tokio_serial::FlowControl::None)
        .open_native_async()
        .map_err(|e| {
            let unplugged = match e.kind {
                tokio_serial::ErrorKind::NoDevice => !e.description.contains("exclusive"),
                tokio_serial::ErrorKind::Io(kind) => is_unplug(&io::Error::from(kind)),
                _ => false,
            };
            LinkError {
                unplugged,
                reason: format!("cannot open {}: {}", path.display(), e.description),
            }
        })
}

/// Opens the board at `path`: at `protocol`'s speed, or, when `protocol` is `None`, asking
/// the board which protocol it speaks (as `first` first: a board coming back most likely
/// speaks what it spoke before). Opening runs on the blocking pool: opening a Bluetooth
/// node can take seconds.
pub async fn connect(
    path: &Path,
    protocol: Option<Protocol>,
    first: Protocol,
) -> Result<(Port, Protocol), LinkError> {
    let baud = protocol.unwrap_or(first).baud_rate();
    let owned = path.to_path_buf();
    let mut stream = tokio::task::spawn_blocking(move || open(&owned, baud))
        .await
        .map_err(|join| LinkError {
            unplugged: false,
            reason: format!("opening the port failed: {join}"),
        })??;
    let protocol = match protocol {
        Some(p) => p,
        None => match probe::probe_first(&mut stream, first).await {
            Ok(p) => p,
            Err(ProbeError::Link(e)) => return Err(e),
            Err(e @ ProbeError::NoAnswer) => {
                return Err(LinkError {
                    unplugged: false,
                    reason: e.to_string(),
                });
            }
        },
    };
    Ok((Port::new(path, stream), protocol))
}

/// The reconnection policy every shell follows: doubling waits ([`Backoff`]) that start
/// again from the shortest after a link that held, and each failure said once until it
/// changes or the link comes back.
#[derive(Debug, Default)]
pub struct Reconnect {
    backoff: Backoff,
    last_failure: Option<String>,
    up_since: Option<Instant>,
}

impl Reconnect {
    /// The link is up.
    pub fn up(&mut self) {
        self.last_failure = None;
        self.up_since = Some(Instant::now());
    }

    /// The link failed (or could not be made): whether this is news worth saying.
    pub fn failed(&mut self, e: &LinkError) -> bool {
        if let Some(since) = self.up_since.take() {
            // A link that held for a while starts the waits again from the shortest; one
            // that fails at once keeps backing off.
            if since.elapsed() >= BACKOFF_MAX {
                self.backoff.reset();
            }
        }
        let text = e.to_string();
        let news = self.last_failure.as_deref() != Some(text.as_str());
        self.last_failure = Some(text);
        news
    }

    /// When to try again.
    pub fn next_try(&mut self) -> Instant {
        Instant::now() + self.backoff.next_delay()
    }
}

/// Doubling waits between reconnection attempts, from [`BACKOFF_MIN`] to [`BACKOFF_MAX`].
#[derive(Debug, Clone)]
pub struct Backoff {
    next: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff { next: BACKOFF_MIN }
    }
}

impl Backoff {
    /// The wait before the next attempt (each call doubles the one after, up to the cap).
    pub fn next_delay(&mut self) -> Duration {
        let d = self.next;
        self.next = (self.next * 2).min(BACKOFF_MAX);
        d
    }

    /// Starts again from the shortest wait (after a link worked).
    pub fn reset(&mut self) {
        self.next = BACKOFF_MIN;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_half_a_second_to_ten_seconds() {
        let mut b = Backoff::default();
        let waits: Vec<u64> = (0..8).map(|_| b.next_delay().as_millis() as u64).collect();
        assert_eq!(waits, [500, 1000, 2000, 4000, 8000, 10000, 10000, 10000]);
        b.reset();
        assert_eq!(b.next_delay(), BACKOFF_MIN);
    }

    fn failure(reason: &str) -> LinkError {
        LinkError {
            unplugged: true,
            reason: reason.to_string(),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn reconnect_says_a_failure_once_and_backs_off_until_a_link_holds() {
        let mut r = Reconnect::default();
        let waits = |r: &mut Reconnect| r.next_try() - Instant::now();
        assert!(r.failed(&failure("gone")), "the first failure is news");
        assert_eq!(waits(&mut r), BACKOFF_MIN);
        assert!(!r.failed(&failure("gone")), "the same failure again is not");
        assert_eq!(waits(&mut r), BACKOFF_MIN * 2);
        assert!(r.failed(&failure("refused")), "another failure is");
        assert_eq!(waits(&mut r), BACKOFF_MIN * 4);
        // A link that fails at once: the failure is said again, the waits keep growing.
        r.up();
        tokio::time::advance(Duration::from_secs(1)).await;
        assert!(
            r.failed(&failure("refused")),
            "said again after the link was up"
        );
        assert_eq!(waits(&mut r), BACKOFF_MIN * 8);
        // A link that held: the waits start again from the shortest.
        r.up();
        tokio::time::advance(BACKOFF_MAX).await;
        assert!(r.failed(&failure("gone")));
        assert_eq!(waits(&mut r), BACKOFF_MIN);
    }

    #[test]
    fn unplug_errors_are_told_from_others() {
        for code in [5, 6, 19, 2] {
            assert!(is_unplug(&io::Error::from_raw_os_error(code)), "{code}");
        }
        assert!(is_unplug(&io::Error::from(io::ErrorKind::BrokenPipe)));
        assert!(!is_unplug(&io::Error::from_raw_os_error(13)), "EACCES");
        assert!(!is_unplug(&io::Error::from(io::ErrorKind::InvalidData)));
    }

    #[test]
    fn opening_a_missing_node_counts_as_unplugged() {
        let e = open(Path::new("/dev/eboardd-test-no-such-port"), 9600).expect_err("missing");
        assert!(e.unplugged, "{e}");
    }
}
