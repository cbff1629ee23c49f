//! The confirmed game: its start, its plies, the position after each, and the log of what
//! the sensors saw during each ply (for the arbiter).
//!
//! It turns a confirmed move into the notations of the event contract (UCI with the game's
//! castling convention, SAN, FEN) and supports takebacks and retracts. It knows nothing of
//! how moves are recognised, of time sources, or of IO.

use shakmaty::{
    Board, CastlingMode, Chess, Color, Move, MoveList, Piece, Position, Role, Square,
    san::{San, SanPlus, Suffix},
};

use super::start::Start;
use crate::time::Time;

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
    pub uci: String,
    /// SAN with check and mate marks.
    pub san: String,
    /// When it was confirmed.
    pub confirmed_at: Time,
    /// Every lift and placement the sensors reported while it was played, in order
    /// (touches of other pieces included), for the arbiter.
    pub log: Vec<SquareEvent>,
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
        let mut uci = String::with_capacity(5);
        mv.to_uci(self.mode()).append_to_string(&mut uci);
        let suffix = after.is_check().then_some(if has_moves {
            Suffix::Check
        } else {
            Suffix::Checkmate
        });
        let mut text = String::with_capacity(8);
        SanPlus { san, suffix }.append_to_string(&mut text);
        let san = text;
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
    pub fn outcome(&self, has_moves: bool) -> Option<(&'static str, &'static str)> {
        let pos = self.position();
        if has_moves {
            None
        } else if pos.is_check() {
            Some(match pos.turn() {
                Color::White => ("0-1", "checkmate"),
                Color::Black => ("1-0", "checkmate"),
            })
        } else {
            Some(("1/2-1/2", "stalemate"))
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

/// The FEN of a position, standard chess or Chess960, written directly: the same text as
/// shakmaty's `Fen` with legal en passant squares, in a fraction of the time.
pub fn fen_of(pos: &Chess) -> String {
    let board = pos.board();
    // The letter on each square, filled from the piece sets (no per-square lookups).
    let mut letters = [0u8; 64];
    for role in Role::ALL {
        for color in Color::ALL {
            let letter = Piece { color, role }.char() as u8;
            for sq in board.by_piece(Piece { color, role }) {
                letters[sq.to_usize()] = letter;
            }
        }
    }
    let mut out: Vec<u8> = Vec::with_capacity(96);
    for rank in (0..8).rev() {
        let mut empty = 0u8;
        for &letter in &letters[rank * 8..rank * 8 + 8] {
            if letter == 0 {
                empty += 1;
                continue;
            }
            if empty > 0 {
                out.push(b'0' + empty);
                empty = 0;
            }
            out.push(letter);
        }
        if empty > 0 {
            out.push(b'0' + empty);
        }
        if rank > 0 {
            out.push(b'/');
        }
    }
    out.extend_from_slice(if pos.turn() == Color::White {
        b" w "
    } else {
        b" b "
    });
    // Castling rights as X-FEN writes them: K/Q (k/q) for the outermost rook on its side
    // of the king, else the rook's file, from the h-file down, White first.
    let rights = pos.castles().castling_rights();
    let len = out.len();
    for color in Color::ALL {
        let king = board
            .king_of(color)
            .filter(|k| k.rank() == color.backrank());
        let rooks = board.by_piece(color.rook()) & color.backrank();
        for rook in (rights & color.backrank()).into_iter().rev() {
            let letter = if Some(rook) == rooks.first() && king.is_some_and(|k| rook < k) {
                b'Q'
            } else if Some(rook) == rooks.last() && king.is_some_and(|k| k < rook) {
                b'K'
            } else {
                b'A' + rook.file() as u8
            };
            out.push(if color == Color::White {
                letter
            } else {
                letter.to_ascii_lowercase()
            });
        }
    }
    if out.len() == len {
        out.push(b'-');
    }
    out.push(b' ');
    match pos.legal_ep_square() {
        Some(sq) => {
            out.push(b'a' + sq.file() as u8);
            out.push(b'1' + sq.rank() as u8);
        }
        None => out.push(b'-'),
    }
    out.push(b' ');
    push_number(&mut out, pos.halfmoves());
    out.push(b' ');
    push_number(&mut out, pos.fullmoves().get());
    // Only ASCII was written.
    String::from_utf8(out).unwrap_or_default()
}

/// Appends the decimal digits of `n`.
fn push_number(out: &mut Vec<u8>, n: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    let mut n = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{EnPassantMode, fen::Fen, uci::UciMove};

    fn play_uci(pos: &mut Chess, u: &str) {
        let m = u
            .parse::<UciMove>()
            .ok()
            .and_then(|m| m.to_move(pos).ok())
            .unwrap_or_else(|| panic!("{u} illegal"));
        pos.play_unchecked(m);
    }

    #[test]
    fn fen_of_matches_shakmaty() {
        let mut pos = Chess::default();
        for u in [
            "e2e4", "d7d5", "e4e5", "f7f5", "e5f6", "g8f6", "g1f3", "b8c6", "f1b5", "c8d7", "e1g1",
            "e7e6", "a2a4", "d8e7", "a4a5", "h7h6",
        ] {
            play_uci(&mut pos, u);
            assert_eq!(
                fen_of(&pos),
                Fen::from_position(&pos, EnPassantMode::Legal).to_string()
            );
        }
    }

    #[test]
    fn fen_of_matches_shakmaty_in_chess960() {
        use shakmaty::CastlingMode;
        // Rooks on b1 and g1 (not the corners), then on the corners' other side after
        // castling and rook moves, with rights lost one by one.
        let start: Fen = "1rk3r1/pppppppp/8/8/8/8/PPPPPPPP/1RK3R1 w KQkq - 0 1"
            .parse()
            .expect("a FEN");
        let mut pos: Chess = start
            .into_position(CastlingMode::Chess960)
            .expect("a position");
        assert_eq!(
            fen_of(&pos),
            Fen::from_position(&pos, EnPassantMode::Legal).to_string()
        );
        for u in [
            "h2h4", "a7a5", "g1h1", "b8a8", "h1h3", "c8g8", "c1b1", "a8a6",
        ] {
            play_uci(&mut pos, u);
            assert_eq!(
                fen_of(&pos),
                Fen::from_position(&pos, EnPassantMode::Legal).to_string(),
                "after {u}"
            );
        }
    }
}
