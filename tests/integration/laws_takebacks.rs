//! Takebacks and the arbiter: a released piece taken back home and replaced by another
//! move is 4.7 (2014: 4.6); players taking moves back and replaying them is no breach; a
//! touch logged before a takeback does not count afterwards.

use crate::laws_common::*;
use eboardd::laws::{Edition, TouchMove};

fn report(edition: Edition, hand: &Hand) -> Run {
    run(hand, laws(edition, TouchMove::Report))
}

/// Asserts exactly one violation: (ply, article, square).
fn one(run: &Run, ply: u32, article: &str, square: Option<&str>) -> Seen {
    let v = run.violations();
    assert_eq!(v.len(), 1, "expected one violation:\n{}", run.lines());
    let s = v[0].clone();
    assert_eq!(
        (s.ply, s.article.as_str(), s.square.as_deref()),
        (ply, article, square),
        "{}",
        run.lines()
    );
    s
}

fn none(run: &Run) {
    assert!(
        run.violations().is_empty(),
        "expected no violation:\n{}",
        run.lines()
    );
}

fn taken_back_home() -> Hand {
    Hand::start()
        .play("e2", "e4", 'P')
        .play("e7", "e5", 'p')
        .play("g1", "f3", 'N')
        .play("f3", "g1", 'N')
        .play("d2", "d4", 'P')
}

#[test]
fn article_4_7_released_piece_taken_back_home_2023() {
    // 1. e4 e5 2. Nf3 released, then put back on g1 and d4 played instead: the tracker
    // sees a takeback of ply 3.
    let run = run_2023(&taken_back_home());
    let v = one(&run, 3, "4.7", Some("f3"));
    assert!(v.detail.contains("taken back to g1"), "{}", v.detail);
    assert_eq!(run.game(), ["e2e4", "e7e5", "d2d4"]);
}

#[test]
fn article_4_6_released_piece_taken_back_home_2014() {
    one(
        &report(Edition::Fide2014, &taken_back_home()),
        3,
        "4.6",
        Some("f3"),
    );
}

#[test]
fn article_4_7_agreed_takeback_of_two_plies_is_no_breach() {
    // 1. e4 e5 2. Nf3, then both moves taken back one after the other, and 1... d5.
    let hand = Hand::start()
        .play("e2", "e4", 'P')
        .play("e7", "e5", 'p')
        .play("g1", "f3", 'N')
        .play("f3", "g1", 'N')
        .play("e5", "e7", 'p')
        .play("d7", "d5", 'p');
    let run = run_2023(&hand);
    none(&run);
    assert_eq!(run.game(), ["e2e4", "d7d5"], "{}", run.lines());
}

#[test]
fn article_4_7_same_move_played_again_after_a_takeback_is_no_breach() {
    // 2. Nf3 taken back, then 2. Nf3 again: the players replaying, not a change of mind.
    let hand = Hand::start()
        .play("e2", "e4", 'P')
        .play("e7", "e5", 'p')
        .play("g1", "f3", 'N')
        .play("f3", "g1", 'N')
        .play("g1", "f3", 'N');
    let run = run_2023(&hand);
    none(&run);
    assert_eq!(run.game(), ["e2e4", "e7e5", "g1f3"]);
}

#[test]
fn article_4_3a_after_a_takeback_the_old_first_lift_does_not_count() {
    // Black lifts e7 just before White's e4 lands (the lift is logged with ply 1 and
    // belongs to ply 2); e5 is played, taken back (same player, at once), then Black touches
    // the g8 knight and plays d5: the knight was touched first, not the e7 pawn.
    let hand = Hand::start()
        .lift("e2")
        .wait(250.0)
        .lift("e7")
        .wait(50.0)
        .place("e4", 'P')
        .wait(250.0)
        .place("e5", 'p')
        .wait(300.0)
        .lift("e5")
        .wait(200.0)
        .place("e7", 'p')
        .wait(1000.0)
        .touch("g8", 'n')
        .play("d7", "d5", 'p');
    let run = run_2023(&hand);
    assert_eq!(run.game(), ["e2e4", "d7d5"], "{}", run.lines());
    one(&run, 2, "4.3a", Some("g8"));
}
