//! What the tournament hall costs: H `eboardd run --mqtt` processes with N emulated boards
//! each (the simulator's hand playing real games), a Mosquitto, and one `eboardd relay
//! --mqtt` following them all.
//!
//! ```text
//! cargo build --release --bin eboardd --example mqtt-bench
//! target/release/examples/mqtt-bench [--hosts H] [--boards N] [--seconds S] [--speed X]
//!     [--eboardd PATH] [--mosquitto PATH]
//! ```
//! Each host also runs its own relay (`--relay-listen`), the one-host broadcast. The bench
//! polls every host's `/games.pgn` and the hall relay's every 5 ms and prints how much later
//! a move appears in the hall's than in its host's (p50, p99, max): what the broker and the
//! relay add. CPU is measured over S seconds (default 20) after a 3 s warm-up for the
//! broker, the relay and all hosts together; RSS is the broker's and the relay's. Then it
//! waits for every game to be played out and checks that the hall's `/games.pgn` holds
//! every host's games, in board order (the map numbers host h's board b as h·N + b + 1),
//! each with the moves its host published; it fails if not.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Child, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use eboardd::protocol::Protocol;
use eboardd::sim::device::{BoardOptions, EmulatedBoard};
use eboardd::sim::pty::PtyBoard;
use eboardd::sim::{Hand, HandOptions, games};
use eboardd::time::Time;

#[path = "support/bus.rs"]
mod bus;
use bus::{daemon_command, start_bus};

struct Options {
    hosts: usize,
    boards: usize,
    seconds: f64,
    speed: f64,
    eboardd: PathBuf,
    mosquitto: PathBuf,
}

fn parse() -> Result<Options, String> {
    let mut o = Options {
        hosts: 8,
        boards: 32,
        seconds: 20.0,
        speed: 1.0,
        eboardd: PathBuf::from("target/release/eboardd"),
        mosquitto: PathBuf::from("/usr/sbin/mosquitto"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--hosts" => o.hosts = value()?.parse().map_err(|_| "--hosts: a number")?,
            "--boards" => o.boards = value()?.parse().map_err(|_| "--boards: a number")?,
            "--seconds" => o.seconds = value()?.parse().map_err(|_| "--seconds: a number")?,
            "--speed" => o.speed = value()?.parse().map_err(|_| "--speed: a number")?,
            "--eboardd" => o.eboardd = PathBuf::from(value()?),
            "--mosquitto" => o.mosquitto = PathBuf::from(value()?),
            _ => return Err(format!("unknown argument {a}")),
        }
    }
    Ok(o)
}

fn main() -> ExitCode {
    match parse().and_then(|o| run(&o)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mqtt-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

/// utime + stime of a process, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
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
    tick(11) + tick(12)
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

fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| e.to_string())
}

/// Kills its processes when dropped.
struct Procs(Vec<Child>);

impl Drop for Procs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The moves (SAN) of each game of a PGN text, by its `Round` tag's board number.
fn games_of(text: &str) -> HashMap<u32, Vec<String>> {
    let mut games = HashMap::new();
    for chunk in text.split("[Event ").skip(1) {
        let board = chunk
            .lines()
            .find_map(|l| l.strip_prefix("[Round \""))
            .and_then(|v| v.strip_suffix("\"]"))
            .and_then(|r| r.rsplit('.').next())
            .and_then(|b| b.parse::<u32>().ok());
        let Some(board) = board else { continue };
        let movetext: String = chunk
            .lines()
            .filter(|l| !l.starts_with('['))
            .collect::<Vec<_>>()
            .join(" ");
        let mut plain = String::new();
        let mut depth = 0usize;
        for c in movetext.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                _ if depth == 0 => plain.push(c),
                _ => {}
            }
        }
        let sans = plain
            .split_whitespace()
            .filter(|t| !t.ends_with('.') && !["*", "1-0", "0-1", "1/2-1/2"].contains(t))
            .map(str::to_string)
            .collect();
        games.insert(board, sans);
    }
    games
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(5)))
        .build()
        .into()
}

fn get(agent: &ureq::Agent, url: &str) -> Option<String> {
    let mut response = agent.get(url).call().ok()?;
    if response.status().as_u16() != 200 {
        return None;
    }
    response.body_mut().read_to_string().ok()
}

/// When each (tournament board, ply, SAN) first appeared, per source.
type Seen = Mutex<HashMap<(u32, usize, String), Instant>>;

/// Polls `url` every 5 ms until `stop`, noting first appearances; the page's board B is
/// tournament board `offset + B`.
fn poll(url: String, offset: u32, seen: Arc<Seen>, stop: Arc<AtomicBool>) {
    let agent = agent();
    while !stop.load(Ordering::Relaxed) {
        if let Some(body) = get(&agent, &url) {
            let at = Instant::now();
            let mut seen = seen.lock().unwrap_or_else(|e| e.into_inner());
            for (board, sans) in games_of(&body) {
                for (i, san) in sans.into_iter().enumerate() {
                    seen.entry((offset + board, i + 1, san)).or_insert(at);
                }
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn quantile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let i = ((v.len() - 1) as f64 * q).round() as usize;
    v[i.min(v.len() - 1)]
}

fn run(o: &Options) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let stop = Arc::new(AtomicBool::new(false));
    let mut procs = Procs(Vec::new());
    // The broker.
    let broker_port = free_port()?;
    let broker_conf = dir.path().join("mosquitto.conf");
    std::fs::write(
        &broker_conf,
        format!(
            "listener {broker_port} 127.0.0.1\nallow_anonymous true\npersistence false\n\
             max_queued_messages 100000\n"
        ),
    )
    .map_err(|e| e.to_string())?;
    procs.0.push(
        std::process::Command::new(&o.mosquitto)
            .arg("-c")
            .arg(&broker_conf)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: {e}", o.mosquitto.display()))?,
    );
    let broker_pid = procs.0[0].id();
    std::thread::sleep(Duration::from_millis(300));
    let url = format!("mqtt://127.0.0.1:{broker_port}");

    // The hall relay, with its map.
    let mut map = String::new();
    for h in 0..o.hosts {
        for b in 0..o.boards {
            let n = h * o.boards + b + 1;
            map.push_str(&format!(
                "[[board]]\nnumber = {n}\nhost = \"host-{h}\"\nboard = {b}\nwhite = \"White {n}\"\n"
            ));
        }
    }
    let map_path = dir.path().join("map.toml");
    std::fs::write(&map_path, map).map_err(|e| e.to_string())?;
    let hall = format!("127.0.0.1:{}", free_port()?);
    procs.0.push(
        std::process::Command::new(&o.eboardd)
            .args(["relay", "--mqtt", &url, "--relay-listen", &hall])
            .args(["--event", "mqtt-bench", "--round", "1", "--board-map"])
            .arg(&map_path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: {e}", o.eboardd.display()))?,
    );
    let relay_pid = procs.0[1].id();

    // The hosts.
    let real = games::real_games();
    let mut threads = Vec::new();
    let mut game_end = Time::ZERO;
    let mut host_pids = Vec::new();
    let mut host_relays = Vec::new();
    for h in 0..o.hosts {
        let host_dir = dir.path().join(format!("host-{h}"));
        std::fs::create_dir_all(&host_dir).map_err(|e| e.to_string())?;
        let address = start_bus(&host_dir.join("bus"))?;
        let mut config = String::new();
        for b in 0..o.boards {
            let i = h * o.boards + b;
            let protocol = if i.is_multiple_of(2) {
                Protocol::Dgt
            } else {
                Protocol::Millennium
            };
            let seed = i as u64 + 1;
            let perf = Hand::new(seed, HandOptions::default())
                .play(&real[i % 3])
                .map_err(|e| e.to_string())?;
            let timeline = perf.timeline;
            game_end = game_end.max(timeline.end());
            let options = BoardOptions {
                clock: protocol == Protocol::Dgt,
                ..BoardOptions::default()
            };
            let mut board = EmulatedBoard::with_options(protocol, &options, &timeline.start, seed);
            board.set_serial(&format!("{:05}", 20000 + i));
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
        let local = format!("127.0.0.1:{}", free_port()?);
        let mut daemon = daemon_command(&o.eboardd, &address, &host_dir, &config)?;
        daemon
            .args(["--mqtt", &url, "--mqtt-name", &format!("host-{h}")])
            .args([
                "--relay-listen",
                &local,
                "--event",
                "mqtt-bench",
                "--round",
                "1",
            ]);
        let child = daemon
            .spawn()
            .map_err(|e| format!("{}: {e}", o.eboardd.display()))?;
        host_pids.push(child.id());
        procs.0.push(child);
        host_relays.push((local, (h * o.boards) as u32));
    }
    let started = Instant::now();

    // Pollers: every host's own relay, and the hall's.
    let local_seen = Arc::new(Seen::default());
    let hall_seen = Arc::new(Seen::default());
    let poll_stop = Arc::new(AtomicBool::new(false));
    let mut pollers = Vec::new();
    for (addr, offset) in &host_relays {
        let (seen, stop) = (Arc::clone(&local_seen), Arc::clone(&poll_stop));
        let url = format!("http://{addr}/games.pgn");
        let offset = *offset;
        pollers.push(std::thread::spawn(move || poll(url, offset, seen, stop)));
    }
    {
        let (seen, stop) = (Arc::clone(&hall_seen), Arc::clone(&poll_stop));
        let url = format!("http://{hall}/games.pgn");
        pollers.push(std::thread::spawn(move || poll(url, 0, seen, stop)));
    }

    std::thread::sleep(Duration::from_secs(3));
    let ticks = |pids: &[u32]| pids.iter().map(|&p| cpu_ticks(p)).sum::<u64>();
    let (b0, r0, h0, t0) = (
        cpu_ticks(broker_pid),
        cpu_ticks(relay_pid),
        ticks(&host_pids),
        Instant::now(),
    );
    std::thread::sleep(Duration::from_secs_f64(o.seconds));
    let (b1, r1, h1, t1) = (
        cpu_ticks(broker_pid),
        cpu_ticks(relay_pid),
        ticks(&host_pids),
        Instant::now(),
    );
    let span = (t1 - t0).as_secs_f64();
    // /proc counts in USER_HZ, which is 100 a second on Linux.
    let pct = |a: u64, b: u64| 100.0 * (b - a) as f64 / 100.0 / span;
    println!(
        "hosts={} boards={} speed={}: cpu broker={:.2}% relay={:.2}% hosts={:.2}% (all {} together); \
         RSS broker={}kB relay={}kB (peak {}kB)",
        o.hosts,
        o.hosts * o.boards,
        o.speed,
        pct(b0, b1),
        pct(r0, r1),
        pct(h0, h1),
        o.hosts,
        status_kb(broker_pid, "VmRSS"),
        status_kb(relay_pid, "VmRSS"),
        status_kb(relay_pid, "VmHWM"),
    );
    let end = started
        + Duration::from_secs_f64(game_end.as_ms_f64() / 1000.0 / o.speed)
        + Duration::from_secs(5);
    let left = end.saturating_duration_since(Instant::now());
    println!(
        "waiting {:.0} s for the games to finish",
        left.as_secs_f64()
    );
    std::thread::sleep(left);
    poll_stop.store(true, Ordering::Relaxed);
    for p in pollers {
        let _ = p.join();
    }

    // What the hall adds: first appearance in the hall's page after the host's own.
    let local = local_seen.lock().unwrap_or_else(|e| e.into_inner());
    let hall_moves = hall_seen.lock().unwrap_or_else(|e| e.into_inner());
    let mut added: Vec<f64> = Vec::new();
    let mut missing = 0;
    for (key, at_host) in local.iter() {
        match hall_moves.get(key) {
            Some(at_hall) => added.push(
                at_hall.checked_duration_since(*at_host).map_or_else(
                    || -(at_host.duration_since(*at_hall).as_secs_f64()),
                    |d| d.as_secs_f64(),
                ) * 1000.0,
            ),
            None => missing += 1,
        }
    }
    added.sort_by(f64::total_cmp);
    println!(
        "hall relay after the host's own /games.pgn: p50={:.1}ms p99={:.1}ms max={:.1}ms over {} moves \
         (both polled every 5 ms; {missing} never seen in the hall)",
        quantile(&added, 0.5),
        quantile(&added, 0.99),
        added.last().copied().unwrap_or(f64::NAN),
        added.len(),
    );

    // The round at the end: the hall's games are the hosts'.
    let agent = agent();
    let hall_text = get(&agent, &format!("http://{hall}/games.pgn")).ok_or("GET hall")?;
    let hall_games = games_of(&hall_text);
    let mut errors = Vec::new();
    let rounds: Vec<String> = hall_text
        .lines()
        .filter_map(|l| l.strip_prefix("[Round \""))
        .map(str::to_string)
        .collect();
    let in_order: Vec<String> = (1..=o.hosts * o.boards)
        .map(|n| format!("1.{n}\"]"))
        .collect();
    if rounds != in_order {
        errors.push("the hall's games are not in board order".into());
    }
    let mut plies = 0;
    for (addr, offset) in &host_relays {
        let host_games =
            games_of(&get(&agent, &format!("http://{addr}/games.pgn")).ok_or("GET host")?);
        for (board, sans) in host_games {
            let n = offset + board;
            plies += sans.len();
            if hall_games.get(&n) != Some(&sans) {
                errors.push(format!("board {n} differs from its host's"));
            }
        }
    }
    println!(
        "hall: {} games ({plies} plies), {}",
        hall_games.len(),
        if errors.is_empty() && hall_games.len() == o.hosts * o.boards {
            "each as its host published it"
        } else {
            "WRONG"
        }
    );
    stop.store(true, Ordering::Relaxed);
    drop(procs);
    for t in threads {
        let _ = t.join();
    }
    if errors.is_empty() && hall_games.len() == o.hosts * o.boards {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}
