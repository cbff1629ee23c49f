//! Jumps: a whole-board report (after a reconnect) that shows several plies played at once.
//!
//! A board that was away for a while comes back with the position after the plies played
//! meanwhile, with nothing to say in which order its squares changed, and with the squares
//! the plies passed through (a pawn that took and was taken again) showing nothing at all.
//! The lift-and-place search of [`super::explain`] cannot see those plies; this one looks
//! only at positions: the shortest sequences of up to [`super::explain::MAX_PLIES`] legal
//! moves from the confirmed position that end exactly in the reported board. One such
//! sequence is the plies played; several are reported as a mismatch, since nothing tells
//! them apart. A board read while a player holds a piece for the next ply is not a jump to
//! confirm: when one ply fewer explains the board but for one square, emptied of a piece
//! of the side to move, the longer sequence (which made that piece vanish with a capture
//! the sensors never saw) waits for the piece to be put down. It is pure chess
//! arithmetic: no time, no events, no IO.

use shakmaty::{Bitboard, Board, Chess, Move, Position};

use super::explain::diff;

/// At most this many positions are visited in one search (a few thousand suffice for four
/// plies, since every ply must touch a square that still differs).
const MAX_NODES: usize = 50_000;

/// What a search for the plies behind a board found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Jump {
    /// Exactly one shortest sequence ends in the board.
    Found(Vec<Move>),
    /// Several sequences of the same, shortest length end in the board.
    Ambiguous,
    /// A sequence one ply shorter ends in the board but for a piece of the side to move,
    /// lifted: the board was read mid-move.
    InHand,
    /// No sequence of at most the given length does.
    None,
}

/// The shortest sequences of at most `max_plies` legal moves from `pos` that end in
/// `board` (compared by occupancy only when `identity` is false).
pub fn find(pos: &Chess, board: &Board, identity: bool, max_plies: usize) -> Jump {
    let mut search = Search {
        target: board,
        identity,
        nodes: 0,
        found: Vec::new(),
        line: Vec::new(),
        in_hand: false,
    };
    for len in 1..=max_plies {
        search.walk(pos, len);
        match search.found.len() {
            0 => {}
            1 if len >= 2 && search.in_hand_after(pos, len - 1) => return Jump::InHand,
            1 => return Jump::Found(search.found.remove(0)),
            _ => return Jump::Ambiguous,
        }
        if search.nodes >= MAX_NODES {
            break;
        }
    }
    Jump::None
}

struct Search<'a> {
    target: &'a Board,
    identity: bool,
    nodes: usize,
    found: Vec<Vec<Move>>,
    line: Vec<Move>,
    /// Whether the search ends in the board but for one lifted piece of the side to move.
    in_hand: bool,
}

impl Search<'_> {
    /// Whether some sequence of `len` plies from `pos` ends in the board but for one square
    /// the board shows empty, where the side to move has a piece (held in the hand).
    fn in_hand_after(&mut self, pos: &Chess, len: usize) -> bool {
        let mut probe = Search {
            target: self.target,
            identity: self.identity,
            nodes: self.nodes,
            found: Vec::new(),
            line: Vec::new(),
            in_hand: true,
        };
        probe.walk(pos, len);
        self.nodes = probe.nodes;
        !probe.found.is_empty()
    }

    /// Whether `pos` is the board, or (looking for a piece in the hand) the board but for
    /// one square emptied of a piece of the side to move.
    fn ends(&self, pos: &Chess, differs: Bitboard) -> bool {
        if !self.in_hand {
            return differs.is_empty();
        }
        differs.count() == 1
            && differs.into_iter().all(|sq| {
                self.target.piece_at(sq).is_none() && pos.board().color_at(sq) == Some(pos.turn())
            })
    }

    /// Looks for sequences of exactly `left` more plies from `pos`.
    fn walk(&mut self, pos: &Chess, left: usize) {
        let differs = diff(self.target, pos.board(), self.identity);
        if left == 0 {
            if self.ends(pos, differs) {
                self.found.push(self.line.clone());
            }
            return;
        }
        // A ply changes at most four squares (castling); the plies left must mend the rest
        // (all but the lifted one, looking for a piece in the hand).
        let slack = usize::from(self.in_hand);
        if differs.is_empty()
            || differs.count() > 4 * left + slack
            || !self.found.is_empty() && self.in_hand
            || self.found.len() > 1
        {
            return;
        }
        for m in pos.legal_moves() {
            if self.nodes >= MAX_NODES {
                return;
            }
            // Every ply lifts a piece from, or puts one on, a square that differs now
            // (a piece that moves twice leaves its first square, which differs).
            if !touches(m, differs) {
                continue;
            }
            self.nodes += 1;
            let mut next = pos.clone();
            next.play_unchecked(m);
            self.line.push(m);
            self.walk(&next, left - 1);
            self.line.pop();
        }
    }
}

fn touches(m: Move, squares: Bitboard) -> bool {
    let mut own = Bitboard::from(m.to());
    if let Some(from) = m.from() {
        own.add(from);
    }
    if let Move::Castle { king, rook } = m {
        own.add(king);
        own.add(rook);
    }
    (own & squares).any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;

    fn after(ucis: &[&str]) -> (Chess, Vec<Move>) {
        let mut pos = Chess::default();
        let mut moves = Vec::new();
        for u in ucis {
            let m = u
                .parse::<UciMove>()
                .expect("uci")
                .to_move(&pos)
                .expect("legal");
            pos.play_unchecked(m);
            moves.push(m);
        }
        (pos, moves)
    }

    #[test]
    fn four_plies_of_captures_have_one_order() {
        // The Opera game, 4. dxe5 Bxf3 5. Qxf3 dxe5: the black pawn ends on e5 again, so
        // only four squares show the jump.
        let (from, _) = after(&["e2e4", "e7e5", "g1f3", "d7d6", "d2d4", "c8g4"]);
        let (to, played) = after(&[
            "e2e4", "e7e5", "g1f3", "d7d6", "d2d4", "c8g4", "d4e5", "g4f3", "d1f3", "d6e5",
        ]);
        assert_eq!(
            find(&from, to.board(), true, 4),
            Jump::Found(played[6..].to_vec())
        );
    }

    #[test]
    fn knights_out_in_either_order_are_ambiguous() {
        let (to, _) = after(&["g1f3", "g8f6", "b1c3"]);
        assert_eq!(
            find(&Chess::default(), to.board(), true, 4),
            Jump::Ambiguous
        );
    }

    #[test]
    fn a_board_read_with_a_piece_in_the_hand_is_not_a_jump_with_a_capture_unseen() {
        // The Opera game after 10...dxe5: 11. Bc4 Nf6 played, and the queen lifted from f3
        // for 12. Qb3. 11. Qf6 Nxf6 12. Bc4 ends in that board too, but it is the board one
        // ply earlier with the queen in the hand.
        let (from, _) = after(&[
            "e2e4", "e7e5", "g1f3", "d7d6", "d2d4", "c8g4", "d4e5", "g4f3", "d1f3", "d6e5",
        ]);
        let board: Board = "rn1qkb1r/ppp2ppp/5n2/4p3/2B1P3/8/PPP2PPP/RNB1K2R"
            .parse::<Fen>()
            .expect("fen")
            .into_setup()
            .board;
        assert_eq!(find(&from, &board, true, 4), Jump::InHand);
    }

    #[test]
    fn a_pawn_pushed_and_taken_while_away_is_a_jump() {
        // 1. e4 d5 2. exd5: no board one ply earlier has only a piece lifted.
        let (to, played) = after(&["e2e4", "d7d5", "e4d5"]);
        assert_eq!(
            find(&Chess::default(), to.board(), true, 4),
            Jump::Found(played)
        );
    }

    #[test]
    fn a_board_no_four_plies_reach_is_none() {
        let board: Board = "8/8/8/8/8/8/8/K6k"
            .parse::<Fen>()
            .expect("fen")
            .into_setup()
            .board;
        assert_eq!(find(&Chess::default(), &board, true, 4), Jump::None);
    }
}
