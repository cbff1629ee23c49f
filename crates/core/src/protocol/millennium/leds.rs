//! The 81 LEDs and the `L` payload: a slot time and one pattern byte per LED.
//!
//! The LEDs sit on the 9×9 grid of square corners, so every square has 4 corner LEDs and
//! neighbouring squares share them. LED `k` (0-based, the order of the `L` payload) is at
//! grid point `k = 9·i + j`. In the board's own frame (cable on White's left) square file `F`
//! (a = 0) and rank `R` (1–8) light `i ∈ {F, F+1}`, `j ∈ {8−R, 9−R}`; with the cable on the
//! right the frame is turned 180°, which maps `k` to `80 − k`.
//!
//! A pattern byte is shown bit 7 first, one bit per time slot, and repeats every 8 slots; the
//! slot time is in units of 4.096 ms. This file knows nothing about framing or what a move
//! means: it only says which LEDs stand for which squares.

use shakmaty::Square;

use super::CableSide;

/// How many LEDs a board has.
pub const LED_COUNT: usize = 81;

/// The slot time used to show a move: 0x20 × 4.096 ms ≈ 131 ms, so the 8-slot cycle takes
/// about 1.05 s.
pub const MOVE_SLOT_TIME: u8 = 0x20;

/// The pattern of the from-square of a shown move: lit in the first half of the cycle.
/// Patterns are shown bit 7 first, so the light runs from the from-square to the to-square.
pub const MOVE_FROM_PATTERN: u8 = 0xF0;

/// The pattern of the to-square of a shown move: lit in the second half of the cycle.
pub const MOVE_TO_PATTERN: u8 = 0x0F;

/// The 4 corner LEDs (0-based, in `L` payload order) of a square with the cable on `side`,
/// in ascending order.
///
/// ```
/// use eboardd_core::protocol::millennium::{square_leds, CableSide};
/// use shakmaty::Square;
/// assert_eq!(square_leds(Square::H1, CableSide::Right), [0, 1, 9, 10]);
/// assert_eq!(square_leds(Square::E2, CableSide::Right), [28, 29, 37, 38]);
/// assert_eq!(square_leds(Square::A8, CableSide::Left), [0, 1, 9, 10]);
/// ```
pub fn square_leds(square: Square, side: CableSide) -> [u8; 4] {
    let file = u8::from(square.file());
    let rank = u8::from(square.rank()) + 1;
    let (i, j) = match side {
        CableSide::Left => (file, 8 - rank),
        CableSide::Right => (7 - file, rank - 1),
    };
    let k = 9 * i + j;
    [k, k + 1, k + 9, k + 10]
}

/// An LED index that is not below [`LED_COUNT`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("LED index {0} is out of range (a board has LEDs 0 to 80)")]
pub struct LedIndexOutOfRange(pub usize);

/// The payload of an `L` command: the slot time and a pattern for each of the 81 LEDs.
///
/// ```
/// use eboardd_core::protocol::millennium::{CableSide, Command, LedFrame};
/// use shakmaty::Square;
/// let frame = LedFrame::show_move(Square::E2, Square::E4, CableSide::Right);
/// let bytes = Command::Leds(frame).encode();
/// assert_eq!(bytes.len(), 167);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LedFrame {
    slot_time: u8,
    patterns: [u8; LED_COUNT],
}

impl Default for LedFrame {
    /// Every LED out, with [`MOVE_SLOT_TIME`].
    fn default() -> Self {
        Self::new(MOVE_SLOT_TIME)
    }
}

impl LedFrame {
    /// Every LED out, with a slot time in units of 4.096 ms.
    pub fn new(slot_time: u8) -> Self {
        Self::from_parts(slot_time, [0; LED_COUNT])
    }

    /// A frame from a slot time and the 81 patterns in payload order.
    pub fn from_parts(slot_time: u8, patterns: [u8; LED_COUNT]) -> Self {
        Self {
            slot_time,
            patterns,
        }
    }

    /// The slot time in units of 4.096 ms.
    pub fn slot_time(&self) -> u8 {
        self.slot_time
    }

    /// Sets the slot time (units of 4.096 ms).
    pub fn set_slot_time(&mut self, slot_time: u8) {
        self.slot_time = slot_time;
    }

    /// The slot time in microseconds (one unit is 4096 µs).
    pub fn slot_micros(&self) -> u32 {
        u32::from(self.slot_time) * 4096
    }

    /// The 81 patterns in payload order.
    pub fn patterns(&self) -> &[u8; LED_COUNT] {
        &self.patterns
    }

    /// The pattern of LED `led`, or `None` past the last LED.
    pub fn pattern(&self, led: usize) -> Option<u8> {
        self.patterns.get(led).copied()
    }

    /// Sets the pattern of LED `led`.
    pub fn set_led(&mut self, led: usize, pattern: u8) -> Result<(), LedIndexOutOfRange> {
        let slot = self.patterns.get_mut(led).ok_or(LedIndexOutOfRange(led))?;
        *slot = pattern;
        Ok(())
    }

    /// Lights the 4 corners of `square` with `pattern`, OR-ed with what they already show (a
    /// corner shared with another lit square shows both patterns).
    pub fn light_square(&mut self, square: Square, side: CableSide, pattern: u8) {
        for led in square_leds(square, side) {
            if let Some(slot) = self.patterns.get_mut(usize::from(led)) {
                *slot |= pattern;
            }
        }
    }

    /// Lights the corners of every square in `squares` with `pattern` (OR-ed, as in
    /// [`light_square`](Self::light_square)).
    pub fn light_squares(
        &mut self,
        squares: impl IntoIterator<Item = Square>,
        side: CableSide,
        pattern: u8,
    ) {
        for square in squares {
            self.light_square(square, side, pattern);
        }
    }

    /// The frame that shows a move: the from-square with [`MOVE_FROM_PATTERN`] and the
    /// to-square with [`MOVE_TO_PATTERN`] at [`MOVE_SLOT_TIME`], so the light alternates from
    /// one to the other. Corners the two squares share are OR-ed and so stay lit.
    pub fn show_move(from: Square, to: Square, side: CableSide) -> Self {
        let mut frame = Self::new(MOVE_SLOT_TIME);
        frame.light_square(from, side, MOVE_FROM_PATTERN);
        frame.light_square(to, side, MOVE_TO_PATTERN);
        frame
    }

    /// The same lights as seen by a board turned 180° (LED `k` becomes LED `80 − k`): what to
    /// send when a frame built for one cable side must go to a board on the other.
    pub fn turned(&self) -> Self {
        let mut patterns = self.patterns;
        patterns.reverse();
        Self::from_parts(self.slot_time, patterns)
    }

    /// Whether every LED is out.
    pub fn is_dark(&self) -> bool {
        self.patterns.iter().all(|&p| p == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cable_right_corners_match_the_fact_sheet() {
        let side = CableSide::Right;
        assert_eq!(square_leds(Square::H1, side), [0, 1, 9, 10]);
        assert_eq!(square_leds(Square::A1, side), [63, 64, 72, 73]);
        assert_eq!(square_leds(Square::A8, side), [70, 71, 79, 80]);
        assert_eq!(square_leds(Square::E2, side), [28, 29, 37, 38]);
    }

    #[test]
    fn cable_left_puts_led_one_at_a8_and_led_81_at_h1() {
        let side = CableSide::Left;
        assert_eq!(square_leds(Square::A8, side), [0, 1, 9, 10]);
        assert_eq!(square_leds(Square::A1, side), [7, 8, 16, 17]);
        assert_eq!(square_leds(Square::H8, side), [63, 64, 72, 73]);
        assert_eq!(square_leds(Square::H1, side), [70, 71, 79, 80]);
    }

    #[test]
    fn the_two_cable_sides_are_a_half_turn_apart() {
        for square in Square::ALL {
            let mut left = square_leds(square, CableSide::Left).map(|k| 80 - k);
            left.sort_unstable();
            assert_eq!(left, square_leds(square, CableSide::Right), "{square}");
        }
    }

    #[test]
    fn every_led_is_a_corner_of_some_square_and_each_square_has_four() {
        let mut used = [0u8; LED_COUNT];
        for square in Square::ALL {
            for led in square_leds(square, CableSide::Right) {
                used[usize::from(led)] += 1;
            }
        }
        assert!(used.iter().all(|&n| n >= 1));
        // Corners are shared by 1 (board corners), 2 (edges) or 4 (inside) squares.
        assert_eq!(used.iter().filter(|&&n| n == 4).count(), 49);
        assert_eq!(used.iter().filter(|&&n| n == 1).count(), 4);
    }

    #[test]
    fn shown_move_ors_shared_corners() {
        let frame = LedFrame::show_move(Square::E2, Square::E3, CableSide::Right);
        let from = square_leds(Square::E2, CableSide::Right);
        let to = square_leds(Square::E3, CableSide::Right);
        for led in 0..LED_COUNT as u8 {
            let expected = match (from.contains(&led), to.contains(&led)) {
                (true, true) => 0xFF,
                (true, false) => MOVE_FROM_PATTERN,
                (false, true) => MOVE_TO_PATTERN,
                (false, false) => 0,
            };
            assert_eq!(frame.pattern(usize::from(led)), Some(expected), "LED {led}");
        }
        assert_eq!(frame.slot_time(), MOVE_SLOT_TIME);
    }

    #[test]
    fn a_frame_turned_for_the_other_side_lights_the_same_squares() {
        let right = LedFrame::show_move(Square::G1, Square::F3, CableSide::Right);
        let left = LedFrame::show_move(Square::G1, Square::F3, CableSide::Left);
        assert_eq!(right.turned(), left);
        assert_eq!(right.turned().turned(), right);
    }

    #[test]
    fn set_led_rejects_an_index_past_the_last_led() {
        let mut frame = LedFrame::new(0x10);
        assert_eq!(frame.set_led(80, 0xFF), Ok(()));
        assert_eq!(frame.set_led(81, 0xFF), Err(LedIndexOutOfRange(81)));
        assert_eq!(frame.pattern(80), Some(0xFF));
        assert_eq!(frame.pattern(81), None);
        assert!(!frame.is_dark());
        assert!(LedFrame::default().is_dark());
        assert_eq!(frame.slot_micros(), 0x10 * 4096);
    }
}
