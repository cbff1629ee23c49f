//! The tracker on boards that report late or miss brief states: a DGT board scans its
//! fields one after another, so a slide's last square can be reported after the opponent's
//! lift, and a piece taken again within one scan may never be reported at all.

use std::time::Duration;

use crate::tracker_common::*;
use eboardd::tracker::TrackerConfig;
use shakmaty::Board;

/// A tracker told that the board's reports may be up to one DGT scan late.
fn scanning() -> TrackerConfig {
    TrackerConfig {
        sensor_lag: Some(Duration::from_millis(250)),
        ..TrackerConfig::default()
    }
}

#[test]
fn a_slide_s_last_square_reported_after_the_opponent_s_lift_is_the_move() {
    // 3. Bc4, the bishop sliding f1-e2-d3-c4: the board reports the transit on e2, then
    // Black's lift of g8, and only then d3 and c4 (and e2 empty) as its scan reaches them.
    let s = open_game()
        .place("e2", 'B')
        .wait(20.0)
        .lift("f1")
        .wait(100.0)
        .lift("g8")
        .wait(40.0)
        .place("d3", 'B')
        .wait(10.0)
        .lift("e2")
        .wait(30.0)
        .place("c4", 'B')
        .wait(10.0)
        .lift("d3")
        .wait(300.0)
        .place("f6", 'n');
    let run = run_script_with(scanning(), &Board::new(), &s);
    assert_eq!(
        run.final_uci(),
        ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("retract"), 0);
}

#[test]
fn with_a_scanning_board_the_opponent_s_lift_confirms_once_the_slide_has_stood_a_scan() {
    // 3. Bc4 reported at once, Black reaching out 60 ms later: the bishop could still be
    // on its way to b5, so it is confirmed when its squares have stood still one scan long.
    let s = open_game()
        .lift("f1")
        .wait(300.0)
        .place("c4", 'B')
        .wait(60.0)
        .lift("g8");
    let run = run_script_with(scanning(), &Board::new(), &s);
    let placed = 1000.0 + 4.0 * 700.0 + 300.0;
    assert_eq!(confirm_time(&run, "f1c4"), placed + 250.0);
}

#[test]
fn a_knight_is_confirmed_by_the_opponent_s_lift_at_once_even_on_a_scanning_board() {
    // A knight cannot be moving on: the scan's lag does not hold it back.
    let s = Script::new().lift("g1").wait(200.0).place("f3", 'N');
    let run = run_script_with(scanning(), &Board::new(), &s);
    assert_eq!(confirm_time(&run, "g1f3"), 1200.0);
}

#[test]
fn a_piece_taken_again_before_the_board_saw_it_is_found_when_the_board_settles() {
    // 3. Nxe5 Nxe5: White's knight lands on e5 and is taken at once (Black lifts it with
    // the victim first), so the board never reports a white knight on e5; it sees e5
    // emptied, f3 and c6 emptied, and a black knight put on e5.
    let s = open_game()
        .lift("e5")
        .wait(150.0)
        .lift("f3")
        .wait(400.0)
        .lift("c6")
        .wait(300.0)
        .place("e5", 'n');
    let run = run_script_with(scanning(), &Board::new(), &s);
    assert_eq!(
        run.final_uci(),
        ["e2e4", "e7e5", "g1f3", "b8c6", "f3e5", "c6e5"],
        "{}",
        run.lines()
    );
    // White's move needs a piece nobody saw: it is taken once the board has stood still for
    // the settle window after Black's knight was lifted, not at once.
    let black_lifts = 1000.0 + 4.0 * 700.0 + 550.0;
    let settle = eboardd::tracker::DEFAULT_SETTLE.as_secs_f64() * 1000.0;
    assert_eq!(confirm_time(&run, "f3e5"), black_lifts + settle);
}

#[test]
fn a_piece_held_in_the_hand_past_the_settle_window_is_no_stale_sensor() {
    // 3. Nxe5 with the victim lifted first, then the knight held 800 ms above the board
    // while Black does nothing: the game must not go on as though f3 were a dead sensor.
    let s = open_game()
        .lift("e5")
        .wait(100.0)
        .lift("f3")
        .wait(800.0)
        .place("e5", 'N')
        .wait(700.0)
        .lift("c6")
        .wait(200.0)
        .place("e5", 'n');
    let run = run_script(&s);
    assert_eq!(
        run.final_uci(),
        ["e2e4", "e7e5", "g1f3", "b8c6", "f3e5", "c6e5"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("mismatch"), 0);
}

#[test]
fn a_later_ply_never_lifts_a_piece_an_earlier_ply_did_not_put_down() {
    // Black castles king first (the king on g8, the rook lifted from h8 but not yet put on
    // f8) while White's bishop slides out c1-d2-...: the empty f8 is the rook still in the
    // hand, not a rook that went to f8 and left again.
    let fen = "r3k2r/pppq1ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 b kq - 0 1";
    let (cfg, first) = set_up(fen, scanning());
    let s = Script::new()
        .lift("e8")
        .wait(100.0)
        .place("g8", 'k')
        .wait(100.0)
        .lift("h8")
        .wait(200.0)
        .place("d2", 'B')
        .wait(20.0)
        .lift("c1")
        .wait(40.0)
        .place("f8", 'r')
        .wait(150.0)
        .lift("d2")
        .wait(100.0)
        .place("g5", 'B');
    let run = run_script_with(cfg, &first, &s);
    assert_eq!(run.final_uci(), ["e8g8", "c1g5"], "{}", run.lines());
    assert_eq!(run.count("retract"), 0);
}

/// The Opera game after 4. dxe5 on a scanning board: `before` is reported, then the board
/// goes away and comes back at 5 s (its whole-board report showing 4...Bxf3 5. Qxf3 played
/// and the d-pawn in the hand to take on e5), then `after` is reported.
fn back_after_4_dxe5(before: &Script, after: &Script) -> Run {
    let fen = "rn1qkbnr/ppp2ppp/3p4/4P3/4P1b1/5N2/PPP2PPP/RNBQKB1R b KQkq - 0 4";
    let (cfg, first) = set_up(fen, scanning());
    let mut t = eboardd::tracker::Tracker::new(cfg);
    t.handle_board(eboardd::time::Time::ZERO, &first);
    let mut run = run_with(&mut t, None, &before.changes, 10);
    let back = board("rn1qkbnr/ppp2ppp/8/8/4P3/5Q2/PPP2PPP/RNB1KB1R");
    t.handle_board(eboardd::time::Time::from_millis(5000), &back);
    run.events
        .extend(run_with(&mut t, None, &after.changes, 2000).events);
    run
}

#[test]
fn a_board_back_mid_move_after_plies_played_away_finds_them_in_order() {
    // The Opera game after 4. dxe5: while the board was away Black played 4...Bxf3, White
    // 5. Qxf3, and Black has the d-pawn in the hand to take on e5 when the board comes
    // back; it is put down, and White slides the bishop out at once (5...dxe5 6. Bc4).
    // The whole-board report says nothing of the order, the ply reported after it comes
    // after every ply it shows.
    let s = Script {
        ms: 5010.0,
        ..Script::default()
    }
    .place("e5", 'p')
    .wait(5.0)
    .lift("f1")
    .wait(15.0)
    .place("d3", 'B')
    .wait(15.0)
    .place("c4", 'B')
    .wait(3.0)
    .lift("d3");
    let run = back_after_4_dxe5(&Script::default(), &s);
    assert_eq!(
        run.final_uci(),
        ["g4f3", "d1f3", "d6e5", "f1c4"],
        "{}",
        run.lines()
    );
    assert_eq!(
        run.count("mismatch") + run.count("retract"),
        0,
        "{}",
        run.lines()
    );
}

#[test]
fn a_pawn_taken_before_the_board_saw_it_either_way_lets_the_game_go_on() {
    // Black's f-pawn leaves f7 and White's e5 pawn takes it on f6 before the board ever
    // reports it: 1...f6 2. exf6 and 1...f5 2. exf6 e.p. give the same position, so the
    // game goes on from it (one of the two is written) instead of stopping.
    let fen = "rnbqkbnr/pppppppp/8/4P3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2";
    let (cfg, first) = set_up(fen, scanning());
    let s = Script::new()
        .lift("f7")
        .wait(400.0)
        .lift("e5")
        .wait(200.0)
        .place("f6", 'P')
        .wait(900.0)
        .lift("g8")
        .wait(300.0)
        .place("h6", 'n');
    let run = run_script_with(cfg, &first, &s);
    let moves = run.final_uci();
    assert_eq!(moves.len(), 3, "{}", run.lines());
    assert!(moves[0] == "f7f6" || moves[0] == "f7f5", "{}", run.lines());
    assert_eq!(moves[1..], ["e5f6", "g8h6"], "{}", run.lines());
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
}

#[test]
fn a_later_ply_does_not_start_a_scan_before_the_one_it_follows() {
    // 22...Bb6 23. Bxb6 Nxb6: Black's bishop slides d8-c7-b6 and White takes it on b6
    // before the board has seen it there. Black's lift of c7 comes 320 ms before White's
    // lift of e3: more than a scan, so it is not a black ply after White's (22...Bc7
    // 23. Bb6 Bxb6 would need that); it belongs to the slide.
    let fen = "r1rb2k1/1p1n1ppp/p2p4/3Pp3/4P3/1PN1BPP1/1P2K2P/R1R5 b - - 5 22";
    let (cfg, first) = set_up(fen, scanning());
    let s = Script::new()
        .lift("d8")
        .wait(26.0)
        .place("c7", 'b')
        .wait(234.0)
        .lift("c7")
        .wait(322.0)
        .lift("e3")
        .wait(364.0)
        .place("b6", 'B')
        .wait(442.0)
        .lift("d7")
        .wait(262.0)
        .place("b6", 'n');
    let run = run_script_with(cfg, &first, &s);
    assert_eq!(run.final_uci(), ["d8b6", "e3b6", "d7b6"], "{}", run.lines());
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
}

#[test]
fn a_slide_is_not_the_move_when_its_last_square_came_a_scan_after_the_opponent_reached_out() {
    // 3. a3 d6 4. a4 played fast: the board reports a2 emptied, Black's lift of d7, a3,
    // d6, a3 emptied, then a4. 3. a4 (sliding over a3) and 3...d6 explain the same board
    // with a ply fewer, but then Black would have lifted d7 over a scan before White's
    // pawn arrived on a4: the pawn stopped on a3.
    let s = open_game()
        .lift("a2")
        .wait(186.0)
        .lift("d7")
        .wait(60.0)
        .place("a3", 'P')
        .wait(34.0)
        .place("d6", 'p')
        .wait(184.0)
        .lift("a3")
        .wait(247.0)
        .place("a4", 'P')
        .wait(600.0);
    let run = run_script_with(scanning(), &Board::new(), &s);
    assert_eq!(
        run.final_uci()[4..],
        ["a2a3", "d7d6", "a3a4"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
}

#[test]
fn plies_keep_their_order_across_more_than_one_ply() {
    // 3. a3 h6 4. b3 played fast: a2 lifted, a3, h7 lifted, b2 lifted, b3, and only then
    // h6. 3. b3 h6 4. a3 ends in the same position and each ply of it starts within a
    // scan of the one before, but it would have White's a-pawn lifted 419 ms before the
    // b-pawn that came first.
    let s = open_game()
        .lift("a2")
        .wait(175.0)
        .place("a3", 'P')
        .wait(37.0)
        .lift("h7")
        .wait(207.0)
        .lift("b2")
        .wait(5.0)
        .place("b3", 'P')
        .wait(26.0)
        .place("h6", 'p')
        .wait(600.0);
    let run = run_script_with(scanning(), &Board::new(), &s);
    assert_eq!(
        run.final_uci()[4..],
        ["a2a3", "h7h6", "b2b3"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
}

#[test]
fn a_piece_the_sensor_loses_after_its_move_does_not_hold_the_game_up() {
    // 5. O-O king first, the board reporting g1 empty again before the rook lands on f1
    // although the king stands there, and Black playing 5...d6: the castling is confirmed
    // when Black reaches out, not once the lost square has stood wrong long enough to be
    // tolerated as a stale sensor.
    let fen = "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 6 5";
    let (cfg, first) = set_up(fen, scanning());
    let s = Script::new()
        .lift("e1")
        .wait(200.0)
        .place("g1", 'K')
        .wait(100.0)
        .lift("h1")
        .wait(150.0)
        .lift("g1")
        .wait(50.0)
        .place("f1", 'R')
        .wait(300.0)
        .lift("d7")
        .wait(200.0)
        .place("d6", 'p')
        .wait(6000.0);
    let run = run_script_with(cfg, &first, &s);
    assert_eq!(confirm_time(&run, "e1g1"), 1800.0, "{}", run.lines());
    assert_eq!(run.final_uci(), ["e1g1", "d7d6"], "{}", run.lines());
}

#[test]
fn a_slide_s_transit_square_emptied_is_no_lost_piece() {
    // 3. Bb5 sliding f1-e2-b5 and Black reaching out just before the board reports b5:
    // the bishop seen on e2 and then gone was on its way, so e2 is never confirmed.
    let s = open_game()
        .place("e2", 'B')
        .wait(28.0)
        .lift("f1")
        .wait(183.0)
        .lift("e2")
        .wait(295.0)
        .lift("g8")
        .wait(73.0)
        .place("b5", 'B')
        .wait(427.0)
        .place("f6", 'n')
        .wait(600.0);
    let run = run_script_with(scanning(), &Board::new(), &s);
    assert_eq!(run.final_uci()[4..], ["f1b5", "g8f6"], "{}", run.lines());
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
}

#[test]
fn a_rook_put_back_where_the_piece_taken_at_once_came_from_is_the_third_ply() {
    // 1. Rxd7 Rxd7 2. Rd1: White's rook takes on d7 and is taken at once, before the board
    // saw it there; then White's other rook comes to d1, the square the first one left,
    // reported before h1 is reported empty (the board's scan). d1 shows a white rook again,
    // so nothing but the lifts tells that the first rook left it.
    let fen = "3rk3/3n4/8/8/8/8/8/2KR3R w - - 0 1";
    let (cfg, first) = set_up(fen, scanning());
    let s = Script::new()
        .lift("d1")
        .wait(60.0)
        .lift("d7")
        .wait(420.0)
        .lift("d8")
        .wait(25.0)
        .place("d7", 'r')
        .wait(150.0)
        .place("d1", 'R')
        .wait(13.0)
        .lift("h1")
        .wait(2000.0)
        .lift("e8")
        .wait(300.0)
        .place("e7", 'k');
    let run = run_script_with(cfg, &first, &s);
    assert_eq!(
        run.final_uci(),
        ["d1d7", "d8d7", "h1d1", "e8e7"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
}

#[test]
fn a_ply_completed_by_a_later_ply_s_piece_leaves_the_later_plies_their_reports() {
    // 9...b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 as a DGT board saw it: the pawn put on b5 was
    // taken before the board saw it there (a white knight was reported on b5 at once), so
    // the first black pawn reported on b5 is the one that took the knight. That report
    // completes 9...b5 as well; the reports of the plies after it must stay theirs.
    let fen = "rn2kb1r/pp2qppp/2p2n2/4p1B1/2B1P3/1QN5/PPP2PPP/R3K2R b KQkq - 1 9";
    let (cfg, first) = set_up(fen, scanning());
    let s = Script::new()
        .lift("b7")
        .wait(276.0)
        .place("b5", 'N')
        .wait(66.0)
        .lift("c3")
        .wait(147.0)
        .lift("c6")
        .wait(24.0)
        .lift("b5")
        .wait(220.0)
        .place("b5", 'p')
        .wait(232.0)
        .lift("b5")
        .wait(35.0)
        .lift("c4")
        .wait(205.0)
        .place("b5", 'B')
        .wait(1000.0)
        .lift("b8")
        .wait(300.0)
        .place("d7", 'n');
    let run = run_script_with(cfg, &first, &s);
    assert_eq!(
        run.final_uci(),
        ["b7b5", "c3b5", "c6b5", "c4b5", "b8d7"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
}

#[test]
fn of_two_complete_readings_the_one_that_accounts_for_every_placement_seen_is_the_move() {
    // 56...Qd6+ 57. Qb4 Qd3 in quick succession: the black queen is reported on d6, White's
    // queen is lifted before the board reports it anywhere else, and Black's queen goes on
    // to d3, resting on d5 on the way. 56...Qd5 57. Qb4 Qd3 ends in the same squares but
    // leaves the queen seen on d6 unexplained.
    let fen = "8/7p/4q1k1/1Q6/P7/K1P5/8/8 b - - 2 56";
    let (cfg, first) = set_up(fen, scanning());
    let s = Script::new()
        .place("d6", 'q')
        .wait(6.0)
        .lift("e6")
        .wait(15.0)
        .lift("b5")
        .wait(207.0)
        .lift("d6")
        .wait(31.0)
        .place("d5", 'q')
        .wait(23.0)
        .place("b4", 'Q')
        .wait(211.0)
        .lift("d5")
        .wait(55.0)
        .place("d3", 'q');
    let run = run_script_with(cfg, &first, &s);
    assert_eq!(run.final_uci(), ["e6d6", "b5b4", "d6d3"], "{}", run.lines());
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
}

#[test]
fn the_opponent_reaching_out_while_a_rook_still_slides_is_no_release() {
    // 22...Rxd1+ 23. Bxd1: Black's rook slides d8-d1, resting on d5 and on d2 on the way,
    // and White lifts the bishop to take back before the rook lands, pushing White's rook
    // off d1 with it. With the rook in the hand, 22...Rd5 23. Bxd5 explains the board too,
    // but it leaves the rook seen on d2 unexplained: it must not be confirmed.
    let fen = "3r2k1/p1p2pp1/1nn3bp/2N1p3/7P/1BP3N1/PP3PP1/3R2K1 b - - 1 22";
    let (cfg, first) = set_up(fen, scanning());
    let s = Script::new()
        .lift("d8")
        .wait(90.0)
        .place("d5", 'r')
        .wait(231.0)
        .lift("d5")
        .wait(81.0)
        .place("d2", 'r')
        .wait(203.0)
        .lift("b3")
        .wait(39.0)
        .lift("d2")
        .wait(31.0)
        .place("d1", 'r')
        .wait(439.0)
        .place("d1", 'B');
    let run = run_script_with(cfg, &first, &s);
    assert_eq!(run.final_uci(), ["d8d1", "b3d1"], "{}", run.lines());
    assert_eq!(run.count("retract"), 0, "{}", run.lines());
}

#[test]
fn two_pieces_taken_before_the_board_saw_them_are_found_when_the_board_settles() {
    // 15. Bf3 Bxf3 16. Nxf3, each capture made at once, victim first: the board never
    // reports either bishop on f3, only e2, b7 and g5 emptied and White's knight on f3.
    let fen = "rn3k2/pbpp1prp/1p4p1/6N1/8/8/PPP1BPPP/2K1R2R w - - 4 15";
    let (cfg, first) = set_up(fen, scanning());
    let s = Script::new()
        .lift("e2")
        .wait(567.0)
        .lift("b7")
        .wait(768.0)
        .lift("g5")
        .wait(287.0)
        .place("f3", 'N')
        .wait(1200.0)
        .lift("f7")
        .wait(300.0)
        .place("f6", 'p');
    let run = run_script_with(cfg, &first, &s);
    assert_eq!(
        run.final_uci(),
        ["e2f3", "b7f3", "g5f3", "f7f6"],
        "{}",
        run.lines()
    );
    assert_eq!(run.count("mismatch"), 0, "{}", run.lines());
}

#[test]
fn plies_begun_before_the_board_went_away_and_ended_while_away_are_found_in_order() {
    // The Opera game after 4. dxe5: Black lifts the bishop from g4 and White's knight is
    // taken off f3, then the board goes away. While it is away the bishop is put on f3 and
    // taken at once (5. Qxf3), and Black lifts the d-pawn and takes e5. The whole-board
    // report has no times: the lifts it shows (d1, d6, e5) may have come after those seen
    // before, so they must not put the later plies before 4...Bxf3.
    let before = Script {
        ms: 3000.0,
        ..Script::default()
    }
    .lift("g4")
    .wait(20.0)
    .lift("f3");
    // What the board had queued comes in one read: the pawn put down on e5 and White
    // already sliding the bishop out (5...dxe5 6. Bc4), then 6...Nf6.
    let after = Script {
        ms: 5024.0,
        ..Script::default()
    }
    .place("e5", 'p')
    .lift("f1")
    .place("d3", 'B')
    .wait(16.0)
    .place("c4", 'B')
    .wait(3.0)
    .lift("d3")
    .wait(660.0)
    .lift("g8")
    .wait(24.0)
    .place("f6", 'n');
    let run = back_after_4_dxe5(&before, &after);
    assert_eq!(
        run.final_uci(),
        ["g4f3", "d1f3", "d6e5", "f1c4", "g8f6"],
        "{}",
        run.lines()
    );
    assert_eq!(
        run.count("mismatch") + run.count("retract"),
        0,
        "{}",
        run.lines()
    );
}

#[test]
fn a_ply_begun_after_the_board_came_back_is_not_put_before_the_plies_played_while_away() {
    // As above, but 4...Bxf3 is seen only begun (g4 lifted) when the board goes away, and
    // what it queued after its whole-board report comes in the same read: 5...dxe5 ended and
    // 6. Bc4 slid out. Once 4...Bxf3 is confirmed, 6. Bc4 6...dxe5 7. Qxf3 would explain
    // the board as well as 5. Qxf3 dxe5 6. Bc4 did the lifts of d1 and d6 in the report
    // not come before the lift of f1 reported after it.
    let before = Script {
        ms: 3000.0,
        ..Script::default()
    }
    .lift("g4");
    let after = Script {
        ms: 5000.0,
        ..Script::default()
    }
    .place("e5", 'p')
    .lift("f1")
    .place("d3", 'B')
    .place("c4", 'B')
    .lift("d3")
    .wait(660.0)
    .lift("g8")
    .wait(31.0)
    .place("f6", 'n');
    let run = back_after_4_dxe5(&before, &after);
    assert_eq!(
        run.final_uci(),
        ["g4f3", "d1f3", "d6e5", "f1c4", "g8f6"],
        "{}",
        run.lines()
    );
    assert_eq!(
        run.count("mismatch") + run.count("retract"),
        0,
        "{}",
        run.lines()
    );
}
