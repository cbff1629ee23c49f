//! How the hand plays: speeds and the mix of behaviours, with presets.
//!
//! Probabilities are per opportunity (per slider move that has transit squares, per
//! capture, per placement...); mixes are relative weights, so `1, 1, 0` means "half and
//! half, never the third". Durations are in milliseconds at speed 1.

/// Thinking pauses between moves: log-normal, clamped, then divided by the speed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThinkTime {
    /// The median pause.
    pub median_ms: f64,
    /// The log-normal shape (0: always the median; 1: a wide spread).
    pub sigma: f64,
    /// The shortest pause.
    pub min_ms: f64,
    /// The longest pause.
    pub max_ms: f64,
}

/// How captures are made (relative weights).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CaptureMix {
    /// The captured piece removed first.
    pub victim_first: f64,
    /// The mover lifted first, then the captured piece removed, then the mover placed.
    pub mover_first: f64,
    /// The captured piece pushed off by the mover (no empty period on the square).
    pub push_off: f64,
}

/// How en passant is made (relative weights).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EnPassantMix {
    /// The captured pawn removed before the capturing pawn is lifted.
    pub before: f64,
    /// The captured pawn removed while the capturing pawn is in the hand.
    pub between: f64,
    /// The captured pawn removed after the capturing pawn is placed.
    pub after: f64,
}

/// How castling is made (relative weights); Chess960 castlings where one piece stays put,
/// or where a piece lands on the other's square, use the orders that are physically possible.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CastleMix {
    /// King, then rook.
    pub king_first: f64,
    /// Rook, then king.
    pub rook_first: f64,
    /// King lifted, rook lifted, then both placed.
    pub both_up: f64,
}

/// How promotion is made (relative weights), as the 2023 Laws allow (4.6).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PromotionMix {
    /// The pawn put on the last rank, then exchanged for the new piece.
    pub pawn_then_swap: f64,
    /// The pawn never put on the last rank: lifted, and the new piece placed.
    pub pawn_never_placed: f64,
    /// The new piece put on the promotion square while the pawn is still on its seventh-
    /// rank square, then the pawn taken off.
    pub piece_first: f64,
}

/// Everything the hand can be told.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HandOptions {
    /// Human motions and thinking pauses are divided by this (2.0: twice as fast).
    /// Slide rests, quick replies and flicker are physical and not scaled.
    pub speed: f64,
    /// Thinking pauses.
    pub think: ThinkTime,
    /// Chance that a rook, bishop or queen move with transit squares is slid.
    pub slide: f64,
    /// Chance, per slide, that the piece rests 300–700 ms on one of its transit squares
    /// (the hand still on it) instead of the usual 30–150 ms, then goes on.
    pub slide_long_rest: f64,
    /// Chance, per step of a slide, that the piece is seen on the next square before it
    /// leaves the last one (it straddles the line).
    pub slide_overlap: f64,
    /// Captures.
    pub capture: CaptureMix,
    /// En passant.
    pub en_passant: EnPassantMix,
    /// Castling.
    pub castle: CastleMix,
    /// Promotion.
    pub promotion: PromotionMix,
    /// Chance, per capture (not en passant or promotion), that the captured piece is set
    /// down on a free square within two squares of the capture square (one not on the
    /// mover's way) and taken off the board 0.3–1.5 s later, as soon as the move is
    /// complete at the earliest. The victim is gone before the opponent's move begins.
    pub victim_set_down: f64,
    /// Chance that a move is a quick reply: its first lift `quick_reply_ms` after the
    /// previous move's last change (or the clock press that followed it). Never right
    /// after a promotion: a promoted piece is left alone for 400 ms so that every board
    /// sees which piece it is.
    pub quick_reply: f64,
    /// How soon a quick reply's first lift comes: the shortest and the longest gap, in ms.
    pub quick_reply_ms: (f64, f64),
    /// Chance that the player to move lifts a piece and puts it back before moving.
    pub adjust: f64,
    /// Share of those adjustments made on the piece that then moves (no breach of 4.3).
    pub adjust_moving_piece: f64,
    /// Chance, per move made after a thinking pause, that a piece of either colour (not
    /// one the move touches) is knocked off its square during the pause and put back on
    /// it 0.5–2.5 s later. An accident (FIDE 4.2): never a touch under 4.3.
    pub knock: f64,
    /// Chance, per placement or lift, that the square flickers for up to 30 ms.
    pub flicker: f64,
    /// Chance, after a move, that the players take it back (one or two plies) and play on.
    pub takeback: f64,
    /// Chance that a move is first made to a square the piece may not go to, then
    /// corrected.
    pub illegal: f64,
    /// Chance that the mover presses the clock after a move (150–450 ms after its last
    /// change); the opponent then moves after the press.
    pub clock_press: f64,
    /// Chance that, after the last move of a game that was resigned or agreed drawn (not
    /// ended on the board by mate or stalemate), the players show the result by putting
    /// both kings on the centre squares: both on light squares 1-0, both on dark 0-1, one
    /// of each ½-½.
    pub result_gesture: f64,
}

impl Default for HandOptions {
    /// A realistic mix for over-the-board play at a normal pace: every physical behaviour
    /// of a legal game, no takebacks and no illegal moves.
    fn default() -> Self {
        HandOptions {
            speed: 1.0,
            think: ThinkTime {
                median_ms: 1500.0,
                sigma: 0.9,
                min_ms: 300.0,
                max_ms: 10_000.0,
            },
            slide: 0.3,
            slide_long_rest: 0.0,
            slide_overlap: 0.25,
            capture: CaptureMix {
                victim_first: 0.4,
                mover_first: 0.35,
                push_off: 0.25,
            },
            en_passant: EnPassantMix {
                before: 1.0,
                between: 1.0,
                after: 1.0,
            },
            castle: CastleMix {
                king_first: 0.6,
                rook_first: 0.2,
                both_up: 0.2,
            },
            promotion: PromotionMix {
                pawn_then_swap: 0.4,
                pawn_never_placed: 0.3,
                piece_first: 0.3,
            },
            victim_set_down: 0.0,
            quick_reply: 0.12,
            quick_reply_ms: (60.0, 150.0),
            adjust: 0.03,
            adjust_moving_piece: 0.5,
            knock: 0.0,
            flicker: 0.15,
            takeback: 0.0,
            illegal: 0.0,
            clock_press: 0.0,
            result_gesture: 0.0,
        }
    }
}

impl HandOptions {
    /// The simplest hand: every move lifted and placed, captures victim first, castling
    /// king first, promotions by swapping a placed pawn; no slides, noise or touches.
    pub fn plain() -> Self {
        HandOptions {
            slide: 0.0,
            slide_overlap: 0.0,
            capture: CaptureMix {
                victim_first: 1.0,
                mover_first: 0.0,
                push_off: 0.0,
            },
            en_passant: EnPassantMix {
                before: 0.0,
                between: 0.0,
                after: 1.0,
            },
            castle: CastleMix {
                king_first: 1.0,
                rook_first: 0.0,
                both_up: 0.0,
            },
            promotion: PromotionMix {
                pawn_then_swap: 1.0,
                pawn_never_placed: 0.0,
                piece_first: 0.0,
            },
            quick_reply: 0.0,
            adjust: 0.0,
            flicker: 0.0,
            ..HandOptions::default()
        }
    }

    /// A hard hand for tests and the benchmark: fast play, many slides, quick replies,
    /// flicker and touches, plus takebacks and illegal moves corrected.
    pub fn torture() -> Self {
        HandOptions {
            speed: 1.5,
            slide: 0.6,
            slide_overlap: 0.4,
            capture: CaptureMix {
                victim_first: 1.0,
                mover_first: 1.0,
                push_off: 1.0,
            },
            castle: CastleMix {
                king_first: 1.0,
                rook_first: 1.0,
                both_up: 1.0,
            },
            promotion: PromotionMix {
                pawn_then_swap: 1.0,
                pawn_never_placed: 1.0,
                piece_first: 1.0,
            },
            quick_reply: 0.35,
            adjust: 0.1,
            flicker: 0.4,
            takeback: 0.03,
            illegal: 0.03,
            clock_press: 0.5,
            result_gesture: 0.5,
            ..HandOptions::default()
        }
    }

    /// A messy human at a normal pace (speed 1, the default thinking): slides that rest
    /// long on a transit square, captured pieces set down near the capture before they
    /// leave the board, pieces knocked off their squares and put back, many captures made
    /// by pushing the captured piece off, and quick replies after about half the moves
    /// (60–180 ms). No takebacks, illegal moves or clock presses.
    pub fn messy() -> Self {
        HandOptions {
            slide: 0.4,
            slide_long_rest: 0.35,
            capture: CaptureMix {
                victim_first: 0.35,
                mover_first: 0.25,
                push_off: 0.4,
            },
            victim_set_down: 0.3,
            quick_reply: 0.55,
            quick_reply_ms: (60.0, 180.0),
            knock: 0.06,
            ..HandOptions::default()
        }
    }

    /// The same options at another speed.
    pub fn with_speed(self, speed: f64) -> Self {
        HandOptions { speed, ..self }
    }

    /// The speed factor, kept positive and finite.
    pub(crate) fn speed(&self) -> f64 {
        if self.speed.is_finite() && self.speed > 0.01 {
            self.speed
        } else {
            1.0
        }
    }
}
