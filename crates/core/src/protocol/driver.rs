//! Board drivers: what talking to one type of board takes beyond its codec.
//!
//! A [`Driver`] owns everything that differs between board types once the bytes are
//! decoded: the start-up commands and their pacing, the keep-alive and how a dead link is
//! told, what the board says about itself (serial number, version) and what that makes
//! of it (whether it has LEDs, a clock), the LED and clock-text encodings, and register
//! handshakes. The board core ([`crate::pipeline`] for reading, the daemon's core for a
//! live link) stays the same for every board type and asks its driver.
//!
//! [`Protocol::driver`], [`Protocol::probe`] and [`Protocol::startup_commands`] are the
//! table, with [`reading::Reader`](super::reading::Reader) and
//! [`Protocol::square`](super::Protocol::square) for what the board reports: adding a
//! board type is adding its module (codec and driver) and one entry in each (and in
//! [`Protocol::ALL`]). Nothing above `protocol/` asks which board type it serves.
//!
//! Sans-IO like the rest of the core: a driver is told the time and what the board said,
//! and hands back bytes to send and the next time it wants to be woken.

use std::collections::VecDeque;
use std::fmt;
use std::time::Duration;

use shakmaty::Square;

use crate::event::Orientation;
use crate::protocol::link::LinkInfo;
use crate::time::Time;

use super::Protocol;
use super::pace::Pacer;
use super::{dgt, millennium};

/// How long a board may stay silent, keep-alive or status requests notwithstanding, before
/// its link counts as lost (the port is then closed and opened again).
pub const SILENCE_LIMIT: Duration = Duration::from_secs(10);

/// Why a driver refused a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DriverError {
    /// The board cannot do it (no clock, no LEDs).
    #[error("not supported: {0}")]
    Unsupported(String),
    /// The board can, but not now (the clock's queue is full).
    #[error("{0}")]
    Busy(String),
}

/// How a port is asked whether a board of one type stands on it.
#[derive(Debug, Clone)]
pub struct Probe {
    /// What the board is sent (at the protocol's line speed).
    pub request: Vec<u8>,
    /// How long it has to answer.
    pub wait: Duration,
    /// Whether the bytes read so far hold its answer.
    pub answered: fn(&[u8]) -> bool,
}

/// Bytes a driver queues for the board, in order (the core paces them).
pub type Outbox = VecDeque<Vec<u8>>;

/// One board type's driver (see the module documentation). Every handler takes the time
/// of the call; the core calls them in time order.
pub trait Driver: fmt::Debug + Send {
    /// The protocol the board speaks.
    fn protocol(&self) -> Protocol;

    /// How commands to the board are paced.
    fn pacer(&self) -> Pacer;

    /// The port was (re)opened at `now`: what was known of the board is forgotten (another
    /// board may stand on the port now) and its start-up is queued in `out`.
    fn connected(&mut self, now: Time, out: &mut Outbox);

    /// Bytes came from the board at `now`.
    fn heard(&mut self, now: Time);

    /// The board said something about its link or itself at `t` (identity, clock acks,
    /// register echoes, a dump that shows unreported changes).
    fn link_info(&mut self, t: Time, info: LinkInfo, out: &mut Outbox);

    /// Bytes from the board were dropped at `t` to get back in step.
    fn skipped(&mut self, t: Time);

    /// Time passed: keep-alive, retries, the silence verdict.
    fn handle_timeout(&mut self, now: Time, out: &mut Outbox);

    /// The next of the driver's own paced commands (clock commands one at a time, status
    /// requests, register writes), after what it put in an [`Outbox`].
    fn poll_transmit(&mut self) -> Option<Vec<u8>>;

    /// Whether [`Driver::poll_transmit`] has something.
    fn has_queued(&self) -> bool;

    /// When the driver wants to be woken next.
    fn poll_timeout(&self) -> Option<Time>;

    /// Whether the board is known to have LEDs.
    fn has_leds(&self) -> bool;

    /// The bytes that show the move `from` → `to` on the LEDs of a board standing
    /// `orientation` (asked only when [`Driver::has_leds`]).
    fn show_move_leds(&self, orientation: Orientation, from: Square, to: Square) -> Vec<Vec<u8>>;

    /// The bytes that light `squares` and nothing else (none: every LED off), or why this
    /// board has no LEDs to light.
    fn light_leds(
        &self,
        orientation: Orientation,
        squares: &[Square],
    ) -> Result<Vec<Vec<u8>>, DriverError>;

    /// Shows `text` on the board's clock.
    fn clock_text(&mut self, now: Time, text: &str) -> Result<(), DriverError>;

    /// Shows a move on the clock when there is one known to be attached (silently nothing
    /// otherwise).
    fn show_move_on_clock(&mut self, now: Time, text: &str);

    /// The board's serial number as it says it (the long form where it has one), or what
    /// names it where it has none.
    fn serial(&self) -> Option<String>;

    /// What tells this board from every other of its type (a DGT board's number), if any.
    fn identity(&self) -> Option<String>;

    /// Whether boards of this type say who they are ([`Driver::identity`]) at all.
    fn tells_identity(&self) -> bool;

    /// Why the link counts as lost, once it does.
    fn link_lost(&self) -> Option<String>;
}

impl Protocol {
    /// The driver for a board speaking this protocol: the table of board types.
    pub fn driver(self) -> Box<dyn Driver> {
        match self {
            Protocol::Dgt => Box::new(dgt::driver::DgtDriver::new()),
            Protocol::Millennium => Box::new(millennium::driver::MillenniumDriver::new()),
        }
    }

    /// The commands that set a board of this type up once its port is open, in order
    /// (the driver sends them paced, the DGT clock's through its queue).
    pub fn startup_commands(self) -> Vec<Vec<u8>> {
        match self {
            Protocol::Dgt => dgt::startup_commands(),
            Protocol::Millennium => millennium::startup_commands(),
        }
    }

    /// How a port is asked whether a board speaking this protocol stands on it.
    pub fn probe(self) -> Probe {
        match self {
            Protocol::Dgt => dgt::driver::probe(),
            Protocol::Millennium => millennium::driver::probe(),
        }
    }
}
