//! Reading PGN files into games the hand can play.
//!
//! A small, forgiving reader of the Portable Game Notation: tag pairs (with `FEN`, `SetUp`
//! and `Variant` for Chess960 and set-up positions), movetext with move numbers, comments
//! (`{...}` and `;` to the end of the line), variations (skipped, nested), NAGs (`$1`) and
//! suffix annotations (`!?`), `%` escape lines, and results. Each move is resolved with
//! shakmaty against the position it is played from, so a [`Game`] holds legal moves only.
//! Errors name the game (its number in the file and its players) and the move.
//!
//! This module knows nothing of boards, hands or time.

mod lexer;

use std::fmt;

use shakmaty::fen::Fen;
use shakmaty::san::{San, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::{Bitboard, CastlingMode, Chess, Color, EnPassantMode, Move, Position, Rank, Square};

use self::lexer::{RawGame, normalise_san, split_games};

/// One game: where it starts and the moves played.
#[derive(Debug, Clone)]
pub struct Game {
    /// The game's number in its file, from 1.
    pub number: usize,
    /// The tag pairs in file order.
    pub tags: Vec<(String, String)>,
    /// The start position.
    pub start: Chess,
    /// Whether Chess960 castling rules apply.
    pub chess960: bool,
    /// The moves of the main line, all legal.
    pub moves: Vec<Move>,
    /// The result token of the movetext (`1-0`, `0-1`, `1/2-1/2`, `*`), if any.
    pub result: Option<String>,
}

impl Game {
    /// A game from a start position and moves; fails on the first illegal move.
    pub fn from_moves(start: Chess, chess960: bool, moves: Vec<Move>) -> Result<Game, PgnError> {
        let mut pos = start.clone();
        for (i, m) in moves.iter().enumerate() {
            if !pos.is_legal(*m) {
                return Err(PgnError {
                    game: 1,
                    name: String::new(),
                    kind: PgnErrorKind::IllegalMove {
                        ply: i as u32 + 1,
                        san: m.to_string(),
                        reason: "illegal in this position".into(),
                    },
                });
            }
            pos.play_unchecked(*m);
        }
        Ok(Game {
            number: 1,
            tags: Vec::new(),
            start,
            chess960,
            moves,
            result: None,
        })
    }

    /// The value of a tag, if present (the first one when repeated).
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// A short name for messages: `game 3 (White - Black)`.
    pub fn name(&self) -> String {
        describe(self.number, &self.tags)
    }

    /// The castling mode of the game.
    pub fn castling_mode(&self) -> CastlingMode {
        if self.chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        }
    }

    /// The start position as a FEN.
    pub fn start_fen(&self) -> String {
        Fen::from_position(&self.start, EnPassantMode::Legal).to_string()
    }

    /// The positions before each move and after the last: `moves.len() + 1` of them.
    pub fn positions(&self) -> Vec<Chess> {
        let mut out = Vec::with_capacity(self.moves.len() + 1);
        let mut pos = self.start.clone();
        out.push(pos.clone());
        for m in &self.moves {
            pos.play_unchecked(*m);
            out.push(pos.clone());
        }
        out
    }

    /// The moves in SAN (with `+`/`#`).
    pub fn san_moves(&self) -> Vec<String> {
        let mut pos = self.start.clone();
        self.moves
            .iter()
            .map(|m| SanPlus::from_move_and_play_unchecked(&mut pos, *m).to_string())
            .collect()
    }

    /// The moves in UCI notation (castling as king-takes-rook in Chess960 games).
    pub fn uci_moves(&self) -> Vec<String> {
        let mode = self.castling_mode();
        self.moves
            .iter()
            .map(|m| UciMove::from_move(*m, mode).to_string())
            .collect()
    }
}

/// A PGN that could not be read, naming the game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {kind}", describe_name(*game, name))]
pub struct PgnError {
    /// The game's number in the file, from 1.
    pub game: usize,
    /// `White - Black` when the tags name them, else empty.
    pub name: String,
    /// What went wrong.
    pub kind: PgnErrorKind,
}

/// What went wrong in a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PgnErrorKind {
    /// The FEN tag is not a position we can play from.
    #[error("bad FEN {fen:?}: {reason}")]
    BadFen {
        /// The tag's value.
        fen: String,
        /// Why.
        reason: String,
    },
    /// A variant other than standard chess or Chess960.
    #[error("variant {0:?} is not supported (standard chess and Chess960 are)")]
    UnsupportedVariant(String),
    /// A move that is not legal, not unique or not a move at all.
    #[error("move {ply} ({san}): {reason}")]
    IllegalMove {
        /// Ply number from 1.
        ply: u32,
        /// The token as written.
        san: String,
        /// Why it could not be played.
        reason: String,
    },
    /// A tag pair, comment or variation that never ends.
    #[error("{0}")]
    Syntax(String),
}

fn describe_name(number: usize, name: &str) -> String {
    if name.is_empty() {
        format!("game {number}")
    } else {
        format!("game {number} ({name})")
    }
}

fn players(tags: &[(String, String)]) -> String {
    let get = |k: &str| tags.iter().find(|(t, _)| t == k).map(|(_, v)| v.as_str());
    match (get("White"), get("Black")) {
        (Some(w), Some(b)) => format!("{w} - {b}"),
        _ => String::new(),
    }
}

fn describe(number: usize, tags: &[(String, String)]) -> String {
    describe_name(number, &players(tags))
}

/// Reads every game of a PGN text; stops at the first game that cannot be read.
pub fn parse_games(text: &str) -> Result<Vec<Game>, PgnError> {
    read_games(text).into_iter().collect()
}

/// Reads every game of a PGN text, keeping going after a bad game: one result per game.
pub fn read_games(text: &str) -> Vec<Result<Game, PgnError>> {
    split_games(text)
        .into_iter()
        .enumerate()
        .map(|(i, raw)| resolve(i + 1, raw))
        .collect()
}

fn variant_is_chess960(variant: &str) -> Result<bool, PgnErrorKind> {
    let v: String = variant
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    match v.as_str() {
        "" | "standard" | "chess" | "normal" | "fromposition" => Ok(false),
        "chess960" | "960" | "fischerandom" | "fischerrandom" | "fischerrandomchess" => Ok(true),
        _ => Err(PgnErrorKind::UnsupportedVariant(variant.to_string())),
    }
}

/// Resolves a raw game into legal moves.
fn resolve(number: usize, raw: RawGame) -> Result<Game, PgnError> {
    let err = |kind| PgnError {
        game: number,
        name: players(&raw.tags),
        kind,
    };
    if let Some(msg) = &raw.error {
        return Err(err(PgnErrorKind::Syntax(msg.clone())));
    }
    let tag = |k: &str| {
        raw.tags
            .iter()
            .find(|(t, _)| t.eq_ignore_ascii_case(k))
            .map(|(_, v)| v.as_str())
    };
    let mut chess960 = match tag("Variant") {
        Some(v) => variant_is_chess960(v).map_err(err)?,
        None => false,
    };
    let start = match tag("FEN") {
        None => Chess::default(),
        Some(fen_text) => {
            let bad = |reason: String| {
                err(PgnErrorKind::BadFen {
                    fen: fen_text.to_string(),
                    reason,
                })
            };
            let fen: Fen = fen_text.trim().parse().map_err(|e| bad(format!("{e}")))?;
            // Castling rights on rooks off the corners only make sense in Chess960.
            let corners = Bitboard::from(Square::A1)
                | Bitboard::from(Square::H1)
                | Bitboard::from(Square::A8)
                | Bitboard::from(Square::H8);
            let setup = fen.as_setup();
            let rights = setup.castling_rights;
            let king_off_e = |color: Color, back: Bitboard, e: Square| {
                !(rights & back).is_empty() && setup.board.king_of(color).is_some_and(|k| k != e)
            };
            if !(rights & !corners).is_empty()
                || king_off_e(Color::White, Bitboard::from(Rank::First), Square::E1)
                || king_off_e(Color::Black, Bitboard::from(Rank::Eighth), Square::E8)
            {
                chess960 = true;
            }
            let mode = if chess960 {
                CastlingMode::Chess960
            } else {
                CastlingMode::Standard
            };
            match fen.clone().into_position::<Chess>(mode) {
                Ok(p) => p,
                Err(e) if !chess960 => {
                    // Castling rights that only make sense in Chess960 (rooks not on the
                    // corners): read the game as Chess960.
                    match fen.into_position::<Chess>(CastlingMode::Chess960) {
                        Ok(p) => {
                            chess960 = true;
                            p
                        }
                        Err(_) => return Err(bad(format!("{e}"))),
                    }
                }
                Err(e) => return Err(bad(format!("{e}"))),
            }
        }
    };
    let mut pos = start.clone();
    let mut moves = Vec::with_capacity(raw.moves.len());
    for (i, token) in raw.moves.iter().enumerate() {
        let ply = i as u32 + 1;
        let illegal = |reason: &str| {
            err(PgnErrorKind::IllegalMove {
                ply,
                san: token.clone(),
                reason: reason.to_string(),
            })
        };
        let san: San = San::from_ascii(normalise_san(token).as_bytes())
            .map_err(|_| illegal("not a move in SAN"))?;
        let m = san.to_move(&pos).map_err(|e| illegal(&e.to_string()))?;
        pos.play_unchecked(m);
        moves.push(m);
    }
    Ok(Game {
        number,
        tags: raw.tags,
        start,
        chess960,
        moves,
        result: raw.result,
    })
}

impl fmt::Display for Game {
    /// The game as one line of SAN moves with numbers, e.g. `1. e4 e5 2. Nf3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let white_first = self.start.turn().is_white();
        let mut number = self.start.fullmoves().get();
        for (i, san) in self.san_moves().iter().enumerate() {
            let white = (i % 2 == 0) == white_first;
            if i > 0 {
                f.write_str(" ")?;
            }
            if white {
                write!(f, "{number}. ")?;
            } else if i == 0 {
                write!(f, "{number}... ")?;
            }
            f.write_str(san)?;
            if !white {
                number += 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_variations_nags_and_numbers_are_skipped() {
        let text = r#"[Event "t"]
[White "A"]
[Black "B"]

1. e4 {best by test} e5 (1... c5 2. Nf3 (2. c3) d6) 2. Nf3! $1 Nc6?! ; a line comment
3.Bb5 a6 4. Ba4 1-0
"#;
        let games = parse_games(text).expect("parses");
        assert_eq!(games.len(), 1);
        assert_eq!(
            games[0].san_moves(),
            ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4"]
        );
        assert_eq!(games[0].result.as_deref(), Some("1-0"));
        assert_eq!(games[0].name(), "game 1 (A - B)");
    }

    #[test]
    fn two_games_without_results_are_split_at_the_tags() {
        let text = "[White \"a\"]\n1. d4 d5\n[White \"b\"]\n1. c4\n";
        let games = parse_games(text).expect("parses");
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].san_moves(), ["c4"]);
    }

    #[test]
    fn an_illegal_move_names_the_game_and_the_move() {
        let text = "[White \"X\"]\n[Black \"Y\"]\n1. e4 e5 2. Ke3 *\n";
        let e = parse_games(text).expect_err("illegal");
        assert_eq!(e.game, 1);
        let msg = e.to_string();
        assert!(msg.contains("game 1 (X - Y)"), "{msg}");
        assert!(msg.contains("move 3 (Ke3)"), "{msg}");
    }

    #[test]
    fn chess960_games_castle_by_king_takes_rook() {
        let text = r#"[Variant "Chess960"]
[SetUp "1"]
[FEN "nbbrnkrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRNKRQ w KQkq - 0 1"]

1. c4 c5 2. d4 cxd4 3. Rxd4 Be5 4. Rd1 O-O 1-0"#;
        let g = &parse_games(text).expect("parses")[0];
        assert!(g.chess960);
        assert_eq!(g.uci_moves().last().map(String::as_str), Some("f8g8"));
    }

    #[test]
    fn loose_spellings_are_accepted() {
        let text = "[FEN \"4k3/P7/8/8/8/8/8/4K2R w K - 0 1\"]\n1. a8Q+ Kd7 2. 0-0 *";
        let g = &parse_games(text).expect("parses")[0];
        assert_eq!(g.san_moves(), ["a8=Q+", "Kd7", "O-O"]);
    }

    #[test]
    fn unclosed_comment_is_an_error_not_a_panic() {
        let e = parse_games("1. e4 { oops").expect_err("syntax");
        assert!(matches!(e.kind, PgnErrorKind::Syntax(_)));
    }

    #[test]
    fn display_numbers_the_moves() {
        let g = &parse_games("1. e4 e5 2. Nf3 *").expect("parses")[0];
        assert_eq!(g.to_string(), "1. e4 e5 2. Nf3");
    }

    #[test]
    fn escapes_escape_lines_and_nested_variations() {
        let text = "% a comment line\n[White \"The \\\"Kid\\\"\"]\n\n1. e4 (1. d4 d5 (1... Nf6)) 1... e5 1/2-1/2\n";
        let g = &parse_games(text).expect("parses")[0];
        assert_eq!(g.tag("White"), Some("The \"Kid\""));
        assert_eq!(g.san_moves(), ["e4", "e5"]);
        assert_eq!(g.result.as_deref(), Some("1/2-1/2"));
    }

    #[test]
    fn a_bad_fen_and_an_unknown_variant_are_named() {
        let bad = parse_games("[FEN \"8/8/8 w - - 0 1\"]\n1. e4 *").expect_err("bad fen");
        assert!(matches!(bad.kind, PgnErrorKind::BadFen { .. }), "{bad}");
        let var = parse_games("[Variant \"Crazyhouse\"]\n1. e4 *").expect_err("variant");
        assert!(
            matches!(var.kind, PgnErrorKind::UnsupportedVariant(_)),
            "{var}"
        );
    }

    #[test]
    fn castling_rights_off_the_corners_make_a_chess960_game() {
        let text = "[FEN \"4k1r1/6p1/8/8/8/8/6P1/4K1R1 w Gg - 0 1\"]\n1. O-O *";
        let g = &parse_games(text).expect("parses")[0];
        assert!(g.chess960);
        assert_eq!(g.uci_moves(), ["e1g1"]);
        // A king off the e-file with rights on the corner rooks.
        let text = "[FEN \"rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w KQkq - 0 1\"]\n1. O-O *";
        let g = &parse_games(text).expect("parses")[0];
        assert!(g.chess960);
        assert_eq!(g.uci_moves(), ["b1h1"]);
    }

    #[test]
    fn read_games_keeps_going_after_a_bad_game() {
        let text = "[White \"a\"]\n1. e5 *\n[White \"b\"]\n1. e4 *\n";
        let all = read_games(text);
        assert_eq!(all.len(), 2);
        assert!(all[0].is_err());
        assert!(all[1].is_ok());
    }
}
