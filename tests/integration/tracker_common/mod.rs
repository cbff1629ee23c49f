//! Test helpers for the tracker: square changes scripted by hand with their times, a
//! driver that runs a tracker over timed changes (handling its timeouts as a shell would)
//! and collects its events, and small fixtures (squares, pieces, boards and moves from
//! text, set-up positions, an opening).
#![allow(dead_code)]

use std::time::Duration;

use eboardd::event::{GameEvent, TimedEvent};
use eboardd::sensing::SquareChange;
use eboardd::time::Time;
use eboardd::tracker::{Tracker, TrackerConfig};
use shakmaty::{Board, Chess, Move, Piece, Position, Square, uci::UciMove};

/// A square by name.
pub fn sq(name: &str) -> Square {
    name.parse().expect("square name")
}

/// A piece by FEN letter.
pub fn pc(c: char) -> Piece {
    Piece::from_char(c).expect("piece letter")
}

/// Timed square changes, written by hand.
#[derive(Debug, Default, Clone)]
pub struct Script {
    /// The changes.
    pub changes: Vec<(Time, SquareChange)>,
    /// The current time in milliseconds.
    pub ms: f64,
}

impl Script {
    /// An empty script at time 1000 ms.
    pub fn new() -> Script {
        Script {
            changes: Vec::new(),
            ms: 1000.0,
        }
    }
    /// Moves time on by `ms`.
    pub fn wait(mut self, ms: f64) -> Script {
        self.ms += ms;
        self
    }
    /// A square reported empty.
    pub fn lift(mut self, s: &str) -> Script {
        self.changes.push((
            Time::from_ms_f64(self.ms),
            SquareChange {
                square: sq(s),
                piece: None,
            },
        ));
        self
    }
    /// A piece reported on a square.
    pub fn place(mut self, s: &str, p: char) -> Script {
        self.changes.push((
            Time::from_ms_f64(self.ms),
            SquareChange {
                square: sq(s),
                piece: Some(pc(p)),
            },
        ));
        self
    }
}

/// What a run produced.
#[derive(Debug, Default)]
pub struct Run {
    /// Every event in order.
    pub events: Vec<TimedEvent>,
}

impl Run {
    /// The UCI moves of the game as it ends up (after retracts and takebacks).
    pub fn final_uci(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for e in &self.events {
            match &e.event {
                GameEvent::NewGame { .. } => out.clear(),
                GameEvent::Move { uci, .. } => out.push(uci.to_string()),
                GameEvent::Retract { ply, .. } | GameEvent::Takeback { ply } => {
                    let keep = if matches!(e.event, GameEvent::Retract { .. }) {
                        (*ply as usize).saturating_sub(1)
                    } else {
                        *ply as usize
                    };
                    out.truncate(keep);
                }
                _ => {}
            }
        }
        out
    }
    /// The `move` events: (time, ply, uci).
    pub fn moves(&self) -> Vec<(Time, u32, String)> {
        self.events
            .iter()
            .filter_map(|e| match &e.event {
                GameEvent::Move { ply, uci, .. } => Some((e.t, *ply, uci.to_string())),
                _ => None,
            })
            .collect()
    }
    /// How many events of a kind (`retract`, `mismatch`...).
    pub fn count(&self, kind: &str) -> usize {
        self.events
            .iter()
            .filter(|e| e.to_json_line().contains(&format!("\"event\":\"{kind}\"")))
            .count()
    }
    /// Every event as a JSON line.
    pub fn lines(&self) -> String {
        self.events
            .iter()
            .map(|e| e.to_json_line())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Runs `tracker` from a first board report at time 0 over the changes, handling timeouts
/// as a shell would, and for `tail_ms` after the last change.
pub fn run_with(
    tracker: &mut Tracker,
    first: Option<&Board>,
    changes: &[(Time, SquareChange)],
    tail_ms: u64,
) -> Run {
    let mut run = Run::default();
    if let Some(b) = first {
        tracker.handle_board(Time::ZERO, b);
    }
    drain(tracker, &mut run);
    for (t, c) in changes {
        advance(tracker, *t, &mut run);
        tracker.handle_change(*t, *c);
        drain(tracker, &mut run);
    }
    let end = changes.last().map_or(Time::ZERO, |c| c.0) + Duration::from_millis(tail_ms);
    advance(tracker, end, &mut run);
    run
}

/// Handles every timeout due up to `t`.
pub fn advance(tracker: &mut Tracker, t: Time, run: &mut Run) {
    while let Some(due) = tracker.poll_timeout() {
        if due > t {
            break;
        }
        tracker.handle_timeout(due);
        drain(tracker, run);
        if tracker.poll_timeout() == Some(due) {
            break;
        }
    }
}

/// Collects the events.
pub fn drain(tracker: &mut Tracker, run: &mut Run) {
    while let Some(e) = tracker.poll_event() {
        run.events.push(e);
    }
}

/// Runs a script on a standard start with the default configuration.
pub fn run_script(script: &Script) -> Run {
    run_script_with(TrackerConfig::default(), &Board::new(), script)
}

/// Runs a script from a start board with a configuration.
pub fn run_script_with(cfg: TrackerConfig, first: &Board, script: &Script) -> Run {
    let mut t = Tracker::new(cfg);
    run_with(&mut t, Some(first), &script.changes, 5000)
}

/// Plays UCI strings from `start`.
pub fn moves_of(start: &Chess, ucis: &[&str]) -> Vec<Move> {
    let mut pos = start.clone();
    let mut out = Vec::new();
    for u in ucis {
        let m = u
            .parse::<UciMove>()
            .expect("uci")
            .to_move(&pos)
            .expect("legal");
        pos.play_unchecked(m);
        out.push(m);
    }
    out
}

/// A board from the piece part of a FEN.
pub fn board(fen: &str) -> Board {
    fen.parse().expect("board fen")
}

/// When `uci` was confirmed, in ms (panics with the events if it never was).
pub fn confirm_time(run: &Run, uci: &str) -> f64 {
    run.moves()
        .iter()
        .find(|m| m.2 == uci)
        .map(|m| m.0.as_ms_f64())
        .unwrap_or_else(|| panic!("{uci} not confirmed:\n{}", run.lines()))
}

/// `cfg` starting from `fen`, and the board that position shows.
pub fn set_up(fen: &str, cfg: TrackerConfig) -> (TrackerConfig, Board) {
    let cfg = TrackerConfig {
        start_fen: Some(fen.to_string()),
        ..cfg
    };
    (cfg, board(fen.split(' ').next().expect("placement")))
}

/// 1. e4 e5 2. Nf3 Nc6, as lifts and placements, from 1000 ms on.
pub fn open_game() -> Script {
    Script::new()
        .lift("e2")
        .place("e4", 'P')
        .wait(700.0)
        .lift("e7")
        .place("e5", 'p')
        .wait(700.0)
        .lift("g1")
        .place("f3", 'N')
        .wait(700.0)
        .lift("b8")
        .place("c6", 'n')
        .wait(700.0)
}

/// A standard tracker configuration with piece identity.
pub fn config() -> TrackerConfig {
    TrackerConfig::default()
}
