//! A game as a line of positions, and how two such lines meet.
//!
//! The UCI bridge holds two games: the one the GUI sends (`position …`) and the one the
//! board's events describe. [`align`] finds where they meet — the last position both have
//! reached by the same moves — so the engine knows whether the board is level with the GUI,
//! behind it (the GUI's moves are to be carried out on the board), ahead of it (the player
//! has moved), or off on its own line (moves to take back). Positions are compared as
//! chess positions (pieces, side to move, castling rights, en passant), not by move
//! numbers, so a game that starts from a FEN in the middle of the other still meets it.

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, Move, Position, Square,
};

use crate::game::start::{FenError, read_fen, read_fen_chess960};

/// Why a game line could not start or go on. The texts do not quote a FEN the line was
/// given (the caller does, shortened): a GUI may send anything.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// The start is not a FEN.
    #[error("not a FEN ({0})")]
    NotFen(String),
    /// The start is a FEN but no legal position.
    #[error("not a legal position ({0})")]
    IllegalStart(String),
    /// A move is not written in UCI notation.
    #[error("{0} is not a move in UCI notation")]
    NotUci(String),
    /// A move is not legal where the line stands.
    #[error("{uci} is not a legal move in {fen}")]
    IllegalMove {
        /// The move.
        uci: UciMove,
        /// The position, as a FEN.
        fen: String,
    },
}

impl From<FenError> for LineError {
    fn from(e: FenError) -> LineError {
        match e {
            FenError::Malformed { reason, .. } => LineError::NotFen(reason),
            FenError::Illegal { reason, .. } => LineError::IllegalStart(reason),
        }
    }
}

/// A position as compared between the two games.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Key {
    board: Board,
    turn: Color,
    castling: Bitboard,
    ep: Option<Square>,
}

fn key(pos: &Chess) -> Key {
    Key {
        board: pos.board().clone(),
        turn: pos.turn(),
        castling: pos.castles().castling_rights(),
        ep: pos.ep_square(EnPassantMode::Legal),
    }
}

/// A game: its start, its moves and every position along the way.
#[derive(Debug, Clone)]
pub struct GameLine {
    mode: CastlingMode,
    positions: Vec<Chess>,
    keys: Vec<Key>,
    moves: Vec<Move>,
}

impl GameLine {
    /// A game starting at `start`, its castling written as `mode` says.
    pub fn new(start: Chess, mode: CastlingMode) -> GameLine {
        let k = key(&start);
        GameLine {
            mode,
            positions: vec![start],
            keys: vec![k],
            moves: Vec::new(),
        }
    }

    /// A game starting from `fen`. With `chess960` the FEN is read with Chess960 castling;
    /// otherwise standard castling is tried first and Chess960 (`HAha`, or rooks off their
    /// standard squares) when only that explains the castling rights.
    pub fn from_fen(fen: &str, chess960: bool) -> Result<GameLine, LineError> {
        if chess960 {
            Ok(GameLine::new(
                read_fen_chess960(fen)?,
                CastlingMode::Chess960,
            ))
        } else {
            let (pos, mode) = read_fen(fen)?;
            Ok(GameLine::new(pos, mode))
        }
    }

    /// How castling is written (`e1g1` standard, `e1h1` Chess960).
    pub fn mode(&self) -> CastlingMode {
        self.mode
    }

    /// Writes castling as `mode` says from now on.
    pub fn set_mode(&mut self, mode: CastlingMode) {
        self.mode = mode;
    }

    /// How many moves were played.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// Whether no move was played.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// The moves played.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The position after `plies` moves (0: the start), if the game is that long.
    pub fn position(&self, plies: usize) -> Option<&Chess> {
        self.positions.get(plies)
    }

    /// The position now.
    pub fn current(&self) -> &Chess {
        // A line always holds its start position.
        &self.positions[self.positions.len() - 1]
    }

    /// The position now as a FEN.
    pub fn current_fen(&self) -> String {
        Fen::from_position(self.current(), EnPassantMode::Legal).to_string()
    }

    /// Plays a legal move.
    pub fn push(&mut self, m: Move) -> Result<(), LineError> {
        let after = self
            .current()
            .clone()
            .play(m)
            .map_err(|_| LineError::IllegalMove {
                uci: self.uci_move(m),
                fen: self.current_fen(),
            })?;
        self.keys.push(key(&after));
        self.positions.push(after);
        self.moves.push(m);
        Ok(())
    }

    /// Plays a move written in UCI notation (either castling notation is read).
    pub fn push_uci(&mut self, text: &str) -> Result<Move, LineError> {
        let m = self.parse_uci(text)?;
        self.push(m)?;
        Ok(m)
    }

    /// Plays a move the board made (either castling notation is read).
    pub fn push_move(&mut self, uci: &UciMove) -> Result<Move, LineError> {
        let m = self.legal(uci)?;
        self.push(m)?;
        Ok(m)
    }

    /// Reads a move in UCI notation that is legal now.
    pub fn parse_uci(&self, text: &str) -> Result<Move, LineError> {
        let uci = UciMove::from_ascii(text.as_bytes())
            .map_err(|_| LineError::NotUci(text.to_string()))?;
        self.legal(&uci)
    }

    /// The move `uci` names, if it is legal now.
    fn legal(&self, uci: &UciMove) -> Result<Move, LineError> {
        uci.to_move(self.current())
            .map_err(|_| LineError::IllegalMove {
                uci: *uci,
                fen: self.current_fen(),
            })
    }

    /// Goes back to the position after `plies` moves (nothing if the game is shorter).
    pub fn truncate(&mut self, plies: usize) {
        self.moves.truncate(plies);
        self.positions.truncate(plies + 1);
        self.keys.truncate(plies + 1);
    }

    /// A move in UCI notation as this game writes castling.
    pub fn uci(&self, m: Move) -> String {
        self.uci_move(m).to_string()
    }

    /// A move as this game writes castling.
    pub fn uci_move(&self, m: Move) -> UciMove {
        UciMove::from_move(m, self.mode)
    }

    /// Move `index` (from 0) in Standard Algebraic Notation, with check marks.
    pub fn san(&self, index: usize) -> Option<String> {
        let m = *self.moves.get(index)?;
        let pos = self.positions.get(index)?.clone();
        Some(SanPlus::from_move(pos, m).to_string())
    }

    /// Whether the position now is the same as `other`'s position now.
    pub fn same_position(&self, other: &GameLine) -> bool {
        self.keys.last() == other.keys.last()
    }

    /// Whether this game passed through `other`'s position now (at its start or after any
    /// of its moves).
    pub fn passed_through(&self, other: &GameLine) -> bool {
        other.keys.last().is_some_and(|k| self.keys.contains(k))
    }
}

/// Where two games meet: after `board` moves of the board's game and `gui` moves of the
/// GUI's game the positions are the same, and they part (or end) there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alignment {
    /// Moves of the board's game up to the meeting point.
    pub board: usize,
    /// Moves of the GUI's game up to the meeting point.
    pub gui: usize,
}

/// Where the board's game and the GUI's game meet, or `None` if they share no position.
///
/// From the first position both games reach, the games are followed while they make the
/// same moves. If the board then stands in a position the GUI's game reaches later, that
/// later point is taken (the board was set back, or is being replayed): fewer moves are
/// then to be taken back.
pub fn align(board: &GameLine, gui: &GameLine) -> Option<Alignment> {
    let (mut i, mut j) = board
        .keys
        .iter()
        .enumerate()
        .find_map(|(i, k)| gui.keys.iter().position(|g| g == k).map(|j| (i, j)))?;
    while i < board.len() && j < gui.len() && board.keys[i + 1] == gui.keys[j + 1] {
        i += 1;
        j += 1;
    }
    if i < board.len() {
        let now = &board.keys[board.len()];
        if let Some(later) = gui.keys.iter().rposition(|g| g == now).filter(|&l| l >= j) {
            return Some(Alignment {
                board: board.len(),
                gui: later,
            });
        }
    }
    Some(Alignment { board: i, gui: j })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(fen: Option<&str>, moves: &str) -> GameLine {
        let mut l = match fen {
            Some(f) => GameLine::from_fen(f, false).expect("fen"),
            None => GameLine::new(Chess::default(), CastlingMode::Standard),
        };
        for m in moves.split_whitespace() {
            l.push_uci(m).expect("legal");
        }
        l
    }

    #[test]
    fn the_same_game_meets_at_its_end() {
        let a = line(None, "e2e4 e7e5");
        assert_eq!(align(&a, &a.clone()), Some(Alignment { board: 2, gui: 2 }));
    }

    #[test]
    fn a_board_behind_the_gui_meets_where_the_board_stands() {
        let board = line(None, "e2e4");
        let gui = line(None, "e2e4 e7e5 g1f3");
        assert_eq!(align(&board, &gui), Some(Alignment { board: 1, gui: 1 }));
    }

    #[test]
    fn a_board_ahead_of_the_gui_meets_where_the_gui_stands() {
        let board = line(None, "e2e4 e7e5 g1f3");
        let gui = line(None, "e2e4 e7e5");
        assert_eq!(align(&board, &gui), Some(Alignment { board: 2, gui: 2 }));
    }

    #[test]
    fn games_that_part_meet_before_the_first_different_move() {
        let board = line(None, "e2e4 e7e6");
        let gui = line(None, "e2e4 e7e5");
        assert_eq!(align(&board, &gui), Some(Alignment { board: 1, gui: 1 }));
    }

    #[test]
    fn a_game_from_a_fen_meets_the_game_that_reached_it() {
        let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
        let board = line(Some(fen), "g1f3");
        let gui = line(None, "e2e4 e7e5 g1f3 b8c6");
        assert_eq!(align(&board, &gui), Some(Alignment { board: 1, gui: 3 }));
    }

    #[test]
    fn a_repeated_position_does_not_hide_the_players_move() {
        let board = line(None, "g1f3 g8f6 f3g1 f6g8 g1f3");
        let gui = line(None, "g1f3 g8f6 f3g1 f6g8");
        assert_eq!(align(&board, &gui), Some(Alignment { board: 4, gui: 4 }));
    }

    #[test]
    fn a_board_set_back_to_a_position_of_the_gui_needs_no_takeback() {
        let board = line(None, "g1f3 g8f6 f3g1 f6g8");
        let gui = line(None, "e2e4");
        assert_eq!(align(&board, &gui), Some(Alignment { board: 4, gui: 0 }));
    }

    #[test]
    fn unrelated_games_do_not_meet() {
        let board = line(None, "e2e4");
        let gui = line(Some("8/8/8/8/8/8/8/K1k5 w - - 0 1"), "");
        assert_eq!(align(&board, &gui), None);
    }

    #[test]
    fn castling_is_read_in_both_notations_and_written_as_the_game_says() {
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        let mut a = GameLine::from_fen(fen, false).expect("fen");
        let m = a.push_uci("e1h1").expect("king takes rook is castling");
        assert_eq!(a.uci(m), "e1g1");
        let mut b = GameLine::from_fen(fen, true).expect("fen");
        let m = b.push_uci("e1g1").expect("two squares is castling");
        assert_eq!(b.uci(m), "e1h1");
        assert!(a.same_position(&b));
    }

    #[test]
    fn illegal_and_malformed_moves_are_refused() {
        let mut a = line(None, "");
        assert!(a.push_uci("e2e5").is_err());
        assert!(a.push_uci("zz").is_err());
        assert!(a.push_uci("0000").is_err());
        assert!(a.is_empty());
    }
}
