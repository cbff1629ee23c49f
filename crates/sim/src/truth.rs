//! Ground truth: what a correct reconstruction of a simulated game reports.
//!
//! The hand writes a [`Truth`] beside every timeline: for each ply the move and the time of
//! its last physical change (`move_end`, from which decision latency is measured), the
//! behaviours it used, the touches a correct arbiter notices, and any takebacks. It can be
//! written as JSON in the shape of the shared generated-data files (`start_fen`,
//! `chess960`, `san`, `move_end_ms`, `observations`, `notes`) plus our own fields.

use serde::Serialize;
use shakmaty::Square;

use super::behaviour::Behaviour;
use eboardd_core::time::Time;

/// One ply as it was finally played.
#[derive(Debug, Clone, PartialEq)]
pub struct PlyTruth {
    /// Ply number from 1.
    pub ply: u32,
    /// The move in UCI notation (king-takes-rook castling in Chess960 games).
    pub uci: String,
    /// The move in SAN, with `+`/`#`.
    pub san: String,
    /// The first physical change of the move itself (not of touches before it).
    pub move_start: Time,
    /// The last physical change of the move: the piece released (after any flicker), the
    /// captured piece or the pawn removed, the rook of a castling released.
    pub move_end: Time,
    /// When the mover pressed the clock after the move, if they did.
    pub clock_press: Option<Time>,
    /// The behaviours used for this ply, in the order they happened.
    pub behaviours: Vec<Behaviour>,
    /// The FEN after the move.
    pub fen_after: String,
}

/// A piece touched and put back before the move (an adjustment, or a touch under 4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Touch {
    /// The ply being played.
    pub ply: u32,
    /// The square of the piece.
    pub square: Square,
    /// When it was lifted.
    pub lifted: Time,
    /// When it was back on its square.
    pub replaced: Time,
}

/// A breach of FIDE Article 4 (2023) that a correct arbiter reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    /// The ply being played.
    pub ply: u32,
    /// The article: `4.3a` (an own piece that could move was touched, then another piece
    /// moved), `4.4b` (a rook touched before the king when castling).
    pub article: &'static str,
    /// The square touched, for `4.3a`.
    pub square: Option<Square>,
}

/// Moves taken back on the board.
#[derive(Debug, Clone, PartialEq)]
pub struct TakebackTruth {
    /// The last ply still in the game afterwards (0: back to the start).
    pub ply: u32,
    /// The last physical change of the takeback.
    pub end: Time,
    /// The plies that were played and then taken back, as they were first played.
    pub undone: Vec<PlyTruth>,
}

/// The result shown on the board with the kings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultTruth {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// The last physical change of the gesture.
    pub end: Time,
}

/// Everything a correct reconstruction of one simulated game reports.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Truth {
    /// The start position.
    pub start_fen: String,
    /// Whether Chess960 castling rules apply.
    pub chess960: bool,
    /// Every ply as finally played, in order.
    pub plies: Vec<PlyTruth>,
    /// Touches before moves.
    pub touches: Vec<Touch>,
    /// Breaches of Article 4.
    pub observations: Vec<Observation>,
    /// Takebacks, in time order.
    pub takebacks: Vec<TakebackTruth>,
    /// The result gesture, if the players made one.
    pub result: Option<ResultTruth>,
}

impl Truth {
    /// Every behaviour used in the game, in order of use.
    pub fn behaviours(&self) -> Vec<Behaviour> {
        let mut out: Vec<Behaviour> = Vec::new();
        for tb in &self.takebacks {
            for p in &tb.undone {
                out.extend(&p.behaviours);
            }
        }
        for p in &self.plies {
            out.extend(&p.behaviours);
        }
        if self.result.is_some() {
            out.push(Behaviour::ResultGesture);
        }
        out
    }

    /// Whether `b` was used anywhere in the game.
    pub fn used(&self, b: Behaviour) -> bool {
        (b == Behaviour::ResultGesture && self.result.is_some())
            || self.plies.iter().any(|p| p.behaviours.contains(&b))
            || self
                .takebacks
                .iter()
                .any(|t| t.undone.iter().any(|p| p.behaviours.contains(&b)))
    }

    /// The truth as pretty JSON (see the module documentation for the fields).
    pub fn to_json(&self) -> String {
        let json = TruthJson {
            start_fen: &self.start_fen,
            chess960: self.chess960,
            san: self.plies.iter().map(|p| p.san.as_str()).collect(),
            uci: self.plies.iter().map(|p| p.uci.as_str()).collect(),
            move_end_ms: self.plies.iter().map(|p| p.move_end.as_ms_f64()).collect(),
            observations: self
                .observations
                .iter()
                .map(|o| ObservationJson {
                    ply: o.ply,
                    article: o.article,
                    square: o.square.map(|s| s.to_string()),
                })
                .collect(),
            takebacks: self
                .takebacks
                .iter()
                .map(|t| TakebackJson {
                    ply: t.ply,
                    end_ms: t.end.as_ms_f64(),
                })
                .collect(),
            result: self.result.as_ref().map(|r| ResultJson {
                result: &r.result,
                end_ms: r.end.as_ms_f64(),
            }),
            notes: self
                .plies
                .iter()
                .map(|p| {
                    let names: Vec<&str> = p.behaviours.iter().map(|b| b.as_str()).collect();
                    format!("{}: {}", p.ply, names.join(" "))
                })
                .collect(),
        };
        // Plain strings, numbers and vectors always serialise.
        serde_json::to_string_pretty(&json).unwrap_or_default()
    }
}

#[derive(Serialize)]
struct TruthJson<'a> {
    start_fen: &'a str,
    chess960: bool,
    san: Vec<&'a str>,
    uci: Vec<&'a str>,
    move_end_ms: Vec<f64>,
    observations: Vec<ObservationJson>,
    takebacks: Vec<TakebackJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<ResultJson<'a>>,
    notes: Vec<String>,
}

#[derive(Serialize)]
struct ResultJson<'a> {
    result: &'a str,
    end_ms: f64,
}

#[derive(Serialize)]
struct ObservationJson {
    ply: u32,
    article: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    square: Option<String>,
}

#[derive(Serialize)]
struct TakebackJson {
    ply: u32,
    end_ms: f64,
}
