//! The `s` status payload: 64 square characters and the two orders they come in.
//!
//! A status frame lists the squares in the board's own coordinate frame. With the cable on
//! White's left that frame is the official one (index 0 = a8 … 63 = h1); with the cable on
//! White's right, which is what boards send in practice, it is turned 180° (index 0 = h1 …
//! 63 = a8). This file maps between indices, squares, characters and shakmaty's [`Board`];
//! it knows nothing about framing or checksums.

use shakmaty::{Board, Color, File, Piece, Rank, Role, Square};

use super::CableSide;

/// The character an empty square is reported as.
pub const EMPTY_SQUARE_CHAR: u8 = b'.';

/// The 64 characters of the standard start position as a board with the cable on the right
/// sends them.
pub const START_CHARS_CABLE_RIGHT: &[u8; 64] =
    b"RNBKQBNRPPPPPPPP................................pppppppprnbkqbnr";

/// The 64 characters of the standard start position as a board with the cable on the left
/// sends them (the official order). It is [`START_CHARS_CABLE_RIGHT`] reversed, and its
/// checksum is the same.
pub const START_CHARS_CABLE_LEFT: &[u8; 64] =
    b"rnbqkbnrpppppppp................................PPPPPPPPRNBQKBNR";

/// Whether a 7-bit character may stand for a square in a status frame
/// (`KQRNBP`, `kqrnbp` or `.`).
pub(crate) const fn is_square_char(c: u8) -> bool {
    matches!(
        c,
        b'.' | b'K' | b'Q' | b'R' | b'N' | b'B' | b'P' | b'k' | b'q' | b'r' | b'n' | b'b' | b'p'
    )
}

/// The piece a status character stands for: `Some(None)` for an empty square (`.`),
/// `None` for a character that is not a square.
///
/// Bit 7 must already be clear (the decoders clear it).
///
/// ```
/// use eboardd_core::protocol::millennium::piece_from_char;
/// use shakmaty::{Color, Piece, Role};
/// assert_eq!(piece_from_char(b'n'), Some(Some(Piece { color: Color::Black, role: Role::Knight })));
/// assert_eq!(piece_from_char(b'.'), Some(None));
/// assert_eq!(piece_from_char(b'x'), None);
/// ```
pub fn piece_from_char(c: u8) -> Option<Option<Piece>> {
    if c == EMPTY_SQUARE_CHAR {
        return Some(None);
    }
    if !is_square_char(c) {
        return None;
    }
    Piece::from_char(char::from(c)).map(Some)
}

/// The status character for what stands on a square: the FEN letter of the piece, or `.`.
pub fn char_from_piece(piece: Option<Piece>) -> u8 {
    match piece {
        None => EMPTY_SQUARE_CHAR,
        Some(piece) => {
            let upper = match piece.role {
                Role::Pawn => b'P',
                Role::Knight => b'N',
                Role::Bishop => b'B',
                Role::Rook => b'R',
                Role::Queen => b'Q',
                Role::King => b'K',
            };
            match piece.color {
                Color::White => upper,
                Color::Black => upper.to_ascii_lowercase(),
            }
        }
    }
}

/// The square a status index (0–63) stands for with the cable on `side`.
///
/// Only the low 6 bits of `index` are used, so every `u8` maps to a square.
///
/// ```
/// use eboardd_core::protocol::millennium::{status_square, CableSide};
/// use shakmaty::Square;
/// assert_eq!(status_square(0, CableSide::Right), Square::H1);
/// assert_eq!(status_square(8, CableSide::Right), Square::H2);
/// assert_eq!(status_square(63, CableSide::Right), Square::A8);
/// assert_eq!(status_square(0, CableSide::Left), Square::A8);
/// assert_eq!(status_square(63, CableSide::Left), Square::H1);
/// ```
pub fn status_square(index: u8, side: CableSide) -> Square {
    let i = u32::from(index & 63);
    // Cable left is the official order: index 0 = a8, files run a→h, ranks 8→1.
    // Cable right is the same frame turned 180°, which is index 63 − i.
    let official = match side {
        CableSide::Left => i,
        CableSide::Right => 63 - i,
    };
    Square::from_coords(File::new(official % 8), Rank::new(7 - official / 8))
}

/// The status index (0–63) at which a square is reported with the cable on `side`: the
/// inverse of [`status_square`].
pub fn status_index(square: Square, side: CableSide) -> u8 {
    let file = u8::from(square.file());
    let rank = u8::from(square.rank());
    let official = (7 - rank) * 8 + file;
    match side {
        CableSide::Left => official,
        CableSide::Right => 63 - official,
    }
}

/// A character of a status frame that does not stand for a square.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("status character {byte:#04x} at index {index} is not one of KQRNBPkqrnbp.")]
pub struct InvalidSquareChar {
    /// Its index in the frame's payload (0–63).
    pub index: u8,
    /// The character (bit 7 cleared).
    pub byte: u8,
}

/// The position a status payload shows, read with the cable on `side`.
///
/// ```
/// use eboardd_core::protocol::millennium::{board_from_status, CableSide, START_CHARS_CABLE_RIGHT};
/// use shakmaty::Board;
/// let board = board_from_status(START_CHARS_CABLE_RIGHT, CableSide::Right)?;
/// assert_eq!(board, Board::new());
/// # Ok::<(), eboardd_core::protocol::millennium::InvalidSquareChar>(())
/// ```
pub fn board_from_status(chars: &[u8; 64], side: CableSide) -> Result<Board, InvalidSquareChar> {
    let mut board = Board::empty();
    for (index, &raw) in (0u8..).zip(chars.iter()) {
        let byte = raw & 0x7F;
        match piece_from_char(byte) {
            None => return Err(InvalidSquareChar { index, byte }),
            Some(None) => {}
            Some(Some(piece)) => board.set_piece_at(status_square(index, side), piece),
        }
    }
    Ok(board)
}

/// The 64 status characters a board with the cable on `side` sends for a position (for the
/// board emulator). Pair it with [`Reply::Status`](super::Reply::Status) and encode it to
/// get a whole frame.
///
/// ```
/// use eboardd_core::protocol::millennium::{status_from_board, CableSide, START_CHARS_CABLE_LEFT};
/// use shakmaty::Board;
/// assert_eq!(&status_from_board(&Board::new(), CableSide::Left), START_CHARS_CABLE_LEFT);
/// ```
pub fn status_from_board(board: &Board, side: CableSide) -> [u8; 64] {
    let mut chars = [EMPTY_SQUARE_CHAR; 64];
    for (index, c) in (0u8..).zip(chars.iter_mut()) {
        *c = char_from_piece(board.piece_at(status_square(index, side)));
    }
    chars
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::millennium::checksum;

    #[test]
    fn cable_right_start_frame_reads_as_the_start_position() {
        let board = board_from_status(START_CHARS_CABLE_RIGHT, CableSide::Right);
        assert_eq!(board, Ok(Board::new()));
    }

    #[test]
    fn cable_left_start_frame_reads_as_the_start_position() {
        let board = board_from_status(START_CHARS_CABLE_LEFT, CableSide::Left);
        assert_eq!(board, Ok(Board::new()));
    }

    #[test]
    fn start_frame_read_with_the_wrong_side_is_the_position_turned_round() {
        let board = board_from_status(START_CHARS_CABLE_RIGHT, CableSide::Left);
        let mut turned = Board::new();
        turned.rotate_180();
        assert_eq!(board, Ok(turned));
    }

    #[test]
    fn both_start_frames_are_reverses_with_the_same_checksum() {
        let mut reversed = *START_CHARS_CABLE_RIGHT;
        reversed.reverse();
        assert_eq!(&reversed, START_CHARS_CABLE_LEFT);
        let mut right = vec![b's'];
        right.extend_from_slice(START_CHARS_CABLE_RIGHT);
        let mut left = vec![b's'];
        left.extend_from_slice(START_CHARS_CABLE_LEFT);
        assert_eq!(checksum(&right), 0x73);
        assert_eq!(checksum(&left), 0x73);
    }

    #[test]
    fn status_index_inverts_status_square_on_both_sides() {
        for side in [CableSide::Right, CableSide::Left] {
            for index in 0u8..64 {
                assert_eq!(status_index(status_square(index, side), side), index);
            }
        }
    }

    #[test]
    fn cable_right_runs_from_h1_along_the_first_rank() {
        let first: Vec<Square> = (0..9).map(|i| status_square(i, CableSide::Right)).collect();
        use Square::*;
        assert_eq!(first, [H1, G1, F1, E1, D1, C1, B1, A1, H2]);
    }

    #[test]
    fn status_square_ignores_the_high_bits_of_the_index() {
        assert_eq!(status_square(64, CableSide::Right), Square::H1);
        assert_eq!(status_square(255, CableSide::Left), Square::H1);
    }

    #[test]
    fn every_piece_character_round_trips() {
        for &c in b"KQRNBPkqrnbp." {
            let piece = piece_from_char(c).expect("a square character");
            assert_eq!(char_from_piece(piece), c);
        }
        for c in 0u8..0x80 {
            assert_eq!(piece_from_char(c).is_some(), is_square_char(c), "{c:#04x}");
        }
    }

    #[test]
    fn invalid_character_is_reported_with_its_index() {
        let mut chars = *START_CHARS_CABLE_RIGHT;
        chars[20] = b'x';
        assert_eq!(
            board_from_status(&chars, CableSide::Right),
            Err(InvalidSquareChar {
                index: 20,
                byte: b'x'
            })
        );
    }

    #[test]
    fn board_round_trips_through_status_characters_on_both_sides() {
        let board: Board = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R"
            .parse()
            .expect("a valid board FEN");
        for side in [CableSide::Right, CableSide::Left] {
            let chars = status_from_board(&board, side);
            assert_eq!(board_from_status(&chars, side), Ok(board.clone()));
        }
    }
}
