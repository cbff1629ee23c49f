//! Pacing of host commands, as a board's driver asks for it: a least time between two
//! commands, and a wait after the port was opened before the first (USB CDC and Bluetooth
//! serial ports need a moment before they take bytes). A DGT board needs both
//! ([`crate::protocol::dgt::driver`]: its 10-byte command buffer); a Millennium board
//! neither.
//!
//! Sans-IO: [`Pacer`] is told the time and says when the next command may go.

use std::time::Duration;

use crate::time::Time;

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
    /// Commands at least `gap` apart, the first `settle` after the port was opened.
    pub fn new(gap: Duration, settle: Duration) -> Pacer {
        Pacer {
            gap,
            settle,
            next: None,
        }
    }

    /// No pacing: every command at once.
    pub fn none() -> Pacer {
        Pacer::default()
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
    fn a_pacer_waits_after_opening_and_between_commands() {
        let mut p = Pacer::new(Duration::from_millis(100), Duration::from_millis(400));
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
    fn no_pacing_never_waits() {
        let mut p = Pacer::none();
        p.opened(Time::ZERO);
        assert!(p.ready(Time::ZERO));
        p.sent(Time::ZERO);
        assert!(p.ready(Time::ZERO));
        assert_eq!(p.due(), None);
    }
}
