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

use shakmaty::san::San;
use shakmaty::uci::UciMove;

use tokio::sync::{broadcast, mpsc, watch};

use super::http::RelayState;
use super::pgn::{PgnTags, game_pgn};
use crate::daemon::board::BoardStatus;
use crate::daemon::complaint::{Complaint, Say};
use crate::daemon::{BoardChange, Daemon};
use crate::event::{GameEvent, TimedEvent};
use crate::game::record::GameRecord;

/// How many boards one lichess round takes, when there are several (lichess keeps
/// [`super::lichess::MAX_GAMES`] games in a round).
pub const ROUND_GAMES: u32 = super::lichess::MAX_GAMES as u32;

/// One board's game as the relay keeps it.
#[derive(Debug, Default)]
struct BoardGame {
    tags: PgnTags,
    record: GameRecord,
    /// The comment on the last move while the board shows a completed illegal move.
    illegal: Option<String>,
    /// The PGN text, made once after each change (`games.pgn` is made of every board's).
    text: std::sync::OnceLock<String>,
}

impl BoardGame {
    fn pgn(&self) -> String {
        self.text
            .get_or_init(|| game_pgn(&self.tags, &self.record, self.illegal.as_deref()))
            .clone()
    }

    /// The game or its tags changed: its text is made again when asked for.
    fn changed(&mut self) {
        self.text = std::sync::OnceLock::new();
    }
}

/// The comment that flags a completed illegal move (Article 7.5) on the last legal move.
fn illegal_note(san: Option<&San>, uci: &UciMove) -> String {
    let shown = match san {
        Some(san) => format!("{san} ({uci}, Article 7.5)"),
        _ => format!("{uci} (Article 7.5)"),
    };
    format!("Illegal move on the board: {shown}. The game goes on once it is corrected.")
}

/// Whether a board's status shows the pieces standing as in its game's position.
pub fn shows_game(status: &BoardStatus) -> bool {
    !status.placement.is_empty() && status.fen.split(' ').next() == Some(status.placement.as_str())
}

/// The PGN files of a directory, one per board and one for all (sans-IO but for
/// [`PgnDir::write`]).
#[derive(Debug)]
pub struct PgnDir {
    dir: Option<PathBuf>,
    http: Option<Arc<RelayState>>,
    /// The lichess rounds pushed to, in order: see [`PgnDir::push_to`].
    push: Vec<watch::Sender<String>>,
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
            push: Vec::new(),
            round,
            boards: BTreeMap::new(),
        }
    }

    /// The games with the round's tags, kept in memory only (for [`PgnDir::serve`]).
    pub fn in_memory(round: PgnTags) -> PgnDir {
        PgnDir {
            dir: None,
            http: None,
            push: Vec::new(),
            round,
            boards: BTreeMap::new(),
        }
    }

    /// Also publishes the games and every event to `http` (`--relay-listen`).
    pub fn serve(mut self, http: Arc<RelayState>) -> PgnDir {
        self.http = Some(http);
        self
    }

    /// Also hands the games of one more lichess round to `push` (`--lichess-round`), each
    /// time they change. With one round, it gets every board (the text of `games.pgn`).
    /// A lichess round keeps [`ROUND_GAMES`] games, so with several rounds, in the order
    /// they were given, round `k` (from 0) gets boards `64k + 1` to `64k + 64` by board
    /// number, in board order, and the last round every board after those too.
    pub fn push_to(mut self, push: watch::Sender<String>) -> PgnDir {
        self.push.push(push);
        self
    }

    /// The text each pushed round gets now (see [`PgnDir::push_to`]), given the text of
    /// every board.
    fn round_texts(&self, games: &str) -> Vec<String> {
        let rounds = self.push.len();
        if rounds <= 1 {
            return vec![games.to_string(); rounds];
        }
        let last = rounds - 1;
        let mut parts: Vec<Vec<String>> = vec![Vec::new(); rounds];
        for (&id, board) in &self.boards {
            let k = usize::try_from(id / ROUND_GAMES).map_or(last, |k| k.min(last));
            parts[k].push(board.pgn());
        }
        parts.into_iter().map(|p| p.join("\n")).collect()
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
        board.changed();
        board.tags = PgnTags {
            board: Some(id.saturating_add(1)),
            white,
            black,
            ..self.round.clone()
        };
    }

    /// Follows one event of board `id`; whether the files must be written again.
    ///
    /// A completed illegal move (a `violation` naming the move) of the ply after the last
    /// one flags the game: a comment on its last legal move says which move was illegal,
    /// until the game changes (the correct move, a takeback, a new game) or
    /// [`PgnDir::board_shows_game`] says the position was put right.
    pub fn apply(&mut self, id: u32, event: &GameEvent) -> bool {
        if !self.boards.contains_key(&id) {
            self.add_board(id, None, None);
        }
        let Some(board) = self.boards.get_mut(&id) else {
            return false;
        };
        board.record.apply(event);
        if let GameEvent::Violation {
            ply,
            uci: Some(uci),
            san,
            ..
        } = event
        {
            if *ply as usize != board.record.moves.len() + 1 || board.record.result.is_some() {
                return false;
            }
            board.illegal = Some(illegal_note(san.as_ref(), uci));
            board.changed();
            return true;
        }
        if changes_pgn(event) {
            board.changed();
            board.illegal = None;
            return true;
        }
        false
    }

    /// Board `id`'s pieces stand as in its game again: a completed illegal move was put
    /// right. Whether the files must be written again (the game was flagged).
    pub fn board_shows_game(&mut self, id: u32) -> bool {
        self.boards.get_mut(&id).is_some_and(|b| {
            b.changed();
            b.illegal.take().is_some()
        })
    }

    /// Whether board `id`'s game is flagged with a completed illegal move now.
    pub fn shows_illegal_move(&self, id: u32) -> bool {
        self.boards.get(&id).is_some_and(|b| b.illegal.is_some())
    }

    /// The PGN of board `id`, if known.
    pub fn board_pgn(&self, id: u32) -> Option<String> {
        self.boards.get(&id).map(BoardGame::pgn)
    }

    /// Every board's game, in board order, separated by blank lines.
    pub fn games_pgn(&self) -> String {
        let games: Vec<String> = self.boards.values().map(BoardGame::pgn).collect();
        games.join("\n")
    }

    /// Writes board `id`'s file and `games.pgn`, then hands them to the push and publishes
    /// them over HTTP if served (so that what the server says is in the files already).
    pub fn write(&self, id: u32) -> std::io::Result<()> {
        let texts = self.texts(&[id]);
        let written = write_files(self.dir.as_deref(), &texts);
        self.publish(texts);
        written
    }

    /// As [`PgnDir::write`] for several boards at once (`games.pgn` written once), the files
    /// written on tokio's blocking pool.
    pub async fn write_boards(&self, ids: &[u32]) -> std::io::Result<()> {
        let texts = self.texts(ids);
        let written = match &self.dir {
            Some(dir) => {
                let (dir, to_write) = (dir.clone(), texts.clone());
                tokio::task::spawn_blocking(move || write_files(Some(&dir), &to_write))
                    .await
                    .unwrap_or_else(|e| Err(std::io::Error::other(e)))
            }
            None => Ok(()),
        };
        self.publish(texts);
        written
    }

    /// The PGN of boards `ids` and of the round.
    fn texts(&self, ids: &[u32]) -> Texts {
        Texts {
            boards: ids
                .iter()
                .map(|&id| (id, self.board_pgn(id).unwrap_or_default()))
                .collect(),
            games: self.games_pgn(),
        }
    }

    /// Hands the round's PGN to the pushes and publishes it over HTTP.
    fn publish(&self, texts: Texts) {
        let Texts { boards, games } = texts;
        for (push, text) in self.push.iter().zip(self.round_texts(&games)) {
            push.send_if_modified(|pushed| {
                let changed = *pushed != text;
                if changed {
                    *pushed = text;
                }
                changed
            });
        }
        if let Some(http) = &self.http {
            http.publish_pgn(boards, games);
        }
    }
}

/// Board files' texts (by board id, from 0) and the round's.
#[derive(Debug, Clone)]
struct Texts {
    boards: Vec<(u32, String)>,
    games: String,
}

/// Writes `board-N.pgn` of every board in `texts`, then `games.pgn`, into `dir` (if any).
fn write_files(dir: Option<&Path>, texts: &Texts) -> std::io::Result<()> {
    let Some(dir) = dir else {
        return Ok(());
    };
    for (id, text) in &texts.boards {
        let name = format!("board-{}.pgn", id.saturating_add(1));
        write_atomically(&dir.join(name), text)?;
    }
    write_atomically(&dir.join("games.pgn"), &texts.games)
}

/// Starts keeping `--pgn-dir` up to date with every board of `daemon`, until the daemon
/// stops announcing boards. Call it before boards are attached: it listens for them from the
/// moment it is called (a board's events are followed from its announcement on).
pub fn spawn_pgn_dir(daemon: Daemon, files: PgnDir) -> tokio::task::JoinHandle<()> {
    let changes = daemon.subscribe();
    tokio::spawn(run_pgn_dir(daemon, files, changes))
}

/// What the relay hears from one board.
enum Heard {
    /// The board's game so far when the relay started following it (resumed from the
    /// journal, after a restart).
    Game(Vec<GameEvent>),
    /// An event of the board's game.
    Event(TimedEvent),
    /// The board's pieces stand as in its game again.
    ShowsGame,
}

/// Forwards board `handle`'s game so far, then its events, and each time its pieces come
/// to stand as in its game again, to `tx`.
fn follow(handle: &crate::daemon::board::BoardHandle, tx: &mpsc::UnboundedSender<(u32, Heard)>) {
    let mut events = handle.subscribe();
    let id = handle.id();
    let events_tx = tx.clone();
    let board = handle.clone();
    tokio::spawn(async move {
        // Subscribed first: an event sent meanwhile comes twice, which changes nothing.
        let game = board.game_events().await;
        if !game.is_empty() && events_tx.send((id, Heard::Game(game))).is_err() {
            return;
        }
        loop {
            match events.recv().await {
                Ok(e) => {
                    if events_tx.send((id, Heard::Event(e))).is_err() {
                        break;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!(board = id, missed = n, "the relay fell behind");
                }
                Err(broadcast::error::RecvError::Closed) => break,
            }
        }
    });
    let mut status = handle.watch_status();
    let status_tx = tx.clone();
    tokio::spawn(async move {
        let mut showed = shows_game(&status.borrow_and_update());
        while status.changed().await.is_ok() {
            let shows = shows_game(&status.borrow_and_update());
            if shows && !showed && status_tx.send((id, Heard::ShowsGame)).is_err() {
                break;
            }
            showed = shows;
        }
    });
}

/// Follows what was heard from board `id`; whether its PGN changed.
fn hear(
    files: &mut PgnDir,
    followed: &std::collections::HashMap<u32, crate::daemon::board::BoardHandle>,
    id: u32,
    heard: Heard,
) -> bool {
    // A board put right before its illegal move was heard: its status is the latest word.
    let put_right = |files: &mut PgnDir| {
        files.shows_illegal_move(id)
            && followed.get(&id).is_some_and(|h| shows_game(&h.status()))
            && files.board_shows_game(id)
    };
    let before = files.board_pgn(id);
    // A game event is written (a new game's first text too); the flag counts by the text,
    // so that one raised and lowered at once changes nothing.
    let apply = |files: &mut PgnDir, event: &GameEvent| {
        files.apply(id, event) && !matches!(event, GameEvent::Violation { .. })
    };
    let changed = match heard {
        Heard::Game(game) => game
            .iter()
            .fold(false, |changed, event| apply(files, event) | changed),
        Heard::Event(event) => {
            files.publish_event(id, &event);
            apply(files, &event.event)
        }
        Heard::ShowsGame => {
            files.board_shows_game(id);
            false
        }
    };
    put_right(files);
    changed || files.board_pgn(id) != before
}

async fn run_pgn_dir(
    daemon: Daemon,
    mut files: PgnDir,
    mut changes: broadcast::Receiver<BoardChange>,
) {
    let (tx, mut rx) = mpsc::unbounded_channel::<(u32, Heard)>();
    let mut followed = std::collections::HashMap::new();
    let players: Vec<_> = daemon
        .options()
        .boards
        .iter()
        .map(|b| (b.device.clone(), b.white.clone(), b.black.clone()))
        .collect();
    for handle in daemon.boards().await {
        follow(&handle, &tx);
        followed.insert(handle.id(), handle);
    }
    let mut pgn_errors = Complaint::new();
    loop {
        tokio::select! {
            change = changes.recv() => match change {
                Ok(BoardChange::Added(handle)) => {
                    let known = players.iter().find(|(d, _, _)| d == handle.device());
                    let (white, black) = known
                        .map(|(_, w, b)| (w.clone(), b.clone()))
                        .unwrap_or_default();
                    files.add_board(handle.id(), white, black);
                    if let std::collections::hash_map::Entry::Vacant(e) =
                        followed.entry(handle.id())
                    {
                        follow(&handle, &tx);
                        e.insert(handle);
                    }
                }
                Ok(BoardChange::Removed(_)) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => break,
            },
            Some(first) = rx.recv() => {
                // Everything heard meanwhile, then one write: under load the files are
                // written once for many moves instead of falling behind.
                let mut heard_now = vec![first];
                while let Ok(more) = rx.try_recv() {
                    heard_now.push(more);
                }
                let mut to_write = std::collections::BTreeSet::new();
                for (id, heard) in heard_now {
                    if hear(&mut files, &followed, id, heard) {
                        to_write.insert(id);
                    }
                }
                if !to_write.is_empty() {
                    let ids: Vec<u32> = to_write.into_iter().collect();
                    let written = files.write_boards(&ids).await;
                    // A full disk fails every move: said once, and once when it clears.
                    match pgn_errors.note(written.map_err(|e| {
                        let kind = format!("{:?}", e.kind());
                        (e, kind)
                    })) {
                        Some(Say::Failing(e)) => tracing::warn!(
                            "cannot write PGN: {e}; tried again on every move, said again once it works"
                        ),
                        Some(Say::Cleared) => tracing::info!("PGN written again"),
                        None => {}
                    }
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
            uci: uci.parse().expect("uci"),
            san: san.parse().expect("san"),
            fen: String::new(),
            clock_ms,
            emt_ms: None,
            alternatives: Vec::new(),
        }
    }

    fn illegal(ply: u32, uci: &str, san: &str) -> GameEvent {
        GameEvent::Violation {
            ply,
            article: "7.5".into(),
            laws: "fide-2023".into(),
            detail: format!("{uci} was completed but is illegal"),
            claimable: true,
            square: None,
            uci: Some(uci.parse().expect("uci")),
            san: Some(san.parse().expect("san")),
        }
    }

    /// The `Round` tags of a pushed text, in order.
    fn rounds_of(text: &str) -> Vec<String> {
        text.lines()
            .filter_map(|l| l.strip_prefix("[Round \"")?.strip_suffix("\"]"))
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn boards_are_split_over_the_pushed_rounds_64_each_in_board_order() {
        let tags = PgnTags {
            round: Some("2".into()),
            ..PgnTags::default()
        };
        let mut receivers = Vec::new();
        let mut files = PgnDir::in_memory(tags);
        for _ in 0..3 {
            let (tx, rx) = watch::channel(String::new());
            files = files.push_to(tx);
            receivers.push(rx);
        }
        // Added out of order, with a gap (board 100 is missing).
        for id in (0..130).rev().filter(|&id| id != 99) {
            files.add_board(id, None, None);
        }
        assert!(files.apply(129, &mv(1, "e2e4", "e4", None)));
        files.write(129).expect("in memory");
        let texts: Vec<String> = receivers.iter().map(|r| r.borrow().clone()).collect();
        let want = |from: u32, to: u32| -> Vec<String> {
            (from..=to)
                .filter(|&n| n != 100)
                .map(|n| format!("2.{n}"))
                .collect()
        };
        assert_eq!(rounds_of(&texts[0]), want(1, 64));
        assert_eq!(rounds_of(&texts[1]), want(65, 128));
        assert_eq!(rounds_of(&texts[2]), want(129, 130));
        assert!(texts[2].contains("1. e4 *"), "{}", texts[2]);
        // Every game once, each as in games.pgn.
        assert_eq!(texts.join("\n"), files.games_pgn());

        // Two rounds: the last takes every board past the first 64.
        let (tx, one) = watch::channel(String::new());
        let (tx2, two) = watch::channel(String::new());
        let mut files = PgnDir::in_memory(PgnTags::default())
            .push_to(tx)
            .push_to(tx2);
        for id in 0..130 {
            files.add_board(id, None, None);
        }
        files.write(0).expect("in memory");
        assert_eq!(rounds_of(&one.borrow()).len(), 64);
        assert_eq!(rounds_of(&two.borrow()).len(), 66);

        // One round: every board, the text of games.pgn.
        let (tx, all) = watch::channel(String::new());
        let mut files = PgnDir::in_memory(PgnTags::default()).push_to(tx);
        for id in 0..70 {
            files.add_board(id, None, None);
        }
        files.write(0).expect("in memory");
        assert_eq!(*all.borrow(), files.games_pgn());
    }

    #[test]
    fn a_completed_illegal_move_flags_the_last_legal_move_until_the_game_goes_on() {
        let mut files = PgnDir::in_memory(PgnTags::default());
        files.add_board(0, None, None);
        assert!(files.apply(0, &mv(1, "e2e4", "e4", None)));
        assert!(files.apply(0, &illegal(2, "e8e7", "Ke7")));
        let pgn = files.board_pgn(0).expect("board 1");
        assert!(
            pgn.ends_with(
                "1. e4 { Illegal move on the board: Ke7 (e8e7, Article 7.5). The game goes on\n\
                 once it is corrected. } *\n"
            ),
            "{pgn}"
        );
        assert_eq!(files.games_pgn(), pgn);
        // An Article 4 violation, or one of an earlier ply, is no illegal move of the board.
        let touch = GameEvent::Violation {
            ply: 2,
            article: "4.3a".into(),
            laws: "fide-2023".into(),
            detail: "d".into(),
            claimable: true,
            square: Some("g8".parse().expect("square")),
            uci: None,
            san: None,
        };
        assert!(!files.apply(0, &touch));
        assert!(files.apply(0, &mv(2, "e7e5", "e5", None)));
        assert!(files.board_pgn(0).expect("pgn").ends_with("1. e4 e5 *\n"));
        assert!(!files.apply(0, &illegal(2, "e8e7", "Ke7")));
        // Put right on the board: the flag goes.
        assert!(files.apply(0, &illegal(3, "e1e2", "Ke2")));
        assert!(files.shows_illegal_move(0));
        assert!(files.board_shows_game(0));
        assert!(!files.board_shows_game(0), "once");
        assert!(files.board_pgn(0).expect("pgn").ends_with("1. e4 e5 *\n"));
    }

    #[test]
    fn an_illegal_first_move_is_a_comment_before_the_moves() {
        let mut files = PgnDir::in_memory(PgnTags::default());
        assert!(files.apply(3, &illegal(1, "e1e2", "Ke2")));
        let pgn = files.board_pgn(3).expect("board 4");
        assert!(
            pgn.contains("\n\n{ Illegal move on the board: Ke2 (e1e2, Article 7.5)."),
            "{pgn}"
        );
        assert!(pgn.ends_with("corrected. } *\n"), "{pgn}");
        assert!(files.apply(3, &GameEvent::Takeback { ply: 0 }));
        assert!(!files.shows_illegal_move(3));
    }

    #[test]
    fn a_board_shows_its_game_when_its_pieces_stand_as_in_the_position() {
        let mut status = BoardStatus {
            placement: "8/8/8/8/8/8/8/K6k".into(),
            fen: "8/8/8/8/8/8/8/K6k w - - 0 1".into(),
            ..BoardStatus::default()
        };
        assert!(shows_game(&status));
        status.placement = "8/8/8/8/8/8/K7/7k".into();
        assert!(!shows_game(&status));
        status.placement.clear();
        assert!(!shows_game(&status), "not reported yet");
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
        assert!(!files.apply(
            0,
            &GameEvent::Mismatch {
                squares: vec![],
                nearest: None
            }
        ));

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
