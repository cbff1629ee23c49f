//! What `eboardd run` costs: CPU and memory of the daemon process with N emulated boards
//! (the simulator's boards on pseudo-terminals, its hand playing real games on them, or
//! standing idle), on a private bus (busd, in this process), with a client counting the
//! Move signals so that the boards are known to be followed.
//!
//! ```text
//! cargo build --release --bin eboardd --example daemon-bench
//! target/release/examples/daemon-bench [--boards N] [--seconds S] [--idle]
//!     [--speed X] [--eboardd PATH] [--relay] [--misuse]
//! ```
//! Boards alternate DGT and Millennium. `--idle`: the pieces stand still (no game
//! played), so only the keep-alive and the link watch run. The CPU is measured over S
//! seconds (default 20) after a 3 s warm-up; RSS is VmRSS at the end and VmHWM (its peak).
//!
//! `--relay`: the daemon also runs the broadcast relay for the round (`--relay-listen`,
//! `--pgn-dir`, players `White N`/`Black N` on board N). The bench polls `/games.pgn` every
//! 5 ms (with `If-None-Match`) and prints how long a move took from its `Move` signal to
//! its first appearance there (p50, p99, max). After the measured span it waits for every
//! game to be played out, then checks that `/games.pgn` and the file hold one game per
//! board, in board order, each with the moves the daemon confirmed (its signals), and says
//! how many are the games the hand played; it fails if the relay is wrong.
//!
//! `--misuse` (implies `--relay`, and serves the LiveChess API too): after the measured span,
//! a second span of S seconds with the web listeners misused all at once (2,000 idle
//! connections, 50 request heads sent a byte every half second, oversized heads, pipelined
//! requests, 200 event streams never read, malformed WebSocket frames; see
//! `support/misuse.rs`). Throughout both spans a normal `GET /games.pgn` on a fresh
//! connection is timed every 20 ms. The bench prints, for each span, its p50/p99/max, the
//! Move signals a second, the daemon's CPU, and for the misuse its peak RSS and how much its
//! log grew.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
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
#[path = "support/misuse.rs"]
mod misuse;
use bus::{board_signals, daemon_command, start_bus};

struct Options {
    boards: usize,
    seconds: f64,
    idle: bool,
    speed: f64,
    eboardd: PathBuf,
    relay: bool,
    misuse: bool,
}

fn parse() -> Result<Options, String> {
    let mut o = Options {
        boards: 1,
        seconds: 20.0,
        idle: false,
        speed: 1.0,
        eboardd: PathBuf::from("target/release/eboardd"),
        relay: false,
        misuse: false,
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
            "--relay" => o.relay = true,
            "--misuse" => {
                o.relay = true;
                o.misuse = true;
            }
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
    let mut played: Vec<Vec<String>> = Vec::new();
    let mut game_end = Time::ZERO;
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
            let perf = Hand::new(seed, HandOptions::default())
                .play(game)
                .map_err(|e| e.to_string())?;
            played.push(perf.truth.plies.iter().map(|p| p.san.clone()).collect());
            perf.timeline
        };
        game_end = game_end.max(timeline.end());
        let options = BoardOptions {
            clock: protocol == Protocol::Dgt,
            ..BoardOptions::default()
        };
        let mut board = EmulatedBoard::with_options(protocol, &options, &timeline.start, seed);
        // Each DGT board has its own serial number, as real ones do: the daemon follows a
        // board's game by it.
        board.set_serial(&format!("{:05}", 20000 + i));
        let mut pty = PtyBoard::open(board, o.speed).map_err(|e| e.to_string())?;
        config.push_str(&format!(
            "[[board]]\ndevice = \"{}\"\nprotocol = \"{protocol}\"\n\
             white = \"White {n}\"\nblack = \"Black {n}\"\n",
            pty.path(),
            n = i + 1
        ));
        let stop = Arc::clone(&stop);
        threads.push(std::thread::spawn(move || {
            let _ = pty.run(&timeline, Time::from_micros(u64::MAX / 2), &stop);
        }));
    }
    let mut daemon = daemon_command(&o.eboardd, &address, dir.path(), &config)?;
    let pgn_dir = dir.path().join("pgn");
    let free_port = || {
        std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .map_err(|e| e.to_string())
    };
    let livechess_addr = if o.misuse {
        let addr = format!("127.0.0.1:{}", free_port()?);
        daemon.args(["--livechess-listen", &addr]);
        Some(addr)
    } else {
        None
    };
    let relay_addr = if o.relay {
        let addr = format!("127.0.0.1:{}", free_port()?);
        daemon
            .args([
                "--relay-listen",
                &addr,
                "--event",
                "daemon-bench",
                "--round",
                "1",
            ])
            .arg("--pgn-dir")
            .arg(&pgn_dir);
        Some(addr)
    } else {
        None
    };
    let log_path = dir.path().join("daemon.log");
    let log = std::fs::File::create(&log_path).map_err(|e| e.to_string())?;
    let mut daemon = daemon
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .map_err(|e| format!("{}: {e}", o.eboardd.display()))?;
    let pid = daemon.id();

    let moves = Arc::new(AtomicUsize::new(0));
    let signals = Arc::new(Mutex::new(Signals::default()));
    let seen = Arc::new(Mutex::new(HashMap::new()));
    let poll_stop = Arc::new(AtomicBool::new(false));
    let poller = relay_addr.clone().map(|addr| {
        let seen = Arc::clone(&seen);
        let stop = Arc::clone(&poll_stop);
        std::thread::spawn(move || poll_games(&addr, &seen, &stop))
    });
    let started = Instant::now();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let counted = Arc::clone(&moves);
    let followed = Arc::clone(&signals);
    let relaying = relay_addr.is_some();
    let (relay_at, livechess_at) = (relay_addr.clone(), livechess_addr.clone());
    let result = runtime.block_on(async move {
        let (_conn, mut stream) = board_signals(&address, None).await?;
        tokio::spawn(async move {
            while let Some(Ok(msg)) = stream.next().await {
                let at = Instant::now();
                if follow(&msg, at, &followed) {
                    counted.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
        tokio::time::sleep(Duration::from_secs(3)).await;
        let probing = Arc::new(AtomicBool::new(false));
        let prober = match (&relay_at, o.misuse) {
            (Some(addr), true) => Some(misuse::probe(
                addr.parse().map_err(|e| format!("{addr}: {e}"))?,
                Duration::from_millis(20),
                probing.clone(),
            )),
            _ => None,
        };
        let (c0, t0, m0) = (cpu_ticks(pid)?, Instant::now(), moves.load(Ordering::Relaxed));
        tokio::time::sleep(Duration::from_secs_f64(o.seconds)).await;
        let (c1, t1, m1) = (cpu_ticks(pid)?, Instant::now(), moves.load(Ordering::Relaxed));
        // /proc counts in USER_HZ, which is 100 a second on Linux.
        let hz = 100.0;
        let cpu = 100.0 * (c1 - c0) as f64 / hz / (t1 - t0).as_secs_f64();
        if let Some(prober) = prober {
            probing.store(true, Ordering::Relaxed);
            let baseline = prober.join().map_err(|_| "the prober failed")?;
            println!(
                "quiet: {}, {:.2} Move signals/s, daemon cpu={cpu:.2}%",
                gets(&baseline),
                (m1 - m0) as f64 / (t1 - t0).as_secs_f64(),
            );
            let relay: std::net::SocketAddr = relay_at.as_deref().unwrap_or_default().parse().map_err(|e| format!("relay: {e}"))?;
            let livechess: std::net::SocketAddr = livechess_at.as_deref().unwrap_or_default().parse().map_err(|e| format!("livechess: {e}"))?;
            let stop_misuse = Arc::new(AtomicBool::new(false));
            let (loads, counts) =
                misuse::start(relay, livechess, misuse::Load::default(), stop_misuse.clone());
            // Let the connections pile up first.
            tokio::time::sleep(Duration::from_secs(3)).await;
            let log0 = std::fs::metadata(&log_path).map(|m| m.len()).unwrap_or(0);
            let probing = Arc::new(AtomicBool::new(false));
            let prober = misuse::probe(relay, Duration::from_millis(20), probing.clone());
            let (c2, t2, m2) = (cpu_ticks(pid)?, Instant::now(), moves.load(Ordering::Relaxed));
            tokio::time::sleep(Duration::from_secs_f64(o.seconds)).await;
            let (c3, t3, m3) = (cpu_ticks(pid)?, Instant::now(), moves.load(Ordering::Relaxed));
            probing.store(true, Ordering::Relaxed);
            let misused = prober.join().map_err(|_| "the prober failed")?;
            let log1 = std::fs::metadata(&log_path).map(|m| m.len()).unwrap_or(0);
            stop_misuse.store(true, Ordering::Relaxed);
            let _ = loads.join();
            println!(
                "misused: {}, {:.2} Move signals/s, daemon cpu={:.2}% VmHWM={}kB, log grew {} bytes",
                gets(&misused),
                (m3 - m2) as f64 / (t3 - t2).as_secs_f64(),
                100.0 * (c3 - c2) as f64 / hz / (t3 - t2).as_secs_f64(),
                status_kb(pid, "VmHWM"),
                log1.saturating_sub(log0),
            );
            println!("misuse: {}", counts.summary());
            if m3 == m2 {
                return Err("no Move signal while the listeners were misused".into());
            }
        }
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
        if relaying {
            // Every game played out, and a moment for the last move to go through.
            let end = started + Duration::from_secs_f64(game_end.as_ms_f64() / 1000.0 / o.speed)
                + Duration::from_secs(5);
            let left = end.saturating_duration_since(Instant::now());
            println!("waiting {:.0} s for the games to finish", left.as_secs_f64());
            tokio::time::sleep(left).await;
        }
        Ok::<(), String>(())
    });
    poll_stop.store(true, Ordering::Relaxed);
    if let Some(poller) = poller {
        let _ = poller.join();
    }
    let result = result.and_then(|()| match &relay_addr {
        Some(addr) => check_round(
            addr,
            &pgn_dir,
            &played,
            &signals.lock().unwrap_or_else(|e| e.into_inner()),
            &seen.lock().unwrap_or_else(|e| e.into_inner()),
        ),
        None => Ok(()),
    });
    let _ = daemon.kill();
    let _ = daemon.wait();
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        let _ = t.join();
    }
    result
}

/// What the daemon's signals say: each board's game (SAN), and when each move was
/// signalled (board, ply, SAN).
#[derive(Debug, Default)]
struct Signals {
    games: HashMap<u32, Vec<String>>,
    moves: Vec<((u32, u32, String), Instant)>,
}

/// Follows one signal of a board; whether it was a `Move`.
fn follow(msg: &zbus::Message, at: Instant, signals: &Mutex<Signals>) -> bool {
    let header = msg.header();
    let board = header.path().and_then(|p| {
        p.as_str()
            .rsplit('/')
            .next()
            .and_then(|n| n.parse::<u32>().ok())
    });
    let (Some(board), Some(member)) = (board, header.member()) else {
        return false;
    };
    let body = msg.body();
    let mut s = signals.lock().unwrap_or_else(|e| e.into_inner());
    match member.as_str() {
        "Move" => {
            let Ok((ply, _, san, _)) = body.deserialize::<(u32, String, String, String)>() else {
                return false;
            };
            let game = s.games.entry(board).or_default();
            game.truncate(ply.saturating_sub(1) as usize);
            game.push(san.clone());
            s.moves.push(((board, ply, san), at));
            true
        }
        "NewGame" => {
            s.games.insert(board, Vec::new());
            false
        }
        "Retract" | "Takeback" => {
            let keep = match (member.as_str(), body.deserialize::<(u32, String)>()) {
                ("Retract", Ok((ply, _))) => ply.saturating_sub(1),
                _ => body.deserialize::<(u32,)>().map(|(p,)| p).unwrap_or(0),
            };
            s.games.entry(board).or_default().truncate(keep as usize);
            false
        }
        _ => false,
    }
}

/// A game of `games.pgn`: its `Round` and `White` tags and its moves (SAN).
#[derive(Debug, Clone, PartialEq, Eq)]
struct PgnGame {
    round: String,
    white: String,
    sans: Vec<String>,
}

/// The games of a PGN text as this daemon writes it.
fn parse_pgn(text: &str) -> Vec<PgnGame> {
    let mut games = Vec::new();
    for chunk in text.split("[Event ").skip(1) {
        let tag = |name: &str| {
            chunk
                .lines()
                .find_map(|l| l.strip_prefix(&format!("[{name} \"")))
                .and_then(|v| v.strip_suffix("\"]"))
                .unwrap_or("")
                .to_string()
        };
        let movetext: String = chunk
            .lines()
            .filter(|l| !l.starts_with('[') && !l.starts_with('"'))
            .collect::<Vec<_>>()
            .join(" ");
        let mut plain = String::new();
        let mut depth = 0;
        for c in movetext.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ if depth == 0 => plain.push(c),
                _ => {}
            }
        }
        let sans = plain
            .split_whitespace()
            .filter(|t| !t.ends_with('.') && !["*", "1-0", "0-1", "1/2-1/2"].contains(t))
            .map(str::to_string)
            .collect();
        games.push(PgnGame {
            round: tag("Round"),
            white: tag("White"),
            sans,
        });
    }
    games
}

/// GET `path` from the relay: the status, the `ETag` and the body.
fn get(
    agent: &ureq::Agent,
    url: &str,
    etag: Option<&str>,
) -> Option<(u16, Option<String>, String)> {
    let mut request = agent.get(url);
    if let Some(etag) = etag {
        request = request.header("If-None-Match", etag);
    }
    let mut response = request.call().ok()?;
    let status = response.status().as_u16();
    let etag = response
        .headers()
        .get("etag")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body = response.body_mut().read_to_string().ok()?;
    Some((status, etag, body))
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(5)))
        .build()
        .into()
}

/// Polls `/games.pgn` every 5 ms until `stop`, noting when each (board, ply, SAN) first
/// appeared.
fn poll_games(addr: &str, seen: &Mutex<HashMap<(u32, u32, String), Instant>>, stop: &AtomicBool) {
    let agent = agent();
    let url = format!("http://{addr}/games.pgn");
    let mut etag: Option<String> = None;
    while !stop.load(Ordering::Relaxed) {
        if let Some((200, tag, body)) = get(&agent, &url, etag.as_deref()) {
            let at = Instant::now();
            let mut seen = seen.lock().unwrap_or_else(|e| e.into_inner());
            for (board, game) in parse_pgn(&body).into_iter().enumerate() {
                for (i, san) in game.sans.into_iter().enumerate() {
                    seen.entry((board as u32, i as u32 + 1, san)).or_insert(at);
                }
            }
            etag = tag;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The prober's figures: GET p50/p99/max over the answers, and the failures.
fn gets((times, failed): &(Vec<f64>, usize)) -> String {
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    format!(
        "GET /games.pgn p50={:.1}ms p99={:.1}ms max={:.1}ms over {} ({} failed)",
        quantile(&sorted, 0.5),
        quantile(&sorted, 0.99),
        sorted.last().copied().unwrap_or(f64::NAN),
        sorted.len(),
        failed,
    )
}

/// The value at quantile `q` of sorted `v`.
fn quantile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let i = ((v.len() - 1) as f64 * q).round() as usize;
    v[i.min(v.len() - 1)]
}

/// Checks the round's `games.pgn` (served and written) against the daemon's signals and
/// the games played, and prints the relay's figures.
fn check_round(
    addr: &str,
    pgn_dir: &std::path::Path,
    played: &[Vec<String>],
    signals: &Signals,
    seen: &HashMap<(u32, u32, String), Instant>,
) -> Result<(), String> {
    let mut latencies: Vec<f64> = Vec::new();
    let mut missing = 0;
    for (key, signalled) in &signals.moves {
        match seen.get(key) {
            Some(at) => latencies.push(
                at.checked_duration_since(*signalled).map_or_else(
                    || -(signalled.duration_since(*at).as_secs_f64()),
                    |d| d.as_secs_f64(),
                ) * 1000.0,
            ),
            None => missing += 1,
        }
    }
    latencies.sort_by(f64::total_cmp);
    println!(
        "relay: Move signal to /games.pgn: p50={:.1}ms p99={:.1}ms max={:.1}ms over {} moves \
         (polled every 5 ms; {} never seen there)",
        quantile(&latencies, 0.5),
        quantile(&latencies, 0.99),
        latencies.last().copied().unwrap_or(f64::NAN),
        latencies.len(),
        missing,
    );
    let (status, _, served) =
        get(&agent(), &format!("http://{addr}/games.pgn"), None).ok_or("cannot GET /games.pgn")?;
    if status != 200 {
        return Err(format!("GET /games.pgn: {status}"));
    }
    let file = std::fs::read_to_string(pgn_dir.join("games.pgn")).map_err(|e| e.to_string())?;
    if file != served {
        return Err("games.pgn and /games.pgn differ".into());
    }
    let games = parse_pgn(&served);
    let mut errors = Vec::new();
    if games.len() != played.len() {
        errors.push(format!("{} games for {} boards", games.len(), played.len()));
    }
    let mut as_played = 0;
    let plies: usize = games.iter().map(|g| g.sans.len()).sum();
    for (i, game) in games.iter().enumerate() {
        let n = i + 1;
        if game.round != format!("1.{n}") || game.white != format!("White {n}") {
            errors.push(format!(
                "game {n} is Round {:?}, White {:?}: not in board order",
                game.round, game.white
            ));
        }
        let confirmed = signals.games.get(&(i as u32)).cloned().unwrap_or_default();
        if game.sans != confirmed {
            errors.push(format!(
                "board {n}: games.pgn has {} plies, the daemon confirmed {}",
                game.sans.len(),
                confirmed.len()
            ));
        }
        if played.get(i) == Some(&game.sans) {
            as_played += 1;
        }
    }
    println!(
        "relay: games.pgn holds {} games ({plies} plies) in board order: {}; \
         {as_played}/{} exactly as played",
        games.len(),
        if errors.is_empty() {
            "each as the daemon confirmed it"
        } else {
            "WRONG"
        },
        played.len(),
    );
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}
