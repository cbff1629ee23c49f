//! The game on one board as the event stream leaves it: position, ply count and PGN.
//!
//! [`GameView`] follows a board's [`GameEvent`]s and keeps what users ask about (the FEN of
//! the game position, how many plies were played, the game as PGN) and the position that
//! commands are checked against (a move to show must be legal). It trusts the events and
//! knows nothing of how they were decided, stored or published.

use shakmaty::KnownOutcome;
use shakmaty::{CastlingMode, Chess, Position};

use crate::event::GameEvent;
use crate::game::notation::fen_of;
use crate::game::record::GameRecord;

use super::core::GameSetup;

/// The game on one board.
#[derive(Debug, Clone)]
pub struct GameView {
    record: GameRecord,
    setup: GameSetup,
    position: Chess,
    mode: CastlingMode,
    fen: String,
    started: bool,
}

impl Default for GameView {
    fn default() -> Self {
        let setup = GameSetup::standard();
        GameView {
            record: GameRecord::default(),
            fen: setup.fen.clone(),
            setup,
            position: Chess::default(),
            mode: CastlingMode::Standard,
            started: false,
        }
    }
}

impl GameView {
    /// Follows one event.
    pub fn apply(&mut self, event: &GameEvent) {
        self.record.apply(event);
        match event {
            GameEvent::NewGame { fen, chess960 } => {
                self.started = true;
                self.setup = GameSetup {
                    fen: fen.clone(),
                    chess960: *chess960,
                };
                self.replay();
            }
            GameEvent::Move { fen, .. } => {
                self.started = true;
                let mode = self.mode;
                let parsed = fen
                    .parse::<shakmaty::fen::Fen>()
                    .ok()
                    .and_then(|f| f.into_position::<Chess>(mode).ok());
                match parsed {
                    Some(pos) => {
                        self.position = pos;
                        self.fen = fen.clone();
                    }
                    None => self.replay(),
                }
            }
            GameEvent::Retract { .. } | GameEvent::Takeback { .. } => self.replay(),
            _ => {}
        }
    }

    /// Recomputes the position from the start and the recorded moves.
    fn replay(&mut self) {
        let (mut pos, mode) = self
            .setup
            .position()
            .unwrap_or((Chess::default(), CastlingMode::Standard));
        for m in &self.record.moves {
            let Ok(legal) = m.uci.to_move(&pos) else {
                tracing::warn!(uci = %m.uci, "a recorded move does not replay; the position stops before it");
                break;
            };
            pos.play_unchecked(legal);
        }
        self.fen = fen_of(&pos);
        self.position = pos;
        self.mode = mode;
    }

    /// Whether a game has started (a `new_game` or a move was seen).
    pub fn started(&self) -> bool {
        self.started
    }

    /// The FEN of the game position.
    pub fn fen(&self) -> &str {
        &self.fen
    }

    /// The game position and its castling mode.
    pub fn position(&self) -> (&Chess, CastlingMode) {
        (&self.position, self.mode)
    }

    /// How many plies were played.
    pub fn ply(&self) -> u32 {
        u32::try_from(self.record.moves.len()).unwrap_or(u32::MAX)
    }

    /// The result, once decided.
    pub fn result(&self) -> Option<KnownOutcome> {
        self.record.result
    }

    /// The moves and result so far.
    pub fn record(&self) -> &GameRecord {
        &self.record
    }

    /// The game as PGN with these tags first.
    pub fn pgn(&self, tags: &[(&str, &str)]) -> String {
        self.record.to_pgn(tags)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(ply: u32, uci: &str, san: &str, fen: &str) -> GameEvent {
        GameEvent::plain_move(
            ply,
            uci.parse().expect("uci"),
            san.parse().expect("san"),
            fen,
        )
    }

    #[test]
    fn moves_advance_the_position_and_takebacks_rewind_it() {
        let mut g = GameView::default();
        g.apply(&GameEvent::NewGame {
            fen: super::super::core::START_FEN.into(),
            chess960: false,
        });
        let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        g.apply(&mv(1, "e2e4", "e4", after_e4));
        g.apply(&mv(
            2,
            "e7e5",
            "e5",
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
        ));
        assert_eq!(g.ply(), 2);
        g.apply(&GameEvent::Takeback { ply: 1 });
        assert_eq!(g.ply(), 1);
        assert_eq!(g.fen(), after_e4);
        g.apply(&GameEvent::Retract {
            ply: 1,
            uci: "e2e4".parse().expect("uci"),
        });
        assert_eq!(g.fen(), super::super::core::START_FEN);
        assert!(g.pgn(&[]).ends_with("*\n"));
    }

    #[test]
    fn a_set_up_position_is_the_new_start() {
        let mut g = GameView::default();
        assert!(!g.started());
        let fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";
        g.apply(&GameEvent::NewGame {
            fen: fen.into(),
            chess960: false,
        });
        assert!(g.started());
        assert_eq!(g.fen(), fen);
        assert_eq!(g.position().0.legal_moves().len(), 6);
    }
}
