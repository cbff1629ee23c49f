//! A hand that plays live: one move at a time, when it is told, from the time it is told.
//!
//! [`Hand::play`](super::Hand::play) writes a whole game's timeline in advance. A live game
//! against a GUI cannot be written in advance: the GUI's moves are only known when the GUI
//! sends them. [`LiveHand`] keeps the physical board and the game position between moves,
//! and [`LiveHand::play`] makes one move the way [`super::Hand`] makes moves (slides,
//! captures in any order, castling either way round, promotions as the 2023 Laws allow,
//! flicker), starting at the instant it is given, and hands back the physical changes. It
//! does not decide which move to play, nor when: its caller does (the GUI's move shown on
//! the board, or the player's own choice).

use shakmaty::{Chess, Move, Position, Square};

use super::HandOptions;
use super::choreo::Choreo;
use super::moves;
use crate::SimError;
use crate::rng::Rng;
use crate::timeline::{Part, PhysicalEvent, squares_of};
use eboardd_core::time::Time;

/// A hand playing one move at a time (see the module documentation).
#[derive(Debug)]
pub struct LiveHand {
    choreo: Choreo,
    position: Chess,
}

impl LiveHand {
    /// A hand drawing from `seed`, at a board set up as `start`, before any move.
    pub fn new(seed: u64, options: HandOptions, start: &Chess) -> LiveHand {
        LiveHand {
            choreo: Choreo::new(
                squares_of(start.board()),
                Rng::derive(seed, "live hand"),
                options,
            ),
            position: start.clone(),
        }
    }

    /// The game position on the board (after the moves played so far).
    pub fn position(&self) -> &Chess {
        &self.position
    }

    /// How many moves the hand has made.
    pub fn plies(&self) -> u32 {
        self.choreo.ply
    }

    /// Makes `m` (legal in [`LiveHand::position`]) starting at `now` at the earliest (after
    /// the hand's last change otherwise), reaching for the piece first. Returns the
    /// physical changes in time order; the last is when the move is complete (or, with a
    /// hand that sets a captured piece down near by, when that piece leaves the board).
    pub fn play(&mut self, now: Time, m: Move) -> Result<Vec<PhysicalEvent>, SimError> {
        let c = &mut self.choreo;
        if !self.position.is_legal(m) {
            return Err(SimError::Inconsistent {
                ply: c.ply + 1,
                detail: format!("{m:?} is not legal on the board"),
            });
        }
        c.ply += 1;
        if c.now < now {
            c.now = now;
        }
        c.part = Part::Move;
        c.used.clear();
        c.human(150.0, 400.0);
        let mut observations = Vec::new();
        moves::make_move(c, &self.position, m, &mut observations)?;
        let after = self
            .position
            .clone()
            .play(m)
            .map_err(|_| SimError::Inconsistent {
                ply: c.ply,
                detail: "the move could not be played".into(),
            })?;
        if c.board != squares_of(after.board()) {
            return Err(SimError::Inconsistent {
                ply: c.ply,
                detail: "the board after the move differs from the position".into(),
            });
        }
        self.position = after;
        Ok(std::mem::take(&mut c.events))
    }

    /// Carries the piece on `from` to `to` (lifting first what stands there) starting at
    /// `now` at the earliest, whatever the Laws say of it: an illegal move, left on the
    /// board until [`LiveHand::put_right`]. The game position does not change. Returns the
    /// physical changes in time order.
    pub fn misplace(
        &mut self,
        now: Time,
        from: Square,
        to: Square,
    ) -> Result<Vec<PhysicalEvent>, SimError> {
        let c = &mut self.choreo;
        if c.now < now {
            c.now = now;
        }
        c.part = Part::Illegal;
        c.human(150.0, 400.0);
        if c.at(to).is_some() {
            c.lift(to)?;
            c.human(150.0, 300.0);
        }
        let piece = c.lift(from)?;
        c.carry(from, to);
        c.place(to, piece)?;
        c.part = Part::Move;
        Ok(std::mem::take(&mut c.events))
    }

    /// Puts the pieces back as the game position has them, starting at `now` at the
    /// earliest: first the pieces standing where they should not are lifted, then the
    /// missing ones placed. Returns the physical changes in time order.
    pub fn put_right(&mut self, now: Time) -> Result<Vec<PhysicalEvent>, SimError> {
        let c = &mut self.choreo;
        if c.now < now {
            c.now = now;
        }
        c.part = Part::Illegal;
        let target = squares_of(self.position.board());
        for sq in Square::ALL {
            if c.at(sq).is_some() && c.at(sq) != target[sq as usize] {
                c.human(150.0, 300.0);
                c.lift(sq)?;
            }
        }
        for sq in Square::ALL {
            if let Some(piece) = target[sq as usize]
                && c.at(sq).is_none()
            {
                c.human(150.0, 300.0);
                c.place(sq, piece)?;
            }
        }
        c.part = Part::Move;
        Ok(std::mem::take(&mut c.events))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::uci::UciMove;

    #[test]
    fn each_move_starts_when_told_and_leaves_the_position_on_the_board() {
        let mut hand = LiveHand::new(1, HandOptions::default(), &Chess::default());
        let e4 = UciMove::from_ascii(b"e2e4")
            .expect("uci")
            .to_move(hand.position())
            .expect("legal");
        let first = hand.play(Time::from_millis(1000), e4).expect("plays");
        assert!(first.first().is_some_and(|e| e.t > Time::from_millis(1000)));
        assert!(first.windows(2).all(|w| w[0].t <= w[1].t));
        let e5 = UciMove::from_ascii(b"e7e5")
            .expect("uci")
            .to_move(hand.position())
            .expect("legal");
        let second = hand.play(Time::ZERO, e5).expect("plays");
        let end_of_first = first.last().expect("changes").t;
        assert!(
            second.first().is_some_and(|e| e.t > end_of_first),
            "never back in time"
        );
        assert_eq!(hand.plies(), 2);
        assert_eq!(
            hand.position().board().to_string(),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"
        );
    }

    #[test]
    fn a_misplaced_piece_is_put_right_and_the_game_goes_on() {
        let mut hand = LiveHand::new(1, HandOptions::plain(), &Chess::default());
        let start = hand.position().board().to_string();
        let wrong = hand
            .misplace(Time::from_millis(500), Square::E1, Square::E2)
            .expect("misplaced");
        assert!(wrong.first().is_some_and(|e| e.t >= Time::from_millis(500)));
        // The pawn lifted, then the king carried onto its square.
        let squares: Vec<_> = wrong
            .iter()
            .map(|e| (e.square, e.piece.is_some()))
            .collect();
        assert_eq!(
            squares,
            [(Square::E2, false), (Square::E1, false), (Square::E2, true)]
        );
        let back = hand.put_right(Time::ZERO).expect("put right");
        assert!(back.first().is_some_and(|e| e.t > wrong[2].t));
        let mut board = squares_of(&shakmaty::Board::new());
        for e in wrong.iter().chain(&back) {
            board[e.square as usize] = e.piece;
        }
        assert_eq!(board, squares_of(&shakmaty::Board::new()));
        assert_eq!(hand.position().board().to_string(), start);
        let e4 = UciMove::from_ascii(b"e2e4")
            .expect("uci")
            .to_move(hand.position())
            .expect("legal");
        assert!(hand.play(Time::ZERO, e4).is_ok());
    }

    #[test]
    fn an_illegal_move_is_refused() {
        let mut hand = LiveHand::new(1, HandOptions::default(), &Chess::default());
        let m = Move::Normal {
            role: shakmaty::Role::Pawn,
            from: shakmaty::Square::E2,
            capture: None,
            to: shakmaty::Square::E5,
            promotion: None,
        };
        assert!(hand.play(Time::ZERO, m).is_err());
    }
}
