//! The numbers of the DGT protocol: message ids, command bytes, piece codes and the board's
//! field numbering.
//!
//! This file only names numbers and converts between the board's numbering and shakmaty's
//! types; it knows nothing of framing, buffers or games.

use shakmaty::{Color, Piece, Role, Square};

/// Message ids of board→host messages (single-board mode). The id is the only byte of a
/// message with bit 7 set.
pub mod msg {
    /// DGT_NONE: a header-only message some boards send, sometimes in floods.
    pub const NONE: u8 = 0x80;
    /// BOARD_DUMP: the 64 piece codes.
    pub const BOARD_DUMP: u8 = 0x86;
    /// BWTIME: clock times or a clock acknowledgement.
    pub const BWTIME: u8 = 0x8d;
    /// FIELD_UPDATE: one field changed.
    pub const FIELD_UPDATE: u8 = 0x8e;
    /// EE_MOVES: the board's event log.
    pub const EE_MOVES: u8 = 0x8f;
    /// BUSADRES: the 14-bit bus address.
    pub const BUSADRES: u8 = 0x90;
    /// SERIALNR: the short serial number.
    pub const SERIALNR: u8 = 0x91;
    /// TRADEMARK: the identification text.
    pub const TRADEMARK: u8 = 0x92;
    /// VERSION: the firmware version.
    pub const VERSION: u8 = 0x93;
    /// BATTERY_STATUS: Bluetooth boards' battery report.
    pub const BATTERY_STATUS: u8 = 0xa0;
    /// LONG_SERIALNR: the long serial number.
    pub const LONG_SERIALNR: u8 = 0xa2;
}

/// Host→board command bytes. The firmware-flashing and EEPROM-changing bytes are
/// deliberately absent here: see [`super::ForbiddenCommand`].
pub mod cmd {
    /// DGT_SEND_RESET: go idle, no reply.
    pub const RESET: u8 = 0x40;
    /// DGT_SEND_CLK: one BWTIME.
    pub const SEND_CLOCK: u8 = 0x41;
    /// DGT_SEND_BRD: one BOARD_DUMP.
    pub const SEND_BOARD: u8 = 0x42;
    /// DGT_SEND_UPDATE: update mode (field updates and clock at least every second).
    pub const SEND_UPDATE: u8 = 0x43;
    /// DGT_SEND_UPDATE_BRD: update mode without the clock.
    pub const SEND_UPDATE_BOARD: u8 = 0x44;
    /// DGT_RETURN_SERIALNR: one SERIALNR.
    pub const RETURN_SERIALNR: u8 = 0x45;
    /// DGT_RETURN_BUSADRES: one BUSADRES.
    pub const RETURN_BUSADRES: u8 = 0x46;
    /// DGT_SEND_TRADEMARK: one TRADEMARK.
    pub const SEND_TRADEMARK: u8 = 0x47;
    /// DGT_SEND_EE_MOVES: one EE_MOVES (about 8 s at 9600 baud).
    pub const SEND_EE_MOVES: u8 = 0x49;
    /// DGT_TO_BUSMODE: switch to bus mode, no reply.
    pub const TO_BUSMODE: u8 = 0x4a;
    /// DGT_SEND_UPDATE_NICE: update mode, clock only when it changed.
    pub const SEND_UPDATE_NICE: u8 = 0x4b;
    /// DGT_SEND_BATTERY_STATUS: one BATTERY_STATUS (Bluetooth boards).
    pub const SEND_BATTERY_STATUS: u8 = 0x4c;
    /// DGT_SEND_VERSION: one VERSION.
    pub const SEND_VERSION: u8 = 0x4d;
    /// DGT_SEND_BRD_50B: draughts board dump, black squares.
    pub const SEND_BOARD_50B: u8 = 0x50;
    /// DGT_SEND_BRD_50W: draughts board dump, white squares.
    pub const SEND_BOARD_50W: u8 = 0x52;
    /// DGT_RETURN_LONG_SERIALNR: one LONG_SERIALNR.
    pub const RETURN_LONG_SERIALNR: u8 = 0x55;
    /// DGT_SET_LEDS: the LED frame (Revelation II).
    pub const SET_LEDS: u8 = 0x60;
    /// DGT_CLOCK_MESSAGE: the clock frame wrapper.
    pub const CLOCK_MESSAGE: u8 = 0x2b;
}

/// The piece code of an empty field.
pub const EMPTY: u8 = 0x00;

/// The magic pieces a DGT board recognises beside the twelve chess pieces (codes
/// 0x0d–0x0f). They are not chess pieces; a game layer may treat them as result claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SpecialPiece {
    /// 0x0d: "draw".
    Draw,
    /// 0x0e: "white wins".
    WhiteWins,
    /// 0x0f: "black wins".
    BlackWins,
}

impl SpecialPiece {
    /// The special piece a code stands for (low nibble only), if any.
    pub fn from_code(code: u8) -> Option<SpecialPiece> {
        match code & 0x0f {
            0x0d => Some(SpecialPiece::Draw),
            0x0e => Some(SpecialPiece::WhiteWins),
            0x0f => Some(SpecialPiece::BlackWins),
            _ => None,
        }
    }

    /// The piece code of this special piece.
    pub fn code(self) -> u8 {
        match self {
            SpecialPiece::Draw => 0x0d,
            SpecialPiece::WhiteWins => 0x0e,
            SpecialPiece::BlackWins => 0x0f,
        }
    }
}

/// What a piece code says stands on a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldContent {
    /// Code 0x00: nothing.
    Empty,
    /// Codes 0x01–0x0c: a chess piece.
    Piece(Piece),
    /// Codes 0x0d–0x0f: a magic piece.
    Special(SpecialPiece),
}

impl FieldContent {
    /// What a code stands for. Only the low nibble is looked at, as the decoder does for
    /// FIELD_UPDATE (the high bits are undocumented).
    pub fn from_code(code: u8) -> FieldContent {
        let code = code & 0x0f;
        if code == EMPTY {
            FieldContent::Empty
        } else if let Some(piece) = piece_from_code(code) {
            FieldContent::Piece(piece)
        } else if let Some(special) = SpecialPiece::from_code(code) {
            FieldContent::Special(special)
        } else {
            // Unreachable for a nibble: 0, 1–12 and 13–15 cover it. Empty is the safe reading.
            FieldContent::Empty
        }
    }

    /// The piece code of this content.
    pub fn code(self) -> u8 {
        match self {
            FieldContent::Empty => EMPTY,
            FieldContent::Piece(piece) => piece_code(piece),
            FieldContent::Special(special) => special.code(),
        }
    }
}

/// Roles in code order within one colour (code 1 + index for White, 7 + index for Black).
const ROLES: [Role; 6] = [
    Role::Pawn,
    Role::Rook,
    Role::Knight,
    Role::Bishop,
    Role::King,
    Role::Queen,
];

/// The chess piece a DGT piece code stands for; empty and the special pieces give `None`.
///
/// Only the low nibble is looked at (0x01 white pawn, 0x02 rook, 0x03 knight, 0x04 bishop,
/// 0x05 king, 0x06 queen; 0x07–0x0c the same for Black).
///
/// ```
/// use eboardd_core::protocol::dgt::piece_from_code;
/// use shakmaty::Piece;
/// assert_eq!(piece_from_code(0x05), Some(Piece::from_char('K').unwrap()));
/// assert_eq!(piece_from_code(0x0c), Some(Piece::from_char('q').unwrap()));
/// assert_eq!(piece_from_code(0x00), None);
/// assert_eq!(piece_from_code(0x0d), None);
/// ```
pub fn piece_from_code(code: u8) -> Option<Piece> {
    let code = usize::from(code & 0x0f);
    match code {
        1..=6 => Some(ROLES[code - 1].of(Color::White)),
        7..=12 => Some(ROLES[code - 7].of(Color::Black)),
        _ => None,
    }
}

/// The DGT piece code of a chess piece (0x01–0x0c).
pub fn piece_code(piece: Piece) -> u8 {
    let index = match piece.role {
        Role::Pawn => 0,
        Role::Rook => 1,
        Role::Knight => 2,
        Role::Bishop => 3,
        Role::King => 4,
        Role::Queen => 5,
    };
    match piece.color {
        Color::White => 1 + index,
        Color::Black => 7 + index,
    }
}

/// The square of a field number in the board's own numbering (0 = a8 … 7 = h8, 8 = a7 …
/// 56 = a1 … 63 = h1): file = field mod 8, rank = 8 − field / 8.
///
/// Only the low six bits are looked at; the decoder never hands out a field above 63.
/// This is the board's numbering: whether the board stands rotated is for the caller
/// (see [`rotated_field`]).
///
/// ```
/// use eboardd_core::protocol::dgt::field_square;
/// use shakmaty::Square;
/// assert_eq!(field_square(0), Square::A8);
/// assert_eq!(field_square(7), Square::H8);
/// assert_eq!(field_square(56), Square::A1);
/// assert_eq!(field_square(63), Square::H1);
/// ```
pub fn field_square(field: u8) -> Square {
    // Flipping the three rank bits turns "row from the top" into "rank from the bottom".
    Square::new(u32::from((field & 0x3f) ^ 0x38))
}

/// The field number of a square (the inverse of [`field_square`]).
pub fn square_field(square: Square) -> u8 {
    // A square index is below 64, so it fits a byte.
    (square.to_u32() as u8) ^ 0x38
}

/// The field a field stands on when the board is turned by 180° (63 − field).
pub fn rotated_field(field: u8) -> u8 {
    63 - (field & 0x3f)
}

/// Whether a number is a field number (0–63).
pub fn is_field(field: u8) -> bool {
    field < 64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_square_maps_back_to_its_field() {
        for field in 0..64u8 {
            assert_eq!(square_field(field_square(field)), field);
        }
    }

    #[test]
    fn field_numbering_runs_from_a8_to_h1_in_reading_order() {
        for field in 0..64u8 {
            let square = field_square(field);
            assert_eq!(square.file().to_u32(), u32::from(field % 8));
            assert_eq!(square.rank().to_u32() + 1, 8 - u32::from(field / 8));
        }
    }

    #[test]
    fn rotation_is_the_180_degree_turn_of_the_square() {
        for field in 0..64u8 {
            assert_eq!(
                field_square(rotated_field(field)),
                field_square(field).rotate_180()
            );
        }
    }

    #[test]
    fn every_piece_code_round_trips() {
        for code in 1..=12u8 {
            let piece = piece_from_code(code).expect("codes 1-12 are pieces");
            assert_eq!(piece_code(piece), code);
        }
        assert_eq!(piece_from_code(0x01), Some(Role::Pawn.of(Color::White)));
        assert_eq!(piece_from_code(0x07), Some(Role::Pawn.of(Color::Black)));
        assert_eq!(piece_from_code(0x0b), Some(Role::King.of(Color::Black)));
    }

    #[test]
    fn special_pieces_are_not_chess_pieces() {
        assert_eq!(
            FieldContent::from_code(0x0d),
            FieldContent::Special(SpecialPiece::Draw)
        );
        assert_eq!(
            FieldContent::from_code(0x0e),
            FieldContent::Special(SpecialPiece::WhiteWins)
        );
        assert_eq!(
            FieldContent::from_code(0x0f),
            FieldContent::Special(SpecialPiece::BlackWins)
        );
        for code in 0..16u8 {
            assert_eq!(FieldContent::from_code(code).code(), code);
        }
    }

    #[test]
    fn high_bits_of_a_piece_code_are_ignored() {
        assert_eq!(piece_from_code(0x11), piece_from_code(0x01));
        assert_eq!(FieldContent::from_code(0x70), FieldContent::Empty);
    }
}
