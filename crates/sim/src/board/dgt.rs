//! A model of a DGT e-board's sensing, in virtual time.
//!
//! The board scans its 64 fields one after another, in its own field order (field 0 = a8
//! … 63 = h1, or the reverse when the board stands turned), a full scan taking about
//! 200–250 ms (each scan's length is drawn from the configured range). When a field's
//! sample differs from what the board last saw there, it queues a FIELD_UPDATE, which
//! reaches the host when its five bytes have crossed the 9600-baud line. So a change is
//! reported at the next scan of its square, a piece can appear on its new square before
//! its old square is reported empty, and a state that lasts less than the time between
//! two scans of a square may never be seen. A BOARD_DUMP on request reports what the board
//! last saw on every field.
//!
//! The model is sans-IO: [`DgtModel::poll_timeout`] says when it next samples a field, and
//! [`DgtModel::handle_timeout`] samples it from a [`Cursor`] on the physical board. It
//! queues [`Outgoing`] messages (in chess terms, with the time they are ready to send and
//! the changes they reveal); the serial line ([`super::line`]) times them and the DGT codec
//! turns them into bytes.

use std::collections::VecDeque;
use std::time::Duration;

use shakmaty::{Piece, Square};

use super::{Outgoing, Reveal};
use crate::rng::Rng;
use crate::timeline::{Cursor, Squares};
use eboardd_core::sensing::SquareChange;
use eboardd_core::time::Time;

/// How the DGT board is modelled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DgtConfig {
    /// The shortest full scan, in milliseconds.
    pub scan_min_ms: f64,
    /// The longest full scan, in milliseconds.
    pub scan_max_ms: f64,
    /// The board stands turned 180° (its field 0 is h1).
    pub rotated: bool,
}

impl Default for DgtConfig {
    fn default() -> Self {
        DgtConfig {
            scan_min_ms: 200.0,
            scan_max_ms: 250.0,
            rotated: false,
        }
    }
}

/// A message the DGT board sends, in chess terms (the codec turns it into bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DgtMessage {
    /// FIELD_UPDATE: one square changed.
    FieldUpdate {
        /// The board's own field number (0–63; depends on the board's orientation).
        field: u8,
        /// The square in chess coordinates.
        square: Square,
        /// What stands there now.
        piece: Option<Piece>,
    },
    /// BOARD_DUMP: all 64 squares as the board last saw them, in chess coordinates
    /// (indexed by `Square as usize`).
    BoardDump(Box<Squares>),
}

impl DgtMessage {
    /// The message's length on the wire.
    pub fn wire_len(&self) -> usize {
        match self {
            DgtMessage::FieldUpdate { .. } => 5,
            DgtMessage::BoardDump(_) => 67,
        }
    }
}

/// The sensing side of one DGT board.
#[derive(Debug, Clone)]
pub struct DgtModel {
    cfg: DgtConfig,
    rng: Rng,
    seen: Squares,
    scan_start: Time,
    scan_len: Duration,
    next_field: u8,
    out: VecDeque<Outgoing<DgtMessage>>,
}

impl DgtModel {
    /// A board that has seen `start` and begins scanning at a random phase in its first
    /// scan period.
    pub fn new(cfg: DgtConfig, start: &Squares, seed: u64) -> DgtModel {
        let mut rng = Rng::derive(seed, "dgt-scan");
        let scan_len = draw_scan(&mut rng, &cfg);
        let phase = rng.range_u64(0, scan_len.as_micros() as u64);
        DgtModel {
            cfg,
            seen: *start,
            // Start part-way through a scan so that scans do not line up with time zero.
            scan_start: Time::ZERO,
            scan_len,
            next_field: ((phase * 64) / (scan_len.as_micros() as u64).max(1)).min(63) as u8,
            rng,
            out: VecDeque::new(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &DgtConfig {
        &self.cfg
    }

    /// The square a field number stands for on this board.
    pub fn field_square(&self, field: u8) -> Square {
        field_to_square(field, self.cfg.rotated)
    }

    /// The square sampled next (at [`poll_timeout`](Self::poll_timeout)).
    pub fn next_square(&self) -> Square {
        self.field_square(self.next_field)
    }

    /// When the next field is sampled.
    pub fn poll_timeout(&self) -> Time {
        let offset = self.scan_len.as_micros() as u64 * u64::from(self.next_field) / 64;
        self.scan_start + Duration::from_micros(offset)
    }

    /// Samples the field due at [`poll_timeout`](Self::poll_timeout). `physical` must
    /// have been advanced to that instant. A change is queued as a FIELD_UPDATE.
    pub fn handle_timeout(&mut self, physical: &Cursor<'_>) {
        let now = self.poll_timeout();
        let field = self.next_field;
        let square = self.field_square(field);
        let piece = physical.squares()[square as usize];
        if piece != self.seen[square as usize] {
            self.seen[square as usize] = piece;
            let (ply, part) = physical.cause(square);
            self.out.push_back(Outgoing {
                ready: now,
                message: DgtMessage::FieldUpdate {
                    field,
                    square,
                    piece,
                },
                reveals: vec![Reveal {
                    change: SquareChange { square, piece },
                    sampled: now,
                    ply,
                    part,
                }],
            });
        }
        if field == 63 {
            self.scan_start = self.scan_start + self.scan_len;
            self.scan_len = draw_scan(&mut self.rng, &self.cfg);
            self.next_field = 0;
        } else {
            self.next_field += 1;
        }
    }

    /// The host asked for a BOARD_DUMP at `now`: queue what the board last saw.
    pub fn request_dump(&mut self, now: Time) {
        self.out.push_back(Outgoing {
            ready: now,
            message: DgtMessage::BoardDump(Box::new(self.seen)),
            reveals: Vec::new(),
        });
    }

    /// What the board last saw on every square.
    pub fn seen(&self) -> &Squares {
        &self.seen
    }

    /// The next message for the host, in the order they were made.
    pub fn poll_outgoing(&mut self) -> Option<Outgoing<DgtMessage>> {
        self.out.pop_front()
    }
}

fn draw_scan(rng: &mut Rng, cfg: &DgtConfig) -> Duration {
    let lo = cfg.scan_min_ms.max(1.0);
    let hi = cfg.scan_max_ms.max(lo);
    rng.millis(lo, hi)
}

/// The chess square of a DGT field (0 = a8 … 63 = h1 on a board the right way round).
pub fn field_to_square(field: u8, rotated: bool) -> Square {
    let f = u32::from(field & 63);
    let file = f % 8;
    let rank = 7 - f / 8;
    let sq = Square::new(rank * 8 + file);
    if rotated {
        Square::new(63 - sq as u32)
    } else {
        sq
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_number_from_a8_or_h1_when_turned() {
        assert_eq!(field_to_square(0, false), Square::A8);
        assert_eq!(field_to_square(7, false), Square::H8);
        assert_eq!(field_to_square(56, false), Square::A1);
        assert_eq!(field_to_square(63, false), Square::H1);
        assert_eq!(field_to_square(0, true), Square::H1);
        assert_eq!(field_to_square(63, true), Square::A8);
    }
}
