//! Start positions: the standard one and the 960 of Chess960.

use shakmaty::{Bitboard, Board, Color, Rank, Role, Square};

/// Which start position a placement is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StartKind {
    /// The standard start position.
    Standard,
    /// One of the other 959 Chess960 start positions.
    Chess960,
}

/// Whether `board` is a start position (standard or Chess960), and which.
///
/// A Chess960 start has White's pieces on the first rank with the bishops on squares of
/// opposite colours and the king between the rooks, all pawns on their second ranks, and
/// Black's pieces mirroring White's file by file.
///
/// ```
/// use eboardd::game::start::{start_kind, StartKind};
/// assert_eq!(start_kind(&shakmaty::Board::new()), Some(StartKind::Standard));
/// assert_eq!(start_kind(&shakmaty::Board::empty()), None);
/// ```
pub fn start_kind(board: &Board) -> Option<StartKind> {
    let expected_occupancy = Bitboard::from_rank(Rank::First)
        | Bitboard::from_rank(Rank::Second)
        | Bitboard::from_rank(Rank::Seventh)
        | Bitboard::from_rank(Rank::Eighth);
    if board.occupied() != expected_occupancy {
        return None;
    }
    let pawns = board.by_role(Role::Pawn);
    if board.by_color(Color::White) & pawns != Bitboard::from_rank(Rank::Second)
        || board.by_color(Color::Black) & pawns != Bitboard::from_rank(Rank::Seventh)
    {
        return None;
    }
    let mut back = [Role::Pawn; 8];
    for (file, slot) in back.iter_mut().enumerate() {
        let white = board.piece_at(Square::from_coords(
            shakmaty::File::new(file as u32),
            Rank::First,
        ))?;
        let black = board.piece_at(Square::from_coords(
            shakmaty::File::new(file as u32),
            Rank::Eighth,
        ))?;
        if white.color != Color::White || black.color != Color::Black || white.role != black.role {
            return None;
        }
        *slot = white.role;
    }
    if !is_chess960_back_rank(&back) {
        return None;
    }
    const STANDARD: [Role; 8] = [
        Role::Rook,
        Role::Knight,
        Role::Bishop,
        Role::Queen,
        Role::King,
        Role::Bishop,
        Role::Knight,
        Role::Rook,
    ];
    Some(if back == STANDARD {
        StartKind::Standard
    } else {
        StartKind::Chess960
    })
}

fn is_chess960_back_rank(back: &[Role; 8]) -> bool {
    let count = |role: Role| back.iter().filter(|&&r| r == role).count();
    if count(Role::King) != 1
        || count(Role::Queen) != 1
        || count(Role::Rook) != 2
        || count(Role::Bishop) != 2
        || count(Role::Knight) != 2
    {
        return false;
    }
    let files = |role: Role| {
        back.iter()
            .enumerate()
            .filter(move |&(_, &r)| r == role)
            .map(|(f, _)| f)
    };
    let bishops: Vec<usize> = files(Role::Bishop).collect();
    let rooks: Vec<usize> = files(Role::Rook).collect();
    let king = files(Role::King).next().unwrap_or(0);
    bishops.len() == 2
        && bishops[0] % 2 != bishops[1] % 2
        && rooks.len() == 2
        && rooks[0] < king
        && king < rooks[1]
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn board(fen: &str) -> Board {
        fen.parse::<Fen>().expect("fen").into_setup().board
    }

    #[test]
    fn standard_start_is_recognised() {
        assert_eq!(start_kind(&Board::new()), Some(StartKind::Standard));
    }

    #[test]
    fn chess960_start_is_recognised() {
        let b = board("bqnb1rkr/pppppppp/8/8/8/8/PPPPPPPP/BQNB1RKR w - - 0 1");
        assert_eq!(start_kind(&b), None, "a missing knight is not a start");
        let b = board("bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w - - 0 1");
        assert_eq!(start_kind(&b), Some(StartKind::Chess960));
    }

    #[test]
    fn king_outside_the_rooks_is_not_a_start() {
        let b = board("rrbqkbnn/pppppppp/8/8/8/8/PPPPPPPP/RRBQKBNN w - - 0 1");
        assert_eq!(start_kind(&b), None);
    }

    #[test]
    fn bishops_on_one_colour_are_not_a_start() {
        let b = board("rbqbknnr/pppppppp/8/8/8/8/PPPPPPPP/RBQBKNNR w - - 0 1");
        assert_eq!(start_kind(&b), None);
    }

    #[test]
    fn turned_board_is_not_a_start() {
        let mut b = Board::new();
        b.rotate_180();
        assert_eq!(start_kind(&b), None);
    }
}
