//! The HTTP front of the daemon: one server, on hyper and axum, for the relay
//! (`--relay-listen`: PGN, events and the live page) and the LiveChess API
//! (`--livechess-listen`).
//!
//! [`serve`] accepts connections on a listener and hands each to hyper with the limits that
//! keep the daemon alive whatever clients do:
//!
//! - a request head must arrive within [`WebOptions::header_timeout`] and fit in 16 KiB
//!   (larger heads get `431`); a connection on which no byte moves either way for
//!   [`WebOptions::idle_timeout`] is closed ([`idle`]), so event streams nobody reads end
//!   (the kernel holds at most [`SEND_BUFFER`] unsent bytes for each);
//! - at most [`WebOptions::max_connections`] connections at once, over all listeners; when
//!   they are all taken, the oldest connection that has not yet sent a request gives up
//!   its place to the new one, and if every one has, new ones wait in the kernel's queue;
//! - an accept that fails (out of descriptors) closes the oldest connection that has not
//!   sent a request, or else is retried after a pause that grows from 10 ms to 1 s; it is
//!   logged once a minute at most.
//!
//! [`guard`] checks `Host` and `Origin`; [`cache`] answers conditional requests. The routes
//! themselves live with what they serve (`relay::http`, `livechess::server`). This module
//! knows nothing of boards.

pub mod cache;
pub mod guard;
pub mod idle;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, oneshot};
use tower::ServiceExt as _;

use idle::IdleIo;

/// The largest request head read, in bytes.
pub const MAX_HEAD: usize = 16 * 1024;
/// The kernel's send buffer for each connection, in bytes: without a bound, a client that
/// stops reading has the kernel hold up to megabytes for it.
pub const SEND_BUFFER: usize = 64 * 1024;
/// The most connections served at once when neither the configuration nor the descriptor
/// limit says less.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

/// The limits of the HTTP front.
#[derive(Debug, Clone)]
pub struct WebOptions {
    /// The most connections open at once, over all listeners.
    pub max_connections: usize,
    /// How long a client may take to send a request head.
    pub header_timeout: Duration,
    /// How long a connection may stay with no byte moving either way.
    pub idle_timeout: Duration,
    /// Browser origins allowed besides loopback pages and lichess.org.
    pub allowed_origins: Vec<String>,
}

impl Default for WebOptions {
    fn default() -> WebOptions {
        WebOptions {
            max_connections: default_max_connections(),
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            allowed_origins: Vec::new(),
        }
    }
}

impl WebOptions {
    /// How often a quiet stream (server-sent events, a WebSocket) is sent something, so
    /// that it is not taken for an idle connection: a quarter of the idle timeout.
    pub fn keep_alive(&self) -> Duration {
        (self.idle_timeout / 4).max(Duration::from_millis(100))
    }
}

/// The descriptor limit now (`RLIMIT_NOFILE`, soft), if it has one.
pub fn descriptor_limit() -> Option<u64> {
    rustix::process::getrlimit(rustix::process::Resource::Nofile).current
}

/// [`DEFAULT_MAX_CONNECTIONS`], or fewer: at most half the descriptor limit less 64 for
/// boards, journals and the bus, so that connections alone never exhaust it.
pub fn default_max_connections() -> usize {
    default_max_connections_for(descriptor_limit(), DEFAULT_MAX_CONNECTIONS)
}

/// At most `wanted` connections, and at most half the descriptor limit `limit` less 64.
pub fn default_max_connections_for(limit: Option<u64>, wanted: usize) -> usize {
    let by_limit = limit
        .map(|n| usize::try_from(n.saturating_sub(64) / 2).unwrap_or(usize::MAX))
        .unwrap_or(usize::MAX);
    wanted.min(by_limit).max(8)
}

/// Raises the soft descriptor limit to the hard one (as systemd leaves it at 1,024 for
/// `select()`'s sake, which eboardd does not use); the limit now.
pub fn raise_descriptor_limit() -> Option<u64> {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    if limit.current != limit.maximum {
        limit.current = limit.maximum;
        if let Err(e) = setrlimit(Resource::Nofile, limit) {
            tracing::debug!("cannot raise the descriptor limit: {e}");
        }
    }
    descriptor_limit()
}

/// One open connection, as the cap sees it.
#[derive(Debug)]
struct Slot {
    /// Set until its first request arrives; a fresh connection may be evicted.
    evict: Option<oneshot::Sender<()>>,
}

#[derive(Debug, Default)]
struct Registry {
    next: u64,
    open: BTreeMap<u64, Slot>,
}

/// The connections open over all listeners, and the cap on them.
#[derive(Debug)]
pub struct Connections {
    cap: usize,
    registry: Mutex<Registry>,
    freed: Notify,
}

impl Connections {
    /// No connection yet, at most `cap` at once.
    pub fn new(cap: usize) -> Arc<Connections> {
        Arc::new(Connections {
            cap: cap.max(1),
            registry: Mutex::new(Registry::default()),
            freed: Notify::new(),
        })
    }

    /// How many connections are open now.
    pub fn open(&self) -> usize {
        self.registry.lock().map_or(0, |r| r.open.len())
    }

    /// Whether a new connection can be taken now.
    fn room_now(&self) -> bool {
        self.registry.lock().map_or(true, |r| {
            r.open.len() < self.cap || r.open.values().any(|s| s.evict.is_some())
        })
    }

    /// Waits until a new connection can be taken: there is room, or a fresh connection to
    /// give up its place.
    async fn room(&self) {
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            freed.as_mut().enable();
            if self.room_now() {
                return;
            }
            freed.await;
        }
    }

    /// Evicts the oldest fresh connection; whether there was one.
    fn evict_oldest(&self) -> bool {
        let Ok(mut r) = self.registry.lock() else {
            return false;
        };
        let oldest = r.open.values_mut().find_map(|s| s.evict.take());
        oldest.is_some_and(|tx| tx.send(()).is_ok())
    }

    /// Registers a new connection, evicting the oldest fresh one when at the cap.
    fn admit(self: &Arc<Self>) -> (Arc<SlotGuard>, oneshot::Receiver<()>) {
        let (tx, rx) = oneshot::channel();
        let full = self.open() >= self.cap;
        if full && self.evict_oldest() {
            tracing::debug!("connection cap reached: closed the oldest idle connection");
        }
        let id = match self.registry.lock() {
            Ok(mut r) => {
                let id = r.next;
                r.next += 1;
                r.open.insert(id, Slot { evict: Some(tx) });
                id
            }
            Err(_) => u64::MAX,
        };
        let guard = SlotGuard {
            id,
            connections: self.clone(),
        };
        (Arc::new(guard), rx)
    }

    /// The connection `id` has sent a request: it keeps its place.
    fn used(&self, id: u64) {
        if let Ok(mut r) = self.registry.lock()
            && let Some(slot) = r.open.get_mut(&id)
        {
            slot.evict = None;
        }
    }
}

/// A connection's place under the cap, given back when the last clone is dropped (a
/// WebSocket session holds one after its HTTP connection has ended).
#[derive(Debug)]
pub struct SlotGuard {
    id: u64,
    connections: Arc<Connections>,
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        if let Ok(mut r) = self.connections.registry.lock() {
            r.open.remove(&self.id);
        }
        self.connections.freed.notify_waiters();
    }
}

/// How failed accepts are paced and told.
#[derive(Debug, Default)]
struct AcceptErrors {
    pause: Option<Duration>,
    failed: u64,
    told: Option<Instant>,
    untold: u64,
}

impl AcceptErrors {
    /// Notes a failure; how long to wait before the next accept.
    fn failed(&mut self, name: &str, e: &std::io::Error) -> Duration {
        self.failed += 1;
        let now = Instant::now();
        if self
            .told
            .is_none_or(|t| now.duration_since(t) >= Duration::from_secs(60))
        {
            let more = std::mem::take(&mut self.untold);
            tracing::warn!(
                "{name}: cannot accept connections: {e} (retrying with back-off; \
                 {more} more failure(s) since the last report)"
            );
            self.told = Some(now);
        } else {
            self.untold += 1;
        }
        let pause = self.pause.map_or(Duration::from_millis(10), |p| {
            (p * 2).min(Duration::from_secs(1))
        });
        self.pause = Some(pause);
        pause
    }

    fn accepted(&mut self, name: &str) {
        if self.failed > 0 {
            tracing::info!(
                "{name}: accepting again after {} failed accept(s)",
                self.failed
            );
            self.failed = 0;
            self.pause = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_accepts_back_off_to_a_second_and_start_over_after_one_succeeds() {
        let mut errors = AcceptErrors::default();
        let e = std::io::Error::from_raw_os_error(24);
        let pauses: Vec<u128> = (0..10)
            .map(|_| errors.failed("test", &e).as_millis())
            .collect();
        assert_eq!(pauses, [10, 20, 40, 80, 160, 320, 640, 1000, 1000, 1000]);
        // Told once: the other nine wait for the next report.
        assert_eq!(errors.untold, 9);
        errors.accepted("test");
        assert_eq!(errors.failed("test", &e).as_millis(), 10);
    }

    #[test]
    fn the_cap_leaves_half_the_descriptors_less_a_reserve() {
        assert_eq!(default_max_connections_for(Some(1024), 1024), 480);
        assert_eq!(default_max_connections_for(Some(524_288), 1024), 1024);
        assert_eq!(default_max_connections_for(None, 1024), 1024);
        assert_eq!(default_max_connections_for(Some(20), 1024), 8);
    }

    #[tokio::test]
    async fn at_the_cap_the_oldest_fresh_connection_is_evicted_and_a_used_one_is_not() {
        let connections = Connections::new(2);
        let (a, mut a_evicted) = connections.admit();
        connections.used(a.id);
        let (_b, mut b_evicted) = connections.admit();
        assert!(connections.room_now());
        let (_c, _) = connections.admit();
        assert_eq!(b_evicted.try_recv(), Ok(()), "the fresh one goes");
        assert!(a_evicted.try_recv().is_err(), "the used one stays");
    }
}

/// Serves `router` on `listener` under `options` and the shared cap of `connections`,
/// until the task is dropped. `name` says which listener in the log.
pub async fn serve(
    name: &'static str,
    listener: TcpListener,
    router: Router,
    options: Arc<WebOptions>,
    connections: Arc<Connections>,
) {
    let mut errors = AcceptErrors::default();
    loop {
        connections.room().await;
        match listener.accept().await {
            Ok((stream, peer)) => {
                errors.accepted(name);
                let (slot, evicted) = connections.admit();
                let router = router.clone();
                let options = options.clone();
                tokio::spawn(async move {
                    connection(stream, router, &options, slot, evicted).await;
                    tracing::trace!(%peer, "{name}: connection closed");
                });
            }
            Err(e) => {
                let pause = errors.failed(name, &e);
                // Out of descriptors: a fresh connection gives one back, else wait.
                if connections.evict_oldest() {
                    tokio::task::yield_now().await;
                } else {
                    tokio::time::sleep(pause).await;
                }
            }
        }
    }
}

/// Serves one connection until it ends, is evicted or times out.
async fn connection(
    stream: TcpStream,
    router: Router,
    options: &WebOptions,
    slot: Arc<SlotGuard>,
    evicted: oneshot::Receiver<()>,
) {
    let _ = stream.set_nodelay(true);
    if let Err(e) = rustix::net::sockopt::set_socket_send_buffer_size(&stream, SEND_BUFFER) {
        tracing::debug!("cannot bound a connection's send buffer: {e}");
    }
    let io = TokioIo::new(IdleIo::new(stream, options.idle_timeout));
    let service_slot = slot.clone();
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        service_slot.connections.used(service_slot.id);
        request.extensions_mut().insert(Held(service_slot.clone()));
        router.clone().oneshot(request.map(Body::new))
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(options.header_timeout)
        .max_buf_size(MAX_HEAD);
    let served = builder.serve_connection(io, service).with_upgrades();
    tokio::select! {
        done = served => if let Err(e) = done {
            tracing::debug!("connection: {e}");
        },
        Ok(()) = evicted => tracing::debug!("connection evicted for a new one"),
    }
    drop(slot);
}

/// A connection's place under the cap, in every request's extensions: a handler that
/// takes the connection over (a WebSocket) keeps it for as long as it runs.
#[derive(Debug, Clone)]
pub struct Held(pub Arc<SlotGuard>);
