//! The D-Bus service: `org.eboardd.EBoard1`.
//!
//! The manager object `/org/eboardd/EBoard1` ([`manager`]) carries the ObjectManager and
//! `org.eboardd.EBoard1.Manager`; each board is an object `/org/eboardd/EBoard1/Board/N`
//! ([`board`]) with `org.eboardd.EBoard1.Board`. [`serve`] exports the daemon's boards,
//! follows boards as they are attached and detached, and asks for the well-known name last,
//! so a client that sees the name sees every board. [`client`] holds the proxies that
//! `eboardd watch` and tests use. The interface XML is in `protocols/`.

pub mod board;
pub mod client;
pub mod error;
pub mod manager;

use std::collections::BTreeMap;
use std::sync::Arc;

use tokio::sync::Mutex;
use tokio::sync::broadcast::error::RecvError;
use tokio::task::JoinHandle;
use zbus::{Connection, OwnedObjectPath};

use crate::daemon::board::BoardHandle;
use crate::daemon::{BoardChange, Daemon};
use board::BoardObject;
use manager::ManagerObject;

/// The well-known bus name.
pub const BUS_NAME: &str = "org.eboardd.EBoard1";
/// The manager object's path.
pub const MANAGER_PATH: &str = "/org/eboardd/EBoard1";
/// The manager interface.
pub const MANAGER_INTERFACE: &str = "org.eboardd.EBoard1.Manager";
/// The board interface.
pub const BOARD_INTERFACE: &str = "org.eboardd.EBoard1.Board";

/// The object path of board `id`.
pub fn board_path(id: u32) -> String {
    format!("{MANAGER_PATH}/Board/{id}")
}

/// Which bus to serve on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bus {
    /// The user's session bus.
    Session,
    /// The system bus (the systemd service).
    System,
    /// A bus at this address (tests, private buses).
    Address(String),
}

impl Bus {
    /// A connection to this bus (no name requested yet).
    pub async fn connect(&self) -> zbus::Result<Connection> {
        let builder = match self {
            Bus::Session => zbus::connection::Builder::session(),
            Bus::System => zbus::connection::Builder::system(),
            Bus::Address(a) => zbus::connection::Builder::address(a.as_str()),
        };
        builder.build().await
    }
}

/// Exports boards as objects and announces them (cheap to clone).
#[derive(Clone)]
pub struct Exporter {
    conn: Connection,
    followers: Arc<Mutex<BTreeMap<u32, JoinHandle<()>>>>,
}

impl Exporter {
    fn new(conn: Connection) -> Self {
        Exporter {
            conn,
            followers: Arc::new(Mutex::new(BTreeMap::new())),
        }
    }

    /// The board objects exported now.
    pub async fn paths(&self) -> Vec<OwnedObjectPath> {
        let followers = self.followers.lock().await;
        followers
            .keys()
            .filter_map(|id| OwnedObjectPath::try_from(board_path(*id)).ok())
            .collect()
    }

    /// Exports the board behind `handle` (once) and returns its path.
    pub async fn export(&self, handle: BoardHandle) -> zbus::Result<OwnedObjectPath> {
        let id = handle.id();
        let path = board_path(id);
        let owned = OwnedObjectPath::try_from(path.clone())?;
        let mut followers = self.followers.lock().await;
        if followers.contains_key(&id) {
            return Ok(owned);
        }
        let events = handle.subscribe();
        self.conn
            .object_server()
            .at(path.as_str(), BoardObject::new(handle.clone()))
            .await?;
        let follower = tokio::spawn(board::follow(self.conn.clone(), path, handle, events));
        followers.insert(id, follower);
        drop(followers);
        self.announce(&owned, true).await;
        Ok(owned)
    }

    /// Removes board `id`'s object, if exported.
    pub async fn unexport(&self, id: u32) -> zbus::Result<()> {
        let Some(follower) = self.followers.lock().await.remove(&id) else {
            return Ok(());
        };
        follower.abort();
        let path = board_path(id);
        self.conn
            .object_server()
            .remove::<BoardObject, _>(path.as_str())
            .await?;
        let owned = OwnedObjectPath::try_from(path)?;
        self.announce(&owned, false).await;
        Ok(())
    }

    async fn announce(&self, path: &OwnedObjectPath, added: bool) {
        let manager = match self
            .conn
            .object_server()
            .interface::<_, ManagerObject>(MANAGER_PATH)
            .await
        {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!("cannot announce {path}: {e}");
                return;
            }
        };
        let emitter = manager.signal_emitter();
        let signal = if added {
            ManagerObject::board_added(emitter, path.as_ref()).await
        } else {
            ManagerObject::board_removed(emitter, path.as_ref()).await
        };
        let changed = manager.get().await.boards_changed(emitter).await;
        if let Err(e) = signal.and(changed) {
            tracing::warn!("cannot announce {path}: {e}");
        }
    }
}

/// The running D-Bus service.
pub struct Service {
    conn: Connection,
    follower: JoinHandle<()>,
}

impl Service {
    /// The connection the service runs on.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// Stops following the daemon and releases the name.
    pub async fn stop(self) {
        self.follower.abort();
        let _ = self.conn.release_name(BUS_NAME).await;
    }
}

/// Serves `daemon` on `bus`: exports the manager and every board, then owns the name.
pub async fn serve(daemon: Daemon, bus: &Bus) -> zbus::Result<Service> {
    let conn = bus.connect().await?;
    let exporter = Exporter::new(conn.clone());
    let server = conn.object_server();
    server.at(MANAGER_PATH, zbus::fdo::ObjectManager).await?;
    server
        .at(
            MANAGER_PATH,
            ManagerObject::new(daemon.clone(), exporter.clone()),
        )
        .await?;
    let mut changes = daemon.subscribe();
    for handle in daemon.boards().await {
        exporter.export(handle).await?;
    }
    let follower = tokio::spawn({
        let exporter = exporter.clone();
        async move {
            loop {
                let result = match changes.recv().await {
                    Ok(BoardChange::Added(handle)) => exporter.export(handle).await.map(|_| ()),
                    Ok(BoardChange::Removed(id)) => exporter.unexport(id).await,
                    Err(RecvError::Lagged(n)) => {
                        tracing::warn!("{n} board changes missed; re-exporting");
                        for handle in daemon.boards().await {
                            let _ = exporter.export(handle).await;
                        }
                        Ok(())
                    }
                    Err(RecvError::Closed) => return,
                };
                if let Err(e) = result {
                    tracing::warn!("D-Bus export: {e}");
                }
            }
        }
    });
    conn.request_name(BUS_NAME).await?;
    Ok(Service { conn, follower })
}
