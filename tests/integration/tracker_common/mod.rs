//! Test helpers for the tracker: scripted square changes, a "hand" that plays a move list
//! the way people do (in several styles), a board scanner model that reports what it sees
//! with a delay and in scan order, a driver that runs a tracker over timed changes, and a
//! small PGN reader.
#![allow(dead_code)]

use std::time::Duration;

use eboardd::event::{GameEvent, TimedEvent};
use eboardd::sensing::SquareChange;
use eboardd::time::Time;
use eboardd::tracker::{Tracker, TrackerConfig};
use shakmaty::{
    Board, CastlingMode, CastlingSide, Chess, Color, Move, Piece, Position, Role, Square, san::San,
    uci::UciMove,
};

/// A square by name.
pub fn sq(name: &str) -> Square {
    name.parse().expect("square name")
}

/// A piece by FEN letter.
pub fn pc(c: char) -> Piece {
    Piece::from_char(c).expect("piece letter")
}

/// Timed square changes, written by hand.
#[derive(Debug, Default, Clone)]
pub struct Script {
    /// The changes.
    pub changes: Vec<(Time, SquareChange)>,
    /// The current time in milliseconds.
    pub ms: f64,
}

impl Script {
    /// An empty script at time 1000 ms.
    pub fn new() -> Script {
        Script {
            changes: Vec::new(),
            ms: 1000.0,
        }
    }
    /// Moves time on by `ms`.
    pub fn wait(mut self, ms: f64) -> Script {
        self.ms += ms;
        self
    }
    /// A square reported empty.
    pub fn lift(mut self, s: &str) -> Script {
        self.changes.push((
            Time::from_ms_f64(self.ms),
            SquareChange {
                square: sq(s),
                piece: None,
            },
        ));
        self
    }
    /// A piece reported on a square.
    pub fn place(mut self, s: &str, p: char) -> Script {
        self.changes.push((
            Time::from_ms_f64(self.ms),
            SquareChange {
                square: sq(s),
                piece: Some(pc(p)),
            },
        ));
        self
    }
}

/// What a run produced.
#[derive(Debug, Default)]
pub struct Run {
    /// Every event in order.
    pub events: Vec<TimedEvent>,
}

impl Run {
    /// The UCI moves of the game as it ends up (after retracts and takebacks).
    pub fn final_uci(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for e in &self.events {
            match &e.event {
                GameEvent::NewGame { .. } => out.clear(),
                GameEvent::Move { uci, .. } => out.push(uci.to_string()),
                GameEvent::Retract { ply, .. } | GameEvent::Takeback { ply } => {
                    let keep = if matches!(e.event, GameEvent::Retract { .. }) {
                        (*ply as usize).saturating_sub(1)
                    } else {
                        *ply as usize
                    };
                    out.truncate(keep);
                }
                _ => {}
            }
        }
        out
    }
    /// The `move` events: (time, ply, uci).
    pub fn moves(&self) -> Vec<(Time, u32, String)> {
        self.events
            .iter()
            .filter_map(|e| match &e.event {
                GameEvent::Move { ply, uci, .. } => Some((e.t, *ply, uci.to_string())),
                _ => None,
            })
            .collect()
    }
    /// How many events of a kind (`retract`, `mismatch`...).
    pub fn count(&self, kind: &str) -> usize {
        self.events
            .iter()
            .filter(|e| e.to_json_line().contains(&format!("\"event\":\"{kind}\"")))
            .count()
    }
    /// Every event as a JSON line.
    pub fn lines(&self) -> String {
        self.events
            .iter()
            .map(|e| e.to_json_line())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Runs `tracker` from a first board report at time 0 over the changes, handling timeouts
/// as a shell would, and for `tail_ms` after the last change.
pub fn run_with(
    tracker: &mut Tracker,
    first: Option<&Board>,
    changes: &[(Time, SquareChange)],
    tail_ms: u64,
) -> Run {
    let mut run = Run::default();
    if let Some(b) = first {
        tracker.handle_board(Time::ZERO, b);
    }
    drain(tracker, &mut run);
    for (t, c) in changes {
        advance(tracker, *t, &mut run);
        tracker.handle_change(*t, *c);
        drain(tracker, &mut run);
    }
    let end = changes.last().map_or(Time::ZERO, |c| c.0) + Duration::from_millis(tail_ms);
    advance(tracker, end, &mut run);
    run
}

/// Handles every timeout due up to `t`.
pub fn advance(tracker: &mut Tracker, t: Time, run: &mut Run) {
    while let Some(due) = tracker.poll_timeout() {
        if due > t {
            break;
        }
        tracker.handle_timeout(due);
        drain(tracker, run);
        if tracker.poll_timeout() == Some(due) {
            break;
        }
    }
}

/// Collects the events.
pub fn drain(tracker: &mut Tracker, run: &mut Run) {
    while let Some(e) = tracker.poll_event() {
        run.events.push(e);
    }
}

/// Runs a script on a standard start with the default configuration.
pub fn run_script(script: &Script) -> Run {
    run_script_with(TrackerConfig::default(), &Board::new(), script)
}

/// Runs a script from a start board with a configuration.
pub fn run_script_with(cfg: TrackerConfig, first: &Board, script: &Script) -> Run {
    let mut t = Tracker::new(cfg);
    run_with(&mut t, Some(first), &script.changes, 5000)
}

/// A tiny deterministic random source.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// Seeded.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// Next value.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform in `lo..hi` (milliseconds).
    pub fn ms(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (self.next() % 10_000) as f64 / 10_000.0 * (hi - lo)
    }
    /// One of `n`.
    pub fn pick(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next() % 10_000) as f64 / 10_000.0 < p
    }
}

/// How the hand plays.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    /// Seed for every choice.
    pub seed: u64,
    /// Slide sliders across their path (else lift and place).
    pub slides: bool,
    /// Probability of a flicker after a placement.
    pub flicker: f64,
    /// Probability that the opponent reaches out very fast (60 ms after the placement).
    pub fast_reply: f64,
    /// Probability of touching (lifting and putting back) an own piece before moving.
    pub adjust: f64,
    /// Physical times are reported by a scanning board (period in ms), else at once.
    pub scan_ms: Option<f64>,
}

impl Style {
    /// A careful player on an instant board.
    pub fn plain(seed: u64) -> Style {
        Style {
            seed,
            slides: false,
            flicker: 0.0,
            fast_reply: 0.0,
            adjust: 0.0,
            scan_ms: None,
        }
    }
    /// Everything people do, on a scanning board.
    pub fn human(seed: u64) -> Style {
        Style {
            seed,
            slides: true,
            flicker: 0.1,
            fast_reply: 0.1,
            adjust: 0.05,
            scan_ms: Some(200.0),
        }
    }
}

/// A game played by the hand: the physical changes, and per move the time of its last
/// physical change.
#[derive(Debug, Clone)]
pub struct Played {
    /// Changes as the board reports them.
    pub changes: Vec<(Time, SquareChange)>,
    /// Per move, the physical time (ms) of its last change.
    pub move_end_ms: Vec<f64>,
    /// The moves in UCI (the game's castling convention).
    pub uci: Vec<String>,
}

struct Phys {
    ms: f64,
    changes: Vec<(f64, Square, Option<Piece>)>,
    board: Board,
}

impl Phys {
    fn set(&mut self, s: Square, p: Option<Piece>) {
        match p {
            Some(p) => self.board.set_piece_at(s, p),
            None => self.board.discard_piece_at(s),
        }
        self.changes.push((self.ms, s, p));
    }
    fn lift(&mut self, s: Square) -> Option<Piece> {
        let p = self.board.piece_at(s);
        self.set(s, None);
        p
    }
    fn step(&mut self, rng: &mut Rng, lo: f64, hi: f64) {
        self.ms += rng.ms(lo, hi);
    }
}

/// Plays `moves` from `start` in `style`; the first report is the start board at time 0.
pub fn play(start: &Chess, moves: &[Move], mode: CastlingMode, style: Style) -> Played {
    let mut rng = Rng::new(style.seed);
    let mut ph = Phys {
        ms: 1000.0,
        changes: Vec::new(),
        board: start.board().clone(),
    };
    let mut pos = start.clone();
    let mut ends = Vec::new();
    let mut uci = Vec::new();
    for (i, &m) in moves.iter().enumerate() {
        let fast = i > 0 && rng.chance(style.fast_reply);
        ph.ms += if fast { 60.0 } else { rng.ms(400.0, 2500.0) };
        if rng.chance(style.adjust) {
            // Touch an own piece that is not the mover and put it back.
            let own = pos.us() & !m.from().map_or(shakmaty::Bitboard::EMPTY, Into::into);
            let list: Vec<Square> = own.into_iter().collect();
            if !list.is_empty() {
                let s = list[rng.pick(list.len())];
                let p = ph.lift(s);
                ph.step(&mut rng, 150.0, 400.0);
                ph.set(s, p);
                ph.step(&mut rng, 200.0, 500.0);
            }
        }
        play_move(&mut ph, &pos, m, style, &mut rng);
        ends.push(ph.ms);
        if rng.chance(style.flicker)
            && let Some((_, s, p)) = ph.changes.last().copied()
            && p.is_some()
        {
            ph.ms += 30.0;
            ph.set(s, None);
            ph.ms += 20.0;
            ph.set(s, p);
            ph.ms -= 50.0;
        }
        uci.push(m.to_uci(mode).to_string());
        pos.play_unchecked(m);
    }
    let changes = match style.scan_ms {
        None => ph
            .changes
            .iter()
            .map(|&(ms, s, p)| {
                (
                    Time::from_ms_f64(ms),
                    SquareChange {
                        square: s,
                        piece: p,
                    },
                )
            })
            .collect(),
        Some(period) => scan(start.board(), &ph.changes, period),
    };
    Played {
        changes,
        move_end_ms: ends,
        uci,
    }
}

fn play_move(ph: &mut Phys, pos: &Chess, m: Move, style: Style, rng: &mut Rng) {
    let turn = pos.turn();
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            let piece = Piece { color: turn, role };
            let how = rng.pick(3);
            if capture.is_some() && how == 0 {
                ph.lift(to); // victim first
                ph.step(rng, 150.0, 500.0);
            }
            ph.lift(from);
            ph.step(rng, 100.0, 400.0);
            let sliding = style.slides
                && matches!(role, Role::Bishop | Role::Rook | Role::Queen)
                && rng.chance(0.5);
            if sliding {
                let mut path: Vec<Square> =
                    shakmaty::attacks::between(from, to).into_iter().collect();
                if to < from {
                    path.reverse();
                }
                for s in path {
                    ph.set(s, Some(piece));
                    ph.step(rng, 40.0, 120.0);
                    ph.set(s, None);
                    ph.step(rng, 5.0, 30.0);
                }
            }
            if capture.is_some() && how == 1 {
                ph.lift(to); // mover in hand, then the victim
                ph.step(rng, 150.0, 400.0);
            }
            match promotion {
                Some(r) => {
                    let new = Piece {
                        color: turn,
                        role: r,
                    };
                    match rng.pick(3) {
                        0 => {
                            // Pawn put on the last rank, then swapped.
                            ph.set(to, Some(piece));
                            ph.step(rng, 200.0, 600.0);
                            ph.set(to, None);
                            ph.step(rng, 300.0, 900.0);
                            ph.set(to, Some(new));
                        }
                        _ => ph.set(to, Some(new)),
                    }
                }
                None => ph.set(to, Some(piece)), // a push-off when the victim is still there
            }
        }
        Move::EnPassant { from, to } => {
            let taken = Square::from_coords(to.file(), from.rank());
            let pawn = Piece {
                color: turn,
                role: Role::Pawn,
            };
            if rng.chance(0.5) {
                ph.lift(taken);
                ph.step(rng, 150.0, 500.0);
                ph.lift(from);
                ph.step(rng, 100.0, 400.0);
                ph.set(to, Some(pawn));
            } else {
                ph.lift(from);
                ph.step(rng, 100.0, 400.0);
                ph.set(to, Some(pawn));
                ph.step(rng, 200.0, 600.0);
                ph.lift(taken);
            }
        }
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(king < rook);
            let (kt, rt) = (side.king_to(turn), side.rook_to(turn));
            let kp = Piece {
                color: turn,
                role: Role::King,
            };
            let rp = Piece {
                color: turn,
                role: Role::Rook,
            };
            match rng.pick(3) {
                0 => {
                    // King first.
                    if kt != king {
                        ph.lift(king);
                        ph.step(rng, 100.0, 400.0);
                        ph.set(kt, Some(kp));
                        ph.step(rng, 200.0, 500.0);
                    }
                    if rt != rook {
                        if ph.board.piece_at(rook) == Some(rp) {
                            ph.lift(rook);
                        }
                        ph.step(rng, 100.0, 400.0);
                        ph.set(rt, Some(rp));
                    }
                }
                1 => {
                    // Rook first.
                    if rt != rook {
                        ph.lift(rook);
                        ph.step(rng, 100.0, 400.0);
                        if rt != king {
                            ph.set(rt, Some(rp));
                            ph.step(rng, 300.0, 550.0);
                        }
                    }
                    if kt != king {
                        if ph.board.piece_at(king) == Some(kp) {
                            ph.lift(king);
                        }
                        ph.step(rng, 100.0, 400.0);
                        ph.set(kt, Some(kp));
                    }
                    if rt == king && rt != rook {
                        ph.step(rng, 100.0, 300.0);
                        ph.set(rt, Some(rp));
                    }
                }
                _ => {
                    // Both up at once.
                    ph.lift(king);
                    ph.step(rng, 20.0, 100.0);
                    ph.lift(rook);
                    ph.step(rng, 200.0, 500.0);
                    ph.set(kt, Some(kp));
                    ph.step(rng, 20.0, 100.0);
                    ph.set(rt, Some(rp));
                }
            }
        }
        Move::Put { .. } => {}
    }
}

/// What a scanning board reports: each square is read once per `period`, at its own phase;
/// a change is reported when the reading differs from the last one reported.
pub fn scan(
    start: &Board,
    phys: &[(f64, Square, Option<Piece>)],
    period: f64,
) -> Vec<(Time, SquareChange)> {
    let mut out = Vec::new();
    let mut reported: [Option<Piece>; 64] = [None; 64];
    let mut actual: [Option<Piece>; 64] = [None; 64];
    for s in Square::ALL {
        reported[s.to_usize()] = start.piece_at(s);
        actual[s.to_usize()] = start.piece_at(s);
    }
    let Some(end) = phys.last().map(|c| c.0 + 2.0 * period) else {
        return out;
    };
    let step = period / 64.0;
    let mut i = 0;
    let mut t = 0.0;
    let mut k = 0usize;
    while t < end {
        // Square read at this instant: a8..h1 in order, like a DGT board.
        let idx = k % 64;
        let s = Square::new((((7 - idx / 8) * 8) + idx % 8) as u32);
        while i < phys.len() && phys[i].0 <= t {
            actual[phys[i].1.to_usize()] = phys[i].2;
            i += 1;
        }
        if actual[s.to_usize()] != reported[s.to_usize()] {
            reported[s.to_usize()] = actual[s.to_usize()];
            out.push((
                Time::from_ms_f64(t),
                SquareChange {
                    square: s,
                    piece: actual[s.to_usize()],
                },
            ));
        }
        k += 1;
        t += step;
    }
    out
}

/// Reads the games of a PGN file: (start position, moves, castling mode), skipping games
/// that do not parse.
pub fn read_pgn(text: &str) -> Vec<(Chess, Vec<Move>, CastlingMode)> {
    let mut games = Vec::new();
    let mut movetext = String::new();
    let mut fen: Option<String> = None;
    let mut in_moves = false;
    let flush = |movetext: &mut String, fen: &mut Option<String>, games: &mut Vec<_>| {
        if movetext.trim().is_empty() {
            return;
        }
        if let Some(g) = parse_game(movetext, fen.as_deref()) {
            games.push(g);
        }
        movetext.clear();
        *fen = None;
    };
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with('[') {
            if in_moves {
                flush(&mut movetext, &mut fen, &mut games);
                in_moves = false;
            }
            if let Some(rest) = l.strip_prefix("[FEN \"") {
                fen = rest.split('"').next().map(str::to_string);
            }
        } else if !l.is_empty() {
            in_moves = true;
            movetext.push_str(l);
            movetext.push(' ');
        }
    }
    flush(&mut movetext, &mut fen, &mut games);
    games
}

fn parse_game(text: &str, fen: Option<&str>) -> Option<(Chess, Vec<Move>, CastlingMode)> {
    let (mut pos, mode) = match fen {
        Some(f) => {
            let setup = f.parse::<shakmaty::fen::Fen>().ok()?.into_setup();
            let mode = CastlingMode::detect(&setup);
            (setup.position::<Chess>(mode).ok()?, mode)
        }
        None => (Chess::default(), CastlingMode::Standard),
    };
    let start = pos.clone();
    let mut clean = String::new();
    let mut depth_brace = 0;
    let mut depth_paren = 0;
    for c in text.chars() {
        match c {
            '{' => depth_brace += 1,
            '}' => depth_brace -= 1,
            '(' if depth_brace == 0 => depth_paren += 1,
            ')' if depth_brace == 0 => depth_paren -= 1,
            _ if depth_brace == 0 && depth_paren == 0 => clean.push(c),
            _ => {}
        }
    }
    let mut moves = Vec::new();
    for tok in clean.split_whitespace() {
        if ["1-0", "0-1", "1/2-1/2", "*"].contains(&tok) {
            continue;
        }
        let tok = tok.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if tok.is_empty() || tok.starts_with('$') || ["1-0", "0-1", "1/2-1/2", "*"].contains(&tok) {
            continue;
        }
        let san: San = tok.trim_end_matches(['+', '#', '!', '?']).parse().ok()?;
        let m = san.to_move(&pos).ok()?;
        pos.play_unchecked(m);
        moves.push(m);
    }
    Some((start, moves, mode))
}

/// The UCI of `moves` from `start`.
pub fn uci_of(moves: &[Move], mode: CastlingMode) -> Vec<String> {
    moves
        .iter()
        .map(|m| UciMove::from_move(*m, mode).to_string())
        .collect()
}

/// Plays UCI strings from `start`.
pub fn moves_of(start: &Chess, ucis: &[&str]) -> Vec<Move> {
    let mut pos = start.clone();
    let mut out = Vec::new();
    for u in ucis {
        let m = u
            .parse::<UciMove>()
            .expect("uci")
            .to_move(&pos)
            .expect("legal");
        pos.play_unchecked(m);
        out.push(m);
    }
    out
}

/// A board from the piece part of a FEN.
pub fn board(fen: &str) -> Board {
    fen.parse().expect("board fen")
}

/// When `uci` was confirmed, in ms (panics with the events if it never was).
pub fn confirm_time(run: &Run, uci: &str) -> f64 {
    run.moves()
        .iter()
        .find(|m| m.2 == uci)
        .map(|m| m.0.as_ms_f64())
        .unwrap_or_else(|| panic!("{uci} not confirmed:\n{}", run.lines()))
}

/// `cfg` starting from `fen`, and the board that position shows.
pub fn set_up(fen: &str, cfg: TrackerConfig) -> (TrackerConfig, Board) {
    let cfg = TrackerConfig {
        start_fen: Some(fen.to_string()),
        ..cfg
    };
    (cfg, board(fen.split(' ').next().expect("placement")))
}

/// 1. e4 e5 2. Nf3 Nc6, as lifts and placements, from 1000 ms on.
pub fn open_game() -> Script {
    Script::new()
        .lift("e2")
        .place("e4", 'P')
        .wait(700.0)
        .lift("e7")
        .place("e5", 'p')
        .wait(700.0)
        .lift("g1")
        .place("f3", 'N')
        .wait(700.0)
        .lift("b8")
        .place("c6", 'n')
        .wait(700.0)
}

/// A standard tracker configuration with piece identity.
pub fn config() -> TrackerConfig {
    TrackerConfig::default()
}

/// Whose turn it is after `n` plies from white to move.
pub fn colour_after(n: usize) -> Color {
    if n.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    }
}
