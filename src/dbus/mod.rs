//! The D-Bus service: `org.eboardd.EBoard1`.
//!
//! The manager object `/org/eboardd/EBoard1` ([`manager`]) carries the ObjectManager and
//! `org.eboardd.EBoard1.Manager`; each board is an object `/org/eboardd/EBoard1/Board/N`
//! ([`board`]) with `org.eboardd.EBoard1.Board`. [`serve`] exports the daemon's boards,
//! follows boards as they are attached and detached, and asks for the well-known name last,
//! so a client that sees the name sees every board. The connection can fail (the broker
//! restarted, the daemon dropped): [`serve`] then logs it, connects again with back-off and
//! exports every board again with its state then, while the boards and games go on; the
//! [`BusHealth`] it shares tells the watchdog whether the name is owned. [`client`] holds
//! the proxies that `eboardd watch` and tests use. The interface XML is in `protocols/`.

pub mod board;
pub mod client;
pub mod error;
pub mod manager;

#[cfg(test)]
mod edge_tests;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures_util::StreamExt;

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

    /// Stops following every board (the connection is being given up).
    async fn stop(&self) {
        let _one_at_a_time = self.syncing.lock().await;
        let mut followers = self.followers.lock().await;
        for (_, follower) in std::mem::take(&mut *followers) {
            follower.abort();
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

/// The shortest and longest waits between attempts to get back on the bus.
pub const RECONNECT_MIN: Duration = Duration::from_millis(500);
/// See [`RECONNECT_MIN`].
pub const RECONNECT_MAX: Duration = Duration::from_secs(10);

/// Whether the daemon is on the bus with its name now (cheap to clone). The watchdog
/// withholds its pings while it is not, so a daemon that cannot get its name back is
/// restarted by systemd rather than living on without it.
#[derive(Debug, Clone, Default)]
pub struct BusHealth {
    owned: Arc<AtomicBool>,
}

impl BusHealth {
    /// Whether the daemon owns its bus name now.
    pub fn owns_name(&self) -> bool {
        self.owned.load(Ordering::Relaxed)
    }

    fn set(&self, owned: bool) {
        self.owned.store(owned, Ordering::Relaxed);
    }
}

/// One connection to the bus with everything exported on it.
struct Session {
    conn: Connection,
    exporter: Exporter,
    follower: JoinHandle<()>,
}

impl Session {
    /// Connects, exports the manager and every board with its state now, then owns the
    /// name.
    async fn start(daemon: &Daemon, bus: &Bus) -> zbus::Result<Session> {
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
        let session = Session {
            conn,
            exporter,
            follower,
        };
        match session.conn.request_name(BUS_NAME).await {
            Ok(()) => Ok(session),
            Err(e) => {
                session.close().await;
                Err(e)
            }
        }
    }

    /// Resolves when the connection is lost (the broker went away or dropped it) or the
    /// name was taken from it; says why.
    async fn lost(&self) -> String {
        let mut messages = zbus::MessageStream::from(&self.conn);
        let name_lost = match zbus::fdo::DBusProxy::new(&self.conn).await {
            Ok(proxy) => proxy.receive_name_lost().await.ok(),
            Err(e) => return format!("cannot watch the bus name: {e}"),
        };
        let watch_messages = async {
            loop {
                match messages.next().await {
                    Some(Ok(_)) => {}
                    Some(Err(e)) => return e.to_string(),
                    None => return "the connection closed".to_string(),
                }
            }
        };
        let watch_name = async {
            let Some(mut lost) = name_lost else {
                return std::future::pending().await;
            };
            while let Some(signal) = lost.next().await {
                if signal.args().is_ok_and(|a| a.name() == BUS_NAME) {
                    return format!("{BUS_NAME} was taken from the daemon");
                }
            }
            "the connection closed".to_string()
        };
        tokio::select! {
            why = watch_messages => why,
            why = watch_name => why,
        }
    }

    /// Stops publishing on this connection. The manager object is removed too: it holds
    /// the exporter, which holds the connection, and the connection would otherwise keep
    /// itself alive through its own object server.
    async fn close(self) {
        self.follower.abort();
        self.exporter.stop().await;
        let server = self.conn.object_server();
        let _ = server.remove::<ManagerObject, _>(MANAGER_PATH).await;
        let _ = server
            .remove::<zbus::fdo::ObjectManager, _>(MANAGER_PATH)
            .await;
    }
}

/// The running D-Bus service: on the bus for as long as it runs, reconnecting when the
/// connection is lost.
pub struct Service {
    current: Arc<Mutex<Option<Connection>>>,
    health: BusHealth,
    supervisor: JoinHandle<()>,
}

impl Service {
    /// The connection the service runs on now (`None` while it is getting back on the
    /// bus).
    pub async fn connection(&self) -> Option<Connection> {
        self.current.lock().await.clone()
    }

    /// Whether the daemon owns its name now, shared with whoever needs to know.
    pub fn health(&self) -> BusHealth {
        self.health.clone()
    }

    /// Stops following the daemon and releases the name.
    pub async fn stop(self) {
        self.supervisor.abort();
        if let Some(conn) = self.current.lock().await.take() {
            let _ = conn.release_name(BUS_NAME).await;
        }
    }
}

/// Serves `daemon` on `bus`: exports the manager and every board, then owns the name.
///
/// The first connection's failure is returned. After that the connection is a resource
/// that can fail: when it is lost, that is logged, and the service connects again with
/// back-off ([`RECONNECT_MIN`] doubling to [`RECONNECT_MAX`]), exports every board with
/// its state then and owns the name again; the boards and their games go on meanwhile.
pub async fn serve(daemon: Daemon, bus: &Bus) -> zbus::Result<Service> {
    let session = Session::start(&daemon, bus).await?;
    let health = BusHealth::default();
    health.set(true);
    let current = Arc::new(Mutex::new(Some(session.conn.clone())));
    let supervisor = tokio::spawn(supervise(
        daemon,
        bus.clone(),
        session,
        health.clone(),
        current.clone(),
    ));
    Ok(Service {
        current,
        health,
        supervisor,
    })
}

async fn supervise(
    daemon: Daemon,
    bus: Bus,
    mut session: Session,
    health: BusHealth,
    current: Arc<Mutex<Option<Connection>>>,
) {
    loop {
        let why = session.lost().await;
        health.set(false);
        *current.lock().await = None;
        tracing::error!(
            "lost the D-Bus connection ({why}); connecting again, the boards and games go on"
        );
        session.close().await;
        let mut delay = RECONNECT_MIN;
        let mut attempts = 0u32;
        session = loop {
            tokio::time::sleep(delay).await;
            attempts += 1;
            match Session::start(&daemon, &bus).await {
                Ok(s) => break s,
                Err(e) => {
                    if attempts == 1 {
                        tracing::warn!(
                            "cannot get back on the bus yet ({e}); trying again every {} s at most",
                            RECONNECT_MAX.as_secs()
                        );
                    } else {
                        tracing::debug!("still not back on the bus: {e}");
                    }
                    delay = (delay * 2).min(RECONNECT_MAX);
                }
            }
        };
        *current.lock().await = Some(session.conn.clone());
        health.set(true);
        let boards = session.exporter.paths().await.len();
        tracing::info!(
            "back on the bus as {BUS_NAME} after {attempts} attempt(s), {boards} board(s) exported"
        );
    }
}
