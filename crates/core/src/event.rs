//! The game events: the one stream every sink reads.
//!
//! These are the events of the JSON contract (`protocols/events.md`): `eboardd replay`
//! prints them one per line, and the daemon's D-Bus signals, the UCI bridge and the relay
//! carry the same values. Fields may be added; none may be removed or renamed. This module
//! only describes events; it knows nothing of how they are decided or delivered.
//!
//! Moves, squares and results are shakmaty's types ([`UciMove`], [`SanPlus`], [`Square`],
//! [`KnownOutcome`]); they become the contract's text only at the serde edge.

use serde::{Deserialize, Serialize};
use shakmaty::san::{San, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::{Color, KnownOutcome, Square};

use crate::time::Time;

/// Which way round a board stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Orientation {
    /// The board's own numbering matches chess coordinates as the protocol defines it.
    #[default]
    Normal,
    /// The board is turned 180°: its numbering is read backwards.
    Rotated,
}

impl Orientation {
    /// The other way round.
    pub fn flipped(self) -> Orientation {
        match self {
            Orientation::Normal => Orientation::Rotated,
            Orientation::Rotated => Orientation::Normal,
        }
    }

    /// The name used in events and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Orientation::Normal => "normal",
            Orientation::Rotated => "rotated",
        }
    }
}

/// Something eboardd decided about the game on a board.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum GameEvent {
    /// The pieces the board first reported, in chess coordinates, and its orientation.
    Board {
        /// FEN piece placement.
        placement: String,
        /// Which way round the board stands.
        orientation: Orientation,
    },
    /// A game starts from this position.
    NewGame {
        /// Full FEN of the start position.
        fen: String,
        /// Whether Chess960 castling rules apply.
        chess960: bool,
    },
    /// A move is complete and confirmed.
    Move {
        /// Ply number, from 1 for the first move of the game.
        ply: u32,
        /// The move in UCI notation (`e1h1` castling in Chess960 games, else `e1g1`).
        uci: UciMove,
        /// The move in Standard Algebraic Notation.
        san: SanPlus,
        /// The position after the move.
        fen: String,
        /// The mover's remaining time on the clock once the move was made, in milliseconds
        /// (absent when no clock is read).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock_ms: Option<u64>,
        /// How long the move took (the mover's clock ran), in milliseconds (absent when
        /// unknown: no clock, or the mover's turn did not start on it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        emt_ms: Option<u64>,
        /// Other readings of the same sensor reports, in UCI notation: moves that the
        /// board cannot tell from this one (a pawn's single step taken at once, and a double
        /// step taken en passant, leave the same reports and the same position). This move
        /// is the likelier reading. Absent when there is none.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        alternatives: Vec<UciMove>,
    },
    /// A move already confirmed was not the move after all; the game is back to `ply - 1`.
    Retract {
        /// The ply withdrawn.
        ply: u32,
        /// The move withdrawn, in UCI notation.
        uci: UciMove,
    },
    /// The players took moves back; the game now ends after ply `ply`.
    Takeback {
        /// The last ply still in the game.
        ply: u32,
    },
    /// A breach of the Laws seen while ply `ply` was being played.
    Violation {
        /// The ply being played.
        ply: u32,
        /// The article of the chosen edition (`4.3a`, `4.7`, `7.5`...).
        article: String,
        /// The edition of the Laws (`fide-2023`...).
        laws: String,
        /// A sentence for people.
        detail: String,
        /// Whether the opponent may still claim it (2023 4.8: the right is lost once the
        /// claimant touches a piece; a later `claim_lapsed` says when).
        claimable: bool,
        /// The square of the piece the breach is about (the piece touched, the square a
        /// piece was released on), when there is one.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            with = "text::option"
        )]
        square: Option<Square>,
        /// A completed illegal move (`7.5`): the move, in UCI notation.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        uci: Option<UciMove>,
        /// A completed illegal move (`7.5`): the move in Standard Algebraic Notation
        /// (without check marks: the move stands in no game).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        san: Option<San>,
    },
    /// A violation reported earlier is withdrawn: the ply it was seen on was misread and
    /// has been retracted (the arbiter judges the right ply afresh once it is confirmed).
    Withdrawn {
        /// The ply of the violation.
        ply: u32,
        /// The article of the violation.
        article: String,
        /// The square of the violation, when it had one.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            with = "text::option"
        )]
        square: Option<Square>,
        /// A sentence for people.
        detail: String,
    },
    /// The right to claim an earlier violation was lost: the claimant touched a piece.
    ClaimLapsed {
        /// The ply of the violation.
        ply: u32,
        /// The article of the violation.
        article: String,
        /// A sentence for people.
        detail: String,
    },
    /// `enforce` mode: the move just made breaks the touch-move rules and is not confirmed;
    /// this is what the player must do once the board is put right.
    Due {
        /// The ply being played.
        ply: u32,
        /// The article that makes it due.
        article: String,
        /// The square of the piece that must move or be captured, when there is one.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            with = "text::option"
        )]
        square: Option<Square>,
        /// A sentence for people.
        detail: String,
    },
    /// The board differs from the game and no legal continuation explains it yet.
    Mismatch {
        /// The squares that differ, like `["e4","e5"]`.
        #[serde(with = "text::list")]
        squares: Vec<Square>,
        /// The legal position nearest to the board (full FEN): the game's position after
        /// the plies that explain the most of it, to put the pieces right by. Absent when
        /// no ply explains more of the board than the game's position does.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        nearest: Option<String>,
    },
    /// A clock reading.
    Clock {
        /// White's remaining time in milliseconds.
        white_ms: u64,
        /// Black's remaining time in milliseconds.
        black_ms: u64,
        /// Whose clock runs, if any (`white`, `black`, or null).
        #[serde(default, with = "text::option")]
        running: Option<Color>,
    },
    /// The game ended.
    Result {
        /// `1-0`, `0-1` or `1/2-1/2`.
        #[serde(with = "text")]
        result: KnownOutcome,
        /// Why (`checkmate`, `stalemate`, `kings in the centre`...).
        reason: String,
    },
}

impl GameEvent {
    /// A confirmed move with no clock reading and no alternative reading.
    pub fn plain_move(ply: u32, uci: UciMove, san: SanPlus, fen: &str) -> GameEvent {
        GameEvent::Move {
            ply,
            uci,
            san,
            fen: fen.into(),
            clock_ms: None,
            emt_ms: None,
            alternatives: Vec::new(),
        }
    }
}

/// Fields written as their text (`Display`) and read back from it (`FromStr`), for
/// shakmaty's types that have no serde of their own (`#[serde(with = "text")]`, and
/// `text::option`, `text::list`).
pub mod text {
    use std::fmt::Display;
    use std::str::FromStr;

    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes the value as its text.
    pub fn serialize<T: Display, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(value)
    }

    /// Reads the value from its text.
    pub fn deserialize<'de, T, D>(d: D) -> Result<T, D::Error>
    where
        T: FromStr<Err: Display>,
        D: Deserializer<'de>,
    {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        text.parse().map_err(D::Error::custom)
    }

    /// An optional field.
    pub mod option {
        use super::*;

        /// Writes the value as its text.
        pub fn serialize<T: Display, S: Serializer>(
            value: &Option<T>,
            s: S,
        ) -> Result<S::Ok, S::Error> {
            match value {
                Some(v) => s.collect_str(v),
                None => s.serialize_none(),
            }
        }

        /// Reads the value from its text.
        pub fn deserialize<'de, T, D>(d: D) -> Result<Option<T>, D::Error>
        where
            T: FromStr<Err: Display>,
            D: Deserializer<'de>,
        {
            Option::<std::borrow::Cow<str>>::deserialize(d)?
                .map(|text| text.parse().map_err(D::Error::custom))
                .transpose()
        }
    }

    /// A list.
    pub mod list {
        use serde::ser::SerializeSeq;

        use super::*;

        /// Writes the value as its text.
        pub fn serialize<T: Display, S: Serializer>(value: &[T], s: S) -> Result<S::Ok, S::Error> {
            let mut seq = s.serialize_seq(Some(value.len()))?;
            for v in value {
                seq.serialize_element(&v.to_string())?;
            }
            seq.end()
        }

        /// Reads the value from its text.
        pub fn deserialize<'de, T, D>(d: D) -> Result<Vec<T>, D::Error>
        where
            T: FromStr<Err: Display>,
            D: Deserializer<'de>,
        {
            Vec::<std::borrow::Cow<str>>::deserialize(d)?
                .into_iter()
                .map(|text| text.parse().map_err(D::Error::custom))
                .collect()
        }
    }
}

/// An event with the time it was decided.
#[derive(Debug, Clone, PartialEq)]
pub struct TimedEvent {
    /// When the decision was made (trace time in a replay).
    pub t: Time,
    /// What was decided.
    pub event: GameEvent,
}

#[derive(Serialize)]
struct Line<'a> {
    t_ms: f64,
    #[serde(flatten)]
    event: &'a GameEvent,
}

impl TimedEvent {
    /// The event as one line of the JSON contract, without the newline.
    pub fn to_json_line(&self) -> String {
        let line = Line {
            t_ms: self.t.as_ms_f64(),
            event: &self.event,
        };
        // Serialising plain strings, numbers and enums cannot fail.
        serde_json::to_string(&line).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_event_matches_the_contract() {
        let e = TimedEvent {
            t: Time::from_ms_f64(40.0),
            event: GameEvent::Board {
                placement: "8/8/8/8/8/8/8/8".into(),
                orientation: Orientation::Rotated,
            },
        };
        assert_eq!(
            e.to_json_line(),
            r#"{"t_ms":40.0,"event":"board","placement":"8/8/8/8/8/8/8/8","orientation":"rotated"}"#
        );
    }

    #[test]
    fn arbiter_events_match_the_contract() {
        let v = TimedEvent {
            t: Time::from_ms_f64(2300.0),
            event: GameEvent::Violation {
                ply: 1,
                article: "4.3a".into(),
                laws: "fide-2023".into(),
                detail: "d".into(),
                claimable: true,
                square: Some("g1".parse().expect("square")),
                uci: None,
                san: None,
            },
        };
        assert_eq!(
            v.to_json_line(),
            r#"{"t_ms":2300.0,"event":"violation","ply":1,"article":"4.3a","laws":"fide-2023","detail":"d","claimable":true,"square":"g1"}"#
        );
        let illegal = TimedEvent {
            t: Time::from_ms_f64(4000.0),
            event: GameEvent::Violation {
                ply: 1,
                article: "7.5".into(),
                laws: "fide-2023".into(),
                detail: "d".into(),
                claimable: true,
                square: Some("c3".parse().expect("square")),
                uci: Some("e2c3".parse().expect("uci")),
                san: Some("Nc3".parse().expect("san")),
            },
        };
        assert_eq!(
            illegal.to_json_line(),
            r#"{"t_ms":4000.0,"event":"violation","ply":1,"article":"7.5","laws":"fide-2023","detail":"d","claimable":true,"square":"c3","uci":"e2c3","san":"Nc3"}"#
        );
        let l = TimedEvent {
            t: Time::from_ms_f64(3300.0),
            event: GameEvent::ClaimLapsed {
                ply: 1,
                article: "4.3a".into(),
                detail: "d".into(),
            },
        };
        assert_eq!(
            l.to_json_line(),
            r#"{"t_ms":3300.0,"event":"claim_lapsed","ply":1,"article":"4.3a","detail":"d"}"#
        );
        let d = TimedEvent {
            t: Time::from_ms_f64(2300.0),
            event: GameEvent::Due {
                ply: 1,
                article: "7.5".into(),
                square: None,
                detail: "d".into(),
            },
        };
        assert_eq!(
            d.to_json_line(),
            r#"{"t_ms":2300.0,"event":"due","ply":1,"article":"7.5","detail":"d"}"#
        );
    }

    #[test]
    fn typed_fields_are_written_as_the_contract_text_and_read_back() {
        let events = [
            GameEvent::Move {
                ply: 7,
                uci: "e7e8n".parse().expect("uci"),
                san: "e8=N+".parse().expect("san"),
                fen: "f".into(),
                clock_ms: None,
                emt_ms: None,
                alternatives: vec!["e1h1".parse().expect("uci")],
            },
            GameEvent::Mismatch {
                squares: vec![Square::E4, Square::H8],
                nearest: None,
            },
            GameEvent::Result {
                result: "1/2-1/2".parse().expect("result"),
                reason: "r".into(),
            },
            GameEvent::Withdrawn {
                ply: 2,
                article: "4.3a".into(),
                square: Some(Square::G1),
                detail: "d".into(),
            },
        ];
        let lines: Vec<String> = events
            .iter()
            .map(|e| serde_json::to_string(e).expect("writes"))
            .collect();
        assert_eq!(
            lines,
            [
                r#"{"event":"move","ply":7,"uci":"e7e8n","san":"e8=N+","fen":"f","alternatives":["e1h1"]}"#,
                r#"{"event":"mismatch","squares":["e4","h8"]}"#,
                r#"{"event":"result","result":"1/2-1/2","reason":"r"}"#,
                r#"{"event":"withdrawn","ply":2,"article":"4.3a","square":"g1","detail":"d"}"#,
            ]
        );
        for (line, event) in lines.iter().zip(&events) {
            let read: GameEvent = serde_json::from_str(line).expect("reads back");
            assert_eq!(&read, event);
        }
    }

    #[test]
    fn a_field_that_is_not_its_notation_does_not_read() {
        for line in [
            r#"{"event":"retract","ply":1,"uci":"e2e9"}"#,
            r#"{"event":"mismatch","squares":["e4","i9"]}"#,
            r#"{"event":"result","result":"*","reason":"r"}"#,
            r#"{"event":"due","ply":1,"article":"4.3a","square":"x","detail":"d"}"#,
        ] {
            assert!(serde_json::from_str::<GameEvent>(line).is_err(), "{line}");
        }
    }

    #[test]
    fn clock_event_writes_null_when_stopped() {
        let e = TimedEvent {
            t: Time::from_ms_f64(1766.7),
            event: GameEvent::Clock {
                white_ms: 182_000,
                black_ms: 181_000,
                running: None,
            },
        };
        assert_eq!(
            e.to_json_line(),
            r#"{"t_ms":1766.7,"event":"clock","white_ms":182000,"black_ms":181000,"running":null}"#
        );
    }
}
