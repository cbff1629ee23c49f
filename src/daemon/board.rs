//! One board as the rest of the daemon sees it: a handle to its task.
//!
//! Each board runs as its own task (module `task`), an actor with an inbox: the handle here sends
//! it [`Request`]s and reads what it publishes — the current [`BoardStatus`] (a watch: always
//! the latest) and every [`TimedEvent`] (a broadcast, in order). Arguments from users are
//! checked here, before they reach the task, so a bad call changes nothing. Sinks (D-Bus,
//! later UCI and relay) only use this handle; they never reach into the task.

pub(crate) mod task;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use shakmaty::Square;
use shakmaty::uci::UciMove;
use tokio::sync::{broadcast, mpsc, oneshot, watch};

use super::core::{CommandError, CoreCommand, GameSetup};
use crate::event::{GameEvent, Orientation, TimedEvent};
use crate::game::record::GameRecord;
use crate::sensing::ClockReading;

/// The longest text accepted for a clock display.
pub const MAX_CLOCK_TEXT: usize = 32;

/// What a board shows users: its link and its game, all as plain values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BoardStatus {
    /// Whether the port is open and the board answering.
    pub connected: bool,
    /// The protocol (`dgt`, `millennium`), empty until known.
    pub protocol: String,
    /// The device path as attached.
    pub device: String,
    /// The board's serial number, empty until it said it.
    pub serial: String,
    /// `normal` or `rotated`, empty until known.
    pub orientation: String,
    /// The sensed piece placement (FEN placement), empty until the board reported it.
    pub placement: String,
    /// The FEN of the game position.
    pub fen: String,
    /// How many plies were played.
    pub ply: u32,
    /// The game as PGN.
    pub pgn: String,
    /// The edition of the Laws applied.
    pub laws: String,
}

/// Why a request to a board failed; nothing changed on the board or in its game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// An argument is wrong (the message says which and why).
    #[error("{0}")]
    InvalidArgument(String),
    /// The board is not connected now.
    #[error("the board on {0} is not connected")]
    NotConnected(String),
    /// The board or this build cannot do it.
    #[error("{0}")]
    Unsupported(String),
    /// The request does not fit the game or the board now.
    #[error("{0}")]
    Rejected(String),
    /// The board was detached.
    #[error("the board on {0} is detached")]
    Detached(String),
}

impl From<CommandError> for BoardError {
    fn from(e: CommandError) -> Self {
        match e {
            CommandError::Unsupported(m) => BoardError::Unsupported(m),
            CommandError::Rejected(m) => BoardError::Rejected(m),
        }
    }
}

/// What a board's task is asked to do.
#[derive(Debug)]
pub enum Request {
    /// Carry out a checked command; the answer says whether it was done.
    Command(CoreCommand, oneshot::Sender<Result<(), BoardError>>),
    /// Answer at once (proves the task's loop is running; the watchdog uses it).
    Ping(oneshot::Sender<()>),
    /// Hand over the game so far and a receiver of every event after it.
    Follow(oneshot::Sender<GameFollow>),
    /// The events of the game so far (from its `new_game`, resumed ones included).
    Game(oneshot::Sender<Vec<GameEvent>>),
    /// Close the port and end the task (detach).
    Stop,
}

/// A board's game so far and the events that follow it, taken at one moment of the board's
/// task, so that nothing is missed or seen twice.
#[derive(Debug)]
pub struct GameFollow {
    /// The game as published so far (also a game resumed from the journal).
    pub record: GameRecord,
    /// The last clock reading, and when it was published.
    pub clock: Option<(ClockReading, std::time::SystemTime)>,
    /// Every event after `record`, in order.
    pub events: broadcast::Receiver<TimedEvent>,
}

#[derive(Debug)]
struct Inner {
    id: u32,
    device: PathBuf,
    requests: mpsc::Sender<Request>,
    status: watch::Receiver<BoardStatus>,
    events: broadcast::Sender<TimedEvent>,
}

/// A handle to one board's task (cheap to clone).
#[derive(Debug, Clone)]
pub struct BoardHandle {
    inner: Arc<Inner>,
}

impl BoardHandle {
    /// The board's number (its D-Bus object is `…/Board/<id>`).
    pub fn id(&self) -> u32 {
        self.inner.id
    }

    /// The device path as attached.
    pub fn device(&self) -> &Path {
        &self.inner.device
    }

    /// The board's status now.
    pub fn status(&self) -> BoardStatus {
        self.inner.status.borrow().clone()
    }

    /// A receiver that sees every change of status.
    pub fn watch_status(&self) -> watch::Receiver<BoardStatus> {
        self.inner.status.clone()
    }

    /// A receiver of every event from now on, in order.
    pub fn subscribe(&self) -> broadcast::Receiver<TimedEvent> {
        self.inner.events.subscribe()
    }

    /// The game so far and a receiver of every event after it.
    pub async fn follow_game(&self) -> Result<GameFollow, BoardError> {
        let detached = || BoardError::Detached(self.inner.device.display().to_string());
        let (tx, rx) = oneshot::channel();
        self.inner
            .requests
            .send(Request::Follow(tx))
            .await
            .map_err(|_| detached())?;
        rx.await.map_err(|_| detached())
    }

    /// Fixes which way round the board stands from now on (`rotated`: turned 180°); the
    /// board is read again that way.
    pub async fn set_orientation(&self, orientation: Orientation) -> Result<(), BoardError> {
        self.command(CoreCommand::SetOrientation(orientation)).await
    }

    /// Starts a new game from `fen` (empty: the start position).
    pub async fn new_game(&self, fen: &str) -> Result<(), BoardError> {
        let setup =
            GameSetup::parse(fen).map_err(|e| BoardError::InvalidArgument(e.to_string()))?;
        self.command(CoreCommand::NewGame(setup)).await
    }

    /// Declares the position on the board to be `fen`; the game goes on from there.
    pub async fn set_position(&self, fen: &str) -> Result<(), BoardError> {
        if fen.trim().is_empty() {
            return Err(BoardError::InvalidArgument(
                "SetPosition needs a FEN (NewGame with an empty FEN starts a game)".into(),
            ));
        }
        let setup =
            GameSetup::parse(fen).map_err(|e| BoardError::InvalidArgument(e.to_string()))?;
        self.command(CoreCommand::SetPosition(setup)).await
    }

    /// Shows a move (legal in the game position) on the board's LEDs and clock.
    pub async fn show_move(&self, uci: &str) -> Result<(), BoardError> {
        let m = UciMove::from_ascii(uci.trim().as_bytes()).map_err(|_| {
            BoardError::InvalidArgument(format!("not a move in UCI notation: {uci:?}"))
        })?;
        self.command(CoreCommand::ShowMove {
            uci: m,
            san: String::new(),
        })
        .await
    }

    /// Lights `squares` (none: all off).
    pub async fn set_leds(&self, squares: &[String]) -> Result<(), BoardError> {
        let parsed = parse_squares(squares)?;
        self.command(CoreCommand::SetLeds(parsed)).await
    }

    /// Shows `text` on the clock.
    pub async fn clock_text(&self, text: &str) -> Result<(), BoardError> {
        if text.len() > MAX_CLOCK_TEXT || !text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
            return Err(BoardError::InvalidArgument(format!(
                "clock text must be printable ASCII of at most {MAX_CLOCK_TEXT} characters: {text:?}"
            )));
        }
        self.command(CoreCommand::ClockText(text.to_string())).await
    }

    /// Whether the task answers within `limit`.
    pub async fn ping(&self, limit: Duration) -> bool {
        let (tx, rx) = oneshot::channel();
        if self.inner.requests.send(Request::Ping(tx)).await.is_err() {
            return false;
        }
        matches!(tokio::time::timeout(limit, rx).await, Ok(Ok(())))
    }

    /// The events of the game so far, from its `new_game` (those resumed from the journal
    /// included; a detached board has none). Every event sent after the answer reaches the
    /// receivers of [`BoardHandle::subscribe`] made before the call.
    pub async fn game_events(&self) -> Vec<GameEvent> {
        let (tx, rx) = oneshot::channel();
        if self.inner.requests.send(Request::Game(tx)).await.is_err() {
            return Vec::new();
        }
        rx.await.unwrap_or_default()
    }

    /// Asks the task to close the port and end.
    pub async fn stop(&self) {
        let _ = self.inner.requests.send(Request::Stop).await;
    }

    async fn command(&self, command: CoreCommand) -> Result<(), BoardError> {
        let detached = || BoardError::Detached(self.inner.device.display().to_string());
        let (tx, rx) = oneshot::channel();
        self.inner
            .requests
            .send(Request::Command(command, tx))
            .await
            .map_err(|_| detached())?;
        rx.await.map_err(|_| detached())?
    }
}

/// Reads square names (`e4`), refusing any that is not a square.
pub fn parse_squares(squares: &[String]) -> Result<Vec<Square>, BoardError> {
    squares
        .iter()
        .map(|s| {
            s.trim()
                .parse::<Square>()
                .map_err(|_| BoardError::InvalidArgument(format!("not a square: {s:?}")))
        })
        .collect()
}

/// The channels between a handle and its task.
pub(crate) struct Channels {
    pub requests: mpsc::Receiver<Request>,
    pub status: watch::Sender<BoardStatus>,
    pub events: broadcast::Sender<TimedEvent>,
}

/// How many events a slow subscriber may fall behind before it loses some.
pub const EVENT_BACKLOG: usize = 1024;

/// A handle and the task's ends of its channels.
pub(crate) fn channels(id: u32, device: PathBuf, initial: BoardStatus) -> (BoardHandle, Channels) {
    let (req_tx, req_rx) = mpsc::channel(64);
    let (status_tx, status_rx) = watch::channel(initial);
    let (events_tx, _) = broadcast::channel(EVENT_BACKLOG);
    let handle = BoardHandle {
        inner: Arc::new(Inner {
            id,
            device,
            requests: req_tx,
            status: status_rx,
            events: events_tx.clone(),
        }),
    };
    let ends = Channels {
        requests: req_rx,
        status: status_tx,
        events: events_tx,
    };
    (handle, ends)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_are_checked() {
        let ok = parse_squares(&["e2".into(), " h8".into()]).expect("squares");
        assert_eq!(ok, vec![Square::E2, Square::H8]);
        let err = parse_squares(&["e2".into(), "i9".into()]).expect_err("i9");
        assert_eq!(
            err,
            BoardError::InvalidArgument("not a square: \"i9\"".into())
        );
    }
}
