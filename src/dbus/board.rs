//! One board's D-Bus object: `org.eboardd.EBoard1.Board` at `/org/eboardd/EBoard1/Board/N`.
//!
//! Properties read the board's status; methods check their arguments and send commands to
//! the board's task; [`follow`] turns the board's events into signals (one per contract
//! event, plus `Event` with the contract JSON line) and status changes into
//! `PropertiesChanged`.

use std::borrow::Cow;
use std::collections::HashMap;

use tokio::sync::broadcast::error::RecvError;
use zbus::fdo::Properties;
use zbus::object_server::{Interface, SignalEmitter};
use zbus::{Connection, Variant, interface};

use super::error::Error;
use crate::daemon::board::{BoardHandle, BoardStatus};
use crate::event::{GameEvent, Side, TimedEvent};

/// The board object.
pub struct BoardObject {
    handle: BoardHandle,
}

impl BoardObject {
    /// The object for the board behind `handle`.
    pub fn new(handle: BoardHandle) -> Self {
        BoardObject { handle }
    }
}

/// An electronic chessboard: its link, the sensed board and the game on it.
#[interface(name = "org.eboardd.EBoard1.Board")]
impl BoardObject {
    /// Starts a new game from the FEN (empty: the standard start position).
    async fn new_game(&self, fen: String) -> Result<(), Error> {
        Ok(self.handle.new_game(&fen).await?)
    }

    /// Declares the position on the board; the game goes on from this FEN.
    async fn set_position(&self, fen: String) -> Result<(), Error> {
        Ok(self.handle.set_position(&fen).await?)
    }

    /// Shows a move (UCI, legal in the game position) on the board's LEDs (Millennium, DGT
    /// Revelation II) and, in SAN, on a DGT clock when one is attached.
    async fn show_move(&self, uci: String) -> Result<(), Error> {
        Ok(self.handle.show_move(&uci).await?)
    }

    /// Lights these squares (`["e2","e4"]`; empty: all off).
    async fn set_leds(&self, squares: Vec<String>) -> Result<(), Error> {
        Ok(self.handle.set_leds(&squares).await?)
    }

    /// Shows text on a DGT clock (a DGT3000 shows 8 characters, an XL 6); empty: the
    /// times again. Commands reach the clock one at a time, each acknowledged.
    async fn clock_text(&self, text: String) -> Result<(), Error> {
        Ok(self.handle.clock_text(&text).await?)
    }

    /// Whether the board is connected now.
    #[zbus(property)]
    fn connected(&self) -> bool {
        self.handle.status().connected
    }

    /// The protocol (`dgt`, `millennium`), empty until known.
    #[zbus(property)]
    fn protocol(&self) -> String {
        self.handle.status().protocol
    }

    /// The device path.
    #[zbus(property(emits_changed_signal = "const"))]
    fn device(&self) -> String {
        self.handle.status().device
    }

    /// The board's serial number (DGT: the long serial number, else the short one;
    /// Millennium, which has none: its firmware version), empty until known.
    #[zbus(property)]
    fn serial(&self) -> String {
        self.handle.status().serial
    }

    /// `normal` or `rotated`, empty until known.
    #[zbus(property)]
    fn orientation(&self) -> String {
        self.handle.status().orientation
    }

    /// The sensed piece placement (FEN placement field).
    #[zbus(property)]
    fn placement(&self) -> String {
        self.handle.status().placement
    }

    /// The FEN of the game position.
    #[zbus(property)]
    fn fen(&self) -> String {
        self.handle.status().fen
    }

    /// How many plies the game has.
    #[zbus(property)]
    fn ply(&self) -> u32 {
        self.handle.status().ply
    }

    /// The game as PGN.
    #[zbus(property)]
    fn pgn(&self) -> String {
        self.handle.status().pgn
    }

    /// The edition of the FIDE Laws applied (`fide-2023`, `fide-2014`, `fide-classic`).
    #[zbus(property(emits_changed_signal = "const"))]
    fn laws(&self) -> String {
        self.handle.status().laws
    }

    /// A move was completed and confirmed.
    #[zbus(signal, name = "Move")]
    async fn move_signal(
        emitter: &SignalEmitter<'_>,
        ply: u32,
        uci: &str,
        san: &str,
        fen: &str,
    ) -> zbus::Result<()>;

    /// A confirmed move was withdrawn; the game is back to ply - 1.
    #[zbus(signal)]
    async fn retract(emitter: &SignalEmitter<'_>, ply: u32, uci: &str) -> zbus::Result<()>;

    /// The players took moves back; the game now ends after this ply.
    #[zbus(signal)]
    async fn takeback(emitter: &SignalEmitter<'_>, ply: u32) -> zbus::Result<()>;

    /// A game starts from this position.
    #[zbus(signal, name = "NewGame")]
    async fn new_game_signal(
        emitter: &SignalEmitter<'_>,
        fen: &str,
        chess960: bool,
    ) -> zbus::Result<()>;

    /// A breach of the Laws, citing the article of the edition applied.
    #[zbus(signal)]
    async fn violation(
        emitter: &SignalEmitter<'_>,
        ply: u32,
        article: &str,
        laws: &str,
        detail: &str,
    ) -> zbus::Result<()>;

    /// The board differs from the game on these squares and no legal move explains it.
    #[zbus(signal)]
    async fn mismatch(emitter: &SignalEmitter<'_>, squares: Vec<String>) -> zbus::Result<()>;

    /// A clock reading; running is `white`, `black` or empty.
    #[zbus(signal)]
    async fn clock(
        emitter: &SignalEmitter<'_>,
        white_ms: i64,
        black_ms: i64,
        running: &str,
    ) -> zbus::Result<()>;

    /// The game ended.
    #[zbus(signal, name = "Result")]
    async fn result_signal(
        emitter: &SignalEmitter<'_>,
        result: &str,
        reason: &str,
    ) -> zbus::Result<()>;

    /// Every event as one line of the JSON contract (protocols/events.md).
    #[zbus(signal)]
    async fn event(emitter: &SignalEmitter<'_>, json: &str) -> zbus::Result<()>;
}

/// Emits the signals of one event: its own, then `Event` with the JSON line.
async fn emit_event(emitter: &SignalEmitter<'_>, event: &TimedEvent) -> zbus::Result<()> {
    match &event.event {
        GameEvent::Board { .. } => {}
        GameEvent::NewGame { fen, chess960 } => {
            BoardObject::new_game_signal(emitter, fen, *chess960).await?
        }
        GameEvent::Move {
            ply, uci, san, fen, ..
        } => BoardObject::move_signal(emitter, *ply, uci, san, fen).await?,
        GameEvent::Retract { ply, uci } => BoardObject::retract(emitter, *ply, uci).await?,
        GameEvent::Takeback { ply } => BoardObject::takeback(emitter, *ply).await?,
        GameEvent::Violation {
            ply,
            article,
            laws,
            detail,
            ..
        } => BoardObject::violation(emitter, *ply, article, laws, detail).await?,
        // The arbiter's newer events travel in `Event` only, for now.
        GameEvent::ClaimLapsed { .. } | GameEvent::Due { .. } | GameEvent::Withdrawn { .. } => {}
        GameEvent::Mismatch { squares, .. } => {
            BoardObject::mismatch(emitter, squares.clone()).await?
        }
        GameEvent::Clock {
            white_ms,
            black_ms,
            running,
        } => {
            let running = match running {
                Some(Side::White) => "white",
                Some(Side::Black) => "black",
                None => "",
            };
            let ms = |v: &u64| i64::try_from(*v).unwrap_or(i64::MAX);
            BoardObject::clock(emitter, ms(white_ms), ms(black_ms), running).await?
        }
        GameEvent::Result { result, reason } => {
            BoardObject::result_signal(emitter, result, reason).await?
        }
    }
    BoardObject::event(emitter, &event.to_json_line()).await
}

/// Emits one `PropertiesChanged` with every property that differs between `last` and
/// `now` (none when nothing differs), its values taken from `now`.
async fn emit_changes(
    emitter: &SignalEmitter<'_>,
    last: &BoardStatus,
    now: &BoardStatus,
) -> zbus::Result<()> {
    let mut changed: HashMap<&str, Variant<'_>> = HashMap::new();
    if last.connected != now.connected {
        changed.insert("Connected", Variant::from(now.connected));
    }
    let texts = [
        ("Protocol", &last.protocol, &now.protocol),
        ("Serial", &last.serial, &now.serial),
        ("Orientation", &last.orientation, &now.orientation),
        ("Placement", &last.placement, &now.placement),
        ("Fen", &last.fen, &now.fen),
        ("Pgn", &last.pgn, &now.pgn),
    ];
    for (name, old, new) in texts {
        if old != new {
            changed.insert(name, Variant::from(new.as_str()));
        }
    }
    if last.ply != now.ply {
        changed.insert("Ply", Variant::from(now.ply));
    }
    if changed.is_empty() {
        return Ok(());
    }
    Properties::properties_changed(emitter, BoardObject::name(), changed, Cow::Borrowed(&[])).await
}

/// Publishes a board on D-Bus until aborted: events as signals, status as properties.
/// `events` must have been subscribed before the object was exported, so nothing is missed.
pub async fn follow(
    conn: Connection,
    path: String,
    handle: BoardHandle,
    mut events: tokio::sync::broadcast::Receiver<TimedEvent>,
) {
    let iface = match conn
        .object_server()
        .interface::<_, BoardObject>(path.as_str())
        .await
    {
        Ok(i) => i,
        Err(e) => {
            tracing::error!("{path}: cannot publish: {e}");
            return;
        }
    };
    let mut status = handle.watch_status();
    let mut last = status.borrow_and_update().clone();
    loop {
        let result = tokio::select! {
            event = events.recv() => match event {
                Ok(event) => {
                    let now = status.borrow_and_update().clone();
                    let changes = emit_changes(iface.signal_emitter(), &last, &now).await;
                    last = now;
                    match changes {
                        Ok(()) => emit_event(iface.signal_emitter(), &event).await,
                        Err(e) => Err(e),
                    }
                }
                Err(RecvError::Lagged(n)) => {
                    tracing::warn!("{path}: {n} events were not published (the bus is too slow)");
                    Ok(())
                }
                Err(RecvError::Closed) => return,
            },
            changed = status.changed() => {
                if changed.is_err() {
                    return;
                }
                let now = status.borrow_and_update().clone();
                let result = emit_changes(iface.signal_emitter(), &last, &now).await;
                last = now;
                result
            }
        };
        if let Err(e) = result {
            tracing::warn!("{path}: signal not sent: {e}");
        }
    }
}
