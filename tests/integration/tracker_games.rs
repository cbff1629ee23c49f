//! Whole games played by the simulated hand and sensed by the DGT and Millennium board
//! models (`eboardd::sim`), fed to a tracker configured as the daemon configures it for
//! each board: the tracker must give back the moves played.
//!
//! The hand plays in each of its presets: `plain` (every move lifted and placed),
//! `default` (slides, captures in any order, castling either way, promotions in every
//! order, en passant every way, flicker, quick replies, adjusted pieces) and the harsh
//! `torture` (fast, with takebacks, illegal moves corrected, clock presses and result
//! gestures) and `messy` (long rests on the way, captured pieces set down, pieces knocked
//! over, many quick replies). The plain and default hands must be read exactly. For the
//! harsh hands the exact count is printed; every game must end in the right position and
//! at least [`HARSH_FLOOR`] of them must be exact.
//!
//! The Opera game and a line with every special move are played by every preset on both
//! boards with a few seeds. The first games of
//! ../shared/data/pgn/chessjs__benchmark_lichess100.pgn (lichess database, CC0) and the
//! Chess960 games of pgn4web__chess960wch06.pgn are replayed when present, each on both
//! boards: by a plain or default hand on one and a harsh hand on the other, in turn.

use std::path::Path;

use crate::tracker_common::*;
use eboardd::event::GameEvent;
use eboardd::protocol::Protocol;
use eboardd::sim::games::real_games;
use eboardd::sim::pgn::{Game, parse_games, read_games};
use eboardd::sim::{HandOptions, Simulation, simulate};
use eboardd::tracker::{Tracker, TrackerConfig};
use shakmaty::{Chess, Position};

/// A line with en passant, both castlings and an under-promotion (constructed for the test).
const SPECIALS: &str = "1. e4 d5 2. e5 f5 3. exf6 Nxf6 4. Nf3 Bg4 5. Be2 Nc6 6. O-O Qd7 \
    7. d4 O-O-O 8. c4 e5 9. c5 e4 10. b4 exf3 11. b5 fxe2 12. bxc6 exd1=N 13. cxd7+ Rxd7 *";

/// Both board models.
const BOARDS: [Protocol; 2] = [Protocol::Dgt, Protocol::Millennium];

/// The seeds the Opera game and the special moves are played with.
const SEEDS: std::ops::Range<u64> = 0..3;

/// The share of the harsh hands' games of a test that must be read exactly. With the seeds
/// used here every one of them is; the floor leaves room for moves the board cannot tell
/// apart (a double step taken en passant before the board saw the pawn land), which the
/// harsh hands' quick replies make likelier.
const HARSH_FLOOR: f64 = 0.75;

/// The hand's presets: the plain and the default hands, then the harsh ones.
const HANDS: [&str; 4] = ["plain", "default", "torture", "messy"];

fn options(hand: &str) -> HandOptions {
    match hand {
        "plain" => HandOptions::plain(),
        "default" => HandOptions::default(),
        "torture" => HandOptions::torture(),
        "messy" => HandOptions::messy(),
        other => panic!("no preset {other}"),
    }
}

fn harsh(hand: &str) -> bool {
    matches!(hand, "torture" | "messy")
}

/// Plays `game` with a `hand` seeded by `seed` on a `protocol` board, and runs a tracker
/// over what the board reported, from the start board at time 0.
fn track(game: &Game, protocol: Protocol, seed: u64, hand: &str) -> (Simulation, Tracker, Run) {
    let sim = simulate(game, protocol, seed, &options(hand))
        .unwrap_or_else(|e| panic!("{} on {protocol}: {e}", game.name()));
    let mut cfg = TrackerConfig {
        sensor_lag: Some(protocol.sensor_lag()),
        ..TrackerConfig::default()
    };
    if game.start != Chess::default() {
        // The FEN tells a Chess960 start by its castling rights.
        cfg.start_fen = Some(sim.truth().start_fen.clone());
    }
    let changes: Vec<_> = sim.sensed.iter().map(|s| (s.t, s.change)).collect();
    let mut tracker = Tracker::new(cfg);
    let run = run_with(&mut tracker, Some(game.start.board()), &changes, 5000);
    (sim, tracker, run)
}

/// Exact games per preset and board.
#[derive(Default)]
struct Tally {
    /// Per preset and board: games exact, games ending in the right position, games.
    counts: [[(usize, usize, usize); 2]; 4],
    /// Plies played.
    plies: usize,
    /// `retract` events.
    retracts: usize,
    /// The games not read exactly: (preset, what went wrong).
    misread: Vec<(&'static str, String)>,
}

impl Tally {
    /// Plays `game` with `hand` and `seed` on `protocol`, and counts it.
    fn play(&mut self, game: &Game, protocol: Protocol, seed: u64, hand: &'static str) {
        let (sim, tracker, run) = track(game, protocol, seed, hand);
        let want: Vec<&str> = sim.truth().plies.iter().map(|p| p.uci.as_str()).collect();
        let got = run.final_uci();
        let exact = got == want;
        let end = game.positions().pop().expect("positions");
        let ends_right = tracker.position().is_some_and(|p| p.board() == end.board());
        let h = HANDS.iter().position(|h| *h == hand).expect("preset");
        let b = BOARDS.iter().position(|p| *p == protocol).expect("board");
        let c = &mut self.counts[h][b];
        c.0 += usize::from(exact);
        c.1 += usize::from(ends_right);
        c.2 += 1;
        self.plies += want.len();
        self.retracts += run.count("retract");
        if !exact {
            let ply = want.iter().zip(&got).position(|(w, g)| w != g);
            let at = match ply {
                Some(i) => format!("ply {}: {} read as {}", i + 1, want[i], got[i]),
                None => format!("{} plies read as {}", want.len(), got.len()),
            };
            self.misread.push((
                hand,
                format!(
                    "{} on {protocol}, {hand} hand, seed {seed}: {at}{}",
                    game.name(),
                    if ends_right { "" } else { ", ends wrong" }
                ),
            ));
        }
    }

    /// Plays `game` with every preset on both boards with each seed.
    fn play_every_hand(&mut self, game: &Game) {
        for hand in HANDS {
            for protocol in BOARDS {
                for seed in SEEDS {
                    self.play(game, protocol, seed, hand);
                }
            }
        }
    }

    /// Prints the counts, headed `what`.
    fn print(&self, what: &str) {
        eprintln!(
            "{what}: {} plies, {} retracts; games exact (ending right):",
            self.plies, self.retracts
        );
        for (h, hand) in HANDS.iter().enumerate() {
            for (b, protocol) in BOARDS.iter().enumerate() {
                let (exact, right, n) = self.counts[h][b];
                if n > 0 {
                    eprintln!("  {hand:<8} {protocol:<11} {exact}/{n} ({right}/{n})");
                }
            }
        }
        for (_, m) in &self.misread {
            eprintln!("  not exact: {m}");
        }
    }

    /// Asserts that the plain and default hands were read exactly, and that every harsh
    /// hand's game ended in the right position, [`HARSH_FLOOR`] of them exactly.
    fn check(&self) {
        let misread: Vec<&String> = self
            .misread
            .iter()
            .filter(|(hand, _)| !harsh(hand))
            .map(|(_, m)| m)
            .collect();
        assert!(misread.is_empty(), "not exact: {misread:#?}");
        let (mut exact, mut right, mut n) = (0, 0, 0);
        for (h, hand) in HANDS.iter().enumerate() {
            if harsh(hand) {
                for c in self.counts[h] {
                    exact += c.0;
                    right += c.1;
                    n += c.2;
                }
            }
        }
        assert_eq!(right, n, "harsh hands ending wrong: {:#?}", self.misread);
        assert!(
            exact as f64 >= HARSH_FLOOR * n as f64,
            "harsh hands: {exact}/{n} exact: {:#?}",
            self.misread
        );
    }
}

fn one_game(pgn: &str) -> Game {
    let mut games = parse_games(pgn).expect("a game");
    assert_eq!(games.len(), 1);
    games.remove(0)
}

fn opera() -> Game {
    let game = real_games().remove(0);
    assert_eq!(game.tag("Event"), Some("Paris, the Opera game"));
    game
}

#[test]
fn opera_game_in_every_hand() {
    let game = opera();
    assert_eq!(game.moves.len(), 33);
    let mut tally = Tally::default();
    tally.play_every_hand(&game);
    tally.print("opera");
    tally.check();
}

#[test]
fn special_moves_in_every_hand() {
    let game = one_game(SPECIALS);
    assert_eq!(game.moves.len(), 26);
    let mut tally = Tally::default();
    tally.play_every_hand(&game);
    tally.print("specials");
    tally.check();
}

/// The first `limit` games of a file of the shared data, if it is there.
fn shared_games(name: &str, limit: usize) -> Option<Vec<Game>> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = [
        here.join("../../shared/data/pgn").join(name),
        Path::new("/work/shared/data/pgn").join(name),
    ]
    .into_iter()
    .find(|p| p.is_file())?;
    let text = std::fs::read_to_string(path).ok()?;
    let games: Vec<Game> = read_games(&text)
        .into_iter()
        .filter_map(Result::ok)
        .take(limit)
        .collect();
    assert_eq!(games.len(), limit, "{name}");
    Some(games)
}

/// Plays each game of a file on both boards, seeded by its index: game `i` by preset `i`
/// (of four, in turn) on the DGT board and by preset `i + 2` on the Millennium board, so
/// that every game meets a plain or default hand and a harsh one.
fn replay_file(name: &str, limit: usize) -> Option<Tally> {
    let games = shared_games(name, limit)?;
    let mut tally = Tally::default();
    for (i, game) in games.iter().enumerate() {
        for (b, protocol) in BOARDS.into_iter().enumerate() {
            tally.play(game, protocol, i as u64, HANDS[(i + 2 * b) % 4]);
        }
    }
    tally.print(name);
    Some(tally)
}

#[test]
fn lichess_games_replayed_by_the_hand() {
    let Some(tally) = replay_file("chessjs__benchmark_lichess100.pgn", 40) else {
        eprintln!("lichess sample absent: skipped");
        return;
    };
    tally.check();
}

#[test]
fn chess960_games_replayed_by_the_hand() {
    let Some(tally) = replay_file("pgn4web__chess960wch06.pgn", 8) else {
        eprintln!("Chess960 sample absent: skipped");
        return;
    };
    tally.check();
}

/// Game 13 of the lichess sample, 13... d5 14. exd6: a quick reply takes the pawn en
/// passant some 130 ms after it landed on d5, before the DGT board's scan came to d5. The
/// board reported d7 emptied and a white pawn on d6, as it would have for 13... d6
/// 14. exd6; the tracker publishes one reading with the other among its alternatives.
#[test]
fn a_double_step_taken_en_passant_within_one_scan_is_published_with_its_alternative() {
    let Some(games) = shared_games("chessjs__benchmark_lichess100.pgn", 13) else {
        eprintln!("lichess sample absent: skipped");
        return;
    };
    let game = &games[12];
    let (sim, tracker, run) = track(game, Protocol::Dgt, 1012, "default");
    let played = &sim.truth().plies[25];
    assert_eq!((played.ply, played.uci.as_str()), (26, "d7d5"));
    let end = game.positions().pop().expect("positions");
    assert_eq!(tracker.position().map(|p| p.board()), Some(end.board()));
    let read = run.events.iter().rev().find_map(|e| match &e.event {
        GameEvent::Move {
            ply: 26,
            uci,
            alternatives,
            ..
        } => Some((uci.to_string(), alternatives.clone())),
        _ => None,
    });
    let (uci, alternatives) = read.expect("ply 26 published");
    assert!(
        uci == "d7d5" || alternatives.iter().any(|a| a.to_string() == "d7d5"),
        "{uci} {alternatives:?}"
    );
}

#[test]
fn hand_games_start_from_the_right_position() {
    assert_eq!(opera().start, Chess::default());
    assert_eq!(one_game(SPECIALS).start.legal_moves().len(), 20);
    if let Some(games) = shared_games("pgn4web__chess960wch06.pgn", 8) {
        for game in games {
            assert!(game.chess960, "{}", game.name());
            assert_ne!(game.start, Chess::default(), "{}", game.name());
        }
    }
}
