//! The confirmed game: its start, its plies, the position after each, and the log of what
//! the sensors saw during each ply (for the arbiter).
//!
//! It turns a confirmed move into the notations of the event contract (UCI with the game's
//! castling convention, SAN, FEN) and supports takebacks and retracts. It knows nothing of
//! how moves are recognised, of time sources, or of IO.

use shakmaty::{
    Board, CastlingMode, Chess, KnownOutcome, Move, MoveList, Piece, Position, Role, Square,
    san::{San, SanPlus, Suffix},
    uci::UciMove,
};

use super::start::Start;
use crate::time::Time;

pub use crate::game::notation::fen_of;

/// One square's change as the sensors reported it: a lift (`after` empty), a placement, or
/// one piece replaced by another (a capture pushing the victim off).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SquareEvent {
    /// When it was reported.
    pub t: Time,
    /// The square.
    pub square: Square,
    /// What stood there before (a placeholder piece on occupancy-only boards).
    pub before: Option<Piece>,
    /// What stands there now.
    pub after: Option<Piece>,
    /// It came in a whole-board report (the first, or after the link came back): when it
    /// really happened, and in what order with the others, is unknown.
    pub whole: bool,
}

/// A confirmed ply.
#[derive(Debug, Clone)]
pub struct Ply {
    /// The move.
    pub mv: Move,
    /// UCI notation (king-takes-rook castling in Chess960 games).
    pub uci: UciMove,
    /// SAN with check and mate marks.
    pub san: SanPlus,
    /// When it was confirmed.
    pub confirmed_at: Time,
    /// Every lift and placement the sensors reported while it was played, in order
    /// (touches of other pieces included), for the arbiter.
    pub log: Vec<SquareEvent>,
}

impl Ply {
    /// The last piece the sensors reported put down on `sq` while this ply was played
    /// (not in a whole-board report).
    pub fn last_put_on(&self, sq: Square) -> Option<&SquareEvent> {
        self.log
            .iter()
            .rfind(|e| e.square == sq && e.after.is_some() && !e.whole)
    }
}

/// Plies a game is given room for at its start (most games are shorter; longer ones grow).
const USUAL_PLIES: usize = 128;

/// The confirmed game.
#[derive(Debug, Clone)]
pub struct Game {
    start: Start,
    positions: Vec<Chess>,
    plies: Vec<Ply>,
    /// The game has ended (mate, stalemate, the result gesture): no further moves.
    pub finished: bool,
}

impl Game {
    /// A game from this start.
    pub fn new(start: Start) -> Game {
        // Room for a game of usual length, so that plies are not copied as it grows.
        let mut positions = Vec::with_capacity(USUAL_PLIES + 1);
        positions.push(start.pos.clone());
        Game {
            positions,
            start,
            plies: Vec::with_capacity(USUAL_PLIES),
            finished: false,
        }
    }

    /// The start.
    pub fn start(&self) -> &Start {
        &self.start
    }

    /// The castling mode.
    pub fn mode(&self) -> CastlingMode {
        self.start.mode()
    }

    /// The current position.
    pub fn position(&self) -> &Chess {
        // `positions` always holds the start.
        &self.positions[self.plies.len()]
    }

    /// The position after `ply` plies, if the game has that many.
    pub fn position_at(&self, ply: usize) -> Option<&Chess> {
        self.positions.get(ply)
    }

    /// Number of confirmed plies.
    pub fn len(&self) -> usize {
        self.plies.len()
    }

    /// Whether no ply has been confirmed.
    pub fn is_empty(&self) -> bool {
        self.plies.is_empty()
    }

    /// The confirmed plies.
    pub fn plies(&self) -> &[Ply] {
        &self.plies
    }

    /// Plays a legal move of the current position, `after` being the position it leads to,
    /// `san` its SAN without marks ([`san_of`]) and `has_moves` whether the side to move
    /// after it has a legal move (for the check and mate marks); returns the new ply and the
    /// FEN of the position after it.
    pub fn push(
        &mut self,
        mv: Move,
        (san, after, has_moves): (San, Chess, bool),
        now: Time,
        log: Vec<SquareEvent>,
    ) -> (&Ply, String) {
        let uci = mv.to_uci(self.mode());
        let suffix = after.is_check().then_some(if has_moves {
            Suffix::Check
        } else {
            Suffix::Checkmate
        });
        let san = SanPlus { san, suffix };
        let fen = fen_of(&after);
        self.positions.truncate(self.plies.len() + 1);
        self.positions.push(after);
        self.plies.push(Ply {
            mv,
            uci,
            san,
            confirmed_at: now,
            log,
        });
        let n = self.plies.len();
        (&self.plies[n - 1], fen)
    }

    /// Plays a legal move of the current position, working out what [`Game::push`] is told.
    pub fn play(&mut self, mv: Move, now: Time, log: Vec<SquareEvent>) -> (&Ply, String) {
        let pos = self.position();
        let san = san_of(mv, &pos.legal_moves());
        let mut after = pos.clone();
        after.play_unchecked(mv);
        let has_moves = !after.legal_moves().is_empty();
        self.push(mv, (san, after, has_moves), now, log)
    }

    /// The last confirmed ply, to amend its sensor log.
    pub fn last_ply_mut(&mut self) -> Option<&mut Ply> {
        self.plies.last_mut()
    }

    /// Drops the plies after `ply`.
    pub fn truncate(&mut self, ply: usize) {
        self.plies.truncate(ply);
        self.positions.truncate(ply + 1);
        self.finished = false;
    }

    /// The latest earlier position (fewer plies than now, at least `min_ply`) whose board
    /// satisfies `same`.
    pub fn earlier_board(
        &self,
        min_ply: usize,
        mut same: impl FnMut(&Board) -> bool,
    ) -> Option<usize> {
        (min_ply..self.plies.len())
            .rev()
            .find(|&j| same(self.positions[j].board()))
    }

    /// The result if the current position ends the game: (`1-0`/`0-1`/`1/2-1/2`, reason).
    /// `has_moves` says whether the side to move has a legal move.
    pub fn outcome(&self, has_moves: bool) -> Option<(KnownOutcome, &'static str)> {
        let pos = self.position();
        if has_moves {
            None
        } else if pos.is_check() {
            let winner = pos.turn().other();
            Some((KnownOutcome::Decisive { winner }, "checkmate"))
        } else {
            Some((KnownOutcome::Draw, "stalemate"))
        }
    }
}

/// The SAN of `mv` without check or mate marks, `legal` being every legal move of the
/// position it is played in (a piece's move names its square of departure when another
/// piece of the kind may go to the same square).
pub fn san_of(mv: Move, legal: &[Move]) -> San {
    let mut rivals = MoveList::new();
    if let Move::Normal { role, to, .. } = mv
        && role != Role::Pawn
    {
        for &m in legal {
            if let Move::Normal { role: r, to: t, .. } = m
                && r == role
                && t == to
            {
                rivals.push(m);
            }
        }
    }
    San::disambiguate(mv, &rivals)
}
