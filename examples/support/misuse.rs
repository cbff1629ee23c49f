//! Misuse of the daemon's web listeners, as a bench applies it while the boards play: idle
//! connections, request heads sent a byte at a time, oversized heads, pipelined requests,
//! event streams that are never read, and malformed WebSocket frames. Meanwhile a prober
//! times a normal `GET /games.pgn` on a fresh connection.

// Each example uses what it needs.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// How much misuse to apply.
#[derive(Debug, Clone, Copy)]
pub struct Load {
    /// Connections opened and never sent a byte (opened again when the server closes one).
    pub idle: usize,
    /// Connections sending their request head one byte every half second.
    pub slow: usize,
    /// Event streams opened with a 4 KiB receive window and never read.
    pub deaf: usize,
}

impl Default for Load {
    fn default() -> Load {
        Load {
            idle: 2000,
            slow: 50,
            deaf: 200,
        }
    }
}

/// What the misuse did, counted while it ran.
#[derive(Debug, Default)]
pub struct Counts {
    /// Connections opened, of every kind.
    pub connects: AtomicU64,
    /// Connections that could not be opened.
    pub refused: AtomicU64,
    /// Oversized heads sent, and how many got a 4xx answer.
    pub oversized: AtomicU64,
    pub oversized_4xx: AtomicU64,
    /// Pipelined batches sent, and answers read back.
    pub pipelined: AtomicU64,
    pub pipelined_answers: AtomicU64,
    /// Malformed WebSocket frames sent after a good upgrade.
    pub bad_frames: AtomicU64,
}

impl Counts {
    pub fn summary(&self) -> String {
        let n = |a: &AtomicU64| a.load(Ordering::Relaxed);
        format!(
            "connections opened {} (refused {}), oversized heads {} ({} answered 4xx), \
             pipelined batches {} ({} answers), malformed WebSocket frames {}",
            n(&self.connects),
            n(&self.refused),
            n(&self.oversized),
            n(&self.oversized_4xx),
            n(&self.pipelined),
            n(&self.pipelined_answers),
            n(&self.bad_frames),
        )
    }
}

/// Runs the misuse of `load` on the relay at `relay` and the LiveChess listener at
/// `livechess` until `stop`, on a thread of its own; the counts.
pub fn start(
    relay: SocketAddr,
    livechess: SocketAddr,
    load: Load,
    stop: Arc<AtomicBool>,
) -> (std::thread::JoinHandle<()>, Arc<Counts>) {
    let counts = Arc::new(Counts::default());
    let counted = counts.clone();
    let thread = std::thread::spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        runtime.block_on(async move {
            let mut tasks = tokio::task::JoinSet::new();
            for i in 0..load.idle {
                tasks.spawn(idle(relay, counted.clone(), stop.clone(), i));
            }
            for _ in 0..load.slow {
                tasks.spawn(slow(relay, counted.clone(), stop.clone()));
            }
            for i in 0..load.deaf {
                tasks.spawn(deaf(relay, counted.clone(), stop.clone(), i));
            }
            tasks.spawn(oversized(relay, counted.clone(), stop.clone()));
            tasks.spawn(pipelined(relay, counted.clone(), stop.clone()));
            tasks.spawn(bad_frames(livechess, counted.clone(), stop.clone()));
            while tasks.join_next().await.is_some() {}
        });
    });
    (thread, counts)
}

async fn connect(addr: SocketAddr, counts: &Counts) -> Option<TcpStream> {
    match tokio::time::timeout(Duration::from_secs(5), TcpStream::connect(addr)).await {
        Ok(Ok(s)) => {
            counts.connects.fetch_add(1, Ordering::Relaxed);
            Some(s)
        }
        _ => {
            counts.refused.fetch_add(1, Ordering::Relaxed);
            None
        }
    }
}

/// Waits `d` or until `stop`; whether to go on.
async fn pause(d: Duration, stop: &AtomicBool) -> bool {
    let end = Instant::now() + d;
    while Instant::now() < end {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(100).min(end - Instant::now())).await;
    }
    !stop.load(Ordering::Relaxed)
}

/// Reads until the peer closes, an error, or `stop`.
async fn until_closed(s: &mut TcpStream, stop: &AtomicBool) {
    let mut buf = [0u8; 4096];
    while !stop.load(Ordering::Relaxed) {
        match tokio::time::timeout(Duration::from_millis(200), s.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return,
            _ => {}
        }
    }
}

async fn idle(addr: SocketAddr, counts: Arc<Counts>, stop: Arc<AtomicBool>, i: usize) {
    // Spread the opening over a second.
    if !pause(Duration::from_micros(500 * i as u64), &stop).await {
        return;
    }
    while !stop.load(Ordering::Relaxed) {
        if let Some(mut s) = connect(addr, &counts).await {
            until_closed(&mut s, &stop).await;
        }
        if !pause(Duration::from_millis(100), &stop).await {
            return;
        }
    }
}

async fn slow(addr: SocketAddr, counts: Arc<Counts>, stop: Arc<AtomicBool>) {
    let head = b"GET /games.pgn HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
    while !stop.load(Ordering::Relaxed) {
        if let Some(mut s) = connect(addr, &counts).await {
            let mut sent = 0;
            loop {
                let byte = head.get(sent).copied().unwrap_or(b'x');
                if s.write_all(&[byte]).await.is_err()
                    || !pause(Duration::from_millis(500), &stop).await
                {
                    break;
                }
                sent += 1;
            }
        }
        if !pause(Duration::from_millis(100), &stop).await {
            return;
        }
    }
}

async fn deaf(addr: SocketAddr, counts: Arc<Counts>, stop: Arc<AtomicBool>, i: usize) {
    if !pause(Duration::from_millis(5 * i as u64), &stop).await {
        return;
    }
    while !stop.load(Ordering::Relaxed) {
        let Ok(socket) = TcpSocket::new_v4() else {
            return;
        };
        // A small receive window, as a stalled phone's: the server's writes stall soon.
        let _ = socket.set_recv_buffer_size(4096);
        match socket.connect(addr).await {
            Ok(mut s) => {
                counts.connects.fetch_add(1, Ordering::Relaxed);
                let _ = s
                    .write_all(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    .await;
                // Never read; let go after a while and come back.
                if !pause(Duration::from_secs(20), &stop).await {
                    return;
                }
            }
            Err(_) => {
                counts.refused.fetch_add(1, Ordering::Relaxed);
            }
        }
        if !pause(Duration::from_millis(100), &stop).await {
            return;
        }
    }
}

async fn oversized(addr: SocketAddr, counts: Arc<Counts>, stop: Arc<AtomicBool>) {
    let mut head = b"GET /games.pgn HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ".to_vec();
    head.extend(std::iter::repeat_n(b'a', 1 << 20));
    head.extend(b"\r\n\r\n");
    while pause(Duration::from_millis(200), &stop).await {
        let Some(mut s) = connect(addr, &counts).await else {
            continue;
        };
        counts.oversized.fetch_add(1, Ordering::Relaxed);
        // The server may answer and close before all of it is written.
        let _ = s.write_all(&head).await;
        let mut answer = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(2), s.read_to_end(&mut answer)).await;
        if answer.starts_with(b"HTTP/1.1 4") {
            counts.oversized_4xx.fetch_add(1, Ordering::Relaxed);
        }
    }
}

async fn pipelined(addr: SocketAddr, counts: Arc<Counts>, stop: Arc<AtomicBool>) {
    let mut batch = Vec::new();
    for i in 0..8 {
        let close = if i == 7 { "Connection: close\r\n" } else { "" };
        batch.extend(
            format!("GET /games.pgn HTTP/1.1\r\nHost: 127.0.0.1\r\n{close}\r\n").as_bytes(),
        );
    }
    while pause(Duration::from_millis(100), &stop).await {
        let Some(mut s) = connect(addr, &counts).await else {
            continue;
        };
        counts.pipelined.fetch_add(1, Ordering::Relaxed);
        if s.write_all(&batch).await.is_err() {
            continue;
        }
        let mut answer = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(2), s.read_to_end(&mut answer)).await;
        let answers = answer.windows(9).filter(|w| w == b"HTTP/1.1 ").count();
        counts
            .pipelined_answers
            .fetch_add(answers as u64, Ordering::Relaxed);
    }
}

async fn bad_frames(addr: SocketAddr, counts: Arc<Counts>, stop: Arc<AtomicBool>) {
    let upgrade = format!(
        "GET /api/v1.0 HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    // Each a protocol error: an unmasked client frame, a reserved opcode, a control frame
    // longer than 125 bytes, a length far past anything sent.
    let frames: [&[u8]; 4] = [
        b"\x81\x05hello",
        b"\x83\x80\x00\x00\x00\x00",
        b"\x89\xfe\x01\x00\x00\x00\x00\x00",
        b"\x82\xff\x7f\xff\xff\xff\xff\xff\xff\xff\x00\x00\x00\x00",
    ];
    let mut n = 0usize;
    while pause(Duration::from_millis(100), &stop).await {
        let Some(mut s) = connect(addr, &counts).await else {
            continue;
        };
        if s.write_all(upgrade.as_bytes()).await.is_err() {
            continue;
        }
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") && head.len() < 4096 {
            match tokio::time::timeout(Duration::from_secs(2), s.read(&mut byte)).await {
                Ok(Ok(1)) => head.push(byte[0]),
                _ => break,
            }
        }
        if !head.starts_with(b"HTTP/1.1 101") {
            continue;
        }
        let _ = s.write_all(frames[n % frames.len()]).await;
        n += 1;
        counts.bad_frames.fetch_add(1, Ordering::Relaxed);
        let mut rest = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(2), s.read_to_end(&mut rest)).await;
    }
}

/// Times a `GET /games.pgn` on a fresh connection every `every` until `stop`, on a thread
/// of its own; the times of the answers (to the last byte) and how many failed.
pub fn probe(
    relay: SocketAddr,
    every: Duration,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<(Vec<f64>, usize)> {
    std::thread::spawn(move || {
        let mut times = Vec::new();
        let mut failed = 0;
        let request = b"GET /games.pgn HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
        while !stop.load(Ordering::Relaxed) {
            let start = Instant::now();
            let answered = (|| {
                let mut s =
                    std::net::TcpStream::connect_timeout(&relay, Duration::from_secs(5)).ok()?;
                s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
                s.write_all(request).ok()?;
                let mut answer = Vec::new();
                s.read_to_end(&mut answer).ok()?;
                answer.starts_with(b"HTTP/1.1 200").then_some(())
            })();
            match answered {
                Some(()) => times.push(start.elapsed().as_secs_f64() * 1000.0),
                None => failed += 1,
            }
            std::thread::sleep(every.saturating_sub(start.elapsed()));
        }
        (times, failed)
    })
}
