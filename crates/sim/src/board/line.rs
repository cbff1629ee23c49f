//! The serial line from board to host: bytes leave one after another at the baud rate.
//!
//! A board that has a message ready cannot send it before the line is free, and the host
//! has the whole message only when its last byte has arrived. This module turns "ready at
//! T, N bytes" into "on the wire from T1 to T2". Ten bits a byte (start, 8 data or 7 data
//! plus parity, stop), as both DGT (8N1) and Millennium (7O1) use.

use std::time::Duration;

use super::{Outgoing, SensedChange};
use eboardd_core::time::Time;

/// The board's transmit side of a serial line.
#[derive(Debug, Clone)]
pub struct SerialLine {
    baud: u32,
    free_at: Time,
}

impl SerialLine {
    /// An idle line at `baud` bits per second.
    pub fn new(baud: u32) -> SerialLine {
        SerialLine {
            baud: baud.max(1),
            free_at: Time::ZERO,
        }
    }

    /// How long `bytes` bytes take on the wire.
    pub fn duration(&self, bytes: usize) -> Duration {
        let bits = bytes as u64 * 10;
        Duration::from_micros(bits * 1_000_000 / u64::from(self.baud))
    }

    /// Sends `bytes` bytes that are ready at `ready`: returns when the first byte starts
    /// and when the last byte has arrived.
    pub fn send(&mut self, ready: Time, bytes: usize) -> (Time, Time) {
        let start = ready.max(self.free_at);
        let end = start + self.duration(bytes);
        self.free_at = end;
        (start, end)
    }

    /// When the line is free again.
    pub fn free_at(&self) -> Time {
        self.free_at
    }

    /// Sends a board message of `len` bytes: the message with its wire times, and the
    /// square changes the host learns from it, stamped with the arrival of its last byte.
    pub fn transmit<M>(&mut self, out: Outgoing<M>, len: usize) -> (Sent<M>, Vec<SensedChange>) {
        let (start, end) = self.send(out.ready, len);
        let sensed = out
            .reveals
            .into_iter()
            .map(|r| SensedChange {
                t: end,
                sampled: r.sampled,
                change: r.change,
                ply: r.ply,
                part: r.part,
            })
            .collect();
        (
            Sent {
                start,
                end,
                message: out.message,
            },
            sensed,
        )
    }
}

/// A message with its times on the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent<M> {
    /// When its first byte left the board.
    pub start: Time,
    /// When its last byte reached the host.
    pub end: Time,
    /// The message.
    pub message: M,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_queue_behind_each_other() {
        let mut line = SerialLine::new(9600);
        let (s1, e1) = line.send(Time::from_millis(100), 5);
        assert_eq!(s1, Time::from_millis(100));
        assert_eq!(e1, Time::from_micros(105_208));
        let (s2, _) = line.send(Time::from_millis(101), 5);
        assert_eq!(s2, e1);
    }
}
