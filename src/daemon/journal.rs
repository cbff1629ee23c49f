//! Each board's game on disk: an append-only journal, and finished games as PGN.
//!
//! The journal of a board is a file of JSON lines in the state directory, one per game
//! event (the contract's line plus the wall-clock time, `unix_ms`). Every line is written as
//! it is decided, before the event is published, so a crash or `kill -9` loses no confirmed
//! move; lines that change the game (`new_game`, `move`, `retract`, `takeback`, `result`)
//! are then flushed to disk ([`Journal::flush`]) once the event is on its way, which keeps
//! the disk's flush out of the signal's latency. A power cut within that flush can lose the
//! last move published; the board still shows it, and it is found again when the daemon
//! reads the board on restart. A new game starts a new journal (written aside, then
//! renamed over the old one), after the old game is kept as PGN; a finished game is kept as
//! PGN as soon as its result is known. Reading back, a corrupt line (a torn last write, a
//! stray edit) is reported and skipped, never fatal. When the disk refuses a write (full,
//! or the file too large), the game goes on in memory: the journal is behind, and the next
//! event writes the whole game again (aside, then renamed over the journal), with the
//! finished game's PGN still due, until the disk takes it. This module knows nothing of
//! ports, tasks or D-Bus.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::event::{GameEvent, TimedEvent};

use super::game::GameView;

/// Why the journal could not be read or written.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct JournalError {
    /// The file concerned.
    pub path: PathBuf,
    /// What the system said.
    pub source: io::Error,
}

/// A journal line that could not be read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorruptLine {
    /// Its line number, from 1.
    pub line: usize,
    /// Why it was skipped.
    pub reason: String,
}

/// What a journal held when it was opened.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resumed {
    /// The events of the current game, in order (from its `new_game`, when there is one).
    pub events: Vec<GameEvent>,
    /// Lines that were skipped.
    pub corrupt: Vec<CorruptLine>,
    /// Why the journal could be read but not written (a read-only or full state
    /// directory), if so: the game goes on in memory and is written once the disk takes it.
    pub cannot_write: Option<String>,
}

#[derive(Serialize)]
struct LineOut<'a> {
    t_ms: f64,
    unix_ms: u64,
    #[serde(flatten)]
    event: &'a GameEvent,
}

#[derive(Deserialize)]
struct LineIn {
    #[serde(default)]
    unix_ms: u64,
    #[serde(flatten)]
    event: GameEvent,
}

/// The names written in a game's PGN header.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Players {
    /// White's name.
    pub white: Option<String>,
    /// Black's name.
    pub black: Option<String>,
}

/// One board's journal and game archive.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    games_dir: PathBuf,
    key: String,
    /// The journal open for appending; `None` while it cannot be opened for writing.
    file: Option<File>,
    game: GameView,
    players: Players,
    game_started_ms: u64,
    unsaved_moves: bool,
    /// The current game's lines, from its `new_game`: what the file must hold.
    lines: Vec<String>,
    /// A write failed: the file does not hold every line, and is written whole next time.
    behind: bool,
    /// The game is finished and its PGN not yet kept.
    pgn_due: bool,
    /// Lines that change the game were written and not yet flushed to disk.
    flush_due: bool,
}

/// The file name under which a device's games are kept: the path without its leading `/`,
/// `/` written `-` and anything else unusual (the `-` included) as `%XX`.
///
/// ```
/// use std::path::Path;
/// use eboardd::daemon::journal::board_key;
/// assert_eq!(board_key(Path::new("/dev/ttyUSB0")), "dev-ttyUSB0");
/// assert_eq!(board_key(Path::new("/dev/serial/by-id/usb-DGT")), "dev-serial-by%2Did-usb%2DDGT");
/// ```
pub fn board_key(device: &Path) -> String {
    let text = device.to_string_lossy();
    let mut key = String::new();
    for b in text.trim_start_matches('/').bytes() {
        match b {
            b'/' => key.push('-'),
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b':' | b'+' | b'@' => {
                key.push(char::from(b))
            }
            _ => key.push_str(&format!("%{b:02X}")),
        }
    }
    if key.is_empty() || key.starts_with('.') {
        key.insert_str(0, "board");
    }
    key
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

fn changes_the_game(event: &GameEvent) -> bool {
    matches!(
        event,
        GameEvent::NewGame { .. }
            | GameEvent::Move { .. }
            | GameEvent::Retract { .. }
            | GameEvent::Takeback { .. }
            | GameEvent::Result { .. }
    )
}

impl Journal {
    /// Opens (or creates) the journal of the board `key` under `state_dir` and reads back
    /// the game it holds.
    ///
    /// Read before write: a journal that cannot be written (a read-only state directory)
    /// is still read, and its game resumed; the journal is then behind
    /// ([`Resumed::cannot_write`] says why) and written whole once the disk takes it. Only
    /// a journal that cannot be read either is an error.
    pub fn open(
        state_dir: &Path,
        key: &str,
        players: Players,
    ) -> Result<(Journal, Resumed), JournalError> {
        let journal_dir = state_dir.join("journal");
        let games_dir = state_dir.join("games");
        let path = journal_dir.join(format!("{key}.jsonl"));
        let err = |source| JournalError {
            path: path.clone(),
            source,
        };
        let mut cannot_write = None;
        for dir in [&journal_dir, &games_dir] {
            if let Err(source) = fs::create_dir_all(dir) {
                let e = JournalError {
                    path: dir.clone(),
                    source,
                };
                cannot_write.get_or_insert(e.to_string());
            }
        }
        let appending = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path);
        let (file, read) = match appending {
            Ok(mut file) => {
                let read = read_back(&mut file).map_err(err)?;
                if let Err(e) = end_with_newline(&mut file) {
                    cannot_write.get_or_insert(err(e).to_string());
                }
                (Some(file), read)
            }
            Err(write_error) => {
                cannot_write = Some(err(write_error).to_string());
                match File::open(&path) {
                    Ok(mut file) => (None, read_back(&mut file).map_err(err)?),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {
                        (None, (Resumed::default(), None, Vec::new()))
                    }
                    Err(e) => return Err(err(e)),
                }
            }
        };
        let (mut resumed, started_ms, lines) = read;
        let behind = cannot_write.is_some();
        resumed.cannot_write = cannot_write;
        let mut game = GameView::default();
        for event in &resumed.events {
            game.apply(event);
        }
        let unsaved_moves = game.ply() > 0 && game.result().is_none();
        let journal = Journal {
            path,
            games_dir,
            key: key.to_string(),
            file,
            game,
            players,
            game_started_ms: started_ms.unwrap_or_else(unix_ms),
            unsaved_moves,
            lines,
            behind,
            pgn_due: false,
            flush_due: false,
        };
        Ok((journal, resumed))
    }

    /// The game as journalled so far.
    pub fn game(&self) -> &GameView {
        &self.game
    }

    /// The journal file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether a write failed and the journal on disk lacks some of the game (it is
    /// written whole with the next event).
    pub fn behind(&self) -> bool {
        self.behind
    }

    /// Journals one event; returns once its line is written (a line that changes the game
    /// is then owed a [`flush`](Self::flush)). A new game first keeps the old one as PGN.
    /// The event is followed in memory even when the disk refuses it; the journal is then
    /// behind and catches up with the next event the disk takes.
    pub fn record(&mut self, event: &TimedEvent) -> Result<(), JournalError> {
        let now_ms = unix_ms();
        let line = serde_json::to_string(&LineOut {
            t_ms: event.t.as_ms_f64(),
            unix_ms: now_ms,
            event: &event.event,
        })
        .map_err(|e| JournalError {
            path: self.path.clone(),
            source: io::Error::other(e),
        })?;
        let mut old_game = Ok(());
        if let GameEvent::NewGame { .. } = event.event {
            if self.unsaved_moves {
                old_game = self.save_pgn().map(drop);
            }
            self.game = GameView::default();
            self.game_started_ms = now_ms;
            self.unsaved_moves = false;
            self.pgn_due = false;
            self.lines.clear();
            // A fresh file, written aside and renamed over the old one.
            self.behind = true;
        }
        self.game.apply(&event.event);
        self.lines.push(line);
        match event.event {
            GameEvent::Result { .. } => self.pgn_due = true,
            GameEvent::Move { .. } | GameEvent::Retract { .. } | GameEvent::Takeback { .. } => {
                self.unsaved_moves = true;
            }
            _ => {}
        }
        if self.behind {
            self.write_whole()?;
            self.behind = false;
        } else if let Err(e) = self.append(changes_the_game(&event.event)) {
            self.behind = true;
            return Err(e);
        }
        if self.pgn_due {
            self.save_pgn()?;
            self.pgn_due = false;
            self.unsaved_moves = false;
        }
        old_game
    }

    /// Makes the journal hold the game `events` instead (a game that followed its board
    /// from another port), written whole.
    pub fn replace(&mut self, events: &[GameEvent]) -> Result<(), JournalError> {
        let now_ms = unix_ms();
        let mut lines = Vec::with_capacity(events.len());
        for event in events {
            let line = serde_json::to_string(&LineOut {
                t_ms: 0.0,
                unix_ms: now_ms,
                event,
            })
            .map_err(|e| JournalError {
                path: self.path.clone(),
                source: io::Error::other(e),
            })?;
            lines.push(line);
        }
        self.lines = lines;
        self.game = GameView::default();
        for event in events {
            self.game.apply(event);
        }
        self.game_started_ms = now_ms;
        self.unsaved_moves = self.game.ply() > 0 && self.game.result().is_none();
        self.pgn_due = false;
        self.behind = true;
        self.write_whole()?;
        self.behind = false;
        Ok(())
    }

    /// Whether lines that change the game were written and not yet flushed.
    pub fn flush_due(&self) -> bool {
        self.flush_due
    }

    /// Puts the lines that change the game on disk, when some were written since the last
    /// flush. When the disk fails, the journal is behind and written whole next time.
    pub fn flush(&mut self) -> Result<(), JournalError> {
        if !self.flush_due {
            return Ok(());
        }
        self.flush_due = false;
        let Some(file) = &self.file else {
            return Ok(());
        };
        file.sync_data().map_err(|source| {
            self.behind = true;
            JournalError {
                path: self.path.clone(),
                source,
            }
        })
    }

    /// Appends the last line; `sync`: it is owed a flush.
    fn append(&mut self, sync: bool) -> Result<(), JournalError> {
        let err = |source| JournalError {
            path: self.path.clone(),
            source,
        };
        let line = self.lines.last().map_or("", String::as_str);
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let Some(file) = &mut self.file else {
            return Err(err(io::Error::other("the journal is not open for writing")));
        };
        file.write_all(&bytes).map_err(err)?;
        self.flush_due |= sync;
        Ok(())
    }

    /// Writes the current game's lines to a new file and renames it over the journal.
    fn write_whole(&mut self) -> Result<(), JournalError> {
        let fresh = self.path.with_extension("jsonl.new");
        let mut text = self.lines.join("\n");
        text.push('\n');
        write_durably(&fresh, text.as_bytes())?;
        fs::rename(&fresh, &self.path).map_err(|source| JournalError {
            path: self.path.clone(),
            source,
        })?;
        sync_dir(&self.path);
        self.file = Some(
            OpenOptions::new()
                .read(true)
                .append(true)
                .open(&self.path)
                .map_err(|source| JournalError {
                    path: self.path.clone(),
                    source,
                })?,
        );
        self.flush_due = false;
        Ok(())
    }

    /// Keeps the current game as PGN in the games directory.
    pub fn save_pgn(&mut self) -> Result<PathBuf, JournalError> {
        let (date, stamp) = civil_date(self.game_started_ms);
        let white = self.players.white.as_deref().unwrap_or("?");
        let black = self.players.black.as_deref().unwrap_or("?");
        let tags = [
            ("Event", "eboardd game"),
            ("Site", self.key.as_str()),
            ("Date", date.as_str()),
            ("Round", "-"),
            ("White", white),
            ("Black", black),
        ];
        let pgn = self.game.pgn(&tags);
        let path = self.games_dir.join(format!("{}-{stamp}.pgn", self.key));
        write_durably(&path, pgn.as_bytes())?;
        Ok(path)
    }
}

/// Reads every line; returns the current game, when it started and its lines.
fn read_back(file: &mut File) -> io::Result<(Resumed, Option<u64>, Vec<String>)> {
    file.seek(SeekFrom::Start(0))?;
    let mut resumed = Resumed::default();
    let mut started = None;
    let mut lines = Vec::new();
    let reader = BufReader::new(&mut *file);
    for (i, line) in reader.split(b'\n').enumerate() {
        let line = line?;
        let number = i + 1;
        let text = match std::str::from_utf8(&line) {
            Ok(t) => t.trim(),
            Err(_) => {
                resumed.corrupt.push(CorruptLine {
                    line: number,
                    reason: "not UTF-8".to_string(),
                });
                continue;
            }
        };
        if text.is_empty() {
            continue;
        }
        match serde_json::from_str::<LineIn>(text) {
            Ok(entry) => {
                if let GameEvent::NewGame { .. } = entry.event {
                    resumed.events.clear();
                    lines.clear();
                    started = Some(entry.unix_ms).filter(|&ms| ms > 0);
                }
                resumed.events.push(entry.event);
                lines.push(text.to_string());
            }
            Err(e) => resumed.corrupt.push(CorruptLine {
                line: number,
                reason: e.to_string(),
            }),
        }
    }
    Ok((resumed, started, lines))
}

/// After a torn last write, starts the next line on a line of its own.
fn end_with_newline(file: &mut File) -> io::Result<()> {
    let len = file.seek(SeekFrom::End(0))?;
    if len == 0 {
        return Ok(());
    }
    file.seek(SeekFrom::Start(len - 1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    if last[0] != b'\n' {
        file.write_all(b"\n")?;
        file.sync_data()?;
    }
    Ok(())
}

/// Writes a whole file aside, flushes it and renames it into place.
fn write_durably(path: &Path, bytes: &[u8]) -> Result<(), JournalError> {
    let err = |source| JournalError {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(err)?;
    }
    let tmp = path.with_extension("tmp");
    let mut f = File::create(&tmp).map_err(err)?;
    f.write_all(bytes).map_err(err)?;
    f.sync_all().map_err(err)?;
    fs::rename(&tmp, path).map_err(err)?;
    sync_dir(path);
    Ok(())
}

/// Flushes the directory holding `path` (so a rename survives a power cut); best effort.
fn sync_dir(path: &Path) {
    if let Some(dir) = path.parent()
        && let Ok(d) = File::open(dir)
    {
        let _ = d.sync_all();
    }
}

/// The PGN date (`YYYY.MM.DD`) and a file-name stamp (`YYYYMMDD-HHMMSS`) in UTC.
pub fn civil_date(unix_ms: u64) -> (String, String) {
    let secs = unix_ms / 1000;
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    let (hh, mm, ss) = (rem / 3600, rem / 60 % 60, rem % 60);
    (
        format!("{y:04}.{m:02}.{d:02}"),
        format!("{y:04}{m:02}{d:02}-{hh:02}{mm:02}{ss:02}"),
    )
}

#[cfg(test)]
mod tests;
