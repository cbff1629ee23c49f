//! Start positions: the standard one and the 960 of Chess960.

use shakmaty::fen::Fen;
use shakmaty::{Bitboard, Board, CastlingMode, Chess, Rank, Role};

/// A FEN a game cannot start from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// The text is not a FEN.
    #[error("not a FEN ({reason}): {fen:?}")]
    Malformed {
        /// The text, trimmed.
        fen: String,
        /// Why, for people.
        reason: String,
    },
    /// A FEN, but not a legal position with either castling rule.
    #[error("not a legal position ({reason}): {fen:?}")]
    Illegal {
        /// The FEN, trimmed.
        fen: String,
        /// Why, for people (as the standard rules see it).
        reason: String,
    },
}

/// Reads the position a game starts from: legal with the standard castling rules, or else
/// with Chess960's (castling rights that only Chess960 explains); the mode says which.
///
/// ```
/// use eboardd_core::game::start::read_fen;
/// use shakmaty::CastlingMode;
/// let (_, mode) = read_fen("bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w EGeg - 0 1").unwrap();
/// assert_eq!(mode, CastlingMode::Chess960);
/// assert!(read_fen("8/8/8/8/8/8/8/8 w - - 0 1").is_err());
/// ```
pub fn read_fen(fen: &str) -> Result<(Chess, CastlingMode), FenError> {
    let fen = fen.trim();
    let parsed = parse_fen(fen)?;
    match parsed
        .clone()
        .into_position::<Chess>(CastlingMode::Standard)
    {
        Ok(pos) => Ok((pos, CastlingMode::Standard)),
        Err(standard) => parsed
            .into_position::<Chess>(CastlingMode::Chess960)
            .map(|pos| (pos, CastlingMode::Chess960))
            .map_err(|_| FenError::Illegal {
                fen: fen.to_string(),
                reason: standard.to_string(),
            }),
    }
}

/// Reads a position with Chess960's castling rules, for a game known to be Chess960.
pub fn read_fen_chess960(fen: &str) -> Result<Chess, FenError> {
    let fen = fen.trim();
    parse_fen(fen)?
        .into_position::<Chess>(CastlingMode::Chess960)
        .map_err(|e| FenError::Illegal {
            fen: fen.to_string(),
            reason: e.to_string(),
        })
}

fn parse_fen(fen: &str) -> Result<Fen, FenError> {
    fen.parse()
        .map_err(|e: shakmaty::fen::ParseFenError| FenError::Malformed {
            fen: fen.to_string(),
            reason: e.to_string(),
        })
}

/// Which start position a placement is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StartKind {
    /// The standard start position.
    Standard,
    /// One of the other 959 Chess960 start positions.
    Chess960,
}

/// The occupancy of every start position: ranks 1, 2, 7 and 8 full.
const START_OCCUPANCY: Bitboard = Bitboard(0xffff_0000_0000_ffff);

/// Whether the occupancy is that of a start position (ranks 1, 2, 7 and 8 full).
pub fn start_occupancy(board: &Board) -> bool {
    board.occupied() == START_OCCUPANCY
}

/// Whether `board` is a start position (standard or Chess960), and which.
///
/// A Chess960 start has White's pieces on the first rank with the bishops on squares of
/// opposite colours and the king between the rooks, all pawns on their second ranks, and
/// Black's pieces mirroring White's file by file.
///
/// ```
/// use eboardd_core::game::start::{start_kind, StartKind};
/// assert_eq!(start_kind(&shakmaty::Board::new()), Some(StartKind::Standard));
/// assert_eq!(start_kind(&shakmaty::Board::empty()), None);
/// ```
pub fn start_kind(board: &Board) -> Option<StartKind> {
    if !start_occupancy(board) {
        return None;
    }
    if *board == Board::new() {
        return Some(StartKind::Standard);
    }
    let rank2 = Bitboard::from_rank(Rank::Second);
    let rank7 = Bitboard::from_rank(Rank::Seventh);
    let rank1 = Bitboard::from_rank(Rank::First);
    if board.pawns() != rank2 | rank7 || board.white() != rank1 | rank2 {
        return None;
    }
    // Black's back rank mirrors White's.
    if rank1
        .into_iter()
        .any(|sq| board.role_at(sq) != board.role_at(sq.flip_vertical()))
    {
        return None;
    }
    let back = |role: Role| board.by_role(role) & rank1;
    let (kings, rooks, bishops) = (back(Role::King), back(Role::Rook), back(Role::Bishop));
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
    (a < king && king < b).then_some(StartKind::Chess960)
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
