//! The result gesture: both kings put on the four centre squares.
//!
//! Both on light squares (e4, d5): White wins; both on dark squares (d4, e5): Black wins;
//! one of each: a draw. The four centre squares touch each other, so two kings there is never
//! a position a legal move reaches (lichess issue 11783: the gesture must not be read as a
//! move). Needs piece identity. It knows nothing of time or events.

use shakmaty::{Bitboard, Board, Color, KnownOutcome};

/// The result the board's kings signal, if both stand on the centre squares:
/// (`1-0` / `0-1` / `1/2-1/2`, reason).
pub fn kings_in_centre(board: &Board) -> Option<(KnownOutcome, &'static str)> {
    let white = board.kings() & board.by_color(Color::White);
    let black = board.kings() & board.by_color(Color::Black);
    if white.count() != 1 || black.count() != 1 {
        return None;
    }
    let (w, b) = (white.first()?, black.first()?);
    if !Bitboard::CENTER.contains(w) || !Bitboard::CENTER.contains(b) {
        return None;
    }
    let reason = "kings in the centre";
    Some(match (w.is_light(), b.is_light()) {
        (true, true) => (
            KnownOutcome::Decisive {
                winner: Color::White,
            },
            reason,
        ),
        (false, false) => (
            KnownOutcome::Decisive {
                winner: Color::Black,
            },
            reason,
        ),
        _ => (KnownOutcome::Draw, reason),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(fen: &str) -> Board {
        fen.parse().expect("board fen")
    }

    #[test]
    fn light_squares_mean_white_wins() {
        let b = board("8/8/8/3k4/4K3/8/8/8");
        assert_eq!(kings_in_centre(&b).map(|r| r.0.as_str()), Some("1-0"));
    }

    #[test]
    fn dark_squares_mean_black_wins() {
        let b = board("8/8/8/4k3/3K4/8/8/8");
        assert_eq!(kings_in_centre(&b).map(|r| r.0.as_str()), Some("0-1"));
    }

    #[test]
    fn one_of_each_is_a_draw() {
        let b = board("8/8/8/3kK3/8/8/8/8");
        assert_eq!(kings_in_centre(&b).map(|r| r.0.as_str()), Some("1/2-1/2"));
    }

    #[test]
    fn a_king_outside_the_centre_is_no_gesture() {
        let b = board("8/8/8/3k4/8/8/8/4K3");
        assert_eq!(kings_in_centre(&b), None);
    }
}
