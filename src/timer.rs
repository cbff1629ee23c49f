//! Waiting for the core's deadlines, to the tenth of a millisecond.
//!
//! tokio's timers tick in whole milliseconds and fire at the first tick at or after the
//! deadline, then the runtime wakes the task at its next turn: a wait ends up to about two
//! milliseconds late. A move the core decides when its settle window runs out would reach
//! D-Bus that much later than one decided at a byte. So the daemon's board task sleeps on
//! tokio's timer until shortly before the deadline, then waits out the rest on a blocking
//! thread, whose sleep the kernel ends within a few tens of microseconds.
//!
//! Time is always read from `tokio::time::Instant`, so tests that pause tokio's clock see
//! the same deadlines in virtual time: the blocking wait is then followed by a tokio sleep
//! to the deadline, which the paused clock reaches at once.

use std::time::Duration;

use tokio::time::Instant;

/// How long before a deadline tokio's timer hands over to the precise wait: more than the
/// timer's grain and its usual lateness together.
const HANDOVER: Duration = Duration::from_millis(3);

/// Waits until `deadline`, ending close to it; `None` waits for ever.
pub async fn sleep_until(deadline: Option<Instant>) {
    let Some(deadline) = deadline else {
        return std::future::pending().await;
    };
    if let Some(early) = deadline.checked_sub(HANDOVER)
        && Instant::now() < early
    {
        tokio::time::sleep_until(early).await;
    }
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return;
    }
    // Should no blocking thread run it (the runtime shutting down), tokio's timer below
    // still keeps the deadline.
    let _ = tokio::task::spawn_blocking(move || std::thread::sleep(left)).await;
    if Instant::now() < deadline {
        tokio::time::sleep_until(deadline).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn paused_clock_reaches_the_deadline_exactly() {
        let start = Instant::now();
        let deadline = start + Duration::from_millis(260);
        sleep_until(Some(deadline)).await;
        assert_eq!(Instant::now(), deadline);
    }

    #[tokio::test(start_paused = true)]
    async fn a_deadline_inside_the_handover_is_still_kept() {
        let start = Instant::now();
        let deadline = start + Duration::from_micros(1500);
        sleep_until(Some(deadline)).await;
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
        sleep_until(Some(start)).await;
        assert_eq!(Instant::now(), start + Duration::from_millis(5));
    }

    #[tokio::test(start_paused = true)]
    async fn no_deadline_never_ends() {
        let waited = tokio::time::timeout(Duration::from_secs(3600), sleep_until(None)).await;
        assert!(waited.is_err());
    }

    #[tokio::test]
    async fn real_clock_never_ends_early() {
        let deadline = Instant::now() + Duration::from_millis(20);
        sleep_until(Some(deadline)).await;
        assert!(Instant::now() >= deadline);
    }
}
