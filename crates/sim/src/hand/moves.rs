//! How one legal move is made with the hand: the physical sequence for each kind of move.
//!
//! Quiet moves are lifted and placed or slid; captures are made victim first, mover first
//! or by pushing the victim off; en passant removes the captured pawn before, during or
//! after; castling goes king first, rook first or both up, including the Chess960 cases
//! where a piece stays put or lands on the other's square; promotion follows the 2023
//! Laws (4.6): pawn placed then swapped, pawn never placed, or the new piece first. A
//! captured piece may be set down near by and taken off the board once the move is
//! complete (those changes are not part of the move). Every function leaves the board in
//! the position after the move and notes what it did.
//! Only one hand is used (4.1): it may hold several pieces, but never holds one piece on a
//! square while it handles another.

use shakmaty::{Chess, Color, Move, Piece, Position, Role, Square, attacks};

use super::choreo::Choreo;
use crate::SimError;
use crate::behaviour::Behaviour;
use crate::timeline::Part;
use crate::truth::Observation;
use eboardd_core::time::Time;

/// How a capture's victim is dealt with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CaptureStyle {
    VictimFirst,
    MoverFirst,
    PushOff,
}

/// Makes `m` from `pos` on the board. Observations of Article 4 it causes are pushed to
/// `obs`.
pub(crate) fn make_move(
    c: &mut Choreo,
    pos: &Chess,
    m: Move,
    obs: &mut Vec<Observation>,
) -> Result<(), SimError> {
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion: Some(promo),
        } => promotion(c, pos.turn(), role, from, to, capture.is_some(), promo),
        Move::Normal {
            from,
            capture: Some(_),
            to,
            ..
        } => capture_move(c, from, to),
        Move::Normal { from, to, .. } => quiet_move(c, from, to),
        Move::EnPassant { from, to } => en_passant(c, from, to),
        Move::Castle { king, rook } => castle(c, pos.turn(), m, king, rook, obs),
        Move::Put { .. } => Err(SimError::Inconsistent {
            ply: c.ply,
            detail: "drops are not chess moves".into(),
        }),
    }
}

/// The transit squares from `from` to `to` in order, when the piece there can slide.
fn transit_squares(c: &Choreo, from: Square, to: Square) -> Vec<Square> {
    let slider = matches!(
        c.at(from).map(|p| p.role),
        Some(Role::Rook | Role::Bishop | Role::Queen)
    );
    if !slider {
        return Vec::new();
    }
    let mut squares: Vec<Square> = attacks::between(from, to).into_iter().collect();
    squares.sort_by_key(|s| s.distance(from));
    squares
}

/// Whether to slide this move (draws only when a slide is possible).
fn wants_slide(c: &mut Choreo, from: Square, to: Square) -> bool {
    !transit_squares(c, from, to).is_empty() && c.rng.chance(c.opts.slide)
}

/// Slides the piece on `from` to `to` across the transit squares, resting 30–150 ms on
/// each (300–700 ms on one of them, sometimes: the hand stays on the piece a moment
/// before it goes on). If `to` is occupied, the last step pushes that piece off.
fn slide(c: &mut Choreo, from: Square, to: Square) -> Result<(), SimError> {
    let piece = c.at(from).ok_or_else(|| SimError::Inconsistent {
        ply: c.ply,
        detail: format!("slide from empty {from}"),
    })?;
    c.note(Behaviour::Slide);
    let mut path = vec![from];
    path.extend(transit_squares(c, from, to));
    path.push(to);
    let transits = path.len() - 2;
    let long_rest = if c.maybe(c.opts.slide_long_rest) {
        Some(path[1 + c.rng.index(transits)])
    } else {
        None
    };
    for step in path.windows(2) {
        let (cur, next) = (step[0], step[1]);
        if next == to && c.at(to).is_some() {
            c.lift(cur)?;
            c.pause(5.0, 25.0);
            c.push_off(to, piece)?;
            c.note(Behaviour::CapturePushOff);
        } else if c.rng.chance(c.opts.slide_overlap) {
            // The piece straddles the line: seen on the next square first.
            c.note(Behaviour::SlideOverlap);
            c.place(next, piece)?;
            c.pause(2.0, 15.0);
            c.lift(cur)?;
        } else {
            c.lift(cur)?;
            c.pause(5.0, 30.0);
            c.place(next, piece)?;
        }
        if Some(next) == long_rest {
            c.note(Behaviour::SlideLongRest);
            c.pause(300.0, 700.0);
        } else if next != to {
            c.pause(30.0, 150.0);
        }
    }
    Ok(())
}

/// Lifts and places (or slides) a piece to an empty square.
fn quiet_move(c: &mut Choreo, from: Square, to: Square) -> Result<(), SimError> {
    if wants_slide(c, from, to) {
        return slide(c, from, to);
    }
    c.note(Behaviour::LiftPlace);
    let piece = c.lift(from)?;
    c.carry(from, to);
    c.place(to, piece)
}

fn capture_style(c: &mut Choreo) -> CaptureStyle {
    let m = c.opts.capture;
    match c.rng.weighted(&[m.victim_first, m.mover_first, m.push_off]) {
        Some(1) => CaptureStyle::MoverFirst,
        Some(2) => CaptureStyle::PushOff,
        _ => CaptureStyle::VictimFirst,
    }
}

/// Takes the victim off `sq` and puts it aside.
fn remove_victim(c: &mut Choreo, sq: Square) -> Result<(), SimError> {
    c.lift(sq)?;
    c.human(150.0, 400.0);
    Ok(())
}

/// Where the captured piece on `to` is set down, if the hand does so this time: a free
/// square within two squares of `to`, off the mover's way.
fn set_down_square(c: &mut Choreo, from: Square, to: Square) -> Option<Square> {
    if !c.maybe(c.opts.victim_set_down) {
        return None;
    }
    let way = attacks::between(from, to);
    let free: Vec<Square> = Square::ALL
        .into_iter()
        .filter(|&s| {
            s != to && s != from && s.distance(to) <= 2 && c.at(s).is_none() && !way.contains(s)
        })
        .collect();
    if free.is_empty() {
        return None;
    }
    c.note(Behaviour::VictimSetDown);
    Some(free[c.rng.index(free.len())])
}

/// Sets the captured piece down on `near` (not part of the move); returns when.
fn set_down(c: &mut Choreo, near: Square, victim: Piece) -> Result<Time, SimError> {
    let part = std::mem::replace(&mut c.part, Part::Victim);
    let first = c.events.len();
    let placed = c.place(near, victim);
    c.part = part;
    placed?;
    Ok(c.events.get(first).map_or(c.now, |e| e.t))
}

/// Takes the captured piece set down on `near` at `down` off the board: 0.3–1.5 s after it
/// was set down, and not before the move is complete (a moment after, if it took longer).
fn take_off(c: &mut Choreo, near: Square, down: Time) -> Result<(), SimError> {
    let s = c.opts.speed();
    let after_move = c.rng.millis(80.0 / s, 250.0 / s);
    let soonest = (c.now + after_move).saturating_since(down).as_secs_f64() * 1000.0;
    let lo = soonest.max(300.0 / s);
    let stays = c.rng.millis(lo, lo.max(1500.0 / s));
    let at = down + stays;
    if c.now < at {
        c.now = at;
    }
    let part = std::mem::replace(&mut c.part, Part::Victim);
    let lifted = c.lift(near);
    c.part = part;
    lifted.map(|_| ())
}

/// A capture on `to` by the piece on `from` (not a promotion). The captured piece is
/// sometimes set down near by and taken off the board once the move is complete.
fn capture_move(c: &mut Choreo, from: Square, to: Square) -> Result<(), SimError> {
    let victim = c.at(to).ok_or_else(|| SimError::Inconsistent {
        ply: c.ply,
        detail: format!("capture on empty {to}"),
    })?;
    let near = set_down_square(c, from, to);
    match capture_style(c) {
        CaptureStyle::VictimFirst => {
            c.note(Behaviour::CaptureVictimFirst);
            let Some(near) = near else {
                remove_victim(c, to)?;
                return quiet_move(c, from, to);
            };
            c.lift(to)?;
            c.human(150.0, 400.0);
            let down = set_down(c, near, victim)?;
            c.human(150.0, 400.0);
            quiet_move(c, from, to)?;
            take_off(c, near, down)
        }
        CaptureStyle::MoverFirst => {
            c.note(Behaviour::CaptureMoverFirst);
            let piece = c.lift(from)?;
            c.carry(from, to);
            c.lift(to)?;
            let Some(near) = near else {
                c.human(100.0, 300.0);
                return c.place(to, piece);
            };
            c.human(100.0, 300.0);
            let down = set_down(c, near, victim)?;
            c.human(100.0, 300.0);
            c.place(to, piece)?;
            take_off(c, near, down)
        }
        CaptureStyle::PushOff => {
            if wants_slide(c, from, to) {
                slide(c, from, to)?;
            } else {
                c.note(Behaviour::CapturePushOff);
                let piece = c.lift(from)?;
                c.carry(from, to);
                c.push_off(to, piece)?;
            }
            let Some(near) = near else { return Ok(()) };
            c.human(100.0, 300.0);
            let down = set_down(c, near, victim)?;
            take_off(c, near, down)
        }
    }
}

/// En passant: the pawn from `from` to `to`, the captured pawn beside `from`.
fn en_passant(c: &mut Choreo, from: Square, to: Square) -> Result<(), SimError> {
    let victim = Square::from_coords(to.file(), from.rank());
    let m = c.opts.en_passant;
    match c.rng.weighted(&[m.before, m.between, m.after]) {
        Some(0) => {
            c.note(Behaviour::EnPassantVictimBefore);
            remove_victim(c, victim)?;
            let pawn = c.lift(from)?;
            c.carry(from, to);
            c.place(to, pawn)
        }
        Some(1) => {
            c.note(Behaviour::EnPassantVictimBetween);
            let pawn = c.lift(from)?;
            c.human(100.0, 250.0);
            c.lift(victim)?;
            c.human(100.0, 300.0);
            c.place(to, pawn)
        }
        _ => {
            c.note(Behaviour::EnPassantVictimAfter);
            let pawn = c.lift(from)?;
            c.carry(from, to);
            c.place(to, pawn)?;
            c.human(150.0, 500.0);
            c.lift(victim).map(|_| ())
        }
    }
}

/// Castling with the king on `king` and the rook on `rook` (shakmaty's encoding).
fn castle(
    c: &mut Choreo,
    color: Color,
    m: Move,
    king: Square,
    rook: Square,
    obs: &mut Vec<Observation>,
) -> Result<(), SimError> {
    let side = m.castling_side().ok_or_else(|| SimError::Inconsistent {
        ply: c.ply,
        detail: "castling move without a side".into(),
    })?;
    let king_to = side.king_to(color);
    let rook_to = side.rook_to(color);
    if king == king_to {
        c.note(Behaviour::Castle960KingStays);
        return shift(c, rook, rook_to);
    }
    if rook == rook_to {
        c.note(Behaviour::Castle960RookStays);
        return shift(c, king, king_to);
    }
    let king_first_ok = king_to != rook;
    let rook_first_ok = rook_to != king;
    if !king_first_ok || !rook_first_ok {
        c.note(Behaviour::Castle960Crossing);
    }
    let mix = c.opts.castle;
    let weights = [
        if king_first_ok { mix.king_first } else { 0.0 },
        if rook_first_ok { mix.rook_first } else { 0.0 },
        mix.both_up,
    ];
    match c.rng.weighted(&weights) {
        Some(0) => {
            c.note(Behaviour::CastleKingFirst);
            shift(c, king, king_to)?;
            c.human(150.0, 450.0);
            shift(c, rook, rook_to)
        }
        Some(1) => {
            c.note(Behaviour::CastleRookFirst);
            obs.push(Observation {
                ply: c.ply,
                article: "4.4b",
                square: None,
            });
            shift(c, rook, rook_to)?;
            c.human(150.0, 450.0);
            shift(c, king, king_to)
        }
        _ => {
            c.note(Behaviour::CastleBothUp);
            let k = c.lift(king)?;
            c.human(80.0, 250.0);
            let r = c.lift(rook)?;
            c.carry(king, king_to);
            if c.rng.chance(0.5) {
                c.place(king_to, k)?;
                c.human(60.0, 250.0);
                c.place(rook_to, r)
            } else {
                c.place(rook_to, r)?;
                c.human(60.0, 250.0);
                c.place(king_to, k)
            }
        }
    }
}

/// Lifts the piece on `from` and places it on `to` (never a slide).
fn shift(c: &mut Choreo, from: Square, to: Square) -> Result<(), SimError> {
    let p = c.lift(from)?;
    c.carry(from, to);
    c.place(to, p)
}

/// Promotion of the pawn on `from` on `to`, to `promo`, capturing if `capture`.
fn promotion(
    c: &mut Choreo,
    color: Color,
    role: Role,
    from: Square,
    to: Square,
    capture: bool,
    promo: Role,
) -> Result<(), SimError> {
    let pawn = Piece { color, role };
    let new = Piece { color, role: promo };
    if promo != Role::Queen {
        c.note(Behaviour::Underpromotion);
    }
    let style = if capture {
        Some(capture_style(c))
    } else {
        None
    };
    match style {
        Some(CaptureStyle::VictimFirst) => c.note(Behaviour::CaptureVictimFirst),
        Some(CaptureStyle::MoverFirst) => c.note(Behaviour::CaptureMoverFirst),
        Some(CaptureStyle::PushOff) => c.note(Behaviour::CapturePushOff),
        None => {}
    }
    if style == Some(CaptureStyle::VictimFirst) {
        remove_victim(c, to)?;
    }
    // Puts `piece` on the promotion square, dealing with a victim still there.
    let arrive = |c: &mut Choreo, piece: Piece| -> Result<(), SimError> {
        match style {
            Some(CaptureStyle::MoverFirst) if c.at(to).is_some() => {
                c.lift(to)?;
                c.human(100.0, 300.0);
                c.place(to, piece)
            }
            Some(CaptureStyle::PushOff) if c.at(to).is_some() => c.push_off(to, piece).map(|_| ()),
            _ => c.place(to, piece),
        }
    };
    let mix = c.opts.promotion;
    match c
        .rng
        .weighted(&[mix.pawn_then_swap, mix.pawn_never_placed, mix.piece_first])
    {
        Some(1) => {
            // 4.6a: the pawn never touches the promotion square.
            c.note(Behaviour::PromotionPawnNeverPlaced);
            c.lift(from)?;
            c.human(300.0, 900.0); // exchanging the pawn for the new piece
            arrive(c, new)
        }
        Some(2) => {
            // 4.6b: the new piece first, then the pawn taken off its seventh-rank square.
            c.note(Behaviour::PromotionPieceFirst);
            c.human(200.0, 600.0); // fetching the new piece
            arrive(c, new)?;
            c.human(150.0, 600.0);
            c.lift(from).map(|_| ())
        }
        _ => {
            c.note(Behaviour::PromotionPawnThenSwap);
            c.lift(from)?;
            c.carry(from, to);
            arrive(c, pawn)?;
            c.human(200.0, 700.0);
            c.lift(to)?;
            c.human(250.0, 800.0);
            c.place(to, new)
        }
    }
}
