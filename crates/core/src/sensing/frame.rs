//! The board in the protocol's own numbering, and its mapping to chess squares.

use shakmaty::{Board, Piece, Square};

use crate::event::Orientation;
use crate::protocol::Protocol;

/// The 64 squares as the board numbers them.
#[derive(Debug, Clone)]
pub(super) struct Frame {
    protocol: Protocol,
    pieces: [Option<Piece>; 64],
    count: usize,
}

impl Frame {
    pub(super) fn new(protocol: Protocol) -> Self {
        Frame {
            protocol,
            pieces: [None; 64],
            count: 0,
        }
    }

    pub(super) fn set_all(&mut self, pieces: [Option<Piece>; 64]) {
        self.pieces = pieces;
        self.count = pieces.iter().filter(|p| p.is_some()).count();
    }

    /// Sets one index; says whether anything changed.
    pub(super) fn set(&mut self, index: usize, piece: Option<Piece>) -> bool {
        let Some(slot) = self.pieces.get_mut(index) else {
            return false;
        };
        if *slot == piece {
            return false;
        }
        match (slot.is_some(), piece.is_some()) {
            (false, true) => self.count += 1,
            (true, false) => self.count -= 1,
            _ => {}
        }
        *slot = piece;
        true
    }

    /// How many indexes hold something else than `pieces` says.
    pub(super) fn differing(&self, pieces: &[Option<Piece>; 64]) -> usize {
        self.pieces
            .iter()
            .zip(pieces.iter())
            .filter(|(a, b)| a != b)
            .count()
    }

    /// How many squares are occupied.
    pub(super) fn count(&self) -> usize {
        self.count
    }

    /// The chess square of a board index when the board stands `orientation`.
    ///
    /// `Normal` is the protocol's usual reading: DGT field 0 = a8; Millennium with the
    /// cable on White's right (index 0 = h1). `Rotated` is the board turned 180°.
    pub(super) fn square(&self, index: usize, orientation: Orientation) -> Square {
        self.protocol
            .square(index, orientation == Orientation::Rotated)
    }

    /// The pieces in chess coordinates when the board stands `orientation`.
    pub(super) fn to_board(&self, orientation: Orientation) -> Board {
        let mut board = Board::empty();
        for (index, piece) in self.pieces.iter().enumerate() {
            if let Some(p) = piece {
                board.set_piece_at(self.square(index, orientation), *p);
            }
        }
        board
    }
}
