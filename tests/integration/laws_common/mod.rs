//! Test helpers for the arbiter: a hand scripted as timed lifts and placements, sent to a
//! [`BoardCore`] as the DGT messages a board would send (a board dump, then one field update
//! per change), with timers driven explicitly, and the events it decides.
#![allow(dead_code)]

use eboardd::event::{GameEvent, Orientation, TimedEvent};
use eboardd::laws::{Edition, LawsConfig, TouchMove};
use eboardd::pipeline::{BoardCore, CoreConfig};
use eboardd::protocol::Protocol;
use eboardd::sensing::SensingConfig;
use eboardd::time::Time;
use shakmaty::{Board, Piece, Square, fen::Fen};

/// The DGT field of a square (0 = a8 … 63 = h1).
fn field(sq: Square) -> u8 {
    (7 - u8::from(sq.rank())) * 8 + u8::from(sq.file())
}

fn code(p: Option<Piece>) -> u8 {
    p.map_or(0, eboardd::protocol::dgt::piece_code)
}

/// A hand's lifts and placements with their times, from a start position.
#[derive(Debug, Clone)]
pub struct Hand {
    /// The full FEN of the start.
    pub fen: String,
    /// The first board.
    pub board: Board,
    /// Timed changes: (ms, square, piece now there).
    pub changes: Vec<(f64, Square, Option<Piece>)>,
    /// The current time (ms).
    pub ms: f64,
}

impl Hand {
    /// A hand at the standard start, at 1000 ms.
    pub fn start() -> Hand {
        Hand::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    }

    /// A hand at a set-up position (full FEN), at 1000 ms.
    pub fn from_fen(fen: &str) -> Hand {
        let board = fen.parse::<Fen>().expect("test FEN").into_setup().board;
        Hand {
            fen: fen.to_string(),
            board,
            changes: Vec::new(),
            ms: 1000.0,
        }
    }

    /// Time passes.
    pub fn wait(mut self, ms: f64) -> Hand {
        self.ms += ms;
        self
    }

    /// The piece on `s` is lifted.
    pub fn lift(mut self, s: &str) -> Hand {
        self.changes
            .push((self.ms, s.parse().expect("square"), None));
        self
    }

    /// `p` (a FEN letter) is put on `s`.
    pub fn place(mut self, s: &str, p: char) -> Hand {
        self.changes.push((
            self.ms,
            s.parse().expect("square"),
            Some(Piece::from_char(p).expect("piece letter")),
        ));
        self
    }

    /// A move as people make it: lift `from`, 300 ms later put `p` on `to`, then 1 s passes.
    pub fn play(self, from: &str, to: &str, p: char) -> Hand {
        self.lift(from).wait(300.0).place(to, p).wait(1000.0)
    }

    /// A touch: lift `s`, 500 ms later put `p` back, then 500 ms pass.
    pub fn touch(self, s: &str, p: char) -> Hand {
        self.lift(s).wait(500.0).place(s, p).wait(500.0)
    }
}

/// What the core decided.
#[derive(Debug, Default)]
pub struct Run {
    /// Every event, in order.
    pub events: Vec<TimedEvent>,
}

/// A violation as the tests look at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    /// The ply.
    pub ply: u32,
    /// The article.
    pub article: String,
    /// The square, if any.
    pub square: Option<String>,
    /// Whether it can still be claimed when reported.
    pub claimable: bool,
    /// The edition cited.
    pub laws: String,
    /// The sentence.
    pub detail: String,
}

impl Run {
    /// The violations.
    pub fn violations(&self) -> Vec<Seen> {
        self.events
            .iter()
            .filter_map(|e| match &e.event {
                GameEvent::Violation {
                    ply,
                    article,
                    laws,
                    detail,
                    claimable,
                    square,
                    ..
                } => Some(Seen {
                    ply: *ply,
                    article: article.clone(),
                    square: square.map(|s| s.to_string()),
                    claimable: *claimable,
                    laws: laws.clone(),
                    detail: detail.clone(),
                }),
                _ => None,
            })
            .collect()
    }

    /// The articles cited, in order.
    pub fn articles(&self) -> Vec<String> {
        self.violations().into_iter().map(|v| v.article).collect()
    }

    /// The moves of the game as it ends up (UCI).
    pub fn game(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for e in &self.events {
            match &e.event {
                GameEvent::NewGame { .. } => out.clear(),
                GameEvent::Move { ply, uci, .. } => {
                    out.truncate(*ply as usize - 1);
                    out.push(uci.to_string());
                }
                GameEvent::Retract { ply, .. } => out.truncate(*ply as usize - 1),
                GameEvent::Takeback { ply } => out.truncate(*ply as usize),
                _ => {}
            }
        }
        out
    }

    /// How many events of a kind (`move`, `due`, `claim_lapsed`...).
    pub fn count(&self, kind: &str) -> usize {
        self.lines()
            .lines()
            .filter(|l| l.contains(&format!("\"event\":\"{kind}\"")))
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

/// A configuration for `edition` in `mode`.
pub fn laws(edition: Edition, mode: TouchMove) -> LawsConfig {
    LawsConfig {
        edition,
        touch_move: mode,
        ..LawsConfig::default()
    }
}

/// Runs the hand through a DGT board core judged by `laws`, driving its timers as a shell
/// would, for 5 s after the last change.
pub fn run(hand: &Hand, laws: LawsConfig) -> Run {
    let config = CoreConfig {
        sensing: SensingConfig {
            orientation: Some(Orientation::Normal),
            ..SensingConfig::default()
        },
        start_fen: Some(hand.fen.clone()),
        laws,
        ..CoreConfig::default()
    };
    let mut core = BoardCore::new(Protocol::Dgt, config);
    let mut run = Run::default();
    let mut dump = vec![0x86, 0x00, 0x43];
    for f in 0..64u8 {
        let sq = Square::from_coords(
            shakmaty::File::new(u32::from(f % 8)),
            shakmaty::Rank::new(u32::from(7 - f / 8)),
        );
        dump.push(code(hand.board.piece_at(sq)));
    }
    core.handle_input(Time::ZERO, &dump);
    drain(&mut core, &mut run);
    for &(ms, sq, piece) in &hand.changes {
        let t = Time::from_ms_f64(ms);
        advance(&mut core, t, &mut run);
        core.handle_input(t, &[0x8e, 0x00, 0x05, field(sq), code(piece)]);
        drain(&mut core, &mut run);
    }
    advance(&mut core, Time::from_ms_f64(hand.ms + 5000.0), &mut run);
    run
}

/// Runs the hand under 2023 in `report` mode.
pub fn run_2023(hand: &Hand) -> Run {
    run(hand, laws(Edition::Fide2023, TouchMove::Report))
}

fn advance(core: &mut BoardCore, until: Time, run: &mut Run) {
    while let Some(due) = core.poll_timeout() {
        if due > until {
            break;
        }
        core.handle_timeout(due);
        drain(core, run);
        if core.poll_timeout() == Some(due) {
            break;
        }
    }
}

fn drain(core: &mut BoardCore, run: &mut Run) {
    while let Some(e) = core.poll_event() {
        run.events.push(e);
    }
}

// ---------------------------------------------------------------- shared scenarios

/// Both sides may castle either way.
pub const CASTLE_BOTH: &str = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";

/// A shared scenario.
pub fn own_piece_touched() -> Hand {
    Hand::start().touch("g1", 'N').play("e2", "e4", 'P')
}

/// A shared scenario.
pub fn rook_then_king_castled() -> Hand {
    Hand::from_fen(CASTLE_BOTH)
        .lift("h1")
        .wait(300.0)
        .place("f1", 'R')
        .wait(600.0)
        .lift("e1")
        .wait(300.0)
        .place("g1", 'K')
        .wait(1000.0)
}

/// A shared scenario.
pub fn released_then_moved_on() -> Hand {
    Hand::start()
        .lift("g1")
        .wait(300.0)
        .place("f3", 'N')
        .wait(900.0)
        .lift("f3")
        .wait(300.0)
        .place("h3", 'N')
        .wait(1000.0)
}

/// The black bishop on c4 guards f1: castling short is illegal, the king can still move.
pub const CASTLE_THROUGH_CHECK: &str = "r3k2r/pppppppp/8/8/2b5/8/PPP2PPP/R3K2R w KQkq - 0 1";
