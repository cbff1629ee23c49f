//! The Millennium register writes of the start-up, checked (sans-IO).
//!
//! A ChessLink board answers a register write `W` with its echo `w` (address and value), and
//! answers nothing to a frame it could not read (a parity or checksum error on the line).
//! The registers decide how the board reports (on change, the debounce, the scan time): a
//! write lost on the way would leave the board reporting as another program last set it.
//! [`RegisterWrites`] keeps each write of a connection until its echo comes, writes it again
//! when none came within [`ANSWER_LIMIT`], and gives up after [`TRIES`] tries, saying so.

use std::collections::VecDeque;
use std::time::Duration;

use crate::protocol::millennium::Command;
use crate::time::Time;

/// How long a write's echo may take (a ChessLink answers within a few milliseconds; over
/// Bluetooth serial, a few tens).
pub const ANSWER_LIMIT: Duration = Duration::from_millis(500);

/// How many times a write is sent before it is given up.
pub const TRIES: u8 = 3;

#[derive(Debug, Clone)]
struct Pending {
    address: u8,
    data: u8,
    sent: Time,
    tries: u8,
}

/// The register writes waiting for their echo.
#[derive(Debug, Default, Clone)]
pub struct RegisterWrites {
    pending: Vec<Pending>,
    out: VecDeque<Vec<u8>>,
    given_up: Vec<(u8, u8)>,
}

impl RegisterWrites {
    /// No writes.
    pub fn new() -> Self {
        Self::default()
    }

    /// A new connection at `now`: these writes are being sent (by the start-up), and
    /// anything waiting from the old connection is forgotten.
    pub fn connected(&mut self, now: Time, writes: &[Command]) {
        self.out.clear();
        self.pending = writes
            .iter()
            .filter_map(|c| match *c {
                Command::Write { address, data } => Some(Pending {
                    address,
                    data,
                    sent: now,
                    tries: 1,
                }),
                _ => None,
            })
            .collect();
    }

    /// Writes `data` to `address` now (after the start-up), checked as the start-up's are.
    pub fn write(&mut self, now: Time, address: u8, data: u8) {
        self.out
            .push_back(Command::Write { address, data }.encode());
        self.pending.push(Pending {
            address,
            data,
            sent: now,
            tries: 1,
        });
    }

    /// The board echoed a write of `data` to `address`.
    pub fn written(&mut self, address: u8, data: u8) {
        self.pending
            .retain(|p| !(p.address == address && p.data == data));
    }

    /// Writes again what was not answered in time, and gives up what was tried enough.
    pub fn handle_timeout(&mut self, now: Time) {
        let mut kept = Vec::with_capacity(self.pending.len());
        for mut p in std::mem::take(&mut self.pending) {
            if now < p.sent + ANSWER_LIMIT {
                kept.push(p);
            } else if p.tries >= TRIES {
                tracing::warn!(
                    register = p.address,
                    value = p.data,
                    tries = p.tries,
                    "the board never confirmed a register write; it may report as another program set it"
                );
                self.given_up.push((p.address, p.data));
            } else {
                let command = Command::Write {
                    address: p.address,
                    data: p.data,
                };
                self.out.push_back(command.encode());
                p.sent = now;
                p.tries += 1;
                kept.push(p);
            }
        }
        self.pending = kept;
    }

    /// The next write to send again.
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.out.pop_front()
    }

    /// Whether a write waits to be sent again.
    pub fn has_queued(&self) -> bool {
        !self.out.is_empty()
    }

    /// When [`RegisterWrites::handle_timeout`] should next be called.
    pub fn poll_timeout(&self) -> Option<Time> {
        self.pending.iter().map(|p| p.sent + ANSWER_LIMIT).min()
    }

    /// The writes given up since the start (register, value), in order.
    pub fn given_up(&self) -> &[(u8, u8)] {
        &self.given_up
    }

    /// Whether every write of the connection has been confirmed.
    pub fn all_confirmed(&self) -> bool {
        self.pending.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(address: u8, data: u8) -> Command {
        Command::Write { address, data }
    }

    #[test]
    fn an_echoed_write_is_done_and_an_unanswered_one_is_written_again_then_given_up() {
        let mut w = RegisterWrites::new();
        w.connected(Time::ZERO, &[write(2, 3), write(1, 20)]);
        assert!(!w.all_confirmed());
        w.written(1, 20);
        assert_eq!(w.poll_timeout(), Some(Time::ZERO + ANSWER_LIMIT));
        // The echo of register 2 never comes: written again, twice, then given up.
        let mut resent = Vec::new();
        let mut now = Time::ZERO;
        while let Some(due) = w.poll_timeout() {
            now = due;
            w.handle_timeout(now);
            resent.extend(std::iter::from_fn(|| w.poll_transmit()));
        }
        assert_eq!(resent, vec![write(2, 3).encode(); usize::from(TRIES) - 1]);
        assert_eq!(now, Time::ZERO + ANSWER_LIMIT * u32::from(TRIES));
        assert_eq!(w.given_up(), [(2, 3)]);
    }

    #[test]
    fn an_echo_of_another_value_does_not_confirm_the_write() {
        let mut w = RegisterWrites::new();
        w.connected(Time::ZERO, &[write(2, 3)]);
        w.written(2, 0);
        assert!(!w.all_confirmed());
        w.handle_timeout(Time::ZERO + ANSWER_LIMIT);
        assert_eq!(w.poll_transmit(), Some(write(2, 3).encode()));
        w.written(2, 3);
        assert!(w.all_confirmed());
        assert_eq!(w.poll_timeout(), None);
    }
}
