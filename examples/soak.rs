//! A tournament on one daemon: N emulated boards (the simulator's boards on
//! pseudo-terminals, DGT and Millennium in turn), each playing real games back to back for R
//! rounds, through the real serial path to `eboardd run` on a private bus (busd, in this
//! process). Between rounds the pieces are set up again, as arbiters do. A client follows
//! every board's signals; at the end each board's games are compared with what the hands
//! played, and the daemon's memory, file descriptors and threads at the start and the end
//! are printed.
//!
//! ```text
//! cargo build --release --bin eboardd --example soak
//! target/release/examples/soak [--boards N] [--rounds R] [--hand-speed H] [--pgn FILE]
//!     [--eboardd PATH]
//! ```
//!
//! `--truth FILE` writes what the hands played (a JSON line per board: device, rounds'
//! UCI moves), with `--truth-only` without running the tournament, so that the daemon's
//! traces (`SOAK_RECORD`) can be scored again by a later build (`examples/soak-rescore`).
//! `SOAK_LOG=FILE` keeps the daemon's log, `SOAK_RECORD=DIR` its traces of every board,
//! `SOAK_DEBUG=1` prints what the daemon said of each board.
//!
//! `--hand-speed` divides the hands' thinking and motions (not the physical behaviours:
//! slide rests, quick replies, flicker) so that a round takes minutes, not hours. Games
//! come from `--pgn` (every legal game in the file) or the games built into eboardd.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use eboardd::protocol::Protocol;
use eboardd::sim::device::{BoardOptions, EmulatedBoard};
use eboardd::sim::pty::PtyBoard;
use eboardd::sim::timeline::{Part, PhysicalEvent, Squares, Timeline};
use eboardd::sim::{Game, Hand, HandOptions, games, pgn};
use eboardd::time::Time;
use futures_util::StreamExt;
use shakmaty::Square;

#[path = "support/bus.rs"]
mod bus;
use bus::{board_signals, daemon_command, device_of, start_bus, tasks_of};

struct Options {
    boards: usize,
    rounds: usize,
    hand_speed: f64,
    pgn: Option<PathBuf>,
    eboardd: PathBuf,
    truth: Option<PathBuf>,
    truth_only: bool,
}

fn parse() -> Result<Options, String> {
    let mut o = Options {
        boards: 64,
        rounds: 9,
        hand_speed: 3.0,
        pgn: None,
        eboardd: PathBuf::from("target/release/eboardd"),
        truth: None,
        truth_only: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--boards" => o.boards = value()?.parse().map_err(|_| "--boards: a number")?,
            "--rounds" => o.rounds = value()?.parse().map_err(|_| "--rounds: a number")?,
            "--hand-speed" => {
                o.hand_speed = value()?.parse().map_err(|_| "--hand-speed: a number")?;
            }
            "--pgn" => o.pgn = Some(PathBuf::from(value()?)),
            "--eboardd" => o.eboardd = PathBuf::from(value()?),
            "--truth" => o.truth = Some(PathBuf::from(value()?)),
            "--truth-only" => o.truth_only = true,
            _ => return Err(format!("unknown argument {a}")),
        }
    }
    if o.boards == 0 || o.rounds == 0 {
        return Err("--boards and --rounds: at least 1".into());
    }
    Ok(o)
}

fn main() -> ExitCode {
    match parse().and_then(|o| run(&o)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("soak: {e}");
            ExitCode::FAILURE
        }
    }
}

/// How long the pieces stand still before a round's first move: the daemon attaches (first
/// round) or has seen the set-up (later rounds).
const LEAD_MS: u64 = 4000;

/// The pause after a round's last change, and after the pieces are set up again.
const GAP_US: u64 = 3_000_000;

/// The arbiter clears the board from `before` and sets up `start`, a piece every 80 ms,
/// from `t_us` on; when the last piece is down.
fn set_up_again(all: &mut Timeline, before: &Squares, start: &Squares, t_us: u64) -> u64 {
    let mut t = t_us;
    let mut change = |all: &mut Timeline, sq: usize, piece| {
        t += 80_000;
        all.events.push(PhysicalEvent {
            t: Time::from_micros(t),
            square: Square::new(sq as u32),
            piece,
            ply: 0,
            part: Part::Adjust,
        });
    };
    for sq in 0..64 {
        if before[sq].is_some() && before[sq] != start[sq] {
            change(all, sq, None);
        }
    }
    for sq in 0..64 {
        if start[sq].is_some() && before[sq] != start[sq] {
            change(all, sq, start[sq]);
        }
    }
    t
}

/// What the daemon said of a board, in order.
#[derive(Debug)]
enum Said {
    NewGame,
    Move(u32, String),
    Retract(u32),
    Takeback(u32),
}

/// The games a board's signals describe, each as its UCI moves.
fn games_of(said: &[Said]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    for s in said {
        match s {
            Said::NewGame => out.push(Vec::new()),
            Said::Move(ply, uci) => {
                if out.is_empty() {
                    out.push(Vec::new());
                }
                if let Some(g) = out.last_mut() {
                    g.truncate((*ply as usize).saturating_sub(1));
                    g.push(uci.clone());
                }
            }
            Said::Retract(ply) => {
                if let Some(g) = out.last_mut() {
                    g.truncate((*ply as usize).saturating_sub(1));
                }
            }
            Said::Takeback(ply) => {
                if let Some(g) = out.last_mut() {
                    g.truncate(*ply as usize);
                }
            }
        }
    }
    // A new game announced for a board set up again before any move is no game.
    out.retain(|g| !g.is_empty());
    out
}

/// VmRSS in kB, open file descriptors and threads of a process.
fn footprint(pid: u32) -> (u64, usize, usize) {
    let rss = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let count = |dir: &str| {
        std::fs::read_dir(format!("/proc/{pid}/{dir}"))
            .map(|d| d.count())
            .unwrap_or(0)
    };
    (rss, count("fd"), count("task"))
}

/// CPU time (user and system) a process has used, in seconds.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i).and_then(|v| v.parse::<u64>().ok()))
        .sum();
    ticks as f64 / 100.0
}

/// Writes what each board's hands played, one JSON line per board: its device and the
/// UCI moves of each round, to score the daemon's traces of the run again later.
fn write_truth(
    path: &std::path::Path,
    boards: &[(PtyBoard, Timeline, Time)],
    expected: &[Vec<Vec<String>>],
) -> Result<(), String> {
    let mut text = String::new();
    for ((pty, _, _), rounds) in boards.iter().zip(expected) {
        let line = serde_json::json!({ "device": pty.path(), "rounds": rounds });
        text.push_str(&format!("{line}\n"));
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

fn load_games(o: &Options) -> Result<Vec<Game>, String> {
    let games: Vec<Game> = match &o.pgn {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            pgn::read_games(&text)
                .into_iter()
                .filter_map(Result::ok)
                .filter(|g| !g.moves.is_empty() && !g.chess960)
                .collect()
        }
        None => games::real_games(),
    };
    if games.is_empty() {
        return Err("no games to play".into());
    }
    Ok(games)
}

fn run(o: &Options) -> Result<bool, String> {
    let games = load_games(o)?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let address = start_bus(&dir.path().join("bus"))?;
    let stop = Arc::new(AtomicBool::new(false));
    let mut config = String::new();
    if let Some(dir) = std::env::var_os("SOAK_RECORD") {
        config.push_str(&format!(
            "[daemon]\nrecord-dir = \"{}\"\n",
            PathBuf::from(dir).display()
        ));
    }
    let mut boards = Vec::new();
    let mut expected: Vec<Vec<Vec<String>>> = Vec::new();
    let hand = HandOptions {
        speed: o.hand_speed,
        ..HandOptions::default()
    };
    for i in 0..o.boards {
        let protocol = if i % 2 == 0 {
            Protocol::Dgt
        } else {
            Protocol::Millennium
        };
        // One timeline for the whole tournament: the rounds' games one after the other,
        // the pieces cleared and set up again between them.
        let mut truth = Vec::new();
        let mut tournament: Option<Timeline> = None;
        let mut offset = Time::from_millis(LEAD_MS).as_micros();
        let mut state = None;
        for r in 0..o.rounds {
            let game = &games[(i + r * o.boards) % games.len()];
            let seed = (i * 1000 + r) as u64 + 1;
            let played = Hand::new(seed, hand)
                .play(game)
                .map_err(|e| e.to_string())?;
            let round = played.timeline;
            let all = tournament.get_or_insert_with(|| Timeline::new(round.start, Vec::new()));
            if let Some(before) = state {
                offset = set_up_again(all, &before, &round.start, offset) + GAP_US;
            }
            let mut last = 0;
            for e in &round.events {
                let t = e.t.as_micros();
                last = last.max(t);
                all.events.push(PhysicalEvent {
                    t: Time::from_micros(t + offset),
                    ..*e
                });
            }
            state = Some(round.state_at(Time::from_micros(last)));
            // The last move is confirmed and seen before the pieces are cleared.
            offset += last + GAP_US;
            truth.push(played.truth.plies.iter().map(|p| p.uci.clone()).collect());
        }
        let Some(tournament) = tournament else {
            return Err("no rounds".into());
        };
        let until = Time::from_micros(offset);
        let mut board = EmulatedBoard::with_options(
            protocol,
            &BoardOptions::default(),
            &tournament.start,
            i as u64,
        );
        // Each DGT board has its own serial number: the daemon follows a board's game by it.
        board.set_serial(&format!("{:05}", 20000 + i));
        let pty = PtyBoard::open(board, 1.0).map_err(|e| e.to_string())?;
        config.push_str(&format!(
            "[[board]]\ndevice = \"{}\"\nprotocol = \"{protocol}\"\n",
            pty.path()
        ));
        boards.push((pty, tournament, until));
        expected.push(truth);
    }
    if let Some(path) = &o.truth {
        write_truth(path, &boards, &expected)?;
        if o.truth_only {
            return Ok(true);
        }
    }
    let mut daemon = daemon_command(&o.eboardd, &address, dir.path(), &config)?
        .stderr(match std::env::var_os("SOAK_LOG") {
            Some(path) => std::fs::File::create(path)
                .map(Stdio::from)
                .map_err(|e| e.to_string())?,
            None => Stdio::null(),
        })
        .spawn()
        .map_err(|e| format!("{}: {e}", o.eboardd.display()))?;
    let pid = daemon.id();
    let started = Instant::now();

    let mut paths = Vec::new();
    let mut threads = Vec::new();
    // Every board answers the daemon until the last board's tournament is over.
    let until = boards
        .iter()
        .map(|(_, _, until)| *until)
        .max()
        .unwrap_or(Time::ZERO);
    for (mut pty, tournament, _) in boards {
        paths.push(pty.path().to_string());
        let stop = Arc::clone(&stop);
        threads.push(std::thread::spawn(move || {
            if let Err(e) = pty.run(&tournament, until, &stop) {
                eprintln!("soak: the board on {} stopped: {e}", pty.path());
            }
        }));
    }

    let said: Arc<Mutex<HashMap<String, Vec<Said>>>> = Arc::default();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let heard = Arc::clone(&said);
    let listed = Arc::clone(&said);
    let (first, devices, tasks) = runtime.block_on(async move {
        let (conn, mut stream) = board_signals(&address, None).await?;
        tokio::spawn(async move {
            while let Some(Ok(msg)) = stream.next().await {
                let header = msg.header();
                let (Some(path), Some(member)) = (header.path(), header.member()) else {
                    continue;
                };
                let body = msg.body();
                let item = match member.as_str() {
                    "NewGame" => Some(Said::NewGame),
                    "Move" => body
                        .deserialize::<(u32, String, String, String)>()
                        .ok()
                        .map(|(ply, uci, _, _)| Said::Move(ply, uci)),
                    "Retract" => body
                        .deserialize::<(u32, String)>()
                        .ok()
                        .map(|(ply, _)| Said::Retract(ply)),
                    "Takeback" => body.deserialize::<u32>().ok().map(Said::Takeback),
                    _ => None,
                };
                if let (Some(item), Ok(mut said)) = (item, heard.lock()) {
                    said.entry(path.to_string()).or_default().push(item);
                }
            }
        });
        tokio::time::sleep(Duration::from_secs(3)).await;
        let first = footprint(pid);
        let first_tasks = tasks_of(&conn).await.unwrap_or(0);
        // The rounds run on the boards' threads; wait for them without blocking the client,
        // and look at the daemon's memory every minute.
        let mut looked = Instant::now();
        while !threads.iter().all(|t| t.is_finished()) {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if looked.elapsed() >= Duration::from_secs(60) {
                looked = Instant::now();
                let (rss, fds, threads) = footprint(pid);
                let tasks = tasks_of(&conn).await.unwrap_or(0);
                println!(
                    "  after {:.0} s: VmRSS {rss} kB, open fds {fds}, threads {threads}, tasks {tasks}, CPU {:.1} s",
                    started.elapsed().as_secs_f64(),
                    cpu_seconds(pid)
                );
            }
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
        let mut devices = HashMap::new();
        let known: Vec<String> = listed
            .lock()
            .map(|s| s.keys().cloned().collect())
            .unwrap_or_default();
        for path in known {
            let device = device_of(&conn, &path).await?;
            devices.insert(device, path);
        }
        let tasks = (first_tasks, tasks_of(&conn).await.unwrap_or(0));
        Ok::<_, String>((first, devices, tasks))
    })?;
    let last = footprint(pid);
    let elapsed = started.elapsed();
    let cpu = cpu_seconds(pid);
    let _ = daemon.kill();
    let _ = daemon.wait();
    stop.store(true, Ordering::Relaxed);

    let said = std::mem::take(&mut *said.lock().map_err(|e| e.to_string())?);
    let (mut games_total, mut games_exact, mut moves_total) = (0usize, 0usize, 0usize);
    let (mut misread, mut lost, mut extra) = (0usize, 0usize, 0usize);
    for (i, truth) in expected.iter().enumerate() {
        let heard = devices
            .get(&paths[i])
            .and_then(|p| said.get(p))
            .map(|s| games_of(s))
            .unwrap_or_default();
        if std::env::var_os("SOAK_DEBUG").is_some() {
            let s = devices.get(&paths[i]).and_then(|p| said.get(p));
            eprintln!("board {}: {:?}", i + 1, s);
        }
        for (r, want) in truth.iter().enumerate() {
            games_total += 1;
            moves_total += want.len();
            let got = heard.get(r).cloned().unwrap_or_default();
            let wrong = want.iter().zip(&got).filter(|(a, b)| a != b).count();
            misread += wrong;
            lost += want.len().saturating_sub(got.len());
            extra += got.len().saturating_sub(want.len());
            if got == *want {
                games_exact += 1;
            } else {
                println!(
                    "  board {} round {}: {} of {} moves as played, first difference at ply {}",
                    i + 1,
                    r + 1,
                    want.iter().zip(&got).filter(|(a, b)| a == b).count(),
                    want.len(),
                    want.iter()
                        .zip(&got)
                        .position(|(a, b)| a != b)
                        .unwrap_or(got.len().min(want.len()))
                        + 1
                );
            }
        }
        if heard.len() > truth.len() {
            println!(
                "  board {}: {} games heard for {} played",
                i + 1,
                heard.len(),
                truth.len()
            );
        }
    }
    println!(
        "soak: {} boards x {} rounds in {:.0} s (hand speed {}): games {games_exact}/{games_total} \
         exact, moves {moves_total}, misread {misread}, lost {lost}, extra {extra}",
        o.boards,
        o.rounds,
        elapsed.as_secs_f64(),
        o.hand_speed,
    );
    println!(
        "daemon: VmRSS {} kB at the start, {} kB at the end; open fds {} -> {}; threads {} -> {}; tasks {} -> {}",
        first.0, last.0, first.1, last.1, first.2, last.2, tasks.0, tasks.1
    );
    println!(
        "daemon: CPU {cpu:.1} s in {:.0} s, {:.2} % of one core",
        elapsed.as_secs_f64(),
        100.0 * cpu / elapsed.as_secs_f64()
    );
    Ok(games_exact == games_total)
}
