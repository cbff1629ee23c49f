//! How the arbiter is configured (edition, touch-move mode, timing margins) and what it is
//! shown of the game. It knows nothing of how moves are recognised or of IO.

use std::time::Duration;

use shakmaty::{Board, Move};

use super::edition::Edition;
use super::judge::Margins;
use crate::tracker::game::{Game, SquareEvent};

/// What the arbiter does with touch-move breaches (`--touch-move`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TouchMove {
    /// Publish the move and the violation (the default).
    #[default]
    Report,
    /// Training: a move breaking 4.3/4.4 is not confirmed; a `due` event says what to do
    /// until the board is put right and the due piece moves.
    Enforce,
    /// Report nothing of Article 4. A completed illegal move (7.5) is still named: it is not a
    /// touch-move rule, and it explains why the game does not go on.
    Off,
}

impl TouchMove {
    /// Every mode.
    pub const ALL: [TouchMove; 3] = [TouchMove::Report, TouchMove::Enforce, TouchMove::Off];

    /// The name used on the command line and in the configuration.
    pub fn name(self) -> &'static str {
        match self {
            TouchMove::Report => "report",
            TouchMove::Enforce => "enforce",
            TouchMove::Off => "off",
        }
    }

    /// What the mode does, in a line for people (help texts).
    pub fn summary(self) -> &'static str {
        match self {
            TouchMove::Report => "Publish the move and the violation",
            TouchMove::Enforce => {
                "Training: a move breaking 4.3/4.4 is not confirmed; a `due` event says what to do"
            }
            TouchMove::Off => "Report no touch-move breaches",
        }
    }
}

/// A touch-move mode name that is not one of `report`, `enforce`, `off`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown touch-move mode {0:?} (expected report, enforce or off)")]
pub struct UnknownTouchMove(pub String);

impl std::fmt::Display for TouchMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for TouchMove {
    type Err = UnknownTouchMove;
    fn from_str(s: &str) -> Result<TouchMove, UnknownTouchMove> {
        TouchMove::ALL
            .into_iter()
            .find(|m| m.name() == s.trim())
            .ok_or_else(|| UnknownTouchMove(s.to_string()))
    }
}

// Read from its name (`touch-move = "enforce"` in the configuration).
crate::deserialize_from_str!(TouchMove);

/// How the arbiter judges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LawsConfig {
    /// The edition whose articles are applied and cited.
    pub edition: Edition,
    /// What to do with touch-move breaches.
    pub touch_move: TouchMove,
    /// Two lifts reported closer together than this have no proven order (a DGT board scans
    /// its squares in 200–250 ms and reports the changes of one scan in its own order). When
    /// the order decides, the own piece counts as first (4.3c) or the king and rook as
    /// touched together (4.4a, 4.4c).
    pub order_margin: Duration,
    /// A piece that rests this long on a square counts as released there (4.7); twice as
    /// long when it then goes on along the same line the same way (a slide that paused).
    /// Shorter rests are a slide's transit or a hand that has not let go. The longest
    /// transit rest in the generated sample traces is 0.23 s.
    pub release: Duration,
    /// How long the board must stay still showing a completed illegal move before it is
    /// named (7.5).
    pub still: Duration,
}

impl Default for LawsConfig {
    fn default() -> Self {
        LawsConfig {
            edition: Edition::default(),
            touch_move: TouchMove::default(),
            order_margin: Duration::from_millis(250),
            release: Duration::from_millis(400),
            still: Duration::from_millis(250),
        }
    }
}

impl LawsConfig {
    /// The margins the judge uses.
    pub fn margins(&self) -> Margins {
        Margins {
            order: self.order_margin,
            release: self.release,
        }
    }
}

/// What the arbiter looks at: the tracker's record of the game and the board.
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    /// The game, once one has started.
    pub game: Option<&'a Game>,
    /// The lifts and placements since the last confirmed ply.
    pub pending: &'a [SquareEvent],
    /// The sensed board.
    pub sensed: &'a Board,
    /// The complete move the tracker's gate holds back, if any.
    pub held: Option<Move>,
    /// Whether the board reports which piece stands on a square.
    pub identity: bool,
}
