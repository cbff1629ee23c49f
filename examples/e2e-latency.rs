//! What `eboardd run` adds between a board's byte and the D-Bus signal: emulated boards (the
//! simulator's boards on pseudo-terminals, its hand playing real games, no clock) feed a
//! daemon on a private bus (busd, in this process); a client takes the time of every Move
//! signal.
//!
//! ```text
//! cargo build --release --bin eboardd --example e2e-latency
//! target/release/examples/e2e-latency [--boards N] [--seconds S] [--speed X]
//!     [--eboardd PATH]
//! ```
//!
//! Every transmission a board writes is kept with the instant it was written. Afterwards the
//! same bytes, at the same instants, go through the daemon's sans-IO core here (the same
//! code, in virtual time): it says when each move was decided (at a byte, or when a wait
//! such as the settle window ran out). A move's added latency is the instant its signal
//! arrived minus the instant of that decision: the pseudo-terminal, the read, the decoding,
//! the tracker, the arbiter and D-Bus, without the wait the decision itself needed.
//! Boards alternate DGT and Millennium.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use eboardd::event::GameEvent;
use eboardd::pipeline::{BoardCore, CoreConfig};
use eboardd::protocol::Protocol;
use eboardd::sim::device::{BoardOptions, EmulatedBoard};
use eboardd::sim::pty::PtyBoard;
use eboardd::sim::{Hand, HandOptions, games};
use eboardd::time::Time;
use futures_util::StreamExt;

#[path = "support/bus.rs"]
mod bus;
use bus::{board_signals, daemon_command, device_of, start_bus};

struct Options {
    boards: usize,
    seconds: f64,
    speed: f64,
    eboardd: PathBuf,
}

fn parse() -> Result<Options, String> {
    let mut o = Options {
        boards: 2,
        seconds: 60.0,
        speed: 1.0,
        eboardd: PathBuf::from("target/release/eboardd"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--boards" => o.boards = value()?.parse().map_err(|_| "--boards: a number")?,
            "--seconds" => o.seconds = value()?.parse().map_err(|_| "--seconds: a number")?,
            "--speed" => o.speed = value()?.parse().map_err(|_| "--speed: a number")?,
            "--eboardd" => o.eboardd = PathBuf::from(value()?),
            _ => return Err(format!("unknown argument {a}")),
        }
    }
    if o.boards == 0 {
        return Err("--boards: at least 1".into());
    }
    Ok(o)
}

fn main() -> ExitCode {
    match parse().and_then(|o| run(&o)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("e2e-latency: {e}");
            ExitCode::FAILURE
        }
    }
}

/// How long the boards stand still before the hands start, for the daemon to attach.
const LEAD_MS: u64 = 4000;

/// A Move signal as the client saw it.
struct Signalled {
    path: String,
    ply: u32,
    uci: String,
    at: Instant,
}

fn run(o: &Options) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let address = start_bus(&dir.path().join("bus"))?;
    let stop = Arc::new(AtomicBool::new(false));
    let mut config = String::new();
    let mut threads = Vec::new();
    let mut logs = Vec::new();
    let mut protocols = Vec::new();
    let mut paths = Vec::new();
    let real = games::real_games();
    let origin = Instant::now();
    for i in 0..o.boards {
        let protocol = if i % 2 == 0 {
            Protocol::Dgt
        } else {
            Protocol::Millennium
        };
        let seed = i as u64 + 1;
        let game = &real[i % real.len().max(1)];
        let mut timeline = Hand::new(seed, HandOptions::default())
            .play(game)
            .map_err(|e| e.to_string())?
            .timeline;
        // The pieces stand still while the daemon starts and reads the board.
        let lead = Time::from_millis(LEAD_MS);
        for e in &mut timeline.events {
            e.t = Time::from_micros(e.t.as_micros() + lead.as_micros());
        }
        for p in &mut timeline.presses {
            p.t = Time::from_micros(p.t.as_micros() + lead.as_micros());
        }
        let mut board =
            EmulatedBoard::with_options(protocol, &BoardOptions::default(), &timeline.start, seed);
        // Each DGT board has its own serial number: the daemon follows a board's game by it.
        board.set_serial(&format!("{:05}", 20000 + i));
        let mut pty = PtyBoard::open(board, o.speed).map_err(|e| e.to_string())?;
        let (tx, rx) = mpsc::channel();
        pty.log_writes(tx);
        logs.push(rx);
        protocols.push(protocol);
        paths.push(pty.path().to_string());
        config.push_str(&format!(
            "[[board]]\ndevice = \"{}\"\nprotocol = \"{protocol}\"\n",
            pty.path()
        ));
        let stop = Arc::clone(&stop);
        threads.push(std::thread::spawn(move || {
            let _ = pty.run(&timeline, Time::from_micros(u64::MAX / 2), &stop);
        }));
    }
    let mut daemon = daemon_command(&o.eboardd, &address, dir.path(), &config)?
        .spawn()
        .map_err(|e| format!("{}: {e}", o.eboardd.display()))?;

    let signalled = Arc::new(Mutex::new(Vec::<Signalled>::new()));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let seen = Arc::clone(&signalled);
    let seen_paths = Arc::clone(&signalled);
    let result = runtime.block_on(async move {
        let (conn, mut stream) = board_signals(&address, Some("Move")).await?;
        let listen = async move {
            while let Some(Ok(msg)) = stream.next().await {
                let at = Instant::now();
                let header = msg.header();
                let path = header.path().map(|p| p.to_string());
                let body = msg.body();
                let Ok((ply, uci, _san, _fen)) =
                    body.deserialize::<(u32, String, String, String)>()
                else {
                    continue;
                };
                if let Some(path) = path
                    && let Ok(mut v) = seen.lock()
                {
                    v.push(Signalled { path, ply, uci, at });
                }
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs_f64(o.seconds), listen).await;
        // Which device each board object reads.
        let mut devices = HashMap::new();
        let paths: Vec<String> = seen_paths
            .lock()
            .map(|v| v.iter().map(|s| s.path.clone()).collect())
            .unwrap_or_default();
        for path in paths {
            if devices.contains_key(&path) {
                continue;
            }
            let device = device_of(&conn, &path).await?;
            devices.insert(path, device);
        }
        Ok::<HashMap<String, String>, String>(devices)
    });
    let _ = daemon.kill();
    let _ = daemon.wait();
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        let _ = t.join();
    }
    let devices = result?;

    let signalled = std::mem::take(&mut *signalled.lock().map_err(|e| e.to_string())?);
    // Added latency in ms of the moves decided at a byte, and of those decided after a wait.
    let (mut at_byte, mut after_wait, mut unmatched) = (Vec::new(), Vec::new(), 0usize);
    let mut by_device: HashMap<&str, Vec<&Signalled>> = HashMap::new();
    for s in &signalled {
        if let Some(device) = devices.get(&s.path) {
            by_device.entry(device.as_str()).or_default().push(s);
        }
    }
    for (i, (rx, protocol)) in logs.iter().zip(&protocols).enumerate() {
        let writes: Vec<(Instant, Vec<u8>)> = rx.try_iter().collect();
        let decisions = decide(*protocol, origin, &writes);
        let signals = by_device
            .get(paths[i].as_str())
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        if std::env::var_os("E2E_DEBUG").is_some() {
            for d in &decisions {
                eprintln!(
                    "board {} decided ply {} {} at {:.3} s (at a byte: {})",
                    i + 1,
                    d.ply,
                    d.uci,
                    d.t.as_ms_f64() / 1000.0,
                    d.at_byte
                );
            }
            for s in signals {
                eprintln!(
                    "board {} signal ply {} {} at {:.3} s",
                    i + 1,
                    s.ply,
                    s.uci,
                    s.at.saturating_duration_since(origin).as_secs_f64()
                );
            }
        }
        for s in signals {
            let Some(d) = decisions.iter().find(|d| d.ply == s.ply && d.uci == s.uci) else {
                unmatched += 1;
                continue;
            };
            let decided = origin + Duration::from_micros(d.t.as_micros());
            let ms = s.at.saturating_duration_since(decided).as_secs_f64() * 1000.0;
            if d.at_byte {
                at_byte.push(ms);
            } else {
                after_wait.push(ms);
            }
        }
    }
    let all: Vec<f64> = at_byte.iter().chain(&after_wait).copied().collect();
    println!(
        "end-to-end added latency, board byte to D-Bus Move signal, the decision's own wait \
         excluded ({} boards, {} s):",
        o.boards, o.seconds
    );
    println!("  decided at a byte:   {}", summary(at_byte));
    println!("  decided after a wait: {}", summary(after_wait));
    println!("  all moves:           {}", summary(all.clone()));
    if unmatched > 0 {
        println!("  signals the bytes do not explain: {unmatched}");
    }
    if all.is_empty() {
        return Err("no move was signalled".into());
    }
    Ok(())
}

/// Count, median, 99th percentile and maximum of these milliseconds.
fn summary(mut ms: Vec<f64>) -> String {
    if ms.is_empty() {
        return "no moves".into();
    }
    ms.sort_by(f64::total_cmp);
    let pct = |p: f64| ms[(((ms.len() - 1) as f64) * p).round() as usize];
    format!(
        "{} moves, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        ms.len(),
        pct(0.5),
        pct(0.99),
        ms[ms.len() - 1]
    )
}

/// A move as the sans-IO core decides it from the bytes.
struct Decision {
    ply: u32,
    uci: String,
    t: Time,
    at_byte: bool,
}

/// The moves the daemon's core decides from these writes, and when.
fn decide(protocol: Protocol, origin: Instant, writes: &[(Instant, Vec<u8>)]) -> Vec<Decision> {
    let mut core = BoardCore::new(protocol, CoreConfig::default());
    let mut out = Vec::new();
    let drain = |core: &mut BoardCore, out: &mut Vec<Decision>, at_byte: bool| {
        while let Some(e) = core.poll_event() {
            if let GameEvent::Move { ply, uci, .. } = e.event {
                out.push(Decision {
                    ply,
                    uci: uci.to_string(),
                    t: e.t,
                    at_byte,
                });
            }
        }
    };
    let mut last = Time::ZERO;
    for (at, bytes) in writes {
        let t = Time::from_micros(at.saturating_duration_since(origin).as_micros() as u64);
        while let Some(due) = core.poll_timeout().filter(|&d| d <= t) {
            core.handle_timeout(due);
            drain(&mut core, &mut out, false);
        }
        core.handle_input(t, bytes);
        drain(&mut core, &mut out, true);
        last = t;
    }
    let end = Time::from_micros(last.as_micros() + 60_000_000);
    while let Some(due) = core.poll_timeout().filter(|&d| d <= end) {
        core.handle_timeout(due);
        drain(&mut core, &mut out, false);
    }
    out
}
