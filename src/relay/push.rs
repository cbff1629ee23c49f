//! When to push the round's PGN to a broadcast server: at most once a second, only when it
//! changed, and with growing pauses after failures.
//!
//! [`PushSchedule`] is sans-IO: it is told that the PGN changed ([`PushSchedule::handle_change`])
//! and how a push ended ([`PushSchedule::handle_done`]), both with the current time, and says
//! whether to start a push now ([`PushSchedule::poll_start`]) and when to ask again
//! ([`PushSchedule::poll_timeout`]). Changes made while a push is under way or while it must
//! wait are coalesced: the next push sends the PGN as it is then. It knows nothing of HTTP,
//! tokens or the clock.

use std::time::Duration;

use crate::time::Time;

/// The shortest time between the starts of two pushes.
pub const MIN_INTERVAL: Duration = Duration::from_secs(1);

/// The longest pause after failures, unless the server asks for a longer one.
pub const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// The longest pause a server's `Retry-After` is honoured for.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(600);

/// How a push ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Done {
    /// The server took the PGN.
    Accepted,
    /// It did not (an error status, no connection, a timeout): push again after a pause,
    /// `retry_after` when the server named one, else a back-off doubling from 1 s up to
    /// [`MAX_BACKOFF`].
    Failed {
        /// The pause the server asked for.
        retry_after: Option<Duration>,
    },
}

/// When to push (see the module documentation).
#[derive(Debug, Clone, Default)]
pub struct PushSchedule {
    /// The PGN changed since the last push started (or that push failed).
    pending: bool,
    /// A push is under way.
    in_flight: bool,
    /// No push starts before this.
    not_before: Time,
    /// Failures since the last accepted push.
    failures: u32,
}

/// The pause after the `failures`-th failure in a row: 1 s, 2 s, 4 s... up to
/// [`MAX_BACKOFF`].
pub fn backoff(failures: u32) -> Duration {
    let doublings = failures.saturating_sub(1).min(16);
    MIN_INTERVAL
        .saturating_mul(1u32 << doublings)
        .min(MAX_BACKOFF)
}

impl PushSchedule {
    /// Nothing to push yet.
    pub fn new() -> PushSchedule {
        PushSchedule::default()
    }

    /// The PGN changed.
    pub fn handle_change(&mut self) {
        self.pending = true;
    }

    /// Whether to start a push now (of the PGN as it is now). When it says yes, the push is
    /// under way until [`PushSchedule::handle_done`].
    pub fn poll_start(&mut self, now: Time) -> bool {
        if !self.pending || self.in_flight || now < self.not_before {
            return false;
        }
        self.pending = false;
        self.in_flight = true;
        self.not_before = now + MIN_INTERVAL;
        true
    }

    /// The push under way ended at `now`.
    pub fn handle_done(&mut self, now: Time, done: Done) {
        self.in_flight = false;
        match done {
            Done::Accepted => self.failures = 0,
            Done::Failed { retry_after } => {
                self.failures = self.failures.saturating_add(1);
                self.pending = true;
                let pause = retry_after
                    .map(|d| d.min(MAX_RETRY_AFTER))
                    .unwrap_or_else(|| backoff(self.failures));
                self.not_before = self.not_before.max(now + pause);
            }
        }
    }

    /// When [`PushSchedule::poll_start`] may say yes: `None` while there is nothing to push
    /// or a push is under way.
    pub fn poll_timeout(&self) -> Option<Time> {
        (self.pending && !self.in_flight).then_some(self.not_before)
    }

    /// Failures since the last accepted push.
    pub fn failures(&self) -> u32 {
        self.failures
    }

    /// Whether a push is under way.
    pub fn in_flight(&self) -> bool {
        self.in_flight
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Time {
        Time::from_millis(ms)
    }

    #[test]
    fn a_burst_of_changes_is_pushed_once_a_second_at_most() {
        let mut s = PushSchedule::new();
        assert!(!s.poll_start(at(0)), "nothing changed");
        assert_eq!(s.poll_timeout(), None);
        s.handle_change();
        assert!(s.poll_start(at(10)));
        // Changes while the push is under way wait for it, and then for the second.
        for ms in [20, 30, 40] {
            s.handle_change();
            assert!(!s.poll_start(at(ms)));
        }
        assert_eq!(s.poll_timeout(), None, "under way");
        s.handle_done(at(200), Done::Accepted);
        assert_eq!(s.poll_timeout(), Some(at(1010)));
        assert!(!s.poll_start(at(1009)));
        assert!(s.poll_start(at(1010)), "one push for the three changes");
        s.handle_done(at(1100), Done::Accepted);
        assert_eq!(s.poll_timeout(), None, "nothing new");
        s.handle_change();
        assert!(
            s.poll_start(at(5000)),
            "a change after a quiet spell goes at once"
        );
    }

    #[test]
    fn failures_back_off_doubling_up_to_a_minute_and_success_resets() {
        assert_eq!(
            (1..=8).map(|n| backoff(n).as_secs()).collect::<Vec<_>>(),
            [1, 2, 4, 8, 16, 32, 60, 60]
        );
        let mut s = PushSchedule::new();
        s.handle_change();
        let mut now = at(0);
        let mut starts = Vec::new();
        for _ in 0..4 {
            assert!(s.poll_start(now));
            starts.push(now);
            s.handle_done(now, Done::Failed { retry_after: None });
            now = s.poll_timeout().expect("pushed again");
        }
        let gaps: Vec<u64> = starts
            .windows(2)
            .map(|w| w[1].saturating_since(w[0]).as_millis() as u64)
            .collect();
        assert_eq!(gaps, [1000, 2000, 4000]);
        assert_eq!(s.failures(), 4);
        assert!(s.poll_start(now));
        s.handle_done(now, Done::Accepted);
        assert_eq!(s.failures(), 0);
        assert_eq!(
            s.poll_timeout(),
            None,
            "the failed PGN went with the success"
        );
    }

    #[test]
    fn a_servers_retry_after_is_honoured_up_to_ten_minutes() {
        let mut s = PushSchedule::new();
        s.handle_change();
        assert!(s.poll_start(at(0)));
        s.handle_done(
            at(300),
            Done::Failed {
                retry_after: Some(Duration::from_secs(120)),
            },
        );
        assert_eq!(s.poll_timeout(), Some(at(120_300)));
        assert!(s.poll_start(at(120_300)));
        s.handle_done(
            at(120_300),
            Done::Failed {
                retry_after: Some(Duration::from_secs(86_400)),
            },
        );
        assert_eq!(s.poll_timeout(), Some(at(720_300)));
    }
}
