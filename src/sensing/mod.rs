//! The sensed board: what stands on each square, in chess coordinates.
//!
//! INTERFACE CONTRACT (used by `tracker`): a change of one square as the sensors report it.

use shakmaty::{Piece, Square};

/// One square's new content as the sensors report it (already in chess coordinates).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SquareChange {
    /// The square.
    pub square: Square,
    /// What now stands there (`None`: empty). Boards without piece identity report a
    /// placeholder piece; the tracker is told so in its configuration.
    pub piece: Option<Piece>,
}
