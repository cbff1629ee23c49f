//! Waiting for the core's deadlines, to the tenth of a millisecond.
//!
//! tokio's timers tick in whole milliseconds and fire at the first tick at or after the
//! deadline, then the runtime wakes the task at its next turn: a wait ends up to about two
//! milliseconds late. A move the core decides when its settle window runs out would reach
//! D-Bus that much later than one decided at a byte. So the daemon's board task waits on a
//! [`Timer`] of its own, a Linux timerfd that the runtime polls with its other file
//! descriptors: the kernel's high-resolution timer ends the wait within tens of
//! microseconds, at the cost of one wake-up, as tokio's timer has.
//!
//! Time is always read from `tokio::time::Instant`, and tokio's timer stands behind the
//! timerfd, so tests that pause tokio's clock see the same deadlines in virtual time. Where
//! no timerfd can be had, tokio's timer alone keeps the deadlines.

use std::os::fd::OwnedFd;
use std::time::Duration;

use rustix::time::{
    Itimerspec, TimerfdClockId, TimerfdFlags, TimerfdTimerFlags, Timespec, timerfd_create,
    timerfd_settime,
};
use tokio::io::unix::AsyncFd;
use tokio::time::Instant;

/// A precise one-shot timer for one task.
#[derive(Debug)]
pub struct Timer {
    fd: Option<AsyncFd<OwnedFd>>,
}

impl Default for Timer {
    fn default() -> Self {
        Self::new()
    }
}

impl Timer {
    /// A timer; without a timerfd (or outside a runtime with IO) it waits on tokio's.
    // `AsyncFd::new` is deprecated for descriptors that may be closed while registered; this
    // one is an `OwnedFd` the `AsyncFd` owns, closed only after it is deregistered.
    #[allow(deprecated)]
    pub fn new() -> Timer {
        let fd = timerfd_create(
            TimerfdClockId::Monotonic,
            TimerfdFlags::NONBLOCK | TimerfdFlags::CLOEXEC,
        )
        .ok()
        .and_then(|fd| AsyncFd::new(fd).ok());
        Timer { fd }
    }

    /// Waits until `deadline`, ending close to it; `None` waits for ever.
    pub async fn sleep_until(&mut self, deadline: Option<Instant>) {
        let Some(deadline) = deadline else {
            return std::future::pending().await;
        };
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        match self.fd.as_ref().filter(|fd| arm(fd, left)) {
            Some(fd) => {
                tokio::select! {
                    biased;
                    () = expired(fd) => {}
                    () = tokio::time::sleep_until(deadline) => {}
                }
            }
            None => tokio::time::sleep_until(deadline).await,
        }
        // A paused clock, or a timerfd a hair early: tokio's timer has the last word.
        if Instant::now() < deadline {
            tokio::time::sleep_until(deadline).await;
        }
    }
}

/// Sets the timerfd to expire once, `after` from now. Setting it clears any expiry not read
/// (a wait given up before it ended); a readiness tokio still remembers from one is found
/// stale by the read in [`expired`].
fn arm(fd: &AsyncFd<OwnedFd>, after: Duration) -> bool {
    let zero = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    let value = Itimerspec {
        it_interval: zero,
        it_value: Timespec {
            tv_sec: i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
            tv_nsec: i64::from(after.subsec_nanos()),
        },
    };
    timerfd_settime(fd.get_ref(), TimerfdTimerFlags::empty(), &value).is_ok()
}

/// Ends when the armed timerfd has expired (its expiry count read).
async fn expired(fd: &AsyncFd<OwnedFd>) {
    let mut count = [0u8; 8];
    loop {
        let Ok(mut ready) = fd.readable().await else {
            return std::future::pending().await;
        };
        match rustix::io::read(fd.get_ref(), &mut count) {
            Ok(_) => return,
            Err(rustix::io::Errno::AGAIN) => ready.clear_ready(),
            // tokio's timer beside it still keeps the deadline.
            Err(_) => return std::future::pending().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn paused_clock_reaches_the_deadline_exactly() {
        let start = Instant::now();
        let deadline = start + Duration::from_millis(260);
        Timer::new().sleep_until(Some(deadline)).await;
        assert_eq!(Instant::now(), deadline);
    }

    #[tokio::test(start_paused = true)]
    async fn a_deadline_between_two_ticks_is_still_kept() {
        let start = Instant::now();
        let deadline = start + Duration::from_micros(1500);
        Timer::new().sleep_until(Some(deadline)).await;
        // The paused clock moves to tokio's next whole-millisecond tick.
        let now = Instant::now();
        assert!(
            now >= deadline && now < deadline + Duration::from_millis(1),
            "{now:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_past_deadline_returns_at_once() {
        let start = Instant::now();
        tokio::time::advance(Duration::from_millis(5)).await;
        Timer::new().sleep_until(Some(start)).await;
        assert_eq!(Instant::now(), start + Duration::from_millis(5));
    }

    #[tokio::test(start_paused = true)]
    async fn no_deadline_never_ends() {
        let mut timer = Timer::new();
        let waited = tokio::time::timeout(Duration::from_secs(3600), timer.sleep_until(None)).await;
        assert!(waited.is_err());
    }

    #[tokio::test]
    async fn real_clock_never_ends_early() {
        let deadline = Instant::now() + Duration::from_millis(20);
        Timer::new().sleep_until(Some(deadline)).await;
        assert!(Instant::now() >= deadline);
    }

    #[tokio::test]
    async fn a_runtime_with_io_gets_a_timerfd() {
        assert!(Timer::new().fd.is_some());
    }

    #[tokio::test]
    async fn an_expiry_left_unread_does_not_end_the_next_wait_early() {
        let mut timer = Timer::new();
        // A wait given up before its deadline (another branch of a select won), whose
        // timerfd then expires with nobody reading it.
        let _ = tokio::time::timeout(
            Duration::from_millis(1),
            timer.sleep_until(Some(Instant::now() + Duration::from_millis(20))),
        )
        .await;
        std::thread::sleep(Duration::from_millis(40));
        let deadline = Instant::now() + Duration::from_millis(30);
        timer.sleep_until(Some(deadline)).await;
        assert!(Instant::now() >= deadline);
    }
}
