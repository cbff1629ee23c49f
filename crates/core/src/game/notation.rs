//! Moves as the events write them: UCI, SAN and the FEN after.

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move};

use crate::event::GameEvent;

/// Plays `m` (legal in `pos`) and returns the `move` event for ply `ply` with the position
/// after it. `mode` decides how castling is written in UCI (`e1h1` in Chess960).
pub fn play_move(pos: &Chess, m: Move, ply: u32, mode: CastlingMode) -> (GameEvent, Chess) {
    let uci = UciMove::from_move(m, mode);
    let mut after = pos.clone();
    let san = SanPlus::from_move_and_play_unchecked(&mut after, m);
    let fen = fen_of(&after);
    (
        GameEvent::Move {
            ply,
            uci,
            san,
            fen,
            clock_ms: None,
            emt_ms: None,
            alternatives: Vec::new(),
        },
        after,
    )
}

/// The full FEN of a position (en passant square only when a capture is legal).
pub fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_event_has_uci_san_and_fen_after() {
        let pos = Chess::default();
        let m = UciMove::from_ascii(b"g1f3")
            .expect("uci")
            .to_move(&pos)
            .expect("legal");
        let (event, after) = play_move(&pos, m, 1, CastlingMode::Standard);
        assert_eq!(
            event,
            GameEvent::Move {
                ply: 1,
                uci: "g1f3".parse().expect("uci"),
                san: "Nf3".parse().expect("san"),
                fen: "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1".into(),
                clock_ms: None,
                emt_ms: None,
                alternatives: Vec::new(),
            }
        );
        assert_eq!(
            fen_of(&after),
            "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1"
        );
    }
}
