//! Real games played by the simulator's hand on its emulated boards, on pseudo-terminals,
//! through the production core (probe, start-up, tracker), seen by a D-Bus client.

use std::path::Path;
use std::time::Duration;

use eboardd::daemon::Daemon;
use eboardd::daemon::config::{BoardConfig, ProtocolChoice};
use eboardd::daemon::core::pipeline_factory;
use eboardd::dbus::{self, Bus, Service, board_path};
use eboardd::event::Orientation;
use eboardd::protocol::millennium::driver as leds;
use eboardd::protocol::millennium::watch::QUIET_POLL;
use eboardd::protocol::{Protocol, millennium};
use eboardd::sim::device::{BoardOptions, EmulatedBoard};
use eboardd::sim::{Game, Hand, HandOptions, Performance, games};
use shakmaty::Square;
use zbus::Message;

use crate::daemon::emulated::EmulatedPty;
use crate::daemon::support::*;

/// How many times faster than real time the hand plays.
pub const SPEED: f64 = 12.0;

/// A game played by a seeded hand, and the emulated board that will sense it.
pub struct Played {
    /// The hand's performance: the timeline and the truth.
    pub perf: Performance,
    /// The board, at power-on.
    pub board: EmulatedBoard,
}

/// Plays `game` with `hand` (seeded by `seed`) on an emulated `protocol` board.
pub fn play(
    game: &Game,
    protocol: Protocol,
    seed: u64,
    hand: HandOptions,
    board: BoardOptions,
) -> Played {
    let perf = Hand::new(seed, hand).play(game).expect("the hand plays");
    let board = EmulatedBoard::with_options(protocol, &board, &perf.timeline.start, seed);
    Played { perf, board }
}

/// The Opera game (33 plies, ends in mate).
pub fn opera() -> Game {
    games::real_games().swap_remove(0)
}

/// A daemon with the production core, `device` attached (probed when `protocol` is auto),
/// served on `address`.
pub async fn real_daemon(
    address: &str,
    state: &Path,
    device: &Path,
    protocol: ProtocolChoice,
) -> (Daemon, Service) {
    let mut options = options(state, pipeline_factory());
    // For debugging a test: the boards' traffic as traces.
    options.record_dir = std::env::var_os("EBOARDD_TEST_RECORD").map(Into::into);
    let daemon = Daemon::new(options);
    let config = BoardConfig {
        protocol,
        ..BoardConfig::for_device(device)
    };
    daemon.attach(config).await.expect("attach");
    let service = dbus::serve(daemon.clone(), &Bus::Address(address.to_string()))
        .await
        .expect("serve");
    (daemon, service)
}

/// The game the signals describe: the SAN of every move still in it, after takebacks and
/// retractions, with the number of each kind of signal seen.
#[derive(Debug, Default)]
pub struct Followed {
    /// The moves, in order.
    pub sans: Vec<String>,
    /// The FEN of the last `Move`.
    pub fen: String,
    /// Member name → how many.
    pub counts: std::collections::BTreeMap<String, usize>,
    /// `Connected` values from PropertiesChanged, in order.
    pub connected: Vec<bool>,
    /// Names of the properties seen changing.
    pub properties: std::collections::BTreeSet<String>,
    /// The `Result` signals.
    pub results: Vec<(String, String)>,
}

impl Followed {
    /// Follows `signals` in order.
    pub fn from(signals: &[Message]) -> Followed {
        let mut f = Followed::default();
        for msg in signals {
            let name = member(msg);
            *f.counts.entry(name.clone()).or_default() += 1;
            let body = msg.body();
            match name.as_str() {
                "NewGame" => f.sans.clear(),
                "Move" => {
                    let (ply, _, san, fen): (u32, String, String, String) =
                        body.deserialize().expect("Move");
                    assert_eq!(ply as usize, f.sans.len() + 1, "plies follow on: {san}");
                    f.sans.push(san);
                    f.fen = fen;
                }
                "Takeback" => {
                    let (ply,): (u32,) = body.deserialize().expect("Takeback");
                    f.sans.truncate(ply as usize);
                }
                "Retract" => {
                    let (ply, _): (u32, String) = body.deserialize().expect("Retract");
                    f.sans.truncate(ply.saturating_sub(1) as usize);
                }
                "Result" => f.results.push(body.deserialize().expect("Result")),
                "PropertiesChanged" => {
                    let (_, changed, _): (
                        String,
                        std::collections::HashMap<String, zbus::OwnedVariant>,
                        Vec<String>,
                    ) = body.deserialize().expect("PropertiesChanged");
                    if let Some(v) = changed.get("Connected") {
                        f.connected.push(bool::try_from(v.clone()).expect("b"));
                    }
                    f.properties.extend(changed.into_keys());
                }
                _ => {}
            }
        }
        f
    }

    /// How many `name` signals were seen.
    pub fn count(&self, name: &str) -> usize {
        self.counts.get(name).copied().unwrap_or(0)
    }
}

/// Whether `msg` is the `Event` signal of the contract event named `event`.
pub fn is_event(msg: &Message, event: &str) -> bool {
    member(msg) == "Event"
        && msg
            .body()
            .deserialize::<(String,)>()
            .ok()
            .and_then(|(json,)| serde_json::from_str::<serde_json::Value>(&json).ok())
            .is_some_and(|v| v["event"] == event)
}

/// Whether `msg` is the `Move` signal of ply `ply`.
pub fn is_move(msg: &Message, ply: u32) -> bool {
    member(msg) == "Move"
        && msg
            .body()
            .deserialize::<(u32, String, String, String)>()
            .is_ok_and(|(p, ..)| p == ply)
}

/// How long the daemon may take to see the whole of a game played at [`SPEED`].
pub fn game_limit(perf: &Performance) -> Duration {
    game_limit_at(perf, SPEED)
}

/// [`game_limit`] for a game played `speed` times faster than real time.
pub fn game_limit_at(perf: &Performance, speed: f64) -> Duration {
    Duration::from_secs_f64(perf.timeline.end().as_ms_f64() / 1000.0 / speed) + LIMIT
}

/// The SANs of the truth's plies.
pub fn truth_sans(perf: &Performance) -> Vec<String> {
    perf.truth.plies.iter().map(|p| p.san.clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_game_on_an_emulated_dgt_board_with_a_clock_is_seen_whole_over_dbus() {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let link = board_link(dir.path(), "dgt0");
    let hand = HandOptions {
        clock_press: 1.0,
        takeback: 0.08,
        ..HandOptions::default()
    };
    let board = BoardOptions {
        clock: true,
        ..BoardOptions::default()
    };
    let played = play(&opera(), Protocol::Dgt, 11, hand, board);
    let perf = played.perf;
    let plies = perf.truth.plies.len() as u32;
    let conn = client(&address).await;
    let mut signals = Signals::record(&conn).await;
    let board = EmulatedPty::start(&link, played.board, perf.timeline.clone(), SPEED, vec![]);
    let (_daemon, _service) = real_daemon(
        &address,
        &dir.path().join("state"),
        &link,
        ProtocolChoice::Auto,
    )
    .await;

    let seen = signals
        .until(game_limit(&perf), |m| is_event(m, "result"))
        .await;
    let followed = Followed::from(&seen);
    assert_eq!(followed.sans, truth_sans(&perf), "{:?}", followed.counts);
    assert_eq!(followed.results, [("1-0".into(), "checkmate".into())]);
    assert_eq!(followed.count("NewGame"), 1);
    assert!(followed.count("Clock") > 0, "{:?}", followed.counts);
    if !perf.truth.takebacks.is_empty() {
        assert!(followed.count("Takeback") > 0, "{:?}", followed.counts);
    }
    // One Event per contract event (the first-report board event has no signal of its own).
    let typed: usize = ["NewGame", "Move", "Takeback", "Retract", "Clock", "Result"]
        .iter()
        .map(|k| followed.count(k))
        .sum();
    assert_eq!(followed.count("Event"), typed + 1, "{:?}", followed.counts);
    for p in [
        "Connected",
        "Protocol",
        "Serial",
        "Orientation",
        "Placement",
        "Fen",
        "Ply",
        "Pgn",
    ] {
        assert!(followed.properties.contains(p), "{p} never changed");
    }

    let proxy = board_proxy(&conn, board_path(0)).await;
    let last = perf.truth.plies.last().expect("plies");
    assert_eq!(proxy.fen().await.expect("Fen"), last.fen_after);
    assert_eq!(followed.fen, last.fen_after);
    assert_eq!(proxy.ply().await.expect("Ply"), plies);
    let placement = last.fen_after.split(' ').next().unwrap_or_default();
    assert_eq!(proxy.placement().await.expect("Placement"), placement);
    assert_eq!(proxy.protocol().await.expect("Protocol"), "dgt");
    assert_eq!(proxy.orientation().await.expect("Orientation"), "normal");
    assert!(proxy.connected().await.expect("Connected"));
    let pgn = proxy.pgn().await.expect("Pgn");
    // The emulated clock runs, so every move carries its clock comment.
    assert!(pgn.contains("17. Rd8#"), "{pgn}");
    assert!(pgn.contains("[%clk "), "{pgn}");
    assert!(pgn.trim_end().ends_with("1-0"), "{pgn}");
    assert_eq!(proxy.serial().await.expect("Serial"), "3.10 10960");

    // Methods reach the board through the codecs: text on the DGT3000, which acknowledges
    // each command before the next is sent. This board did not say it is a Revelation II,
    // so it gets no LED command (plain e-boards were seen to freeze on them): SetLeds is
    // refused and ShowMove goes on the clock only.
    let refused = proxy.set_leds(&["e2", "e4"]).await;
    assert!(
        matches!(refused, Err(ref e) if e.to_string().contains("no LEDs")),
        "{refused:?}"
    );
    proxy.clock_text("Mate!").await.expect("ClockText");
    proxy.clock_text("1-0").await.expect("ClockText");
    let mate = [&[0x2b, 0x0c, 0x03, 0x0c][..], b"Mate!   ", &[0, 0]].concat();
    let result = [&[0x2b, 0x0c, 0x03, 0x0c][..], b"1-0     ", &[0, 0]].concat();
    board.wait_host(LIMIT, "both texts, in order", |b| {
        find(b, &mate).is_some_and(|i| find(&b[i..], &result).is_some())
    });
    proxy.new_game("").await.expect("NewGame");
    proxy.show_move("g1f3").await.expect("ShowMove");
    let nf3 = [&[0x2b, 0x0c, 0x03, 0x0c][..], b"Nf3     ", &[0, 0]].concat();
    board.wait_host(LIMIT, "ShowMove on the clock", |b| contains(b, &nf3));
    let host = board.host_bytes();
    assert!(
        !contains(&host, &[0x60, 0x04]),
        "an LED command went to a plain e-board in the whole game"
    );
}

/// Where `needle` first occurs in `haystack`.
pub fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Whether `needle` occurs in `haystack`.
pub fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    find(haystack, needle).is_some()
}

/// How often `needle` occurs in `haystack`.
pub fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_emulated_millennium_board_lights_leds_and_is_asked_again_after_garbage_and_when_quiet()
{
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let link = board_link(dir.path(), "chesslink");
    let game = games::drills().swap_remove(0); // en passant by both sides, 15 plies
    let played = play(
        &game,
        Protocol::Millennium,
        3,
        HandOptions::default(),
        BoardOptions::default(),
    );
    let perf = played.perf;
    let plies = perf.truth.plies.len() as u32;
    let conn = client(&address).await;
    let mut signals = Signals::record(&conn).await;
    let board = EmulatedPty::start(&link, played.board, perf.timeline.clone(), SPEED, vec![]);
    let (_daemon, _service) = real_daemon(
        &address,
        &dir.path().join("state"),
        &link,
        ProtocolChoice::Fixed(Protocol::Millennium),
    )
    .await;
    let status = millennium::Command::Status.encode();

    // Mid-game the line garbles something: the daemon asks for the whole board.
    let mut seen = signals.until(game_limit(&perf), |m| is_move(m, 4)).await;
    let asked = count(&board.host_bytes(), &status);
    board.inject(&[0x01, 0x7a, 0x7a, 0x02]);
    board.wait_host(LIMIT, "S after dropped bytes", |b| {
        count(b, &status) > asked
    });
    seen.extend(
        signals
            .until(game_limit(&perf), |m| is_move(m, plies))
            .await,
    );
    assert_eq!(Followed::from(&seen).sans, truth_sans(&perf));

    let proxy = board_proxy(&conn, board_path(0)).await;
    assert_eq!(proxy.serial().await.expect("Serial"), "0103", "the version");
    // Quiet after the game: asked again within a few seconds, and it answers.
    let asked = count(&board.host_bytes(), &status);
    board.wait_host(QUIET_POLL + LIMIT, "S when quiet", |b| {
        count(b, &status) > asked
    });
    assert!(proxy.connected().await.expect("Connected"));

    proxy.set_leds(&["e2", "e4"]).await.expect("SetLeds");
    let lit = leds::light(Orientation::Normal, &[Square::E2, Square::E4]);
    board.wait_host(LIMIT, "SetLeds as an L frame", |b| contains(b, &lit[0]));
    proxy.show_move("g7g6").await.expect("ShowMove");
    let shown = leds::show_move(Orientation::Normal, Square::G7, Square::G6);
    board.wait_host(LIMIT, "ShowMove as an L frame", |b| contains(b, &shown[0]));
    proxy.set_leds(&[]).await.expect("SetLeds");
    let off = millennium::Command::LedsOff.encode();
    board.wait_host(LIMIT, "all off as X", |b| b.ends_with(&off));
    match proxy.clock_text("hi").await {
        Err(zbus::Error::MethodError(n, _, _)) => {
            assert_eq!(n.as_str(), "org.eboardd.EBoard1.Error.Unsupported")
        }
        other => panic!("a ChessLink has no clock: {other:?}"),
    }
}
