//! History corrections, knocked pieces and broken sensors, one behaviour per test, driven by
//! explicit square changes at explicit times.
//!
//! A ply confirmed on a misreading (a slider resting on a transit square past the settle
//! window; a captured piece set down on the line its own move came along, which reads as
//! that move going on, with plies confirmed on top until the piece leaves the board) is
//! corrected when the board, reported since, proves other plies were played: the wrong
//! plies are retracted, latest first, and the right ones confirmed at the same instant. A
//! piece knocked and put back never changes the game; one square whose sensor stays wrong
//! is tolerated, two are a mismatch.

use std::time::Duration;

use crate::tracker_common::*;
use eboardd::event::GameEvent;
use eboardd::sensing::SquareChange;
use eboardd::time::Time;
use eboardd::tracker::{SlideRests, Tracker, TrackerConfig};
use shakmaty::{Bitboard, Board};

/// Black to play in a middlegame: the queen on c6 can capture the pawn on c4 (passing c5),
/// and White's knight on d2 can take the pawn on b3.
const QUEEN_FEN: &str = "6k1/5ppp/2q5/8/2P5/1p6/3N1PPP/6K1 b - - 0 30";

/// The retracts of a run: (time, ply, uci).
fn retracts(run: &Run) -> Vec<(Time, u32, String)> {
    run.events
        .iter()
        .filter_map(|e| match &e.event {
            GameEvent::Retract { ply, uci } => Some((e.t, *ply, uci.to_string())),
            _ => None,
        })
        .collect()
}

/// The retractions of a run: when (ms) and which move.
fn retracted(run: &Run) -> Vec<(f64, String)> {
    retracts(run)
        .into_iter()
        .map(|(t, _, uci)| (t.as_ms_f64(), uci))
        .collect()
}

/// The index in the run of the first event that matches.
fn index_of(run: &Run, f: impl Fn(&GameEvent) -> bool) -> Option<usize> {
    run.events.iter().position(|e| f(&e.event))
}

/// A script from changes at explicit times (ms), in any order: `None` a lift.
fn timeline(changes: &[(f64, &str, Option<char>)]) -> Script {
    let mut changes = changes.to_vec();
    changes.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut s = Script::new();
    for (ms, square, piece) in changes {
        s.ms = ms;
        s = match piece {
            Some(p) => s.place(square, p),
            None => s.lift(square),
        };
    }
    s
}

/// The configuration the board core gives a DGT board: its sensors report up to a scan
/// (250 ms) late.
fn dgt() -> TrackerConfig {
    TrackerConfig {
        sensor_lag: Some(Duration::from_millis(250)),
        ..config()
    }
}

/// The largest number of retracts emitted at one instant (the undo depth of the deepest
/// correction of the run).
fn deepest_correction(run: &Run) -> usize {
    let r = retracts(run);
    r.iter()
        .map(|(t, _, _)| r.iter().filter(|(u, _, _)| u == t).count())
        .max()
        .unwrap_or(0)
}

/// The moves retracted by the deepest correction of the run, in the order retracted.
fn deepest_retracted(run: &Run) -> Vec<String> {
    let r = retracts(run);
    let deepest = deepest_correction(run);
    let Some(t) = r
        .iter()
        .map(|x| x.0)
        .find(|t| r.iter().filter(|x| x.0 == *t).count() == deepest)
    else {
        return Vec::new();
    };
    r.into_iter().filter(|x| x.0 == t).map(|x| x.2).collect()
}

/// The moves confirmed before `ms` (the misreading, before the board proves it).
fn misread_before(run: &Run, ms: f64) -> Vec<String> {
    run.moves()
        .iter()
        .filter(|m| m.0.as_ms_f64() < ms)
        .map(|m| m.2.clone())
        .collect()
}

/// The queen slides c6–c5, rests on c5 for 580 ms (past the settle window, so Qc5 is
/// confirmed), then goes on to c4, sweeping the pawn off in one scan; the pawn is set down
/// on c3 beside the board's play for 750 ms, then taken away. Ends at 2750 ms.
fn queen_rests_then_captures() -> Script {
    Script::new()
        .lift("c6")
        .wait(150.0)
        .place("c5", 'q')
        .wait(580.0)
        .lift("c5")
        .wait(30.0)
        .place("c4", 'q')
        .wait(240.0)
        .place("c3", 'P')
        .wait(750.0)
        .lift("c3")
}

#[test]
fn a_slider_resting_past_the_settle_window_then_capturing_is_corrected() {
    let (cfg, start) = set_up(QUEEN_FEN, config());
    // Then 31. Nxb3 Qxb3.
    let s = queen_rests_then_captures()
        .wait(1350.0)
        .lift("b3")
        .wait(200.0)
        .lift("d2")
        .wait(200.0)
        .place("b3", 'N')
        .wait(1500.0)
        .lift("c4")
        .wait(100.0)
        .place("b3", 'q');
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(run.final_uci(), ["c6c4", "d2b3", "c4b3"], "{}", run.lines());
    // Qc5 was confirmed first: that is the misread this test is about.
    assert!(confirm_time(&run, "c6c5") < 1730.0, "{}", run.lines());
    assert_eq!(run.count("retract"), 1, "{}", run.lines());
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
    let r = retracts(&run);
    assert_eq!((r[0].1, r[0].2.as_str()), (1, "c6c5"), "{}", run.lines());
    let retract_at = index_of(&run, |e| matches!(e, GameEvent::Retract { .. })).unwrap();
    let right_at = index_of(
        &run,
        |e| matches!(e, GameEvent::Move { uci, .. } if uci.to_string() == "c6c4"),
    )
    .unwrap();
    assert!(retract_at < right_at, "{}", run.lines());
    assert_eq!(
        r[0].0.as_ms_f64(),
        confirm_time(&run, "c6c4"),
        "{}",
        run.lines()
    );
}

/// The queen's misread capture as in [`queen_rests_then_captures`] (the pawn swept off c4
/// at 1760 ms and set down on c3 at 1800 ms), with White reaching for the knight
/// `reply_ms` after the sweep, while the pawn still stands on c3; 31. Nxb3 (sweeping the
/// pawn off) Qxb3.
fn fast_reply_after_the_misread_capture(reply_ms: f64) -> Script {
    timeline(&[
        (1000.0, "c6", None),
        (1150.0, "c5", Some('q')),
        (1730.0, "c5", None),
        (1760.0, "c4", Some('q')),
        (1800.0, "c3", Some('P')),
        (1760.0 + reply_ms, "d2", None),
        (2050.0, "c3", None),
        (2150.0, "b3", Some('N')),
        (3650.0, "c4", None),
        (3750.0, "b3", Some('q')),
    ])
}

#[test]
fn a_correction_after_a_fast_reply_gives_the_right_game() {
    // The reply 60, 100 and 150 ms after the capturing placement, and once reported 10 ms
    // before it (the same board scan), on an ideal board and on a DGT board.
    for reply_ms in [60.0, 100.0, 150.0, -10.0] {
        for (board, cfg) in [("instant", config()), ("dgt", dgt())] {
            let (cfg, start) = set_up(QUEEN_FEN, cfg);
            let s = fast_reply_after_the_misread_capture(reply_ms);
            let run = run_script_with(cfg, &start, &s);
            let case = format!("reply {reply_ms} ms, {board} board");
            assert!(
                confirm_time(&run, "c6c5") < 1730.0,
                "{case}:\n{}",
                run.lines()
            );
            assert_eq!(
                run.final_uci(),
                ["c6c4", "d2b3", "c4b3"],
                "{case}:\n{}",
                run.lines()
            );
            assert!(run.count("retract") <= 1, "{case}:\n{}", run.lines());
            assert_eq!(run.count("mismatch"), 0, "{case}:\n{}", run.lines());
        }
    }
}

#[test]
fn a_slider_that_rested_and_went_on_just_before_a_quick_reply_is_corrected() {
    // On a DGT board (times as a messy hand played them): 21... Be4, the bishop resting on
    // d5 on its way (Bd5 confirmed, then corrected); 22. Qd6 at once, the queen resting on
    // d5 for 430 ms (Qd5 is confirmed) and going on to d6; Black's rook leaves b8 60 ms
    // later for d8 (the scan reports c8 before b8); 23. Qxe5+. Read with the reply first,
    // the queen's going on would be White's next move begun (and a breach of 4.7): it is
    // the end of this one.
    let (cfg, start) = set_up(
        "1r2k2r/pb4pp/8/4p3/1P6/3Q3P/PP2N1q1/1RB1KR2 b k - 0 21",
        dgt(),
    );
    let s = timeline(&[
        (944.5, "b7", None),
        (1097.5, "d5", Some('b')),
        (1502.7, "e4", Some('b')),
        (1530.9, "d5", None),
        (1693.8, "d3", None),
        (1753.9, "d5", Some('Q')),
        (2186.8, "d5", None),
        (2215.0, "d6", Some('Q')),
        (2274.9, "c8", Some('r')),
        (2280.1, "b8", None),
        (2518.3, "d8", Some('r')),
        (2523.5, "c8", None),
        (2650.7, "e5", None),
        (2680.8, "d6", None),
        (2878.4, "e5", Some('Q')),
    ]);
    let run = run_script_with(cfg, &start, &s.wait(3000.0));
    assert!(confirm_time(&run, "d3d5") < 2186.0, "{}", run.lines());
    assert_eq!(
        run.final_uci(),
        ["b7e4", "d3d6", "b8d8", "d6e5"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
}

#[test]
fn a_rest_is_corrected_while_the_last_capture_is_still_set_down_near_by() {
    // 30... Qxe2, the bishop swept off e2 and set down on d2 for 450 ms; 31. Qa5, the
    // queen resting on a4 for 450 ms (Qa4 is confirmed) on its way; 31... Qd2 at once.
    // The bishop seen on d2 belongs to the capture before: the history that undoes Qa4 is
    // the game.
    let (cfg, start) = set_up("4r1k1/5ppp/8/4q3/8/Q7/4BPP1/6K1 b - - 0 30", dgt());
    let s = timeline(&[
        (1000.0, "e5", None),
        (1200.0, "e2", Some('q')),
        (1200.0, "d2", Some('B')),
        (1650.0, "d2", None),
        (2200.0, "a3", None),
        (2230.0, "a4", Some('Q')),
        (2680.0, "a4", None),
        (2705.0, "a5", Some('Q')),
        (2820.0, "e2", None),
        (3270.0, "d2", Some('q')),
    ]);
    let run = run_script_with(cfg, &start, &s.wait(3000.0));
    assert!(confirm_time(&run, "a3a4") < 2680.0, "{}", run.lines());
    assert_eq!(run.final_uci(), ["e5e2", "a3a5", "e2d2"], "{}", run.lines());
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
}

/// White: Kb1, Rc1, pawns b2 and h2; Black: Kg8, Rb3, Bc6. White plays 30. Rc3 and Black
/// takes, 30... Rxc3, lifting the rook on c3 first and setting it down on c2, on the line it
/// came along: that reads as the rook going on to c2 (Rc3 retracted for Rc2), and Black's
/// rook arriving on c3 as a quiet ...Rc3. The captured rook stays on c2 while play goes on.
/// Ends at 2560 ms.
const SET_ASIDE_FEN: &str = "6k1/8/2b5/8/8/1r6/1P5P/1KR5 w - - 0 30";

fn rook_taken_and_set_aside_on_c2() -> Script {
    Script::new()
        .lift("c1")
        .wait(250.0)
        .place("c3", 'R')
        .wait(650.0)
        .lift("c3")
        .wait(190.0)
        .place("c2", 'R')
        .wait(260.0)
        .lift("b3")
        .wait(210.0)
        .place("c3", 'r')
}

#[test]
fn a_captured_rook_taken_off_on_its_own_sides_turn_is_corrected_two_plies_back() {
    // 30. Rc3 Rxc3 31. bxc3, read as 30. Rc2 Rc3. White takes the captured rook off c2,
    // which reads as White's rook in the hand, until White's pawn takes on c3: two white
    // pieces gone and a pawn on c3, which only the capture explains, two plies back.
    let (cfg, start) = set_up(SET_ASIDE_FEN, config());
    let s = rook_taken_and_set_aside_on_c2()
        .wait(1090.0)
        .lift("c2")
        .wait(2500.0)
        .lift("b2")
        .wait(200.0)
        .lift("c3")
        .wait(200.0)
        .place("c3", 'P');
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(
        misread_before(&run, 3650.0),
        ["c1c3", "c1c2", "b3c3"],
        "{}",
        run.lines()
    );
    assert_eq!(run.final_uci(), ["c1c3", "b3c3", "b2c3"], "{}", run.lines());
    assert_eq!(deepest_correction(&run), 2, "{}", run.lines());
    assert_eq!(deepest_retracted(&run), ["b3c3", "c1c2"], "{}", run.lines());
}

#[test]
fn a_captured_rook_taken_off_on_the_captors_turn_is_corrected_three_plies_back() {
    // 30. Rc3 Rxc3 31. h3, read as 30. Rc2 Rc3 31. h3. During Black's thinking the
    // captured rook is taken off c2 (at 5300 ms), which reads as Black's rook taking it,
    // the victim lifted first, until Black plays 31... Be4+ instead: only the capture
    // explains the board then, three plies back.
    let (cfg, start) = set_up(SET_ASIDE_FEN, config());
    let s = rook_taken_and_set_aside_on_c2()
        .wait(1240.0)
        .lift("h2")
        .wait(200.0)
        .place("h3", 'P')
        .wait(1300.0)
        .lift("c2")
        .wait(1500.0)
        .lift("c6")
        .wait(200.0)
        .place("e4", 'b');
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(
        misread_before(&run, 5300.0),
        ["c1c3", "c1c2", "b3c3", "h2h3"],
        "{}",
        run.lines()
    );
    assert_eq!(
        run.final_uci(),
        ["c1c3", "b3c3", "h2h3", "c6e4"],
        "{}",
        run.lines()
    );
    assert_eq!(deepest_correction(&run), 3, "{}", run.lines());
    assert_eq!(
        deepest_retracted(&run),
        ["h2h3", "b3c3", "c1c2"],
        "{}",
        run.lines()
    );
}

#[test]
fn a_captured_rook_pinned_where_it_was_set_aside_is_corrected_four_plies_back() {
    // 30. Rc3 Rxc3 31. h3 Be4+, read as 30. Rc2 Rc3 31. h3 Be4 (the bishop pins the rook
    // on c2 to the king). White takes the captured rook off c2: a pinned rook cannot be
    // moving, so only the capture explains the board, four plies back. Then 32. Ka2.
    let (cfg, start) = set_up(SET_ASIDE_FEN, config());
    let s = rook_taken_and_set_aside_on_c2()
        .wait(1240.0)
        .lift("h2")
        .wait(200.0)
        .place("h3", 'P')
        .wait(1500.0)
        .lift("c6")
        .wait(200.0)
        .place("e4", 'b')
        .wait(1300.0)
        .lift("c2")
        .wait(1500.0)
        .lift("b1")
        .wait(200.0)
        .place("a2", 'K');
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(
        misread_before(&run, 7000.0),
        ["c1c3", "c1c2", "b3c3", "h2h3", "c6e4"],
        "{}",
        run.lines()
    );
    assert_eq!(
        run.final_uci(),
        ["c1c3", "b3c3", "h2h3", "c6e4", "b1a2"],
        "{}",
        run.lines()
    );
    assert_eq!(deepest_correction(&run), 4, "{}", run.lines());
    assert_eq!(
        deepest_retracted(&run),
        ["c6e4", "h2h3", "b3c3", "c1c2"],
        "{}",
        run.lines()
    );
}

/// The game 1. e4 e5 2. Nf3, then the knocked piece: `square` lifted at 3800 ms and put
/// back (`piece`) `back_ms` later, while Black thinks; then 2... Nc6 3. Bb5.
fn knocked_during_thinking(square: &str, piece: char, back_ms: f64) -> Run {
    let s = Script::new()
        .lift("e2")
        .place("e4", 'P')
        .wait(1200.0)
        .lift("e7")
        .place("e5", 'p')
        .wait(1200.0)
        .lift("g1")
        .place("f3", 'N')
        .wait(400.0)
        .lift(square)
        .wait(back_ms)
        .place(square, piece)
        .wait(900.0)
        .lift("b8")
        .wait(200.0)
        .place("c6", 'n')
        .wait(1500.0)
        .lift("f1")
        .wait(250.0)
        .place("b5", 'B');
    run_script(&s)
}

/// Asserts that a knocked piece left no trace on the game.
fn assert_knock_harmless(run: &Run, square: &str) {
    assert_eq!(
        run.final_uci(),
        ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
    for (_, _, uci) in run.moves() {
        assert!(
            !uci.contains(square),
            "a move names the knocked square {square}:\n{}",
            run.lines()
        );
    }
}

#[test]
fn a_knocked_piece_put_back_never_changes_the_game() {
    // A piece of the side to move (Black's queen) knocked and put back after 0.5 s.
    let run = knocked_during_thinking("d8", 'q', 500.0);
    assert_knock_harmless(&run, "d8");
}

#[test]
fn a_knocked_piece_of_the_side_that_just_moved_put_back_never_changes_the_game() {
    // A piece of White, who has just moved (the a2 pawn), knocked and put back after 1.2 s.
    let run = knocked_during_thinking("a2", 'P', 1200.0);
    assert_knock_harmless(&run, "a2");
}

#[test]
fn a_knocked_piece_put_back_after_two_and_a_half_seconds_never_changes_the_game() {
    // Black's h7 pawn, off its square for 2.5 s (past the mismatch window).
    let run = knocked_during_thinking("h7", 'p', 2500.0);
    assert_knock_harmless(&run, "h7");
    // White's c1 bishop (White has just moved), off its square for 2.5 s.
    let run = knocked_during_thinking("c1", 'B', 2500.0);
    assert_knock_harmless(&run, "c1");
}

#[test]
fn a_knocked_rook_that_an_earlier_capture_could_explain_never_changes_the_game() {
    // On a DGT board, 93. Rc3+ Ke2 94. Ke4 Re8+ (Black reaches for the king 12 ms after
    // the rook lands on c3), then during White's thinking the rook is knocked off c3 and
    // put back 0.92 s later. With c3 empty, 93. Re2 Kxe2 94. Ke4 Re8+ explains the board
    // too (the rook seen on c3 as a captured piece set down within reach of e2, never seen
    // on e2): that history is not the game, and the board shows nothing that proves it.
    // Then 95. Kf4. (The messy hand of `eboardd bench accuracy` does this.)
    let (cfg, start) = set_up("2r5/8/8/2B2K2/8/5k2/2R5/8 w - - 31 93", dgt());
    let s = Script::new()
        .lift("c2")
        .wait(418.0)
        .place("c3", 'R')
        .wait(12.0)
        .lift("f3")
        .wait(449.0)
        .place("e2", 'k')
        .wait(132.0)
        .lift("f5")
        .wait(477.0)
        .place("e4", 'K')
        .wait(3035.0)
        .lift("c8")
        .wait(239.0)
        .place("e8", 'r')
        .wait(1075.0)
        .lift("c3")
        .wait(921.0)
        .place("c3", 'R')
        .wait(1500.0)
        .lift("e4")
        .wait(300.0)
        .place("f4", 'K');
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(
        run.final_uci(),
        ["c2c3", "f3e2", "f5e4", "c8e8", "e4f4"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
}

/// The game 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O at explicit times, with
/// `extra` changes (a broken sensor) among them.
fn ruy_lopez_with(extra: &[(f64, &str, Option<char>)]) -> Vec<(Time, SquareChange)> {
    let mut changes = vec![
        (1000.0, "e2", None),
        (1000.0, "e4", Some('P')),
        (2500.0, "e7", None),
        (2500.0, "e5", Some('p')),
        (4000.0, "g1", None),
        (4000.0, "f3", Some('N')),
        (5500.0, "b8", None),
        (5500.0, "c6", Some('n')),
        (7000.0, "f1", None),
        (7200.0, "b5", Some('B')),
        (8500.0, "a7", None),
        (8700.0, "a6", Some('p')),
        (10000.0, "b5", None),
        (10200.0, "a4", Some('B')),
        (11500.0, "g8", None),
        (11700.0, "f6", Some('n')),
        (13000.0, "e1", None),
        (13200.0, "g1", Some('K')),
        (13500.0, "h1", None),
        (13700.0, "f1", Some('R')),
    ];
    changes.extend_from_slice(extra);
    timeline(&changes).changes
}

const RUY_LOPEZ: [&str; 9] = [
    "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1",
];

#[test]
fn one_broken_sensor_is_still_tolerated() {
    // After 2. Nf3 the sensor of h5 reports a black queen that is not there, for the rest
    // of the game (no history brings a queen from nowhere): the game goes on, every move
    // confirmed, h5 tolerated as a stale sensor.
    let changes = ruy_lopez_with(&[(4400.0, "h5", Some('q'))]);
    let mut t = Tracker::new(config());
    let run = run_with(&mut t, Some(&Board::new()), &changes, 5000);
    assert_eq!(run.final_uci(), RUY_LOPEZ, "{}", run.lines());
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
    assert_eq!(t.ghosts(), Bitboard::from(sq("h5")), "{}", run.lines());
}

#[test]
fn a_sensor_that_stays_empty_is_still_tolerated() {
    // After 1. e4 the sensor of a8 stops seeing the rook, for the rest of the game.
    let changes = ruy_lopez_with(&[(1300.0, "a8", None)]);
    let mut t = Tracker::new(config());
    let run = run_with(&mut t, Some(&Board::new()), &changes, 5000);
    assert_eq!(run.final_uci(), RUY_LOPEZ, "{}", run.lines());
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
    assert_eq!(t.ghosts(), Bitboard::from(sq("a8")), "{}", run.lines());
}

#[test]
fn two_wrong_squares_stay_a_mismatch() {
    // After 1. e4 e5 the sensors of h5 and b4 report a black queen and a white knight that
    // are not there (no history brings a piece from nowhere), from 3000 ms to 7700 ms and
    // 7900 ms. White plays 2. Nf3 meanwhile: nothing is confirmed until the pieces are put
    // right, then play resumes with 2... Nc6.
    let s = timeline(&[
        (1000.0, "e2", None),
        (1000.0, "e4", Some('P')),
        (2500.0, "e7", None),
        (2500.0, "e5", Some('p')),
        (3000.0, "h5", Some('q')),
        (3100.0, "b4", Some('N')),
        (4500.0, "g1", None),
        (4700.0, "f3", Some('N')),
        (7700.0, "h5", None),
        (7900.0, "b4", None),
        (9400.0, "b8", None),
        (9600.0, "c6", Some('n')),
    ]);
    let run = run_script(&s);
    let first = index_of(&run, |e| matches!(e, GameEvent::Mismatch { .. }))
        .unwrap_or_else(|| panic!("no mismatch:\n{}", run.lines()));
    let GameEvent::Mismatch { squares, .. } = &run.events[first].event else {
        unreachable!()
    };
    assert!(
        squares.iter().any(|s| s.to_string() == "h5")
            && squares.iter().any(|s| s.to_string() == "b4"),
        "{}",
        run.lines()
    );
    for (t, _, uci) in run.moves() {
        let ms = t.as_ms_f64();
        assert!(
            !(3000.0..7900.0).contains(&ms),
            "{uci} confirmed at {ms} ms on a board wrong on two squares:\n{}",
            run.lines()
        );
    }
    assert_eq!(
        run.final_uci(),
        ["e2e4", "e7e5", "g1f3", "b8c6"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
}

/// White's rook on a1 and Black's on h6, kings on g1 and g8.
const ROOKS_FEN: &str = "6k1/8/7r/8/8/8/8/R5K1 w - - 0 1";

/// A slide of the piece on `from` to `next`, a rest of `rest_ms` there (the hand still on
/// the piece), and on to `to`, starting at `at_ms`: each step 20 ms from lift to placement.
fn slide_with_rest(
    at_ms: f64,
    piece: char,
    from: &'static str,
    next: &'static str,
    rest_ms: f64,
    to: &'static str,
) -> Vec<(f64, &'static str, Option<char>)> {
    vec![
        (at_ms, from, None),
        (at_ms + 20.0, next, Some(piece)),
        (at_ms + 20.0 + rest_ms, next, None),
        (at_ms + 40.0 + rest_ms, to, Some(piece)),
    ]
}

/// Ra3 (resting 500 ms on a2), Kh8, Rc3 (resting 500 ms on b3), Rf6 (resting 500 ms on g6).
fn rooks_resting_on_their_way() -> Script {
    let mut changes = slide_with_rest(1000.0, 'R', "a1", "a2", 500.0, "a3");
    changes.extend([(3000.0, "g8", None), (3300.0, "h8", Some('k'))]);
    changes.extend(slide_with_rest(5000.0, 'R', "a3", "b3", 500.0, "c3"));
    changes.extend(slide_with_rest(7000.0, 'r', "h6", "g6", 500.0, "f6"));
    timeline(&changes)
}

#[test]
fn a_player_seen_resting_on_the_way_has_later_slides_waited_for() {
    let (cfg, start) = set_up(ROOKS_FEN, config());
    let run = run_script_with(cfg, &start, &rooks_resting_on_their_way());
    assert_eq!(
        run.final_uci(),
        ["a1a3", "g8h8", "a3c3", "h6f6"],
        "{}",
        run.lines()
    );
    // White's first rest is read as a move and corrected; that teaches the tracker that
    // White rests on the way: White's second rest is never published. Black, never seen
    // resting, is read as before: Black's rest is confirmed and corrected.
    let retracted: Vec<String> = retracts(&run).into_iter().map(|r| r.2).collect();
    assert_eq!(retracted, ["a1a2", "h6g6"], "{}", run.lines());
    assert!(
        !run.moves().iter().any(|m| m.2 == "a3b3"),
        "{}",
        run.lines()
    );
    // White's second slide is waited for the slide rest after its last placement.
    let rest = config().slide_rest.as_secs_f64() * 1000.0;
    assert!(
        confirm_time(&run, "a3c3") >= 5540.0 + rest,
        "{}",
        run.lines()
    );
}

#[test]
fn slides_of_players_never_seen_resting_wait_only_the_settle_window() {
    let (cfg, start) = set_up(ROOKS_FEN, config());
    // 1. Ra3, slid with no rest on a2.
    let s = timeline(&slide_with_rest(1000.0, 'R', "a1", "a2", 60.0, "a3"));
    let run = run_script_with(cfg.clone(), &start, &s);
    assert_eq!(run.final_uci(), ["a1a3"], "{}", run.lines());
    let settle = cfg.settle.as_secs_f64() * 1000.0;
    assert!(
        confirm_time(&run, "a1a3") <= 1100.0 + settle + 1.0,
        "{}",
        run.lines()
    );
}

#[test]
fn with_slide_rests_always_no_rest_on_the_way_is_published() {
    let cfg = TrackerConfig {
        slide_rests: SlideRests::Always,
        ..config()
    };
    let (cfg, start) = set_up(ROOKS_FEN, cfg);
    let run = run_script_with(cfg, &start, &rooks_resting_on_their_way());
    assert_eq!(
        run.final_uci(),
        ["a1a3", "g8h8", "a3c3", "h6f6"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
}

#[test]
fn with_slide_rests_always_a_piece_lifted_and_put_down_waits_only_the_settle_window() {
    let cfg = TrackerConfig {
        slide_rests: SlideRests::Always,
        ..config()
    };
    let (cfg, start) = set_up(ROOKS_FEN, cfg);
    // 1. Ra3, the rook carried for 300 ms: where it could go on, but it did not slide.
    let s = timeline(&[(1000.0, "a1", None), (1300.0, "a3", Some('R'))]);
    let run = run_script_with(cfg.clone(), &start, &s);
    assert_eq!(run.final_uci(), ["a1a3"], "{}", run.lines());
    let settle = cfg.settle.as_secs_f64() * 1000.0;
    assert!(
        confirm_time(&run, "a1a3") <= 1300.0 + settle + 1.0,
        "{}",
        run.lines()
    );
}

#[test]
fn a_captured_piece_set_down_where_its_own_move_could_have_gone_changes_nothing() {
    // White's bishop on c4 could go to b3 or b5; Black's knight on a5 takes on b3.
    let (cfg, start) = set_up("6k1/5ppp/8/n7/2B5/8/5PPP/6K1 w - - 0 1", config());
    // Bb3; seconds later Black lifts the bishop off b3, sets it down on b5 for a moment
    // (where Bb5 would have put it), and plays Nxb3.
    let s = timeline(&[
        (1000.0, "c4", None),
        (1300.0, "b3", Some('B')),
        (6000.0, "b3", None),
        (6170.0, "b5", Some('B')),
        (6400.0, "a5", None),
        (6700.0, "b3", Some('n')),
        (7200.0, "b5", None),
    ]);
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(run.final_uci(), ["c4b3", "a5b3"], "{}", run.lines());
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
}

#[test]
fn an_opponents_reach_reported_before_the_end_of_a_rest_does_not_confirm_the_rest() {
    // A DGT board (reports up to a scan late) and a player whose slides may rest.
    let cfg = TrackerConfig {
        slide_rests: SlideRests::Always,
        ..dgt()
    };
    let (cfg, start) = set_up("1r4k1/5ppp/8/8/8/8/5PPP/3Q2K1 b - - 0 1", cfg);
    // Rb8 slides to c8 and rests; White's lift of the queen is reported 406 ms later, the
    // rook's going on to d8 only 22 ms after that (it happened before, the scan was late).
    let s = timeline(&[
        (1000.0, "b8", None),
        (1005.0, "c8", Some('r')),
        (1411.0, "d1", None),
        (1433.0, "c8", None),
        (1438.0, "d8", Some('r')),
        (1800.0, "d4", Some('Q')),
    ]);
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(run.final_uci(), ["b8d8", "d1d4"], "{}", run.lines());
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
}

#[test]
fn a_captured_piece_set_down_behind_on_its_line_is_corrected_as_it_is_taken_off() {
    // Black's bishop slides c8-d7-e6; White lifts it off e6 at once, sets it down on d7
    // for a moment (where Bd7 would have put it) and plays Bxe6 with the bishop from c4.
    // Read as Bd7 Be6 until d7 is cleared; taking the piece off d7 is no move of Black's
    // beginning but the end of that capture.
    let (cfg, start) = set_up("2b3k1/5ppp/8/8/2B5/8/5PPP/6K1 b - - 0 1", dgt());
    let s = timeline(&[
        (1000.0, "c8", None),
        (1050.0, "d7", Some('b')),
        (1300.0, "d7", None),
        (1350.0, "e6", Some('b')),
        (1585.0, "e6", None),
        (1795.0, "d7", Some('b')),
        (1880.0, "c4", None),
        (2300.0, "e6", Some('B')),
        (2945.0, "d7", None),
    ]);
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(run.final_uci(), ["c8e6", "c4e6"], "{}", run.lines());
    // Corrected as d7 is cleared, not a held piece's time later.
    assert_eq!(
        retracted(&run),
        [(2945.0, "c4e6".to_string()), (2945.0, "c8d7".to_string())],
        "{}",
        run.lines()
    );
}

#[test]
fn a_captured_piece_never_seen_on_the_capture_square_is_corrected_as_it_is_taken_off() {
    // Black plays Bf6-g7; White lifts the bishop off g7 before the board scans g7 (never
    // reported there), sets it down on g5 for a moment (where Bg5 would have put it) and
    // plays Bxg7. Read as Bg5 Bg7 until g5 is cleared. The bishop reached g5 840 ms after
    // its lift, too late for one move of the hand, and is taken off 630 ms after White's
    // bishop came, no quick reply: corrected once the board has stood a settle time
    // (260 ms), not a held piece's second later.
    let (cfg, start) = set_up("6k1/5p1p/5bpB/8/8/8/5PPP/6K1 b - - 0 1", dgt());
    let s = timeline(&[
        (1000.0, "f6", None),
        (1840.0, "g5", Some('b')),
        (2090.0, "h6", None),
        (2340.0, "g7", Some('B')),
        (2970.0, "g5", None),
    ]);
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(run.final_uci(), ["f6g7", "h6g7"], "{}", run.lines());
    assert_eq!(
        retracted(&run),
        [(3230.0, "h6g7".to_string()), (3230.0, "f6g5".to_string())],
        "{}",
        run.lines()
    );
}

#[test]
fn a_quick_reply_with_the_piece_just_moved_is_no_capture_set_aside() {
    // The same reports, but Black lifts the bishop off g5 150 ms after White's bishop
    // came, as a quick reply, and plays Bg5-e7: Bg5 Bg7 Be7 stand, nothing retracted.
    let (cfg, start) = set_up("6k1/5p1p/5bpB/8/8/8/5PPP/6K1 b - - 0 1", dgt());
    let s = timeline(&[
        (1000.0, "f6", None),
        (1840.0, "g5", Some('b')),
        (2090.0, "h6", None),
        (2340.0, "g7", Some('B')),
        (2490.0, "g5", None),
        (2790.0, "e7", Some('b')),
    ]);
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(run.final_uci(), ["f6g5", "h6g7", "g5e7"], "{}", run.lines());
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
}

#[test]
fn a_piece_held_after_captures_read_one_short_is_put_right_as_held_pieces_are() {
    // Black plays Rxa7 lifting the white rook off first and setting it down on a6; White
    // answers Rc7xa7 (c7-b7-a7), lifting the black rook off a7 first and setting it down
    // on c8, and takes it off there. Read as Ra8-c8 (the rook set down on c8), the board
    // then shows White's c7 rook in the hand capturing on c8. Held a second, that is
    // weighed against histories with every piece down, here one ply longer: Rxa7 Rxa7.
    let (cfg, start) = set_up(
        "r3r1k1/R1R2pb1/1p5p/3p1N2/3P4/1P2P1P1/1P1B1P1P/6K1 b - - 0 21",
        dgt(),
    );
    let s = timeline(&[
        (1000.0, "a7", None),
        (1455.0, "a6", Some('R')),
        (1615.0, "a8", None),
        (1864.0, "a7", Some('r')),
        (2330.0, "a7", None),
        (2357.0, "a6", None),
        (2731.0, "c8", Some('r')),
        (2998.0, "b7", Some('R')),
        (3003.0, "c7", None),
        (3218.0, "a7", Some('R')),
        (3223.0, "b7", None),
        (3878.0, "c8", None),
    ]);
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(run.final_uci(), ["a8a7", "c7a7"], "{}", run.lines());
    // Put right a held piece's second after c8 was cleared.
    let last_retract = retracts(&run).last().map(|(t, _, _)| t.as_ms_f64());
    assert_eq!(last_retract, Some(4878.0), "{}", run.lines());
}

#[test]
fn a_rest_going_on_to_a_capture_is_not_read_with_two_pieces_nobody_saw() {
    // White's queen slides c3-c4-c5-c6 taking the queen, resting on c4 past the settle
    // time (Qc4 confirmed); the queen swept off c6 in one scan. Black answers Bxc6 at
    // once, lifting the bishop before White's queen lands and setting the queen down on
    // d6 for a moment. Read on Qc4, the board fits only Bd5-e6 Qxe6 with two pieces
    // nobody saw on e6: that is not confirmed while the last ply's piece, lifted first,
    // may be going on; the history proves itself once the captured queen is taken off.
    let (cfg, start) = set_up(
        "4r1k1/4r1p1/1pq4p/3bp3/4N3/2Q1R2P/5PP1/4R1K1 w - - 6 35",
        dgt(),
    );
    let s = timeline(&[
        (1000.0, "c3", None),
        (1031.0, "c4", Some('Q')),
        (1722.0, "c4", None),
        (1749.0, "d5", None),
        (1783.0, "c6", Some('Q')),
        (2009.0, "c6", None),
        (2425.0, "d6", Some('Q')),
        (2431.0, "c6", Some('b')),
        (3812.0, "d6", None),
    ]);
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(run.final_uci(), ["c3c6", "d5c6"], "{}", run.lines());
    assert!(!run.lines().contains("\"uci\":\"d5e6\""), "{}", run.lines());
}

#[test]
fn of_two_readings_the_one_whose_plies_end_in_turn_is_taken() {
    // Qd2-d3, Qg4-e4 at once, Qd3-d7 sliding over d4 and d5. The board ends the same read
    // as Qd2-d4 (over d3) Qe4 Qd4-d7, but then White's queen would have reached d4 200 ms
    // after Black's reply began: the reply waits for the move's end, so it is Qd3.
    let (cfg, start) = set_up(
        "4r1k1/p5b1/1p4p1/2p4p/6qP/P1P5/1PPQ4/1KB2R2 w - - 9 42",
        dgt(),
    );
    let s = timeline(&[
        (1000.0, "d2", None),
        (1197.0, "d3", Some('Q')),
        (1389.0, "e4", Some('q')),
        (1397.0, "g4", None),
        (1599.0, "d4", Some('Q')),
        (1625.0, "d3", None),
        (1789.0, "d5", Some('Q')),
        (1817.0, "d4", None),
        (2018.0, "d5", None),
        (2193.0, "d7", Some('Q')),
    ]);
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(run.final_uci(), ["d2d3", "g4e4", "d3d7"], "{}", run.lines());
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
}

#[test]
fn four_quick_plies_back_to_the_same_position_are_all_read() {
    // Qd4 Qe4 Qd1 Qc2, each reply begun before the board stood still, the queens back
    // where they started. Each queen is moved off its new square again, not further
    // along its line: it came to rest there, and its ply is confirmed at once rather
    // than waited for as a piece that may still be moving on (the wait would outlast
    // all four plies, and the board back where it was reads as nothing played).
    let (cfg, start) = set_up(
        "r1r3k1/3n3p/pp2pppB/3b4/P7/6R1/1Pq1BPPP/3QR1K1 w - - 4 25",
        dgt(),
    );
    let s = timeline(&[
        (1000.0, "d1", None),
        (1153.0, "d4", Some('Q')),
        (1184.0, "d3", Some('q')),
        (1211.0, "c2", None),
        (1395.0, "e4", Some('q')),
        (1420.0, "d3", None),
        (1623.0, "d4", None),
        (1681.0, "d2", Some('Q')),
        (1849.0, "e4", None),
        (1872.0, "d3", Some('q')),
        (1899.0, "d2", None),
        (1925.0, "d1", Some('Q')),
        (2092.0, "d3", None),
        (2116.0, "c2", Some('q')),
    ]);
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(
        run.final_uci(),
        ["d1d4", "c2e4", "d4d1", "e4c2"],
        "{}",
        run.lines()
    );
}

#[test]
fn plies_that_account_for_every_placement_win_over_fewer_that_leave_one() {
    // Rc7-f7+ sliding over d7, the king lifted while the rook stands on f7 (Kg6), then the
    // rook back over e7 to d7, resting there, and on to c7. Rd7 Kg6 is a reading with
    // fewer plies, but leaves the rook seen on f7 for half a second unaccounted for; Rf7+
    // Kg6 Rf7-d7 accounts for it: the rook on f7 was the move. (White's slides are
    // waited for as a player's who rests on the way.)
    let cfg = TrackerConfig {
        slide_rests: SlideRests::Always,
        ..dgt()
    };
    let (cfg, start) = set_up("8/2R5/2p5/2P2k2/7p/3nBK1P/2r2P2/8 w - - 1 39", cfg);
    let s = timeline(&[
        (1000.0, "c7", None),
        (1005.0, "d7", Some('R')),
        (1240.0, "d7", None),
        (1248.0, "f7", Some('R')),
        (1553.0, "f5", None),
        (1728.0, "f7", None),
        (1758.0, "g6", Some('k')),
        (1935.0, "d7", Some('R')),
        (2386.0, "c7", Some('R')),
        (2386.5, "d7", None),
    ]);
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(run.final_uci(), ["c7f7", "f5g6", "f7c7"], "{}", run.lines());
    // Read so as the rook lands on d7: Rd7 is never published, nothing retracted.
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
    assert_eq!(run.count("violation"), 0, "{}", run.lines());
}

#[test]
fn a_rest_going_on_after_the_opponent_reached_out_is_not_read_with_a_piece_nobody_saw() {
    // Be2-b5 resting on c4 past the settle time (Bc4 confirmed); Black reaches out for the
    // a-pawn before the bishop goes on to b5. Read on Bc4, the board fits a7-a6 (never
    // seen there) Bxa6 passing b5: that waits, as when the bishop is the first piece
    // lifted, and the history Bb5 a6 proves itself as the pawn lands.
    let (cfg, start) = set_up(
        "r1b2rk1/pp1qbppp/2n1pn2/3p4/3P1B2/2N2N2/PPPQBPPP/R3R1K1 w - - 12 12",
        dgt(),
    );
    let s = timeline(&[
        (1000.0, "e2", None),
        (1162.0, "c4", Some('B')),
        (1778.0, "a7", None),
        (1843.0, "b5", Some('B')),
        (1878.0, "c4", None),
        (2246.0, "a6", Some('p')),
        (2494.0, "b5", None),
        (2757.0, "a4", Some('B')),
    ]);
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(run.final_uci(), ["e2b5", "a7a6", "b5a4"], "{}", run.lines());
    assert!(!run.lines().contains("\"uci\":\"c4b5\""), "{}", run.lines());
}

#[test]
fn a_capture_of_a_piece_the_scan_never_saw_on_a_square_lifted_before_is_read() {
    // White's bishop slides c1-f4-g5, resting on f4. Black's queen goes f6-f5-f4 and is
    // lifted off f4 by White before the board scans f4 (never reported there), set down
    // on d3 for a moment, and Bxf4 follows. f4 was last seen lifted by the bishop's slide,
    // before the queen's move: that lift is no part of the capture.
    let (cfg, start) = set_up("5k2/8/5q2/8/8/8/8/2B3K1 w - - 0 1", dgt());
    let s = timeline(&[
        (1000.0, "c1", None),
        (1100.0, "d2", Some('B')),
        (1200.0, "d2", None),
        (1250.0, "e3", Some('B')),
        (1350.0, "e3", None),
        (1400.0, "f4", Some('B')),
        (1800.0, "f4", None),
        (2000.0, "g5", Some('B')),
        (2700.0, "f6", None),
        (2725.0, "f5", Some('q')),
        (3390.0, "f5", None),
        (3890.0, "d3", Some('q')),
        (4280.0, "g5", None),
        (4545.0, "f4", Some('B')),
        (4790.0, "d3", None),
    ]);
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(run.final_uci(), ["c1g5", "f6f4", "g5f4"], "{}", run.lines());
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
}

#[test]
fn a_piece_never_seen_on_the_capture_square_is_no_victim_set_aside() {
    // Qxc6 taking the pawn off first and setting it down on b7 for a moment: at first that
    // reads as Qb7 cxb7 with the queen never seen on b7. When the queen lands on c6, she is
    // no victim of cxb7 set aside (a DGT board would have seen her on b7 at least once).
    // Taking the pawn off b7 then proves Qxc6 at once, although it might begin Rxb7.
    let (cfg, start) = set_up("6k1/r1q5/2P5/8/8/8/8/6K1 b - - 0 1", dgt());
    let s = timeline(&[
        (1000.0, "c6", None),
        (1190.0, "b7", Some('P')),
        (1195.0, "c7", None),
        (1655.0, "c6", Some('q')),
        (2520.0, "b7", None),
    ]);
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(run.final_uci(), ["c7c6"], "{}", run.lines());
    let undone: Vec<f64> = retracts(&run).iter().map(|r| r.0.as_ms_f64()).collect();
    assert!(
        !undone.is_empty() && undone.iter().all(|&t| t <= 2520.0),
        "corrected as the board proved it: {}",
        run.lines()
    );
}

#[test]
fn a_capture_begun_with_the_victim_whose_piece_rests_on_its_way_is_waited_for() {
    // Rxg6 by a player never seen resting a piece: the rook on g6 is taken off first, then
    // the white rook lifted and put down on g5 for 670 ms, the hand still on it, before it
    // goes on to g6. The victim lifted first says where the move is going: no Rg5 (with
    // ...Rxg5 begun) is published on the way.
    let (cfg, start) = set_up("6k1/8/6r1/8/8/6R1/8/6K1 w - - 0 1", dgt());
    let s = timeline(&[
        (1000.0, "g6", None),
        (1144.0, "g3", None),
        (1198.0, "g5", Some('R')),
        (1867.0, "g5", None),
        (1894.0, "g6", Some('R')),
    ]);
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(run.final_uci(), ["g3g6"], "{}", run.lines());
    assert_eq!(run.count("move"), 1, "{}", run.lines());
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
}

#[test]
fn a_rest_going_on_as_the_reply_begins_is_not_read_with_a_piece_nobody_saw() {
    // Rd8-d6, resting on d7 past the settle window (Rd7 confirmed); as it goes on, White's
    // bishop is lifted off c6 at once and put down on f3. Read on Rd7, the board needs the
    // bishop on d5 where nobody saw it (Bd5 Rd6 Bf3): the rest going on is the reading.
    let (cfg, start) = set_up("3r2k1/5ppp/2B5/8/8/8/5PPP/6K1 b - - 0 1", dgt());
    let s = timeline(&[
        (1000.0, "d7", Some('r')),
        (1200.0, "d8", None),
        (1700.0, "d7", None),
        (1725.0, "c6", None),
        (1730.0, "d6", Some('r')),
        (2061.0, "f3", Some('B')),
    ]);
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(run.final_uci(), ["d8d6", "c6f3"], "{}", run.lines());
    assert!(
        run.moves().iter().all(|m| m.2 != "c6d5"),
        "no bishop move nobody saw: {}",
        run.lines()
    );
}

#[test]
fn a_captured_piece_set_down_further_along_its_line_is_corrected_as_it_is_taken_off() {
    // Black's bishop slides a6-d3; White lifts it off d3, sets it down on f1 a third of a
    // second later (where a longer slide would have put it) and plays Rxd3. Not the slide
    // going on: that would have left d3 for f1 at once.
    let (cfg, start) = set_up("6k1/8/b7/8/8/8/8/3R2K1 b - - 0 1", dgt());
    let s = timeline(&[
        (1000.0, "b5", Some('b')),
        (1030.0, "a6", None),
        (1190.0, "c4", Some('b')),
        (1220.0, "b5", None),
        (1410.0, "c4", None),
        (1600.0, "d3", Some('b')),
        (2490.0, "d3", None),
        (2840.0, "f1", Some('b')),
        (3060.0, "d1", None),
        (3350.0, "d3", Some('R')),
        (3730.0, "f1", None),
    ]);
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(run.final_uci(), ["a6d3", "d1d3"], "{}", run.lines());
    let undone: Vec<f64> = retracts(&run).iter().map(|r| r.0.as_ms_f64()).collect();
    assert!(
        undone.iter().all(|&t| t <= 3730.0),
        "corrected as f1 was cleared: {}",
        run.lines()
    );
}

#[test]
fn a_piece_knocked_over_that_cannot_move_is_no_capture_nobody_saw() {
    // ...Nd6, then Rc7+; Black's knight, which cannot answer the check, is knocked off d6
    // and put back 2.2 s later. Meanwhile the board also reads as Nc7 (never seen there)
    // Rxc7: a piece lifted where no move can begin, nothing put down since, is a piece
    // knocked over until it has stayed off longer than that.
    let (cfg, start) = set_up("4n3/5Rp1/6p1/8/2kp1P2/1pp2B2/1P6/2K5 b - - 0 40", dgt());
    let s = timeline(&[
        (1000.0, "e8", None),
        (1160.0, "d6", Some('n')),
        (2700.0, "f7", None),
        (2950.0, "c7", Some('R')),
        (3130.0, "d6", None),
        (5340.0, "d6", Some('n')),
    ]);
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(run.final_uci(), ["e8d6", "f7c7"], "{}", run.lines());
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
}

#[test]
fn a_captured_piece_set_down_where_it_came_from_is_no_lasting_takeback() {
    // 1. d4 exd4, Black taking the white pawn off d4 first and setting it down on d2 for a
    // moment: for that moment the board is the one before 1. d4.
    let (cfg, start) = set_up("4k3/8/8/4p3/8/8/3P4/4K3 w - - 0 1", config());
    let s = timeline(&[
        (1000.0, "d2", None),
        (1300.0, "d4", Some('P')),
        (4000.0, "d4", None),
        (4200.0, "d2", Some('P')),
        (4900.0, "e5", None),
        (5200.0, "d4", Some('p')),
        (5600.0, "d2", None),
        (8000.0, "e1", None),
        (8300.0, "e2", Some('K')),
    ]);
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(run.final_uci(), ["d2d4", "e5d4", "e1e2"], "{}", run.lines());
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
}

#[test]
fn a_rest_that_went_on_into_a_repeated_position_is_corrected_not_taken_back() {
    // 35. Kf7 Rc8 36. Ke6 Re8+, the rook resting on d8 for 450 ms on its way back to e8
    // (Rd8 is confirmed). Once it goes on, the board is the position after 34... Re8+ (the
    // position repeats): the rook going on, not four plies taken back.
    let (cfg, start) = set_up("4R3/pp1n4/4k3/4P1p1/4K1N1/8/r5PP/8 b - - 5 34", config());
    let s = timeline(&[
        (1000.0, "e6", None),
        (1250.0, "f7", Some('k')),
        (2000.0, "e8", None),
        (2250.0, "c8", Some('R')),
        (3000.0, "f7", None),
        (3250.0, "e6", Some('k')),
        (4000.0, "c8", None),
        (4100.0, "d8", Some('R')),
        (4550.0, "d8", None),
        (4600.0, "e8", Some('R')),
        (6000.0, "e6", None),
        (6250.0, "f7", Some('k')),
    ]);
    let run = run_script_with(cfg, &start, &s.wait(2000.0));
    assert!(confirm_time(&run, "c8d8") < 4550.0, "{}", run.lines());
    assert_eq!(
        run.final_uci(),
        ["e6f7", "e8c8", "f7e6", "c8e8", "e6f7"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("takeback"), 0, "{}", run.lines());
    assert_eq!(run.count("retract"), 1, "{}", run.lines());
}

#[test]
fn a_capture_taken_again_before_a_scan_is_followed_through_quick_replies() {
    // 36... Nxe3 37. Rxe3 Bxc5 38. Re3-d3 Ke6 on a DGT board, each reply quick. The knight
    // sweeps the pawn off e3 and is taken again within a scan: e3 goes from the pawn to
    // empty, the knight never reported there; it is set down on e4 for 850 ms. Explained
    // only with that unseen knight, the capture waited for a still board that never came,
    // and the game stood still while five plies were played. Once two more plies have begun
    // after it, nothing can show the knight any more: the capture is confirmed.
    let (cfg, start) = set_up(
        "8/p3bk2/5p2/2Np2p1/P5Pr/1P1RPP2/4N1K1/3n4 b - - 2 36",
        dgt(),
    );
    let s = timeline(&[
        (1000.0, "d1", None),
        (1403.0, "e3", None),
        (1605.0, "e4", Some('n')),
        (1867.0, "d3", None),
        (2106.0, "e3", Some('R')),
        (2960.0, "e4", None),
        (3102.0, "e7", None),
        (3129.0, "d6", Some('b')),
        (3374.0, "d6", None),
        (3399.0, "c5", Some('b')),
        (3464.0, "e3", None),
        (3695.0, "d3", Some('R')),
        (3818.0, "f7", None),
        (4275.0, "e6", Some('k')),
    ]);
    let run = run_script_with(cfg, &start, &s.wait(3000.0));
    assert_eq!(
        run.final_uci(),
        ["d1e3", "d3e3", "e7c5", "e3d3", "f7e6"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
    assert!(confirm_time(&run, "d1e3") < 3500.0, "{}", run.lines());
}

#[test]
fn a_queen_taken_back_within_a_scan_and_set_down_near_by_is_corrected() {
    // 16... Qxe3 17. fxe3 Kd7 on a DGT board: the queen sweeps White's queen off e3 and is
    // taken at once, within a scan, so it is never reported on e3; White sets it down on
    // d4 for 1.1 s, which reads as 16... Qd4 until the pawn arrives on e3.
    let (cfg, start) = set_up(
        "r3k2r/pp2b1pp/2p1N1b1/q7/8/2PP1Q2/PP3PPP/R3K2R b KQkq - 0 15",
        dgt(),
    );
    let s = timeline(&[
        (378.0, "a5", None),
        (767.0, "f3", None),
        (829.0, "e5", Some('q')),
        (1232.0, "e3", Some('Q')),
        (1933.0, "e5", None),
        (2302.0, "e3", None),
        (2551.0, "d4", Some('q')),
        (2922.0, "f2", None),
        (3172.0, "e3", Some('P')),
        (3661.0, "d4", None),
        (3762.0, "e8", None),
        (3960.0, "d7", Some('k')),
    ]);
    let run = run_script_with(cfg, &start, &s.wait(3000.0));
    assert_eq!(
        run.final_uci(),
        ["a5e5", "f3e3", "e5e3", "f2e3", "e8d7"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
}

/// White to play (Leko–Ponomariov, move 13): the bishop on c1 goes to g5 over d2, e3 and
/// f4, resting on f4 long enough to be confirmed there; Black replies f6 as the bishop goes
/// on; the bishop then drops back to e3 and Black plays Kh8. As a DGT board reported it.
const BISHOP_FEN: &str = "r1bq1rk1/1p3ppp/p1n1p1n1/b7/2BP4/P1NQ1N2/1P3PPP/R1BR2K1 w - - 2 13";

#[test]
fn a_slider_confirmed_where_it_rested_then_seen_further_on_is_corrected() {
    let (cfg, start) = set_up(BISHOP_FEN, dgt());
    let s = timeline(&[
        (1000.0, "d2", Some('B')),
        (1025.0, "c1", None),
        (1190.0, "f4", Some('B')),
        (1244.0, "d2", None),
        // Bf4 is confirmed about here; Black reaches for the f-pawn.
        (1776.0, "f7", None),
        (1837.0, "g5", Some('B')),
        (1862.0, "f4", None),
        (2029.0, "f6", Some('p')),
        (2059.0, "g5", None),
        (2547.0, "e3", Some('B')),
        (2643.0, "g8", None),
        (2876.0, "h8", Some('k')),
    ]);
    let run = run_script_with(cfg, &start, &s.wait(3000.0));
    // Bf4, f6, Bxe3... gives the same position: only the bishop seen on g5 tells the game.
    assert!(confirm_time(&run, "c1f4") < 1776.0, "{}", run.lines());
    assert_eq!(
        run.final_uci(),
        ["c1g5", "f7f6", "g5e3", "g8h8"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
}

/// White to play (move 14): Nd5 is never seen on d5 (Black lifts the knight within the
/// scan and sets it down on e6 for a moment), Nxd5, then Rab1 Qa6 Qxd5 follow so fast that
/// no ply can be confirmed before the fifth is under way. As a DGT board reported it.
const KNIGHT_FEN: &str = "r4rk1/pp2ppbp/1qnp1np1/6B1/2P5/P1NQPN2/5PPP/R4RK1 w - - 2 14";

#[test]
fn plies_played_faster_than_the_search_is_deep_are_all_read() {
    let (cfg, start) = set_up(KNIGHT_FEN, dgt());
    let s = timeline(&[
        (1000.0, "c3", None),
        (1618.0, "e6", Some('N')),
        (2075.0, "f6", None),
        (2542.0, "d5", Some('n')),
        (2954.0, "e6", None),
        (3067.0, "a1", None),
        (3298.0, "b1", Some('R')),
        (3387.0, "b6", None),
        (3620.0, "a6", Some('q')),
        (3688.0, "d4", Some('Q')),
        (3717.0, "d3", None),
        (3916.0, "d4", None),
        (4103.0, "d5", Some('Q')),
    ]);
    let run = run_script_with(cfg, &start, &s.wait(3000.0));
    assert_eq!(
        run.final_uci(),
        ["c3d5", "f6d5", "a1b1", "b6a6", "d3d5"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
}

/// White to play (move 17): fxg3, Black's rook goes round to h8, Ng5, and the rook takes
/// on h2, sweeping the pawn off; the pawn is set down on f2 (empty since fxg3) for over a
/// second before it leaves the board. As a DGT board reported it.
const ROOK_FEN: &str = "1qkr4/ppnbpp2/3p1npr/1PpP4/P1P5/3N1Np1/4PP1P/Q1R2RKB w - - 0 17";

#[test]
fn a_captured_pawn_set_down_where_another_pawn_stood_changes_no_ply() {
    let (cfg, start) = set_up(ROOK_FEN, dgt());
    let s = timeline(&[
        (980.0, "f2", None),
        (1183.0, "g3", Some('P')),
        (1346.0, "h5", Some('p')),
        (1782.0, "h5", None),
        (1922.0, "d8", None),
        (1928.0, "e8", Some('r')),
        (2167.0, "e8", None),
        (2173.0, "g8", Some('r')),
        (2377.0, "g8", None),
        (2382.0, "h8", Some('r')),
        (2515.0, "f3", None),
        (2687.0, "g5", Some('N')),
        (2896.0, "h6", None),
        (2958.0, "h4", Some('r')),
        (3187.0, "h4", None),
        (3241.0, "h2", Some('r')),
        (3458.0, "f2", Some('P')),
        (4592.0, "f2", None),
    ]);
    let run = run_script_with(cfg, &start, &s.wait(3000.0));
    assert_eq!(
        run.final_uci(),
        ["f2g3", "d8h8", "f3g5", "h6h2"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
}

/// White to play (move 9): the queen goes d1–b3, resting on c2 long enough to be confirmed
/// there; Black's queen is on its way (over c7) to b6 as White's queen goes on to b3. As a
/// DGT board reported it: the squares of the two queens interleave.
const QUEENS_FEN: &str = "rn1q1rk1/pp2ppbp/2p3p1/3n1b2/3P4/2N2NP1/PP2PPBP/R1BQ1RK1 w - - 0 9";

#[test]
fn a_rest_read_as_a_move_then_the_reply_then_the_same_piece_going_on_is_corrected() {
    let (cfg, start) = set_up(QUEENS_FEN, dgt());
    let s = timeline(&[
        (1000.0, "c2", Some('Q')),
        (1199.0, "d1", None),
        // Qc2 is confirmed about here.
        (1488.0, "b3", Some('Q')),
        (1609.0, "c7", Some('q')),
        (1636.0, "d8", None),
        (1692.0, "c2", None),
        (1797.0, "b6", Some('q')),
        (1819.0, "c7", None),
        (4377.0, "c3", None),
        (4882.0, "d5", Some('N')),
    ]);
    let run = run_script_with(cfg, &start, &s.wait(3000.0));
    assert!(confirm_time(&run, "d1c2") < 1488.0, "{}", run.lines());
    assert_eq!(run.final_uci(), ["d1b3", "d8b6", "c3d5"], "{}", run.lines());
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
}

/// White to play (move 34): Rxd7, Nc5, and White takes the knight at once, lifting it off
/// c5 first and setting it down on d3 (a knight's move from c5) before the capturing knight
/// arrives; Black then takes back on c5. As a DGT board reported it.
const VICTIM_FIRST_FEN: &str = "5k2/pn1b1p2/1p4r1/4r1p1/2p1N1Pp/P4P2/B2R1KP1/7R w - - 0 34";

#[test]
fn a_victim_lifted_first_and_set_down_a_knights_move_away_is_no_knight_move() {
    let (cfg, start) = set_up(VICTIM_FIRST_FEN, dgt());
    let s = timeline(&[
        (1000.0, "d2", None),
        (1029.0, "d3", Some('R')),
        (1057.0, "d4", Some('R')),
        (1251.0, "d3", None),
        (1277.0, "d4", None),
        (1329.0, "d6", Some('R')),
        (1552.0, "d6", None),
        (1580.0, "d7", Some('R')),
        (1588.0, "b7", None),
        (1981.0, "c5", Some('n')),
        (2195.0, "c5", None),
        (2552.0, "d3", Some('n')),
        (2576.0, "e4", None),
        (3057.0, "c5", Some('N')),
        (3435.0, "d3", None),
        (3696.0, "e5", None),
        (3914.0, "c5", Some('r')),
    ]);
    let run = run_script_with(cfg, &start, &s.wait(3000.0));
    assert_eq!(
        run.final_uci(),
        ["d2d7", "b7c5", "e4c5", "e5c5"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
}

/// Black to play (move 23): Rdd2, Rd1, and Black takes on d1 by lifting White's rook first
/// and setting it down on f1, the square it came from, before Rxd1+ lands; the rook leaves
/// the board and Kxd1 follows. As a DGT board reported it.
const ROOK_BACK_FEN: &str = "6k1/p1pr3p/1pR3p1/8/8/1P6/P1P1rPPP/2K2R2 b - - 0 23";

#[test]
fn a_victim_set_down_where_it_came_from_is_no_takeback() {
    let (cfg, start) = set_up(ROOK_BACK_FEN, dgt());
    let s = timeline(&[
        (1000.0, "d7", None),
        (1325.0, "d2", Some('r')),
        (1526.0, "f1", None),
        (1779.0, "d1", Some('R')),
        (1983.0, "d1", None),
        (2405.0, "f1", Some('R')),
        (2654.0, "d2", None),
        (2835.0, "d1", Some('r')),
        (3246.0, "f1", None),
        (4146.0, "d1", None),
        (4387.0, "c1", None),
        (4595.0, "d1", Some('K')),
    ]);
    let run = run_script_with(cfg, &start, &s.wait(3000.0));
    assert_eq!(
        run.final_uci(),
        ["d7d2", "f1d1", "d2d1", "c1d1"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("takeback"), 0, "{}", run.lines());
}

#[test]
fn a_captured_rook_set_aside_and_taken_off_is_corrected_while_the_board_stands_still() {
    // 30. Rc3 Rxc3, read as 30. Rc2 Rc3 (the captured rook, taken off c3 first, set down on
    // c2 as the rook's move going on). When the captured rook leaves c2, the game as read
    // has White's rook in the hand; nobody holds a piece that long while the board stands
    // still, and the capture explains the board with every piece down: the game is put
    // right without waiting for White's next move.
    let (cfg, start) = set_up(SET_ASIDE_FEN, config());
    let s = rook_taken_and_set_aside_on_c2()
        .wait(1090.0)
        .lift("c2")
        .wait(4000.0);
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(
        misread_before(&run, 3650.0),
        ["c1c3", "c1c2", "b3c3"],
        "{}",
        run.lines()
    );
    assert_eq!(run.final_uci(), ["c1c3", "b3c3"], "{}", run.lines());
    let corrected = retracts(&run)
        .last()
        .map(|r| r.0.as_ms_f64())
        .expect("a correction");
    assert!(
        corrected < 3650.0 + 1500.0,
        "corrected at {corrected} ms\n{}",
        run.lines()
    );
}

#[test]
fn a_rest_overlapping_a_reply_that_moves_twice_is_corrected_to_fewer_plies() {
    // 24. Qf2 Qd7 on a DGT board: White's queen slides d2–e2–f2, resting on e2 for 650 ms
    // (confirmed there as 24. Qe2); Black's queen starts back from h3 while it rests and
    // slides over g4 and e6 to d7. On 24. Qe2 the board reads as three more plies (the
    // black queen moving twice around White's), on the position before it as two: the
    // history with fewer plies is the game.
    let (cfg, start) = set_up(
        "2rr1bk1/p4ppp/2pn4/1pB5/3PP3/1PN3Pq/P2Q3P/2R2RK1 w - - 0 24",
        dgt(),
    );
    let s = timeline(&[
        (1060.0, "d2", None),
        (1065.0, "e2", Some('Q')),
        (1676.0, "g4", Some('q')),
        (1705.0, "h3", None),
        (1722.0, "e2", None),
        (1727.0, "f2", Some('Q')),
        (1824.0, "e6", Some('q')),
        (1881.0, "g4", None),
        (1999.0, "d7", Some('q')),
        (2029.0, "e6", None),
    ]);
    let run = run_script_with(cfg, &start, &s.wait(3000.0));
    assert_eq!(run.final_uci(), ["d2f2", "h3d7"], "{}", run.lines());
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
    assert!(
        confirm_time(&run, "h3d7") < 2029.0 + 1000.0,
        "{}",
        run.lines()
    );
}

#[test]
fn a_knocked_piece_that_a_history_with_an_unseen_piece_explains_changes_nothing() {
    // 58. Nf7+ Kg8 59. Rxa2 on a DGT board, then White's knight knocked off f7 and put back
    // 2.5 s later. With the knight off, the board reads as 58. Ng8+ Kxg8 59. Rxa2, the
    // knight's move to g8 never seen and the knight seen on f7 taken for the captured piece
    // set down near by. A history that needs a piece nobody saw, for a board that has only
    // lost a piece since the last ply, waits as long as a knocked piece may stay off.
    let (cfg, start) = set_up("7k/R5p1/R4b1N/8/1r4PP/8/p4PK1/1r6 w - - 1 58", dgt());
    let s = timeline(&[
        (1100.0, "h6", None),
        (1382.0, "f7", Some('N')),
        (1645.0, "h8", None),
        (1862.0, "g8", Some('k')),
        (2064.0, "a6", None),
        (2425.0, "a2", Some('R')),
        (3663.0, "f7", None),
        (6147.0, "f7", Some('N')),
    ]);
    let run = run_script_with(cfg, &start, &s.wait(2000.0));
    assert_eq!(run.final_uci(), ["h6f7", "h8g8", "a6a2"], "{}", run.lines());
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
}

#[test]
fn a_queen_going_back_to_take_a_pawn_on_the_square_it_left_is_followed() {
    // 60. Qe4 b4 61. Qxb4 on a DGT board, each reply quick: Black's pawn is lifted before
    // 60. Qe4 is confirmed, and it lands on b4, the square the queen left, only to be taken
    // before a scan reports it. The queen's lift off b4 belongs to 60. Qe4 alone; kept for
    // the plies after it, it stood in the way of every reading of them, and the game
    // stopped in a mismatch.
    let (cfg, start) = set_up("3k4/6K1/8/1p2P3/1Q6/8/8/8 w - - 1 60", dgt());
    let s = timeline(&[
        (921.0, "b4", None),
        (1137.0, "e4", Some('Q')),
        (1385.0, "b5", None),
        (2011.0, "e4", None),
        (2505.0, "b4", Some('Q')),
    ]);
    let run = run_script_with(cfg, &start, &s.wait(3000.0));
    assert_eq!(run.final_uci(), ["b4e4", "b5b4", "e4b4"], "{}", run.lines());
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
}

#[test]
fn victims_of_two_plies_set_down_in_turn_on_one_square_change_nothing() {
    // 24... e6 25. dxe6 Nxe6 26. Nxe6 on a DGT board: each victim is set down on e5 for a
    // moment, first Black's pawn, then White's. A black pawn seen on e5 also fits 24... e5
    // and 25. dxe6 e.p.; both victims are the confirmed plies' own, so that is no reason
    // to rewrite three plies.
    let (cfg, start) = set_up(
        "rn1q1rk1/1p1bpp2/p2p2p1/2pP2Np/2PnP3/2NB4/PP3PPP/R2QR1K1 b - - 1 12",
        dgt(),
    );
    let s = timeline(&[
        (951.0, "e7", None),
        (1165.0, "e6", Some('p')),
        (1386.0, "d5", None),
        (1413.0, "e6", None),
        (1839.0, "e5", Some('p')),
        (1870.0, "e6", Some('P')),
        (2315.0, "e5", None),
        (3616.0, "d4", None),
        (3889.0, "e6", Some('n')),
        (4099.0, "e5", Some('P')),
        (4997.0, "g5", None),
        (5004.0, "e5", None),
        (5248.0, "e6", Some('N')),
    ]);
    let run = run_script_with(cfg, &start, &s.wait(3000.0));
    assert_eq!(
        run.final_uci(),
        ["e7e6", "d5e6", "d4e6", "g5e6"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
}

#[test]
fn a_pawn_left_standing_then_taken_off_first_and_set_down_ahead_is_a_capture() {
    // 22... b6 23. cxb6 on a DGT board: b6 stands for 1.5 s, longer than any rest; White
    // lifts it off first and sets it down on b5 for a moment, then takes with the c-pawn.
    // Read as the pawn going on to b5 (a double step taken en passant), the game was
    // rewritten and stayed wrong.
    let (cfg, start) = set_up(
        "r1b1kb1r/qp1n1pp1/2p1pn1p/2Pp4/1B1P4/P3PN2/4BPPP/RN1Q1RK1 b kq - 1 11",
        dgt(),
    );
    let s = timeline(&[
        (235.0, "b7", None),
        (426.0, "b6", Some('p')),
        (1987.0, "b6", None),
        (2199.0, "b5", Some('p')),
        (2649.0, "c5", None),
        (2915.0, "b6", Some('P')),
        (3345.0, "b5", None),
        (3612.0, "b6", None),
        (3876.0, "a7", None),
        (4067.0, "b6", Some('q')),
    ]);
    let run = run_script_with(cfg, &start, &s.wait(3000.0));
    assert_eq!(run.final_uci(), ["b7b6", "c5b6", "a7b6"], "{}", run.lines());
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
}

#[test]
fn a_rest_seen_going_on_is_corrected_while_the_opponent_still_holds_a_piece() {
    // 6... Bb4 on a DGT board, the bishop resting on c5 long enough to be confirmed there;
    // White lifts the c-pawn at once, and the bishop is seen on b4 a moment later. No
    // history was weighed until White's capture on d5 and Black's recapture were down,
    // 1.4 s on: a bishop standing on b4 is proof enough while White's pawn is in the hand.
    let (cfg, start) = set_up(
        "rnbqkb1r/pp3ppp/4pn2/3p4/2PP4/2N2N2/PP3PPP/R1BQKB1R b KQkq - 1 6",
        dgt(),
    );
    let s = timeline(&[
        (887.0, "f8", None),
        (1044.0, "c5", Some('b')),
        (1880.0, "c4", None),
        (1885.0, "b4", Some('b')),
        (1907.0, "c5", None),
        (2342.0, "d5", None),
        (2816.0, "f6", None),
        (3021.0, "d5", Some('n')),
    ]);
    let run = run_script_with(cfg, &start, &s.wait(3000.0));
    assert_eq!(
        misread_before(&run, 1900.0),
        ["f8c5"],
        "the rest is confirmed first\n{}",
        run.lines()
    );
    let r = retracts(&run);
    assert_eq!(r.len(), 1, "{}", run.lines());
    assert!(
        r[0].0 < Time::from_millis(2342),
        "corrected before White's capture\n{}",
        run.lines()
    );
    assert_eq!(run.final_uci(), ["f8b4", "c4d5", "f6d5"], "{}", run.lines());
}

/// 29... Ra6 30. Rd7 Ra1+ 31. Kf2 Ra2 32. g4 on a DGT board, each reply at once, by players
/// both seen resting a slider earlier (their slides are waited for): the rook is seen on
/// a6, a5 and a3 on its ways, so readings with 29... Ra5 or 29... Ra3 (which leave the rook
/// seen on a6 unexplained) tie with the right one until the plies fill the search.
fn rook_seen_on_its_ways_while_plies_fill_the_search() -> (TrackerConfig, Board, Script) {
    let (cfg, start) = set_up(
        "r5k1/1p3p1p/3R1p2/8/r3P3/5P2/3R2PP/6K1 b - - 0 29",
        TrackerConfig {
            slide_rests: SlideRests::Always,
            ..dgt()
        },
    );
    let s = timeline(&[
        (335.0, "a4", None),
        (512.0, "a6", Some('r')),
        (524.0, "d6", None),
        (726.0, "d7", Some('R')),
        (769.0, "a5", Some('r')),
        (960.0, "a6", None),
        (988.0, "a5", None),
        (1045.0, "a3", Some('r')),
        (1284.0, "a3", None),
        (1346.0, "a1", Some('r')),
        (1598.0, "g1", None),
        (1981.0, "f2", Some('K')),
        (2205.0, "a1", None),
        (2383.0, "a2", Some('r')),
        (3068.0, "g2", None),
        (3246.0, "g4", Some('P')),
    ]);
    (cfg, start, s.wait(3000.0))
}

#[test]
fn plies_past_the_search_go_on_from_the_reading_that_accounts_for_every_piece_seen() {
    // Nothing was ever confirmed once the plies went past the search: the readings did not
    // agree on a first ply. Then, with the first ply decided, the reports of the plies
    // after it went with it, and they were read in another order (31. Kf2 before 30. Rd7).
    let (cfg, start, s) = rook_seen_on_its_ways_while_plies_fill_the_search();
    let run = run_script_with(cfg, &start, &s);
    assert_eq!(
        run.final_uci(),
        ["a4a6", "d6d7", "a6a1", "g1f2", "a1a2", "g2g4"],
        "{}",
        run.lines()
    );
}

#[test]
fn a_queen_going_out_and_back_around_a_reply_is_read() {
    // 22... Qa2 23. Qc1 Qa4 24. b3 Qa2 25. Re2 on a DGT board, each reply at once, by
    // players seen resting a slider earlier (their slides are waited for): the plies go
    // past the search before the first is confirmed, and the queen comes back to a2, so
    // only the pawn's squares differ from the game there. No ply was looked for from the
    // queen's square, and the board stayed unexplained for good.
    let (cfg, start) = set_up(
        "r5k1/q4pp1/4bb1p/1pp1p3/1n1pP1P1/3P3P/1PP2PBN/3QRNK1 b - - 4 22",
        TrackerConfig {
            slide_rests: SlideRests::Always,
            ..dgt()
        },
    );
    let s = timeline(&[
        (436.0, "a7", None),
        (947.0, "d1", None),
        (984.0, "a2", Some('q')),
        (1167.0, "c1", Some('Q')),
        (1206.0, "a2", None),
        (1237.0, "a3", Some('q')),
        (1441.0, "b2", None),
        (1470.0, "a3", None),
        (1496.0, "a4", Some('q')),
        (1899.0, "b3", Some('P')),
        (2133.0, "a4", None),
        (2296.0, "a2", Some('q')),
        (2704.0, "e1", None),
        (3175.0, "e2", Some('R')),
    ]);
    let run = run_script_with(cfg, &start, &s.wait(3000.0));
    assert_eq!(
        run.final_uci(),
        ["a7a2", "d1c1", "a2a4", "b2b3", "a4a2", "e1e2"],
        "{}",
        run.lines()
    );
}

#[test]
fn a_double_step_swept_off_by_the_capture_is_corrected_while_play_goes_on() {
    // 2... c5 3. d4 cxd4 4. c3 dxc3 on a DGT board, every reply quick: the d-pawn's step to
    // d4 is never seen (Black takes it off first and sets it down on d3 for a moment), so
    // 3. d3 is confirmed. Once Black's pawn stands on d4 and the victim is gone from d3,
    // only 3. d4 cxd4 explains the board. The board never stands still for the settle
    // window until the fourth ply is down, 1.6 s on; the correction no longer waits for it.
    let (cfg, start) = set_up(
        "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
        dgt(),
    );
    let s = timeline(&[
        (455.0, "d2", None),
        (1272.0, "d3", Some('P')),
        (1435.0, "c5", None),
        (1701.0, "d4", Some('p')),
        (2204.0, "d3", None),
        (2458.0, "c2", None),
        (2650.0, "c3", Some('P')),
        (2887.0, "c3", None),
        (3097.0, "d4", None),
        (3567.0, "c3", Some('p')),
    ]);
    let run = run_script_with(cfg, &start, &s.wait(3000.0));
    assert_eq!(
        misread_before(&run, 1700.0),
        ["d2d3"],
        "the victim set down on d3 reads as a single step first\n{}",
        run.lines()
    );
    let r = retracts(&run);
    assert_eq!(r.len(), 1, "{}", run.lines());
    assert!(
        r[0].0 < Time::from_millis(2458),
        "corrected before White's next move begins\n{}",
        run.lines()
    );
    assert_eq!(
        run.final_uci(),
        ["d2d4", "c5d4", "c2c3", "d4c3"],
        "{}",
        run.lines()
    );
}

#[test]
fn a_rook_confirmed_where_it_rested_is_corrected_when_it_takes_on_the_next_square() {
    // 16... Rfxd8 on a DGT board: the rook slides f8-e8, rests there past the settle window
    // (Re8 confirmed), then goes on to d8, sweeping White's rook off within one scan. Read
    // from the confirmed game, e8 emptied is a rook in the hand with a capture on e8 to
    // come, but one ply from before Re8 explains the whole board: corrected at once.
    let (cfg, start) = set_up(
        "r2R1rk1/p3bppp/4p3/2p5/Q3Pn2/5N2/PP3PPP/2R3K1 b - - 0 16",
        dgt(),
    );
    let s = timeline(&[
        (1080.0, "f8", None),
        (1306.0, "e8", Some('r')),
        (1994.0, "e8", None),
        (1994.5, "d8", Some('r')),
    ]);
    let run = run_script_with(cfg, &start, &s.wait(3000.0));
    assert_eq!(misread_before(&run, 1900.0), ["f8e8"], "{}", run.lines());
    let r = retracts(&run);
    assert_eq!(r.len(), 1, "{}", run.lines());
    assert!(
        r[0].0 < Time::from_millis(2300),
        "corrected once the rook is down on d8\n{}",
        run.lines()
    );
    assert_eq!(run.final_uci(), ["f8d8"], "{}", run.lines());
}
