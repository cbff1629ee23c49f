//! What `eboardd run` costs: CPU and memory of the daemon process with N emulated boards
//! (the simulator's boards on pseudo-terminals, its hand playing real games on them, or
//! standing idle), on a private bus (busd, in this process), with a client counting the
//! Move signals so that the boards are known to be followed.
//!
//! ```text
//! cargo build --release --bin eboardd --example daemon-bench
//! target/release/examples/daemon-bench [--boards N] [--seconds S] [--idle]
//!     [--speed X] [--eboardd PATH]
//! ```
//! Boards alternate DGT and Millennium. `--idle`: the pieces stand still (no game
//! played), so only the keep-alive and the link watch run. The CPU is measured over S
//! seconds (default 20) after a 3 s warm-up; RSS is VmRSS at the end and VmHWM (its peak).

use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use eboardd::protocol::Protocol;
use eboardd::sim::device::{BoardOptions, EmulatedBoard};
use eboardd::sim::pty::PtyBoard;
use eboardd::sim::timeline::{Timeline, squares_of};
use eboardd::sim::{Hand, HandOptions, games};
use eboardd::time::Time;
use futures_util::StreamExt;

#[path = "support/bus.rs"]
mod bus;
use bus::start_bus;

struct Options {
    boards: usize,
    seconds: f64,
    idle: bool,
    speed: f64,
    eboardd: PathBuf,
}

fn parse() -> Result<Options, String> {
    let mut o = Options {
        boards: 1,
        seconds: 20.0,
        idle: false,
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
            "--idle" => o.idle = true,
            _ => return Err(format!("unknown argument {a}")),
        }
    }
    Ok(o)
}

fn main() -> ExitCode {
    match parse().and_then(|o| run(&o)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("daemon-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

/// utime + stime of a process, in clock ticks.
fn cpu_ticks(pid: u32) -> Result<u64, String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).map_err(|e| e.to_string())?;
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let tick = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Ok(tick(11) + tick(12))
}

/// A `kB` line of /proc/PID/status.
fn status_kb(pid: u32, key: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn run(o: &Options) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let address = start_bus(&dir.path().join("bus"))?;
    let stop = Arc::new(AtomicBool::new(false));
    let mut config = String::new();
    let mut threads = Vec::new();
    let real = games::real_games();
    for i in 0..o.boards {
        let protocol = if i % 2 == 0 {
            Protocol::Dgt
        } else {
            Protocol::Millennium
        };
        let seed = i as u64 + 1;
        let timeline = if o.idle {
            Timeline::new(squares_of(&shakmaty::Board::new()), Vec::new())
        } else {
            let game = &real[i % 3]; // the three standard games
            Hand::new(seed, HandOptions::default())
                .play(game)
                .map_err(|e| e.to_string())?
                .timeline
        };
        let options = BoardOptions {
            clock: protocol == Protocol::Dgt,
            ..BoardOptions::default()
        };
        let board = EmulatedBoard::with_options(protocol, &options, &timeline.start, seed);
        let mut pty = PtyBoard::open(board, o.speed).map_err(|e| e.to_string())?;
        config.push_str(&format!(
            "[[board]]\ndevice = \"{}\"\nprotocol = \"{protocol}\"\n",
            pty.path()
        ));
        let stop = Arc::clone(&stop);
        threads.push(std::thread::spawn(move || {
            let _ = pty.run(&timeline, Time::from_micros(u64::MAX / 2), &stop);
        }));
    }
    let config_path = dir.path().join("config.toml");
    std::fs::write(&config_path, config).map_err(|e| e.to_string())?;
    let mut daemon = Command::new(&o.eboardd)
        .args(["run", "--bus-address", &address, "--config"])
        .arg(&config_path)
        .arg("--state-dir")
        .arg(dir.path().join("state"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{}: {e}", o.eboardd.display()))?;
    let pid = daemon.id();

    let moves = Arc::new(AtomicUsize::new(0));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let counted = Arc::clone(&moves);
    let result = runtime.block_on(async move {
        let conn = zbus::connection::Builder::address(address.as_str())
            .build()
            .await
            .map_err(|e| e.to_string())?;
        let rule = zbus::MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .member("Move")
            .build()
            .map_err(|e| e.to_string())?;
        let mut stream = zbus::MessageStream::for_match_rule(rule, &conn, None)
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(async move {
            while let Some(Ok(_)) = stream.next().await {
                counted.fetch_add(1, Ordering::Relaxed);
            }
        });
        tokio::time::sleep(Duration::from_secs(3)).await;
        let (c0, t0, m0) = (cpu_ticks(pid)?, Instant::now(), moves.load(Ordering::Relaxed));
        tokio::time::sleep(Duration::from_secs_f64(o.seconds)).await;
        let (c1, t1, m1) = (cpu_ticks(pid)?, Instant::now(), moves.load(Ordering::Relaxed));
        // /proc counts in USER_HZ, which is 100 a second on Linux.
        let hz = 100.0;
        let cpu = 100.0 * (c1 - c0) as f64 / hz / (t1 - t0).as_secs_f64();
        println!(
            "boards={} {} speed={} cpu={cpu:.2}% VmRSS={}kB VmHWM={}kB moves_signalled={} (in the {} s measured: {})",
            o.boards,
            if o.idle { "idle" } else { "playing" },
            o.speed,
            status_kb(pid, "VmRSS"),
            status_kb(pid, "VmHWM"),
            m1,
            o.seconds,
            m1 - m0,
        );
        Ok::<(), String>(())
    });
    let _ = daemon.kill();
    let _ = daemon.wait();
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        let _ = t.join();
    }
    result
}
