//! Faults around the daemon process itself while an emulated board plays a real game: a
//! D-Bus client that floods it with calls, good and bad, and SIGKILL at seeded moments.
//! The game must come through whole and the daemon still serve.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use eboardd::dbus::{BOARD_INTERFACE, BUS_NAME, MANAGER_INTERFACE, MANAGER_PATH, board_path};
use eboardd::protocol::Protocol;
use eboardd::sim::HandOptions;
use eboardd::sim::device::BoardOptions;
use futures_util::StreamExt;

use crate::daemon::emulated::EmulatedPty;
use crate::daemon::emulated_game::{
    SPEED, game_limit, game_limit_at, is_event, is_move, opera, play, truth_sans,
};
use crate::daemon::emulated_links::{pgn_sans, spawn_daemon, wait_for};
use crate::daemon::support::*;

/// A process's peak resident memory, in kB.
fn peak_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

/// One of the flood's calls: `i` picks which. Most are wrong (bad arguments, unknown
/// methods and interfaces, wrong signatures, no such object); some are right but harmless
/// to the game (LEDs, properties).
async fn flood_call(conn: &zbus::Connection, i: usize) -> zbus::Result<zbus::Message> {
    let board = board_path(0);
    let other = board_path(99);
    let props = "org.freedesktop.DBus.Properties";
    let long = "x".repeat(500);
    match i % 12 {
        0 => {
            let squares = vec!["e2".to_string(), "e4".to_string()];
            conn.call_method(
                Some(BUS_NAME),
                board.as_str(),
                Some(BOARD_INTERFACE),
                "SetLeds",
                &(squares,),
            )
            .await
        }
        1 => {
            let squares = vec!["z9".to_string()];
            conn.call_method(
                Some(BUS_NAME),
                board.as_str(),
                Some(BOARD_INTERFACE),
                "SetLeds",
                &(squares,),
            )
            .await
        }
        2 => {
            conn.call_method(
                Some(BUS_NAME),
                board.as_str(),
                Some(BOARD_INTERFACE),
                "NewGame",
                &("not a fen",),
            )
            .await
        }
        3 => {
            conn.call_method(
                Some(BUS_NAME),
                board.as_str(),
                Some(BOARD_INTERFACE),
                "SetPosition",
                &("",),
            )
            .await
        }
        4 => {
            conn.call_method(
                Some(BUS_NAME),
                board.as_str(),
                Some(BOARD_INTERFACE),
                "ShowMove",
                &("e9e10",),
            )
            .await
        }
        5 => {
            conn.call_method(
                Some(BUS_NAME),
                board.as_str(),
                Some(BOARD_INTERFACE),
                "ClockText",
                &(long.as_str(),),
            )
            .await
        }
        6 => {
            conn.call_method(
                Some(BUS_NAME),
                board.as_str(),
                Some(BOARD_INTERFACE),
                "SetLeds",
                &(42u32,),
            )
            .await
        }
        7 => {
            conn.call_method(
                Some(BUS_NAME),
                board.as_str(),
                Some(BOARD_INTERFACE),
                "Explode",
                &(),
            )
            .await
        }
        8 => {
            conn.call_method(
                Some(BUS_NAME),
                other.as_str(),
                Some(BOARD_INTERFACE),
                "NewGame",
                &("",),
            )
            .await
        }
        9 => {
            conn.call_method(
                Some(BUS_NAME),
                board.as_str(),
                Some(props),
                "Get",
                &(BOARD_INTERFACE, "Pgn"),
            )
            .await
        }
        10 => {
            conn.call_method(
                Some(BUS_NAME),
                MANAGER_PATH,
                Some(MANAGER_INTERFACE),
                "AttachDevice",
                &("relative/path",),
            )
            .await
        }
        _ => {
            conn.call_method(
                Some(BUS_NAME),
                MANAGER_PATH,
                Some(MANAGER_INTERFACE),
                "DetachDevice",
                &("/dev/eboardd-no-such-board",),
            )
            .await
        }
    }
}

/// The flood test's game runs slower than the others: the flood loads the machine, and a
/// stall must not bunch several plies together.
const FLOOD_SPEED: f64 = SPEED / 3.0;

/// What each test here starts from: a private bus, a state folder, the link of one DGT
/// board, and the Opera game as its hand plays it (seed 21).
struct Stage {
    dir: tempfile::TempDir,
    address: String,
    state: std::path::PathBuf,
    link: std::path::PathBuf,
    played: crate::daemon::emulated_game::Played,
}

fn stage() -> Stage {
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let state = dir.path().join("state");
    let link = board_link(dir.path(), "dgt0");
    let played = play(
        &opera(),
        Protocol::Dgt,
        21,
        HandOptions::default(),
        // A Revelation II: SetLeds is a right call on it.
        BoardOptions {
            dgt_revelation: true,
            ..BoardOptions::default()
        },
    );
    Stage {
        dir,
        address,
        state,
        link,
        played,
    }
}

/// While an emulated DGT board plays a real game through the real daemon, a client sends
/// it rounds of 12,000 calls, up to 500 at a time without waiting for the answers, most of
/// them wrong, until the game has gone on meanwhile. Every call is answered (a wrong one
/// with an error), another client's calls are answered all the while, the game comes
/// through whole, and the daemon's memory stays within bounds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_flooding_the_daemon_with_calls_neither_stops_the_game_nor_other_clients() {
    const CALLS: usize = 12_000;
    const AT_ONCE: usize = 500;
    let Stage {
        dir,
        address,
        state,
        link,
        played,
    } = stage();
    let perf = played.perf;
    let conn = client(&address).await;
    let mut signals = Signals::record(&conn).await;
    let _board = EmulatedPty::start(
        &link,
        played.board,
        perf.timeline.clone(),
        FLOOD_SPEED,
        vec![],
    );
    let log = dir.path().join("daemon.log");
    let daemon = spawn_daemon(&address, &state, &link, &log);
    let pid = daemon.0.id();
    let proxy = board_proxy(&conn, board_path(0)).await;
    signals
        .until(game_limit_at(&perf, FLOOD_SPEED), |m| is_move(m, 3))
        .await;
    let before = peak_kb(pid);

    let flooder = client(&address).await;
    let went_on = Arc::new(AtomicBool::new(false));
    let seen_going_on = went_on.clone();
    let flood = tokio::spawn(async move {
        // Rounds until the game has been seen going on during the flood (at most 20).
        let mut answers: Vec<Option<bool>> = Vec::new();
        for _ in 0..20 {
            // A call unanswered for a minute counts as never answered (`None`).
            let round: Vec<Option<bool>> = futures_util::stream::iter(0..CALLS)
                .map(|i| {
                    let conn = flooder.clone();
                    async move {
                        tokio::time::timeout(Duration::from_secs(60), flood_call(&conn, i))
                            .await
                            .ok()
                            .map(|answer| answer.is_ok())
                    }
                })
                .buffer_unordered(AT_ONCE)
                .collect()
                .await;
            answers.extend(round);
            if seen_going_on.load(Ordering::SeqCst) {
                break;
            }
        }
        answers
    });
    // Meanwhile another client's calls are answered, one after the other, and the game
    // goes on: a move signalled while the flood lasts.
    let mut plies_seen = Vec::new();
    while !flood.is_finished() {
        let ply = tokio::time::timeout(LIMIT, proxy.ply())
            .await
            .expect("another client's call answered during the flood")
            .expect("Ply");
        if plies_seen.first().is_some_and(|first| ply > *first) {
            went_on.store(true, Ordering::SeqCst);
        }
        plies_seen.push(ply);
    }
    let answers = flood.await.expect("the flood");
    let unanswered = answers.iter().filter(|a| a.is_none()).count();
    assert_eq!(unanswered, 0, "every call answered");
    let ok = answers.iter().filter(|a| **a == Some(true)).count();
    // Right: the LEDs and the PGN (2 of every 12); every other one an error.
    assert_eq!(ok, answers.len() / 6, "wrong calls answered with errors");
    let (first, last) = (plies_seen.first(), plies_seen.last());
    assert!(
        first.is_some_and(|f| *f >= 3) && last > first,
        "the game went on during the flood: plies {first:?} to {last:?}"
    );

    signals
        .until(game_limit_at(&perf, FLOOD_SPEED), |m| is_event(m, "result"))
        .await;
    let plies = perf.truth.plies.len() as u32;
    wait_for(&proxy, LIMIT, &log, |ply, pgn| {
        ply == plies && pgn.contains("1-0")
    })
    .await;
    let pgn = proxy.pgn().await.expect("Pgn");
    assert_eq!(pgn_sans(&pgn), truth_sans(&perf), "the whole game: {pgn}");
    // The round's tags given on the command line are the game's.
    for tag in [
        "[Event \"Hall \\\"Open\\\" 2026\"]",
        &format!("[Site \"{}\"]", crate::daemon::emulated_links::SITE),
    ] {
        assert!(pgn.contains(tag), "{tag} missing: {pgn}");
    }
    assert!(proxy.connected().await.expect("Connected"));
    // 12,000 calls cost no more than a few megabytes (what is in flight at once).
    let after = peak_kb(pid);
    assert!(
        after < before + 32 * 1024,
        "peak memory {before} kB before the flood, {after} kB after"
    );
}

/// A seeded sequence of numbers (xorshift), for kill points a failure can be replayed from.
struct Seeded(u64);

impl Seeded {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// The plies of the moves in a board's journal, in order.
pub fn journalled_plies(state: &std::path::Path, link: &std::path::Path) -> Vec<u64> {
    let key = eboardd::daemon::journal::board_key(link);
    let path = state.join("journal").join(format!("{key}.jsonl"));
    std::fs::read_to_string(&path)
        .expect("journal")
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["event"] == "move")
        .filter_map(|v| v["ply"].as_u64())
        .collect()
}

/// The daemon is killed with SIGKILL at seeded moments of a real game (once a ply is
/// confirmed, then a seeded wait of up to 400 ms, so mid-move as well as between moves)
/// and started again each time. After every restart the game resumes with every move
/// confirmed before the kill, each once; the game comes through whole and its journal
/// holds each move once, in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_daemon_killed_with_sigkill_at_seeded_moments_loses_and_repeats_no_move() {
    const SEED: u64 = 0x5eed_0007;
    const KILLS: usize = 6;
    let Stage {
        dir,
        address,
        state,
        link,
        played,
    } = stage();
    let perf = played.perf;
    let truth = truth_sans(&perf);
    let plies = truth.len() as u64;
    let conn = client(&address).await;
    let _board = EmulatedPty::start(&link, played.board, perf.timeline.clone(), SPEED, vec![]);
    let log = dir.path().join("daemon.log");
    let proxy = board_proxy(&conn, board_path(0)).await;

    let mut seeded = Seeded(SEED);
    let mut points: Vec<(u32, u64)> = Vec::new();
    while points.len() < KILLS {
        let ply = 1 + seeded.below(plies - 2) as u32;
        if !points.iter().any(|(p, _)| *p == ply) {
            points.push((ply, seeded.below(400)));
        }
    }
    points.sort_unstable();
    let mut daemon = spawn_daemon(&address, &state, &link, &log);
    let mut confirmed = 0;
    for (ply, wait_ms) in &points {
        let what = format!("seed {SEED:#x}, kill after ply {ply} and {wait_ms} ms");
        // Every move confirmed before the last kill is there again, each once.
        wait_for(&proxy, game_limit(&perf), &log, |p, pgn| {
            p >= (*ply).max(confirmed) && !pgn.is_empty()
        })
        .await;
        let resumed = pgn_sans(&proxy.pgn().await.expect("Pgn"));
        assert!(
            resumed.len() >= confirmed as usize && truth.starts_with(&resumed),
            "{what}: {resumed:?}"
        );
        tokio::time::sleep(Duration::from_millis(*wait_ms)).await;
        confirmed = proxy.ply().await.expect("Ply");
        daemon.0.kill().expect("SIGKILL");
        let _ = daemon.0.wait();
        daemon = spawn_daemon(&address, &state, &link, &log);
    }
    wait_for(&proxy, game_limit(&perf) + LIMIT, &log, |p, pgn| {
        p == plies as u32 && pgn.contains("1-0")
    })
    .await;
    let pgn = proxy.pgn().await.expect("Pgn");
    assert_eq!(pgn_sans(&pgn), truth, "the whole game: {pgn}");
    let journalled = journalled_plies(&state, &link);
    assert_eq!(journalled, (1..=plies).collect::<Vec<_>>(), "{points:?}");
    drop(daemon);
}

/// Starts `eboardd run` on the bus at `address` with files limited to `fsize` bytes
/// (`RLIMIT_FSIZE`, `SIGXFSZ` ignored: a write past the limit fails with `EFBIG`, as on a
/// disk that is full); its standard error is collected in `log`.
fn spawn_limited(
    address: &str,
    state: &std::path::Path,
    link: &std::path::Path,
    fsize: u64,
    log: std::sync::Arc<std::sync::Mutex<String>>,
) -> crate::daemon::emulated_links::Guard {
    use std::io::BufRead;
    use std::os::unix::process::CommandExt;
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_eboardd"));
    command
        .args(["run", "--bus-address", address, "--state-dir"])
        .arg(state)
        .arg("--device")
        .arg(link)
        .env("EBOARDD_LOG", "info")
        .env_remove("JOURNAL_STREAM")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    // SAFETY: between fork and exec only async-signal-safe calls (signal, setrlimit).
    unsafe {
        command.pre_exec(move || {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: fsize,
                rlim_max: libc::RLIM_INFINITY,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command.spawn().expect("spawn eboardd run");
    let stderr = child.stderr.take().expect("stderr");
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
            log.push_str(&line);
            log.push('\n');
        }
    });
    crate::daemon::emulated_links::Guard(child)
}

/// Lifts a running process's file size limit.
fn lift_fsize_limit(pid: u32) {
    let unlimited = libc::rlimit {
        rlim_cur: libc::RLIM_INFINITY,
        rlim_max: libc::RLIM_INFINITY,
    };
    let pid = libc::pid_t::try_from(pid).expect("pid");
    // SAFETY: plain system call on a process of ours; no old limit is read back.
    let done = unsafe { libc::prlimit(pid, libc::RLIMIT_FSIZE, &unlimited, std::ptr::null_mut()) };
    assert_eq!(done, 0, "prlimit: {}", std::io::Error::last_os_error());
}

/// The daemon's journal fills up the room it has (files are limited to 2 kB: every write
/// past that fails, as on a full disk) while a real game is played. The daemon goes on:
/// every move is still confirmed and served, the error is logged once, clearly; once there
/// is room again the next move writes the whole game to the journal, which is said too;
/// and a daemon killed then and started again resumes the game from it, to the end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_journal_on_a_full_disk_keeps_the_game_in_memory_and_catches_up_when_there_is_room() {
    const ROOM: u64 = 2048;
    let Stage {
        dir,
        address,
        state,
        link,
        played,
    } = stage();
    let perf = played.perf;
    let truth = truth_sans(&perf);
    let conn = client(&address).await;
    let mut signals = Signals::record(&conn).await;
    let _board = EmulatedPty::start(&link, played.board, perf.timeline.clone(), SPEED, vec![]);
    let log = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let logged = || log.lock().map(|l| l.clone()).unwrap_or_default();
    let daemon = spawn_limited(&address, &state, &link, ROOM, log.clone());
    let proxy = board_proxy(&conn, board_path(0)).await;
    let journal = state.join("journal").join(format!(
        "{}.jsonl",
        eboardd::daemon::journal::board_key(&link)
    ));

    // Full: the moves go on, the journal stops short of them.
    signals.until(game_limit(&perf), |m| is_move(m, 14)).await;
    let ply = proxy.ply().await.expect("Ply");
    assert!(ply >= 14);
    assert_eq!(
        pgn_sans(&proxy.pgn().await.expect("Pgn"))[..],
        truth[..ply as usize]
    );
    let on_disk = journalled_plies(&state, &link);
    assert!(
        std::fs::metadata(&journal).expect("journal").len() <= ROOM && (on_disk.len() as u32) < ply,
        "the disk took {on_disk:?}"
    );
    let refused = "the game goes on in memory and is written again once the disk takes it";
    let log_now = logged();
    assert_eq!(log_now.matches(refused).count(), 1, "{log_now}");
    assert!(log_now.contains("File too large"), "{log_now}");

    // Room again: the next move writes the whole game.
    lift_fsize_limit(daemon.0.id());
    signals.until(game_limit(&perf), |m| is_move(m, 18)).await;
    let on_disk = journalled_plies(&state, &link);
    assert!(
        on_disk.len() >= 18 && on_disk == (1..=on_disk.len() as u64).collect::<Vec<_>>(),
        "{on_disk:?}"
    );
    let log_now = logged();
    assert!(log_now.contains("journal: written again"), "{log_now}");
    assert_eq!(log_now.matches(refused).count(), 1, "{log_now}");

    // What is on disk is the game: killed and started again, the daemon resumes it.
    drop(daemon);
    let _daemon = spawn_limited(&address, &state, &link, u64::MAX, log.clone());
    let plies = truth.len() as u32;
    let log_file = dir.path().join("no-such.log");
    wait_for(&proxy, game_limit(&perf) + LIMIT, &log_file, |p, pgn| {
        p == plies && pgn.contains("1-0")
    })
    .await;
    assert_eq!(pgn_sans(&proxy.pgn().await.expect("Pgn")), truth);
    assert_eq!(
        journalled_plies(&state, &link),
        (1..=u64::from(plies)).collect::<Vec<_>>()
    );
}
