//! Start positions: the standard one, the 960 Chess960 ones, and a caller's FEN.
//!
//! Recognises a board that shows a start position (and one set up the other way round), and
//! builds the game's first position with the right castling mode. It knows nothing of time,
//! events or how the board was read.

use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, Rank, Role, Setup, fen::Fen,
};

/// A game's first position.
#[derive(Debug, Clone)]
pub struct Start {
    /// The position.
    pub pos: Chess,
    /// Whether Chess960 castling rules (and king-takes-rook UCI) apply.
    pub chess960: bool,
}

impl Start {
    /// The standard start.
    pub fn standard() -> Start {
        Start {
            pos: Chess::default(),
            chess960: false,
        }
    }

    /// The castling mode of the game.
    pub fn mode(&self) -> CastlingMode {
        if self.chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        }
    }

    /// The full FEN of the position.
    pub fn fen(&self) -> String {
        Fen::from_position(&self.pos, EnPassantMode::Legal).to_string()
    }

    /// Parses a caller's FEN (any legal position; Chess960 castling rights are detected).
    pub fn from_fen(fen: &str) -> Result<Start, String> {
        let fen: Fen = fen
            .trim()
            .parse()
            .map_err(|e| format!("bad FEN {fen:?}: {e}"))?;
        let setup = fen.into_setup();
        let mode = CastlingMode::detect(&setup);
        let pos: Chess = setup
            .position(mode)
            .map_err(|e| format!("FEN is not a legal position: {e}"))?;
        Ok(Start {
            pos,
            chess960: mode == CastlingMode::Chess960,
        })
    }
}

const START_OCCUPANCY: Bitboard = Bitboard(0xffff_0000_0000_ffff);

/// Whether the occupancy is that of a start position (ranks 1, 2, 7 and 8 full).
pub fn start_occupancy(board: &Board) -> bool {
    board.occupied() == START_OCCUPANCY
}

/// The start position this board shows, if any: the standard start, or (with piece
/// identity) any of the 960 Chess960 starts. Without identity, a full start occupancy counts
/// as the standard start.
pub fn recognise(board: &Board, identity: bool) -> Option<Start> {
    if !start_occupancy(board) {
        return None;
    }
    if !identity || *board == Board::new() {
        return Some(Start::standard());
    }
    let rank2 = Bitboard::from_rank(Rank::Second);
    let rank7 = Bitboard::from_rank(Rank::Seventh);
    let rank1 = Bitboard::from_rank(Rank::First);
    if board.pawns() != rank2 | rank7 || board.white() != rank1 | rank2 {
        return None;
    }
    // Black's back rank mirrors White's.
    for sq in rank1 {
        let top = sq.flip_vertical();
        if board.role_at(sq) != board.role_at(top) {
            return None;
        }
    }
    let back = |role: Role| board.by_role(role) & rank1;
    let kings = back(Role::King);
    let rooks = back(Role::Rook);
    let bishops = back(Role::Bishop);
    if kings.count() != 1
        || rooks.count() != 2
        || bishops.count() != 2
        || back(Role::Queen).count() != 1
        || back(Role::Knight).count() != 2
    {
        return None;
    }
    // Bishops on squares of opposite colours, the king between the rooks.
    if (bishops & Bitboard::LIGHT_SQUARES).count() != 1 {
        return None;
    }
    let king = kings.first()?;
    let (a, b) = (rooks.first()?, rooks.last()?);
    if !(a < king && king < b) {
        return None;
    }
    let mut setup = Setup::empty();
    setup.board = board.clone();
    setup.turn = Color::White;
    setup.castling_rights = board.rooks();
    let pos: Chess = setup.position(CastlingMode::Chess960).ok()?;
    Some(Start {
        pos,
        chess960: true,
    })
}

/// Whether this board is a start position seen from the wrong side (the board turned 180°):
/// the sensing layer then turns its reports.
pub fn looks_rotated(board: &Board, identity: bool) -> bool {
    if recognise(board, identity).is_some() {
        return false;
    }
    let mut turned = board.clone();
    turned.rotate_180();
    recognise(&turned, identity).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_start_is_not_chess960() {
        let s = recognise(&Board::new(), true);
        assert!(matches!(
            s,
            Some(Start {
                chess960: false,
                ..
            })
        ));
    }

    #[test]
    fn every_chess960_start_is_recognised() {
        for n in 0..960 {
            let b = Board::chess960(n);
            let s = recognise(&b, true).expect("a 960 start");
            assert_eq!(s.chess960, n != 518, "position {n}");
        }
    }

    #[test]
    fn a_start_turned_round_is_seen_as_rotated() {
        let mut b = Board::chess960(100);
        b.rotate_180();
        assert!(looks_rotated(&b, true));
        assert!(!looks_rotated(&Board::new(), true));
    }

    #[test]
    fn a_start_with_kings_swapped_for_queens_is_chess960() {
        let b: Board = "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR"
            .parse()
            .expect("fen");
        assert!(matches!(
            recognise(&b, true),
            Some(Start { chess960: true, .. })
        ));
    }
}
