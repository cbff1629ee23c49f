//! A relay in front of the test broker: what the daemon connects through, so that a test
//! can kill the daemon's bus connection (the broker sees it close and frees the name, the
//! daemon sees its socket end) and refuse it for a while, as a restarting broker would.

use std::io;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A relay from a socket of its own to the broker's.
pub struct BusRelay {
    address: String,
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    refusing: AtomicBool,
    accepted: AtomicUsize,
    open: Mutex<Vec<UnixStream>>,
}

fn socket_path(address: &str) -> PathBuf {
    let rest = address
        .strip_prefix("unix:path=")
        .expect("a unix:path= address");
    PathBuf::from(rest.split(',').next().unwrap_or(rest))
}

impl BusRelay {
    /// Listens at `dir/relay` and relays every connection to the broker at `broker`.
    pub fn start(dir: &Path, broker: &str) -> BusRelay {
        let path = dir.join("relay");
        let listener = UnixListener::bind(&path).expect("relay listens");
        let broker = socket_path(broker);
        let shared = Arc::new(Shared::default());
        let accepting = shared.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                accepting.accepted.fetch_add(1, Ordering::SeqCst);
                if accepting.refusing.load(Ordering::SeqCst) {
                    drop(client);
                    continue;
                }
                let upstream = match UnixStream::connect(&broker) {
                    Ok(u) => u,
                    Err(e) => {
                        eprintln!("relay: cannot reach the broker: {e}");
                        continue;
                    }
                };
                if let Err(e) = relay(&accepting, client, upstream) {
                    eprintln!("relay: {e}");
                }
            }
        });
        BusRelay {
            address: format!("unix:path={}", path.display()),
            shared,
        }
    }

    /// The address to connect to.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// Closes every connection relayed so far, both ways.
    pub fn cut(&self) {
        let open = std::mem::take(&mut *self.shared.open.lock().expect("lock"));
        for stream in open {
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
    }

    /// From now on, closes new connections at once (`true`) or relays them (`false`).
    pub fn refuse(&self, refusing: bool) {
        self.shared.refusing.store(refusing, Ordering::SeqCst);
    }

    /// How many connections were accepted (relayed or refused) so far.
    pub fn accepted(&self) -> usize {
        self.shared.accepted.load(Ordering::SeqCst)
    }
}

fn relay(shared: &Shared, client: UnixStream, upstream: UnixStream) -> io::Result<()> {
    let mut open = shared.open.lock().expect("lock");
    open.push(client.try_clone()?);
    open.push(upstream.try_clone()?);
    for (mut from, mut to) in [
        (client.try_clone()?, upstream.try_clone()?),
        (upstream, client),
    ] {
        std::thread::spawn(move || {
            let _ = io::copy(&mut from, &mut to);
            let _ = to.shutdown(std::net::Shutdown::Both);
            let _ = from.shutdown(std::net::Shutdown::Both);
        });
    }
    Ok(())
}
