//! The payloads of the MQTT topics, as JSON: a board's events and its state.
//!
//! An event is the contract's JSON line (`protocols/events.md`) with `host`, `board`, `run`
//! and `seq` added; a state is one object (see [`StateMessage`]). This module only turns
//! them into text and back; it knows nothing of brokers.

use serde::{Deserialize, Serialize};

use crate::event::{GameEvent, TimedEvent};
use crate::game::record::{GameRecord, RecordedMove};
use crate::time::Time;
use shakmaty::Color;

/// Where a message stands in a board's history: one life of the publishing daemon
/// (`run`), and the count of the board's events in it (`seq`, from 1; 0 before any).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Position {
    /// The daemon's life: its start time in milliseconds since the Unix epoch.
    pub run: u64,
    /// The board's events in that life.
    pub seq: u64,
}

/// Why a payload was not understood.
#[derive(Debug, thiserror::Error)]
#[error("not an eboardd {what} message: {why}")]
pub struct PayloadError {
    what: &'static str,
    why: String,
}

/// One event of a board, as published on `…/board/N/event`.
#[derive(Debug, Clone, PartialEq)]
pub struct EventMessage {
    /// The publishing host's name.
    pub host: String,
    /// The board's number on that host.
    pub board: u32,
    /// Where the event stands in the board's history.
    pub at: Position,
    /// The event.
    pub event: TimedEvent,
}

impl EventMessage {
    /// The payload: the event's contract line with the four fields added.
    pub fn to_json(&self) -> String {
        let line = self.event.to_json_line();
        let host = serde_json::to_string(&self.host).unwrap_or_default();
        let rest = line.strip_prefix('{').unwrap_or(&line);
        format!(
            "{{\"host\":{host},\"board\":{},\"run\":{},\"seq\":{},{rest}",
            self.board, self.at.run, self.at.seq
        )
    }

    /// Reads a payload.
    pub fn from_json(bytes: &[u8]) -> Result<EventMessage, PayloadError> {
        let bad = |why: String| PayloadError { what: "event", why };
        let value: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| bad(e.to_string()))?;
        let field = |name: &str| {
            value
                .get(name)
                .and_then(serde_json::Value::as_u64)
                .ok_or_else(|| bad(format!("no number `{name}`")))
        };
        let host = value
            .get("host")
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| bad("no text `host`".into()))?
            .to_string();
        let board = u32::try_from(field("board")?).map_err(|e| bad(e.to_string()))?;
        let at = Position {
            run: field("run")?,
            seq: field("seq")?,
        };
        let t_ms = value
            .get("t_ms")
            .and_then(serde_json::Value::as_f64)
            .unwrap_or(0.0);
        let event: GameEvent = serde_json::from_value(value).map_err(|e| bad(e.to_string()))?;
        Ok(EventMessage {
            host,
            board,
            at,
            event: TimedEvent {
                t: Time::from_ms_f64(t_ms),
                event,
            },
        })
    }
}

/// A clock as the state carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockState {
    /// White's remaining time, in milliseconds.
    pub white_ms: u64,
    /// Black's remaining time, in milliseconds.
    pub black_ms: u64,
    /// Whose clock runs, if any (`white`, `black`, or null).
    #[serde(default, with = "crate::event::text::option")]
    pub running: Option<Color>,
}

/// One move of [`GameState`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveState {
    /// UCI notation.
    pub uci: String,
    /// Standard Algebraic Notation.
    pub san: String,
    /// The mover's remaining time after the move, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_ms: Option<u64>,
    /// How long the move took, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emt_ms: Option<u64>,
}

/// The game as the state carries it: enough to rebuild it whole.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameState {
    /// The start position, once a game started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_fen: Option<String>,
    /// Whether Chess960 rules apply.
    #[serde(default)]
    pub chess960: bool,
    /// The moves, in order.
    #[serde(default)]
    pub moves: Vec<MoveState>,
    /// The result, once decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
}

const STANDARD_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

impl GameState {
    /// The game of `record`.
    pub fn of(record: &GameRecord) -> GameState {
        GameState {
            start_fen: record.start_fen.clone(),
            chess960: record.chess960,
            moves: record
                .moves
                .iter()
                .map(|m| MoveState {
                    uci: m.uci.to_string(),
                    san: m.san.to_string(),
                    clock_ms: m.clock_ms,
                    emt_ms: m.emt_ms,
                })
                .collect(),
            result: record.result.map(|r| r.to_string()),
        }
    }

    /// The record this game rebuilds. A move that does not read as UCI and SAN ends the
    /// game there, as in [`GameState::events`]; a result that does not read is left out.
    pub fn record(&self) -> GameRecord {
        GameRecord {
            start_fen: self.start_fen.clone(),
            chess960: self.chess960,
            moves: self
                .moves
                .iter()
                .map_while(|m| {
                    Some(RecordedMove {
                        uci: m.uci.parse().ok()?,
                        san: m.san.parse().ok()?,
                        clock_ms: m.clock_ms,
                        emt_ms: m.emt_ms,
                    })
                })
                .collect(),
            result: self.result.as_deref().and_then(|r| r.parse().ok()),
        }
    }

    /// The events that rebuild this game from anything: a new game, each move, the
    /// result. (The moves' FENs are not carried: the PGN does not need them.) A move that
    /// does not read as UCI and SAN ends the game there: what follows it has no place.
    /// A result that does not read is left out.
    pub fn events(&self) -> Vec<GameEvent> {
        let record = self.record();
        let whole = record.moves.len() == self.moves.len();
        let mut events = vec![GameEvent::NewGame {
            fen: record.start_fen.unwrap_or_else(|| STANDARD_FEN.into()),
            chess960: record.chess960,
        }];
        events.extend(
            record
                .moves
                .into_iter()
                .enumerate()
                .map(|(i, m)| GameEvent::Move {
                    ply: u32::try_from(i + 1).unwrap_or(u32::MAX),
                    uci: m.uci,
                    san: m.san,
                    fen: String::new(),
                    clock_ms: m.clock_ms,
                    emt_ms: m.emt_ms,
                    alternatives: Vec::new(),
                }),
        );
        if whole && let Some(result) = record.result {
            events.push(GameEvent::Result {
                result,
                reason: String::new(),
            });
        }
        events
    }
}

/// A board now, as published (retained) on `…/board/N/state`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StateMessage {
    /// The publishing host's name.
    pub host: String,
    /// The board's number on that host.
    pub board: u32,
    /// The last event this state includes.
    pub run: u64,
    /// See [`Position::seq`].
    pub seq: u64,
    /// Whether the board is connected (`false`: away).
    pub connected: bool,
    /// The protocol (`dgt`, `millennium`), empty until known.
    pub protocol: String,
    /// The device path on its host.
    pub device: String,
    /// The board's serial number, empty until known.
    pub serial: String,
    /// The game position.
    pub fen: String,
    /// Plies played.
    pub ply: u32,
    /// The game as PGN, with the publishing host's round tags (the relay's text).
    pub pgn: String,
    /// The last clock reading, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockState>,
    /// White's name, if configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white: Option<String>,
    /// Black's name, if configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black: Option<String>,
    /// The game itself.
    pub game: GameState,
}

/// The fields of a state that say whose it is and where it stands, read without the rest.
#[derive(Debug, Clone, Deserialize)]
pub struct StateHead {
    /// The publishing host's name.
    pub host: String,
    /// The board's number on that host.
    pub board: u32,
    /// See [`Position::run`].
    pub run: u64,
    /// See [`Position::seq`].
    pub seq: u64,
    /// Whether the board is connected.
    #[serde(default)]
    pub connected: bool,
    /// The protocol, empty until known.
    #[serde(default)]
    pub protocol: String,
    /// The device path on its host.
    #[serde(default)]
    pub device: String,
    /// The board's serial number, empty until known.
    #[serde(default)]
    pub serial: String,
}

impl StateHead {
    /// Reads the head of a state payload.
    pub fn from_json(bytes: &[u8]) -> Result<StateHead, PayloadError> {
        serde_json::from_slice(bytes).map_err(|e| PayloadError {
            what: "state",
            why: e.to_string(),
        })
    }

    /// Where the state stands.
    pub fn at(&self) -> Position {
        Position {
            run: self.run,
            seq: self.seq,
        }
    }
}

impl StateMessage {
    /// Where this state stands.
    pub fn at(&self) -> Position {
        Position {
            run: self.run,
            seq: self.seq,
        }
    }

    /// The payload.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads a payload.
    pub fn from_json(bytes: &[u8]) -> Result<StateMessage, PayloadError> {
        serde_json::from_slice(bytes).map_err(|e| PayloadError {
            what: "state",
            why: e.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_the_contract_line_with_its_place_added() {
        let m = EventMessage {
            host: "hall-a".into(),
            board: 3,
            at: Position { run: 17, seq: 2 },
            event: TimedEvent {
                t: Time::from_ms_f64(40.0),
                event: GameEvent::Takeback { ply: 4 },
            },
        };
        let json = m.to_json();
        assert_eq!(
            json,
            r#"{"host":"hall-a","board":3,"run":17,"seq":2,"t_ms":40.0,"event":"takeback","ply":4}"#
        );
        assert_eq!(EventMessage::from_json(json.as_bytes()).expect("back"), m);
        assert!(EventMessage::from_json(b"{\"event\":\"takeback\",\"ply\":1}").is_err());
        assert!(EventMessage::from_json(b"not json").is_err());
    }

    #[test]
    fn a_state_with_a_move_that_does_not_read_ends_its_game_there() {
        let state = GameState {
            start_fen: None,
            chess960: false,
            moves: ["e2e4", "e7e5x", "g1f3"]
                .into_iter()
                .map(|uci| MoveState {
                    uci: uci.into(),
                    san: "e4".into(),
                    clock_ms: None,
                    emt_ms: None,
                })
                .collect(),
            result: Some("won".into()),
        };
        let events = state.events();
        assert!(matches!(events[0], GameEvent::NewGame { .. }));
        assert!(
            matches!(&events[1..], [GameEvent::Move { ply: 1, .. }]),
            "{events:?}"
        );
        let record = state.record();
        let moves: Vec<String> = record.moves.iter().map(|m| m.uci.to_string()).collect();
        assert_eq!(moves, ["e2e4"]);
        assert_eq!(record.result, None);
    }

    #[test]
    fn a_clock_state_names_the_running_side_as_the_events_do() {
        let clock = ClockState {
            white_ms: 60_000,
            black_ms: 59_000,
            running: Some(Color::Black),
        };
        let json = serde_json::to_string(&clock).expect("json");
        assert_eq!(
            json,
            r#"{"white_ms":60000,"black_ms":59000,"running":"black"}"#
        );
        assert_eq!(
            serde_json::from_str::<ClockState>(&json).expect("back"),
            clock
        );
        let stopped: ClockState =
            serde_json::from_str(r#"{"white_ms":1,"black_ms":2}"#).expect("no side");
        assert_eq!(stopped.running, None);
        assert!(
            serde_json::from_str::<ClockState>(r#"{"white_ms":1,"black_ms":2,"running":"red"}"#)
                .is_err()
        );
    }

    #[test]
    fn a_state_rebuilds_its_game() {
        let mut record = GameRecord::default();
        for e in [
            GameEvent::NewGame {
                fen: STANDARD_FEN.into(),
                chess960: false,
            },
            GameEvent::Move {
                ply: 1,
                uci: "e2e4".parse().expect("uci"),
                san: "e4".parse().expect("san"),
                fen: String::new(),
                clock_ms: Some(1000),
                emt_ms: None,
                alternatives: vec![],
            },
            GameEvent::Result {
                result: "1-0".parse().expect("result"),
                reason: "resigned".into(),
            },
        ] {
            record.apply(&e);
        }
        let game = GameState::of(&record);
        assert_eq!(game.record(), record);
        let mut rebuilt = GameRecord {
            moves: vec![RecordedMove {
                uci: "d2d4".parse().expect("uci"),
                san: "d4".parse().expect("san"),
                clock_ms: None,
                emt_ms: None,
            }],
            ..GameRecord::default()
        };
        for e in game.events() {
            rebuilt.apply(&e);
        }
        assert_eq!(rebuilt, record);
        let state = StateMessage {
            host: "h".into(),
            game,
            ..StateMessage::default()
        };
        let back = StateMessage::from_json(state.to_json().as_bytes()).expect("back");
        assert_eq!(back, state);
    }
}
