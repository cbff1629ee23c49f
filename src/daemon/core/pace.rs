//! Pacing of host commands: a DGT board in single-board mode has a 10-byte command buffer,
//! so commands written back to back can overflow it and be lost (a lost UPDATE_NICE means
//! the board never reports a move). A command goes at least [`DGT_COMMAND_GAP`] after the
//! one before, and the first one [`OPEN_SETTLE`] after the port was opened (USB CDC and
//! Bluetooth serial ports need a moment before they take bytes).
//!
//! Sans-IO: [`Pacer`] is told the time and says when the next command may go.

use std::time::Duration;

use crate::protocol::Protocol;
use crate::time::Time;

/// The least time between two commands to a DGT board (the board's header asks for
/// room in its 10-byte buffer; other hosts sleep 0.1 s after each command).
pub const DGT_COMMAND_GAP: Duration = Duration::from_millis(100);

/// How long after the port is opened the first command to a DGT board waits (other hosts
/// wait 300–500 ms).
pub const OPEN_SETTLE: Duration = Duration::from_millis(400);

/// When the next command to a board may be written.
#[derive(Debug, Clone, Default)]
pub struct Pacer {
    /// The least time between two commands (zero: none).
    gap: Duration,
    /// How long the first command waits after the port is opened.
    settle: Duration,
    /// The earliest time the next command may go (`None`: at once).
    next: Option<Time>,
}

impl Pacer {
    /// The pacing a board speaking `protocol` needs (DGT: [`DGT_COMMAND_GAP`] and
    /// [`OPEN_SETTLE`]; Millennium: none).
    pub fn for_protocol(protocol: Protocol) -> Pacer {
        match protocol {
            Protocol::Dgt => Pacer {
                gap: DGT_COMMAND_GAP,
                settle: OPEN_SETTLE,
                next: None,
            },
            Protocol::Millennium => Pacer::default(),
        }
    }

    /// The port was opened at `now`.
    pub fn opened(&mut self, now: Time) {
        self.next = (!self.settle.is_zero()).then_some(now + self.settle);
    }

    /// When the next command may go (`None`: at once).
    pub fn due(&self) -> Option<Time> {
        self.next
    }

    /// Whether a command may go at `now`.
    pub fn ready(&self, now: Time) -> bool {
        self.next.is_none_or(|due| now >= due)
    }

    /// A command went at `now`.
    pub fn sent(&mut self, now: Time) {
        self.next = (!self.gap.is_zero()).then_some(now + self.gap);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dgt_pacer_waits_after_opening_and_between_commands() {
        let mut p = Pacer::for_protocol(Protocol::Dgt);
        assert!(p.ready(Time::ZERO), "nothing to wait for before opening");
        p.opened(Time::from_millis(1000));
        assert!(!p.ready(Time::from_millis(1399)));
        assert_eq!(p.due(), Some(Time::from_millis(1400)));
        assert!(p.ready(Time::from_millis(1400)));
        p.sent(Time::from_millis(1400));
        assert!(!p.ready(Time::from_millis(1499)));
        assert!(p.ready(Time::from_millis(1500)));
    }

    #[test]
    fn a_millennium_pacer_never_waits() {
        let mut p = Pacer::for_protocol(Protocol::Millennium);
        p.opened(Time::ZERO);
        assert!(p.ready(Time::ZERO));
        p.sent(Time::ZERO);
        assert!(p.ready(Time::ZERO));
        assert_eq!(p.due(), None);
    }
}
