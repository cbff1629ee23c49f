//! The ways a hand can play: the names the ground truth uses for them.
//!
//! Each [`Behaviour`] is one recognisable way of moving pieces (or of touching them) that a
//! tracker must cope with. The hand records the behaviours it used for every ply, so tests
//! can check that a run covered them and a failing benchmark case says what was going on.

use std::fmt;

/// One way of handling the pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Behaviour {
    /// The piece lifted and placed on its new square.
    LiftPlace,
    /// A rook, bishop or queen slid along its line, resting briefly on each transit square.
    Slide,
    /// In a slide, the piece was seen on the next square before it left the last one.
    SlideOverlap,
    /// In a slide, the piece rested 300–700 ms on one transit square (the hand still on
    /// it), then went on.
    SlideLongRest,
    /// Capture: the captured piece removed first, then the mover moved.
    CaptureVictimFirst,
    /// Capture: the mover lifted first, then the captured piece removed (both in hand),
    /// then the mover placed.
    CaptureMoverFirst,
    /// Capture: the mover pushed the captured piece off its square; the square changed
    /// from one piece to the other without being empty.
    CapturePushOff,
    /// Capture: the captured piece set down on a free square within two squares of the
    /// capture square, then taken off the board 0.3–1.5 s later.
    VictimSetDown,
    /// En passant: the captured pawn removed before the capturing pawn was lifted.
    EnPassantVictimBefore,
    /// En passant: the captured pawn removed while the capturing pawn was in the hand.
    EnPassantVictimBetween,
    /// En passant: the captured pawn removed after the capturing pawn was placed.
    EnPassantVictimAfter,
    /// Castling: the king moved, then the rook.
    CastleKingFirst,
    /// Castling: the rook moved, then the king (FIDE 4.4b if deliberate).
    CastleRookFirst,
    /// Castling: king and rook both lifted before either was placed.
    CastleBothUp,
    /// Chess960 castling where the king stays on its square (only the rook moves).
    Castle960KingStays,
    /// Chess960 castling where the rook stays on its square (only the king moves).
    Castle960RookStays,
    /// Chess960 castling where king and rook trade squares or one lands on the other's.
    Castle960Crossing,
    /// Promotion: the pawn put on the last rank, then swapped for the new piece.
    PromotionPawnThenSwap,
    /// Promotion: the pawn never put on the last rank (2023 Laws 4.6a).
    PromotionPawnNeverPlaced,
    /// Promotion: the new piece put on the promotion square before the pawn was taken off
    /// its seventh-rank square (2023 Laws 4.6b).
    PromotionPieceFirst,
    /// Promotion to a knight, bishop or rook.
    Underpromotion,
    /// The opponent lifted a piece quickly after the move's last change (60–150 ms; the
    /// messy hand 60–180 ms).
    QuickReply,
    /// A long thinking pause (over three seconds) before the move.
    LongThink,
    /// A piece of the player to move lifted and put back on its square before the move.
    Adjust,
    /// A piece of either colour knocked off its square while the player thought, and put
    /// back on it 0.5–2.5 s later (an accident, FIDE 4.2; no touch).
    Knock,
    /// A square toggled between occupied and empty while a piece settled or left.
    Flicker,
    /// Moves taken back on the board, then played again.
    Takeback,
    /// A piece placed where it may not go, then the move corrected.
    IllegalThenCorrected,
    /// After the last move, both kings put on the centre squares to show the result.
    ResultGesture,
}

impl Behaviour {
    /// Every behaviour, in a fixed order.
    pub const ALL: [Behaviour; 29] = [
        Behaviour::LiftPlace,
        Behaviour::Slide,
        Behaviour::SlideOverlap,
        Behaviour::SlideLongRest,
        Behaviour::CaptureVictimFirst,
        Behaviour::CaptureMoverFirst,
        Behaviour::CapturePushOff,
        Behaviour::VictimSetDown,
        Behaviour::EnPassantVictimBefore,
        Behaviour::EnPassantVictimBetween,
        Behaviour::EnPassantVictimAfter,
        Behaviour::CastleKingFirst,
        Behaviour::CastleRookFirst,
        Behaviour::CastleBothUp,
        Behaviour::Castle960KingStays,
        Behaviour::Castle960RookStays,
        Behaviour::Castle960Crossing,
        Behaviour::PromotionPawnThenSwap,
        Behaviour::PromotionPawnNeverPlaced,
        Behaviour::PromotionPieceFirst,
        Behaviour::Underpromotion,
        Behaviour::QuickReply,
        Behaviour::LongThink,
        Behaviour::Adjust,
        Behaviour::Knock,
        Behaviour::Flicker,
        Behaviour::Takeback,
        Behaviour::IllegalThenCorrected,
        Behaviour::ResultGesture,
    ];

    /// The name used in truth files and test output (`capture-push-off`).
    pub fn as_str(self) -> &'static str {
        match self {
            Behaviour::LiftPlace => "lift-place",
            Behaviour::Slide => "slide",
            Behaviour::SlideOverlap => "slide-overlap",
            Behaviour::SlideLongRest => "slide-long-rest",
            Behaviour::CaptureVictimFirst => "capture-victim-first",
            Behaviour::CaptureMoverFirst => "capture-mover-first",
            Behaviour::CapturePushOff => "capture-push-off",
            Behaviour::VictimSetDown => "capture-victim-set-down",
            Behaviour::EnPassantVictimBefore => "en-passant-victim-before",
            Behaviour::EnPassantVictimBetween => "en-passant-victim-between",
            Behaviour::EnPassantVictimAfter => "en-passant-victim-after",
            Behaviour::CastleKingFirst => "castle-king-first",
            Behaviour::CastleRookFirst => "castle-rook-first",
            Behaviour::CastleBothUp => "castle-both-up",
            Behaviour::Castle960KingStays => "castle960-king-stays",
            Behaviour::Castle960RookStays => "castle960-rook-stays",
            Behaviour::Castle960Crossing => "castle960-crossing",
            Behaviour::PromotionPawnThenSwap => "promotion-pawn-then-swap",
            Behaviour::PromotionPawnNeverPlaced => "promotion-pawn-never-placed",
            Behaviour::PromotionPieceFirst => "promotion-piece-first",
            Behaviour::Underpromotion => "underpromotion",
            Behaviour::QuickReply => "quick-reply",
            Behaviour::LongThink => "long-think",
            Behaviour::Adjust => "adjust",
            Behaviour::Knock => "knock",
            Behaviour::Flicker => "flicker",
            Behaviour::Takeback => "takeback",
            Behaviour::IllegalThenCorrected => "illegal-then-corrected",
            Behaviour::ResultGesture => "result-gesture",
        }
    }
}

impl fmt::Display for Behaviour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = Behaviour::ALL.iter().map(|b| b.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Behaviour::ALL.len());
    }
}
