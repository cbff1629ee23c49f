//! One `eboardevent` feed: a board's game and sensed board as LiveChess describes them.
//!
//! [`Feed`] follows a board's events and status and says what the feed's next message holds
//! ([`Feed::event`]): the sensed board, whether it is turned, the clock, the FEN the moves
//! are rebuilt from and the SAN of every move since. A `setup` with a position the game
//! already passed through only moves the feed's start there ([`Feed::rebase`]): a client
//! that sets up the position it knows after reconnecting does not cut the game short. It is
//! sans-IO: it is handed events, statuses and times, and knows nothing of sockets.

use std::time::{SystemTime, UNIX_EPOCH};

use shakmaty::Position;

use super::message::{Clock, EBoardEvent};
use crate::daemon::board::BoardStatus;
use crate::daemon::core::{GameSetup, START_FEN};
use crate::event::GameEvent;
use crate::game::notation::fen_of;
use crate::game::record::GameRecord;
use crate::sensing::ClockReading;
use shakmaty::Color;

/// Milliseconds since the Unix epoch at `t`.
pub fn unix_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A clock reading as LiveChess gives it, read at `at`.
pub fn clock_of(reading: ClockReading, at: SystemTime) -> Clock {
    Clock {
        white: reading.white_ms / 1000,
        black: reading.black_ms / 1000,
        run: reading.running.map(|side| side == Color::White),
        time: unix_ms(at),
    }
}

/// Which way round a board stands, from its status: whether it is turned.
pub fn flipped(status: &BoardStatus) -> bool {
    status.orientation == "rotated"
}

/// The part of a FEN that names a position: placement, side to move, castling, en passant.
fn position_key(fen: &str) -> String {
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

/// One feed of one board (see the module documentation).
#[derive(Debug, Clone)]
pub struct Feed {
    serialnr: String,
    record: GameRecord,
    /// Plies of the game before the feed's start, and the FEN after them, after a `setup`
    /// with a position of the game.
    base: Option<(usize, String)>,
    clock: Option<Clock>,
    placement: Option<String>,
    flipped: bool,
    game_placement: Option<String>,
}

impl Feed {
    /// A feed of board `serialnr` whose game so far is `record`.
    pub fn new(serialnr: String, record: GameRecord, clock: Option<Clock>) -> Feed {
        Feed {
            serialnr,
            record,
            base: None,
            clock,
            placement: None,
            flipped: false,
            game_placement: None,
        }
    }

    /// Starts again from the game `record` (after falling behind the board's events); a
    /// rebased start is kept while the game still reaches it.
    pub fn restart(&mut self, record: GameRecord, clock: Option<Clock>) {
        self.record = record;
        if clock.is_some() {
            self.clock = clock;
        }
        self.check_base();
    }

    /// Follows one event of the board, published at `at`.
    pub fn handle_event(&mut self, event: &GameEvent, at: SystemTime) {
        match event {
            GameEvent::Clock { .. } => {
                self.clock = ClockReading::of(event).map(|r| clock_of(r, at));
            }
            GameEvent::NewGame { .. } => {
                self.record.apply(event);
                self.base = None;
            }
            _ => {
                self.record.apply(event);
                self.check_base();
            }
        }
    }

    /// Takes in the board's status now.
    pub fn handle_status(&mut self, status: &BoardStatus) {
        self.placement = (!status.placement.is_empty()).then(|| status.placement.clone());
        self.flipped = flipped(status);
        self.game_placement = status
            .fen
            .split_whitespace()
            .next()
            .map(str::to_string)
            .filter(|p| !p.is_empty());
    }

    /// A start moved into the game is dropped once moves before it are taken back.
    fn check_base(&mut self) {
        if self
            .base
            .as_ref()
            .is_some_and(|(plies, _)| *plies > self.record.moves.len())
        {
            self.base = None;
        }
    }

    /// The FEN the game started from.
    fn game_start(&self) -> &str {
        self.record.start_fen.as_deref().unwrap_or(START_FEN)
    }

    /// When `fen` is a position the game passed through (the latest such), the feed starts
    /// there from now on; whether it is.
    pub fn rebase(&mut self, fen: &str) -> bool {
        let Ok(wanted) = GameSetup::parse(fen) else {
            return false;
        };
        let wanted_key = position_key(&wanted.fen);
        let setup = GameSetup {
            fen: self.game_start().to_string(),
            chess960: self.record.chess960,
        };
        let Some((mut pos, _)) = setup.position() else {
            return false;
        };
        let mut found = (position_key(&fen_of(&pos)) == wanted_key).then_some(0);
        for (i, m) in self.record.moves.iter().enumerate() {
            let Ok(legal) = m.uci.to_move(&pos) else {
                break;
            };
            pos.play_unchecked(legal);
            if position_key(&fen_of(&pos)) == wanted_key {
                found = Some(i + 1);
            }
        }
        match found {
            Some(plies) => {
                self.base = (plies > 0).then_some((plies, wanted.fen));
                true
            }
            None => false,
        }
    }

    /// What the feed's next message says.
    pub fn event(&self) -> EBoardEvent {
        let (skip, start) = match &self.base {
            Some((plies, fen)) => (*plies, fen.clone()),
            None => (0, self.game_start().to_string()),
        };
        EBoardEvent {
            serialnr: self.serialnr.clone(),
            flipped: self.flipped,
            board: self.placement.clone(),
            clock: self.clock,
            start,
            san: self
                .record
                .moves
                .iter()
                .skip(skip)
                .map(|m| m.san.to_string())
                .collect(),
            matches: self.placement.is_some() && self.placement == self.game_placement,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    const AFTER_E5: &str = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";

    fn mv(ply: u32, uci: &str, san: &str, fen: &str) -> GameEvent {
        GameEvent::plain_move(
            ply,
            uci.parse().expect("uci"),
            san.parse().expect("san"),
            fen,
        )
    }

    fn status(placement: &str, fen: &str, orientation: &str) -> BoardStatus {
        BoardStatus {
            placement: placement.into(),
            fen: fen.into(),
            orientation: orientation.into(),
            ..BoardStatus::default()
        }
    }

    fn played() -> Feed {
        let mut feed = Feed::new("1".into(), GameRecord::default(), None);
        let t = UNIX_EPOCH;
        feed.handle_event(
            &GameEvent::NewGame {
                fen: START_FEN.into(),
                chess960: false,
            },
            t,
        );
        feed.handle_event(&mv(1, "e2e4", "e4", AFTER_E4), t);
        feed.handle_event(&mv(2, "e7e5", "e5", AFTER_E5), t);
        feed
    }

    #[test]
    fn the_feed_lists_every_move_since_the_start_and_says_whether_the_board_matches() {
        let mut feed = played();
        let placement = AFTER_E5.split(' ').next().unwrap_or_default();
        feed.handle_status(&status(placement, AFTER_E5, "normal"));
        let e = feed.event();
        assert_eq!(e.san, ["e4", "e5"]);
        assert_eq!(e.start, START_FEN);
        assert!(e.matches);
        assert!(!e.flipped);
        assert_eq!(e.board.as_deref(), Some(placement));
        feed.handle_status(&status("8/8/8/8/8/8/8/8", AFTER_E5, "rotated"));
        let e = feed.event();
        assert!(!e.matches);
        assert!(e.flipped);
        feed.handle_event(&GameEvent::Takeback { ply: 1 }, UNIX_EPOCH);
        assert_eq!(feed.event().san, ["e4"]);
    }

    #[test]
    fn a_setup_with_a_position_of_the_game_moves_the_feeds_start_there() {
        let mut feed = played();
        assert!(feed.rebase(AFTER_E4));
        let e = feed.event();
        assert_eq!(e.start, AFTER_E4);
        assert_eq!(e.san, ["e5"]);
        // Taking back past the new start gives the game's own start again.
        feed.handle_event(&GameEvent::Takeback { ply: 0 }, UNIX_EPOCH);
        assert_eq!(feed.event().start, START_FEN);
        assert!(!feed.rebase("4k3/8/8/8/8/8/8/4K3 w - - 0 1"));
        assert!(!feed.rebase("not a fen"));
    }

    #[test]
    fn clock_readings_are_in_seconds_with_the_side_running() {
        let mut feed = played();
        let at = UNIX_EPOCH + std::time::Duration::from_millis(1_700_000_000_123);
        feed.handle_event(
            &GameEvent::Clock {
                white_ms: 5_676_900,
                black_ms: 7_190_000,
                running: Some(Color::Black),
            },
            at,
        );
        assert_eq!(
            feed.event().clock,
            Some(Clock {
                white: 5676,
                black: 7190,
                run: Some(false),
                time: 1_700_000_000_123
            })
        );
    }
}
