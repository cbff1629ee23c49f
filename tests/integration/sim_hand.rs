//! The hand: reproducible, physically consistent, and covering every behaviour.

use std::collections::BTreeSet;
use std::time::Duration;

use eboardd::sim::games::{drills, real_games};
use eboardd::sim::pgn::Game;
use eboardd::sim::timeline::{Part, Squares, squares_of};
use eboardd::sim::{Behaviour, Hand, HandOptions, Performance};
use eboardd::time::Time;
use shakmaty::{Move, Position, Role, Square, attacks};

fn all_games() -> Vec<Game> {
    let mut g = real_games();
    g.extend(drills());
    g
}

fn play(game: &Game, seed: u64, opts: HandOptions) -> Performance {
    Hand::new(seed, opts)
        .play(game)
        .unwrap_or_else(|e| panic!("{}: {e}", game.name()))
}

/// Options that make the rare behaviours frequent.
fn busy() -> HandOptions {
    HandOptions {
        takeback: 0.1,
        illegal: 0.1,
        adjust: 0.2,
        ..HandOptions::torture()
    }
}

#[test]
fn the_hand_is_reproducible_from_its_seed() {
    let game = &real_games()[0];
    let a = play(game, 7, busy());
    let b = play(game, 7, busy());
    assert_eq!(a.timeline.events, b.timeline.events);
    assert_eq!(a.truth, b.truth);
    let c = play(game, 8, busy());
    assert_ne!(a.timeline.events, c.timeline.events);
}

#[test]
fn every_behaviour_appears_in_the_timelines() {
    let mut seen = BTreeSet::new();
    for game in all_games() {
        for seed in 0..6 {
            for opts in [busy(), HandOptions::messy()] {
                let p = play(&game, seed, opts);
                seen.extend(p.truth.behaviours());
            }
        }
    }
    let missing: Vec<_> = Behaviour::ALL
        .iter()
        .filter(|b| !seen.contains(b))
        .collect();
    assert!(missing.is_empty(), "never used: {missing:?}");
}

#[test]
fn the_board_after_each_move_end_is_the_games_position() {
    for game in all_games() {
        for seed in [1, 2] {
            let p = play(&game, seed, busy());
            let positions = game.positions();
            assert_eq!(p.truth.plies.len(), game.moves.len());
            for (i, ply) in p.truth.plies.iter().enumerate() {
                let board = p.timeline.state_at(ply.move_end);
                assert_eq!(
                    board,
                    squares_of(positions[i + 1].board()),
                    "{} ply {} ({})",
                    game.name(),
                    ply.ply,
                    ply.san
                );
                // Just before, the move was not yet complete.
                let before = p
                    .timeline
                    .state_at(Time::from_micros(ply.move_end.as_micros() - 1));
                assert_ne!(before, board, "{} ply {}", game.name(), ply.ply);
            }
        }
    }
}

#[test]
fn the_truth_names_every_move_in_uci_and_san() {
    let game = &drills()[5]; // Chess960, the king stays
    let p = play(game, 3, HandOptions::default());
    let uci: Vec<_> = p.truth.plies.iter().map(|p| p.uci.as_str()).collect();
    assert_eq!(uci, ["g1h1", "g8a8"]);
    assert!(p.truth.chess960);
    let json = p.truth.to_json();
    assert!(json.contains("\"move_end_ms\""), "{json}");
}

#[test]
fn physical_changes_only_lift_from_occupied_and_place_on_empty_squares() {
    for (game, opts) in all_games()
        .into_iter()
        .flat_map(|g| [(g.clone(), busy()), (g, HandOptions::messy())])
    {
        let p = play(&game, 11, opts);
        let mut board: Squares = p.timeline.start;
        let mut last = Time::ZERO;
        for e in &p.timeline.events {
            assert!(e.t >= last, "time goes back at {:?}", e);
            last = e.t;
            let before = board[e.square as usize];
            assert_ne!(before, e.piece, "a change that changes nothing: {e:?}");
            board[e.square as usize] = e.piece;
        }
    }
}

/// The events of ply `ply`'s move (the last time it was played).
fn move_events(p: &Performance, ply: u32) -> Vec<eboardd::sim::PhysicalEvent> {
    let start = p
        .truth
        .plies
        .iter()
        .find(|t| t.ply == ply)
        .map(|t| t.move_start)
        .unwrap_or(Time::ZERO);
    p.timeline
        .events
        .iter()
        .filter(|e| e.ply == ply && e.part == Part::Move && e.t >= start)
        .copied()
        .collect()
}

#[test]
fn slides_rest_on_every_transit_square() {
    let opts = HandOptions {
        slide: 1.0,
        slide_overlap: 0.0,
        flicker: 0.0,
        ..HandOptions::plain()
    };
    let game = &real_games()[0];
    let p = play(game, 5, opts);
    let positions = game.positions();
    let mut slides = 0;
    for (i, m) in game.moves.iter().enumerate() {
        let Move::Normal {
            role,
            from,
            to,
            capture: None,
            ..
        } = *m
        else {
            continue;
        };
        let transit: Vec<Square> = attacks::between(from, to).into_iter().collect();
        if !matches!(role, Role::Rook | Role::Bishop | Role::Queen) || transit.is_empty() {
            continue;
        }
        slides += 1;
        let ev = move_events(&p, i as u32 + 1);
        let piece = positions[i].board().piece_at(from);
        for sq in transit {
            let on = ev.iter().position(|e| e.square == sq && e.piece == piece);
            let off = ev.iter().position(|e| e.square == sq && e.piece.is_none());
            let (Some(on), Some(off)) = (on, off) else {
                panic!("ply {}: no transit on {sq}", i + 1);
            };
            let rest = ev[off].t - ev[on].t;
            assert!(
                rest >= Duration::from_millis(30) && rest <= Duration::from_millis(200),
                "ply {} rests {rest:?} on {sq}",
                i + 1
            );
        }
    }
    assert!(slides >= 3);
}

#[test]
fn a_capture_pushed_off_never_shows_the_square_empty() {
    let opts = HandOptions {
        capture: eboardd::sim::hand::CaptureMix {
            victim_first: 0.0,
            mover_first: 0.0,
            push_off: 1.0,
        },
        ..HandOptions::plain()
    };
    let game = &real_games()[1];
    let p = play(game, 9, opts);
    for (i, m) in game.moves.iter().enumerate() {
        if let Move::Normal {
            to,
            capture: Some(_),
            promotion: None,
            ..
        } = *m
        {
            let ev = move_events(&p, i as u32 + 1);
            assert!(
                ev.iter().all(|e| e.square != to || e.piece.is_some()),
                "ply {}: {to} was empty",
                i + 1
            );
        }
    }
}

#[test]
fn a_promotion_piece_first_stands_beside_the_pawn() {
    let opts = HandOptions {
        promotion: eboardd::sim::hand::PromotionMix {
            pawn_then_swap: 0.0,
            pawn_never_placed: 0.0,
            piece_first: 1.0,
        },
        ..HandOptions::plain()
    };
    let game = &drills()[2]; // promotions without capture
    let p = play(game, 1, opts);
    let m = game.moves[0];
    let (Some(from), to) = (m.from(), m.to()) else {
        panic!("a promotion has a from square");
    };
    let ev = move_events(&p, 1);
    let placed = ev.iter().position(|e| e.square == to).expect("placed");
    let lifted = ev.iter().position(|e| e.square == from).expect("lifted");
    assert!(placed < lifted, "the new piece comes first");
    assert_eq!(ev[placed].piece.map(|p| p.role), Some(Role::Queen));
    assert_eq!(p.truth.plies[0].move_end, ev[ev.len() - 1].t);
    assert!(ev[ev.len() - 1].square == from && ev[ev.len() - 1].piece.is_none());
}

#[test]
fn a_pawn_never_placed_on_the_last_rank_is_never_seen_there() {
    let opts = HandOptions {
        promotion: eboardd::sim::hand::PromotionMix {
            pawn_then_swap: 0.0,
            pawn_never_placed: 1.0,
            piece_first: 0.0,
        },
        ..HandOptions::plain()
    };
    let game = &drills()[1]; // promotions with capture
    let p = play(game, 4, opts);
    for e in &p.timeline.events {
        let on_last_rank = matches!(
            e.square.rank(),
            shakmaty::Rank::First | shakmaty::Rank::Eighth
        );
        assert!(
            !(on_last_rank && e.piece.is_some_and(|p| p.role == Role::Pawn)),
            "a pawn on {}",
            e.square
        );
    }
}

#[test]
fn quick_replies_lift_within_150_ms_of_the_last_move() {
    let opts = HandOptions {
        quick_reply: 1.0,
        ..HandOptions::plain()
    };
    let p = play(&real_games()[0], 2, opts);
    for w in p.truth.plies.windows(2) {
        assert!(w[1].behaviours.contains(&Behaviour::QuickReply));
        let gap = w[1].move_start - w[0].move_end;
        assert!(
            gap >= Duration::from_millis(60) && gap <= Duration::from_millis(151),
            "ply {}: {gap:?}",
            w[1].ply
        );
    }
}

#[test]
fn adjustments_are_touches_with_the_piece_put_back() {
    let opts = HandOptions {
        adjust: 1.0,
        adjust_moving_piece: 0.0,
        ..HandOptions::plain()
    };
    let p = play(&real_games()[0], 6, opts);
    assert_eq!(p.truth.touches.len(), p.truth.plies.len());
    for t in &p.truth.touches {
        let before = p
            .timeline
            .state_at(Time::from_micros(t.lifted.as_micros() - 1));
        let after = p.timeline.state_at(t.replaced);
        assert_eq!(before[t.square as usize], after[t.square as usize]);
        assert!(after[t.square as usize].is_some());
        assert_eq!(p.timeline.state_at(t.lifted)[t.square as usize], None);
    }
    // Touching another piece that could move, then moving, breaks 4.3a.
    assert!(p.truth.observations.iter().any(|o| o.article == "4.3a"));
}

#[test]
fn flicker_settles_within_30_ms() {
    let opts = HandOptions {
        flicker: 1.0,
        ..HandOptions::plain()
    };
    let p = play(&real_games()[0], 3, opts);
    let ev = &p.timeline.events;
    for w in ev.windows(2) {
        if w[0].square == w[1].square && w[1].t - w[0].t < Duration::from_millis(10) {
            // Part of a flicker burst: the burst must end within 35 ms of its start.
            let start = ev
                .iter()
                .rev()
                .find(|e| {
                    e.square == w[0].square
                        && e.t <= w[0].t
                        && w[0].t - e.t < Duration::from_millis(40)
                })
                .map(|e| e.t)
                .unwrap_or(w[0].t);
            assert!(w[1].t - start <= Duration::from_millis(40));
        }
    }
    assert!(
        p.truth
            .plies
            .iter()
            .all(|t| t.behaviours.contains(&Behaviour::Flicker))
    );
}

#[test]
fn takebacks_return_the_board_and_the_game_goes_on() {
    let opts = HandOptions {
        takeback: 0.3,
        ..HandOptions::plain()
    };
    let game = &real_games()[2];
    let p = play(game, 12, opts);
    assert!(!p.truth.takebacks.is_empty());
    let positions = game.positions();
    for tb in &p.truth.takebacks {
        let board = p.timeline.state_at(tb.end);
        assert_eq!(board, squares_of(positions[tb.ply as usize].board()));
        assert!(!tb.undone.is_empty());
    }
    assert_eq!(p.truth.plies.len(), game.moves.len());
}

#[test]
fn thinking_pauses_scale_with_speed() {
    let game = &real_games()[0];
    let slow = play(game, 4, HandOptions::plain());
    let fast = play(game, 4, HandOptions::plain().with_speed(4.0));
    let end = |p: &Performance| {
        p.truth
            .plies
            .last()
            .map(|t| t.move_end)
            .unwrap_or(Time::ZERO)
    };
    assert!(end(&fast).as_micros() * 3 < end(&slow).as_micros());
}

#[test]
fn the_result_gesture_puts_both_kings_on_the_centre_squares() {
    use eboardd::sim::pgn::parse_games;
    let opts = HandOptions {
        result_gesture: 1.0,
        ..HandOptions::plain()
    };
    let light = [Square::D5, Square::E4];
    let dark = [Square::D4, Square::E5];
    for (text, result) in [
        ("1. Nf3 Nf6 1-0", "1-0"),
        ("1. Nf3 Nf6 0-1", "0-1"),
        ("1. Nf3 Nf6 1/2-1/2", "1/2-1/2"),
    ] {
        let game = &parse_games(text).expect("parses")[0];
        let p = play(game, 1, opts);
        let r = p.truth.result.clone().expect("a gesture");
        assert_eq!(r.result, result);
        assert!(p.truth.used(Behaviour::ResultGesture));
        let board = p.timeline.state_at(r.end);
        let kings: Vec<Square> = Square::ALL
            .into_iter()
            .filter(|&s| board[s as usize].is_some_and(|p| p.role == Role::King))
            .collect();
        let on_light = kings.iter().filter(|s| light.contains(s)).count();
        let on_dark = kings.iter().filter(|s| dark.contains(s)).count();
        match result {
            "1-0" => assert_eq!(on_light, 2),
            "0-1" => assert_eq!(on_dark, 2),
            _ => assert_eq!((on_light, on_dark), (1, 1)),
        }
        assert!(r.end > p.truth.plies[1].move_end);
    }
    // Not after mate: the Opera game ends 17. Rd8#.
    let p = play(&real_games()[0], 1, opts);
    assert!(p.truth.result.is_none());
}

/// The messy hand over the real games, a few seeds each.
fn messy_performances() -> Vec<(Game, Performance)> {
    let mut out = Vec::new();
    for game in real_games() {
        for seed in 0..4 {
            let p = play(&game, seed, HandOptions::messy());
            out.push((game.clone(), p));
        }
    }
    out
}

/// The changes of `part` in `p`, in time order.
fn part_events(p: &Performance, part: Part) -> Vec<eboardd::sim::PhysicalEvent> {
    p.timeline
        .events
        .iter()
        .filter(|e| e.part == part)
        .copied()
        .collect()
}

#[test]
fn a_messy_hand_shows_every_messiness_and_ends_on_the_games_position() {
    let mut seen = BTreeSet::new();
    let (mut quick, mut replies) = (0, 0);
    for (game, p) in messy_performances() {
        seen.extend(p.truth.behaviours());
        let positions = game.positions();
        let last = positions.last().expect("a position");
        assert_eq!(
            p.timeline.state_at(p.timeline.end()),
            squares_of(last.board()),
            "{}",
            game.name()
        );
        assert_eq!(p.truth.plies.len(), game.moves.len());
        for ply in p.truth.plies.iter().skip(1) {
            replies += 1;
            quick += usize::from(ply.behaviours.contains(&Behaviour::QuickReply));
        }
        // No takebacks, no illegal moves, no touches: only accidents and captures.
        assert!(p.truth.takebacks.is_empty() && p.truth.touches.len() <= p.truth.plies.len());
    }
    for b in [
        Behaviour::SlideLongRest,
        Behaviour::VictimSetDown,
        Behaviour::Knock,
        Behaviour::QuickReply,
        Behaviour::CapturePushOff,
    ] {
        assert!(seen.contains(&b), "never used: {b}");
    }
    let share = quick as f64 / replies as f64;
    assert!((0.4..=0.7).contains(&share), "quick replies {share:.2}");
}

#[test]
fn a_messy_slide_rests_300_to_700_ms_on_one_transit_square() {
    let mut long = 0;
    for (game, p) in messy_performances() {
        let positions = game.positions();
        for ply in &p.truth.plies {
            if !ply.behaviours.contains(&Behaviour::SlideLongRest) {
                continue;
            }
            long += 1;
            let i = ply.ply as usize - 1;
            let m = game.moves[i];
            let (Some(from), to) = (m.from(), m.to()) else {
                panic!("a slide has a from square");
            };
            let piece = positions[i].board().piece_at(from);
            let ev = move_events(&p, ply.ply);
            let rests: Vec<Duration> = attacks::between(from, to)
                .into_iter()
                .filter_map(|sq| {
                    // From the first placement to the last lift (flicker in between).
                    let on = ev.iter().find(|e| e.square == sq && e.piece == piece)?;
                    let off = ev.iter().rfind(|e| e.square == sq && e.piece.is_none())?;
                    Some(off.t - on.t)
                })
                .collect();
            let long_rests = rests
                .iter()
                .filter(|&&r| r >= Duration::from_millis(300))
                .count();
            assert_eq!(long_rests, 1, "{} ply {}: {rests:?}", game.name(), ply.ply);
            assert!(
                rests.iter().all(|&r| r <= Duration::from_millis(760)),
                "{} ply {}: {rests:?}",
                game.name(),
                ply.ply
            );
        }
    }
    assert!(long >= 5, "{long} long rests");
}

#[test]
fn a_captured_piece_set_down_near_by_leaves_the_board_before_the_next_move() {
    let mut set_down = 0;
    for (game, p) in messy_performances() {
        let positions = game.positions();
        let victims = part_events(&p, Part::Victim);
        for ply in &p.truth.plies {
            let i = ply.ply as usize - 1;
            let ev: Vec<_> = victims.iter().filter(|e| e.ply == ply.ply).collect();
            if !ply.behaviours.contains(&Behaviour::VictimSetDown) {
                assert!(ev.is_empty(), "{} ply {}", game.name(), ply.ply);
                continue;
            }
            set_down += 1;
            let to = game.moves[i].to();
            let captured = positions[i].board().piece_at(to);
            assert!(captured.is_some(), "{} ply {}", game.name(), ply.ply);
            let (Some(first), Some(last)) = (ev.first(), ev.last()) else {
                panic!("{} ply {}: no victim set down", game.name(), ply.ply);
            };
            // Set down on a free square near the capture, taken off the board later.
            assert_eq!(first.piece, captured);
            assert_eq!((last.square, last.piece), (first.square, None));
            assert!(first.square != to && first.square.distance(to) <= 2);
            let stays = last.t - first.t;
            let after_move = last.t - ply.move_end;
            assert!(
                stays >= Duration::from_millis(300)
                    && (stays <= Duration::from_millis(1500)
                        || after_move <= Duration::from_millis(250)),
                "{} ply {}: {stays:?}",
                game.name(),
                ply.ply
            );
            // The move ends with its own last change; the victim is gone before the next.
            assert!(last.t > ply.move_end);
            if let Some(next) = p.truth.plies.get(i + 1) {
                assert!(last.t < next.move_start, "{} ply {}", game.name(), ply.ply);
            }
        }
    }
    assert!(set_down >= 10, "{set_down} victims set down");
}

#[test]
fn a_knocked_piece_goes_back_to_its_square_and_changes_nothing() {
    let mut knocks = 0;
    for (game, p) in messy_performances() {
        let knocked = part_events(&p, Part::Knock);
        for ply in &p.truth.plies {
            let ev: Vec<_> = knocked.iter().filter(|e| e.ply == ply.ply).collect();
            if !ply.behaviours.contains(&Behaviour::Knock) {
                assert!(ev.is_empty(), "{} ply {}", game.name(), ply.ply);
                continue;
            }
            knocks += 1;
            let (Some(first), Some(last)) = (ev.first(), ev.last()) else {
                panic!("{} ply {}: nothing knocked", game.name(), ply.ply);
            };
            let before = p
                .timeline
                .state_at(Time::from_micros(first.t.as_micros() - 1));
            assert_eq!(first.piece, None);
            assert_eq!(last.square, first.square);
            assert_eq!(last.piece, before[first.square as usize]);
            let away = last.t - first.t;
            assert!(
                away >= Duration::from_millis(500) && away <= Duration::from_millis(2500),
                "{} ply {}: {away:?}",
                game.name(),
                ply.ply
            );
            // Back before the move, on a square the move does not touch.
            assert!(last.t < ply.move_start);
            let m = game.moves[ply.ply as usize - 1];
            assert!(m.from() != Some(first.square) && m.to() != first.square);
            // An accident, not a touch.
            assert!(
                p.truth
                    .touches
                    .iter()
                    .all(|t| t.ply != ply.ply || t.square != first.square || t.lifted != first.t)
            );
        }
        // The only observations are a rook touched first when castling.
        assert!(
            p.truth
                .observations
                .iter()
                .all(|o| o.article == "4.4b" || p.truth.touches.iter().any(|t| t.ply == o.ply)),
            "{}: {:?}",
            game.name(),
            p.truth.observations
        );
    }
    assert!(knocks >= 5, "{knocks} knocks");
}

#[test]
fn a_messy_board_is_the_games_position_from_each_move_end_to_the_next_move() {
    for (game, p) in messy_performances() {
        let positions = game.positions();
        for (i, ply) in p.truth.plies.iter().enumerate() {
            let expected = squares_of(positions[i + 1].board());
            // At the move's end, only a captured piece set down near by may still stand.
            let board = p.timeline.state_at(ply.move_end);
            let victim_squares: Vec<Square> = part_events(&p, Part::Victim)
                .iter()
                .filter(|e| e.ply == ply.ply)
                .map(|e| e.square)
                .collect();
            for sq in Square::ALL {
                if !victim_squares.contains(&sq) {
                    assert_eq!(
                        board[sq as usize],
                        expected[sq as usize],
                        "{} ply {} on {sq}",
                        game.name(),
                        ply.ply
                    );
                }
            }
            // Just before the next move, knocks and victims are all done with.
            if let Some(next) = p.truth.plies.get(i + 1) {
                let before = Time::from_micros(next.move_start.as_micros() - 1);
                assert_eq!(
                    p.timeline.state_at(before),
                    expected,
                    "{} before ply {}",
                    game.name(),
                    next.ply
                );
            }
        }
    }
}

#[test]
fn messy_quick_replies_lift_60_to_180_ms_after_the_last_change() {
    for (game, p) in messy_performances() {
        for w in p.truth.plies.windows(2) {
            // A promotion may begin by fetching the new piece, before any change.
            let promotion = game.moves[w[1].ply as usize - 1].is_promotion();
            if !w[1].behaviours.contains(&Behaviour::QuickReply) || promotion {
                continue;
            }
            let last = p
                .timeline
                .events
                .iter()
                .filter(|e| e.t < w[1].move_start)
                .map(|e| e.t)
                .max()
                .expect("an earlier change");
            let gap = w[1].move_start - last;
            assert!(
                gap >= Duration::from_millis(60) && gap <= Duration::from_millis(181),
                "{} ply {}: {gap:?}",
                game.name(),
                w[1].ply
            );
        }
    }
}

#[test]
fn the_older_hands_use_none_of_the_messy_behaviours() {
    for opts in [
        HandOptions::default(),
        HandOptions::torture(),
        HandOptions::plain(),
    ] {
        assert_eq!(opts.slide_long_rest, 0.0);
        assert_eq!(opts.victim_set_down, 0.0);
        assert_eq!(opts.knock, 0.0);
        for game in real_games() {
            let p = play(&game, 3, opts);
            for b in [
                Behaviour::SlideLongRest,
                Behaviour::VictimSetDown,
                Behaviour::Knock,
            ] {
                assert!(!p.truth.used(b), "{}: {b}", game.name());
            }
        }
    }
}
