//! Scoring a reconstruction against the truth of a recorded or simulated game.
//!
//! A trace comes with its truth (`NAME.json` beside `NAME.trace`: the moves really played
//! and when each one physically ended). [`score_trace`] replays the trace through a
//! [`BoardCore`] and compares every `move` event with the truth: games exact, moves
//! misread, retractions, and decision latency (confirmation time minus the time of the
//! move's last physical change).

use std::fmt;

use serde::Deserialize;

use crate::event::GameEvent;
use crate::pipeline::{BoardCore, CoreConfig};
use crate::time::Time;
use crate::trace::{Direction, Trace};

/// What really happened in a game (the `.json` beside a trace).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Truth {
    /// The start position.
    #[serde(default)]
    pub start_fen: Option<String>,
    /// Whether Chess960 rules apply.
    #[serde(default)]
    pub chess960: bool,
    /// Every move of the game in SAN.
    pub san: Vec<String>,
    /// For each move, the trace time (ms) of its last physical change.
    #[serde(default)]
    pub move_end_ms: Vec<f64>,
    /// The breaches of Article 4 a correct arbiter reports, under the 2023 Laws.
    #[serde(default)]
    pub observations: Vec<Observation>,
}

/// A breach a correct arbiter reports (in a truth file).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Observation {
    /// The ply being played.
    pub ply: u32,
    /// The article (2023 numbering).
    pub article: String,
    /// For touches, the square of the piece touched.
    #[serde(default)]
    pub square: Option<String>,
}

/// How one game was reconstructed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GameScore {
    /// Moves in the truth.
    pub expected: usize,
    /// Moves of the final game that match the truth at their ply.
    pub correct: usize,
    /// `move` events that named a move other than the one played at that ply.
    pub misread: usize,
    /// `retract` events.
    pub retracts: usize,
    /// Moves played but never confirmed.
    pub missed: usize,
    /// Decision latency of each correctly confirmed move, in ms.
    pub latencies_ms: Vec<f64>,
    /// Latency of each correctly confirmed move counted from the last sensor report of the
    /// move (what the sensors let the tracker know), in ms.
    pub report_latencies_ms: Vec<f64>,
}

impl GameScore {
    /// Whether the final game is exactly the game played.
    pub fn exact(&self) -> bool {
        self.correct == self.expected && self.misread == 0 && self.missed == 0
    }
}

fn strip(san: &str) -> &str {
    san.trim_end_matches(['+', '#', '!', '?'])
}

/// Replays `trace` through a core made with `config` and scores it against `truth`.
pub fn score_trace(trace: &Trace, truth: &Truth, mut config: CoreConfig) -> GameScore {
    if config.start_fen.is_none() {
        config.start_fen = trace.header.start_fen.clone();
    }
    let (core, events) = replay(trace, config.clone());
    // When each move was last reported by the sensors, as the tracker saw it (for a core
    // without one, from a tracker's replay of the same trace).
    let reports: Vec<(String, Time)> = match core.tracker() {
        Some(t) => last_reports(t),
        None => {
            let tracked = CoreConfig {
                reconstruction: crate::pipeline::Reconstruction::Tracker,
                ..config
            };
            replay(trace, tracked)
                .0
                .tracker()
                .map(last_reports)
                .unwrap_or_default()
        }
    };

    let mut score = GameScore {
        expected: truth.san.len(),
        ..GameScore::default()
    };
    // The final game: ply → (san, time of its last confirmation).
    let mut game: Vec<(String, Time)> = Vec::new();
    for e in &events {
        match &e.event {
            GameEvent::Move { ply, san, .. } => {
                let index = (*ply as usize).saturating_sub(1);
                if truth.san.get(index).map(|s| strip(s)) != Some(strip(san)) {
                    score.misread += 1;
                }
                game.truncate(index);
                game.push((san.clone(), e.t));
            }
            GameEvent::Retract { ply, .. } => {
                score.retracts += 1;
                game.truncate((*ply as usize).saturating_sub(1));
            }
            GameEvent::Takeback { ply } => game.truncate(*ply as usize),
            GameEvent::NewGame { .. } => game.clear(),
            _ => {}
        }
    }
    for (index, (san, t)) in game.iter().enumerate() {
        if truth.san.get(index).map(|s| strip(s)) == Some(strip(san)) {
            score.correct += 1;
            if let Some(end) = truth.move_end_ms.get(index) {
                score.latencies_ms.push(t.as_ms_f64() - end);
            }
            if let Some((_, report)) = reports.get(index).filter(|(s, _)| s == san) {
                score
                    .report_latencies_ms
                    .push(t.as_ms_f64() - report.as_ms_f64());
            }
        }
    }
    score.missed = truth.san.len().saturating_sub(game.len());
    score
}

/// Replays the board side of `trace` through a core made with `config`, in the trace's
/// time, and a minute beyond its end: the core as it ends and every event it decided.
pub fn replay(trace: &Trace, config: CoreConfig) -> (BoardCore, Vec<crate::event::TimedEvent>) {
    let mut core = BoardCore::new(trace.header.protocol, config);
    let mut events = Vec::new();
    let mut last = Time::ZERO;
    let drain = |core: &mut BoardCore, events: &mut Vec<_>| {
        while let Some(e) = core.poll_event() {
            events.push(e);
        }
    };
    for chunk in trace
        .chunks
        .iter()
        .filter(|c| c.dir == Direction::FromBoard)
    {
        while let Some(due) = core.poll_timeout().filter(|&d| d <= chunk.t) {
            core.handle_timeout(due);
            drain(&mut core, &mut events);
        }
        core.handle_input(chunk.t, &chunk.bytes);
        drain(&mut core, &mut events);
        last = chunk.t;
    }
    let end = Time::from_millis(last.as_micros() / 1000 + 60_000);
    while let Some(due) = core.poll_timeout().filter(|&d| d <= end) {
        core.handle_timeout(due);
        drain(&mut core, &mut events);
    }
    (core, events)
}

/// Each confirmed ply's SAN and the time of its last sensor report.
fn last_reports(tracker: &crate::tracker::Tracker) -> Vec<(String, Time)> {
    tracker
        .game()
        .map(|g| {
            g.plies()
                .iter()
                .map(|p| {
                    let t = p.log.iter().map(|e| e.t).max().unwrap_or(p.confirmed_at);
                    (p.san.clone(), t)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Scores of many games, summed.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Games scored.
    pub games: usize,
    /// Games reconstructed exactly.
    pub exact: usize,
    /// Moves in the truth.
    pub moves: usize,
    /// Moves misread.
    pub misread: usize,
    /// Retractions.
    pub retracts: usize,
    /// Moves never confirmed.
    pub missed: usize,
    /// Every latency, in ms.
    pub latencies_ms: Vec<f64>,
    /// Every latency counted from the move's last sensor report, in ms.
    pub report_latencies_ms: Vec<f64>,
}

impl Summary {
    /// Adds a game.
    pub fn add(&mut self, s: &GameScore) {
        self.games += 1;
        self.exact += usize::from(s.exact());
        self.moves += s.expected;
        self.misread += s.misread;
        self.retracts += s.retracts;
        self.missed += s.missed;
        self.latencies_ms.extend_from_slice(&s.latencies_ms);
        self.report_latencies_ms
            .extend_from_slice(&s.report_latencies_ms);
    }

    /// The latency at quantile `q` (0–1), in ms.
    pub fn latency_quantile(&self, q: f64) -> Option<f64> {
        quantile(&self.latencies_ms, q)
    }

    /// The latency from the last sensor report at quantile `q` (0–1), in ms.
    pub fn report_latency_quantile(&self, q: f64) -> Option<f64> {
        quantile(&self.report_latencies_ms, q)
    }
}

fn quantile(values: &[f64], q: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((v.len() - 1) as f64 * q.clamp(0.0, 1.0)).round() as usize;
    v.get(rank).copied()
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let q = |x: f64| {
            self.latency_quantile(x)
                .map(|v| format!("{v:.1}"))
                .unwrap_or_else(|| "-".into())
        };
        let r = |x: f64| {
            self.report_latency_quantile(x)
                .map(|v| format!("{v:.1}"))
                .unwrap_or_else(|| "-".into())
        };
        write!(
            f,
            "games {}/{} exact, moves {}, misread {}, missed {}, retract {} ({:.3} %), latency ms median {} p95 {} p99 {} (after the last report: median {} p95 {} p99 {})",
            self.exact,
            self.games,
            self.moves,
            self.misread,
            self.missed,
            self.retracts,
            if self.moves == 0 {
                0.0
            } else {
                100.0 * self.retracts as f64 / self.moves as f64
            },
            q(0.5),
            q(0.95),
            q(0.99),
            r(0.5),
            r(0.95),
            r(0.99)
        )
    }
}
