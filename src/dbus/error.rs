//! The errors D-Bus callers get, each with a name that says what kind of mistake it was.

use crate::daemon::AttachError;
use crate::daemon::board::BoardError;

/// The prefix of every error name eboardd returns.
pub const ERROR_PREFIX: &str = "org.eboardd.EBoard1.Error";

/// An error returned to a D-Bus caller (`org.eboardd.EBoard1.Error.<Variant>`); the message
/// says what was wrong. Nothing in the daemon changed.
#[derive(Debug, zbus::DBusError)]
#[zbus(prefix = "org.eboardd.EBoard1.Error")]
pub enum Error {
    /// A D-Bus failure.
    #[zbus(error)]
    ZBus(zbus::Error),
    /// An argument is wrong: an illegal FEN, an unknown square, a move that is not legal.
    InvalidArgs(String),
    /// The board is not connected now.
    NotConnected(String),
    /// The board or this build cannot do it.
    Unsupported(String),
    /// The request does not fit the game or the board now.
    Rejected(String),
    /// The board was detached.
    Detached(String),
    /// No board is attached on that device.
    NotAttached(String),
}

/// The longest error message returned; a message quoting a huge argument is cut.
const MAX_MESSAGE: usize = 1024;

fn message(e: &impl std::fmt::Display) -> String {
    crate::text::line(&e.to_string(), MAX_MESSAGE).into_owned()
}

impl From<BoardError> for Error {
    fn from(e: BoardError) -> Self {
        let text = message(&e);
        match e {
            BoardError::InvalidArgument(_) => Error::InvalidArgs(text),
            BoardError::NotConnected(_) => Error::NotConnected(text),
            BoardError::Unsupported(_) => Error::Unsupported(text),
            BoardError::Rejected(_) => Error::Rejected(text),
            BoardError::Detached(_) => Error::Detached(text),
        }
    }
}

impl From<AttachError> for Error {
    fn from(e: AttachError) -> Self {
        let text = message(&e);
        match e {
            AttachError::InvalidPath(_) => Error::InvalidArgs(text),
            AttachError::NotAttached(_) => Error::NotAttached(text),
        }
    }
}
