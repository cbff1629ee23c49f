//! `--pgn-dir DIR`: every board's game as PGN files, rewritten on every change.
//!
//! [`PgnDir`] follows the events of every board and writes `board-N.pgn` (N the board's
//! number from 1) and `games.pgn` (every board, in board order). Each file is written to a
//! temporary file in the same directory and renamed over the old one, so readers see either
//! the old or the new text, never half of one. [`run_pgn_dir`] feeds it from a running
//! daemon.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::{broadcast, mpsc};

use super::http::RelayState;
use super::pgn::{PgnTags, game_pgn};
use crate::daemon::{BoardChange, Daemon};
use crate::event::{GameEvent, TimedEvent};
use crate::game::record::GameRecord;

/// One board's game as the relay keeps it.
#[derive(Debug, Default)]
struct BoardGame {
    tags: PgnTags,
    record: GameRecord,
}

/// The PGN files of a directory, one per board and one for all (sans-IO but for
/// [`PgnDir::write`]).
#[derive(Debug)]
pub struct PgnDir {
    dir: Option<PathBuf>,
    http: Option<Arc<RelayState>>,
    round: PgnTags,
    boards: BTreeMap<u32, BoardGame>,
}

/// Whether an event changes what the PGN says.
fn changes_pgn(event: &GameEvent) -> bool {
    matches!(
        event,
        GameEvent::NewGame { .. }
            | GameEvent::Move { .. }
            | GameEvent::Retract { .. }
            | GameEvent::Takeback { .. }
            | GameEvent::Result { .. }
    )
}

/// Writes `text` to `path` through a temporary file in the same directory and a rename.
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_data()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

impl PgnDir {
    /// The files of `dir`, with the round's tags (`event`, `site`, `date`, `round`,
    /// `time_control`) on every game.
    pub fn new(dir: impl Into<PathBuf>, round: PgnTags) -> PgnDir {
        PgnDir {
            dir: Some(dir.into()),
            http: None,
            round,
            boards: BTreeMap::new(),
        }
    }

    /// The games with the round's tags, kept in memory only (for [`PgnDir::serve`]).
    pub fn in_memory(round: PgnTags) -> PgnDir {
        PgnDir {
            dir: None,
            http: None,
            round,
            boards: BTreeMap::new(),
        }
    }

    /// Also publishes the games and every event to `http` (`--relay-listen`).
    pub fn serve(mut self, http: Arc<RelayState>) -> PgnDir {
        self.http = Some(http);
        self
    }

    /// Publishes one event of board `id` as a JSON line with the board's number (from 1)
    /// added, for `/events`.
    pub fn publish_event(&self, id: u32, event: &TimedEvent) {
        let Some(http) = &self.http else {
            return;
        };
        let line = event.to_json_line();
        let line = match serde_json::from_str::<serde_json::Value>(&line) {
            Ok(serde_json::Value::Object(mut map)) => {
                map.insert("board".into(), id.saturating_add(1).into());
                serde_json::Value::Object(map).to_string()
            }
            _ => line,
        };
        http.publish_event(line);
    }

    /// Adds board `id` (numbered from 0; written as board `id + 1`) with its players.
    pub fn add_board(&mut self, id: u32, white: Option<String>, black: Option<String>) {
        let board = self.boards.entry(id).or_default();
        board.tags = PgnTags {
            board: Some(id.saturating_add(1)),
            white,
            black,
            ..self.round.clone()
        };
    }

    /// Follows one event of board `id`; whether the files must be written again.
    pub fn apply(&mut self, id: u32, event: &GameEvent) -> bool {
        if !self.boards.contains_key(&id) {
            self.add_board(id, None, None);
        }
        let Some(board) = self.boards.get_mut(&id) else {
            return false;
        };
        board.record.apply(event);
        changes_pgn(event)
    }

    /// The PGN of board `id`, if known.
    pub fn board_pgn(&self, id: u32) -> Option<String> {
        self.boards.get(&id).map(|b| game_pgn(&b.tags, &b.record))
    }

    /// Every board's game, in board order, separated by blank lines.
    pub fn games_pgn(&self) -> String {
        let games: Vec<String> = self
            .boards
            .values()
            .map(|b| game_pgn(&b.tags, &b.record))
            .collect();
        games.join("\n")
    }

    /// Writes board `id`'s file and `games.pgn` (and publishes them over HTTP if served).
    pub fn write(&self, id: u32) -> std::io::Result<()> {
        let board = self.board_pgn(id).unwrap_or_default();
        let games = self.games_pgn();
        if let Some(http) = &self.http {
            http.publish_pgn(id.saturating_add(1), board.clone(), games.clone());
        }
        if let Some(dir) = &self.dir {
            let name = format!("board-{}.pgn", id.saturating_add(1));
            write_atomically(&dir.join(name), &board)?;
            write_atomically(&dir.join("games.pgn"), &games)?;
        }
        Ok(())
    }
}

/// Starts keeping `--pgn-dir` up to date with every board of `daemon`, until the daemon
/// stops announcing boards. Call it before boards are attached: it listens for them from the
/// moment it is called (a board's events are followed from its announcement on).
pub fn spawn_pgn_dir(daemon: Daemon, files: PgnDir) -> tokio::task::JoinHandle<()> {
    let changes = daemon.subscribe();
    tokio::spawn(run_pgn_dir(daemon, files, changes))
}

async fn run_pgn_dir(
    daemon: Daemon,
    mut files: PgnDir,
    mut changes: broadcast::Receiver<BoardChange>,
) {
    let (tx, mut rx) = mpsc::unbounded_channel::<(u32, TimedEvent)>();
    let mut followed = std::collections::HashSet::new();
    let players: Vec<_> = daemon
        .options()
        .boards
        .iter()
        .map(|b| (b.device.clone(), b.white.clone(), b.black.clone()))
        .collect();
    let follow = |handle: crate::daemon::board::BoardHandle,
                  tx: mpsc::UnboundedSender<(u32, TimedEvent)>| {
        let mut events = handle.subscribe();
        let id = handle.id();
        tokio::spawn(async move {
            loop {
                match events.recv().await {
                    Ok(e) => {
                        if tx.send((id, e)).is_err() {
                            break;
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        tracing::warn!(board = id, missed = n, "pgn-dir fell behind");
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                }
            }
        });
    };
    for handle in daemon.boards().await {
        followed.insert(handle.id());
        follow(handle, tx.clone());
    }
    loop {
        tokio::select! {
            change = changes.recv() => match change {
                Ok(BoardChange::Added(handle)) => {
                    let known = players.iter().find(|(d, _, _)| d == handle.device());
                    let (white, black) = known
                        .map(|(_, w, b)| (w.clone(), b.clone()))
                        .unwrap_or_default();
                    files.add_board(handle.id(), white, black);
                    if followed.insert(handle.id()) {
                        follow(handle, tx.clone());
                    }
                }
                Ok(BoardChange::Removed(_)) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => break,
            },
            Some((id, event)) = rx.recv() => {
                files.publish_event(id, &event);
                if files.apply(id, &event.event)
                    && let Err(e) = files.write(id)
                {
                    tracing::warn!("cannot write PGN: {e}");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(ply: u32, uci: &str, san: &str, clock_ms: Option<u64>) -> GameEvent {
        GameEvent::Move {
            ply,
            uci: uci.into(),
            san: san.into(),
            fen: String::new(),
            clock_ms,
            emt_ms: None,
        }
    }

    #[test]
    fn every_move_rewrites_the_boards_file_and_games_pgn_in_board_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let round = PgnTags {
            event: Some("Open".into()),
            round: Some("4".into()),
            ..PgnTags::default()
        };
        let mut files = PgnDir::new(dir.path(), round);
        files.add_board(1, Some("B-white".into()), Some("B-black".into()));
        files.add_board(0, Some("A-white".into()), None);
        assert!(files.apply(1, &mv(1, "d2d4", "d4", Some(5_400_000))));
        files.write(1).expect("write");
        assert!(files.apply(0, &mv(1, "e2e4", "e4", None)));
        files.write(0).expect("write");
        assert!(!files.apply(0, &GameEvent::Mismatch { squares: vec![] }));

        let board2 = std::fs::read_to_string(dir.path().join("board-2.pgn")).expect("board-2");
        assert!(
            board2.contains("[Round \"4.2\"]\n[White \"B-white\"]"),
            "{board2}"
        );
        assert!(board2.ends_with("1. d4 {[%clk 1:30:00]} *\n"), "{board2}");
        let all = std::fs::read_to_string(dir.path().join("games.pgn")).expect("games");
        let first = all.find("[Round \"4.1\"]").expect("board 1 in games.pgn");
        let second = all.find("[Round \"4.2\"]").expect("board 2 in games.pgn");
        assert!(first < second, "{all}");
        assert!(all.contains("1. e4 *\n\n[Event"), "{all}");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .expect("read_dir")
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    }
}
