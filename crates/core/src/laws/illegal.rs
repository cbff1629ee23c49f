//! Completed illegal moves (Article 7.5): the board shows the position after a move that
//! the pieces' movements allow but the Laws do not (castling out of, through or into check,
//! a king left in check).
//!
//! The move tracker only ever explains the board with legal moves, so such a board stays
//! unexplained there. This module tries the moves that are pseudo-legal from the game
//! position — each piece moved the way it moves, castling with the rights and an empty path
//! — and keeps the one illegal move whose result is exactly the sensed board. It knows
//! nothing of time, events or how moves are recognised.

use shakmaty::{
    Bitboard, Board, CastlingSide, Chess, Color, Move, Piece, Position, Rank, Role, Square,
    attacks::attacks,
};

/// The illegal move of the side to move in `pos` whose result is `sensed`, if exactly one
/// is. `identity`: compare pieces (else only which squares are occupied).
pub fn illegal_move_shown(pos: &Chess, sensed: &Board, identity: bool) -> Option<Move> {
    let legal = pos.legal_moves();
    let mut found = None;
    for m in pseudo_legal(pos) {
        if legal.contains(&m) {
            continue;
        }
        let mut after = pos.clone();
        after.play_unchecked(m);
        let same = if identity {
            after.board() == sensed
        } else {
            after.board().occupied() == sensed.occupied()
        };
        if same {
            if found.is_some() {
                return None;
            }
            found = Some(m);
        }
    }
    found
}

/// Whether `squares` of the `sensed` board show an illegal move of the side to move in `pos`
/// under way or done: some illegal pseudo-legal move changes every one of them, leaves at
/// least one of them (a piece left it) and fills at least one (a piece arrived), and the
/// sensed board shows its result on all of them (castling with only the king across is
/// under way). A stale sensor on one square is not.
pub fn illegal_under_way(pos: &Chess, sensed: &Board, squares: Bitboard, identity: bool) -> bool {
    if squares.is_empty() {
        return false;
    }
    let legal = pos.legal_moves();
    let before = pos.board();
    pseudo_legal(pos).into_iter().any(|m| {
        if legal.contains(&m) {
            return false;
        }
        let mut after = pos.clone();
        after.play_unchecked(m);
        let after = after.board();
        let mut left = false;
        let mut filled = false;
        for sq in squares {
            let (b, a, s) = (before.piece_at(sq), after.piece_at(sq), sensed.piece_at(sq));
            if b == a {
                return false;
            }
            let shown = if identity {
                s == a
            } else {
                s.is_some() == a.is_some()
            };
            if !shown {
                return false;
            }
            left |= a.is_none();
            filled |= a.is_some();
        }
        left && filled
    })
}

/// Why a pseudo-legal move is illegal, for people.
pub fn why(pos: &Chess, m: Move) -> &'static str {
    if m.is_castle() {
        if pos.is_check() {
            "castling out of check is illegal"
        } else {
            "the king may not castle through or into an attacked square"
        }
    } else if pos.is_check() {
        "it leaves the king in check"
    } else {
        "it leaves the king in check (the piece is pinned, or the king walks into check)"
    }
}

/// Every pseudo-legal move of the side to move (no king captures).
fn pseudo_legal(pos: &Chess) -> Vec<Move> {
    let board = pos.board();
    let turn = pos.turn();
    let us = board.by_color(turn);
    let occupied = board.occupied();
    let mut out = Vec::new();
    for from in us {
        let Some(piece) = board.piece_at(from) else {
            continue;
        };
        if piece.role == Role::Pawn {
            pawn_moves(pos, from, &mut out);
            continue;
        }
        let targets = attacks(from, piece, occupied) & !us & !board.kings();
        for to in targets {
            out.push(Move::Normal {
                role: piece.role,
                from,
                capture: board.role_at(to),
                to,
                promotion: None,
            });
        }
    }
    if let Some(king) = board.king_of(turn) {
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            let Some(rook) = pos.castles().rook(turn, side) else {
                continue;
            };
            let path = pos.castles().path(turn, side);
            let blockers = occupied & !Bitboard::from(king) & !Bitboard::from(rook);
            if (path & blockers).is_empty() {
                out.push(Move::Castle { king, rook });
            }
        }
    }
    out
}

fn pawn_moves(pos: &Chess, from: Square, out: &mut Vec<Move>) {
    let board = pos.board();
    let turn = pos.turn();
    let occupied = board.occupied();
    let forward: i32 = if turn == Color::White { 8 } else { -8 };
    let last = if turn == Color::White {
        Rank::Eighth
    } else {
        Rank::First
    };
    let start = if turn == Color::White {
        Rank::Second
    } else {
        Rank::Seventh
    };
    let mut push = |to: Square, capture: Option<Role>| {
        if to.rank() == last {
            for p in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                out.push(Move::Normal {
                    role: Role::Pawn,
                    from,
                    capture,
                    to,
                    promotion: Some(p),
                });
            }
        } else {
            out.push(Move::Normal {
                role: Role::Pawn,
                from,
                capture,
                to,
                promotion: None,
            });
        }
    };
    if let Some(one) = from.offset(forward).filter(|s| !occupied.contains(*s)) {
        push(one, None);
        if from.rank() == start
            && let Some(two) = one.offset(forward).filter(|s| !occupied.contains(*s))
        {
            push(two, None);
        }
    }
    let attacked = attacks(
        from,
        Piece {
            color: turn,
            role: Role::Pawn,
        },
        occupied,
    );
    for to in attacked & board.by_color(!turn) & !board.kings() {
        push(to, board.role_at(to));
    }
    if let Some(ep) = pos.pseudo_legal_ep_square()
        && attacked.contains(ep)
    {
        out.push(Move::EnPassant { from, to: ep });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .ok()
            .and_then(|f| f.into_position(CastlingMode::Standard).ok())
            .unwrap_or_default()
    }

    fn board_after(p: &Chess, m: Move) -> Board {
        let mut q = p.clone();
        q.play_unchecked(m);
        q.board().clone()
    }

    #[test]
    fn castling_through_check_is_found() {
        // The black bishop on c4 attacks f1.
        let p = pos("4k3/8/8/8/2b5/8/8/4K2R w K - 0 1");
        let m = Move::Castle {
            king: Square::E1,
            rook: Square::H1,
        };
        assert!(!p.is_legal(m));
        assert_eq!(illegal_move_shown(&p, &board_after(&p, m), true), Some(m));
    }

    #[test]
    fn pinned_piece_moved_is_found() {
        let p = pos("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1");
        let m = Move::Normal {
            role: Role::Knight,
            from: Square::E2,
            capture: None,
            to: Square::C3,
            promotion: None,
        };
        assert_eq!(illegal_move_shown(&p, &board_after(&p, m), true), Some(m));
    }

    #[test]
    fn legal_result_is_not_reported() {
        let p = Chess::default();
        let m = Move::Normal {
            role: Role::Pawn,
            from: Square::E2,
            capture: None,
            to: Square::E4,
            promotion: None,
        };
        assert_eq!(illegal_move_shown(&p, &board_after(&p, m), true), None);
    }
}
