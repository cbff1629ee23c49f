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

#[cfg(test)]
mod edge_tests;

use std::collections::BTreeMap;
use std::sync::Arc;

use tokio::sync::Mutex;
use tokio::sync::broadcast::error::RecvError;
use tokio::task::JoinHandle;
use zbus::{Connection, OwnedObjectPath};

use crate::daemon::Daemon;
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

/// Exports the daemon's boards as objects and announces them (cheap to clone).
///
/// Every change goes through [`Exporter::sync`], which makes the exported objects match the
/// daemon's boards as they are *now*; syncs run one at a time and announce in order, so a
/// late notice of an attach can never bring back a board that was detached since.
#[derive(Clone)]
pub struct Exporter {
    conn: Connection,
    daemon: Daemon,
    followers: Arc<Mutex<BTreeMap<u32, JoinHandle<()>>>>,
    syncing: Arc<Mutex<()>>,
}

impl Exporter {
    fn new(conn: Connection, daemon: Daemon) -> Self {
        Exporter {
            conn,
            daemon,
            followers: Arc::new(Mutex::new(BTreeMap::new())),
            syncing: Arc::new(Mutex::new(())),
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

    /// Exports every board the daemon has and removes the objects of boards it no longer
    /// has, then announces each change (BoardAdded, BoardRemoved, Boards).
    pub async fn sync(&self) -> zbus::Result<()> {
        let _one_at_a_time = self.syncing.lock().await;
        let boards = self.daemon.boards().await;
        let mut added = Vec::new();
        let mut removed = Vec::new();
        let mut result = Ok(());
        {
            let mut followers = self.followers.lock().await;
            let gone: Vec<u32> = followers
                .keys()
                .copied()
                .filter(|id| !boards.iter().any(|b| b.id() == *id))
                .collect();
            for id in gone {
                if let Some(follower) = followers.remove(&id) {
                    follower.abort();
                }
                let path = board_path(id);
                if let Err(e) = self
                    .conn
                    .object_server()
                    .remove::<BoardObject, _>(path.as_str())
                    .await
                {
                    result = Err(e);
                }
                removed.push(path);
            }
            for handle in boards {
                let id = handle.id();
                if followers.contains_key(&id) {
                    continue;
                }
                let path = board_path(id);
                let events = handle.subscribe();
                let exported = self
                    .conn
                    .object_server()
                    .at(path.as_str(), BoardObject::new(handle.clone()))
                    .await;
                if let Err(e) = exported {
                    result = Err(e);
                    continue;
                }
                let follower = tokio::spawn(board::follow(
                    self.conn.clone(),
                    path.clone(),
                    handle,
                    events,
                ));
                followers.insert(id, follower);
                added.push(path);
            }
        }
        for path in removed {
            self.announce(&path, false).await;
        }
        for path in added {
            self.announce(&path, true).await;
        }
        result
    }

    async fn announce(&self, path: &str, added: bool) {
        let Ok(path) = zbus::ObjectPath::try_from(path) else {
            return;
        };
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
            ManagerObject::board_added(emitter, path.clone()).await
        } else {
            ManagerObject::board_removed(emitter, path.clone()).await
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
    let exporter = Exporter::new(conn.clone(), daemon.clone());
    let server = conn.object_server();
    server.at(MANAGER_PATH, zbus::fdo::ObjectManager).await?;
    server
        .at(
            MANAGER_PATH,
            ManagerObject::new(daemon.clone(), exporter.clone()),
        )
        .await?;
    let mut changes = daemon.subscribe();
    exporter.sync().await?;
    let follower = tokio::spawn({
        let exporter = exporter.clone();
        async move {
            loop {
                match changes.recv().await {
                    Ok(_) | Err(RecvError::Lagged(_)) => {
                        if let Err(e) = exporter.sync().await {
                            tracing::warn!("D-Bus export: {e}");
                        }
                    }
                    Err(RecvError::Closed) => return,
                }
            }
        }
    });
    conn.request_name(BUS_NAME).await?;
    Ok(Service { conn, follower })
}
