//! The clock times a move carries: the mover's remaining time and how long the move took.
//!
//! [`MoveClocks`] watches the clock readings of one board and stamps each confirmed `move`
//! event with `clock_ms` (the mover's time once the move was made) and `emt_ms` (how long
//! the mover's clock ran for it). It trusts the readings and the events; it owns no timer.
//!
//! - The remaining time is the mover's time in the latest reading. When the mover's clock
//!   still runs (the move was confirmed from the board before the clock was pressed), it is
//!   the reading less the time since it was taken.
//! - The elapsed time is measured between the readings where the mover's clock started and
//!   stopped, not from the clock's digits: with an increment the digits go up at the press.
//!   A turn is spent on one move at most; a move made without its own turn on the clock has
//!   no `emt_ms`.

use crate::event::GameEvent;
use crate::sensing::ClockReading;
use crate::time::Time;
use shakmaty::Color;

/// One side's turn on the clock.
#[derive(Debug, Clone, Copy, Default)]
struct Turn {
    /// When the side's clock was seen to start running.
    start: Option<Time>,
    /// When it was seen to stop, after `start`.
    end: Option<Time>,
    /// Whether a move already took this turn's time.
    spent: bool,
}

/// Clock readings turned into the times of each move (sans-IO).
#[derive(Debug, Default)]
pub struct MoveClocks {
    last: Option<(Time, ClockReading)>,
    turns: [Turn; 2],
    last_mover: Option<Color>,
}

fn index(side: Color) -> usize {
    match side {
        Color::White => 0,
        Color::Black => 1,
    }
}

fn time_of(reading: &ClockReading, side: Color) -> u64 {
    match side {
        Color::White => reading.white_ms,
        Color::Black => reading.black_ms,
    }
}

/// The side that made the move leading to `fen` (the other one is to move in it).
fn mover(fen: &str) -> Option<Color> {
    match fen.split_whitespace().nth(1) {
        Some("w") => Some(Color::Black),
        Some("b") => Some(Color::White),
        _ => None,
    }
}

impl MoveClocks {
    /// Takes a clock reading made at `t`.
    pub fn observe(&mut self, t: Time, reading: ClockReading) {
        let before = self.last.and_then(|(_, r)| r.running);
        for side in [Color::White, Color::Black] {
            let turn = &mut self.turns[index(side)];
            let runs = reading.running == Some(side);
            let ran = before == Some(side);
            if runs && !ran {
                *turn = Turn {
                    start: Some(t),
                    end: None,
                    spent: false,
                };
            } else if ran && !runs && turn.start.is_some() {
                turn.end = Some(t);
            }
        }
        self.last = Some((t, reading));
    }

    /// Whether the side that made this `move` event still has its clock running: the
    /// clock has not been pressed for it yet, and its times will be known at the press.
    pub fn awaits_press(&self, event: &GameEvent) -> bool {
        let GameEvent::Move { fen, .. } = event else {
            return false;
        };
        match (self.last, mover(fen)) {
            (Some((_, reading)), Some(side)) => reading.running == Some(side),
            _ => false,
        }
    }

    /// Fills in `clock_ms` and `emt_ms` of a `move` event decided at `t` (other events are
    /// left alone; so is a move when no clock has been read). A `retract` gives the
    /// withdrawn move's turn back to the move that replaces it.
    pub fn stamp(&mut self, t: Time, event: &mut GameEvent) {
        if let GameEvent::Retract { .. } = event {
            if let Some(side) = self.last_mover.take() {
                self.turns[index(side)].spent = false;
            }
            return;
        }
        let GameEvent::Move {
            fen,
            clock_ms,
            emt_ms,
            ..
        } = event
        else {
            return;
        };
        let (Some((read_at, reading)), Some(side)) = (self.last, mover(fen)) else {
            return;
        };
        self.last_mover = Some(side);
        let turn = &mut self.turns[index(side)];
        let running = reading.running == Some(side);
        let mut remaining = time_of(&reading, side);
        if running {
            let since = t.saturating_since(read_at).as_millis();
            remaining = remaining.saturating_sub(u64::try_from(since).unwrap_or(u64::MAX));
        }
        *clock_ms = Some(remaining);
        let end = if running { Some(t) } else { turn.end };
        *emt_ms = match (turn.start, end, turn.spent) {
            (Some(start), Some(end), false) => {
                u64::try_from(end.saturating_since(start).as_millis()).ok()
            }
            _ => None,
        };
        turn.spent = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(white_ms: u64, black_ms: u64, running: Option<Color>) -> ClockReading {
        ClockReading {
            white_ms,
            black_ms,
            running,
        }
    }

    fn mv(fen: &str) -> GameEvent {
        GameEvent::Move {
            ply: 1,
            uci: "e2e4".parse().expect("uci"),
            san: "e4".parse().expect("san"),
            fen: fen.into(),
            clock_ms: None,
            emt_ms: None,
            alternatives: Vec::new(),
        }
    }

    fn times(e: &GameEvent) -> (Option<u64>, Option<u64>) {
        match e {
            GameEvent::Move {
                clock_ms, emt_ms, ..
            } => (*clock_ms, *emt_ms),
            _ => (None, None),
        }
    }

    const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    const AFTER_E5: &str = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";

    #[test]
    fn a_move_pressed_on_the_clock_carries_the_time_at_the_press_and_the_time_it_ran() {
        let mut c = MoveClocks::default();
        c.observe(Time::from_millis(0), reading(180_000, 180_000, None));
        c.observe(
            Time::from_millis(1_000),
            reading(180_000, 180_000, Some(Color::White)),
        );
        c.observe(
            Time::from_millis(4_000),
            reading(179_000, 180_000, Some(Color::White)),
        );
        // White presses: the increment puts White's digits up.
        c.observe(
            Time::from_millis(5_000),
            reading(181_000, 180_000, Some(Color::Black)),
        );
        let mut e = mv(AFTER_E4);
        c.stamp(Time::from_millis(5_000), &mut e);
        assert_eq!(times(&e), (Some(181_000), Some(4_000)));
    }

    #[test]
    fn a_move_confirmed_before_the_press_counts_the_running_clock_down() {
        let mut c = MoveClocks::default();
        c.observe(
            Time::from_millis(0),
            reading(60_000, 60_000, Some(Color::Black)),
        );
        c.observe(
            Time::from_millis(2_000),
            reading(60_000, 58_000, Some(Color::Black)),
        );
        let mut e = mv(AFTER_E5);
        c.stamp(Time::from_millis(2_500), &mut e);
        assert_eq!(times(&e), (Some(57_500), Some(2_500)));
    }

    #[test]
    fn a_turn_is_spent_on_one_move_only() {
        let mut c = MoveClocks::default();
        c.observe(
            Time::from_millis(0),
            reading(60_000, 60_000, Some(Color::White)),
        );
        c.observe(
            Time::from_millis(3_000),
            reading(57_000, 60_000, Some(Color::Black)),
        );
        let mut first = mv(AFTER_E4);
        c.stamp(Time::from_millis(3_000), &mut first);
        assert_eq!(times(&first), (Some(57_000), Some(3_000)));
        // White moves again without a turn of its own on the clock.
        let mut second = mv(AFTER_E4);
        c.stamp(Time::from_millis(9_000), &mut second);
        assert_eq!(times(&second), (Some(57_000), None));
    }

    #[test]
    fn a_retracted_move_gives_its_turn_to_the_move_that_replaces_it() {
        let mut c = MoveClocks::default();
        c.observe(
            Time::from_millis(0),
            reading(60_000, 60_000, Some(Color::White)),
        );
        c.observe(
            Time::from_millis(3_000),
            reading(57_000, 60_000, Some(Color::Black)),
        );
        let mut first = mv(AFTER_E4);
        c.stamp(Time::from_millis(3_000), &mut first);
        c.stamp(
            Time::from_millis(3_500),
            &mut GameEvent::Retract {
                ply: 1,
                uci: "e2e4".parse().expect("uci"),
            },
        );
        let mut again = mv(AFTER_E4);
        c.stamp(Time::from_millis(3_500), &mut again);
        assert_eq!(times(&again), (Some(57_000), Some(3_000)));
    }

    #[test]
    fn without_a_clock_moves_carry_no_times() {
        let mut c = MoveClocks::default();
        let mut e = mv(AFTER_E4);
        c.stamp(Time::from_millis(1_000), &mut e);
        assert_eq!(times(&e), (None, None));
    }

    #[test]
    fn a_move_awaits_the_press_while_the_movers_clock_runs() {
        let mut c = MoveClocks::default();
        c.observe(
            Time::from_millis(0),
            reading(60_000, 60_000, Some(Color::White)),
        );
        assert!(c.awaits_press(&mv(AFTER_E4)));
        assert!(!c.awaits_press(&mv(AFTER_E5)));
        c.observe(
            Time::from_millis(1_000),
            reading(59_000, 60_000, Some(Color::Black)),
        );
        assert!(!c.awaits_press(&mv(AFTER_E4)));
    }
}
