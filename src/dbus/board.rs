//! One board's D-Bus object: `org.eboardd.EBoard1.Board` at `/org/eboardd/EBoard1/Board/N`.
//!
//! Properties read the board's status; methods check their arguments and send commands to
//! the board's task; [`follow`] turns the board's events into signals (one per contract
//! event, plus `Event` with the contract JSON line) and status changes into
//! `PropertiesChanged`.
//!
//! Every string leaves through [`one_line`] or, for PGN, [`text_lines`]: a D-Bus string
//! with a NUL in it would break the daemon's whole connection, for every board, so no
//! text from a board, a file or a client is published unchecked.

use std::borrow::Cow;
use std::collections::HashMap;

use tokio::sync::broadcast::error::RecvError;
use zbus::fdo::Properties;
use zbus::object_server::{Interface, SignalEmitter};
use zbus::{Connection, Variant, interface};

use super::error::Error;
use crate::daemon::board::{BoardHandle, BoardStatus};
use crate::event::{GameEvent, TimedEvent};
use crate::text::{self, MAX_LINE};
use shakmaty::Color;

/// The longest PGN published (a long game is a few kilobytes).
pub const MAX_PGN: usize = 1 << 20;

/// `s` fit for a D-Bus string of one line: control characters escaped, at most
/// [`MAX_LINE`] bytes.
pub fn one_line(s: &str) -> Cow<'_, str> {
    text::line(s, MAX_LINE)
}

/// `s` fit for a D-Bus string of several lines (PGN): control characters other than line
/// breaks and tabs escaped, at most [`MAX_PGN`] bytes.
pub fn text_lines(s: &str) -> Cow<'_, str> {
    text::lines(s, MAX_PGN)
}

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
        published(&self.handle.status()).protocol
    }

    /// The device path.
    #[zbus(property(emits_changed_signal = "const"))]
    fn device(&self) -> String {
        published(&self.handle.status()).device
    }

    /// The board's serial number (DGT: the long serial number, else the short one;
    /// Millennium, which has none: its firmware version), empty until known.
    #[zbus(property)]
    fn serial(&self) -> String {
        published(&self.handle.status()).serial
    }

    /// `normal` or `rotated`, empty until known.
    #[zbus(property)]
    fn orientation(&self) -> String {
        published(&self.handle.status()).orientation
    }

    /// The sensed piece placement (FEN placement field).
    #[zbus(property)]
    fn placement(&self) -> String {
        published(&self.handle.status()).placement
    }

    /// The FEN of the game position.
    #[zbus(property)]
    fn fen(&self) -> String {
        published(&self.handle.status()).fen
    }

    /// How many plies the game has.
    #[zbus(property)]
    fn ply(&self) -> u32 {
        self.handle.status().ply
    }

    /// The game as PGN.
    #[zbus(property)]
    fn pgn(&self) -> String {
        published(&self.handle.status()).pgn
    }

    /// The edition of the FIDE Laws applied (`fide-2023`, `fide-2014`, `fide-classic`).
    #[zbus(property(emits_changed_signal = "const"))]
    fn laws(&self) -> String {
        published(&self.handle.status()).laws
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

/// One signal as it goes on the bus, every string in it made fit ([`one_line`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Signal {
    /// `NewGame(fen, chess960)`.
    NewGame(String, bool),
    /// `Move(ply, uci, san, fen)`.
    Move(u32, String, String, String),
    /// `Retract(ply, uci)`.
    Retract(u32, String),
    /// `Takeback(ply)`.
    Takeback(u32),
    /// `Violation(ply, article, laws, detail)`.
    Violation(u32, String, String, String),
    /// `Mismatch(squares)`.
    Mismatch(Vec<String>),
    /// `Clock(white_ms, black_ms, running)`.
    Clock(i64, i64, &'static str),
    /// `Result(result, reason)`.
    Result(String, String),
    /// `Event(json)`.
    Event(String),
}

impl Signal {
    /// Every string the signal carries.
    pub fn strings(&self) -> Vec<&str> {
        match self {
            Signal::NewGame(fen, _) => vec![fen],
            Signal::Move(_, uci, san, fen) => vec![uci, san, fen],
            Signal::Retract(_, uci) => vec![uci],
            Signal::Takeback(_) => vec![],
            Signal::Violation(_, article, laws, detail) => vec![article, laws, detail],
            Signal::Mismatch(squares) => squares.iter().map(String::as_str).collect(),
            Signal::Clock(_, _, running) => vec![running],
            Signal::Result(result, reason) => vec![result, reason],
            Signal::Event(json) => vec![json],
        }
    }
}

/// The signals of one event, in the order they are sent: its own (if it has one), then
/// `Event` with the JSON line.
pub fn signals(event: &TimedEvent) -> Vec<Signal> {
    let line = |s: &str| one_line(s).into_owned();
    let own = match &event.event {
        GameEvent::Board { .. } => None,
        GameEvent::NewGame { fen, chess960 } => Some(Signal::NewGame(line(fen), *chess960)),
        GameEvent::Move {
            ply, uci, san, fen, ..
        } => Some(Signal::Move(
            *ply,
            uci.to_string(),
            san.to_string(),
            line(fen),
        )),
        GameEvent::Retract { ply, uci } => Some(Signal::Retract(*ply, uci.to_string())),
        GameEvent::Takeback { ply } => Some(Signal::Takeback(*ply)),
        GameEvent::Violation {
            ply,
            article,
            laws,
            detail,
            ..
        } => Some(Signal::Violation(
            *ply,
            line(article),
            line(laws),
            line(detail),
        )),
        // The arbiter's newer events travel in `Event` only, for now.
        GameEvent::ClaimLapsed { .. } | GameEvent::Due { .. } | GameEvent::Withdrawn { .. } => None,
        GameEvent::Mismatch { squares, .. } => Some(Signal::Mismatch(
            squares.iter().map(ToString::to_string).collect(),
        )),
        GameEvent::Clock {
            white_ms,
            black_ms,
            running,
        } => {
            let running = match running {
                Some(Color::White) => "white",
                Some(Color::Black) => "black",
                None => "",
            };
            let ms = |v: &u64| i64::try_from(*v).unwrap_or(i64::MAX);
            Some(Signal::Clock(ms(white_ms), ms(black_ms), running))
        }
        GameEvent::Result { result, reason } => {
            Some(Signal::Result(result.to_string(), line(reason)))
        }
    };
    own.into_iter()
        .chain([Signal::Event(line(&event.to_json_line()))])
        .collect()
}

/// Sends one signal.
async fn emit(emitter: &SignalEmitter<'_>, signal: &Signal) -> zbus::Result<()> {
    match signal {
        Signal::NewGame(fen, chess960) => {
            BoardObject::new_game_signal(emitter, fen, *chess960).await
        }
        Signal::Move(ply, uci, san, fen) => {
            BoardObject::move_signal(emitter, *ply, uci, san, fen).await
        }
        Signal::Retract(ply, uci) => BoardObject::retract(emitter, *ply, uci).await,
        Signal::Takeback(ply) => BoardObject::takeback(emitter, *ply).await,
        Signal::Violation(ply, article, laws, detail) => {
            BoardObject::violation(emitter, *ply, article, laws, detail).await
        }
        Signal::Mismatch(squares) => BoardObject::mismatch(emitter, squares.clone()).await,
        Signal::Clock(white, black, running) => {
            BoardObject::clock(emitter, *white, *black, running).await
        }
        Signal::Result(result, reason) => BoardObject::result_signal(emitter, result, reason).await,
        Signal::Event(json) => BoardObject::event(emitter, json).await,
    }
}

/// Emits the signals of one event ([`signals`]).
async fn emit_event(emitter: &SignalEmitter<'_>, event: &TimedEvent) -> zbus::Result<()> {
    for signal in signals(event) {
        emit(emitter, &signal).await?;
    }
    Ok(())
}

/// The status as its properties publish it: every string made fit ([`one_line`], and
/// [`text_lines`] for the PGN).
pub fn published(status: &BoardStatus) -> BoardStatus {
    let line = |s: &str| one_line(s).into_owned();
    BoardStatus {
        connected: status.connected,
        protocol: line(&status.protocol),
        device: line(&status.device),
        serial: line(&status.serial),
        orientation: line(&status.orientation),
        placement: line(&status.placement),
        fen: line(&status.fen),
        ply: status.ply,
        pgn: text_lines(&status.pgn).into_owned(),
        laws: line(&status.laws),
    }
}

/// Emits one `PropertiesChanged` with every property that differs between `last` and
/// `now` (none when nothing differs), its values taken from `now`; both are
/// [`published`] statuses.
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
    let mut last = published(&status.borrow_and_update());
    loop {
        let result = tokio::select! {
            event = events.recv() => match event {
                Ok(event) => {
                    let now = published(&status.borrow_and_update());
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
                let now = published(&status.borrow_and_update());
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

/// Drains what `core` (a board speaking `protocol`) has to send and to publish, and panics
/// naming the first string the daemon would publish that a D-Bus peer or the journal could
/// not take: every string of every signal its events make, the board's serial number as
/// the core gives it, and every property of a status built from the core (which must be
/// published unchanged, being fit). The check of the D-Bus edge's property test and fuzz
/// target.
#[doc(hidden)]
pub fn assert_published_fit(
    core: &mut crate::daemon::core::BoardCore,
    protocol: crate::protocol::Protocol,
) {
    use crate::daemon::core::Core;
    use crate::text::{MAX_BOARD_TEXT, is_line};
    while core.poll_transmit().is_some() {}
    while let Some(event) = core.poll_event() {
        for signal in signals(&event) {
            for s in signal.strings() {
                assert!(is_line(s, MAX_LINE), "{signal:?} carries {s:?}");
            }
        }
    }
    // The board's own words are fit before they reach the daemon at all.
    let serial = core.serial().unwrap_or_default();
    assert!(is_line(&serial, MAX_BOARD_TEXT), "serial {serial:?}");
    let status = BoardStatus {
        connected: true,
        protocol: protocol.as_str().to_string(),
        device: "/dev/ttyUSB0".to_string(),
        serial,
        orientation: core
            .orientation()
            .map(|o| o.as_str().to_string())
            .unwrap_or_default(),
        placement: core.placement().unwrap_or_default(),
        ..BoardStatus::default()
    };
    let shown = published(&status);
    assert_eq!(shown, status, "a fit status is published as it is");
    for s in [
        &shown.protocol,
        &shown.device,
        &shown.serial,
        &shown.orientation,
        &shown.placement,
        &shown.fen,
        &shown.laws,
    ] {
        assert!(is_line(s, MAX_LINE), "{s:?}");
    }
    assert!(!shown.pgn.contains('\0') && shown.pgn.len() <= MAX_PGN);
}
