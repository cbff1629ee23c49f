//! Keeping a Millennium link honest (sans-IO).
//!
//! A ChessLink board reports on change only (the daemon writes W0203) and never repeats a
//! frame, and it does not answer a frame it could not read (`millennium-protocol-facts.md`
//! §2.3, §6). So a status frame lost on the line is a change the daemon never hears of,
//! and a board that went quiet cannot be told from a dead link by waiting. [`LinkWatch`]:
//! - after bytes were dropped to get back in step, asks for the whole board (`S`), at most
//!   every [`STATUS_GAP`];
//! - when nothing came for [`QUIET_POLL`], asks for it too: the answer proves the link and
//!   heals any frame lost meanwhile;
//! - when nothing came for [`SILENCE_LIMIT`] despite that, says the link is lost, so that
//!   the port is closed and opened again.

use std::collections::VecDeque;
use std::time::Duration;

use crate::protocol::driver::SILENCE_LIMIT;
use crate::protocol::millennium::Command;
use crate::time::Time;

/// How long a quiet board is left alone before it is asked for its status.
pub const QUIET_POLL: Duration = Duration::from_secs(3);

/// The shortest time between two status requests after dropped bytes.
pub const STATUS_GAP: Duration = Duration::from_millis(250);

/// Watches a Millennium link: status requests after dropped bytes and when quiet, and a
/// verdict when the board stays silent.
#[derive(Debug, Default)]
pub struct LinkWatch {
    last_input: Time,
    next_poll: Option<Time>,
    status_due: Option<Time>,
    last_status: Option<Time>,
    out: VecDeque<Vec<u8>>,
    lost: Option<String>,
}

impl LinkWatch {
    /// A watch that is not running (no link yet).
    pub fn new() -> Self {
        Self::default()
    }

    /// The link was opened at `now` (the start-up asks for the status itself).
    pub fn connected(&mut self, now: Time) {
        self.last_input = now;
        self.last_status = Some(now);
        self.next_poll = Some(now + QUIET_POLL);
        self.status_due = None;
        self.lost = None;
    }

    /// Bytes arrived at `now`.
    pub fn input(&mut self, now: Time) {
        self.last_input = now;
        if self.next_poll.is_some() {
            self.next_poll = Some(now + QUIET_POLL);
        }
    }

    /// The decoder dropped bytes at `now`: a frame may have been lost.
    pub fn skipped(&mut self, now: Time) {
        if self.status_due.is_none() {
            let earliest = self.last_status.map_or(now, |t| t + STATUS_GAP);
            self.status_due = Some(now.max(earliest));
        }
    }

    /// Sends what is due at `now`, or finds the link lost.
    pub fn handle_timeout(&mut self, now: Time) {
        if self.status_due.is_some_and(|t| t <= now) {
            self.ask_status(now);
        }
        let Some(poll) = self.next_poll.filter(|t| *t <= now) else {
            return;
        };
        let silence = now.saturating_since(self.last_input);
        if silence >= SILENCE_LIMIT {
            self.lost = Some(format!(
                "the board sent nothing for {} s, even when asked",
                silence.as_secs()
            ));
            self.next_poll = None;
            return;
        }
        self.ask_status(now);
        let limit = self.last_input + SILENCE_LIMIT;
        self.next_poll = Some((poll.max(now) + QUIET_POLL).min(limit));
    }

    /// When [`LinkWatch::handle_timeout`] should next be called.
    pub fn poll_timeout(&self) -> Option<Time> {
        match (self.status_due, self.next_poll) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The next bytes to send.
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.out.pop_front()
    }

    /// Whether a request waits to be sent.
    pub fn has_queued(&self) -> bool {
        !self.out.is_empty()
    }

    /// Why the link counts as lost, once it does (then the watch stops until
    /// [`LinkWatch::connected`]).
    pub fn lost(&self) -> Option<&str> {
        self.lost.as_deref()
    }

    fn ask_status(&mut self, now: Time) {
        self.out.push_back(Command::Status.encode());
        self.last_status = Some(now);
        self.status_due = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status() -> Vec<u8> {
        Command::Status.encode()
    }

    #[test]
    fn dropped_bytes_bring_a_status_request_at_most_every_quarter_second() {
        let mut w = LinkWatch::new();
        w.connected(Time::ZERO);
        w.skipped(Time::from_millis(100));
        assert_eq!(w.poll_timeout(), Some(Time::from_millis(250)));
        w.handle_timeout(Time::from_millis(250));
        assert_eq!(w.poll_transmit(), Some(status()));
        // A burst of garbage asks once more, a gap later.
        w.skipped(Time::from_millis(260));
        w.skipped(Time::from_millis(270));
        w.handle_timeout(Time::from_millis(400));
        assert_eq!(w.poll_transmit(), None);
        w.handle_timeout(Time::from_millis(500));
        assert_eq!(w.poll_transmit(), Some(status()));
        assert_eq!(w.poll_transmit(), None);
    }

    #[test]
    fn a_quiet_board_is_asked_for_its_status_every_three_seconds() {
        let mut w = LinkWatch::new();
        w.connected(Time::ZERO);
        w.input(Time::from_millis(1000));
        assert_eq!(w.poll_timeout(), Some(Time::from_millis(4000)));
        w.handle_timeout(Time::from_millis(4000));
        assert_eq!(w.poll_transmit(), Some(status()));
        // The answer comes: quiet again from there.
        w.input(Time::from_millis(4010));
        assert_eq!(w.poll_timeout(), Some(Time::from_millis(7010)));
        assert!(w.lost().is_none());
    }

    #[test]
    fn a_board_silent_for_ten_seconds_despite_requests_is_a_lost_link() {
        let mut w = LinkWatch::new();
        w.connected(Time::ZERO);
        let mut asked = 0;
        while let Some(due) = w.poll_timeout() {
            w.handle_timeout(due);
            while w.poll_transmit().is_some() {
                asked += 1;
            }
            if w.lost().is_some() {
                assert_eq!(due, Time::ZERO + SILENCE_LIMIT);
                break;
            }
        }
        assert_eq!(asked, 3, "asked at 3, 6 and 9 s");
        assert!(w.lost().is_some_and(|r| r.contains("10 s")));
        w.connected(Time::from_millis(20000));
        assert!(w.lost().is_none());
    }
}
