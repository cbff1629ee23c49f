//! The touch-move and completed-move rules (4.3, 4.4, 4.5, 4.7) applied to one ply.
//!
//! Input: the position the ply was played from, the move that completes it, and the ply's
//! sensor log (read by [`super::reading`]). Output: [`Finding`]s, each naming a [`Rule`],
//! the square it is about and what was due. What the sensors cannot show is never assumed:
//! an order of touches counts only when the reported lifts are at least the order margin
//! apart (a board reports the squares of one scan in its own order); a piece counts as
//! released on a square only after resting there for the release time.
//!
//! The obligation of 4.3 comes from the pieces touched *before* the move began (before the
//! first lift of a piece the move moves or captures) together with the piece that moved:
//! own pieces only → 4.3a on the first that could move; one of each colour → 4.3c (capture
//! the touched opponent's piece with the touched own piece), and if that capture is illegal,
//! 4.3a/4.3b on the first touched piece that could move or be captured; nothing touched that
//! can move or be captured → 4.5, no breach. A capture made victim-first is the move itself.
//!
//! It knows nothing of editions' numbering, events, timers or how moves are recognised.

use std::time::Duration;

use shakmaty::{
    Bitboard, CastlingSide, Chess, Color, Move, MoveList, Piece, Position, Role, Square,
};

use super::edition::Rule;
use super::reading::{Reading, Touch, read};
use crate::time::Time;
use crate::tracker::game::SquareEvent;

/// What the player had to do instead (shown in `enforce` mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Due {
    /// Move the piece on this square.
    Move(Square, Piece),
    /// Capture the piece on this square.
    Capture(Square, Piece),
    /// Capture the `target` with the piece on `with`.
    CaptureWith {
        /// The own piece that must capture.
        with: (Square, Piece),
        /// The opponent's piece to capture.
        target: (Square, Piece),
    },
    /// Castle on this side.
    Castle(CastlingSide),
    /// Castling on this side is not allowed on this move; the rook on this square must move.
    NoCastling(CastlingSide, Square),
    /// Make another legal move with the king on this square.
    KingMove(Square),
    /// Promote to this piece, the one that first touched the promotion square.
    PromoteTo(Role),
    /// Nothing can be asked now (the breach is done: a piece moved on).
    Nothing,
}

/// A breach seen in one ply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule broken.
    pub rule: Rule,
    /// The square of the piece the rule is about (the piece touched, the square a piece was
    /// released on, the promotion square).
    pub square: Option<Square>,
    /// What was due.
    pub due: Due,
    /// What the sensors showed, for people (without article numbers; see
    /// [`super::Arbiter`] for the sentence with them).
    pub seen: String,
    /// Whether a spoken j'adoube (4.2) would excuse it.
    pub adjustable: bool,
}

/// The timing margins the judge needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Margins {
    /// Lifts reported closer together than this have no proven order.
    pub order: Duration,
    /// A piece resting this long on a square counts as released there.
    pub release: Duration,
}

/// How long after the previous move's last change a lift of the piece it moved, put back on
/// its square, may be the previous player centring it rather than a touch by the player to
/// move: such a lift is not taken as a touch of an opponent's piece (4.3b, 4.3c).
pub const ADJUST_WINDOW: Duration = Duration::from_millis(1000);

/// What the judge applies, besides the ply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// The timing margins.
    pub margins: Margins,
    /// Whether the edition has 4.4d (the promoted piece is fixed).
    pub promotion_rule: bool,
    /// Whether the board reports which piece stands on a square.
    pub identity: bool,
}

/// The move before the ply judged: the squares it put pieces on and the time of its last
/// change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Previous {
    /// Where the previous move put its pieces.
    pub squares: Bitboard,
    /// When its last change was reported.
    pub end: Time,
}

/// Applies the rules to one ply: `mv`, played from `before`, whose sensor log is `log`,
/// after the move `previous`.
pub fn judge(
    rules: &Rules,
    before: &Chess,
    mv: Move,
    log: &[SquareEvent],
    previous: Option<Previous>,
) -> Vec<Finding> {
    let mover = before.turn();
    let reading = read(before.board(), mover, log, rules.identity);
    let ctx = Ctx {
        pos: before,
        legal: before.legal_moves(),
        mover,
        mv,
        margins: rules.margins,
        reading: &reading,
        previous,
    };
    let mut out = Vec::new();
    let castling = ctx.castling(&mut out);
    if let Some(f) = ctx.touch_rule() {
        let about_castling = f.square.is_some_and(|s| castling.contains(s));
        if !about_castling || out.is_empty() {
            out.push(f);
        }
    }
    if rules.promotion_rule && rules.identity {
        out.extend(ctx.promotion());
    }
    out.extend(ctx.released());
    out
}

struct Ctx<'a> {
    pos: &'a Chess,
    legal: MoveList,
    mover: Color,
    mv: Move,
    margins: Margins,
    reading: &'a Reading,
    previous: Option<Previous>,
}

/// The square whose piece a move captures.
fn capture_square(m: &Move) -> Option<Square> {
    match *m {
        Move::Normal {
            capture: Some(_),
            to,
            ..
        } => Some(to),
        Move::EnPassant { from, to } => Some(Square::from_coords(to.file(), from.rank())),
        _ => None,
    }
}

/// The squares whose pieces a move moves.
fn movers(m: &Move) -> Bitboard {
    match *m {
        Move::Castle { king, rook } => Bitboard::from(king) | Bitboard::from(rook),
        _ => m.from().map_or(Bitboard::EMPTY, Bitboard::from),
    }
}

/// Where the piece from `origin` ends up when `m` is played, if `m` moves it.
pub fn lands(m: &Move, origin: Square) -> Option<Square> {
    match *m {
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_queen_side(rook < king);
            if origin == king {
                Some(Square::from_coords(side.king_to_file(), king.rank()))
            } else if origin == rook {
                Some(Square::from_coords(side.rook_to_file(), rook.rank()))
            } else {
                None
            }
        }
        _ => (m.from() == Some(origin)).then(|| m.to()),
    }
}

/// A piece for people: "the white knight on g1".
pub fn name(piece: Piece, square: Square) -> String {
    let colour = if piece.color == Color::White {
        "white"
    } else {
        "black"
    };
    format!("the {colour} {} on {square}", role_name(piece.role))
}

/// A role for people.
pub fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

fn side_name(side: CastlingSide) -> &'static str {
    match side {
        CastlingSide::KingSide => "king's side",
        CastlingSide::QueenSide => "queen's side",
    }
}

impl Ctx<'_> {
    fn can_move(&self, sq: Square) -> bool {
        self.legal.iter().any(|m| m.from() == Some(sq))
    }

    fn can_be_captured(&self, sq: Square) -> bool {
        self.legal.iter().any(|m| capture_square(m) == Some(sq))
    }

    fn captures_with(&self, x: Square, y: Square) -> bool {
        self.legal
            .iter()
            .any(|m| m.from() == Some(x) && capture_square(m) == Some(y))
    }

    /// Whether `t` may be the previous player centring the piece they just moved.
    fn maybe_centring(&self, t: &Touch) -> bool {
        !self.own(t)
            && self
                .previous
                .is_some_and(|p| p.squares.contains(t.square) && t.t < p.end + ADJUST_WINDOW)
    }

    fn own(&self, t: &Touch) -> bool {
        t.piece.color == self.mover
    }

    /// Whether `a` counts as touched before `b`: proven by the margin, or, when the order
    /// cannot be told, the own piece first (4.3c, last sentence).
    fn before(&self, a: &Touch, b: &Touch) -> bool {
        let m = self.margins.order;
        if a.t + m <= b.t {
            true
        } else if b.t + m <= a.t {
            false
        } else if self.own(a) != self.own(b) {
            self.own(a)
        } else {
            a.t <= b.t
        }
    }

    /// Orders touches by [`Ctx::before`] (insertion; the lists are a handful long).
    fn ordered(&self, touches: &[Touch]) -> Vec<Touch> {
        let mut out: Vec<Touch> = Vec::with_capacity(touches.len());
        for t in touches {
            let at = out
                .iter()
                .position(|o| self.before(t, o))
                .unwrap_or(out.len());
            out.insert(at, *t);
        }
        out
    }

    /// 4.3 (and 4.5): the obligation from the pieces touched before the move began.
    fn touch_rule(&self) -> Option<Finding> {
        let moved = movers(&self.mv);
        let victim = capture_square(&self.mv);
        let parts = moved | victim.map_or(Bitboard::EMPTY, Bitboard::from);
        let touches = &self.reading.touches;
        let began = touches
            .iter()
            .filter(|t| parts.contains(t.square))
            .map(|t| t.t)
            .min()?;
        let mover_touch = touches
            .iter()
            .filter(|t| moved.contains(t.square))
            .min_by_key(|t| t.t)?;
        let pre: Vec<Touch> = touches
            .iter()
            .filter(|t| !parts.contains(t.square) && t.t + self.margins.order <= began)
            .filter(|t| !self.maybe_centring(t))
            .copied()
            .collect();
        if pre.is_empty() {
            return None;
        }
        let mut all = pre;
        all.push(*mover_touch);
        let order = self.ordered(&all);
        let moved_desc = name(mover_touch.piece, mover_touch.square);
        let first_own = order.iter().find(|t| self.own(t))?;
        let Some(first_opp) = order.iter().find(|t| !self.own(t)) else {
            let due = order.iter().find(|t| self.can_move(t.square))?;
            if moved.contains(due.square) {
                return None;
            }
            return Some(Finding {
                rule: Rule::OwnTouched,
                square: Some(due.square),
                due: Due::Move(due.square, due.piece),
                seen: format!(
                    "{} was lifted first and could move, then {moved_desc} moved",
                    name(due.piece, due.square)
                ),
                adjustable: true,
            });
        };
        if self.captures_with(first_own.square, first_opp.square) {
            let done = moved.contains(first_own.square) && victim == Some(first_opp.square);
            if done {
                return None;
            }
            let first = if self.before(first_own, first_opp) {
                first_own
            } else {
                first_opp
            };
            return Some(Finding {
                rule: Rule::OneOfEach,
                square: Some(first.square),
                due: Due::CaptureWith {
                    with: (first_own.square, first_own.piece),
                    target: (first_opp.square, first_opp.piece),
                },
                seen: format!(
                    "{} and {} were both lifted and the capture was legal, but {moved_desc} \
                     moved instead",
                    name(first_own.piece, first_own.square),
                    name(first_opp.piece, first_opp.square)
                ),
                adjustable: true,
            });
        }
        let due = order.iter().find(|t| {
            if self.own(t) {
                self.can_move(t.square)
            } else {
                self.can_be_captured(t.square)
            }
        })?;
        if self.own(due) {
            if moved.contains(due.square) {
                return None;
            }
            Some(Finding {
                rule: Rule::OwnTouched,
                square: Some(due.square),
                due: Due::Move(due.square, due.piece),
                seen: format!(
                    "{} was lifted first and could move, then {moved_desc} moved",
                    name(due.piece, due.square)
                ),
                adjustable: true,
            })
        } else {
            if victim == Some(due.square) {
                return None;
            }
            Some(Finding {
                rule: Rule::OpponentTouched,
                square: Some(due.square),
                due: Due::Capture(due.square, due.piece),
                seen: format!(
                    "{} was lifted first and could be captured, but was not",
                    name(due.piece, due.square)
                ),
                adjustable: true,
            })
        }
    }

    /// 4.4a–c. Returns the king's and castling rooks' squares (4.3 findings about them give
    /// way to these).
    fn castling(&self, out: &mut Vec<Finding>) -> Bitboard {
        let Some(king) = self.pos.board().king_of(self.mover) else {
            return Bitboard::EMPTY;
        };
        let mut squares = Bitboard::from(king);
        let r = self.reading;
        let king_moves = self.legal.iter().any(|m| m.from() == Some(king));
        let king_moved = movers(&self.mv).contains(king);
        // The side whose rook was touched first decides; a rook touched later is part of
        // whatever was played next.
        let mut sides: Vec<(CastlingSide, Square)> =
            [CastlingSide::KingSide, CastlingSide::QueenSide]
                .into_iter()
                .filter_map(|side| Some((side, self.pos.castles().rook(self.mover, side)?)))
                .collect();
        sides.sort_by_key(|&(_, rook)| r.touch_at(rook).map(|t| t.t));
        sides.sort_by_key(|&(_, rook)| r.touch_at(rook).is_none());
        let mut decided = false;
        for (side, rook) in sides {
            squares.add(rook);
            if decided {
                continue;
            }
            let castle = Move::Castle { king, rook };
            let legal = self.legal.contains(&castle);
            let castled = self.mv == castle;
            let (tk, tr) = (r.touch_at(king), r.touch_at(rook));
            let king_to = Square::from_coords(side.king_to_file(), king.rank());
            // The king put down on its castling square when no ordinary king move goes there.
            let king_tried = king_to != king
                && !self
                    .legal
                    .iter()
                    .any(|m| !m.is_castle() && m.from() == Some(king) && m.to() == king_to)
                && r.placements
                    .iter()
                    .any(|p| p.origin == Some(king) && p.square == king_to);
            let rook_first =
                matches!((tk, tr), (Some(k), Some(r)) if r.t + self.margins.order <= k.t);
            decided = tk.is_some() && (tr.is_some() || king_tried);
            if rook_first {
                if castled {
                    out.push(Finding {
                        rule: Rule::RookThenKing,
                        square: Some(rook),
                        due: Due::NoCastling(side, rook),
                        seen: format!(
                            "the rook on {rook} was lifted before the king, then the player \
                             castled on the {}",
                            side_name(side)
                        ),
                        adjustable: false,
                    });
                }
                continue;
            }
            let both = tk.is_some() && tr.is_some();
            // 4.4c needs the intention to castle: the rook lifted while the king was in hand
            // (or within the order margin), or the king put on its castling square.
            let together = match (tk, tr) {
                (Some(k), Some(rt)) => {
                    let king_down = r
                        .placements
                        .iter()
                        .find(|p| p.origin == Some(king) && p.t >= k.t)
                        .map(|p| p.t);
                    king_down.is_none_or(|d| rt.t < d) || rt.t < k.t + self.margins.order
                }
                _ => false,
            };
            if both && legal && !castled {
                out.push(Finding {
                    rule: Rule::KingAndRook,
                    square: Some(rook),
                    due: Due::Castle(side),
                    seen: format!(
                        "the king on {king} and the rook on {rook} were lifted, castling on the \
                         {} was legal, and the player did not castle there",
                        side_name(side)
                    ),
                    adjustable: true,
                });
            } else if (together || king_tried) && !legal && !king_moved && king_moves {
                out.push(Finding {
                    rule: Rule::IllegalCastling,
                    square: Some(king),
                    due: Due::KingMove(king),
                    seen: format!(
                        "castling on the {} was attempted and is illegal, so another king move \
                         was due, but another piece moved",
                        side_name(side)
                    ),
                    adjustable: false,
                });
            }
        }
        squares
    }

    /// 4.4d: the first piece put on the promotion square is the one chosen.
    fn promotion(&self) -> Option<Finding> {
        let Move::Normal {
            to,
            promotion: Some(role),
            ..
        } = self.mv
        else {
            return None;
        };
        let first = self.reading.placements.iter().find(|p| {
            p.square == to && p.piece.color == self.mover && p.piece.role != Role::Pawn
        })?;
        if first.piece.role == role {
            return None;
        }
        Some(Finding {
            rule: Rule::PromotedPieceFixed,
            square: Some(to),
            due: Due::PromoteTo(first.piece.role),
            seen: format!(
                "a {} was put on {to} first, then replaced by a {}",
                role_name(first.piece.role),
                role_name(role)
            ),
            adjustable: false,
        })
    }

    /// 4.7 (2014: 4.6): a piece released on a square as (part of) a legal move, then carried
    /// on to another square.
    fn released(&self) -> Vec<Finding> {
        let mut out = Vec::new();
        for rest in &self.reading.rests {
            let Some(next) = rest.next else { continue };
            let held = rest.lifted.saturating_since(rest.placed);
            // A piece that goes on along the same line, the same way, looks like a slide
            // that paused: it must rest twice as long to count as released.
            let slide = shakmaty::attacks::between(rest.origin, next).contains(rest.square);
            let needed = if slide {
                self.margins.release * 2
            } else {
                self.margins.release
            };
            if next == rest.square || rest.square == rest.origin || held < needed {
                continue;
            }
            // The ply itself ends there: whoever took the piece on from its destination
            // did so after the move (the opponent lifting it to capture, say).
            if lands(&self.mv, rest.origin) == Some(rest.square) {
                continue;
            }
            if rest.piece.color != self.mover {
                continue;
            }
            let legal = self
                .legal
                .iter()
                .any(|m| lands(m, rest.origin) == Some(rest.square));
            if !legal {
                continue;
            }
            let Some(piece) = self.pos.board().piece_at(rest.origin) else {
                continue;
            };
            if out.iter().any(|f: &Finding| f.square == Some(rest.square)) {
                continue;
            }
            out.push(Finding {
                rule: Rule::ReleasedMovedOn,
                square: Some(rest.square),
                due: Due::Nothing,
                seen: format!(
                    "{} was put down on {} (a legal move) and left there {:.1} s, then moved on \
                     to {next}",
                    name(piece, rest.origin),
                    rest.square,
                    held.as_secs_f64()
                ),
                adjustable: false,
            });
        }
        out
    }
}
