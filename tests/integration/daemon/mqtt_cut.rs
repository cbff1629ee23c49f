//! A host's network cut for 30 s in the middle of a round: its path to the broker goes
//! through a proxy that stops passing bytes (both ways, connections left open, as a
//! pulled cable does), then passes them again. The relay's games must end whole.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use crate::daemon::mqtt::{Host, check_relay, map_of, moves_of, start_relay, wait_for_text};
use crate::daemon::mqtt_broker::Broker;
use crate::daemon::support::*;

/// A TCP proxy to a port of 127.0.0.1 that can be cut.
pub struct CutProxy {
    /// Its port on 127.0.0.1.
    pub port: u16,
    cut: Arc<watch::Sender<bool>>,
    task: tokio::task::JoinHandle<()>,
}

/// Copies `from` to `to`, holding the bytes while `cut` says so.
async fn pass(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut cut: watch::Receiver<bool>,
) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if cut.wait_for(|c| !*c).await.is_err() {
            break;
        }
        if to.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}

impl CutProxy {
    /// Starts passing connections to `target`.
    pub async fn start(target: u16) -> CutProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let (cut, _) = watch::channel(false);
        let cut = Arc::new(cut);
        let sender = cut.clone();
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let rx = sender.subscribe();
                tokio::spawn(async move {
                    // A new connection during the cut gets nowhere either.
                    let mut wait = rx.clone();
                    if wait.wait_for(|c| !*c).await.is_err() {
                        return;
                    }
                    let Ok(server) = TcpStream::connect(("127.0.0.1", target)).await else {
                        return;
                    };
                    let (cr, cw) = client.into_split();
                    let (sr, sw) = server.into_split();
                    tokio::join!(pass(cr, sw, rx.clone()), pass(sr, cw, rx));
                });
            }
        });
        CutProxy { port, cut, task }
    }

    /// Cuts (holds every byte, both ways, and every new connection) or restores.
    pub fn set_cut(&self, cut: bool) {
        self.cut.send_replace(cut);
    }
}

impl Drop for CutProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hosts_network_cut_for_30_s_mid_round_loses_no_move() {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(broker) = Broker::start(dir.path()) else {
        return;
    };
    let proxy = CutProxy::start(broker.port).await;
    let names = ["host-a", "host-b"];
    let map = map_of(&names, 2);
    let (relay, server, addr) = start_relay(&broker, map.clone()).await;
    let mut cut_off = broker.settings("host-a");
    cut_off.url = Some(format!("mqtt://127.0.0.1:{}", proxy.port));
    // Slow enough that the game goes on through the cut and after it.
    let speed = 2.0;
    let hosts = vec![
        Host::start_with(dir.path(), cut_off, "host-a", 2, 11, speed).await,
        Host::start_with(
            dir.path(),
            broker.settings("host-b"),
            "host-b",
            2,
            13,
            speed,
        )
        .await,
    ];
    // host-a's boards are numbers 3 and 4.
    wait_for_text(addr, "/board/3.pgn", hosts[0].limit, |t| {
        moves_of(t).len() >= 4
    })
    .await;
    // What the broker says of host-a meanwhile.
    let options = rumqttc::MqttOptions::new("test-status", "127.0.0.1", broker.port);
    let (client, mut eventloop) = rumqttc::AsyncClient::new(options, 16);
    client
        .subscribe("eboardd/host-a/status", rumqttc::QoS::AtLeastOnce)
        .await
        .expect("subscribe");
    let (said_tx, mut said) = tokio::sync::mpsc::unbounded_channel();
    let status = tokio::spawn(async move {
        while let Ok(event) = eventloop.poll().await {
            if let rumqttc::Event::Incoming(rumqttc::Packet::Publish(p)) = event {
                let _ = said_tx.send(String::from_utf8_lossy(&p.payload).into_owned());
            }
        }
    });
    proxy.set_cut(true);
    tokio::time::sleep(Duration::from_secs(30)).await;
    // The broker noticed the silence (keep-alive) and said the last will.
    let mut heard = Vec::new();
    while let Ok(s) = said.try_recv() {
        heard.push(s);
    }
    assert_eq!(
        heard.last().map(String::as_str),
        Some("offline"),
        "{heard:?}"
    );
    proxy.set_cut(false);
    let limit = hosts.iter().map(|h| h.limit).max().unwrap_or(LIMIT);
    let refs: Vec<&Host> = hosts.iter().collect();
    check_relay(addr, &refs, &map, limit).await;
    let back = tokio::time::timeout(LIMIT, async {
        while let Some(s) = said.recv().await {
            if s == "online" {
                return;
            }
        }
    })
    .await;
    assert!(back.is_ok(), "host-a online again");
    status.abort();
    relay.abort();
    server.abort();
    for h in hosts {
        h.stop().await;
    }
}
