//! Many hosts' boards put together as one tournament (sans-IO).
//!
//! [`Aggregator`] takes the states and events heard from the broker, in any order and with
//! QoS 1's duplicates, and says what the relay's games must do: add a board under its
//! tournament number, rebuild a game whole from a state, or follow one event. A board's
//! messages are ordered by their [`Position`]: an event is followed only when it is the
//! next one of its board; one heard early waits (a state that includes it ends the wait);
//! one heard before is dropped. A state later than what the relay has rebuilds the game.
//!
//! [`BoardMap`] gives each board its tournament number and players (`Round "R.B"`): by host
//! and board number, or by host and the board's serial number. Boards not in the map are
//! numbered after the map's, in the order they are first heard.
//!
//! Nothing here knows about MQTT clients, files or HTTP.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use serde::Deserialize;

use super::message::{EventMessage, Position, StateMessage};
use crate::event::{GameEvent, TimedEvent};

/// The most events one board may have waiting for the ones before them; past it the oldest
/// are dropped (a state rebuilds the game anyway).
pub const MAX_WAITING: usize = 4096;

/// One board of the map.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapEntry {
    /// The tournament board number, from 1.
    pub number: u32,
    /// The host's name (as in its topics).
    pub host: String,
    /// The board's number on the host (as in `…/board/N/`).
    #[serde(default)]
    pub board: Option<u32>,
    /// Or the board's serial number.
    #[serde(default)]
    pub serial: Option<String>,
    /// White's name.
    #[serde(default)]
    pub white: Option<String>,
    /// Black's name.
    #[serde(default)]
    pub black: Option<String>,
}

/// The board map (`--board-map FILE`, TOML: `[[board]]` tables).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardMap {
    /// The boards.
    #[serde(default, rename = "board")]
    pub boards: Vec<MapEntry>,
}

/// Why a board map cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{origin}: {message}")]
pub struct MapError {
    origin: String,
    message: String,
}

impl BoardMap {
    /// Parses map text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<BoardMap, MapError> {
        let invalid = |message: String| MapError {
            origin: origin.to_string(),
            message,
        };
        let map: BoardMap =
            toml::from_str(text).map_err(|e| invalid(e.to_string().trim_end().to_string()))?;
        let mut numbers = BTreeSet::new();
        let mut keys = BTreeSet::new();
        for (i, b) in map.boards.iter().enumerate() {
            let at = format!("board {} (number {})", i + 1, b.number);
            if b.number == 0 {
                return Err(invalid(format!("{at}: numbers start at 1")));
            }
            if !numbers.insert(b.number) {
                return Err(invalid(format!("{at}: the number is given twice")));
            }
            if !super::valid_level(&b.host) {
                return Err(invalid(format!("{at}: `host` must be a topic level")));
            }
            let key = match (&b.board, &b.serial) {
                (Some(n), None) => format!("{}/board {n}", b.host),
                (None, Some(s)) => format!("{}/serial {s}", b.host),
                _ => {
                    return Err(invalid(format!(
                        "{at}: give either `board` (its number on the host) or `serial`"
                    )));
                }
            };
            if !keys.insert(key.clone()) {
                return Err(invalid(format!("{at}: {key} is mapped twice")));
            }
            for name in [&b.white, &b.black].into_iter().flatten() {
                if name.chars().any(char::is_control) || name.len() > 255 {
                    return Err(invalid(format!("{at}: a player's name must be one line")));
                }
            }
        }
        Ok(map)
    }

    /// Reads the map at `path`.
    pub fn load(path: &Path) -> Result<BoardMap, MapError> {
        let text = std::fs::read_to_string(path).map_err(|e| MapError {
            origin: path.display().to_string(),
            message: e.to_string(),
        })?;
        BoardMap::parse(&text, &path.display().to_string())
    }

    fn find(&self, host: &str, board: u32, serial: &str) -> Option<&MapEntry> {
        let by_board = self
            .boards
            .iter()
            .find(|e| e.host == host && e.board == Some(board));
        by_board.or_else(|| {
            self.boards.iter().find(|e| {
                e.host == host && !serial.is_empty() && e.serial.as_deref() == Some(serial)
            })
        })
    }
}

/// What the relay's games must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    /// A board joins under tournament number `number` (from 1), with its players.
    Add {
        /// The tournament board number.
        number: u32,
        /// White's name.
        white: Option<String>,
        /// Black's name.
        black: Option<String>,
    },
    /// Board `number`'s game is these events from the start (the first is a new game).
    Rebuild {
        /// The tournament board number.
        number: u32,
        /// The game's events.
        events: Vec<GameEvent>,
    },
    /// Board `number` follows one event.
    Event {
        /// The tournament board number.
        number: u32,
        /// The event.
        event: TimedEvent,
    },
}

/// One board of one host as the relay follows it.
#[derive(Debug, Default)]
struct Source {
    number: Option<u32>,
    last: Option<Position>,
    waiting: BTreeMap<Position, TimedEvent>,
}

/// The tournament's boards from every host's messages.
#[derive(Debug, Default)]
pub struct Aggregator {
    map: BoardMap,
    sources: HashMap<(String, u32), Source>,
    used: BTreeSet<u32>,
    duplicates: u64,
}

impl Aggregator {
    /// Follows the boards `map` names (and any other, numbered after them).
    pub fn new(map: BoardMap) -> Aggregator {
        let used = map.boards.iter().map(|b| b.number).collect();
        Aggregator {
            map,
            used,
            ..Aggregator::default()
        }
    }

    /// How many messages were dropped as heard before.
    pub fn duplicates(&self) -> u64 {
        self.duplicates
    }

    /// The tournament number of `host`'s board `board`, once known.
    pub fn number(&self, host: &str, board: u32) -> Option<u32> {
        self.sources
            .get(&(host.to_string(), board))
            .and_then(|s| s.number)
    }

    /// Whether a state of `host`'s board `board` at `at` would change anything (a board
    /// not numbered yet, or a state later than what the relay has): the rest of a state
    /// need not be read otherwise.
    pub fn wants_state(&self, host: &str, board: u32, at: Position) -> bool {
        match self.sources.get(&(host.to_string(), board)) {
            Some(s) => s.number.is_none() || s.last.is_none_or(|last| at > last),
            None => true,
        }
    }

    /// Takes a board's state.
    pub fn handle_state(&mut self, state: &StateMessage) -> Vec<Update> {
        let mut updates = Vec::new();
        let key = (state.host.clone(), state.board);
        let known = self.sources.get(&key).and_then(|s| s.number);
        let number = match known {
            Some(n) => n,
            None => {
                let (number, white, black) =
                    match self.map.find(&state.host, state.board, &state.serial) {
                        Some(e) => (e.number, e.white.clone(), e.black.clone()),
                        None => {
                            let number = (1..).find(|n| !self.used.contains(n)).unwrap_or(0);
                            tracing::info!(
                                host = %state.host,
                                board = state.board,
                                serial = %state.serial,
                                number,
                                "a board not in the map: numbered after the map's"
                            );
                            (number, state.white.clone(), state.black.clone())
                        }
                    };
                self.used.insert(number);
                updates.push(Update::Add {
                    number,
                    white,
                    black,
                });
                number
            }
        };
        let source = self.sources.entry(key).or_default();
        source.number = Some(number);
        if source.last.is_some_and(|last| state.at() <= last) {
            return updates;
        }
        source.last = Some(state.at());
        updates.push(Update::Rebuild {
            number,
            events: state.game.events(),
        });
        drain(source, number, &mut updates);
        updates
    }

    /// Takes a board's event.
    pub fn handle_event(&mut self, message: EventMessage) -> Vec<Update> {
        let mut updates = Vec::new();
        let source = self
            .sources
            .entry((message.host.clone(), message.board))
            .or_default();
        if source.last.is_some_and(|last| message.at <= last)
            || source.waiting.contains_key(&message.at)
        {
            self.duplicates += 1;
            return updates;
        }
        source.waiting.insert(message.at, message.event);
        if source.waiting.len() > MAX_WAITING {
            source.waiting.pop_first();
        }
        if let Some(number) = source.number {
            drain(source, number, &mut updates);
        }
        updates
    }
}

/// Follows the waiting events that come next, in order; drops those already included.
fn drain(source: &mut Source, number: u32, updates: &mut Vec<Update>) {
    let Some(mut last) = source.last else {
        return;
    };
    while let Some((&at, _)) = source.waiting.first_key_value() {
        if at <= last {
            source.waiting.pop_first();
        } else if at.run == last.run && at.seq == last.seq + 1 {
            if let Some((_, event)) = source.waiting.pop_first() {
                updates.push(Update::Event { number, event });
            }
            last = at;
        } else {
            break;
        }
    }
    source.last = Some(last);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mqtt::message::{GameState, MoveState};
    use crate::time::Time;

    fn state(host: &str, board: u32, run: u64, seq: u64, sans: &[&str]) -> StateMessage {
        StateMessage {
            host: host.into(),
            board,
            run,
            seq,
            serial: format!("S{board}"),
            game: GameState {
                moves: sans
                    .iter()
                    .scan(shakmaty::Chess::default(), |pos, s| {
                        let san: shakmaty::san::San = s.parse().expect("san");
                        let m = san.to_move(pos).expect("legal");
                        shakmaty::Position::play_unchecked(pos, m);
                        Some(MoveState {
                            uci: shakmaty::uci::UciMove::from_standard(m).to_string(),
                            san: (*s).into(),
                            clock_ms: None,
                            emt_ms: None,
                        })
                    })
                    .collect(),
                ..GameState::default()
            },
            ..StateMessage::default()
        }
    }

    fn event(host: &str, board: u32, run: u64, seq: u64, ply: u32) -> EventMessage {
        EventMessage {
            host: host.into(),
            board,
            at: Position { run, seq },
            event: TimedEvent {
                t: Time::from_ms_f64(0.0),
                event: GameEvent::Takeback { ply },
            },
        }
    }

    fn plies(updates: &[Update]) -> Vec<u32> {
        updates
            .iter()
            .filter_map(|u| match u {
                Update::Event {
                    event:
                        TimedEvent {
                            event: GameEvent::Takeback { ply },
                            ..
                        },
                    ..
                } => Some(*ply),
                _ => None,
            })
            .collect()
    }

    fn map() -> BoardMap {
        BoardMap::parse(
            r#"
            [[board]]
            number = 2
            host = "a"
            board = 0
            white = "Anna"
            [[board]]
            number = 1
            host = "b"
            serial = "S7"
            "#,
            "map",
        )
        .expect("map")
    }

    #[test]
    fn boards_take_their_numbers_from_the_map_by_board_or_serial() {
        let mut agg = Aggregator::new(map());
        let added = agg.handle_state(&state("a", 0, 1, 0, &[]));
        assert_eq!(
            added[0],
            Update::Add {
                number: 2,
                white: Some("Anna".into()),
                black: None
            }
        );
        agg.handle_state(&state("b", 7, 1, 0, &[]));
        assert_eq!(agg.number("b", 7), Some(1));
        agg.handle_state(&state("c", 0, 1, 0, &[]));
        assert_eq!(agg.number("c", 0), Some(3), "after the map's");
    }

    #[test]
    fn events_are_followed_in_order_once_whatever_order_they_come_in() {
        let mut agg = Aggregator::new(BoardMap::default());
        // Heard before the state: they wait for it.
        assert!(agg.handle_event(event("a", 0, 5, 2, 2)).is_empty());
        let first = agg.handle_state(&state("a", 0, 5, 0, &[]));
        assert_eq!(plies(&first), Vec::<u32>::new(), "seq 1 not heard yet");
        assert_eq!(plies(&agg.handle_event(event("a", 0, 5, 1, 1))), vec![1, 2]);
        // A duplicate (QoS 1) and an old state change nothing.
        assert!(agg.handle_event(event("a", 0, 5, 2, 2)).is_empty());
        assert!(!agg.wants_state("a", 0, Position { run: 5, seq: 2 }));
        assert!(agg.wants_state("a", 0, Position { run: 5, seq: 3 }));
        assert!(agg.wants_state("b", 0, Position { run: 1, seq: 0 }));
        assert!(agg.handle_state(&state("a", 0, 5, 1, &["e4"])).is_empty());
        assert_eq!(agg.duplicates(), 1);
        // A gap: later events wait; a state that includes them ends the wait.
        assert!(agg.handle_event(event("a", 0, 5, 4, 4)).is_empty());
        assert!(agg.handle_event(event("a", 0, 5, 5, 5)).is_empty());
        let rebuilt = agg.handle_state(&state("a", 0, 5, 4, &["e4", "e5", "f4", "d5"]));
        assert!(matches!(&rebuilt[0], Update::Rebuild { number: 1, events } if events.len() == 5));
        assert_eq!(plies(&rebuilt), vec![5]);
        // A new life of the daemon: its state rebuilds, its events go on from it.
        let again = agg.handle_state(&state("a", 0, 9, 0, &["e4"]));
        assert!(matches!(&again[0], Update::Rebuild { .. }));
        assert_eq!(plies(&agg.handle_event(event("a", 0, 9, 1, 7))), vec![7]);
        assert!(
            agg.handle_event(event("a", 0, 5, 6, 6)).is_empty(),
            "old life"
        );
    }

    #[test]
    fn bad_maps_are_refused_with_the_reason() {
        for (text, says) in [
            (
                "[[board]]\nnumber = 0\nhost = \"a\"\nboard = 1",
                "start at 1",
            ),
            (
                "[[board]]\nnumber = 1\nhost = \"a\"\nboard = 1\n[[board]]\nnumber = 1\nhost = \"a\"\nboard = 2",
                "twice",
            ),
            ("[[board]]\nnumber = 1\nhost = \"a\"", "either"),
            (
                "[[board]]\nnumber = 1\nhost = \"a/b\"\nboard = 1",
                "topic level",
            ),
            (
                "[[board]]\nnumber = 1\nhost = \"a\"\nboard = 1\ncolour = 2",
                "unknown field",
            ),
        ] {
            let e = BoardMap::parse(text, "map.toml").expect_err(text);
            assert!(e.to_string().contains(says), "{e}");
        }
    }
}
