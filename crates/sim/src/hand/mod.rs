//! The hand: plays a game on a physical board the way people do, in virtual time.
//!
//! [`Hand::play`] turns a [`Game`] into a [`Performance`]: a [`Timeline`] of physical changes
//! (what truly stands on each square, and when) and the [`Truth`] a correct reconstruction
//! must report. Between moves the hand thinks (log-normal pauses), sometimes replies at
//! once, sometimes adjusts a piece or knocks one off its square and puts it back; the
//! moves themselves are made as `moves` describes; optionally it takes moves back or makes
//! an illegal move and corrects it. Everything is drawn from a seeded generator, so a seed
//! gives the same performance on every machine.
//!
//! The hand knows nothing of sensors or protocols: the board models read its timeline.

mod choreo;
pub mod live;
mod moves;
mod options;

pub use live::LiveHand;
pub use options::{CaptureMix, CastleMix, EnPassantMix, HandOptions, PromotionMix, ThinkTime};

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, EnPassantMode, Move, Position, Role, Square};

use self::choreo::Choreo;
use super::SimError;
use super::behaviour::Behaviour;
use super::pgn::Game;
use super::rng::Rng;
use super::timeline::{ClockPress, Part, Timeline, squares_of};
use super::truth::{Observation, PlyTruth, ResultTruth, TakebackTruth, Touch, Truth};
use eboardd_core::time::Time;

/// How long nothing touches a promoted piece (longer than a DGT scan, so that every board
/// reports which piece was chosen).
const SEEN_AFTER_PROMOTION: std::time::Duration = std::time::Duration::from_millis(400);

/// A seeded, reproducible hand.
#[derive(Debug, Clone)]
pub struct Hand {
    seed: u64,
    options: HandOptions,
}

/// A game as the hand played it.
#[derive(Debug, Clone)]
pub struct Performance {
    /// Every physical change.
    pub timeline: Timeline,
    /// What a correct reconstruction reports.
    pub truth: Truth,
}

impl Hand {
    /// A hand that draws from `seed` and plays with `options`.
    pub fn new(seed: u64, options: HandOptions) -> Hand {
        Hand { seed, options }
    }

    /// The options.
    pub fn options(&self) -> &HandOptions {
        &self.options
    }

    /// Plays `game` from its start position.
    pub fn play(&self, game: &Game) -> Result<Performance, SimError> {
        let start = squares_of(game.start.board());
        let mut c = Choreo::new(start, Rng::derive(self.seed, "hand"), self.options);
        let mode = game.castling_mode();
        let positions = game.positions();
        let mut truth = Truth {
            start_fen: game.start_fen(),
            chess960: game.chess960,
            ..Truth::default()
        };
        let mut played: Vec<PlyTruth> = Vec::with_capacity(game.moves.len());
        // The board settles before the first move.
        c.human(1000.0, 2500.0);
        let mut i = 0; // index of the move to play
        let mut taken_back_at: Vec<usize> = Vec::new();
        let mut quick_allowed = false;
        while i < game.moves.len() {
            let pos = &positions[i];
            let m = game.moves[i];
            c.ply = i as u32 + 1;
            c.used.clear();
            // A promoted piece stays untouched long enough for any board to see which
            // piece it is (more than one full DGT scan): the choice is the move.
            let after_promotion = i > 0 && game.moves[i - 1].is_promotion();
            let quick = quick_allowed && c.rng.chance(self.options.quick_reply);
            if quick && !after_promotion {
                c.note(Behaviour::QuickReply);
                let (lo, hi) = self.options.quick_reply_ms;
                c.pause(lo, hi);
            } else {
                let earliest = c.now + SEEN_AFTER_PROMOTION;
                let thinking = c.now;
                think(&mut c);
                if after_promotion && c.now < earliest {
                    c.now = earliest;
                }
                if c.maybe(self.options.knock) {
                    let since = if after_promotion { earliest } else { thinking };
                    knock(&mut c, pos, m, since)?;
                }
                if c.rng.chance(self.options.adjust) {
                    adjust(&mut c, pos, m, &mut truth);
                }
                if c.rng.chance(self.options.illegal) {
                    illegal_then_corrected(&mut c, pos, m)?;
                }
            }
            c.part = Part::Move;
            let first = c.events.len();
            moves::make_move(&mut c, pos, m, &mut truth.observations)?;
            let move_start = c.events.get(first).map_or(c.now, |e| e.t);
            // A captured piece set down near by and taken off later is not part of it.
            let move_end = c.events[first..]
                .iter()
                .rev()
                .find(|e| e.part == Part::Move)
                .map_or(c.now, |e| e.t);
            check_board(&c, &positions[i + 1])?;
            let clock_press = if c.rng.chance(self.options.clock_press) {
                c.human(150.0, 450.0);
                c.presses.push(ClockPress {
                    t: c.now,
                    by: pos.turn(),
                    ply: c.ply,
                });
                Some(c.now)
            } else {
                None
            };
            played.truncate(i);
            played.push(PlyTruth {
                ply: c.ply,
                uci: UciMove::from_move(m, mode).to_string(),
                san: SanPlus::from_move(pos.clone(), m).to_string(),
                move_start,
                move_end,
                clock_press,
                behaviours: c.used.clone(),
                fen_after: Fen::from_position(&positions[i + 1], EnPassantMode::Legal).to_string(),
            });
            quick_allowed = true;
            i += 1;
            // Takebacks: never of the last move, at most once at each point of the game.
            if i < game.moves.len()
                && !taken_back_at.contains(&i)
                && c.rng.chance(self.options.takeback)
            {
                taken_back_at.push(i);
                let plies = if i >= 2 && c.rng.chance(0.3) { 2 } else { 1 };
                c.human(800.0, 2500.0);
                c.part = Part::Takeback;
                c.used.clear();
                for k in 0..plies {
                    undo(&mut c, &positions[i - k], &positions[i - k - 1])?;
                    c.human(200.0, 600.0);
                }
                let end = c.last_event_time().unwrap_or(c.now);
                i -= plies;
                let mut undone = played.split_off(i);
                if let Some(last) = undone.last_mut() {
                    last.behaviours.push(Behaviour::Takeback);
                }
                truth.takebacks.push(TakebackTruth {
                    ply: i as u32,
                    end,
                    undone,
                });
                quick_allowed = false;
            }
        }
        if let Some(result) = game.result.as_deref()
            && c.rng.chance(self.options.result_gesture)
            && let Some(last) = positions.last()
        {
            c.ply = game.moves.len() as u32 + 1;
            c.part = Part::Gesture;
            truth.result = result_gesture(&mut c, last, result)?;
        }
        truth.plies = played;
        Ok(Performance {
            timeline: Timeline {
                start,
                events: c.events,
                presses: c.presses,
            },
            truth,
        })
    }
}

/// A thinking pause before a move.
fn think(c: &mut Choreo) {
    let t = c.opts.think;
    let ms = c
        .rng
        .log_normal(t.median_ms, t.sigma)
        .clamp(t.min_ms, t.max_ms.max(t.min_ms))
        / c.opts.speed();
    if ms >= 3000.0 {
        c.note(Behaviour::LongThink);
    }
    c.wait(std::time::Duration::from_micros((ms * 1000.0) as u64));
}

/// The square the player grips to make `m` (the king for castling).
fn gripped_square(m: Move) -> Option<Square> {
    m.from()
}

/// The player to move lifts one of their pieces and puts it back, then moves on.
fn adjust(c: &mut Choreo, pos: &Chess, m: Move, truth: &mut Truth) {
    let moving = gripped_square(m);
    let rook = match m {
        Move::Castle { rook, .. } => Some(rook),
        _ => None,
    };
    let ours: Vec<Square> = pos.us().into_iter().filter(|&s| Some(s) != rook).collect();
    let square = match moving {
        Some(s) if c.rng.chance(c.opts.adjust_moving_piece) => s,
        _ => {
            let others: Vec<Square> = ours
                .iter()
                .copied()
                .filter(|&s| Some(s) != moving)
                .collect();
            if others.is_empty() {
                return;
            }
            others[c.rng.index(others.len())]
        }
    };
    c.part = Part::Adjust;
    c.note(Behaviour::Adjust);
    let Ok(piece) = c.lift(square) else { return };
    let lifted = c.last_event_time().unwrap_or(c.now);
    // Held long enough for every board to see the touch (a DGT scan is up to 250 ms).
    c.pause(300.0, 700.0);
    if c.place(square, piece).is_err() {
        return;
    }
    let replaced = c.last_event_time().unwrap_or(c.now);
    truth.touches.push(Touch {
        ply: c.ply,
        square,
        lifted,
        replaced,
    });
    let can_move = pos.legal_moves().iter().any(|lm| lm.from() == Some(square));
    if Some(square) != moving && can_move {
        truth.observations.push(Observation {
            ply: c.ply,
            article: "4.3a",
            square: Some(square),
        });
    }
    c.human(300.0, 1200.0);
    c.part = Part::Move;
}

/// While the player to move thinks (from `since` to now), a piece that `m` does not touch,
/// of either colour, is knocked off its square and put back on it 0.5–2.5 s later; the
/// move comes at least 300 ms after that. Not a touch under 4.3: an accident (4.2).
fn knock(c: &mut Choreo, pos: &Chess, m: Move, since: Time) -> Result<(), SimError> {
    let mut spared = vec![m.to()];
    spared.extend(m.from());
    if let Move::EnPassant { from, to } = m {
        spared.push(Square::from_coords(to.file(), from.rank()));
    }
    let pieces: Vec<Square> = pos
        .board()
        .occupied()
        .into_iter()
        .filter(|s| !spared.contains(s))
        .collect();
    if pieces.is_empty() {
        return Ok(());
    }
    let square = pieces[c.rng.index(pieces.len())];
    // Nothing has happened since `since` (the thinking pause writes nothing), so the knock
    // may come at any moment of the pause.
    let thought = c.now;
    let soonest = since + std::time::Duration::from_millis(200);
    if soonest < thought {
        let window_ms = thought.saturating_since(soonest).as_secs_f64() * 1000.0;
        c.now = soonest + c.rng.millis(0.0, window_ms);
    }
    c.part = Part::Knock;
    c.note(Behaviour::Knock);
    let piece = c.lift(square)?;
    c.human(500.0, 2500.0);
    c.place(square, piece)?;
    c.part = Part::Move;
    c.human(300.0, 1200.0);
    if c.now < thought {
        c.now = thought;
    }
    Ok(())
}

/// The piece of `m` first put on a square it may not go to, left there a moment, then
/// taken back to its square (the move is then made normally). Only for plain moves.
fn illegal_then_corrected(c: &mut Choreo, pos: &Chess, m: Move) -> Result<(), SimError> {
    let Move::Normal {
        from,
        promotion: None,
        role,
        ..
    } = m
    else {
        return Ok(());
    };
    let legal_targets: Vec<Square> = pos
        .legal_moves()
        .iter()
        .filter(|lm| lm.from() == Some(from))
        .map(|lm| lm.to())
        .collect();
    let candidates: Vec<Square> = Square::ALL
        .into_iter()
        .filter(|&s| {
            s != from
                && c.at(s).is_none()
                && !legal_targets.contains(&s)
                && s.distance(from) <= 2
                // A pawn on the last rank would look like a promotion.
                && !(role == Role::Pawn && matches!(s.rank(), shakmaty::Rank::First | shakmaty::Rank::Eighth))
        })
        .collect();
    if candidates.is_empty() {
        return Ok(());
    }
    let wrong = candidates[c.rng.index(candidates.len())];
    c.part = Part::Illegal;
    c.note(Behaviour::IllegalThenCorrected);
    let piece = c.lift(from)?;
    c.carry(from, wrong);
    c.place(wrong, piece)?;
    c.human(500.0, 1800.0);
    c.lift(wrong)?;
    c.carry(wrong, from);
    c.place(from, piece)?;
    c.human(300.0, 900.0);
    c.part = Part::Move;
    Ok(())
}

/// Puts the board back from `after` to `before`: the pieces that arrived are lifted, then
/// the pieces that left are put back.
fn undo(c: &mut Choreo, after: &Chess, before: &Chess) -> Result<(), SimError> {
    c.note(Behaviour::Takeback);
    let a = squares_of(after.board());
    let b = squares_of(before.board());
    let differ: Vec<Square> = Square::ALL
        .into_iter()
        .filter(|&s| a[s as usize] != b[s as usize])
        .collect();
    for &s in &differ {
        if a[s as usize].is_some() {
            c.lift(s)?;
            c.human(150.0, 400.0);
        }
    }
    for &s in &differ {
        if let Some(p) = b[s as usize] {
            c.place(s, p)?;
            c.human(150.0, 400.0);
        }
    }
    Ok(())
}

/// After the last move, both kings put on the centre squares to show `result`: both on
/// light squares (d5, e4) for 1-0, both on dark (d4, e5) for 0-1, one of each for a draw.
/// Not made after mate or stalemate, when a target square holds another piece, or when a
/// king is next to its target (its placement could then pass for a king move).
fn result_gesture(
    c: &mut Choreo,
    pos: &Chess,
    result: &str,
) -> Result<Option<ResultTruth>, SimError> {
    if pos.is_checkmate() || pos.is_stalemate() {
        return Ok(None);
    }
    let light = [Square::D5, Square::E4];
    let dark = [Square::D4, Square::E5];
    let pairs: Vec<(Square, Square)> = match result {
        "1-0" => vec![(light[0], light[1]), (light[1], light[0])],
        "0-1" => vec![(dark[0], dark[1]), (dark[1], dark[0])],
        "1/2-1/2" => light
            .iter()
            .flat_map(|&l| dark.iter().flat_map(move |&d| [(l, d), (d, l)]))
            .collect(),
        _ => return Ok(None),
    };
    let board = pos.board();
    let (Some(wk), Some(bk)) = (
        board.king_of(shakmaty::Color::White),
        board.king_of(shakmaty::Color::Black),
    ) else {
        return Ok(None);
    };
    let free = |sq: Square| board.role_at(sq).is_none_or(|r| r == Role::King);
    let feasible: Vec<(Square, Square)> = pairs
        .into_iter()
        .filter(|&(w, b)| free(w) && free(b) && wk.distance(w) >= 2 && bk.distance(b) >= 2)
        .collect();
    if feasible.is_empty() {
        return Ok(None);
    }
    let (w_to, b_to) = feasible[c.rng.index(feasible.len())];
    c.used.clear();
    c.human(1000.0, 3000.0);
    let white = c.lift(wk)?;
    c.human(80.0, 250.0);
    let black = c.lift(bk)?;
    c.carry(wk, w_to);
    c.place(w_to, white)?;
    c.human(60.0, 250.0);
    c.place(b_to, black)?;
    Ok(Some(ResultTruth {
        result: result.to_string(),
        end: c.last_event_time().unwrap_or(c.now),
    }))
}

/// The board must equal the position after the move.
fn check_board(c: &Choreo, expected: &Chess) -> Result<(), SimError> {
    if c.board == squares_of(expected.board()) {
        Ok(())
    } else {
        Err(SimError::Inconsistent {
            ply: c.ply,
            detail: "the board after the move differs from the position".into(),
        })
    }
}
