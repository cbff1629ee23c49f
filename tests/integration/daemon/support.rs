//! A private bus, a daemon on it, and a client that records every signal.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use eboardd::daemon::config::{BoardConfig, ProtocolChoice};
use eboardd::daemon::core::CoreFactory;
use eboardd::daemon::{Daemon, DaemonOptions};
use eboardd::dbus::client::{BoardProxy, ManagerProxy};
use eboardd::dbus::{self, BUS_NAME, Bus, Service};
use eboardd::laws::{Edition, TouchMove};
use eboardd::protocol::Protocol;
use futures_util::StreamExt;
use tokio::sync::mpsc;
use zbus::{Connection, MatchRule, Message, MessageStream};

use crate::daemon::script_core::{self, Seen};

/// How long any one thing may take before a test fails.
pub const LIMIT: Duration = Duration::from_secs(10);

/// Starts an in-process broker (busd) on a socket under `dir`; returns its address.
pub fn start_bus(dir: &Path) -> String {
    let socket = dir.join("bus");
    let address = format!("unix:path={}", socket.display());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        zruntime::block_on(async move {
            let mut bus = match busd::bus::Bus::for_address(Some(&address)).await {
                Ok(b) => b,
                Err(e) => {
                    let _ = tx.send(Err(e.to_string()));
                    return;
                }
            };
            let _ = tx.send(Ok(bus.address().to_string()));
            if let Err(e) = bus.run().await {
                eprintln!("test bus stopped: {e}");
            }
        })
    });
    rx.recv_timeout(LIMIT)
        .expect("the bus starts")
        .expect("the bus listens")
}

/// A board configured on `device`, speaking the scripted protocol (named dgt: no probing).
pub fn scripted_board(device: &Path) -> BoardConfig {
    BoardConfig {
        protocol: ProtocolChoice::Fixed(Protocol::Dgt),
        white: Some("Anna".into()),
        black: Some("Boris".into()),
        ..BoardConfig::for_device(device)
    }
}

/// Daemon options with scripted cores.
pub fn options(state_dir: &Path, factory: CoreFactory) -> DaemonOptions {
    DaemonOptions {
        state_dir: state_dir.to_path_buf(),
        laws: Edition::Fide2023,
        touch_move: TouchMove::Report,
        record_dir: None,
        factory,
        boards: Vec::new(),
        pgn_tags: Default::default(),
    }
}

/// A daemon with scripted cores and `boards`, served on `address`.
pub async fn start_daemon(
    address: &str,
    state_dir: &Path,
    boards: Vec<BoardConfig>,
) -> (Daemon, Service, Arc<Mutex<Seen>>) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let daemon = Daemon::new(options(state_dir, script_core::factory(seen.clone())));
    for b in boards {
        daemon.attach(b).await.expect("attach");
    }
    let service = dbus::serve(daemon.clone(), &Bus::Address(address.to_string()))
        .await
        .expect("serve");
    (daemon, service, seen)
}

/// A client connection to the bus at `address`.
pub async fn client(address: &str) -> Connection {
    zbus::connection::Builder::address(address)
        .build()
        .await
        .expect("client connection")
}

/// Every signal the daemon sends, in order.
pub struct Signals {
    rx: mpsc::UnboundedReceiver<Message>,
}

impl Signals {
    /// Starts recording the daemon's signals.
    pub async fn record(conn: &Connection) -> Signals {
        let rule = MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .sender(BUS_NAME)
            .build()
            .expect("rule");
        let mut stream = MessageStream::for_match_rule(rule, conn, None)
            .await
            .expect("signal stream");
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Some(Ok(msg)) = stream.next().await {
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        Signals { rx }
    }

    /// The next signal `member` (skipping others), within the time limit.
    pub async fn next(&mut self, member: &str) -> Message {
        let wait = async {
            loop {
                let msg = self.rx.recv().await.expect("signal stream open");
                if msg.header().member().is_some_and(|m| m.as_str() == member) {
                    return msg;
                }
            }
        };
        tokio::time::timeout(LIMIT, wait)
            .await
            .unwrap_or_else(|_| panic!("no {member} signal within {LIMIT:?}"))
    }

    /// The next `PropertiesChanged` that carries `property`; returns its value.
    pub async fn changed(&mut self, property: &str) -> zbus::OwnedVariant {
        let mut changed = self.changes(property).await;
        changed.remove(property).expect("carried")
    }

    /// The next `PropertiesChanged` that carries `property`; returns every property it
    /// carries.
    pub async fn changes(
        &mut self,
        property: &str,
    ) -> std::collections::HashMap<String, zbus::OwnedVariant> {
        loop {
            let msg = self.next("PropertiesChanged").await;
            let (_, changed, _): (
                String,
                std::collections::HashMap<String, zbus::OwnedVariant>,
                Vec<String>,
            ) = msg.body().deserialize().expect("PropertiesChanged body");
            if changed.contains_key(property) {
                return changed;
            }
        }
    }

    /// Every signal up to and including the first that `last` accepts, within `limit`.
    pub async fn until(
        &mut self,
        limit: Duration,
        last: impl Fn(&Message) -> bool,
    ) -> Vec<Message> {
        let mut seen = Vec::new();
        let wait = async {
            loop {
                let msg = self.rx.recv().await.expect("signal stream open");
                let done = last(&msg);
                seen.push(msg);
                if done {
                    return;
                }
            }
        };
        if tokio::time::timeout(limit, wait).await.is_err() {
            let members: Vec<String> = seen
                .iter()
                .map(|m| match m.body().deserialize::<(String,)>() {
                    Ok((json,)) if member(m) == "Event" => json,
                    _ => member(m),
                })
                .collect();
            panic!("the last signal awaited did not come within {limit:?}; seen {members:?}");
        }
        seen
    }

    /// Forgets the signals received so far.
    pub fn clear(&mut self) {
        while self.rx.try_recv().is_ok() {}
    }
}

/// A signal's member name.
pub fn member(msg: &Message) -> String {
    msg.header()
        .member()
        .map(|m| m.to_string())
        .unwrap_or_default()
}

/// A temporary directory with the board link path in it.
pub fn board_link(dir: &Path, name: &str) -> PathBuf {
    dir.join(name)
}

/// A proxy for board object `path` that reads properties from the daemon on every call
/// (a caching proxy may lag behind the signals a test has already seen).
pub async fn board_proxy(conn: &Connection, path: String) -> BoardProxy<'static> {
    BoardProxy::builder(conn)
        .path(path)
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
        .expect("board proxy")
}

/// A manager proxy that does not cache properties.
pub async fn manager_proxy(conn: &Connection) -> ManagerProxy<'static> {
    ManagerProxy::builder(conn)
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
        .expect("manager proxy")
}

/// Logs the daemon's tracing to stderr when `EBOARDD_TEST_LOG` is set (a filter such as
/// `debug`), for debugging a test.
pub fn logs() {
    if let Ok(filter) = std::env::var("EBOARDD_TEST_LOG") {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .try_init();
    }
}
