//! Commands from users into the tracker: a new game from a given position, and a game taken
//! over from a journal after a restart.

use shakmaty::Position;
use shakmaty::uci::UciMove;

use super::explain::BaseMoves;
use super::game::Game;
use super::start::Start;
use super::{Tracker, TrackerError};
use crate::time::Time;

impl Tracker {
    /// Starts a new game from `fen` at `now`, whatever the board shows (a user's command):
    /// a `new_game` event follows, and the board is then explained from that position.
    pub fn command_new_game(&mut self, now: Time, fen: &str) -> Result<(), TrackerError> {
        let start = Start::from_fen(fen)?;
        self.start_game(now, start);
        self.evaluate(now, false);
        Ok(())
    }

    /// Takes over a game already played and published (after a restart): the start `fen`
    /// and the moves in UCI notation. No events are written for what was already
    /// published; the board is then explained from the position after the last move, so
    /// moves made while eboardd was away are found as usual.
    pub fn resume(&mut self, now: Time, fen: &str, moves: &[UciMove]) -> Result<(), TrackerError> {
        let start = Start::from_fen(fen)?;
        let mut game = Game::new(start);
        for (i, uci) in moves.iter().enumerate() {
            let mv = uci
                .to_move(game.position())
                .ok()
                .filter(|m| game.position().is_legal(*m))
                .ok_or_else(|| TrackerError::ResumedMove {
                    number: i + 1,
                    uci: *uci,
                })?;
            game.play(mv, now, Vec::new());
        }
        self.base = Some(BaseMoves::new(game.position().clone()));
        // Until the board has reported, it stands as the game left it: its first report is
        // then explained from there, the squares that differ being the plies played
        // meanwhile (as after a reconnect), not every piece put down at once.
        let seen = self.seen;
        if !seen {
            self.sensed = game.position().board().clone();
            self.seen = true;
        }
        self.epoch += 1;
        self.game = Some(game);
        self.taken_back = None;
        self.log.clear();
        *self.evidence = Default::default();
        self.ghost = shakmaty::Bitboard::EMPTY;
        self.reported = shakmaty::Bitboard::EMPTY;
        self.clock_at = None;
        if seen {
            self.evaluate(now, true);
        }
        Ok(())
    }
}
