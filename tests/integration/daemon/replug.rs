//! Boards that come back on another device node: one replugged as `ttyACM1` after it was
//! `ttyACM0`, two swapped between their ports mid-game. A game belongs to its board, told
//! by its serial number, not to the port: it follows the board, with every move.

use std::path::Path;
use std::time::Duration;

use eboardd::daemon::config::{BoardConfig, ProtocolChoice};
use eboardd::dbus::board_path;
use eboardd::dbus::client::BoardProxy;
use eboardd::protocol::Protocol;
use eboardd::sim::device::BoardOptions;
use eboardd::sim::{HandOptions, Performance, games};
use eboardd::time::Time;

use crate::daemon::emulated::EmulatedPty;
use crate::daemon::emulated_game::{
    SPEED, game_limit, is_move, opera, play, real_daemon, truth_sans,
};
use crate::daemon::emulated_links::pgn_sans;
use crate::daemon::faults_process::journalled_plies;
use crate::daemon::support::*;

/// A moment after ply `ply` ended and before the next one starts, in the hand's time.
fn after(perf: &Performance, ply: usize) -> Time {
    let ply = ply.min(perf.truth.plies.len());
    let end = perf.truth.plies[ply - 1].move_end;
    let soon = end + Duration::from_millis(500);
    match perf.truth.plies.get(ply) {
        Some(next) => soon.min(end + (next.move_start - end) / 2),
        None => soon,
    }
}

/// Waits (bounded) until `check` holds of the board's serial number and its game's moves;
/// says what was seen last if it does not.
async fn until_board(
    proxy: &BoardProxy<'_>,
    limit: Duration,
    what: &str,
    check: impl Fn(&str, &[String]) -> bool,
) {
    let mut last = None;
    let wait = async {
        loop {
            if let (Ok(serial), Ok(pgn)) = (proxy.serial().await, proxy.pgn().await) {
                let sans = pgn_sans(&pgn);
                if check(&serial, &sans) {
                    return;
                }
                last = Some((serial, sans));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    if tokio::time::timeout(limit, wait).await.is_err() {
        panic!("{what}: not within {limit:?}; last seen {last:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dgt_board_replugged_as_another_node_brings_its_game_to_it_by_serial_number() {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let state = dir.path().join("state");
    let acm0 = board_link(dir.path(), "ttyACM0");
    let acm1 = board_link(dir.path(), "ttyACM1");
    let played = play(
        &opera(),
        Protocol::Dgt,
        21,
        HandOptions::default(),
        BoardOptions::default(),
    );
    let perf = played.perf;
    let truth = truth_sans(&perf);
    let conn = client(&address).await;
    let mut signals = Signals::record(&conn).await;
    let board = EmulatedPty::start(&acm0, played.board, perf.timeline.clone(), SPEED, vec![]);
    let (_daemon, _service) = real_daemon(
        &address,
        &state,
        &acm0,
        ProtocolChoice::Fixed(Protocol::Dgt),
    )
    .await;
    let manager = manager_proxy(&conn).await;

    // Pulled out after ply 10, so udev's eboardctl@ttyACM0 detaches it; two plies later it
    // is back as ttyACM1, which udev attaches: a board the daemon has not seen on that node.
    signals.until(game_limit(&perf), |m| is_move(m, 10)).await;
    board.plug_next_at(&acm1);
    board.unplug();
    manager
        .detach_device(&acm0.display().to_string())
        .await
        .expect("DetachDevice ttyACM0");
    board.plug_at(after(&perf, 12));
    board.wait(LIMIT, "plugged in as ttyACM1", |s| {
        (s.plugged && s.link == acm1).then_some(())
    });
    let path = manager
        .attach_device(&acm1.display().to_string())
        .await
        .expect("AttachDevice ttyACM1");
    // (Its number may be the old one's: the pseudo-terminal behind the name may be too.)
    let proxy = board_proxy(&conn, path.to_string()).await;

    until_board(
        &proxy,
        game_limit(&perf),
        "the whole game on ttyACM1",
        |serial, sans| serial == "3.10 10960" && sans == truth,
    )
    .await;
    assert_eq!(
        journalled_plies(&state, &acm1),
        (1..=truth.len() as u64).collect::<Vec<_>>(),
        "the game is journalled under its new node"
    );
    assert!(
        journalled_plies(&state, &acm0).is_empty(),
        "and no longer under the old one"
    );
}

/// A board playing `game` (index into the real games) with serial number `serial`, on
/// `link`.
fn board_at(link: &Path, game: usize, serial: &str, seed: u64) -> (EmulatedPty, Performance) {
    let game = games::real_games().swap_remove(game);
    let mut played = play(
        &game,
        Protocol::Dgt,
        seed,
        HandOptions::default(),
        BoardOptions::default(),
    );
    played.board.set_serial(serial);
    let perf = played.perf;
    let board = EmulatedPty::start(link, played.board, perf.timeline.clone(), SPEED, vec![]);
    (board, perf)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_dgt_boards_swapped_between_ports_mid_game_each_keep_their_own_game() {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let state = dir.path().join("state");
    let port0 = board_link(dir.path(), "port0");
    let port1 = board_link(dir.path(), "port1");
    let conn = client(&address).await;
    // Board A plays the Opera game on port 0, board B the Immortal game on port 1.
    let (a, perf_a) = board_at(&port0, 0, "11111", 21);
    let (b, perf_b) = board_at(&port1, 1, "22222", 22);
    let (truth_a, truth_b) = (truth_sans(&perf_a), truth_sans(&perf_b));
    let (daemon, _service) = real_daemon(
        &address,
        &state,
        &port0,
        ProtocolChoice::Fixed(Protocol::Dgt),
    )
    .await;
    daemon
        .attach(BoardConfig {
            protocol: ProtocolChoice::Fixed(Protocol::Dgt),
            ..BoardConfig::for_device(&port1)
        })
        .await
        .expect("attach port 1");
    let on0 = board_proxy(&conn, board_path(0)).await;
    let on1 = board_proxy(&conn, board_path(1)).await;
    let limit = game_limit(&perf_a).max(game_limit(&perf_b));

    until_board(
        &on0,
        limit,
        "A's game under way on port 0",
        |serial, sans| serial == "3.10 11111" && sans.len() >= 10 && truth_a.starts_with(sans),
    )
    .await;
    until_board(
        &on1,
        limit,
        "B's game under way on port 1",
        |serial, sans| serial == "3.10 22222" && sans.len() >= 8 && truth_b.starts_with(sans),
    )
    .await;
    // Both pulled out, and plugged back in into each other's ports once the hands played
    // on a little.
    let (ply_a, ply_b) = (on0.ply().await.expect("Ply"), on1.ply().await.expect("Ply"));
    a.plug_next_at(&port1);
    b.plug_next_at(&port0);
    a.unplug();
    b.unplug();
    a.plug_at(after(&perf_a, ply_a as usize + 2));
    b.plug_at(after(&perf_b, ply_b as usize + 2));

    // Each game follows its board: A's to port 1, B's to port 0, both to the end.
    until_board(&on1, limit, "A's whole game on port 1", |serial, sans| {
        serial == "3.10 11111" && sans == truth_a
    })
    .await;
    until_board(&on0, limit, "B's whole game on port 0", |serial, sans| {
        serial == "3.10 22222" && sans == truth_b
    })
    .await;
    assert_eq!(a.wait(Duration::ZERO, "A", |s| Some(s.link.clone())), port1);
    assert_eq!(b.wait(Duration::ZERO, "B", |s| Some(s.link.clone())), port0);
    assert_eq!(
        journalled_plies(&state, &port0),
        (1..=truth_b.len() as u64).collect::<Vec<_>>()
    );
    assert_eq!(
        journalled_plies(&state, &port1),
        (1..=truth_a.len() as u64).collect::<Vec<_>>()
    );
}
