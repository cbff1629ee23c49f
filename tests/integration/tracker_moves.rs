//! The tracker's repertoire, one behaviour per test, driven by explicit square changes and
//! explicit times.

use crate::tracker_common::*;
use eboardd::event::GameEvent;
use eboardd::time::Time;
use eboardd::tracker::{Tracker, TrackerConfig};
use shakmaty::uci::UciMove;
use shakmaty::{Board, Role};

#[test]
fn standard_start_starts_a_game() {
    let run = run_script(&Script::new());
    assert!(matches!(
        &run.events[0].event,
        GameEvent::NewGame { chess960: false, fen } if fen == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    ));
}

#[test]
fn quiet_pawn_double_step_confirms_at_placement() {
    let s = Script::new().lift("e2").wait(300.0).place("e4", 'P');
    let run = run_script(&s);
    assert_eq!(run.final_uci(), ["e2e4"]);
    assert_eq!(confirm_time(&run, "e2e4"), 1300.0);
}

#[test]
fn knight_move_confirms_at_placement() {
    let s = Script::new().lift("g1").wait(300.0).place("f3", 'N');
    let run = run_script(&s);
    assert_eq!(confirm_time(&run, "g1f3"), 1300.0);
}

#[test]
fn piece_seen_on_new_square_before_old_square_empty() {
    let s = Script::new().place("f3", 'N').wait(40.0).lift("g1");
    let run = run_script(&s);
    assert_eq!(run.final_uci(), ["g1f3"]);
    assert_eq!(confirm_time(&run, "g1f3"), 1040.0);
}

#[test]
fn pawn_single_step_that_could_go_on_waits_for_settle() {
    let s = Script::new().lift("e2").wait(300.0).place("e3", 'P');
    let run = run_script(&s);
    assert_eq!(run.final_uci(), ["e2e3"]);
    let t = confirm_time(&run, "e2e3");
    assert_eq!(
        t,
        1300.0 + eboardd::tracker::DEFAULT_SETTLE.as_secs_f64() * 1000.0
    );
}

#[test]
fn slide_transit_square_is_never_confirmed() {
    // 1. a4 ... then Ra1-a3 slid across a2 then the rook rests on a3.
    let s = Script::new()
        .lift("a2")
        .wait(200.0)
        .place("a4", 'P')
        .wait(800.0)
        .lift("h7")
        .wait(200.0)
        .place("h6", 'p')
        .wait(800.0)
        .lift("a1")
        .wait(60.0)
        .place("a2", 'R')
        .wait(100.0)
        .lift("a2")
        .wait(20.0)
        .place("a3", 'R');
    let run = run_script(&s);
    assert_eq!(run.final_uci(), ["a2a4", "h7h6", "a1a3"]);
    assert_eq!(run.count("retract"), 0);
}

#[test]
fn slide_to_last_free_square_confirms_at_once() {
    // 1. a4 h6 2. Ra3 with a3 the last square before a4? No: the rook goes a1-a3, a4 own pawn.
    let s = Script::new()
        .lift("a2")
        .place("a4", 'P')
        .wait(800.0)
        .lift("h7")
        .place("h6", 'p')
        .wait(800.0)
        .lift("a1")
        .wait(60.0)
        .place("a2", 'R')
        .wait(80.0)
        .lift("a2")
        .wait(20.0)
        .place("a3", 'R');
    let run = run_script(&s);
    let t = confirm_time(&run, "a1a3");
    assert_eq!(t, 2760.0);
}

#[test]
fn capture_with_victim_lifted_first() {
    // 1. e4 d5 2. exd5
    let s = Script::new()
        .lift("e2")
        .place("e4", 'P')
        .wait(1000.0)
        .lift("d7")
        .place("d5", 'p')
        .wait(1000.0)
        .lift("d5")
        .wait(300.0)
        .lift("e4")
        .wait(300.0)
        .place("d5", 'P');
    let run = run_script(&s);
    assert_eq!(run.final_uci(), ["e2e4", "d7d5", "e4d5"]);
    assert_eq!(confirm_time(&run, "e4d5"), 3600.0);
}

#[test]
fn capture_with_mover_lifted_first() {
    let s = Script::new()
        .lift("e2")
        .place("e4", 'P')
        .wait(1000.0)
        .lift("d7")
        .place("d5", 'p')
        .wait(1000.0)
        .lift("e4")
        .wait(300.0)
        .lift("d5")
        .wait(300.0)
        .place("d5", 'P');
    let run = run_script(&s);
    assert_eq!(run.final_uci(), ["e2e4", "d7d5", "e4d5"]);
    assert_eq!(confirm_time(&run, "e4d5"), 3600.0);
}

#[test]
fn capture_with_victim_pushed_off() {
    let s = Script::new()
        .lift("e2")
        .place("e4", 'P')
        .wait(1000.0)
        .lift("d7")
        .place("d5", 'p')
        .wait(1000.0)
        .lift("e4")
        .wait(300.0)
        .place("d5", 'P');
    let run = run_script(&s);
    assert_eq!(run.final_uci(), ["e2e4", "d7d5", "e4d5"]);
    assert_eq!(confirm_time(&run, "e4d5"), 3300.0);
}

fn italian_to_castle() -> Script {
    // 1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5, white to castle.
    open_game()
        .lift("f1")
        .place("c4", 'B')
        .wait(700.0)
        .lift("f8")
        .place("c5", 'b')
        .wait(700.0)
}

const ITALIAN: [&str; 6] = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"];

#[test]
fn castling_king_first() {
    let s = italian_to_castle()
        .lift("e1")
        .wait(200.0)
        .place("g1", 'K')
        .wait(400.0)
        .lift("h1")
        .wait(200.0)
        .place("f1", 'R');
    let run = run_script(&s);
    let mut want: Vec<&str> = ITALIAN.to_vec();
    want.push("e1g1");
    assert_eq!(run.final_uci(), want);
    assert_eq!(run.count("retract"), 0);
}

#[test]
fn castling_rook_first() {
    let s = italian_to_castle()
        .lift("h1")
        .wait(200.0)
        .place("f1", 'R')
        .wait(500.0)
        .lift("e1")
        .wait(200.0)
        .place("g1", 'K');
    let run = run_script(&s);
    let mut want: Vec<&str> = ITALIAN.to_vec();
    want.push("e1g1");
    assert_eq!(run.final_uci(), want);
    assert_eq!(run.count("retract"), 0);
    assert_eq!(run.moves().len(), 7);
}

#[test]
fn castling_with_both_pieces_up_at_once() {
    let s = italian_to_castle()
        .lift("e1")
        .wait(30.0)
        .lift("h1")
        .wait(300.0)
        .place("g1", 'K')
        .wait(30.0)
        .place("f1", 'R');
    let run = run_script(&s);
    assert_eq!(run.final_uci().last().map(String::as_str), Some("e1g1"));
    assert_eq!(run.moves().len(), 7);
}

#[test]
fn king_stepping_to_f1_on_the_way_to_castle_is_not_confirmed() {
    let s = italian_to_castle()
        .lift("e1")
        .wait(100.0)
        .place("f1", 'K')
        .wait(120.0)
        .lift("f1")
        .wait(20.0)
        .place("g1", 'K')
        .wait(300.0)
        .lift("h1")
        .wait(200.0)
        .place("f1", 'R');
    let run = run_script(&s);
    assert_eq!(run.final_uci().last().map(String::as_str), Some("e1g1"));
    assert_eq!(run.count("retract"), 0);
}

#[test]
fn rook_move_beside_an_uncastled_king_waits_for_the_ambiguity_window() {
    // Rf1 with castling rights still there: the king might follow.
    let s = italian_to_castle().lift("h1").wait(200.0).place("f1", 'R');
    let run = run_script(&s);
    let t = confirm_time(&run, "h1f1");
    assert_eq!(t, 5400.0 + 1200.0);
}

#[test]
fn rook_move_beside_an_uncastled_king_confirms_when_the_opponent_reaches_out() {
    let s = italian_to_castle()
        .lift("h1")
        .wait(200.0)
        .place("f1", 'R')
        .wait(300.0)
        .lift("d7");
    let run = run_script(&s);
    assert_eq!(confirm_time(&run, "h1f1"), 5700.0);
}

#[test]
fn en_passant_with_pawn_removed_after() {
    // 1. e4 a6 2. e5 d5 3. exd6
    let s = Script::new()
        .lift("e2")
        .place("e4", 'P')
        .wait(500.0)
        .lift("a7")
        .place("a6", 'p')
        .wait(500.0)
        .lift("e4")
        .place("e5", 'P')
        .wait(500.0)
        .lift("d7")
        .place("d5", 'p')
        .wait(500.0)
        .lift("e5")
        .wait(200.0)
        .place("d6", 'P')
        .wait(400.0)
        .lift("d5");
    let run = run_script(&s);
    assert_eq!(run.final_uci(), ["e2e4", "a7a6", "e4e5", "d7d5", "e5d6"]);
    assert_eq!(confirm_time(&run, "e5d6"), 3600.0);
}

#[test]
fn en_passant_with_pawn_removed_before() {
    let s = Script::new()
        .lift("e2")
        .place("e4", 'P')
        .wait(500.0)
        .lift("a7")
        .place("a6", 'p')
        .wait(500.0)
        .lift("e4")
        .place("e5", 'P')
        .wait(500.0)
        .lift("d7")
        .place("d5", 'p')
        .wait(500.0)
        .lift("d5")
        .wait(300.0)
        .lift("e5")
        .wait(200.0)
        .place("d6", 'P');
    let run = run_script(&s);
    assert_eq!(run.final_uci(), ["e2e4", "a7a6", "e4e5", "d7d5", "e5d6"]);
}

fn promo_config(fen: &str) -> (TrackerConfig, Board) {
    set_up(fen, TrackerConfig::default())
}

const PROMO: &str = "8/4P2k/8/8/8/8/8/K7 w - - 0 1";

#[test]
fn promotion_with_pawn_put_on_last_rank_then_swapped() {
    let (cfg, b) = promo_config(PROMO);
    let s = Script::new()
        .lift("e7")
        .wait(200.0)
        .place("e8", 'P')
        .wait(400.0)
        .lift("e8")
        .wait(600.0)
        .place("e8", 'Q');
    let run = run_script_with(cfg, &b, &s);
    assert_eq!(run.final_uci(), ["e7e8q"]);
    assert_eq!(confirm_time(&run, "e7e8q"), 2200.0);
}

#[test]
fn promotion_with_pawn_never_put_there() {
    let (cfg, b) = promo_config(PROMO);
    let s = Script::new().lift("e7").wait(900.0).place("e8", 'Q');
    let run = run_script_with(cfg, &b, &s);
    assert_eq!(run.final_uci(), ["e7e8q"]);
}

#[test]
fn promotion_with_new_piece_put_down_before_pawn_removed() {
    let (cfg, b) = promo_config(PROMO);
    let s = Script::new().place("e8", 'Q').wait(400.0).lift("e7");
    let run = run_script_with(cfg, &b, &s);
    assert_eq!(run.final_uci(), ["e7e8q"]);
    assert_eq!(confirm_time(&run, "e7e8q"), 1400.0);
}

#[test]
fn promotion_to_a_knight_is_decided_by_the_piece_placed() {
    let (cfg, b) = promo_config(PROMO);
    let s = Script::new().lift("e7").wait(500.0).place("e8", 'N');
    let run = run_script_with(cfg, &b, &s);
    assert_eq!(run.final_uci(), ["e7e8n"]);
}

#[test]
fn promotion_with_capture() {
    let fen = "3r4/4P2k/8/8/8/8/8/K7 w - - 0 1";
    let (cfg, b) = promo_config(fen);
    let s = Script::new()
        .lift("d8")
        .wait(300.0)
        .lift("e7")
        .wait(500.0)
        .place("d8", 'R');
    let run = run_script_with(cfg, &b, &s);
    assert_eq!(run.final_uci(), ["e7d8r"]);
}

#[test]
fn occupancy_only_board_promotes_to_queen() {
    let (mut cfg, b) = promo_config(PROMO);
    cfg.piece_identity = false;
    // Placeholder pieces: everything is reported as a white pawn.
    let s = Script::new().lift("e7").wait(500.0).place("e8", 'P');
    let run = run_script_with(cfg, &b, &s);
    assert_eq!(run.final_uci(), ["e7e8q"]);
}

#[test]
fn occupancy_only_board_plays_a_capture() {
    let mut cfg = config();
    cfg.piece_identity = false;
    let p = 'P';
    let s = Script::new()
        .lift("e2")
        .place("e4", p)
        .wait(800.0)
        .lift("d7")
        .place("d5", p)
        .wait(800.0)
        .lift("e4")
        .wait(300.0)
        .lift("d5")
        .wait(300.0)
        .place("d5", p);
    let run = run_script_with(cfg, &Board::new(), &s);
    assert_eq!(run.final_uci(), ["e2e4", "d7d5", "e4d5"]);
}

#[test]
fn opponent_reaching_out_60ms_after_placement_confirms() {
    // Bc4 could slide on to b5/a6: it is confirmed when Black lifts a piece 60 ms later.
    let s = Script::new()
        .lift("e2")
        .place("e4", 'P')
        .wait(700.0)
        .lift("e7")
        .place("e5", 'p')
        .wait(700.0)
        .lift("f1")
        .wait(300.0)
        .place("c4", 'B')
        .wait(60.0)
        .lift("g8");
    let run = run_script(&s);
    assert_eq!(confirm_time(&run, "f1c4"), 1000.0 + 1400.0 + 360.0);
}

#[test]
fn several_plies_before_anything_settles() {
    // 1. e3 (could go on) e6 (could go on) 2. Ba6: nothing settles in between.
    let s = Script::new()
        .lift("e2")
        .wait(100.0)
        .place("e3", 'P')
        .wait(60.0)
        .lift("e7")
        .wait(100.0)
        .place("e6", 'p')
        .wait(60.0)
        .lift("f1")
        .wait(100.0)
        .place("a6", 'B');
    let run = run_script(&s);
    assert_eq!(run.final_uci(), ["e2e3", "e7e6", "f1a6"]);
    assert_eq!(confirm_time(&run, "e2e3"), 1160.0);
    assert_eq!(confirm_time(&run, "e7e6"), 1320.0);
}

#[test]
fn reconnect_jump_of_three_plies_found() {
    // The board comes back after 1. e4 e5 2. Qh5 (only one order is legal).
    let mut t = Tracker::new(config());
    let mut run = Run::default();
    t.handle_board(Time::ZERO, &Board::new());
    let after = board("rnbqkbnr/pppp1ppp/8/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR");
    t.handle_board(Time::from_millis(5000), &after);
    advance(&mut t, Time::from_millis(9000), &mut run);
    drain(&mut t, &mut run);
    assert_eq!(run.final_uci(), ["e2e4", "e7e5", "d1h5"]);
}

#[test]
fn ambiguous_jump_reports_mismatch() {
    // 1. Nf3 Nf6 2. Nc3 or 1. Nc3 Nf6 2. Nf3: the same board, no order to tell.
    let mut t = Tracker::new(config());
    let mut run = Run::default();
    t.handle_board(Time::ZERO, &Board::new());
    let after = board("rnbqkb1r/pppppppp/5n2/8/8/2N2N2/PPPPPPPP/R1BQKB1R");
    t.handle_board(Time::from_millis(5000), &after);
    advance(&mut t, Time::from_millis(9000), &mut run);
    drain(&mut t, &mut run);
    assert!(run.moves().is_empty(), "{}", run.lines());
    assert_eq!(run.count("mismatch"), 1, "{}", run.lines());
}

#[test]
fn takeback_to_earlier_position() {
    let s = Script::new()
        .lift("e2")
        .place("e4", 'P')
        .wait(700.0)
        .lift("e7")
        .place("e5", 'p')
        .wait(700.0)
        .lift("g1")
        .place("f3", 'N')
        .wait(1500.0)
        .lift("f3")
        .wait(300.0)
        .place("g1", 'N');
    let run = run_script(&s);
    assert_eq!(run.final_uci(), ["e2e4", "e7e5"]);
    assert!(
        run.events
            .iter()
            .any(|e| e.event == GameEvent::Takeback { ply: 2 })
    );
}

#[test]
fn confirmed_move_whose_piece_moves_on_is_retracted() {
    // 1. e4 e5 2. Bc4, confirmed after settling, then the bishop goes on to b5.
    let s = Script::new()
        .lift("e2")
        .place("e4", 'P')
        .wait(700.0)
        .lift("e7")
        .place("e5", 'p')
        .wait(700.0)
        .lift("f1")
        .wait(200.0)
        .place("c4", 'B')
        .wait(600.0)
        .lift("c4")
        .wait(100.0)
        .place("b5", 'B');
    let run = run_script(&s);
    assert_eq!(run.final_uci(), ["e2e4", "e7e5", "f1b5"]);
    assert_eq!(run.count("retract"), 1);
}

#[test]
fn piece_adjusted_on_its_square_is_not_a_move() {
    let s = Script::new()
        .lift("d1")
        .wait(300.0)
        .place("d1", 'Q')
        .wait(500.0)
        .lift("e2")
        .place("e4", 'P');
    let run = run_script(&s);
    assert_eq!(run.final_uci(), ["e2e4"]);
}

#[test]
fn flicker_as_a_piece_settles_changes_nothing() {
    let s = Script::new()
        .lift("g1")
        .wait(300.0)
        .place("f3", 'N')
        .wait(30.0)
        .lift("f3")
        .wait(20.0)
        .place("f3", 'N')
        .wait(800.0)
        .lift("e7")
        .place("e5", 'p');
    let run = run_script(&s);
    assert_eq!(run.final_uci(), ["g1f3", "e7e5"]);
    assert_eq!(run.count("mismatch"), 0);
}

#[test]
fn repeated_report_is_ignored() {
    let s = Script::new()
        .lift("e2")
        .lift("e2")
        .place("e4", 'P')
        .place("e4", 'P');
    let run = run_script(&s);
    assert_eq!(run.final_uci(), ["e2e4"]);
}

#[test]
fn board_nothing_explains_reports_mismatch_once_and_game_goes_on() {
    let s = Script::new()
        .lift("e2")
        .place("e5", 'P') // not a legal move
        .wait(3000.0)
        .lift("e5")
        .place("e4", 'P')
        .wait(1000.0)
        .lift("e7")
        .place("e5", 'p');
    let run = run_script(&s);
    assert_eq!(run.count("mismatch"), 1, "{}", run.lines());
    assert_eq!(run.final_uci(), ["e2e4", "e7e5"]);
}

#[test]
fn missing_piece_is_tolerated_and_game_goes_on() {
    // After 1. e4 the sensor of a1 goes quiet (rook reported gone), and play goes on.
    let s = Script::new()
        .lift("e2")
        .place("e4", 'P')
        .wait(100.0)
        .lift("a1")
        .wait(1500.0)
        .lift("e7")
        .place("e5", 'p')
        .wait(900.0)
        .lift("g1")
        .place("f3", 'N');
    let run = run_script(&s);
    assert_eq!(run.final_uci(), ["e2e4", "e7e5", "g1f3"]);
}

#[test]
fn kings_in_centre_gesture_gives_result() {
    let fen = "4k3/8/8/8/8/8/8/4K3 w - - 0 1";
    let (cfg, b) = promo_config(fen);
    let s = Script::new()
        .lift("e1")
        .lift("e8")
        .wait(300.0)
        .place("e4", 'K')
        .place("d5", 'k');
    let run = run_script_with(cfg, &b, &s);
    assert!(run.events.iter().any(|e| matches!(
        &e.event,
        GameEvent::Result { result, .. } if result.to_string() == "1-0"
    )));
    assert!(run.moves().is_empty());
}

#[test]
fn checkmate_gives_result() {
    let s = Script::new()
        .lift("f2")
        .place("f3", 'P')
        .wait(600.0)
        .lift("e7")
        .place("e5", 'p')
        .wait(600.0)
        .lift("g2")
        .place("g4", 'P')
        .wait(600.0)
        .lift("d8")
        .wait(100.0)
        .place("h4", 'q');
    let run = run_script(&s);
    assert!(run.events.iter().any(|e| matches!(
        &e.event,
        GameEvent::Result { result, reason } if result.to_string() == "0-1" && reason == "checkmate"
    )));
}

#[test]
fn chess960_start_starts_a_chess960_game() {
    let b = Board::chess960(0);
    let run = run_script_with(config(), &b, &Script::new());
    assert!(matches!(
        &run.events[0].event,
        GameEvent::NewGame { chess960: true, .. }
    ));
}

fn chess960_castle(start_fen: &str, lifts: &[&str], places: &[(&str, char)], want: &str) {
    let (cfg, b) = promo_config(start_fen);
    let mut s = Script::new();
    for l in lifts {
        s = s.lift(l).wait(150.0);
    }
    for (sq, p) in places {
        s = s.place(sq, *p).wait(150.0);
    }
    let run = run_script_with(cfg, &b, &s);
    assert_eq!(run.final_uci(), [want], "{}", run.lines());
    assert_eq!(run.count("retract"), 0);
}

#[test]
fn chess960_castling_king_stays_put() {
    // King on g1, rook on h1: O-O only moves the rook to f1.
    chess960_castle(
        "1r4k1/8/8/8/8/8/8/1R4KR w HB - 0 1",
        &["h1"],
        &[("f1", 'R')],
        "g1h1",
    );
}

#[test]
fn chess960_castling_rook_stays_put() {
    // King on e1, rook on d1: O-O-O puts the king on c1, the rook stays on d1.
    chess960_castle(
        "6k1/8/8/8/8/8/8/3RK3 w D - 0 1",
        &["e1"],
        &[("c1", 'K')],
        "e1d1",
    );
}

#[test]
fn chess960_castling_king_onto_rook_square() {
    // King f1, rook g1: O-O puts the king on g1 and the rook on f1 (they swap).
    chess960_castle(
        "k7/8/8/8/8/8/8/5KR1 w G - 0 1",
        &["f1", "g1"],
        &[("g1", 'K'), ("f1", 'R')],
        "f1g1",
    );
}

#[test]
fn set_up_position_from_start_fen() {
    let (cfg, b) = promo_config("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    let s = Script::new().lift("e2").place("e4", 'P');
    let run = run_script_with(cfg, &b, &s);
    assert!(
        matches!(&run.events[0].event, GameEvent::NewGame { fen, .. } if fen.starts_with("4k3/"))
    );
    assert_eq!(run.final_uci(), ["e2e4"]);
}

#[test]
fn occupancy_only_castling_rook_first() {
    let mut cfg = config();
    cfg.piece_identity = false;
    let s = italian_to_castle()
        .lift("h1")
        .wait(200.0)
        .place("f1", 'P')
        .wait(400.0)
        .lift("e1")
        .wait(200.0)
        .place("g1", 'P');
    let run = run_script_with(cfg, &Board::new(), &s);
    let mut want: Vec<&str> = ITALIAN.to_vec();
    want.push("e1g1");
    assert_eq!(run.final_uci(), want);
}

#[test]
fn clock_press_confirms_a_move_that_could_go_on() {
    let mut t = Tracker::new(config());
    let mut run = Run::default();
    t.handle_board(Time::ZERO, &Board::new());
    t.handle_change(
        Time::from_millis(1000),
        eboardd::sensing::SquareChange {
            square: sq("e2"),
            piece: None,
        },
    );
    t.handle_change(
        Time::from_millis(1200),
        eboardd::sensing::SquareChange {
            square: sq("e3"),
            piece: Some(pc('P')),
        },
    );
    drain(&mut t, &mut run);
    assert!(run.moves().is_empty());
    t.handle_clock_press(Time::from_millis(1220));
    drain(&mut t, &mut run);
    assert_eq!(run.final_uci(), ["e2e3"]);
    let _ = Role::Queen;
}

#[test]
fn reconnect_jump_of_four_plies_with_captures_found() {
    // The Opera game after 3...Bg4; the board comes back after 4. dxe5 Bxf3 5. Qxf3 dxe5,
    // the black pawn on e5 again: only the order of the captures leads there.
    let fen = "rn1qkbnr/ppp2ppp/3p4/4p3/3PP1b1/5N2/PPP2PPP/RNBQKB1R w KQkq - 1 4";
    let (cfg, first) = set_up(fen, config());
    let mut t = Tracker::new(cfg);
    let mut run = Run::default();
    t.handle_board(Time::ZERO, &first);
    let after = board("rn1qkbnr/ppp2ppp/8/4p3/4P3/5Q2/PPP2PPP/RNB1KB1R");
    t.handle_board(Time::from_millis(5000), &after);
    advance(&mut t, Time::from_millis(9000), &mut run);
    drain(&mut t, &mut run);
    assert_eq!(
        run.final_uci(),
        ["d4e5", "g4f3", "d1f3", "d6e5"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
}

/// The Opera game (Morphy, 1858), as far as 15. Bxd7+, in UCI.
const OPERA: [&str; 29] = [
    "e2e4", "e7e5", "g1f3", "d7d6", "d2d4", "c8g4", "d4e5", "g4f3", "d1f3", "d6e5", "f1c4", "g8f6",
    "f3b3", "d8e7", "b1c3", "c7c6", "c1g5", "b7b5", "c3b5", "c6b5", "c4b5", "b8d7", "e1c1", "a8d8",
    "d1d7", "d8d7", "h1d1", "e7e6", "b5d7",
];

/// A tracker that resumed the Opera game after its first `plies` plies at `at`, before
/// the board has reported.
fn resumed_opera(plies: usize, at: Time) -> Tracker {
    let moves: Vec<UciMove> = OPERA[..plies]
        .iter()
        .map(|m| m.parse().expect("uci"))
        .collect();
    let mut t = Tracker::new(config());
    t.resume(
        at,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &moves,
    )
    .expect("resumed");
    t
}

#[test]
fn a_resumed_game_first_read_after_plies_played_meanwhile_finds_those_plies() {
    // The Opera game after 12. O-O-O, resumed after a restart; the board's first report
    // comes after 12...Rd8 13. Rxd7. Until that report the board stands as the game left
    // it: the report changes four squares (a8, d8, d1, d7), not every square at once. Read
    // as every piece put down from nothing, the search for explanations filled up on the
    // rook's ways round (12...Rb8 13. Rd2 Rb8-a8 ...) and confirmed 12...Rb8.
    let mut t = resumed_opera(23, Time::ZERO);
    let mut run = Run::default();
    let read = board("3rkb1r/p2Rqppp/5n2/1B2p1B1/4P3/1Q6/PPP2PPP/2K4R");
    t.handle_board(Time::from_millis(600), &read);
    advance(&mut t, Time::from_millis(9000), &mut run);
    drain(&mut t, &mut run);
    assert_eq!(run.final_uci(), ["a8d8", "d1d7"], "{}", run.lines());
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
}

#[test]
fn a_resumed_game_first_read_mid_capture_follows_the_capture() {
    // The Opera game after 15. Bxd7+, resumed after a restart; the board's first report
    // is read while Black takes on d7 with the knight from f6: the bishop is off the board
    // and the knight in the hand. 15...Qxd7 16. Bxf6 Qe6 17. Bg5 ends in that board too,
    // four plies with two captures nobody played; the knight is put down on d7 a
    // millisecond after the report.
    let mut t = resumed_opera(29, Time::ZERO);
    let mut run = Run::default();
    let read = board("4kb1r/p4ppp/4q3/4p1B1/4P3/1Q6/PPP2PPP/2KR4");
    t.handle_board(Time::from_millis(600), &read);
    t.handle_change(
        Time::from_millis(601),
        eboardd::sensing::SquareChange {
            square: shakmaty::Square::D7,
            piece: Some(shakmaty::Piece::from_char('n').expect("piece")),
        },
    );
    advance(&mut t, Time::from_millis(9000), &mut run);
    drain(&mut t, &mut run);
    assert_eq!(run.final_uci(), ["f6d7"], "{}", run.lines());
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
}

#[test]
fn a_board_read_mid_move_after_plies_away_waits_for_the_piece_in_the_hand() {
    // The Opera game after 5...dxe5, resumed; the board was away for 6. Bc4 Nf6 and is read
    // with White's queen in the hand; 6. Qf6 Nxf6 7. Bc4 ends in that board too, but the
    // queen is put down on b3 40 ms after the read: after every change the read shows.
    let mut t = resumed_opera(10, Time::from_millis(50));
    let mut run = Run::default();
    let read = board("rn1qkb1r/ppp2ppp/5n2/4p3/2B1P3/8/PPP2PPP/RNB1K2R");
    t.handle_board(Time::from_millis(100), &read);
    advance(&mut t, Time::from_millis(130), &mut run);
    assert!(run.moves().is_empty(), "{}", run.lines());
    t.handle_change(
        Time::from_millis(140),
        eboardd::sensing::SquareChange {
            square: shakmaty::Square::B3,
            piece: Some(shakmaty::Piece::from_char('Q').expect("piece")),
        },
    );
    advance(&mut t, Time::from_millis(9000), &mut run);
    drain(&mut t, &mut run);
    assert_eq!(run.final_uci(), ["f1c4", "g8f6", "f3b3"], "{}", run.lines());
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
}
