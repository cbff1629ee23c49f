//! Proxies for eboardd's D-Bus interfaces, for clients (`eboardd watch`, tests).

use zbus::proxy;

/// `org.eboardd.EBoard1.Manager`.
#[proxy(
    interface = "org.eboardd.EBoard1.Manager",
    default_service = "org.eboardd.EBoard1",
    default_path = "/org/eboardd/EBoard1"
)]
pub trait Manager {
    /// Attaches a device; returns its board's object.
    fn attach_device(&self, path: &str) -> zbus::Result<zbus::OwnedObjectPath>;
    /// Detaches a device.
    fn detach_device(&self, path: &str) -> zbus::Result<()>;
    /// The boards' objects.
    #[zbus(property)]
    fn boards(&self) -> zbus::Result<Vec<zbus::OwnedObjectPath>>;
    /// The asynchronous tasks the daemon runs now.
    #[zbus(property(emits_changed_signal = "false"))]
    fn tasks(&self) -> zbus::Result<u32>;
    /// A board was attached.
    #[zbus(signal)]
    fn board_added(&self, board: zbus::ObjectPath<'_>) -> zbus::Result<()>;
    /// A board was detached.
    #[zbus(signal)]
    fn board_removed(&self, board: zbus::ObjectPath<'_>) -> zbus::Result<()>;
}

/// `org.eboardd.EBoard1.Board`.
#[proxy(
    interface = "org.eboardd.EBoard1.Board",
    default_service = "org.eboardd.EBoard1"
)]
pub trait Board {
    /// Starts a new game.
    fn new_game(&self, fen: &str) -> zbus::Result<()>;
    /// Declares the position on the board.
    fn set_position(&self, fen: &str) -> zbus::Result<()>;
    /// Shows a move.
    fn show_move(&self, uci: &str) -> zbus::Result<()>;
    /// Lights squares.
    fn set_leds(&self, squares: &[&str]) -> zbus::Result<()>;
    /// Shows clock text.
    fn clock_text(&self, text: &str) -> zbus::Result<()>;
    /// Whether the board is connected.
    #[zbus(property)]
    fn connected(&self) -> zbus::Result<bool>;
    /// The protocol.
    #[zbus(property)]
    fn protocol(&self) -> zbus::Result<String>;
    /// The device path.
    #[zbus(property)]
    fn device(&self) -> zbus::Result<String>;
    /// The serial number.
    #[zbus(property)]
    fn serial(&self) -> zbus::Result<String>;
    /// The orientation.
    #[zbus(property)]
    fn orientation(&self) -> zbus::Result<String>;
    /// The sensed placement.
    #[zbus(property)]
    fn placement(&self) -> zbus::Result<String>;
    /// The game FEN.
    #[zbus(property)]
    fn fen(&self) -> zbus::Result<String>;
    /// The ply count.
    #[zbus(property)]
    fn ply(&self) -> zbus::Result<u32>;
    /// The game as PGN.
    #[zbus(property)]
    fn pgn(&self) -> zbus::Result<String>;
    /// The edition of the Laws.
    #[zbus(property)]
    fn laws(&self) -> zbus::Result<String>;
    /// A confirmed move.
    #[zbus(signal, name = "Move")]
    fn move_signal(&self, ply: u32, uci: String, san: String, fen: String) -> zbus::Result<()>;
    /// A retracted move.
    #[zbus(signal)]
    fn retract(&self, ply: u32, uci: String) -> zbus::Result<()>;
    /// A takeback.
    #[zbus(signal)]
    fn takeback(&self, ply: u32) -> zbus::Result<()>;
    /// A new game.
    #[zbus(signal, name = "NewGame")]
    fn new_game_signal(&self, fen: String, chess960: bool) -> zbus::Result<()>;
    /// A violation of the Laws.
    #[zbus(signal)]
    fn violation(
        &self,
        ply: u32,
        article: String,
        laws: String,
        detail: String,
    ) -> zbus::Result<()>;
    /// A mismatch.
    #[zbus(signal)]
    fn mismatch(&self, squares: Vec<String>) -> zbus::Result<()>;
    /// A clock reading.
    #[zbus(signal)]
    fn clock(&self, white_ms: i64, black_ms: i64, running: String) -> zbus::Result<()>;
    /// The result.
    #[zbus(signal, name = "Result")]
    fn result_signal(&self, result: String, reason: String) -> zbus::Result<()>;
    /// Every event as a contract JSON line.
    #[zbus(signal)]
    fn event(&self, json: String) -> zbus::Result<()>;
}
