//! The arbiter's claims (4.8 and its counterparts), completed illegal moves (7.5) and the
//! touch-move modes, fed with timed square changes through the board core.

use crate::laws_common::*;
use eboardd::laws::{Edition, TouchMove};

const ED: [(Edition, &str); 3] = [
    (Edition::Fide2023, "fide-2023"),
    (Edition::Fide2014, "fide-2014"),
    (Edition::FideClassic, "fide-classic"),
];

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

// ---------------------------------------------------------------- 4.8 (2014: 4.7, classic: 4.6)

fn breach_then_reply() -> Hand {
    own_piece_touched().play("e7", "e5", 'p')
}

fn check_claim_lapses(edition: Edition, article: &str) {
    let run = report(edition, &breach_then_reply());
    assert!(run.violations()[0].claimable);
    assert_eq!(run.count("claim_lapsed"), 1, "{}", run.lines());
    let line = run
        .lines()
        .lines()
        .find(|l| l.contains("claim_lapsed"))
        .unwrap_or_default()
        .to_string();
    assert!(
        line.contains("\"ply\":1") && line.contains("\"article\":\"4.3a\""),
        "{line}"
    );
    assert!(line.contains(&format!("({article})")), "{line}");
    // The claim lapsed when Black lifted the e7 pawn, before the reply was confirmed.
    assert!(line.contains("\"t_ms\":3300.0"), "{}", run.lines());
}

#[test]
fn article_4_8_claim_lapses_when_claimant_touches_2023() {
    check_claim_lapses(Edition::Fide2023, "4.8");
}

#[test]
fn article_4_7_claim_lapses_when_claimant_touches_2014() {
    check_claim_lapses(Edition::Fide2014, "4.7");
}

#[test]
fn article_4_6_claim_lapses_when_claimant_touches_classic() {
    check_claim_lapses(Edition::FideClassic, "4.6");
}

#[test]
fn article_4_6_released_piece_stays_claimable_classic() {
    // The classic text loses only claims on 3 and 4 (4.3, 4.4) to a touch.
    let hand = released_then_moved_on().play("e7", "e5", 'p');
    let run = report(Edition::FideClassic, &hand);
    one(&run, 1, "4.7", Some("f3"));
    assert_eq!(run.count("claim_lapsed"), 0, "{}", run.lines());
    let run = report(Edition::Fide2023, &hand);
    assert_eq!(run.count("claim_lapsed"), 1, "{}", run.lines());
}

#[test]
fn article_4_8_claimant_already_touching_when_reported_2023() {
    // e2-e3 waits to settle; Black lifts the e7 pawn first, which confirms it at once.
    let hand = Hand::start()
        .touch("g1", 'N')
        .lift("e2")
        .wait(300.0)
        .place("e3", 'P')
        .wait(100.0)
        .lift("e7")
        .wait(300.0)
        .place("e5", 'p')
        .wait(1000.0);
    let run = run_2023(&hand);
    let v = one(&run, 1, "4.3a", Some("g1"));
    assert!(!v.claimable, "{}", run.lines());
    assert_eq!(run.count("claim_lapsed"), 0);
}

// ---------------------------------------------------------------- 7.5

/// The white knight on e2 is pinned by the rook on e7.
const PINNED: &str = "4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1";

#[test]
fn article_7_5_king_left_in_check_named_and_game_waits_2023() {
    let hand = Hand::from_fen(PINNED)
        .play("e2", "c3", 'N')
        .wait(1000.0)
        .play("c3", "e2", 'N')
        .play("e1", "d1", 'K');
    for (e, name) in ED {
        let run = report(e, &hand);
        let v = one(&run, 1, "7.5", Some("c3"));
        assert_eq!(v.laws, name);
        assert!(v.detail.contains("e2c3"), "{}", v.detail);
        let lines = run.lines();
        assert!(
            lines.contains(r#""uci":"e2c3","san":"Nc3""#),
            "the illegal move itself: {lines}"
        );
        assert_eq!(run.game(), ["e1d1"], "{}", run.lines());
    }
}

#[test]
fn article_7_5_castling_through_check_then_king_move_2023() {
    // Castling short through f1 is completed, then replaced by a legal king move.
    let hand = Hand::from_fen(CASTLE_THROUGH_CHECK)
        .lift("e1")
        .wait(200.0)
        .place("g1", 'K')
        .wait(200.0)
        .lift("h1")
        .wait(200.0)
        .place("f1", 'R')
        .wait(1500.0)
        .play("f1", "h1", 'R')
        .play("g1", "d1", 'K');
    let run = run_2023(&hand);
    assert_eq!(run.articles(), ["7.5"], "{}", run.lines());
    assert_eq!(run.game(), ["e1d1"], "{}", run.lines());
}

// ---------------------------------------------------------------- modes

#[test]
fn enforce_withholds_the_move_until_the_touched_piece_moves() {
    let hand = Hand::start()
        .touch("g1", 'N')
        .play("e2", "e4", 'P')
        .wait(2000.0)
        .play("e4", "e2", 'P')
        .play("g1", "f3", 'N');
    let run = run(&hand, laws(Edition::Fide2023, TouchMove::Enforce));
    assert_eq!(run.articles(), ["4.3a"], "{}", run.lines());
    assert_eq!(run.count("due"), 1, "{}", run.lines());
    let lines = run.lines();
    let due = lines
        .lines()
        .find(|l| l.contains("\"due\""))
        .unwrap_or_default();
    assert!(
        due.contains("\"square\":\"g1\"") && due.contains("knight on g1"),
        "{due}"
    );
    // No move until the knight moved, and that is the move of ply 1.
    let moves: Vec<&str> = lines.lines().filter(|l| l.contains("\"move\"")).collect();
    assert_eq!(moves.len(), 1, "{lines}");
    assert!(moves[0].contains("g1f3"), "{lines}");
    assert!(
        lines.find("\"due\"") < lines.find("\"move\""),
        "the due event comes while the move is withheld:\n{lines}"
    );
}

#[test]
fn off_reports_nothing_of_article_4() {
    for hand in [
        own_piece_touched(),
        released_then_moved_on(),
        rook_then_king_castled(),
    ] {
        let run = run(&hand, laws(Edition::Fide2023, TouchMove::Off));
        none(&run);
        assert_eq!(run.count("move"), run.game().len() + run.count("retract"));
    }
}
