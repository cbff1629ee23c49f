//! Start positions: the standard one, the 960 Chess960 ones, and a caller's FEN.
//!
//! Recognises a board that shows a start position (and one set up the other way round), and
//! builds the game's first position with the right castling mode. It knows nothing of time,
//! events or how the board was read.

use shakmaty::{Board, CastlingMode, Chess, Color, Setup};

use crate::game::start::{FenError, StartKind, read_fen, start_kind};

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
        crate::game::notation::fen_of(&self.pos)
    }

    /// Reads a caller's FEN (any legal position; Chess960 castling rights are detected).
    pub fn from_fen(fen: &str) -> Result<Start, FenError> {
        let (pos, mode) = read_fen(fen)?;
        Ok(Start {
            pos,
            chess960: mode == CastlingMode::Chess960,
        })
    }
}

pub use crate::game::start::start_occupancy;

/// The start position this board shows, if any: the standard start, or (with piece
/// identity) any of the 960 Chess960 starts ([`start_kind`]). Without identity, a full
/// start occupancy counts as the standard start.
pub fn recognise(board: &Board, identity: bool) -> Option<Start> {
    if !identity {
        return start_occupancy(board).then(Start::standard);
    }
    match start_kind(board)? {
        StartKind::Standard => Some(Start::standard()),
        StartKind::Chess960 => {
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
    }
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
