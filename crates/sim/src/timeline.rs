//! The physical board over time: what truly stands on each square, and when it changed.
//!
//! The hand writes a [`Timeline`]; the board models read it back through a [`Cursor`],
//! sampling squares at the instants their sensors look. Each change carries the ply it
//! belongs to and what it was part of ([`Part`]), so that a sensed report can be traced
//! back to the move that caused it. This module knows nothing of sensors or protocols.

use shakmaty::{Board, Color, Piece, Square};

use eboardd_core::time::Time;

/// The 64 squares of a board, indexed by `Square as usize` (a1 = 0 … h8 = 63).
pub type Squares = [Option<Piece>; 64];

/// The squares of a shakmaty board.
pub fn squares_of(board: &Board) -> Squares {
    let mut out = [None; 64];
    for (sq, piece) in board.iter() {
        out[sq as usize] = Some(piece);
    }
    out
}

/// The FEN piece placement of a square array (`rnbqkbnr/...`).
pub fn placement_of(squares: &Squares) -> String {
    let mut board = Board::empty();
    for sq in Square::ALL {
        if let Some(p) = squares[sq as usize] {
            board.set_piece_at(sq, p);
        }
    }
    board.to_string()
}

/// What a physical change was part of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Part {
    /// Playing the ply's move (including its flicker and slide transits).
    Move,
    /// A piece touched and put back on its square before the move (an adjustment or a
    /// touch; see the ply's truth for which).
    Adjust,
    /// An illegal placement before the move, and its correction.
    Illegal,
    /// Taking moves back.
    Takeback,
    /// The result gesture after the last move (both kings on the centre squares).
    Gesture,
    /// A captured piece set down on a free square near the capture, and its removal from
    /// the board later (not part of the move: the move ends with its own last change).
    Victim,
    /// A piece knocked off its square and put back on it (an accident, part of no move).
    Knock,
}

/// One physical change: from `t` on, `square` holds `piece`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PhysicalEvent {
    /// When the change happened.
    pub t: Time,
    /// The square.
    pub square: Square,
    /// What stands there from now on (`None`: empty).
    pub piece: Option<Piece>,
    /// The ply being played when it happened (from 1).
    pub ply: u32,
    /// What the change was part of.
    pub part: Part,
}

/// A press of the clock: `by` stops their own clock and starts the opponent's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockPress {
    /// When the lever moved.
    pub t: Time,
    /// Who pressed.
    pub by: Color,
    /// The ply just played.
    pub ply: u32,
}

/// A game on a physical board: the start and every change, in time order.
#[derive(Debug, Clone)]
pub struct Timeline {
    /// What stands on the board at time zero.
    pub start: Squares,
    /// Every change, in non-decreasing time; changes of one square are strictly increasing.
    pub events: Vec<PhysicalEvent>,
    /// Every press of the clock, in time order.
    pub presses: Vec<ClockPress>,
}

impl Timeline {
    /// A timeline of `events` from `start`, with no clock presses.
    pub fn new(start: Squares, events: Vec<PhysicalEvent>) -> Timeline {
        Timeline {
            start,
            events,
            presses: Vec::new(),
        }
    }

    /// The board at time `t` (changes at `t` included).
    pub fn state_at(&self, t: Time) -> Squares {
        let mut c = Cursor::new(self);
        c.advance_to(t);
        *c.squares()
    }

    /// The time of the last change or clock press, or zero.
    pub fn end(&self) -> Time {
        let last_event = self.events.last().map_or(Time::ZERO, |e| e.t);
        let last_press = self.presses.last().map_or(Time::ZERO, |p| p.t);
        last_event.max(last_press)
    }
}

/// Replays a timeline forwards: the state of every square at a moving instant, and which
/// ply and part last changed each square.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    timeline: &'a Timeline,
    next: usize,
    next_press: usize,
    squares: Squares,
    cause: [(u32, Part); 64],
}

impl<'a> Cursor<'a> {
    /// A cursor at time zero, before any change.
    pub fn new(timeline: &'a Timeline) -> Cursor<'a> {
        Cursor {
            timeline,
            next: 0,
            next_press: 0,
            squares: timeline.start,
            cause: [(0, Part::Move); 64],
        }
    }

    /// Applies every change at or before `t`. Moving backwards does nothing.
    pub fn advance_to(&mut self, t: Time) {
        while let Some(e) = self.timeline.events.get(self.next) {
            if e.t > t {
                break;
            }
            self.squares[e.square as usize] = e.piece;
            self.cause[e.square as usize] = (e.ply, e.part);
            self.next += 1;
        }
        while self
            .timeline
            .presses
            .get(self.next_press)
            .is_some_and(|p| p.t <= t)
        {
            self.next_press += 1;
        }
    }

    /// How many clock presses have happened, and the last of them.
    pub fn presses(&self) -> (usize, Option<ClockPress>) {
        let last = self
            .next_press
            .checked_sub(1)
            .and_then(|i| self.timeline.presses.get(i))
            .copied();
        (self.next_press, last)
    }

    /// The board as of the last `advance_to`.
    pub fn squares(&self) -> &Squares {
        &self.squares
    }

    /// The ply and part of the last change of `square` (ply 0 for the start position).
    pub fn cause(&self, square: Square) -> (u32, Part) {
        self.cause[square as usize]
    }

    /// The time of the next change, if any.
    pub fn next_change(&self) -> Option<Time> {
        self.timeline.events.get(self.next).map(|e| e.t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Color, Role};

    #[test]
    fn cursor_applies_changes_up_to_the_instant() {
        let pawn = Piece {
            color: Color::White,
            role: Role::Pawn,
        };
        let tl = Timeline {
            presses: Vec::new(),
            start: squares_of(&Board::default()),
            events: vec![
                PhysicalEvent {
                    t: Time::from_millis(10),
                    square: Square::E2,
                    piece: None,
                    ply: 1,
                    part: Part::Move,
                },
                PhysicalEvent {
                    t: Time::from_millis(20),
                    square: Square::E4,
                    piece: Some(pawn),
                    ply: 1,
                    part: Part::Move,
                },
            ],
        };
        let mut c = Cursor::new(&tl);
        c.advance_to(Time::from_millis(15));
        assert_eq!(c.squares()[Square::E2 as usize], None);
        assert_eq!(c.squares()[Square::E4 as usize], None);
        assert_eq!(c.next_change(), Some(Time::from_millis(20)));
        c.advance_to(Time::from_millis(20));
        assert_eq!(c.squares()[Square::E4 as usize], Some(pawn));
        assert_eq!(c.cause(Square::E4), (1, Part::Move));
        assert_eq!(
            placement_of(&tl.state_at(Time::from_millis(30))),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"
        );
    }
}
