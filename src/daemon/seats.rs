//! Which board's game each port holds: games follow their boards, told apart by serial
//! number, from port to port.
//!
//! A game is journalled under its port's device path, but it belongs to the board it is
//! played on. A board that comes back on another node (`/dev/ttyACM0` → `ttyACM1`), or two
//! boards swapped between ports, bring their games with them: when a board says its
//! identity ([`crate::daemon::core::Core::identity`]) on a port whose game is not its own,
//! and another port (attached or not, even from before a restart) holds its game while its
//! own board is not there, the two ports exchange their games. Each port's owner — the
//! identity of the board its game belongs to — is kept beside its journal
//! (`journal/<key>.board`). Boards without an identity keep the game of their port.
//!
//! [`Seats`] is shared by the daemon and every board's task; a task hands a game to an
//! attached port through that port's inbox and wakes its task, and writes the journal of
//! a port no task serves itself. A task that takes a game keeps its port open: its core
//! follows the game it now holds from the board as it stands. This module knows nothing of ports' IO or D-Bus.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

use super::journal::{Journal, Players};
use crate::event::GameEvent;

/// A game handed to a port: its events and the identity of the board it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct Handover {
    /// The game's events, from its `new_game`.
    pub events: Vec<GameEvent>,
    /// The board the game belongs to, if known.
    pub owner: Option<String>,
}

#[derive(Debug, Default)]
struct Seat {
    owner: Option<String>,
    present: Option<String>,
    events: Vec<GameEvent>,
    inbox: Option<Handover>,
    wake: Arc<Notify>,
    attached: bool,
}

/// What a board's identity means for its port's game.
#[derive(Debug, Clone, PartialEq)]
pub enum Identified {
    /// The port's game is this board's (or the board's game is nowhere else): it goes on.
    Keep,
    /// The board's game was on another port: this is it; the port's old game went there.
    Take {
        /// The board's game, for this port.
        taken: Handover,
        /// The port's old game, for the journal of a port that no task serves (`key`):
        /// for the caller to write, once it is ready to ([`Seats::write_journal`]).
        unserved: Option<(String, Handover)>,
    },
}

/// Every port's game owner, shared by the board tasks.
#[derive(Debug, Clone)]
pub struct Seats {
    state_dir: PathBuf,
    seats: Arc<Mutex<HashMap<String, Seat>>>,
}

fn has_moves(events: &[GameEvent]) -> bool {
    events.iter().any(|e| matches!(e, GameEvent::Move { .. }))
}

impl Seats {
    /// The seats of the journals under `state_dir`.
    pub fn new(state_dir: &Path) -> Seats {
        Seats {
            state_dir: state_dir.to_path_buf(),
            seats: Arc::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Seat>> {
        self.seats.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn owner_path(&self, key: &str) -> PathBuf {
        self.state_dir.join("journal").join(format!("{key}.board"))
    }

    fn read_owner(&self, key: &str) -> Option<String> {
        std::fs::read_to_string(self.owner_path(key))
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    }

    fn write_owner(&self, key: &str, owner: Option<&str>) {
        let path = self.owner_path(key);
        let done = match owner {
            Some(o) => std::fs::write(&path, format!("{o}\n")),
            None => std::fs::remove_file(&path).or_else(|e| match e.kind() {
                std::io::ErrorKind::NotFound => Ok(()),
                _ => Err(e),
            }),
        };
        if let Err(e) = done {
            tracing::warn!("{}: {e}", path.display());
        }
    }

    /// The port `key` is attached with this game; returns what wakes its task when a game
    /// is handed to it.
    pub fn attach(&self, key: &str, events: &[GameEvent]) -> Arc<Notify> {
        let owner = self.read_owner(key);
        let mut seats = self.lock();
        let seat = seats.entry(key.to_string()).or_default();
        seat.owner = owner;
        seat.present = None;
        seat.events = events.to_vec();
        seat.inbox = None;
        seat.attached = true;
        seat.wake.clone()
    }

    /// The port `key` was detached: its game stays, for its board to find elsewhere.
    pub fn detach(&self, key: &str) {
        if let Some(seat) = self.lock().get_mut(key) {
            seat.attached = false;
            seat.present = None;
        }
    }

    /// The port's board went away.
    pub fn away(&self, key: &str) {
        if let Some(seat) = self.lock().get_mut(key) {
            seat.present = None;
        }
    }

    /// The port's game went on by `event` (a `new_game` starts it afresh), unless another
    /// game is waiting for the port: that one replaces it when the port's task takes it.
    /// One event at a time, so that a long game costs the same on its last move as on its
    /// first.
    pub fn push_event(&self, key: &str, event: &GameEvent) {
        if let Some(seat) = self.lock().get_mut(key)
            && seat.inbox.is_none()
        {
            if let GameEvent::NewGame { .. } = event {
                seat.events.clear();
            }
            seat.events.push(event.clone());
        }
    }

    /// A game handed to the port `key`, if one waits.
    pub fn take_inbox(&self, key: &str) -> Option<Handover> {
        let mut seats = self.lock();
        let seat = seats.get_mut(key)?;
        let handover = seat.inbox.take()?;
        seat.events = handover.events.clone();
        Some(handover)
    }

    /// Loads the ports journalled before (under `journal/`) that no task serves and whose
    /// game belongs to `identity`.
    fn load_unattached(&self, seats: &mut HashMap<String, Seat>, identity: &str) {
        let Ok(dir) = std::fs::read_dir(self.state_dir.join("journal")) else {
            return;
        };
        for entry in dir.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(key) = name.strip_suffix(".board") else {
                continue;
            };
            if seats.contains_key(key) || self.read_owner(key).as_deref() != Some(identity) {
                continue;
            }
            match Journal::open(&self.state_dir, key, Players::default()) {
                Ok((_, resumed)) => {
                    seats.insert(
                        key.to_string(),
                        Seat {
                            owner: Some(identity.to_string()),
                            events: resumed.events,
                            ..Seat::default()
                        },
                    );
                }
                Err(e) => tracing::warn!("{e}"),
            }
        }
    }

    /// The board on port `key` said it is `identity`, the port holding the game `events`.
    pub fn identified(&self, key: &str, identity: &str, events: &[GameEvent]) -> Identified {
        let mut seats = self.lock();
        if !seats
            .iter()
            .any(|(k, s)| k != key && s.owner.as_deref() == Some(identity))
        {
            self.load_unattached(&mut seats, identity);
        }
        let mine = seats.get(key).and_then(|s| s.owner.clone());
        if let Some(seat) = seats.get_mut(key) {
            seat.present = Some(identity.to_string());
        }
        if mine.as_deref() == Some(identity) {
            return Identified::Keep;
        }
        let elsewhere = seats
            .iter()
            .find(|(k, s)| {
                *k != key
                    && s.owner.as_deref() == Some(identity)
                    && s.present.as_deref() != Some(identity)
                    && has_moves(&s.events)
            })
            .map(|(k, _)| k.clone());
        let Some(other) = elsewhere else {
            // Nowhere else: the game here is this board's from now on.
            if let Some(seat) = seats.get_mut(key) {
                seat.owner = Some(identity.to_string());
            }
            self.write_owner(key, Some(identity));
            return Identified::Keep;
        };
        let given = Handover {
            events: events.to_vec(),
            owner: mine,
        };
        let Some(seat) = seats.get_mut(&other) else {
            return Identified::Keep;
        };
        let taken = Handover {
            events: std::mem::replace(&mut seat.events, given.events.clone()),
            owner: Some(identity.to_string()),
        };
        seat.owner = given.owner.clone();
        let unserved = if seat.attached {
            seat.inbox = Some(given.clone());
            seat.wake.notify_one();
            None
        } else {
            Some((other.clone(), given.clone()))
        };
        self.write_owner(&other, given.owner.as_deref());
        if let Some(seat) = seats.get_mut(key) {
            seat.owner = Some(identity.to_string());
            seat.events = taken.events.clone();
        }
        self.write_owner(key, Some(identity));
        tracing::info!(
            board = identity,
            from = other,
            to = key,
            "a board's game follows it to another port"
        );
        Identified::Take { taken, unserved }
    }

    /// Writes `handover` to the journal of port `key` (one no task serves).
    pub fn write_journal(&self, key: &str, handover: &Handover) {
        match Journal::open(&self.state_dir, key, Players::default()) {
            Ok((mut journal, _)) => {
                if let Err(e) = journal.replace(&handover.events) {
                    tracing::error!("journal: {e}");
                }
            }
            Err(e) => tracing::error!("journal: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(uci: &str) -> Vec<GameEvent> {
        vec![
            GameEvent::NewGame {
                fen: crate::daemon::core::START_FEN.into(),
                chess960: false,
            },
            GameEvent::Move {
                ply: 1,
                uci: uci.parse().expect("uci"),
                san: shakmaty::san::SanPlus {
                    san: shakmaty::san::San::Null,
                    suffix: None,
                },
                fen: String::new(),
                clock_ms: None,
                emt_ms: None,
                alternatives: Vec::new(),
            },
        ]
    }

    #[test]
    fn boards_swapped_between_ports_exchange_their_games_and_keep_them_after() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("journal")).expect("journal dir");
        let seats = Seats::new(dir.path());
        let (ga, gb) = (game("e2e4"), game("d2d4"));
        let _ = seats.attach("a", &ga);
        let wake_b = seats.attach("b", &gb);
        assert_eq!(seats.identified("a", "111", &ga), Identified::Keep);
        assert_eq!(seats.identified("b", "222", &gb), Identified::Keep);
        seats.away("a");
        seats.away("b");
        // Board 222 comes back on port a: it takes its game, port b gets a's.
        let Identified::Take { taken, unserved } = seats.identified("a", "222", &ga) else {
            panic!("222's game is on port b");
        };
        assert_eq!(taken.events, gb);
        assert_eq!(unserved, None, "port b's task writes its own journal");
        let handed = seats.take_inbox("b").expect("port b is handed a's game");
        assert_eq!(
            (handed.events, handed.owner.as_deref()),
            (ga.clone(), Some("111"))
        );
        let _ = wake_b;
        // Board 111 on port b then finds its game there.
        assert_eq!(seats.identified("b", "111", &ga), Identified::Keep);
        assert_eq!(seats.read_owner("a").as_deref(), Some("222"));
        assert_eq!(seats.read_owner("b").as_deref(), Some("111"));
    }

    #[test]
    fn a_board_on_a_new_node_takes_its_game_from_a_detached_port_whose_journal_is_rewritten() {
        let dir = tempfile::tempdir().expect("tempdir");
        let seats = Seats::new(dir.path());
        let (mut journal, _) =
            Journal::open(dir.path(), "old", Players::default()).expect("journal");
        let ga = game("e2e4");
        journal.replace(&ga).expect("written");
        let _ = seats.attach("old", &ga);
        assert_eq!(seats.identified("old", "111", &ga), Identified::Keep);
        seats.detach("old");
        let _ = seats.attach("new", &[]);
        let Identified::Take { taken, unserved } = seats.identified("new", "111", &[]) else {
            panic!("111's game is on the detached port");
        };
        assert_eq!(taken.events, ga);
        let (key, left) = unserved.expect("the detached port's journal to write");
        seats.write_journal(&key, &left);
        let (_, resumed) = Journal::open(dir.path(), "old", Players::default()).expect("reopen");
        assert!(resumed.events.is_empty(), "{:?}", resumed.events);
        // A board with no identity of its own elsewhere keeps the port's game.
        let _ = seats.attach("third", &ga);
        assert_eq!(seats.identified("third", "333", &ga), Identified::Keep);
    }

    #[test]
    fn a_port_game_grows_one_event_at_a_time_and_a_new_game_starts_it_afresh() {
        let dir = tempfile::tempdir().expect("tempdir");
        let seats = Seats::new(dir.path());
        let ga = game("e2e4");
        let _ = seats.attach("a", &[]);
        for e in &ga {
            seats.push_event("a", e);
        }
        assert_eq!(seats.lock()["a"].events, ga);
        let gb = game("d2d4");
        for e in &gb {
            seats.push_event("a", e);
        }
        assert_eq!(
            seats.lock()["a"].events,
            gb,
            "new_game starts the game afresh"
        );
        // A game handed to the port waits there: the port's own moves do not touch it.
        seats.lock().get_mut("a").expect("seat").inbox = Some(Handover {
            events: ga.clone(),
            owner: None,
        });
        seats.push_event("a", &ga[1]);
        assert_eq!(seats.lock()["a"].events, gb);
        seats.push_event("unknown", &ga[0]);
        assert!(!seats.lock().contains_key("unknown"));
    }
}
