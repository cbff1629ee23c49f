//! Scoring a reconstruction against the truth of a recorded or simulated game.
//!
//! A trace comes with its truth (`NAME.json` beside `NAME.trace`: the moves really played
//! and when each one physically ended). [`score_trace`] replays the trace through a
//! [`BoardCore`] and compares every `move` event with the truth: games exact, moves
//! misread, retractions, decision latency (confirmation time minus the time of the
//! move's last physical change), corrections (histories rewritten) and how long the
//! published moves were wrong (not a prefix of the moves played).

use std::fmt;

use serde::Deserialize;

use eboardd_core::event::GameEvent;
use eboardd_core::pipeline::{BoardCore, CoreConfig};
use eboardd_core::time::Time;
use eboardd_core::trace::{Direction, Trace};

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
    /// The same moves in UCI notation (may be absent).
    #[serde(default)]
    pub uci: Vec<String>,
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
    /// Moves of the final game that differ from the truth at their ply only as a reading
    /// the board cannot tell apart: the move played is among the move's `alternatives`.
    pub indistinguishable: usize,
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
    /// Corrections: runs of one or more `retract` events in a row (among the events that
    /// change the published moves), each a history rewritten.
    pub corrections: usize,
    /// Whether the published moves were ever wrong: not a prefix of the moves played
    /// (lagging behind is not wrong).
    pub ever_wrong: bool,
    /// How long the published moves were wrong in all, in ms (an interval still open when
    /// the replay ends runs to its end, a minute after the trace's last read).
    pub wrong_ms: f64,
    /// The longest single interval in which they were wrong, in ms.
    pub longest_wrong_ms: f64,
    /// The longest single interval in which they were wrong but for readings the board
    /// cannot tell apart (a move published with the move played among its
    /// `alternatives` counts as that move), in ms.
    pub longest_wrong_but_alternatives_ms: f64,
}

impl GameScore {
    /// Whether the final game is exactly the game played.
    pub fn exact(&self) -> bool {
        self.ends_right() && self.misread == 0
    }

    /// Whether the final game is the game played, misreads corrected on the way allowed.
    pub fn ends_right(&self) -> bool {
        self.correct == self.expected && self.missed == 0
    }

    /// Whether the final game is the game played but for readings the board cannot tell
    /// apart, each published with the move played among its `alternatives`.
    pub fn ends_right_but_alternatives(&self) -> bool {
        self.correct + self.indistinguishable == self.expected && self.missed == 0
    }
}

fn strip(san: &str) -> &str {
    san.trim_end_matches(['+', '#', '!', '?'])
}

/// Whether the published moves `game` are the first moves of `truth` (or all of them).
fn is_prefix(game: &[Confirmed], truth: &[String]) -> bool {
    game.len() <= truth.len()
        && game
            .iter()
            .zip(truth)
            .all(|(c, played)| strip(&c.san) == strip(played))
}

/// Whether the published moves `game` are the first moves played (`san`, and `uci` for
/// the same moves), a move published with the move played among its `alternatives`
/// counting as that move.
fn is_prefix_but_alternatives(game: &[Confirmed], san: &[String], uci: &[String]) -> bool {
    game.len() <= san.len()
        && game.iter().enumerate().all(|(i, c)| {
            strip(&c.san) == strip(&san[i])
                || uci.get(i).is_some_and(|u| c.alternatives.contains(u))
        })
}

/// A published move as [`follow`] keeps it.
#[derive(Debug, Clone, PartialEq)]
struct Confirmed {
    san: String,
    /// When it was last confirmed.
    t: Time,
    /// The other readings it was published with (UCI).
    alternatives: Vec<String>,
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
                reconstruction: eboardd_core::pipeline::Reconstruction::Tracker,
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
    let changes: Vec<(Time, Published)> = events
        .iter()
        .filter_map(|e| Published::of(&e.event).map(|p| (e.t, p)))
        .collect();
    let game = follow(
        &changes,
        (&truth.san, &truth.uci),
        replay_end(trace),
        &mut score,
    );
    for (
        index,
        Confirmed {
            san,
            t,
            alternatives,
        },
    ) in game.iter().enumerate()
    {
        if truth.san.get(index).map(|s| strip(s)) != Some(strip(san)) {
            score.indistinguishable += usize::from(only_an_alternative(alternatives, truth, index));
        } else {
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

/// Whether a move published with `alternatives` at `index` (from 0) is the move played
/// but for a reading the board cannot tell apart: the move played is among them.
fn only_an_alternative(alternatives: &[String], truth: &Truth, index: usize) -> bool {
    truth
        .uci
        .get(index)
        .is_some_and(|played| alternatives.contains(played))
}

/// A change of the published moves.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Published {
    /// A move confirmed at `ply` (the moves from `ply` on replaced).
    Move {
        ply: u32,
        san: String,
        alternatives: Vec<String>,
    },
    /// The move at `ply` and any after it withdrawn.
    Retract { ply: u32 },
    /// Moves taken back: `ply` moves stay.
    Takeback { ply: u32 },
    /// A new game: no moves.
    NewGame,
}

impl Published {
    /// The change `event` makes to the published moves, if any.
    fn of(event: &GameEvent) -> Option<Published> {
        match event {
            GameEvent::Move {
                ply,
                san,
                alternatives,
                ..
            } => Some(Published::Move {
                ply: *ply,
                san: san.to_string(),
                alternatives: alternatives.iter().map(ToString::to_string).collect(),
            }),
            GameEvent::Retract { ply, .. } => Some(Published::Retract { ply: *ply }),
            GameEvent::Takeback { ply } => Some(Published::Takeback { ply: *ply }),
            GameEvent::NewGame { .. } => Some(Published::NewGame),
            _ => None,
        }
    }
}

/// Follows `changes` (in time order) against `truth`, the moves played, until `end`, when
/// the replay ends: counts misreads, retractions and corrections in `out` and how long the
/// published moves were wrong (not a prefix of `truth`, judged once every change of an
/// instant is in: a correction's retractions and moves at one instant are never wrong in
/// between; `uci`, the moves played in UCI notation where known, tells a reading the board
/// cannot tell apart). Returns the final game, ply by ply.
fn follow(
    changes: &[(Time, Published)],
    (truth, uci): (&[String], &[String]),
    end: Time,
    out: &mut GameScore,
) -> Vec<Confirmed> {
    let mut game: Vec<Confirmed> = Vec::new();
    let mut in_retracts = false;
    let mut wrong_since: Option<Time> = None;
    let mut wrong_alt_since: Option<Time> = None;
    let close = |out: &mut GameScore, since: Time, until: Time| {
        let ms = until.saturating_since(since).as_secs_f64() * 1000.0;
        out.wrong_ms += ms;
        out.longest_wrong_ms = out.longest_wrong_ms.max(ms);
    };
    let close_alt = |out: &mut GameScore, since: Time, until: Time| {
        let ms = until.saturating_since(since).as_secs_f64() * 1000.0;
        out.longest_wrong_but_alternatives_ms = out.longest_wrong_but_alternatives_ms.max(ms);
    };
    for (k, (t, change)) in changes.iter().enumerate() {
        let t = *t;
        match change {
            Published::Move {
                ply,
                san,
                alternatives,
            } => {
                let index = (*ply as usize).saturating_sub(1);
                if truth.get(index).map(|s| strip(s)) != Some(strip(san)) {
                    out.misread += 1;
                }
                game.truncate(index);
                game.push(Confirmed {
                    san: san.clone(),
                    t,
                    alternatives: alternatives.clone(),
                });
            }
            Published::Retract { ply } => {
                out.retracts += 1;
                out.corrections += usize::from(!in_retracts);
                game.truncate((*ply as usize).saturating_sub(1));
            }
            Published::Takeback { ply } => game.truncate(*ply as usize),
            Published::NewGame => game.clear(),
        }
        in_retracts = matches!(change, Published::Retract { .. });
        if changes.get(k + 1).is_some_and(|&(next, _)| next == t) {
            continue;
        }
        let wrong = !is_prefix(&game, truth);
        match wrong_since {
            None if wrong => {
                out.ever_wrong = true;
                wrong_since = Some(t);
            }
            Some(since) if !wrong => {
                close(out, since, t);
                wrong_since = None;
            }
            _ => {}
        }
        let wrong_alt = !is_prefix_but_alternatives(&game, truth, uci);
        match wrong_alt_since {
            None if wrong_alt => wrong_alt_since = Some(t),
            Some(since) if !wrong_alt => {
                close_alt(out, since, t);
                wrong_alt_since = None;
            }
            _ => {}
        }
    }
    if let Some(since) = wrong_since {
        close(out, since, end.max(since));
    }
    if let Some(since) = wrong_alt_since {
        close_alt(out, since, end.max(since));
    }
    game
}

/// Replays the board side of `trace` through a core made with `config`, in the trace's
/// time, and a minute beyond its end: the core as it ends and every event it decided.
pub fn replay(
    trace: &Trace,
    config: CoreConfig,
) -> (BoardCore, Vec<eboardd_core::event::TimedEvent>) {
    let mut core = BoardCore::new(trace.header.protocol, config);
    let mut events = Vec::new();
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
    }
    let end = replay_end(trace);
    while let Some(due) = core.poll_timeout().filter(|&d| d <= end) {
        core.handle_timeout(due);
        drain(&mut core, &mut events);
    }
    (core, events)
}

/// Where [`replay`] stops: a minute after the last read from the board.
fn replay_end(trace: &Trace) -> Time {
    let last = trace
        .chunks
        .iter()
        .rev()
        .find(|c| c.dir == Direction::FromBoard)
        .map_or(Time::ZERO, |c| c.t);
    Time::from_millis(last.as_micros() / 1000 + 60_000)
}

/// Each confirmed ply's SAN and the time of its last sensor report.
fn last_reports(tracker: &eboardd_core::tracker::Tracker) -> Vec<(String, Time)> {
    tracker
        .game()
        .map(|g| {
            g.plies()
                .iter()
                .map(|p| {
                    let t = p.log.iter().map(|e| e.t).max().unwrap_or(p.confirmed_at);
                    (p.san.to_string(), t)
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
    /// Corrections (runs of retractions).
    pub corrections: usize,
    /// Games whose published moves were ever wrong.
    pub wrong_games: usize,
    /// Games whose final move list is the game played (transient misreads corrected on the
    /// way allowed).
    pub ends_right: usize,
    /// Games whose final move list is the game played but for readings the board cannot
    /// tell apart, published with the move played among their `alternatives`.
    pub ends_right_but_alternatives: usize,
    /// Each game's time wrong in all, in ms.
    pub wrong_ms: Vec<f64>,
    /// Each game's longest time wrong at once, in ms.
    pub longest_wrong_ms: Vec<f64>,
    /// Each game's longest time wrong at once but for readings the board cannot tell apart,
    /// in ms.
    pub longest_wrong_but_alternatives_ms: Vec<f64>,
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
        self.corrections += s.corrections;
        self.wrong_games += usize::from(s.ever_wrong);
        self.ends_right += usize::from(s.ends_right());
        self.ends_right_but_alternatives += usize::from(s.ends_right_but_alternatives());
        self.wrong_ms.push(s.wrong_ms);
        self.longest_wrong_ms.push(s.longest_wrong_ms);
        self.longest_wrong_but_alternatives_ms
            .push(s.longest_wrong_but_alternatives_ms);
    }

    /// The corrections and how long the published moves were wrong, on one line:
    /// `corrections N, wrong in G/M games, longest ms median X p99 Y (Z but for
    /// alternatives), total ms median X p99 Y, ending right E/M (A/M but for alternatives)`
    /// (quantiles over every game, the games never wrong counting 0; ending right: the
    /// final move list is the game played; but for alternatives: where the move played is
    /// among a published move's `alternatives`, that move counts as the move played).
    pub fn history(&self) -> String {
        let q = |v: &[f64], x: f64| {
            quantile(v, x)
                .map(|v| format!("{v:.0}"))
                .unwrap_or_else(|| "-".into())
        };
        format!(
            "corrections {}, wrong in {}/{} games, longest ms median {} p99 {} ({} but for alternatives), total ms median {} p99 {}, ending right {}/{} ({}/{} but for alternatives)",
            self.corrections,
            self.wrong_games,
            self.games,
            q(&self.longest_wrong_ms, 0.5),
            q(&self.longest_wrong_ms, 0.99),
            q(&self.longest_wrong_but_alternatives_ms, 0.99),
            q(&self.wrong_ms, 0.5),
            q(&self.wrong_ms, 0.99),
            self.ends_right,
            self.games,
            self.ends_right_but_alternatives,
            self.games,
        )
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

#[cfg(test)]
mod tests {
    use super::*;

    fn truth(sans: &[&str]) -> Vec<String> {
        sans.iter().map(|s| s.to_string()).collect()
    }

    fn at(ms: u64) -> Time {
        Time::from_millis(ms)
    }

    fn mv(ply: u32, san: &str) -> Published {
        Published::Move {
            ply,
            san: san.to_string(),
            alternatives: Vec::new(),
        }
    }

    #[test]
    fn a_move_published_with_the_move_played_among_its_alternatives_ends_right_but_for_it() {
        // d7-d5 taken en passant and d7-d6 taken at once leave the same reports.
        let played = Truth {
            san: truth(&["e4", "d5", "exd6"]),
            uci: truth(&["e2e4", "d7d5", "e5d6"]),
            ..Truth::default()
        };
        let listed = truth(&["d7d5"]);
        assert!(only_an_alternative(&listed, &played, 1));
        assert!(!only_an_alternative(&[], &played, 1));
        assert!(!only_an_alternative(&truth(&["d7d6"]), &played, 1));
        let score = GameScore {
            expected: 3,
            correct: 2,
            indistinguishable: 1,
            ..GameScore::default()
        };
        assert!(!score.ends_right());
        assert!(score.ends_right_but_alternatives());
        let lost = GameScore {
            missed: 1,
            ..score.clone()
        };
        assert!(!lost.ends_right_but_alternatives());
    }

    #[test]
    fn a_move_published_with_the_move_played_among_its_alternatives_is_wrong_but_for_it() {
        let san = truth(&["e4", "d5", "exd6"]);
        let uci = truth(&["e2e4", "d7d5", "e5d6"]);
        let listed = truth(&["d7d5"]);
        let changes = [
            (at(100), mv(1, "e4")),
            (
                at(200),
                Published::Move {
                    ply: 2,
                    san: "d6".to_string(),
                    alternatives: listed,
                },
            ),
            (at(300), mv(3, "exd6")),
            (at(500), mv(4, "Nf3")),
            (at(700), Published::Retract { ply: 4 }),
        ];
        let mut f = GameScore::default();
        follow(&changes, (&san, &uci), at(60_000), &mut f);
        // Wrong from 200 ms to the end; but for the alternative, only while Nf3 stood.
        assert_eq!(f.longest_wrong_ms, 59_800.0);
        assert_eq!(f.longest_wrong_but_alternatives_ms, 200.0);
    }

    #[test]
    fn retractions_in_a_row_are_one_correction() {
        let played = truth(&["e4", "e5", "Nf3"]);
        let changes = [
            (at(100), mv(1, "e4")),
            (at(200), mv(2, "e6")),
            (at(300), mv(3, "Nf3")),
            (at(400), Published::Retract { ply: 3 }),
            (at(400), Published::Retract { ply: 2 }),
            (at(400), mv(2, "e5")),
            (at(400), mv(3, "Nf3")),
        ];
        let mut f = GameScore::default();
        let game = follow(&changes, (&played, &[]), at(60_000), &mut f);
        assert_eq!((f.retracts, f.corrections, f.misread), (2, 1, 1));
        assert_eq!(game.len(), 3);
        // Wrong from the misread at 200 ms to the correction at 400 ms.
        assert!(f.ever_wrong);
        assert_eq!((f.wrong_ms, f.longest_wrong_ms), (200.0, 200.0));
    }

    #[test]
    fn lagging_behind_is_not_wrong_but_a_wrong_move_left_standing_is_until_the_end() {
        let played = truth(&["e4", "e5", "Nf3", "Nc6"]);
        let lagging = [(at(100), mv(1, "e4+"))];
        let mut f = GameScore::default();
        follow(&lagging, (&played, &[]), at(60_000), &mut f);
        assert!(!f.ever_wrong);
        assert_eq!(f.wrong_ms, 0.0);
        let changes = [
            (at(100), mv(1, "e4")),
            (at(200), mv(2, "d5")),
            (at(300), Published::Retract { ply: 2 }),
            (at(350), mv(2, "e5")),
            (at(500), mv(3, "Nc3")),
        ];
        let mut f = GameScore::default();
        follow(&changes, (&played, &[]), at(1_500), &mut f);
        assert_eq!((f.retracts, f.corrections, f.misread), (1, 1, 2));
        // 100 ms wrong (200–300), then wrong from 500 ms to the end of the replay.
        assert_eq!(f.wrong_ms, 1_100.0);
        assert_eq!(f.longest_wrong_ms, 1_000.0);
    }
}
