//! Clock readings from DGT clocks reported through the board.

use crate::protocol::dgt::{ClockSide, ClockTimes};
use shakmaty::Color;

/// A clock reading with the sides mapped to White and Black.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockReading {
    /// White's remaining time in milliseconds.
    pub white_ms: u64,
    /// Black's remaining time in milliseconds.
    pub black_ms: u64,
    /// Whose clock runs, if any.
    pub running: Option<Color>,
}

impl ClockReading {
    /// The reading a `clock` event carries.
    pub fn of(event: &crate::event::GameEvent) -> Option<ClockReading> {
        match *event {
            crate::event::GameEvent::Clock {
                white_ms,
                black_ms,
                running,
            } => Some(ClockReading {
                white_ms,
                black_ms,
                running,
            }),
            _ => None,
        }
    }
}

/// What is remembered between clock messages.
#[derive(Debug, Default)]
pub(super) struct ClockState {
    last_lever_right_high: Option<bool>,
    last_reading: Option<ClockReading>,
}

impl ClockState {
    /// Handles a BWTIME time message. Returns `None` when the message carries no usable
    /// reading (no clock connected, or the all-zero message some Bluetooth firmware sends
    /// after a clock command); otherwise the reading if it differs from the last one, and
    /// whether the lever changed side since the last message.
    pub(super) fn handle(
        &mut self,
        times: &ClockTimes,
        white_is_left: bool,
    ) -> Option<(Option<ClockReading>, bool)> {
        if times.no_clock() || times.is_null() {
            return None;
        }
        let lever = times.lever_right_high();
        let pressed = self.last_lever_right_high.is_some_and(|last| last != lever);
        self.last_lever_right_high = Some(lever);

        let running = times.running_side().map(|side| {
            if (side == ClockSide::Left) == white_is_left {
                Color::White
            } else {
                Color::Black
            }
        });
        let (white, black) = if white_is_left {
            (times.left, times.right)
        } else {
            (times.right, times.left)
        };
        let reading = ClockReading {
            white_ms: white.millis(),
            black_ms: black.millis(),
            running,
        };
        let fresh = self.last_reading != Some(reading);
        self.last_reading = Some(reading);
        Some((fresh.then_some(reading), pressed))
    }
}
