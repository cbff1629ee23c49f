//! Explaining the sensed board: the short sequences of legal moves that account for it.
//!
//! From the confirmed position and the sensed board, this module finds every sequence of up
//! to [`MAX_PLIES`] legal moves whose last move is *under way or done* on the board and whose
//! earlier moves are done: each lifted square is a from-square or a captured piece, each
//! placed square a to-square, and a piece resting on the line it slides along is a *transit*.
//! Every sequence gets a cost, the number of squares it cannot account for; the caller keeps
//! the cheapest. It is pure bitboard arithmetic on [`shakmaty::Board`]s: it knows nothing of
//! time, release, events, IO or protocols.

use std::cell::OnceCell;
use std::time::Duration;

use shakmaty::{
    Bitboard, Board, CastlingSide, Chess, Color, Move, Piece, Position, Role, Square, attacks,
};

use super::game::SquareEvent;
use crate::time::Time;

/// The longest sequence of plies the search will consider (a reconnect or very fast play).
pub const MAX_PLIES: usize = 4;

/// Candidates that leave more squares than this unexplained are not kept (the empty
/// sequence always is).
pub const MAX_COST: u32 = 3;

/// At most this many candidates are kept; the search stops adding beyond it.
const MAX_CANDIDATES: usize = 512;

/// A piece that appears on a square this soon after leaving the one next to it on its line
/// (or before) slid there: a hand that lifts a piece and puts it down takes longer.
pub const SLIDE_STEP: Duration = Duration::from_millis(100);

/// A later ply may seem to start this much before an earlier one (a board reports the
/// squares of one scan in its own order), when the board's sensor lag is not known.
pub const ORDER_SLACK: Duration = Duration::from_millis(400);

/// How much before an earlier ply a later one may seem to start, on a board whose reports
/// may be `sensor_lag` late: that lag, and a little for the line.
pub fn order_slack(sensor_lag: Option<Duration>) -> Duration {
    sensor_lag.map_or(ORDER_SLACK, |lag| lag + Duration::from_millis(20))
}

/// What the sensors reported since the confirmed position, as the search needs it.
#[derive(Clone, Debug)]
pub struct Evidence {
    /// Squares that received a piece.
    pub placed: Bitboard,
    /// When each square last lost the piece it had.
    pub lifted_at: [Option<Time>; 64],
    /// When each square first lost the piece it had.
    pub first_lifted_at: [Option<Time>; 64],
    /// Which pieces were put on each square (bit `color * 6 + role`).
    pub seen: [u16; 64],
    /// When each square last changed.
    pub changed_at: [Option<Time>; 64],
    /// When each square first received a piece.
    pub first_placed_at: [Option<Time>; 64],
    /// Squares whose last change came in a whole-board report: it happened at some time
    /// before (taken as the earliest) and nothing of it could be seen as it happened.
    pub whole: Bitboard,
    /// Squares whose last lift came in a whole-board report: it happened before that
    /// report, and after anything reported before the board went away, or not.
    pub lift_whole: Bitboard,
    /// When the last whole-board report came.
    pub whole_at: Option<Time>,
    /// Squares with any report (the only ones whose entries are set).
    reported: Bitboard,
}

impl Default for Evidence {
    fn default() -> Self {
        Evidence {
            placed: Bitboard::EMPTY,
            lifted_at: [None; 64],
            first_lifted_at: [None; 64],
            seen: [0; 64],
            changed_at: [None; 64],
            first_placed_at: [None; 64],
            whole: Bitboard::EMPTY,
            lift_whole: Bitboard::EMPTY,
            whole_at: None,
            reported: Bitboard::EMPTY,
        }
    }
}

/// A piece's bit in [`Evidence::seen`].
pub(crate) fn piece_bit(p: Piece) -> u16 {
    1 << (usize::from(p.color.is_black()) * 6 + (p.role as usize - 1))
}

impl Evidence {
    /// The evidence of a log.
    pub fn from_log(log: &[SquareEvent]) -> Evidence {
        let mut e = Evidence::default();
        e.rebuild(log);
        e
    }

    /// Makes this the evidence of `log`, in place.
    pub fn rebuild(&mut self, log: &[SquareEvent]) {
        // Only the squares reported have entries to clear.
        for sq in self.reported {
            let i = sq.to_usize();
            self.lifted_at[i] = None;
            self.first_lifted_at[i] = None;
            self.seen[i] = 0;
            self.changed_at[i] = None;
            self.first_placed_at[i] = None;
        }
        self.placed = Bitboard::EMPTY;
        self.whole = Bitboard::EMPTY;
        self.lift_whole = Bitboard::EMPTY;
        self.whole_at = None;
        self.reported = Bitboard::EMPTY;
        for ev in log {
            self.add(ev);
        }
    }

    /// Adds one event.
    pub fn add(&mut self, ev: &SquareEvent) {
        let i = ev.square.to_usize();
        let t = if ev.whole { Time::ZERO } else { ev.t };
        self.whole.set(ev.square, ev.whole);
        if ev.whole {
            self.whole_at = self.whole_at.max(Some(ev.t));
        }
        self.changed_at[i] = Some(t);
        self.reported.add(ev.square);
        if ev.before.is_some() {
            self.lifted_at[i] = Some(t);
            self.first_lifted_at[i].get_or_insert(t);
            self.lift_whole.set(ev.square, ev.whole);
        }
        if let Some(p) = ev.after {
            self.placed.add(ev.square);
            self.seen[i] |= piece_bit(p);
            self.first_placed_at[i].get_or_insert(t);
        }
    }

    /// The earliest time a ply that puts pieces on `squares`, which no later ply touches,
    /// can have ended: the first report of a piece on each; unknown if there is none.
    fn earliest_end(&self, squares: Bitboard) -> Option<Time> {
        squares
            .into_iter()
            .filter_map(|sq| self.first_placed_at[sq.to_usize()])
            .max()
    }

    /// The last change on any of these squares.
    fn last_change(&self, squares: Bitboard) -> Option<Time> {
        squares
            .into_iter()
            .filter_map(|sq| self.changed_at[sq.to_usize()])
            .max()
    }

    /// When the move began: the first lift of a moving piece or of the piece it takes.
    /// Lifts that came in a whole-board report are left out (see [`Evidence::lift_whole`]).
    /// A piece the previous ply put down unseen (`unseen`) was lifted unseen too: lifts
    /// seen on its square belong to earlier pieces.
    fn start(&self, e: &Effect, unseen: Bitboard) -> Option<Time> {
        ((e.from | (e.taken & !unseen)) & !self.lift_whole)
            .into_iter()
            .filter_map(|sq| self.lifted_at[sq.to_usize()])
            .min()
    }

    /// The earliest the move can have begun: the first lift of a moving piece or of the
    /// piece it takes (a later ply's piece may pass over this one's square afterwards and
    /// lift there again). As for [`Evidence::start`], lifts on `unseen` do not count.
    fn first_start(&self, e: &Effect, unseen: Bitboard) -> Option<Time> {
        ((e.from | (e.taken & !unseen)) & !self.lift_whole)
            .into_iter()
            .filter_map(|sq| self.first_lifted_at[sq.to_usize()])
            .min()
    }
}

/// What a move does to the board: worked out from the move and the board before it
/// without building the board after it (the search asks for many moves that go nowhere).
#[derive(Clone, Copy, Debug)]
pub struct Effect {
    /// The move.
    pub mv: Move,
    /// Squares the move may lift or change: from, to, a captured pawn's square, and for
    /// castling the king's and rook's squares before and after (even those that keep their
    /// piece in Chess960).
    pub touched: Bitboard,
    /// Squares a moving piece may rest on while it slides (for castling, the king may rest
    /// on the rook's destination and the other way round).
    pub path: Bitboard,
    /// The piece that moves (the king for castling: its rook moves too).
    pub moving: Piece,
    /// Squares the moving pieces leave.
    pub from: Bitboard,
    /// Squares that receive a different piece.
    pub to: Bitboard,
    /// The square of the piece taken, if any.
    pub taken: Bitboard,
    /// The pieces the move puts down, and where (two for castling); every other touched
    /// square is empty after the move.
    puts: [(Square, Piece); 2],
    /// How many of `puts` there are.
    n_puts: u8,
    /// The promotion square and the pawn that may stand there for a while (pawn put on the
    /// last rank, then swapped).
    pub promo_pawn: Option<(Square, Piece)>,
    /// A capture whose square stays occupied: on an occupancy-only board only a placement
    /// seen there shows it happened.
    pub occupied_capture: Option<Square>,
}

impl Effect {
    /// The pieces the move puts down, and where.
    fn puts(&self) -> &[(Square, Piece)] {
        &self.puts[..usize::from(self.n_puts)]
    }

    /// What stands on `sq` after the move, `before` being the board it was played on.
    #[inline]
    pub fn piece_after(&self, before: &Board, sq: Square) -> Option<Piece> {
        if let Some(&(_, p)) = self.puts().iter().find(|(s, _)| *s == sq) {
            Some(p)
        } else if self.touched.contains(sq) {
            None
        } else {
            before.piece_at(sq)
        }
    }

    /// The board after the move, `before` being the board it was played on.
    fn board_after(&self, before: &Board) -> Board {
        let mut after = before.clone();
        for sq in self.touched {
            after.discard_piece_at(sq);
        }
        for &(sq, p) in self.puts() {
            after.set_piece_at(sq, p);
        }
        after
    }

    /// The squares where `sensed` differs from the board after the move, given `d_prev`,
    /// where it differs from the board before (occupancy only, or piece identity too).
    fn differs_after(&self, sensed: &Board, d_prev: Bitboard, identity: bool) -> Bitboard {
        let mut put = Bitboard::EMPTY;
        let mut wrong = Bitboard::EMPTY;
        for &(sq, p) in self.puts() {
            put.add(sq);
            let there = if identity {
                sensed.by_piece(p)
            } else {
                sensed.occupied()
            };
            if !there.contains(sq) {
                wrong.add(sq);
            }
        }
        (d_prev & !self.touched) | (self.touched & !put & sensed.occupied()) | wrong
    }
}

/// How a move as the last of a sequence fits the sensed board.
#[derive(Clone, Copy, Debug)]
pub struct Fit {
    /// Squares the move cannot account for.
    pub unexplained: Bitboard,
    /// The moving piece rests on a square of its path.
    pub transit: bool,
    /// Every square the move touches shows its final content and nothing is in transit.
    pub complete: bool,
    /// Something of this move is visible on the board.
    pub started: bool,
    /// See [`Candidate::vanished`].
    pub vanished: u8,
    /// See [`Candidate::ghosted`].
    pub ghosted: u8,
    /// The squares where the sensed board differs from the board after the move.
    pub differs_after: Bitboard,
}

/// One explanation of the sensed board.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    moves: [Option<Move>; MAX_PLIES],
    /// Number of plies (0: the board is the confirmed position, give or take `cost`).
    pub len: u8,
    /// Squares this sequence cannot account for.
    pub unexplained: Bitboard,
    /// How many they are: counted once, asked for often.
    cost: u8,
    /// The last move uses a transit square.
    pub transit: bool,
    /// The last move is complete on the board.
    pub complete: bool,
    /// Unexplained squares that are empty although the piece this sequence puts there was
    /// seen put there: a sensor that lost a piece rather than a move that did not happen.
    pub vanished: u8,
    /// Squares tolerated as stale sensors (ghosts) that this sequence leaves different from
    /// the board: of two explanations otherwise alike, the one that accounts for more of
    /// them is the better.
    pub ghosted: u8,
    /// Pieces this sequence puts down in its earlier plies that the sensors never saw
    /// there (a piece taken again before the board scanned its square): allowed, but an
    /// explanation that needs fewer is the better.
    pub unseen: u8,
    /// Squares the sensors saw a piece put on that no ply of this sequence touches or
    /// slides across: of complete explanations otherwise alike, the one that accounts for
    /// every placement seen is the better.
    pub strays: u8,
}

/// At most this many pieces of a sequence's earlier plies may be unseen.
const MAX_UNSEEN: u8 = 2;

/// The plies of the sequence being searched, deepest last.
struct Prefix {
    moves: [Option<Move>; MAX_PLIES],
    /// For each ply: the squares it puts a piece on, the squares it touches, and the
    /// latest time it can have begun.
    plies: [(Bitboard, Bitboard, Option<Time>); MAX_PLIES],
}

/// Where the search stands in a sequence.
#[derive(Clone, Copy, Debug)]
struct Path {
    /// Plies before this one.
    depth: usize,
    /// When the latest of the earlier plies began, if known.
    prev_start: Option<Time>,
    /// See [`Candidate::unseen`].
    unseen: u8,
    /// How many unseen pieces the search allows.
    max_unseen: u8,
    /// Squares where the previous ply put a piece the sensors never saw: this ply must take
    /// it (only a piece taken at once can escape the board's scan).
    must_take: Bitboard,
    /// Squares the earlier plies touch or slide across.
    covered: Bitboard,
}

impl Prefix {
    /// No ply yet.
    const EMPTY: Prefix = Prefix {
        moves: [None; MAX_PLIES],
        plies: [(Bitboard::EMPTY, Bitboard::EMPTY, None); MAX_PLIES],
    };
}

impl Path {
    /// The first ply, no unseen piece allowed.
    const FIRST: Path = Path {
        depth: 0,
        prev_start: None,
        unseen: 0,
        max_unseen: 0,
        must_take: Bitboard::EMPTY,
        covered: Bitboard::EMPTY,
    };
}

impl Candidate {
    /// The number of squares left unexplained.
    pub fn cost(&self) -> u32 {
        u32::from(self.cost)
    }

    /// The first move, if any.
    pub fn first(&self) -> Option<Move> {
        self.moves[0]
    }

    /// The squares the plies after the first may touch or slide across, `turn` being the
    /// side to play the first.
    pub fn later_reach(&self, turn: Color) -> Bitboard {
        self.reach_from(1, turn)
    }

    /// The squares every ply may touch or slide across, `turn` being the side to play the
    /// first.
    pub fn reach(&self, turn: Color) -> Bitboard {
        self.reach_from(0, turn)
    }

    /// The squares the plies from the `first`-th on (counted from 0) may touch or slide
    /// across, `turn` being the side to play the first ply of the sequence.
    fn reach_from(&self, first: usize, turn: Color) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        let mut side = turn;
        for (k, m) in self.moves().enumerate() {
            if k >= first {
                let (touched, path) = reach(m, side);
                out |= touched | path;
            }
            side = !side;
        }
        out
    }

    /// The moves in order.
    pub fn moves(&self) -> impl Iterator<Item = Move> + Clone + '_ {
        self.moves[..usize::from(self.len)]
            .iter()
            .flatten()
            .copied()
    }
}

/// Squares whose content differs between two boards: occupancy only, or piece identity too.
pub fn diff(a: &Board, b: &Board, identity: bool) -> Bitboard {
    let occ = a.occupied() ^ b.occupied();
    if !identity {
        return occ;
    }
    occ | (a.white() ^ b.white())
        | (a.pawns() ^ b.pawns())
        | (a.knights() ^ b.knights())
        | (a.bishops() ^ b.bishops())
        | (a.rooks() ^ b.rooks())
        | (a.queens() ^ b.queens())
        | (a.kings() ^ b.kings())
}

fn castle_squares(king: Square, rook: Square, color: Color) -> (Square, Square) {
    let side = CastlingSide::from_king_side(king < rook);
    (side.king_to(color), side.rook_to(color))
}

/// The number of squares in `b`: one step a square, which is quicker than a population count
/// done without the CPU instruction for the few squares a move's evidence has.
#[inline]
fn few(b: Bitboard) -> u32 {
    let mut x = u64::from(b);
    let mut n = 0;
    while x != 0 {
        x &= x - 1;
        n += 1;
    }
    n
}

/// The squares `mv` touches, and those it may slide across, cheaply (no board is built).
#[inline]
pub(crate) fn reach(mv: Move, turn: Color) -> (Bitboard, Bitboard) {
    match mv {
        Move::Normal { from, to, .. } => (
            Bitboard::from(from) | Bitboard::from(to),
            attacks::between(from, to),
        ),
        Move::EnPassant { from, to } => (
            Bitboard::from(from)
                | Bitboard::from(to)
                | Bitboard::from(Square::from_coords(to.file(), from.rank())),
            Bitboard::EMPTY,
        ),
        Move::Castle { king, rook } => {
            let (kt, rt) = castle_squares(king, rook, turn);
            (
                Bitboard::from(king)
                    | Bitboard::from(rook)
                    | Bitboard::from(kt)
                    | Bitboard::from(rt),
                attacks::between(king, kt) | attacks::between(rook, rt),
            )
        }
        Move::Put { to, .. } => (Bitboard::from(to), Bitboard::EMPTY),
    }
}

/// Whether `mv` can have started on the sensed board: it touches a square that `differs`,
/// or a piece rests on a square of its path that differs (`resting`: the differing squares
/// that are occupied). If so, the squares it touches.
#[inline]
fn may_start(mv: Move, turn: Color, differs: Bitboard, resting: Bitboard) -> Option<Bitboard> {
    let (touched, started) = match mv {
        // Most moves: the path is looked up only when some piece rests off its square.
        Move::Normal { from, to, .. } => {
            let touched = Bitboard::from(from) | Bitboard::from(to);
            let started = (touched & differs).any()
                || (resting.any() && (attacks::between(from, to) & resting).any());
            (touched, started)
        }
        _ => {
            let (touched, path) = reach(mv, turn);
            (touched, (touched & differs).any() || (path & resting).any())
        }
    };
    started.then_some(touched)
}

/// What `mv`, played by `turn` on `before`, does to the board.
#[inline]
pub fn effect(before: &Board, mv: Move, turn: Color) -> Effect {
    let pawn = Piece {
        color: turn,
        role: Role::Pawn,
    };
    match mv {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            let slides = matches!(role, Role::Bishop | Role::Rook | Role::Queen)
                || (role == Role::Pawn && u32::from(from).abs_diff(u32::from(to)) == 16);
            let placed = Piece {
                color: turn,
                role: promotion.unwrap_or(role),
            };
            Effect {
                mv,
                touched: Bitboard::from(from) | Bitboard::from(to),
                path: if slides {
                    attacks::between(from, to)
                } else {
                    Bitboard::EMPTY
                },
                moving: Piece { color: turn, role },
                from: Bitboard::from(from),
                to: Bitboard::from(to),
                taken: if capture.is_some() {
                    Bitboard::from(to)
                } else {
                    Bitboard::EMPTY
                },
                puts: [(to, placed); 2],
                n_puts: 1,
                promo_pawn: promotion.map(|_| (to, pawn)),
                occupied_capture: capture.map(|_| to),
            }
        }
        Move::EnPassant { from, to } => {
            let taken = Square::from_coords(to.file(), from.rank());
            Effect {
                mv,
                touched: Bitboard::from(from) | Bitboard::from(to) | Bitboard::from(taken),
                path: Bitboard::EMPTY,
                moving: pawn,
                from: Bitboard::from(from),
                to: Bitboard::from(to),
                taken: Bitboard::from(taken),
                puts: [(to, pawn); 2],
                n_puts: 1,
                promo_pawn: None,
                occupied_capture: None,
            }
        }
        Move::Castle { king, rook } => {
            let (king_to, rook_to) = castle_squares(king, rook, turn);
            let puts = [(king_to, turn.king()), (rook_to, turn.rook())];
            let to = puts
                .iter()
                .filter(|&&(sq, p)| before.piece_at(sq) != Some(p))
                .fold(Bitboard::EMPTY, |acc, &(sq, _)| acc | Bitboard::from(sq));
            Effect {
                mv,
                touched: Bitboard::from(king)
                    | Bitboard::from(rook)
                    | Bitboard::from(king_to)
                    | Bitboard::from(rook_to),
                path: attacks::between(king, king_to) | attacks::between(rook, rook_to),
                moving: turn.king(),
                from: Bitboard::from(king) | Bitboard::from(rook),
                to,
                taken: Bitboard::EMPTY,
                puts,
                n_puts: 2,
                promo_pawn: None,
                occupied_capture: None,
            }
        }
        Move::Put { role, to } => {
            // Not a chess move; kept total for completeness.
            let placed = Piece { color: turn, role };
            Effect {
                mv,
                touched: Bitboard::from(to),
                path: Bitboard::EMPTY,
                moving: placed,
                from: Bitboard::EMPTY,
                to: Bitboard::from(to),
                taken: Bitboard::EMPTY,
                puts: [(to, placed); 2],
                n_puts: 1,
                promo_pawn: None,
                occupied_capture: None,
            }
        }
    }
}

/// What the search needs to know besides the positions.
#[derive(Clone, Copy, Debug)]
pub struct Sight<'a> {
    /// The sensed board.
    pub sensed: &'a Board,
    /// Whether the board reports which piece stands where (else occupancy only).
    pub identity: bool,
    /// Squares whose sensed content is stale and may be anything outside a move's squares.
    pub ghost: Bitboard,
    /// What the sensors reported since the confirmed position.
    pub evidence: &'a Evidence,
    /// The role an occupancy-only board promotes to.
    pub promotion_default: Role,
    /// How much before an earlier ply a later one may seem to start ([`order_slack`]).
    pub order_slack: Duration,
}

impl Sight<'_> {
    /// How `e`, played on `before`, fits the sensed board as the last move of a sequence.
    /// `d_prev`: the squares where the sensed board differs from `before`.
    #[inline]
    pub fn fit(&self, before: &Board, d_prev: Bitboard, e: &Effect) -> Fit {
        let s = self.sensed;
        let d_next = e.differs_after(s, d_prev, self.identity);
        let outside = d_prev & !e.touched & !self.ghost;
        let movers_on_board = if self.identity {
            let mut b = s.by_piece(e.moving);
            if let Move::Castle { .. } = e.mv {
                b |= s.by_piece(e.moving.color.rook());
            }
            b
        } else {
            s.occupied()
        };
        let transit = d_prev & d_next & e.path & movers_on_board & !before.occupied();
        let outside = outside & !transit;
        let mut inside_bad = e.touched & d_prev & d_next & s.occupied() & !transit;
        if let Some((sq, pawn)) = e.promo_pawn
            && self.identity
            && s.piece_at(sq) == Some(pawn)
        {
            inside_bad.discard(sq);
        }
        let mut complete = (d_next & e.touched).is_empty() && transit.is_empty();
        if let Some(sq) = e.occupied_capture
            && !self.identity
            && !self.evidence.placed.contains(sq)
        {
            complete = false;
        }
        let unexplained = outside | inside_bad;
        let mut vanished = 0;
        for sq in unexplained & !s.occupied() {
            if let Some(p) = e.piece_after(before, sq) {
                let bit = if self.identity {
                    piece_bit(p)
                } else {
                    u16::MAX
                };
                if self.evidence.seen[sq.to_usize()] & bit != 0 {
                    vanished += 1;
                }
            }
        }
        Fit {
            unexplained,
            transit: transit.any(),
            complete,
            started: (d_prev & e.touched).any() || transit.any(),
            vanished,
            ghosted: few(d_next & self.ghost) as u8,
            differs_after: d_next,
        }
    }

    /// The squares where `e` puts down a piece that was never seen there (none for a move
    /// made while the board was away: its squares came in a whole-board report).
    fn unseen(&self, e: &Effect) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        let start = e.from | e.taken;
        if start.any() && start.is_subset(self.evidence.whole) {
            return out;
        }
        for &(sq, p) in e.puts() {
            if !e.to.contains(sq) {
                continue;
            }
            let seen = if self.identity {
                self.evidence.seen[sq.to_usize()] & piece_bit(p) != 0
            } else {
                self.evidence.placed.contains(sq)
            };
            if !seen {
                out.add(sq);
            }
        }
        out
    }

    fn wanted(&self, mv: &Move) -> bool {
        self.identity
            || match mv.promotion() {
                None => true,
                Some(r) => r == self.promotion_default,
            }
    }
}

/// The legal moves of one position with the squares each may touch, kept while that
/// position is the base; the positions after its moves are built the first time the search
/// goes through them, and kept as long as this one.
#[derive(Clone, Debug)]
pub struct BaseMoves {
    /// The position.
    pub pos: Chess,
    /// Each legal move (kept at its length: a base is moved on every confirmed ply).
    pub moves: Vec<Move>,
    /// The position after each move, once needed.
    next: Lazy<Box<BaseMoves>>,
}

/// One value per move, each worked out the first time it is asked for (the slots too).
#[derive(Clone, Debug)]
struct Lazy<T>(OnceCell<Box<[OnceCell<T>]>>);

impl<T> Default for Lazy<T> {
    fn default() -> Self {
        Lazy(OnceCell::new())
    }
}

impl<T> Lazy<T> {
    fn get_or_init(&self, index: usize, len: usize, make: impl FnOnce() -> T) -> Option<&T> {
        let slots = self
            .0
            .get_or_init(|| (0..len).map(|_| OnceCell::new()).collect());
        Some(slots.get(index)?.get_or_init(make))
    }

    fn into_inner(self, index: usize) -> Option<T> {
        self.0
            .into_inner()?
            .into_vec()
            .into_iter()
            .nth(index)?
            .into_inner()
    }
}

impl BaseMoves {
    /// Precomputes the legal moves of `pos`.
    pub fn new(pos: Chess) -> BaseMoves {
        let moves: Vec<Move> = pos.legal_moves().to_vec();
        BaseMoves {
            pos,
            moves,
            next: Lazy::default(),
        }
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.pos.turn()
    }

    /// When the first move of `c` (a candidate of this base) might still have its piece
    /// moving on to a further square of its line (it rests where a longer move of the same
    /// piece passes): the last change on that move's squares. Its release is then proved
    /// only by the piece staying put. Asked by the decision, for the few candidates it
    /// weighs, rather than worked out for every candidate found.
    pub fn first_moves_on(&self, c: &Candidate, evidence: &Evidence) -> Option<Time> {
        c.first().and_then(|m| self.moving_on_since(m, evidence))
    }

    /// Whether the first move of `c` brought its piece where it rests (its destination or a
    /// square on the way) by sliding: it was seen on a square of the line behind,
    /// or it appeared there within `window` of leaving its origin (a hand that lifts a
    /// piece and puts it down takes longer). A slid piece may rest a while with the hand
    /// still on it, and go on.
    pub fn first_slid(&self, c: &Candidate, evidence: &Evidence, window: Duration) -> bool {
        let Some(Move::Normal { from, to, .. }) = c.first() else {
            return false;
        };
        let placed_last = |sq: Square| {
            let i = sq.to_usize();
            evidence.placed.contains(sq)
                && evidence.changed_at[i].is_some()
                && evidence.changed_at[i] != evidence.lifted_at[i]
        };
        let Some(rest) = (attacks::between(from, to) | Bitboard::from_square(to))
            .into_iter()
            .filter(|&sq| placed_last(sq))
            .max_by_key(|&sq| evidence.changed_at[sq.to_usize()])
        else {
            return false;
        };
        // The squares between are empty before the move: a lift there is the piece's.
        let behind = attacks::between(from, rest);
        if behind
            .into_iter()
            .any(|sq| evidence.lifted_at[sq.to_usize()].is_some())
        {
            return true;
        }
        // Else it left its origin (or a square the board never saw it on) just before.
        let (Some(placed), Some(left)) = (
            evidence.changed_at[rest.to_usize()],
            evidence.lifted_at[from.to_usize()],
        ) else {
            return false;
        };
        placed
            .saturating_since(left)
            .max(left.saturating_since(placed))
            <= window
    }

    /// As [`BaseMoves::first_moves_on`], for a player whose slides may rest on the way: when
    /// the piece of the first move of `c` slid there ([`BaseMoves::first_slid`]), the
    /// opponent's first lift or placement since, if later. The opponent's reach is reported
    /// at once while the end of the rest may be reported a scan late, so the reach proves
    /// the piece released only once the board's sensor lag has passed after it.
    pub fn first_moves_on_resting(
        &self,
        c: &Candidate,
        evidence: &Evidence,
        window: Duration,
    ) -> Option<Time> {
        let m = c.first()?;
        let at = self.moving_on_since(m, evidence)?;
        if !self.first_slid(c, evidence, window) {
            return Some(at);
        }
        let (touched, path) = reach(m, self.pos.turn());
        let reach = (evidence.reported & !(touched | path))
            .into_iter()
            .flat_map(|sq| {
                let i = sq.to_usize();
                [evidence.first_lifted_at[i], evidence.first_placed_at[i]]
            })
            .flatten()
            .filter(|&t| t >= at)
            .min();
        Some(reach.map_or(at, |r| r.max(at)))
    }

    /// When the squares of `mv` last changed, if its piece, put down on its destination,
    /// may be resting there on the way to a further square.
    fn moving_on_since(&self, mv: Move, evidence: &Evidence) -> Option<Time> {
        if !self.moves_on(mv) {
            return None;
        }
        let (touched, path) = reach(mv, self.pos.turn());
        evidence.last_change(touched | path)
    }

    /// Whether the piece of `mv`, put down on its destination, may be resting there on the
    /// way to a further square: a longer move of the same piece passes there.
    fn moves_on(&self, mv: Move) -> bool {
        let Move::Normal {
            role,
            from,
            to,
            capture: None,
            ..
        } = mv
        else {
            return false;
        };
        if role == Role::Knight {
            return false;
        }
        self.passes_from(from).contains(to)
    }

    /// The squares the piece on `from` passes on its longer moves, castling included.
    fn passes_from(&self, from: Square) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for m in &self.moves {
            match *m {
                Move::Normal { from: f, to, .. } if f == from => out |= attacks::between(f, to),
                Move::Castle { king, rook } if king == from || rook == from => {
                    let (touched, path) = reach(*m, self.pos.turn());
                    out |= path & !touched;
                }
                _ => {}
            }
        }
        out
    }

    /// What one of its moves does.
    pub fn effect(&self, mv: Move) -> Option<Effect> {
        self.moves
            .contains(&mv)
            .then(|| effect(self.pos.board(), mv, self.pos.turn()))
    }

    /// The position after the move at `index`, built once.
    fn after(&self, index: usize) -> Option<&BaseMoves> {
        let m = *self.moves.get(index)?;
        self.next
            .get_or_init(index, self.moves.len(), || {
                let mut pos = self.pos.clone();
                pos.play_unchecked(m);
                Box::new(BaseMoves::new(pos))
            })
            .map(|b| &**b)
    }

    /// Takes the position after `mv` out of this one, if it was built, else builds it.
    pub fn into_after(self, mv: Move) -> BaseMoves {
        let built = self
            .moves
            .iter()
            .position(|m| *m == mv)
            .and_then(|i| self.next.into_inner(i));
        match built {
            Some(b) => *b,
            None => {
                let mut pos = self.pos;
                pos.play_unchecked(mv);
                BaseMoves::new(pos)
            }
        }
    }
}

/// Which candidates [`explain`] returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Every one that leaves at most [`MAX_COST`] squares unexplained.
    All,
    /// Only those that leave the fewest squares unexplained.
    Cheapest,
    /// As [`Keep::Cheapest`], for a board that counts only when it shows every ply done
    /// (a history): sequences with a piece nobody saw are looked for unless a complete one
    /// without explains the board.
    Complete,
}

/// Finds the candidates that explain the sensed board from `base`.
///
/// `out` is cleared and filled; the empty sequence is always first when kept.
pub fn explain(
    base: &BaseMoves,
    sight: &Sight<'_>,
    max_plies: usize,
    keep: Keep,
    out: &mut Vec<Candidate>,
) {
    let d0 = no_move(base, sight, out);
    if !(d0.is_empty()
        || max_plies == 0
        || only_lifted(base, sight, d0, out)
        || (keep == Keep::Cheapest && lifted_and_placed(base, sight, d0, out)))
    {
        search_all(base, d0, sight, max_plies, keep == Keep::Complete, out);
    }
    finish(keep, out);
}

/// Drops what `keep` does not keep.
fn finish(keep: Keep, out: &mut Vec<Candidate>) {
    if keep != Keep::All
        && let Some(best) = out.iter().map(Candidate::cost).min()
    {
        out.retain(|c| c.cost() == best);
    }
}

/// Clears `out` and puts the empty sequence in it; returns the squares it leaves unexplained.
fn no_move(base: &BaseMoves, sight: &Sight<'_>, out: &mut Vec<Candidate>) -> Bitboard {
    out.clear();
    let d_all = diff(sight.sensed, base.pos.board(), sight.identity);
    let d0 = d_all & !sight.ghost;
    out.push(Candidate {
        moves: [None; MAX_PLIES],
        len: 0,
        unexplained: d0,
        cost: few(d0) as u8,
        transit: false,
        complete: true,
        vanished: 0,
        ghosted: few(d_all & sight.ghost) as u8,
        unseen: 0,
        strays: 0,
    });
    d0
}

/// Searches every sequence from `base` that explains `d0`, the squares that differ.
fn search_all(
    base: &BaseMoves,
    d0: Bitboard,
    sight: &Sight<'_>,
    max_plies: usize,
    complete: bool,
    out: &mut Vec<Candidate>,
) {
    let mut prefix = Prefix::EMPTY;
    let first = Path::FIRST;
    let max_plies = max_plies.min(MAX_PLIES);
    search(base, d0, sight, &mut prefix, first, max_plies, out);
    // Sequences with a piece nobody saw count only when nothing else explains the board:
    // they are looked for only then (`complete`: when nothing complete does).
    if !out
        .iter()
        .any(|c| c.cost() == 0 && c.len > 0 && (c.complete || !complete))
    {
        out.truncate(1);
        let first = Path {
            max_unseen: MAX_UNSEEN,
            ..first
        };
        search(base, d0, sight, &mut prefix, first, max_plies, out);
    }
    // A piece that went out and came back within the plies searched (a queen a2-a4, a
    // reply, a4-a2) leaves its square as it was: where nothing else explains the board,
    // squares lifted since that hold their piece again may start a ply too.
    if !out.iter().any(|c| c.cost() == 0 && c.len > 0) {
        let back: Bitboard = sight
            .evidence
            .reported
            .into_iter()
            .filter(|sq| sight.evidence.lifted_at[sq.to_usize()].is_some())
            .collect::<Bitboard>()
            & sight.sensed.occupied()
            & !d0
            & !sight.ghost;
        if back.any() {
            out.truncate(1);
            search(base, d0 | back, sight, &mut prefix, first, max_plies, out);
        }
    }
}

/// The candidates of a board on which pieces have only been lifted since the confirmed
/// position (nothing put down anywhere, no square tolerated as a ghost, no whole-board
/// report), found without working out any move's effect: each move that touches a lifted
/// square is under way and none is complete (every move puts a piece where none of its
/// kind stands now), nothing rests on a transit square, and no ply can follow one whose
/// piece was never put down. They are exactly what [`search`] finds there. Returns `false`
/// (and leaves only the empty sequence) when no single move accounts for every lifted
/// square: the full search then looks further.
fn only_lifted(
    base: &BaseMoves,
    sight: &Sight<'_>,
    d0: Bitboard,
    out: &mut Vec<Candidate>,
) -> bool {
    let evidence = sight.evidence;
    if sight.ghost.any()
        || evidence.placed.any()
        || evidence.whole.any()
        || (d0 & sight.sensed.occupied()).any()
    {
        return false;
    }
    let turn = base.pos.turn();
    let mut explained = false;
    for m in &base.moves {
        if !sight.wanted(m) {
            continue;
        }
        let Some(touched) = may_start(*m, turn, d0, Bitboard::EMPTY) else {
            continue;
        };
        let unexplained = d0 & !touched;
        let cost = few(unexplained);
        if cost > MAX_COST {
            continue;
        }
        explained |= cost == 0;
        let mut moves = [None; MAX_PLIES];
        moves[0] = Some(*m);
        out.push(Candidate {
            moves,
            len: 1,
            unexplained,
            cost: cost as u8,
            transit: false,
            complete: false,
            vanished: 0,
            ghosted: 0,
            unseen: 0,
            strays: 0,
        });
    }
    if !explained {
        out.truncate(1);
    }
    explained
}

/// The cheapest candidates of a board on which, since the confirmed position, a piece of
/// the side to play has been lifted and a piece seen put down on one other square (nothing
/// else put down, no square tolerated as a ghost, no whole-board report): a move that
/// leaves nothing unexplained touches the emptied square and touches or slides across the
/// other, so only those moves are tried. No longer sequence leaves nothing unexplained there
/// (a later ply needs a square of its own that differs, or was lifted). Returns `false` (and
/// leaves only the empty sequence) when no such move explains the whole board: the full
/// search then looks further. Only the candidates that leave nothing unexplained are
/// exactly those of the full search, so this serves [`Keep::Cheapest`] only.
fn lifted_and_placed(
    base: &BaseMoves,
    sight: &Sight<'_>,
    d0: Bitboard,
    out: &mut Vec<Candidate>,
) -> bool {
    let evidence = sight.evidence;
    let put = d0 & sight.sensed.occupied();
    let emptied = d0 & !put;
    let turn = base.pos.turn();
    if sight.ghost.any()
        || evidence.whole.any()
        || evidence.placed != put
        || few(put) != 1
        || few(emptied) != 1
        || !emptied.is_subset(base.pos.board().by_color(turn))
    {
        return false;
    }
    let mut prefix = Prefix::EMPTY;
    let first = Path::FIRST;
    for (i, m) in base.moves.iter().enumerate() {
        if !sight.wanted(m) {
            continue;
        }
        // It touches the emptied square and touches or slides across the other; the
        // emptied square held a piece of the side to play, so a move touches it only by
        // leaving from it (or, castling, by moving its king or rook).
        let fits = match *m {
            Move::Normal { from, to, .. } => {
                emptied.contains(from)
                    && (put.contains(to) || (attacks::between(from, to) & put).any())
            }
            _ => {
                let (touched, path) = reach(*m, turn);
                emptied.is_subset(touched) && put.is_subset(touched | path)
            }
        };
        if !fits {
            continue;
        }
        let e = effect(base.pos.board(), *m, turn);
        step(base, i, &e, (d0, d0), sight, &mut prefix, first, 1, out);
    }
    if out.iter().any(|c| c.cost() == 0 && c.len > 0) {
        true
    } else {
        out.truncate(1);
        false
    }
}

/// Tries every move of `base` that may have started on the board as the next ply.
fn search(
    base: &BaseMoves,
    d_before: Bitboard,
    sight: &Sight<'_>,
    prefix: &mut Prefix,
    path: Path,
    max_plies: usize,
    out: &mut Vec<Candidate>,
) {
    let d_full = diff(sight.sensed, base.pos.board(), sight.identity);
    let turn = base.pos.turn();
    let resting = d_before & sight.sensed.occupied();
    for (i, m) in base.moves.iter().enumerate() {
        if out.len() >= MAX_CANDIDATES {
            return;
        }
        if !sight.wanted(m) {
            continue;
        }
        let Some(touched) = may_start(*m, turn, d_before, resting) else {
            continue;
        };
        if !path.must_take.is_subset(touched) {
            continue;
        }
        let e = effect(base.pos.board(), *m, turn);
        step(
            base,
            i,
            &e,
            (d_before, d_full),
            sight,
            prefix,
            path,
            max_plies,
            out,
        );
    }
}

/// Whether a piece `e` put down on `squares` can have been taken at once: a piece of the
/// other side attacks it (or, for a pawn's double step, could take it en passant).
fn may_be_taken(e: &Effect, before: &Board, squares: Bitboard, differs: Bitboard) -> bool {
    let board = &e.board_after(before);
    squares.into_iter().all(|sq| {
        let Some(piece) = board.piece_at(sq) else {
            return false;
        };
        let takers = !piece.color;
        let mut attackers = board.attacks_to(sq, takers, board.occupied());
        if let Move::Normal {
            role: Role::Pawn,
            from,
            ..
        } = e.mv
            && from.distance(sq) == 2
            && let Some(passed) = Square::try_from((u32::from(from) + u32::from(sq)) / 2).ok()
        {
            attackers |=
                attacks::pawn_attacks(piece.color, passed) & board.pawns() & board.by_color(takers);
        }
        // The taker may not have been reported lifted yet (a DGT board scans in its own
        // order), so any taker will do once the square shows something else.
        attackers.any() && (differs.contains(sq) || (attackers & differs).any())
    })
}

/// Whether every ply of a sequence can have ended before the later ones began: a ply's
/// pieces are put down before the opponent reaches out, and a report is at most the
/// board's sensor lag late. Only squares no later ply touches are judged, where the first
/// piece reported is the earliest this ply can have put its own down.
fn ends_in_turn(plies: &[(Bitboard, Bitboard, Option<Time>)], sight: &Sight<'_>) -> bool {
    let mut later_touched = Bitboard::EMPTY;
    let mut later_start: Option<Time> = None;
    // Whether a later ply began before the last whole-board report (a change of its came
    // in it, and nothing of it since).
    let mut later_in_report = false;
    for &(to, touched, start) in plies.iter().rev() {
        let end = sight.evidence.earliest_end(to & !later_touched);
        if let Some(ls) = later_start
            && let Some(end) = end
            && end > ls + sight.order_slack
        {
            return false;
        }
        // A whole-board report is one picture: a piece reported put down after it was put
        // down after every change it shows, with no slack for the order of a scan.
        if later_in_report
            && let (Some(end), Some(w)) = (end, sight.evidence.whole_at)
            && end > w
        {
            return false;
        }
        later_in_report |= start.is_none() && (touched & sight.evidence.whole).any();
        later_touched |= touched;
        later_start = match (later_start, start) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
    true
}

/// Takes `e`, the move at `index` of `base`, as the ply at `path.depth`.
#[allow(clippy::too_many_arguments)]
fn step(
    base: &BaseMoves,
    index: usize,
    e: &Effect,
    (d_before, d_full): (Bitboard, Bitboard),
    sight: &Sight<'_>,
    prefix: &mut Prefix,
    path: Path,
    max_plies: usize,
    out: &mut Vec<Candidate>,
) {
    // A move that touches nothing that differs cannot be part of the explanation.
    if ((e.touched | e.path) & d_before).is_empty() {
        return;
    }
    let Path {
        depth, prev_start, ..
    } = path;
    // A piece the previous ply put down unseen must be taken by this one.
    if !path.must_take.is_subset(e.taken) {
        return;
    }
    // Plies start in turn: a piece lifted well before the previous ply began is not the
    // next ply. A lift in a whole-board report came before that report: before a ply begun
    // after it, but at any time since the last report before the board went away.
    let start = sight.evidence.start(e, path.must_take);
    if let Some(p) = prev_start {
        if start.is_some_and(|s| s + sight.order_slack < p) {
            return;
        }
        let whole_lift = ((e.from | e.taken) & sight.evidence.lift_whole).any();
        if whole_lift && sight.evidence.whole_at.is_some_and(|w| p >= w) {
            return;
        }
    }
    prefix.moves[depth] = Some(e.mv);
    // The latest time the ply can have begun: unknown if a lift came in a whole-board report.
    let latest_start =
        start.filter(|_| ((e.from | e.taken) & sight.evidence.lift_whole).is_empty());
    prefix.plies[depth] = (e.to, e.touched, latest_start);
    let fit = sight.fit(base.pos.board(), d_full, e);
    let covered = path.covered | e.touched | e.path;
    let cost = few(fit.unexplained);
    if fit.started
        && cost <= MAX_COST
        && (depth == 0 || ends_in_turn(&prefix.plies[..=depth], sight))
    {
        out.push(Candidate {
            moves: prefix.moves,
            len: (depth + 1) as u8,
            unexplained: fit.unexplained,
            cost: cost as u8,
            transit: fit.transit,
            complete: fit.complete,
            vanished: fit.vanished,
            ghosted: fit.ghosted,
            unseen: path.unseen,
            strays: few(sight.evidence.placed & !covered & !sight.ghost) as u8,
        });
    }
    // Go deeper only if this move is plainly done: its piece has left (its square differs,
    // or was seen emptied: a later ply may have put another piece there) and what it puts
    // down was seen there (all but a few pieces taken again before the board saw them).
    let not_seen = sight.unseen(e);
    let unseen = path.unseen + few(not_seen) as u8;
    let left = e
        .from
        .into_iter()
        .any(|sq| d_before.contains(sq) || sight.evidence.lifted_at[sq.to_usize()].is_some());
    if depth + 1 < max_plies && left && unseen <= path.max_unseen {
        let d_after = fit.differs_after & !sight.ghost;
        if not_seen.any() && !may_be_taken(e, base.pos.board(), not_seen, d_after) {
            prefix.moves[depth] = None;
            return;
        }
        let remaining = (max_plies - depth - 1) as u32;
        if d_after.any()
            && few(d_after) <= 4 * remaining + MAX_COST
            && let Some(next) = base.after(index)
        {
            let deeper = Path {
                depth: depth + 1,
                // Each ply starts after every earlier one did: keep the latest start,
                // counted from this ply's first lift.
                prev_start: sight
                    .evidence
                    .first_start(e, path.must_take)
                    .max(prev_start),
                unseen,
                max_unseen: path.max_unseen,
                must_take: not_seen,
                covered,
            };
            search(next, d_after, sight, prefix, deeper, max_plies, out);
        }
    }
    prefix.moves[depth] = None;
}

/// Whether `c`'s first ply is a capture whose victim was lifted off before the capturing
/// piece left its square (`evidence`: the reports since `c`'s base): a capture begun by
/// taking the victim off first.
pub fn capture_begun_with_victim(c: &Candidate, evidence: &Evidence) -> bool {
    let Some(Move::Normal {
        from,
        to,
        capture: Some(_),
        ..
    }) = c.first()
    else {
        return false;
    };
    match (
        evidence.first_lifted_at[to.to_usize()],
        evidence.first_lifted_at[from.to_usize()],
    ) {
        (Some(victim), Some(mover)) => victim < mover,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Chess;

    fn sight<'a>(board: &'a Board, evidence: &'a Evidence) -> Sight<'a> {
        Sight {
            sensed: board,
            identity: true,
            ghost: Bitboard::EMPTY,
            evidence,
            promotion_default: Role::Queen,
            order_slack: ORDER_SLACK,
        }
    }

    #[test]
    fn a_lifted_pawn_is_explained_by_its_moves() {
        let base = BaseMoves::new(Chess::default());
        let mut b = Board::new();
        b.discard_piece_at(Square::E2);
        let mut out = Vec::new();
        explain(
            &base,
            &sight(&b, &Evidence::default()),
            4,
            Keep::All,
            &mut out,
        );
        let zero: Vec<_> = out.iter().filter(|c| c.cost() == 0).collect();
        assert_eq!(zero.len(), 2);
        assert!(zero.iter().all(|c| !c.complete && c.len == 1));
    }

    /// The positions of a game of varied moves, from the start.
    fn positions(plies: usize) -> Vec<Chess> {
        let mut pos = Chess::default();
        let mut out = vec![pos.clone()];
        for ply in 0..plies.saturating_sub(1) {
            let moves = pos.legal_moves();
            let Some(&m) = moves.get((ply * 7 + 3) % moves.len().max(1)) else {
                break;
            };
            pos.play_unchecked(m);
            out.push(pos.clone());
        }
        out
    }

    fn event(ms: u64, square: Square, before: Option<Piece>, after: Option<Piece>) -> SquareEvent {
        SquareEvent {
            t: Time::from_millis(ms),
            square,
            before,
            after,
            whole: false,
        }
    }

    /// A quick way the search takes on some boards (it returns whether it answered).
    type Quick = fn(&BaseMoves, &Sight<'_>, Bitboard, &mut Vec<Candidate>) -> bool;

    /// Explains `sensed`, reported by `log` since the base, on a board with piece identity
    /// and on one without: through [`explain`], and through the full search alone. Asserts
    /// that both keep the same candidates; returns on how many of the two `quick` answered.
    fn same_as_full_search(
        base: &BaseMoves,
        sensed: &Board,
        log: &[SquareEvent],
        keep: Keep,
        quick: Quick,
        what: &str,
    ) -> usize {
        let evidence = Evidence::from_log(log);
        let mut answered = 0;
        for identity in [true, false] {
            let sight = Sight {
                identity,
                ..sight(sensed, &evidence)
            };
            let (mut fast, mut full) = (Vec::new(), Vec::new());
            explain(base, &sight, 4, keep, &mut fast);
            let d0 = no_move(base, &sight, &mut full);
            if d0.any() {
                search_all(base, d0, &sight, 4, false, &mut full);
            }
            finish(keep, &mut full);
            assert_eq!(fast, full, "{what}, identity {identity}");
            let mut probe = Vec::new();
            no_move(base, &sight, &mut probe);
            answered += usize::from(quick(base, &sight, d0, &mut probe));
        }
        answered
    }

    /// Every board with one or two pieces lifted (nothing put down) in the positions of a
    /// game, at several times: the candidates found without working out effects are the
    /// ones the full search finds.
    #[test]
    fn lifted_pieces_are_explained_as_the_full_search_explains_them() {
        let (mut checked, mut quick) = (0, 0);
        for (ply, pos) in positions(40).iter().enumerate() {
            let base = BaseMoves::new(pos.clone());
            let occupied: Vec<Square> = pos.board().occupied().into_iter().collect();
            for (k, &a) in occupied.iter().enumerate() {
                for &b in &occupied[k..] {
                    let mut sensed = pos.board().clone();
                    let mut log = Vec::new();
                    for (i, sq) in [a, b].into_iter().enumerate() {
                        if let Some(p) = sensed.remove_piece_at(sq)
                            && (i == 0 || a != b)
                        {
                            log.push(event(1_000 + 150 * i as u64, sq, Some(p), None));
                        }
                    }
                    let what = format!("ply {ply}, {a} and {b} lifted");
                    quick +=
                        same_as_full_search(&base, &sensed, &log, Keep::All, only_lifted, &what);
                    checked += 2;
                }
            }
        }
        assert!(checked > 10_000, "{checked} boards");
        // The boards a move explains take the quick way (a piece lifted, or a capture's two
        // pieces); the others need the longer search.
        assert!(quick > 1_000, "{quick} of {checked} quick");
    }

    /// Every board with one piece lifted and one put down elsewhere (the same piece, or
    /// any promotion piece on the last rank) in the positions of a game, with the lift or
    /// the placement reported first: the cheapest candidates found by trying only the moves
    /// that touch both squares are the ones the full search keeps.
    #[test]
    fn a_lift_and_a_placement_are_explained_as_the_full_search_explains_them() {
        let (mut checked, mut quick) = (0, 0);
        for (ply, pos) in positions(24).iter().enumerate() {
            let base = BaseMoves::new(pos.clone());
            for a in pos.board().occupied() {
                let Some(piece) = pos.board().piece_at(a) else {
                    continue;
                };
                for b in Square::ALL.into_iter().filter(|&b| b != a) {
                    let mut pieces = vec![piece];
                    if piece.role == Role::Pawn && b.rank() == (!piece.color).backrank() {
                        pieces.extend(
                            [Role::Queen, Role::Rook, Role::Bishop, Role::Knight]
                                .map(|role| Piece { role, ..piece }),
                        );
                    }
                    for put in pieces {
                        let mut sensed = pos.board().clone();
                        sensed.discard_piece_at(a);
                        let before = sensed.piece_at(b);
                        sensed.set_piece_at(b, put);
                        // The lift first, or the placement (a board scans in its own order).
                        let (ta, tb) = if (a.to_usize() + b.to_usize()) % 2 == 0 {
                            (1_000, 1_150)
                        } else {
                            (1_150, 1_000)
                        };
                        let mut log = vec![
                            event(ta, a, Some(piece), None),
                            event(tb, b, before, Some(put)),
                        ];
                        log.sort_by_key(|ev| ev.t);
                        let what = format!("ply {ply}, {a} lifted, {put:?} put on {b}");
                        quick += same_as_full_search(
                            &base,
                            &sensed,
                            &log,
                            Keep::Cheapest,
                            lifted_and_placed,
                            &what,
                        );
                        checked += 2;
                    }
                }
            }
        }
        assert!(checked > 50_000, "{checked} boards");
        // A move of the side to play explains a few of them; those take the quick way.
        assert!(quick > 1_000, "{quick} of {checked} quick");
    }

    #[test]
    fn the_start_board_needs_no_move() {
        let base = BaseMoves::new(Chess::default());
        let b = Board::new();
        let mut out = Vec::new();
        explain(
            &base,
            &sight(&b, &Evidence::default()),
            4,
            Keep::All,
            &mut out,
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].len, 0);
        assert_eq!(out[0].cost(), 0);
    }
}
