//! The daemon: many boards, each its own task, their games kept across restarts.
//!
//! [`Daemon`] is the registry of attached boards. Attaching a device starts a task for it
//! ([`board`]), which opens and supervises the port, drives the board's core ([`core`]) and
//! journals its game ([`journal`]) so that a restart resumes it; a game follows its board
//! from port to port ([`seats`]). Boards come from the
//! configuration ([`config`]), the command line, or later from udev through D-Bus; each has
//! a number that names its D-Bus object. Publishing (D-Bus) listens to the registry's
//! [`BoardChange`]s and to each board's handle; nothing here knows about D-Bus.

pub mod board;
pub mod complaint;
pub mod config;
/// The board core (in eboardd-core), under the name the daemon has always used.
pub use eboardd_core::board as core;
pub mod game;
pub mod journal;
pub mod seats;
pub mod watchdog;

use crate::relay::pgn::PgnTags;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Mutex, broadcast};
use tokio::task::JoinHandle;

use crate::laws::{Edition, TouchMove};
use board::task::{BoardTask, TaskSetup};
use board::{BoardHandle, BoardStatus};
use config::BoardConfig;
use core::{CoreFactory, CoreSettings};
use journal::{Journal, Players, board_key};
use seats::Seats;

/// What the daemon runs with (the configuration file and command line merged).
#[derive(Clone)]
pub struct DaemonOptions {
    /// Where journals and finished games are kept.
    pub state_dir: PathBuf,
    /// The edition of the Laws.
    pub laws: Edition,
    /// The touch-move mode.
    pub touch_move: TouchMove,
    /// Where traces of every board's traffic are written, if anywhere.
    pub record_dir: Option<PathBuf>,
    /// Makes each board's core.
    pub factory: CoreFactory,
    /// The boards of the configuration: their settings apply when their devices are
    /// attached later (by udev).
    pub boards: Vec<BoardConfig>,
    /// The round's PGN tags (`--event`, `--site`, `--round`, `--time-control`), written in
    /// every board's D-Bus `Pgn` with the board's players.
    pub pgn_tags: PgnTags,
}

impl std::fmt::Debug for DaemonOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DaemonOptions")
            .field("state_dir", &self.state_dir)
            .field("laws", &self.laws)
            .field("touch_move", &self.touch_move)
            .field("record_dir", &self.record_dir)
            .finish_non_exhaustive()
    }
}

/// A board came or went.
#[derive(Debug, Clone)]
pub enum BoardChange {
    /// A board was attached.
    Added(BoardHandle),
    /// The board with this number was detached.
    Removed(u32),
}

/// Why a device could not be attached or detached.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AttachError {
    /// The path is not usable as a device path.
    #[error("{0}")]
    InvalidPath(String),
    /// No board is attached on that device.
    #[error("no board is attached on {0}")]
    NotAttached(String),
}

struct Entry {
    handle: BoardHandle,
    canonical: PathBuf,
    task: JoinHandle<()>,
}

#[derive(Default)]
struct Registry {
    next_id: u32,
    ids: HashMap<PathBuf, u32>,
    boards: BTreeMap<u32, Entry>,
}

/// The registry of attached boards.
#[derive(Clone)]
pub struct Daemon {
    options: Arc<DaemonOptions>,
    registry: Arc<Mutex<Registry>>,
    changes: broadcast::Sender<BoardChange>,
    seats: Seats,
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

impl Daemon {
    /// A daemon with no boards yet.
    pub fn new(options: DaemonOptions) -> Daemon {
        let (changes, _) = broadcast::channel(256);
        let seats = Seats::new(&options.state_dir);
        Daemon {
            options: Arc::new(options),
            registry: Arc::new(Mutex::new(Registry::default())),
            changes,
            seats,
        }
    }

    /// Attaches `device` with its configured settings (or the defaults if it is not in the
    /// configuration).
    pub async fn attach_device(&self, device: &Path) -> Result<BoardHandle, AttachError> {
        let canonical = canonical(device);
        let config = self
            .options
            .boards
            .iter()
            .find(|b| b.device == device || self::canonical(&b.device) == canonical)
            .cloned()
            .unwrap_or_else(|| BoardConfig::for_device(device));
        self.attach(config).await
    }

    /// The options the daemon runs with.
    pub fn options(&self) -> &DaemonOptions {
        &self.options
    }

    /// A receiver of every board attached or detached from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<BoardChange> {
        self.changes.subscribe()
    }

    /// The boards attached now, by number.
    pub async fn boards(&self) -> Vec<BoardHandle> {
        let reg = self.registry.lock().await;
        reg.boards.values().map(|e| e.handle.clone()).collect()
    }

    /// The board with number `id`, if attached.
    pub async fn board(&self, id: u32) -> Option<BoardHandle> {
        let reg = self.registry.lock().await;
        reg.boards.get(&id).map(|e| e.handle.clone())
    }

    /// Attaches the board `config` describes and starts its task; the game journalled for
    /// its device is resumed. A device already attached (under this or another name for the
    /// same node) gives back the board already there.
    pub async fn attach(&self, config: BoardConfig) -> Result<BoardHandle, AttachError> {
        let device = config.device.clone();
        config::check_device_path(&device).map_err(|e| AttachError::InvalidPath(e.to_string()))?;
        if !device.is_absolute() {
            return Err(AttachError::InvalidPath(format!(
                "the device path must be absolute: {}",
                crate::text::quote(&device.to_string_lossy())
            )));
        }
        let canonical = canonical(&device);
        let mut reg = self.registry.lock().await;
        if let Some(e) = reg
            .boards
            .values()
            .find(|e| e.handle.device() == device || e.canonical == canonical)
        {
            return Ok(e.handle.clone());
        }
        let id = match reg.ids.get(&canonical) {
            Some(&id) => id,
            None => {
                let id = reg.next_id;
                reg.next_id += 1;
                reg.ids.insert(canonical.clone(), id);
                id
            }
        };
        let players = Players {
            white: config.white.clone(),
            black: config.black.clone(),
        };
        let key = board_key(&device);
        let (journal, resumed) = match Journal::open(&self.options.state_dir, &key, players) {
            Ok((j, r)) => {
                for c in &r.corrupt {
                    tracing::warn!(
                        "{}: line {} skipped: {}",
                        j.path().display(),
                        c.line,
                        c.reason
                    );
                }
                if !r.events.is_empty() {
                    tracing::info!(device = %device.display(), plies = j.game().ply(), "game resumed from the journal");
                }
                if let Some(why) = &r.cannot_write {
                    tracing::error!(
                        device = %device.display(),
                        "journal cannot be written ({why}); the game goes on in memory and is written once the disk takes it"
                    );
                }
                (Some(j), r.events)
            }
            Err(e) => {
                tracing::error!(
                    "journal for {} unusable, the game will not survive a restart: {e}",
                    device.display()
                );
                (None, Vec::new())
            }
        };
        let settings = CoreSettings {
            orientation: config.orientation.fixed(),
            settle: config.settle.0,
            slide_rests: config.slide_rests,
            laws: self.options.laws,
            touch_move: self.options.touch_move,
        };
        let initial = BoardStatus {
            device: device.display().to_string(),
            laws: self.options.laws.name().to_string(),
            ..BoardStatus::default()
        };
        let (handle, channels) = board::channels(id, device.clone(), initial);
        let wake = self.seats.attach(&key, &resumed);
        let tags = PgnTags {
            white: config.white.clone(),
            black: config.black.clone(),
            ..self.options.pgn_tags.clone()
        };
        let setup = TaskSetup {
            tags,
            device,
            protocol: config.protocol,
            settings,
            factory: self.options.factory.clone(),
            journal,
            resumed,
            record_dir: self.options.record_dir.clone(),
            seats: self.seats.clone(),
            key,
            wake,
        };
        let task = tokio::spawn(BoardTask::new(setup, channels).run());
        reg.boards.insert(
            id,
            Entry {
                handle: handle.clone(),
                canonical,
                task,
            },
        );
        drop(reg);
        let _ = self.changes.send(BoardChange::Added(handle.clone()));
        Ok(handle)
    }

    /// Detaches the board on `device` (its own path, or another name for the same node):
    /// closes the port and ends its task. Its journal stays, so attaching it again resumes
    /// the game.
    pub async fn detach(&self, device: &Path) -> Result<u32, AttachError> {
        let canonical = canonical(device);
        let mut reg = self.registry.lock().await;
        let id = reg
            .boards
            .iter()
            .find(|(_, e)| e.handle.device() == device || e.canonical == canonical)
            .map(|(id, _)| *id)
            .ok_or_else(|| AttachError::NotAttached(device.display().to_string()))?;
        let Some(entry) = reg.boards.remove(&id) else {
            return Err(AttachError::NotAttached(device.display().to_string()));
        };
        drop(reg);
        self.seats.detach(&board_key(entry.handle.device()));
        entry.handle.stop().await;
        if tokio::time::timeout(Duration::from_secs(5), entry.task)
            .await
            .is_err()
        {
            tracing::warn!(device = %device.display(), "the board's task did not stop in time");
        }
        let _ = self.changes.send(BoardChange::Removed(id));
        Ok(id)
    }

    /// Whether every board's task answers within `limit` (for the watchdog).
    pub async fn all_alive(&self, limit: Duration) -> bool {
        let boards = self.boards().await;
        let pings = boards.iter().map(|b| b.ping(limit));
        futures_util::future::join_all(pings)
            .await
            .into_iter()
            .all(|alive| alive)
    }

    /// Stops every board (their journals are already on disk).
    pub async fn shutdown(&self) {
        let devices: Vec<PathBuf> = self
            .boards()
            .await
            .iter()
            .map(|b| b.device().to_path_buf())
            .collect();
        for d in devices {
            let _ = self.detach(&d).await;
        }
    }
}
