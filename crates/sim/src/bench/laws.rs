//! Scoring the arbiter against the observations of a game's truth.
//!
//! A truth file (`NAME.json` beside `NAME.trace`) lists the breaches a correct arbiter
//! reports under the 2023 Laws: ply, article and, for touches, the square touched.
//! [`score_laws`] replays the trace through a [`BoardCore`](eboardd_core::pipeline::BoardCore) and matches every `violation`
//! event against them: an observation is *found* when a violation has its ply and article
//! (and its square, when the observation names one); a violation that matches no
//! observation is *false*. Figures are kept per article. Nothing here is used by the daemon.

use std::collections::BTreeMap;
use std::fmt;

use crate::bench::accuracy::Truth;
use eboardd_core::event::{GameEvent, TimedEvent};
use eboardd_core::pipeline::CoreConfig;
use eboardd_core::trace::Trace;

/// Expected, found and false counts of one article.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Observations in the truth.
    pub expected: usize,
    /// Observations reported with the right ply and article (and square).
    pub found: usize,
    /// Violations reported that match no observation.
    pub false_reports: usize,
}

/// How the arbiter did on one or more games.
#[derive(Debug, Clone, Default)]
pub struct LawsScore {
    /// Moves in the truth (the denominator of the false-report rate).
    pub moves: usize,
    /// Counts per article.
    pub articles: BTreeMap<String, Counts>,
    /// Observations not reported, as `ply article square`, for debugging.
    pub missed: Vec<String>,
    /// Violations that match no observation, as `ply article square detail`.
    pub false_lines: Vec<String>,
}

impl LawsScore {
    /// Adds another game's score.
    pub fn add(&mut self, other: &LawsScore) {
        self.moves += other.moves;
        for (a, c) in &other.articles {
            let e = self.articles.entry(a.clone()).or_default();
            e.expected += c.expected;
            e.found += c.found;
            e.false_reports += c.false_reports;
        }
        self.missed.extend(other.missed.iter().cloned());
        self.false_lines.extend(other.false_lines.iter().cloned());
    }

    /// All articles summed.
    pub fn total(&self) -> Counts {
        self.articles
            .values()
            .fold(Counts::default(), |a, c| Counts {
                expected: a.expected + c.expected,
                found: a.found + c.found,
                false_reports: a.false_reports + c.false_reports,
            })
    }
}

impl fmt::Display for LawsScore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<8} {:>9} {:>6} {:>6}",
            "article", "expected", "found", "false"
        )?;
        for (a, c) in &self.articles {
            writeln!(
                f,
                "{a:<8} {:>9} {:>6} {:>6}",
                c.expected, c.found, c.false_reports
            )?;
        }
        let t = self.total();
        let rate = if self.moves == 0 {
            0.0
        } else {
            1000.0 * t.false_reports as f64 / self.moves as f64
        };
        write!(
            f,
            "{:<8} {:>9} {:>6} {:>6}   ({} moves, {rate:.2} false reports per 1000 moves)",
            "all", t.expected, t.found, t.false_reports, self.moves
        )
    }
}

/// Replays `trace` through a core made with `config` and returns every event.
pub fn replay_events(trace: &Trace, mut config: CoreConfig) -> Vec<TimedEvent> {
    if config.start_fen.is_none() {
        config.start_fen = trace.header.start_fen.clone();
    }
    super::accuracy::replay(trace, config).1
}

/// Replays `trace` with `config` and scores its violations against `truth`.
pub fn score_laws(trace: &Trace, truth: &Truth, config: CoreConfig) -> LawsScore {
    let events = replay_events(trace, config);
    let mut score = LawsScore {
        moves: truth.san.len(),
        ..LawsScore::default()
    };
    let mut matched = vec![false; truth.observations.len()];
    for o in &truth.observations {
        score
            .articles
            .entry(o.article.clone())
            .or_default()
            .expected += 1;
    }
    for e in &events {
        let GameEvent::Violation {
            ply,
            article,
            square,
            detail,
            ..
        } = &e.event
        else {
            continue;
        };
        let hit = truth.observations.iter().enumerate().position(|(i, o)| {
            !matched[i]
                && o.ply == *ply
                && &o.article == article
                && (o.square.is_none() || o.square == square.map(|s| s.to_string()))
        });
        let counts = score.articles.entry(article.clone()).or_default();
        match hit {
            Some(i) => {
                matched[i] = true;
                counts.found += 1;
            }
            None => {
                counts.false_reports += 1;
                score.false_lines.push(format!(
                    "{ply} {article} {} {detail}",
                    square.map_or("-".to_string(), |s| s.to_string())
                ));
            }
        }
    }
    for (o, m) in truth.observations.iter().zip(&matched) {
        if !m {
            score.missed.push(format!(
                "{} {} {}",
                o.ply,
                o.article,
                o.square.as_deref().unwrap_or("-")
            ));
        }
    }
    score
}
