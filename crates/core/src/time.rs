//! Points in time as the sans-IO core sees them.
//!
//! The core never reads a clock: every handler is given `now`, a [`Time`] measured from an
//! arbitrary origin (the start of a trace, or the moment the daemon opened a board). It is
//! kept in whole microseconds so that arithmetic is exact and replays are bit-for-bit
//! deterministic. This module knows nothing of tokio or of the wall clock.

use std::fmt;
use std::ops::{Add, Sub};
use std::time::Duration;

/// A point in time, in microseconds since an origin chosen by the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Time(u64);

impl Time {
    /// The origin.
    pub const ZERO: Time = Time(0);

    /// A time `micros` microseconds after the origin.
    pub const fn from_micros(micros: u64) -> Time {
        Time(micros)
    }

    /// A time `ms` milliseconds after the origin (the last time there is, if `ms` is
    /// later than that).
    pub const fn from_millis(ms: u64) -> Time {
        Time(ms.saturating_mul(1000))
    }

    /// A time from fractional milliseconds (as written in traces), rounded to the
    /// nearest microsecond. Negative and non-finite values become the origin.
    pub fn from_ms_f64(ms: f64) -> Time {
        if ms.is_finite() && ms > 0.0 {
            Time((ms * 1000.0).round() as u64)
        } else {
            Time(0)
        }
    }

    /// Microseconds since the origin.
    pub const fn as_micros(self) -> u64 {
        self.0
    }

    /// Milliseconds since the origin, with a fraction (as written in events and traces).
    pub fn as_ms_f64(self) -> f64 {
        self.0 as f64 / 1000.0
    }

    /// The span from `earlier` to `self`, or zero if `earlier` is later.
    pub fn saturating_since(self, earlier: Time) -> Duration {
        Duration::from_micros(self.0.saturating_sub(earlier.0))
    }
}

impl Add<Duration> for Time {
    type Output = Time;
    fn add(self, d: Duration) -> Time {
        Time(
            self.0
                .saturating_add(d.as_micros().min(u64::MAX as u128) as u64),
        )
    }
}

impl Sub<Time> for Time {
    type Output = Duration;
    fn sub(self, earlier: Time) -> Duration {
        self.saturating_since(earlier)
    }
}

impl fmt::Display for Time {
    /// Milliseconds with at most three decimals, trailing zeros removed (`1766.7`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let whole = self.0 / 1000;
        let frac = self.0 % 1000;
        if frac == 0 {
            write!(f, "{whole}.0")
        } else {
            let s = format!("{frac:03}");
            write!(f, "{whole}.{}", s.trim_end_matches('0'))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_times_round_trip_through_microseconds() {
        let t = Time::from_ms_f64(1766.7);
        assert_eq!(t.as_micros(), 1_766_700);
        assert_eq!(t.to_string(), "1766.7");
        assert_eq!(t.as_ms_f64(), 1766.7);
        assert_eq!(Time::from_millis(40).to_string(), "40.0");
    }

    #[test]
    fn adding_a_duration_moves_forward() {
        let t = Time::from_millis(10) + Duration::from_millis(5);
        assert_eq!(t, Time::from_millis(15));
        assert_eq!(t - Time::from_millis(20), Duration::ZERO);
    }
}
