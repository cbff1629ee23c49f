//! Reading one ply's sensor log as acts of a hand: which pieces were touched and in what
//! order, where pieces were put down, and which put-down pieces were picked up again and
//! carried on.
//!
//! The board sees lifts and placements, never the hand: a lift is a touch, a touch without a
//! lift is invisible. A piece is *touched* the first time its square, as it stood when the
//! ply began, loses it; lifting it again later is the same touch. A piece put down is
//! *resting*; a resting piece lifted again and put down on another square was *carried on*.
//! This module knows the position the ply started from and nothing of rules, editions,
//! events or time sources.

use std::time::Duration;

use shakmaty::{Bitboard, Board, Color, Piece, Square};

use crate::time::Time;
use crate::tracker::game::SquareEvent;

/// A piece lifted from the square it stood on when the ply began (its first lift).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Touch {
    /// Its square when the ply began.
    pub square: Square,
    /// The piece (from the game position, so real even on occupancy-only boards).
    pub piece: Piece,
    /// When the lift was reported.
    pub t: Time,
}

/// A piece put down on a square, then lifted again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rest {
    /// The piece, when known (a placeholder on occupancy-only boards).
    pub piece: Piece,
    /// The square it stood on when the ply began.
    pub origin: Square,
    /// Where it rested.
    pub square: Square,
    /// When it was put down there.
    pub placed: Time,
    /// When it was lifted again.
    pub lifted: Time,
    /// Where it was put down next, if it was.
    pub next: Option<Square>,
}

/// A piece put down during the ply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// The square.
    pub square: Square,
    /// The piece as reported.
    pub piece: Piece,
    /// The square the piece came from, when it can be told (a piece from off the board, as
    /// in a promotion, has none).
    pub origin: Option<Square>,
    /// When it was reported.
    pub t: Time,
}

/// One ply's log, read.
#[derive(Debug, Clone, Default)]
pub struct Reading {
    /// The touches, in the order reported.
    pub touches: Vec<Touch>,
    /// Pieces that rested somewhere and were lifted again, in the order of their lift.
    pub rests: Vec<Rest>,
    /// Every placement, in order.
    pub placements: Vec<Placement>,
}

impl Reading {
    /// The touch of the piece that stood on `square` when the ply began, if it was touched.
    pub fn touch_at(&self, square: Square) -> Option<&Touch> {
        self.touches.iter().find(|t| t.square == square)
    }
}

/// The lifts in `prev`, the log of the ply before, that belong to the next ply: lifts of the
/// next mover's pieces (as they stand in `before`, the position after that ply) reported at
/// most `margin` before that ply's last event (a board reports one scan's changes in its own
/// order, so the next player may already have touched a piece), with the later events of
/// those squares. Earlier lifts were made in the opponent's time and are no touch-move
/// matter.
pub fn carried(
    prev: &[SquareEvent],
    before: &Board,
    mover: Color,
    margin: Duration,
) -> Vec<SquareEvent> {
    let Some(end) = prev.last().map(|e| e.t) else {
        return Vec::new();
    };
    let mut squares = Bitboard::EMPTY;
    let mut out = Vec::new();
    for ev in prev {
        let ours = before.piece_at(ev.square).is_some_and(|p| p.color == mover);
        if ev.before.is_some() && ev.after.is_none() && ours && ev.t + margin > end {
            squares.add(ev.square);
        }
        if squares.contains(ev.square) {
            out.push(*ev);
        }
    }
    out
}

/// Reads `log`, the events of one ply, played from `board` by `mover`. `identity`: whether
/// the board reports which piece stands on a square (else pieces are placeholders and the
/// piece put down is taken to be the mover's latest piece in hand).
pub fn read(board: &Board, mover: Color, log: &[SquareEvent], identity: bool) -> Reading {
    let mut out = Reading::default();
    let mut left = Bitboard::EMPTY;
    // Pieces in hand: (piece, origin), in the order lifted.
    let mut hand: Vec<(Piece, Square)> = Vec::new();
    // What rests on each square since it was put down this ply: (piece, origin, time).
    let mut resting: [Option<(Piece, Square, Time)>; 64] = [None; 64];
    // Rests whose piece is in hand, waiting to see where it goes (index into out.rests).
    let mut open: Vec<usize> = Vec::new();

    for ev in log {
        let i = ev.square.to_usize();
        if ev.before.is_some() {
            if let Some((piece, origin, placed)) = resting[i].take() {
                out.rests.push(Rest {
                    piece,
                    origin,
                    square: ev.square,
                    placed,
                    lifted: ev.t,
                    next: None,
                });
                open.push(out.rests.len() - 1);
                hand.push((piece, origin));
            } else if let Some(piece) = board
                .piece_at(ev.square)
                .filter(|_| !left.contains(ev.square))
            {
                left.add(ev.square);
                out.touches.push(Touch {
                    square: ev.square,
                    piece,
                    t: ev.t,
                });
                hand.push((piece, ev.square));
            }
        }
        let Some(placed) = ev.after else { continue };
        let pick = if identity {
            hand.iter().rposition(|&(p, _)| p == placed)
        } else {
            hand.iter()
                .rposition(|&(p, _)| p.color == mover)
                .or_else(|| hand.len().checked_sub(1))
        };
        let (piece, origin) = match pick {
            Some(k) => {
                let (p, o) = hand.remove(k);
                (if identity { placed } else { p }, Some(o))
            }
            None => (placed, None),
        };
        if let Some(origin) = origin {
            if let Some(k) = open
                .iter()
                .rposition(|&r| out.rests[r].origin == origin && out.rests[r].piece == piece)
            {
                let r = open.remove(k);
                out.rests[r].next = Some(ev.square);
            }
            resting[i] = Some((piece, origin, ev.t));
        }
        out.placements.push(Placement {
            square: ev.square,
            piece,
            origin,
            t: ev.t,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap_or(Square::A1)
    }

    fn ev(ms: u64, s: &str, before: Option<char>, after: Option<char>) -> SquareEvent {
        SquareEvent {
            t: Time::from_millis(ms),
            square: sq(s),
            before: before.and_then(Piece::from_char),
            after: after.and_then(Piece::from_char),
            whole: false,
        }
    }

    #[test]
    fn touched_piece_put_back_then_another_moved() {
        let log = [
            ev(0, "g1", Some('N'), None),
            ev(500, "g1", None, Some('N')),
            ev(900, "e2", Some('P'), None),
            ev(1200, "e4", None, Some('P')),
        ];
        let r = read(&Board::new(), Color::White, &log, true);
        let touched: Vec<Square> = r.touches.iter().map(|t| t.square).collect();
        assert_eq!(touched, [sq("g1"), sq("e2")]);
        // Lifting the knight again would not be a new touch.
        assert_eq!(r.rests.len(), 0);
        assert_eq!(r.placements[1].origin, Some(sq("e2")));
    }

    #[test]
    fn piece_carried_on_after_resting() {
        let log = [
            ev(0, "g1", Some('N'), None),
            ev(300, "f3", None, Some('N')),
            ev(1500, "f3", Some('N'), None),
            ev(1800, "h3", None, Some('N')),
        ];
        let r = read(&Board::new(), Color::White, &log, true);
        assert_eq!(r.touches.len(), 1);
        assert_eq!(r.rests.len(), 1);
        let rest = r.rests[0];
        assert_eq!((rest.square, rest.next), (sq("f3"), Some(sq("h3"))));
        assert_eq!(rest.lifted.saturating_since(rest.placed).as_millis(), 1200);
    }
}
