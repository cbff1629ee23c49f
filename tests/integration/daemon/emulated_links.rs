//! Emulated boards playing real games while their link drops and while the daemon is
//! killed: the game goes on with every move.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use eboardd::daemon::config::ProtocolChoice;
use eboardd::dbus::board_path;
use eboardd::dbus::client::BoardProxy;
use eboardd::protocol::Protocol;
use eboardd::sim::device::BoardOptions;
use eboardd::sim::{HandOptions, Performance};
use eboardd::time::Time;

use crate::daemon::emulated::EmulatedPty;
use crate::daemon::emulated_game::{
    Followed, SPEED, game_limit, is_event, is_move, opera, play, real_daemon, truth_sans,
};
use crate::daemon::support::*;

/// When the board comes back after ply `ply`, played while it was away, ended: 500 ms
/// later, or halfway to the next move if that starts sooner (the board comes back to a
/// quiet position, so the plies played while away are exactly those up to `ply`).
fn back_after(perf: &Performance, ply: usize) -> Time {
    let end = perf.truth.plies[ply - 1].move_end;
    let soon = end + Duration::from_millis(500);
    match perf.truth.plies.get(ply) {
        Some(next) => soon.min(end + (next.move_start - end) / 2),
        None => soon,
    }
}

/// Plays the Opera game on an emulated `protocol` board, unplugged once ply `after` is
/// confirmed and plugged back in when `plies` more were played; the game must go on with
/// every move, the plies played while away found when the board is back.
async fn unplugged_for(protocol: Protocol, after: usize, plies: usize) {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let link = board_link(dir.path(), "board0");
    let played = play(
        &opera(),
        protocol,
        5,
        HandOptions::default(),
        BoardOptions::default(),
    );
    let perf = played.perf;
    let conn = client(&address).await;
    let mut signals = Signals::record(&conn).await;
    let board = EmulatedPty::start(&link, played.board, perf.timeline.clone(), SPEED, vec![]);
    // The protocol is fixed: probing DGT first would keep a Millennium board waiting 1.5 s,
    // which the hand, 12 times faster, would fill with moves.
    let (_daemon, _service) = real_daemon(
        &address,
        &dir.path().join("state"),
        &link,
        ProtocolChoice::Fixed(protocol),
    )
    .await;

    let mut seen = signals
        .until(game_limit(&perf), |m| is_move(m, after as u32))
        .await;
    board.unplug();
    board.plug_at(back_after(&perf, after + plies));
    seen.extend(
        signals
            .until(game_limit(&perf), |m| is_event(m, "result"))
            .await,
    );
    let followed = Followed::from(&seen);
    assert_eq!(followed.sans, truth_sans(&perf), "{:?}", followed.counts);
    assert!(
        followed.connected.ends_with(&[false, true])
            && followed.connected.iter().filter(|c| !**c).count() == 1,
        "away once, then back: {:?}",
        followed.connected
    );
    assert_eq!(board.wait(Duration::ZERO, "plugs", |s| Some(s.plugs)), 2);
    // No move while away; the plies played meanwhile came once the board was back.
    let connected_at: Vec<usize> = seen
        .iter()
        .enumerate()
        .filter(|(_, m)| member(m) == "PropertiesChanged")
        .filter_map(|(i, m)| {
            let (_, changed, _): (
                String,
                std::collections::HashMap<String, zbus::OwnedVariant>,
                Vec<String>,
            ) = m.body().deserialize().ok()?;
            changed.contains_key("Connected").then_some(i)
        })
        .collect();
    let [.., gone, returned] = connected_at[..] else {
        panic!("Connected changed {connected_at:?}");
    };
    assert!(
        !seen[gone..returned].iter().any(|m| member(m) == "Move"),
        "no move while away"
    );
    // The plies the daemon had confirmed when the link went: `after`, or one more when the
    // hand, `SPEED` times faster than the settle window, had already finished the next.
    let ply_of = |m: &zbus::Message| {
        (member(m) == "Move")
            .then(|| m.body().deserialize::<(u32, String, String, String)>().ok())
            .flatten()
            .map(|(ply, ..)| ply)
    };
    let before = seen[..gone].iter().filter_map(ply_of).max();
    let first_back = seen[returned..].iter().filter_map(ply_of).next();
    let before = before.expect("moves before the board went away");
    assert!(
        before >= after as u32 && before < (after + plies) as u32,
        "the board went away after ply {before}, before the plies played while away"
    );
    assert_eq!(first_back, Some(before + 1));
    let proxy = board_proxy(&conn, board_path(0)).await;
    assert_eq!(
        proxy.fen().await.expect("Fen"),
        perf.truth.plies.last().expect("plies").fen_after
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_millennium_board_unplugged_for_two_plies_comes_back_and_the_game_takes_them_up() {
    // 4. dxe5 Bxf3 are played while the board is away.
    unplugged_for(Protocol::Millennium, 6, 2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dgt_board_unplugged_for_two_plies_comes_back_and_the_game_takes_them_up() {
    // 11. Bxb5+ Nbd7 are played while the board is away.
    unplugged_for(Protocol::Dgt, 20, 2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dgt_board_unplugged_for_four_plies_comes_back_and_the_game_takes_them_up() {
    // 4. dxe5 Bxf3 5. Qxf3 dxe5 are played while the board is away (captures: no other
    // order of four plies gives that position).
    unplugged_for(Protocol::Dgt, 6, 4).await;
}

/// A daemon process, killed when dropped.
pub struct Guard(pub Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The round's `--event` and `--site` given to every daemon [`spawn_daemon`] starts.
pub const EVENT: &str = "Hall \"Open\" 2026";
/// See [`EVENT`].
pub const SITE: &str = "Oslo";

/// Starts `eboardd run` on the bus at `address`; its log goes to `log`.
pub fn spawn_daemon(
    address: &str,
    state: &std::path::Path,
    link: &std::path::Path,
    log: &std::path::Path,
) -> Guard {
    spawn_daemon_with(
        address,
        state,
        link,
        log,
        &["--event", EVENT, "--site", SITE],
    )
}

/// [`spawn_daemon`] with these arguments instead of its `--event` and `--site`.
pub fn spawn_daemon_with(
    address: &str,
    state: &std::path::Path,
    link: &std::path::Path,
    log: &std::path::Path,
    extra: &[&str],
) -> Guard {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .expect("log file");
    Guard(
        Command::new(env!("CARGO_BIN_EXE_eboardd"))
            .args(["run", "--bus-address", address, "--state-dir"])
            .arg(state)
            .arg("--device")
            .arg(link)
            .args(extra)
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("spawn eboardd run"),
    )
}

/// Waits (bounded) until `check` holds of the board's Ply and Pgn.
pub async fn wait_for(
    proxy: &BoardProxy<'_>,
    limit: Duration,
    log: &std::path::Path,
    check: impl Fn(u32, &str) -> bool,
) {
    let last = std::sync::Mutex::new(None);
    let wait = async {
        loop {
            // The daemon may be between lives: errors just mean "not yet".
            // A call made while the name has no owner may get no answer from the test
            // broker: each call gets a second.
            let call = async { (proxy.ply().await, proxy.pgn().await) };
            let seen = match tokio::time::timeout(Duration::from_secs(1), call).await {
                Ok((Ok(ply), Ok(pgn))) if check(ply, &pgn) => return,
                Ok((Ok(ply), Ok(pgn))) => format!("ply {ply}, {pgn}"),
                Ok((Err(e), _) | (_, Err(e))) => e.to_string(),
                Err(_) => "no answer".to_string(),
            };
            *last.lock().unwrap_or_else(|e| e.into_inner()) = Some(seen);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    if tokio::time::timeout(limit, wait).await.is_err() {
        let log = std::fs::read_to_string(log).unwrap_or_default();
        panic!(
            "not within {limit:?}; last seen {:?}; the daemon's log:\n{log}",
            last.lock().ok()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_daemon_killed_with_sigkill_mid_game_loses_no_confirmed_move_of_an_emulated_game() {
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let state = dir.path().join("state");
    let link = board_link(dir.path(), "dgt0");
    let played = play(
        &opera(),
        Protocol::Dgt,
        23,
        HandOptions::default(),
        BoardOptions::default(),
    );
    let perf = played.perf;
    let conn = client(&address).await;
    let mut signals = Signals::record(&conn).await;
    let _board = EmulatedPty::start(&link, played.board, perf.timeline.clone(), SPEED, vec![]);
    let log = dir.path().join("daemon.log");
    let mut first = spawn_daemon(&address, &state, &link, &log);

    // Killed at once after ply 15 was signalled: every move signalled so far is on disk.
    let seen = signals.until(game_limit(&perf), |m| is_move(m, 15)).await;
    first.0.kill().expect("SIGKILL");
    let _ = first.0.wait();
    let confirmed = Followed::from(&seen).sans;
    assert_eq!(confirmed.len(), 15);

    let _second = spawn_daemon(&address, &state, &link, &log);
    let proxy = board_proxy(&conn, board_path(0)).await;
    // Once it serves, the game is there with every confirmed move, then goes on to the end.
    wait_for(&proxy, LIMIT, &log, |ply, _| ply >= 15).await;
    let resumed = pgn_sans(&proxy.pgn().await.expect("Pgn"));
    assert_eq!(resumed[..15], confirmed[..], "not one confirmed move lost");
    let plies = perf.truth.plies.len() as u32;
    wait_for(&proxy, game_limit(&perf), &log, |ply, pgn| {
        ply == plies && pgn.contains("1-0")
    })
    .await;
    let pgn = proxy.pgn().await.expect("Pgn");
    assert_eq!(pgn_sans(&pgn), truth_sans(&perf), "the whole game: {pgn}");
    assert_eq!(
        proxy.fen().await.expect("Fen"),
        perf.truth.plies.last().expect("plies").fen_after
    );
}

/// The moves of a PGN's movetext, in SAN.
pub fn pgn_sans(pgn: &str) -> Vec<String> {
    pgn.lines()
        .filter(|l| !l.starts_with('['))
        .flat_map(str::split_whitespace)
        .filter(|w| !w.ends_with('.') && !["1-0", "0-1", "1/2-1/2", "*"].contains(w))
        .map(|w| w.rsplit('.').next().unwrap_or(w).to_string())
        .collect()
}
