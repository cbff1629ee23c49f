//! The fixed still-board matcher: wait until no square has changed for a fixed time, then
//! accept the sensed board if exactly one legal move (or else exactly one pair of moves)
//! from the game position gives it.

use std::collections::VecDeque;
use std::time::Duration;

use shakmaty::fen::Fen;
use shakmaty::{Board, CastlingMode, Chess, FromSetup, Position};

use eboardd_core::event::{GameEvent, TimedEvent};
use eboardd_core::game::notation::{fen_of, play_move};
use eboardd_core::game::start::{StartKind, start_kind};
use eboardd_core::pipeline::{Matcher, MatcherFactory, Reconstruction};
use eboardd_core::sensing::SquareChange;
use eboardd_core::time::Time;

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
        if self.game.is_none() {
            // A board's first report shows what stood there before anyone watched.
            self.try_start(now);
            if self.game.is_some() {
                return;
            }
        }
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
        let Some((mut pos, mode, mut ply)) = self.game.take() else {
            return;
        };
        for m in self.find_moves(&pos) {
            let (event, after) = play_move(&pos, m, ply + 1, mode);
            self.events.push_back(TimedEvent { t: now, event });
            pos = after;
            ply += 1;
        }
        self.game = Some((pos, mode, ply));
    }

    /// The one move, or else the one pair of moves, that turns `pos` into the sensed board
    /// (nothing when there is none or more than one). Two plies are looked for so that a
    /// quick reply does not leave the matcher stuck for the rest of the game.
    fn find_moves(&self, pos: &Chess) -> Vec<shakmaty::Move> {
        let mut singles = Vec::new();
        let mut pairs = Vec::new();
        for m in pos.legal_moves() {
            let mut after = pos.clone();
            after.play_unchecked(m);
            if after.board() == &self.sensed {
                singles.push(m);
                continue;
            }
            for reply in after.legal_moves() {
                let mut two = after.clone();
                two.play_unchecked(reply);
                if two.board() == &self.sensed {
                    pairs.push(vec![m, reply]);
                }
            }
        }
        match (singles.len(), pairs.len()) {
            (1, _) => singles,
            (0, 1) => pairs.pop().unwrap_or_default(),
            _ => Vec::new(),
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

impl Matcher for StillBoardMatcher {
    fn handle_board(&mut self, now: Time, board: &Board) {
        StillBoardMatcher::handle_board(self, now, board);
    }
    fn handle_change(&mut self, now: Time, change: SquareChange) {
        StillBoardMatcher::handle_change(self, now, change);
    }
    fn poll_timeout(&self) -> Option<Time> {
        StillBoardMatcher::poll_timeout(self)
    }
    fn handle_timeout(&mut self, now: Time) {
        StillBoardMatcher::handle_timeout(self, now);
    }
    fn poll_event(&mut self) -> Option<TimedEvent> {
        StillBoardMatcher::poll_event(self)
    }
}

/// A core's [`Reconstruction`] by the fixed still-board matcher waiting `wait`.
pub fn reconstruction(wait: Duration) -> Reconstruction {
    Reconstruction::Matcher(MatcherFactory::new(move |start_fen| {
        Box::new(StillBoardMatcher::new(wait, start_fen))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Color, Piece, Role, Square};

    fn change(square: Square, piece: Option<Piece>) -> SquareChange {
        SquareChange { square, piece }
    }

    #[test]
    fn still_board_confirms_a_move_after_the_wait() {
        let mut m = StillBoardMatcher::new(Duration::from_millis(250), None);
        m.handle_board(Time::from_millis(10), &Board::new());
        assert!(matches!(
            m.poll_event().map(|e| e.event),
            Some(GameEvent::NewGame {
                chess960: false,
                ..
            })
        ));
        let pawn = Piece {
            color: Color::White,
            role: Role::Pawn,
        };
        m.handle_change(Time::from_millis(100), change(Square::E2, None));
        m.handle_change(Time::from_millis(300), change(Square::E4, Some(pawn)));
        assert_eq!(m.poll_timeout(), Some(Time::from_millis(550)));
        m.handle_timeout(Time::from_millis(549));
        assert!(m.poll_event().is_none());
        m.handle_timeout(Time::from_millis(550));
        let e = m.poll_event().expect("a move");
        assert_eq!(e.t, Time::from_millis(550));
        assert!(
            matches!(e.event, GameEvent::Move { ply: 1, ref uci, .. } if uci.to_string() == "e2e4")
        );
    }

    #[test]
    fn still_board_ignores_a_board_no_single_move_gives() {
        let mut m = StillBoardMatcher::new(Duration::from_millis(250), None);
        m.handle_board(Time::ZERO, &Board::new());
        let _ = m.poll_event();
        m.handle_change(Time::from_millis(100), change(Square::E2, None));
        m.handle_timeout(Time::from_millis(350));
        assert!(m.poll_event().is_none());
    }
}
