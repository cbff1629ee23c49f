//! The host's MQTT outbox on disk: every event message is kept here until the broker has
//! acknowledged it, so that a daemon stopped (or killed) while the broker is away publishes
//! what it confirmed meanwhile once it runs again.
//!
//! Under `<state dir>/mqtt/`, for each board (its number in topics):
//! - `board-N.spool`: one JSON line per event message (`run`, `seq`, topic, payload), written
//!   before the message is handed to the MQTT client;
//! - `board-N.mark`: `{"run":R,"seq":S}`, the first message of the spool the broker has not
//!   acknowledged: every line before it was. With no mark, no line was known acknowledged.
//!   Once every line is acknowledged, the spool is emptied and the mark removed.
//! - `run`: the last `run` (a daemon's life, see [`super`]) used, so that a new life's
//!   number is later than every old one even when the clock went back.
//!
//! The mark is written at most every [`SAVE_PERIOD`] and on a clean stop, without waiting for
//! the disk: a mark older than the truth only publishes some messages again, with their
//! first `run` and `seq`, which consumers drop as QoS 1 duplicates. A line torn by a crash is
//! skipped. This module knows nothing of MQTT clients or boards' tasks.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::message::Position;

/// How often acknowledgements are written to the marks, at most.
pub const SAVE_PERIOD: Duration = Duration::from_millis(500);

/// One spooled message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spooled {
    /// The daemon's life it was published in.
    pub run: u64,
    /// Its number in the board's events of that life.
    pub seq: u64,
    /// The topic.
    pub topic: String,
    /// The payload.
    pub payload: String,
}

impl Spooled {
    /// Where the message stands.
    pub fn at(&self) -> Position {
        Position {
            run: self.run,
            seq: self.seq,
        }
    }
}

/// What [`Spool::open`] found: the spools, the messages the broker has not acknowledged
/// (`(board, message)`, each board's in order, boards by number), and the `run` a new life
/// must exceed.
pub type Opened = (Spool, Vec<(u32, Spooled)>, u64);

/// One board's spool.
#[derive(Debug, Default)]
struct BoardSpool {
    /// Open for appending; `None` until the first message, or while it cannot be opened.
    file: Option<File>,
    /// Spooled messages not acknowledged yet.
    unacked: BTreeSet<Position>,
    /// The mark on disk does not say what `unacked` says.
    dirty: bool,
}

/// Every board's spool (see the module's documentation).
#[derive(Debug)]
pub struct Spool {
    dir: PathBuf,
    boards: BTreeMap<u32, BoardSpool>,
}

fn spool_path(dir: &Path, board: u32) -> PathBuf {
    dir.join(format!("board-{board}.spool"))
}

fn mark_path(dir: &Path, board: u32) -> PathBuf {
    dir.join(format!("board-{board}.mark"))
}

/// Writes `text` to `path` through a temporary file and a rename (not waiting for the disk).
fn replace_file(path: &Path, text: &str) -> io::Result<()> {
    let tmp = path.with_extension("tmp");
    fs::write(&tmp, text)?;
    fs::rename(&tmp, path)
}

/// The board number of a spool file's name.
fn board_of(name: &str) -> Option<u32> {
    name.strip_prefix("board-")?
        .strip_suffix(".spool")?
        .parse()
        .ok()
}

/// Reads a spool's lines (a torn or stray line skipped) and leaves the file ending in a
/// newline, ready for appending.
fn read_lines(file: &mut File) -> io::Result<Vec<Spooled>> {
    file.seek(SeekFrom::Start(0))?;
    let mut lines = Vec::new();
    for line in BufReader::new(&mut *file).split(b'\n') {
        let line = line?;
        if let Ok(m) = serde_json::from_slice::<Spooled>(&line) {
            lines.push(m);
        }
    }
    let len = file.seek(SeekFrom::End(0))?;
    if len > 0 {
        file.seek(SeekFrom::End(-1))?;
        let mut end = [0u8; 1];
        file.read_exact(&mut end)?;
        if end[0] != b'\n' {
            file.write_all(b"\n")?;
        }
    }
    Ok(lines)
}

impl Spool {
    /// Opens the spools under `dir` (created if need be); see [`Opened`].
    pub fn open(dir: &Path) -> io::Result<Opened> {
        fs::create_dir_all(dir)?;
        let mut spool = Spool {
            dir: dir.to_path_buf(),
            boards: BTreeMap::new(),
        };
        let mut pending = Vec::new();
        let mut last_run = fs::read_to_string(dir.join("run"))
            .ok()
            .and_then(|t| t.trim().parse::<u64>().ok())
            .unwrap_or(0);
        let mut boards: Vec<u32> = fs::read_dir(dir)?
            .filter_map(Result::ok)
            .filter_map(|e| board_of(&e.file_name().to_string_lossy()))
            .collect();
        boards.sort_unstable();
        for board in boards {
            let mut file = OpenOptions::new()
                .read(true)
                .append(true)
                .open(spool_path(dir, board))?;
            let lines = read_lines(&mut file)?;
            let mark: Option<Position> = fs::read_to_string(mark_path(dir, board))
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok());
            let mut entry = BoardSpool {
                file: Some(file),
                ..BoardSpool::default()
            };
            for line in lines {
                last_run = last_run.max(line.run);
                if mark.is_none_or(|m| line.at() >= m) && entry.unacked.insert(line.at()) {
                    pending.push((board, line));
                }
            }
            // Nothing left to publish: the spool can go now.
            entry.dirty = entry.unacked.is_empty();
            spool.boards.insert(board, entry);
        }
        spool.save()?;
        Ok((spool, pending, last_run))
    }

    /// Keeps `run` as the last life's number.
    pub fn set_run(&self, run: u64) -> io::Result<()> {
        replace_file(&self.dir.join("run"), &format!("{run}\n"))
    }

    /// Spools one message of `board` (a line written before the message is handed on).
    pub fn append(&mut self, board: u32, message: &Spooled) -> io::Result<()> {
        let entry = self.boards.entry(board).or_default();
        if entry.file.is_none() {
            entry.file = Some(
                OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(spool_path(&self.dir, board))?,
            );
        }
        let mut line = serde_json::to_string(message).map_err(io::Error::other)?;
        line.push('\n');
        entry.unacked.insert(message.at());
        entry.dirty = true;
        match entry.file.as_mut().map(|f| f.write_all(line.as_bytes())) {
            Some(Ok(())) => Ok(()),
            Some(Err(e)) => {
                // Written again whole is not possible: the line may be torn. The next
                // append opens the file again; the reader skips the torn line.
                entry.file = None;
                Err(e)
            }
            None => Ok(()),
        }
    }

    /// The broker acknowledged `board`'s message at `at`.
    pub fn acked(&mut self, board: u32, at: Position) {
        if let Some(entry) = self.boards.get_mut(&board)
            && entry.unacked.remove(&at)
        {
            entry.dirty = true;
        }
    }

    /// Whether `board` has messages the broker has not acknowledged.
    pub fn unacked(&self, board: u32) -> usize {
        self.boards.get(&board).map_or(0, |b| b.unacked.len())
    }

    /// Writes the marks that changed: a board whose every message was acknowledged has its
    /// spool emptied and its mark removed.
    pub fn save(&mut self) -> io::Result<()> {
        let mut first_error = None;
        for (&board, entry) in &mut self.boards {
            if !entry.dirty {
                continue;
            }
            let done = match entry.unacked.first() {
                None => {
                    let emptied = match &entry.file {
                        Some(f) => f.set_len(0),
                        None => match fs::remove_file(spool_path(&self.dir, board)) {
                            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
                            _ => Ok(()),
                        },
                    };
                    emptied.and_then(|()| match fs::remove_file(mark_path(&self.dir, board)) {
                        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
                        _ => Ok(()),
                    })
                }
                Some(first) => serde_json::to_string(first)
                    .map_err(io::Error::other)
                    .and_then(|text| replace_file(&mark_path(&self.dir, board), &text)),
            };
            match done {
                Ok(()) => entry.dirty = false,
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(run: u64, seq: u64) -> Spooled {
        Spooled {
            run,
            seq,
            topic: "eboardd/h/board/0/event".into(),
            payload: format!("{{\"seq\":{seq}}}"),
        }
    }

    fn seqs(pending: &[(u32, Spooled)]) -> Vec<(u32, u64)> {
        pending.iter().map(|(b, m)| (*b, m.seq)).collect()
    }

    #[test]
    fn what_the_broker_did_not_acknowledge_is_handed_back_after_a_restart() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (mut spool, pending, last) = Spool::open(dir.path()).expect("open");
        assert!(pending.is_empty());
        assert_eq!(last, 0);
        spool.set_run(7).expect("run");
        for seq in 1..=4 {
            spool.append(0, &message(7, seq)).expect("append");
        }
        spool.append(3, &message(7, 1)).expect("append");
        spool.acked(0, Position { run: 7, seq: 1 });
        spool.acked(0, Position { run: 7, seq: 3 });
        spool.acked(3, Position { run: 7, seq: 1 });
        spool.save().expect("save");
        drop(spool);
        // A torn last line (a crash in the middle of a write) is skipped.
        let mut f = OpenOptions::new()
            .append(true)
            .open(dir.path().join("board-0.spool"))
            .expect("spool");
        f.write_all(b"{\"run\":7,\"se").expect("torn");
        drop(f);

        let (mut spool, pending, last) = Spool::open(dir.path()).expect("open again");
        // Seq 3 was acknowledged but follows seq 2, which was not: it goes again too (a
        // duplicate consumers drop); board 3's spool was emptied.
        assert_eq!(seqs(&pending), vec![(0, 2), (0, 3), (0, 4)]);
        assert_eq!(pending[0].1, message(7, 2));
        assert_eq!(last, 7);
        assert_eq!(
            fs::metadata(dir.path().join("board-3.spool"))
                .expect("spool")
                .len(),
            0
        );
        // New lines go after the torn one, readable.
        spool.append(0, &message(9, 1)).expect("append");
        spool.save().expect("save");
        drop(spool);
        let (mut spool, pending, _) = Spool::open(dir.path()).expect("open a third time");
        assert_eq!(seqs(&pending), vec![(0, 2), (0, 3), (0, 4), (0, 1)]);
        for (board, m) in &pending {
            spool.acked(*board, m.at());
        }
        assert_eq!(spool.unacked(0), 0);
        spool.save().expect("save");
        assert_eq!(
            fs::metadata(dir.path().join("board-0.spool"))
                .expect("spool")
                .len(),
            0
        );
        assert!(!dir.path().join("board-0.mark").exists());
        drop(spool);
        let (_, pending, last) = Spool::open(dir.path()).expect("open a fourth time");
        assert!(pending.is_empty());
        assert_eq!(last, 7, "the run file; the spools are empty");
    }
}
