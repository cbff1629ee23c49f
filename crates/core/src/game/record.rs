//! The game as the event stream leaves it: start, moves, result.
//!
//! [`GameRecord`] follows [`GameEvent`]s (moves, retractions, takebacks, new games, results)
//! and keeps the game they add up to, for the outputs that print a whole game (PGN, UCI move
//! lists). It trusts the events and knows nothing of how they were decided.

use std::fmt::Write as _;

use shakmaty::KnownOutcome;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;

use crate::event::GameEvent;

/// One move of the game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedMove {
    /// The move in UCI notation.
    pub uci: UciMove,
    /// The move in Standard Algebraic Notation, with its check mark.
    pub san: SanPlus,
    /// The mover's remaining time after the move, in milliseconds, when a clock was read.
    pub clock_ms: Option<u64>,
    /// How long the move took, in milliseconds, when known.
    pub emt_ms: Option<u64>,
}

/// The game the events add up to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameRecord {
    /// The start position's FEN, once a game started.
    pub start_fen: Option<String>,
    /// Whether Chess960 rules apply.
    pub chess960: bool,
    /// The moves, in order.
    pub moves: Vec<RecordedMove>,
    /// The result, once decided.
    pub result: Option<KnownOutcome>,
}

/// The longest tag value written (PGN's limit for a string token); longer values are cut,
/// and control characters in them are written as escapes.
pub const MAX_TAG_VALUE: usize = 255;

/// The standard start position.
pub const STANDARD_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

impl GameRecord {
    /// Applies one event.
    pub fn apply(&mut self, event: &GameEvent) {
        match event {
            GameEvent::NewGame { fen, chess960 } => {
                *self = GameRecord {
                    start_fen: Some(fen.clone()),
                    chess960: *chess960,
                    ..GameRecord::default()
                };
            }
            GameEvent::Move {
                ply,
                uci,
                san,
                clock_ms,
                emt_ms,
                ..
            } => {
                let keep = (*ply as usize).saturating_sub(1);
                self.moves.truncate(keep);
                self.moves.push(RecordedMove {
                    uci: *uci,
                    san: *san,
                    clock_ms: *clock_ms,
                    emt_ms: *emt_ms,
                });
                self.result = None;
            }
            GameEvent::Retract { ply, .. } => {
                self.moves.truncate((*ply as usize).saturating_sub(1));
                self.result = None;
            }
            GameEvent::Takeback { ply } => {
                self.moves.truncate(*ply as usize);
                self.result = None;
            }
            GameEvent::Result { result, .. } => self.result = Some(*result),
            _ => {}
        }
    }

    /// The moves in UCI notation, one per line.
    pub fn uci_lines(&self) -> String {
        let mut out = String::new();
        for m in &self.moves {
            let _ = writeln!(out, "{}", m.uci);
        }
        out
    }

    /// The game as PGN, with the given tags first (Seven Tag Roster order is the caller's).
    pub fn to_pgn(&self, tags: &[(&str, &str)]) -> String {
        self.to_pgn_with_note(tags, None)
    }

    /// The game as PGN, with `note` as a comment after the last move (before the first
    /// move when there is none). Braces in the note are written as parentheses, so that the
    /// comment stays one comment.
    pub fn to_pgn_with_note(&self, tags: &[(&str, &str)], note: Option<&str>) -> String {
        let result = self
            .result
            .map_or_else(|| "*".to_string(), |r| r.to_string());
        let result = result.as_str();
        let mut out = String::new();
        for (k, v) in tags {
            let _ = writeln!(
                out,
                "[{k} \"{}\"]",
                crate::text::line(v, MAX_TAG_VALUE)
                    .replace('\\', "\\\\")
                    .replace('"', "\\\"")
            );
        }
        let _ = writeln!(out, "[Result \"{result}\"]");
        let start = self.start_fen.as_deref().unwrap_or(STANDARD_FEN);
        if self.chess960 {
            let _ = writeln!(out, "[Variant \"Chess960\"]");
        }
        if start != STANDARD_FEN || self.chess960 {
            let _ = writeln!(out, "[SetUp \"1\"]");
            let _ = writeln!(out, "[FEN \"{start}\"]");
        }
        out.push('\n');
        let mut fields = start.split_whitespace().skip(1);
        let black_first = fields.next() == Some("b");
        let mut number: u32 = start
            .split_whitespace()
            .nth(5)
            .and_then(|n| n.parse().ok())
            .unwrap_or(1)
            .max(1);
        let mut line = String::new();
        let push = |token: &str, out: &mut String, line: &mut String| {
            if !line.is_empty() && line.len() + 1 + token.len() > 79 {
                out.push_str(line);
                out.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(token);
        };
        for (i, m) in self.moves.iter().enumerate() {
            let white_to_move = (i % 2 == 0) != black_first;
            // A move number stays on the line of its move.
            if white_to_move {
                push(&format!("{number}. {}", m.san), &mut out, &mut line);
            } else if i == 0 {
                push(&format!("{number}... {}", m.san), &mut out, &mut line);
            } else {
                push(&m.san.to_string(), &mut out, &mut line);
            }
            if let Some(comment) = clock_comment(m) {
                push(&comment, &mut out, &mut line);
            }
            if !white_to_move {
                number += 1;
            }
        }
        if let Some(note) = note {
            let text = note.replace('{', "(").replace('}', ")");
            push("{", &mut out, &mut line);
            for word in text.split_whitespace() {
                push(word, &mut out, &mut line);
            }
            push("}", &mut out, &mut line);
        }
        push(result, &mut out, &mut line);
        out.push_str(&line);
        out.push('\n');
        out
    }
}

/// `h:mm:ss` for a number of milliseconds, whole seconds only (as clocks show them).
pub fn hms(ms: u64) -> String {
    let s = ms / 1000;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// The `{[%clk ...] [%emt ...]}` comment of a move, when any of its times is known.
fn clock_comment(m: &RecordedMove) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(ms) = m.clock_ms {
        parts.push(format!("[%clk {}]", hms(ms)));
    }
    if let Some(ms) = m.emt_ms {
        // Elapsed times are rounded to the nearest second, remaining times cut.
        parts.push(format!("[%emt {}]", hms(ms.saturating_add(500))));
    }
    (!parts.is_empty()).then(|| format!("{{{}}}", parts.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(ply: u32, uci: &str, san: &str) -> GameEvent {
        GameEvent::plain_move(
            ply,
            uci.parse().expect("uci"),
            san.parse().expect("san"),
            "",
        )
    }

    #[test]
    fn retract_and_takeback_shorten_the_game() {
        let mut g = GameRecord::default();
        g.apply(&GameEvent::NewGame {
            fen: STANDARD_FEN.into(),
            chess960: false,
        });
        for (i, (u, s)) in [("e2e4", "e4"), ("e7e5", "e5"), ("g1f3", "Nf3")]
            .iter()
            .enumerate()
        {
            g.apply(&mv(i as u32 + 1, u, s));
        }
        g.apply(&GameEvent::Retract {
            ply: 3,
            uci: "g1f3".parse().expect("uci"),
        });
        assert_eq!(g.uci_lines(), "e2e4\ne7e5\n");
        g.apply(&GameEvent::Takeback { ply: 1 });
        assert_eq!(g.uci_lines(), "e2e4\n");
    }

    #[test]
    fn pgn_numbers_moves_and_ends_with_the_result() {
        let mut g = GameRecord::default();
        g.apply(&mv(1, "e2e4", "e4"));
        g.apply(&mv(2, "e7e5", "e5"));
        g.apply(&mv(3, "d1h5", "Qh5"));
        g.apply(&GameEvent::Result {
            result: "1-0".parse().expect("result"),
            reason: "test".into(),
        });
        let pgn = g.to_pgn(&[("Event", "Test")]);
        assert!(
            pgn.starts_with("[Event \"Test\"]\n[Result \"1-0\"]\n\n"),
            "{pgn}"
        );
        assert!(pgn.ends_with("1. e4 e5 2. Qh5 1-0\n"), "{pgn}");
        assert!(!pgn.contains("[FEN"));
    }

    #[test]
    fn a_note_is_one_comment_after_the_last_move_or_before_the_first() {
        let mut g = GameRecord::default();
        let note = Some("Illegal move {here}: the king is left in check");
        assert!(
            g.to_pgn_with_note(&[], note)
                .ends_with("\n\n{ Illegal move (here): the king is left in check } *\n"),
            "{}",
            g.to_pgn_with_note(&[], note)
        );
        g.apply(&mv(1, "e2e4", "e4"));
        let pgn = g.to_pgn_with_note(&[], note);
        assert!(
            pgn.ends_with("1. e4 { Illegal move (here): the king is left in check } *\n"),
            "{pgn}"
        );
        assert_eq!(g.to_pgn_with_note(&[], None), g.to_pgn(&[]));
    }

    #[test]
    fn pgn_from_a_black_to_move_setup_starts_with_an_ellipsis() {
        let mut g = GameRecord::default();
        g.apply(&GameEvent::NewGame {
            fen: "4k3/8/8/8/8/8/4P3/4K3 b - - 0 7".into(),
            chess960: false,
        });
        g.apply(&mv(1, "e8d7", "Kd7"));
        g.apply(&mv(2, "e2e4", "e4"));
        let pgn = g.to_pgn(&[]);
        assert!(
            pgn.contains("[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 7\"]"),
            "{pgn}"
        );
        assert!(pgn.ends_with("7... Kd7 8. e4 *\n"), "{pgn}");
    }

    #[test]
    fn pgn_writes_clock_and_elapsed_time_after_each_timed_move() {
        let mut g = GameRecord::default();
        let mut e4 = mv(1, "e2e4", "e4");
        if let GameEvent::Move {
            clock_ms, emt_ms, ..
        } = &mut e4
        {
            *clock_ms = Some(5_403_999);
            *emt_ms = Some(3_600);
        }
        g.apply(&e4);
        g.apply(&mv(2, "e7e5", "e5"));
        let pgn = g.to_pgn(&[]);
        assert!(
            pgn.ends_with("1. e4 {[%clk 1:30:03] [%emt 0:00:04]} e5 *\n"),
            "{pgn}"
        );
    }

    #[test]
    fn chess960_games_carry_variant_setup_and_fen() {
        let mut g = GameRecord::default();
        let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
        g.apply(&GameEvent::NewGame {
            fen: fen.into(),
            chess960: true,
        });
        let pgn = g.to_pgn(&[]);
        assert!(pgn.contains("[Variant \"Chess960\"]\n"), "{pgn}");
        assert!(pgn.contains("[SetUp \"1\"]\n"), "{pgn}");
        assert!(pgn.contains(&format!("[FEN \"{fen}\"]\n")), "{pgn}");
    }
}
