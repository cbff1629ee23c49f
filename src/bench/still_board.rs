//! The fixed still-board matcher: wait until no square has changed for a fixed time, then
//! accept the sensed board if exactly one legal move from the game position gives it.

use std::collections::VecDeque;
use std::time::Duration;

use shakmaty::fen::Fen;
use shakmaty::{Board, CastlingMode, Chess, FromSetup, Position};

use crate::event::{GameEvent, TimedEvent};
use crate::game::notation::{fen_of, play_move};
use crate::game::start::{StartKind, start_kind};
use crate::sensing::SquareChange;
use crate::time::Time;

/// A still-board matcher with a fixed wait (sans-IO; same handlers as the tracker).
#[derive(Debug)]
pub struct StillBoardMatcher {
    wait: Duration,
    start_fen: Option<String>,
    game: Option<(Chess, CastlingMode, u32)>,
    sensed: Board,
    last_change: Option<Time>,
    events: VecDeque<TimedEvent>,
}

impl StillBoardMatcher {
    /// A matcher that waits `wait` for a still board; `start_fen` starts the game from a
    /// set-up position instead of the start position seen on the board.
    pub fn new(wait: Duration, start_fen: Option<String>) -> Self {
        StillBoardMatcher {
            wait,
            start_fen,
            game: None,
            sensed: Board::empty(),
            last_change: None,
            events: VecDeque::new(),
        }
    }

    /// A full sensed board.
    pub fn handle_board(&mut self, now: Time, board: &Board) {
        self.sensed = board.clone();
        self.last_change = Some(now);
    }

    /// One square changed.
    pub fn handle_change(&mut self, now: Time, change: SquareChange) {
        match change.piece {
            Some(p) => self.sensed.set_piece_at(change.square, p),
            None => self.sensed.discard_piece_at(change.square),
        }
        self.last_change = Some(now);
    }

    /// When the board will have been still long enough.
    pub fn poll_timeout(&self) -> Option<Time> {
        self.last_change.map(|t| t + self.wait)
    }

    /// Looks at the board if it has been still long enough.
    pub fn handle_timeout(&mut self, now: Time) {
        let Some(due) = self.poll_timeout() else {
            return;
        };
        if now < due {
            return;
        }
        self.last_change = None;
        if self.game.is_none() {
            self.try_start(now);
            return;
        }
        if let Some(kind) = start_kind(&self.sensed) {
            let at_start = self
                .game
                .as_ref()
                .is_some_and(|(pos, _, _)| pos.board() == &self.sensed);
            if !at_start {
                self.start(now, kind);
                return;
            }
        }
        let Some((pos, mode, ply)) = self.game.take() else {
            return;
        };
        let matches: Vec<_> = pos
            .legal_moves()
            .into_iter()
            .filter(|m| {
                let mut after = pos.clone();
                after.play_unchecked(*m);
                after.board() == &self.sensed
            })
            .collect();
        if let [m] = matches[..] {
            let (event, after) = play_move(&pos, m, ply + 1, mode);
            self.events.push_back(TimedEvent { t: now, event });
            self.game = Some((after, mode, ply + 1));
        } else {
            self.game = Some((pos, mode, ply));
        }
    }

    /// The next event decided.
    pub fn poll_event(&mut self) -> Option<TimedEvent> {
        self.events.pop_front()
    }

    fn try_start(&mut self, now: Time) {
        if let Some(fen) = self.start_fen.clone() {
            let pos = fen
                .parse::<Fen>()
                .ok()
                .and_then(|f| f.into_position::<Chess>(CastlingMode::Chess960).ok());
            if let Some(pos) = pos.filter(|p| p.board() == &self.sensed) {
                self.events.push_back(TimedEvent {
                    t: now,
                    event: GameEvent::NewGame {
                        fen: fen_of(&pos),
                        chess960: false,
                    },
                });
                self.game = Some((pos, CastlingMode::Standard, 0));
            }
            return;
        }
        if let Some(kind) = start_kind(&self.sensed) {
            self.start(now, kind);
        }
    }

    fn start(&mut self, now: Time, kind: StartKind) {
        let mode = match kind {
            StartKind::Standard => CastlingMode::Standard,
            StartKind::Chess960 => CastlingMode::Chess960,
        };
        let setup = shakmaty::Setup {
            board: self.sensed.clone(),
            castling_rights: self.sensed.by_role(shakmaty::Role::Rook)
                & (shakmaty::Bitboard::from_rank(shakmaty::Rank::First)
                    | shakmaty::Bitboard::from_rank(shakmaty::Rank::Eighth)),
            ..shakmaty::Setup::empty()
        };
        let Ok(pos) = Chess::from_setup(setup, mode) else {
            return;
        };
        self.events.push_back(TimedEvent {
            t: now,
            event: GameEvent::NewGame {
                fen: fen_of(&pos),
                chess960: kind == StartKind::Chess960,
            },
        });
        self.game = Some((pos, mode, 0));
    }
}
