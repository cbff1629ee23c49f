//! Simulated games as traces: the bytes a host would have recorded, in the trace format.
//!
//! [`generate_trace`] plays a game with a seeded hand on an emulated board, runs the
//! session the daemon would have (its start-up commands at time zero, then the board's
//! replies and reports) and writes it with the project's [`TraceWriter`]. The host's reads
//! are cut as an operating system delivers them: usually one message a read, sometimes a
//! message split over two reads or two messages that arrived back to back in one. An
//! [`Outage`] drops the link for a few plies: the host reads nothing, then opens the board
//! again and must find the plies played meanwhile. The trace comes with its [`Truth`], in
//! the same time base.

use std::time::Duration;

use shakmaty::Position;

use super::SimError;
use super::device::{
    BoardOptions, EmulatedBoard, Session, Transmission, daemon_startup, run_session,
};
use super::hand::{Hand, HandOptions, Performance};
use super::pgn::Game;
use super::rng::Rng;
use super::truth::Truth;
use eboardd_core::game::start::start_kind;
use eboardd_core::protocol::Protocol;
use eboardd_core::time::Time;
use eboardd_core::trace::{Direction, TraceHeader, TraceWriter};

/// The link to the board drops for a few plies, then the host opens the board again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outage {
    /// The link drops 300 ms after this ply's move ends (0: before the first move).
    pub after_ply: u32,
    /// How many plies are played while it is down; it comes back 500 ms after the last
    /// of them ends.
    pub plies: u32,
}

/// How a simulated trace is written.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceOptions {
    /// The hand.
    pub hand: HandOptions,
    /// The board.
    pub board: BoardOptions,
    /// A `# title:` header; by default the game's name.
    pub title: Option<String>,
    /// Chance that a message reaches the host in two reads.
    pub split_reads: f64,
    /// Chance that two messages that arrive back to back are read at once.
    pub merge_reads: f64,
    /// How long the board keeps reporting after the last physical change.
    pub tail: Duration,
    /// A link outage, if any.
    pub outage: Option<Outage>,
}

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions {
            hand: HandOptions::default(),
            board: BoardOptions::default(),
            title: None,
            split_reads: 0.05,
            merge_reads: 0.3,
            tail: Duration::from_millis(1500),
            outage: None,
        }
    }
}

/// A simulated game: its trace text and what a correct reconstruction reports.
#[derive(Debug, Clone)]
pub struct GeneratedTrace {
    /// The trace, in the trace format.
    pub text: String,
    /// The ground truth, in the trace's time base.
    pub truth: Truth,
    /// The hand's performance (physical timeline).
    pub performance: Performance,
    /// The session's bytes and the square changes the board sent (including what an
    /// outage lost: the trace holds only what the host read).
    pub session: Session,
    /// When the link was down, if it was.
    pub outage: Option<(Time, Time)>,
}

/// Plays `game` with a hand seeded by `seed` on an emulated `protocol` board and renders
/// the session as a trace.
///
/// ```
/// use eboardd_core::protocol::Protocol;
/// use eboardd_sim::{games, trace::{generate_trace, TraceOptions}};
/// let game = &games::real_games()[0];
/// let out = generate_trace(game, Protocol::Millennium, 7, &TraceOptions::default()).unwrap();
/// assert!(out.text.starts_with("# eboard-trace 1\n# protocol: millennium\n"));
/// assert_eq!(out.truth.plies.len(), game.moves.len());
/// ```
pub fn generate_trace(
    game: &Game,
    protocol: Protocol,
    seed: u64,
    options: &TraceOptions,
) -> Result<GeneratedTrace, SimError> {
    let performance = Hand::new(seed, options.hand).play(game)?;
    let start = &performance.timeline.start;
    let mut board = EmulatedBoard::with_options(protocol, &options.board, start, seed);
    let end = performance.timeline.end() + options.tail;
    let outage = options
        .outage
        .and_then(|o| outage_window(&performance.truth, o));
    let mut host = daemon_startup(protocol);
    if let Some((_, back)) = outage {
        host.extend(daemon_startup(protocol).into_iter().map(|(_, b)| (back, b)));
    }
    let mut session = run_session(&mut board, &performance.timeline, &host, end);
    let received: Vec<Transmission> = session
        .board
        .iter()
        .filter(|t| outage.is_none_or(|(down, back)| t.end < down || t.end >= back))
        .cloned()
        .collect();
    session.board = received;
    let mut header = TraceHeader::new(protocol);
    header.serial = Some(protocol.line_settings().to_string());
    if start_kind(game.start.board()).is_none() || !is_initial(game) {
        header.start_fen = Some(game.start_fen());
    }
    let title = options.title.clone().unwrap_or_else(|| game.name());
    header.other.push(("title".into(), title));
    header.other.push((
        "source".into(),
        format!("eboardd sim, seed {seed}, {} plies", game.moves.len()),
    ));
    let text = render(&header, &session, &mut Rng::derive(seed, "reads"), options)?;
    Ok(GeneratedTrace {
        text,
        truth: performance.truth.clone(),
        performance,
        session,
        outage,
    })
}

/// The times an outage covers, if the game has the plies it names.
fn outage_window(truth: &Truth, o: Outage) -> Option<(Time, Time)> {
    let last = truth
        .plies
        .get((o.after_ply + o.plies).checked_sub(1)? as usize)?;
    let down = match o.after_ply {
        0 => truth
            .plies
            .first()?
            .move_start
            .as_micros()
            .saturating_sub(300_000),
        n => (truth.plies.get(n as usize - 1)?.move_end + Duration::from_millis(300)).as_micros(),
    };
    let back = last.move_end + Duration::from_millis(500);
    (o.plies > 0 && Time::from_micros(down) < back).then_some((Time::from_micros(down), back))
}

/// Whether the game starts at move 1 with White to move and every castling right of a
/// start position (so the board's own start position says everything).
fn is_initial(game: &Game) -> bool {
    game.start.turn().is_white()
        && game.start.fullmoves().get() == 1
        && game.start.castles().castling_rights().count() == 4
}

/// Cuts the board's transmissions into the reads a host would see.
fn reads(board: &[Transmission], rng: &mut Rng, options: &TraceOptions) -> Vec<(Time, Vec<u8>)> {
    let mut out: Vec<(Time, Vec<u8>)> = Vec::new();
    let mut last_end: Option<Time> = None;
    for t in board {
        let back_to_back = last_end.is_some_and(|e| t.start <= e + Duration::from_micros(300));
        if back_to_back
            && rng.chance(options.merge_reads)
            && let Some(last) = out.last_mut()
        {
            last.0 = t.end;
            last.1.extend_from_slice(&t.bytes);
            last_end = Some(t.end);
            continue;
        }
        let n = t.bytes.len();
        if n >= 2 && rng.chance(options.split_reads) {
            let k = 1 + rng.index(n - 1);
            let span = (t.end - t.start).as_micros() as u64;
            let at = t.start + Duration::from_micros(span * k as u64 / n as u64);
            out.push((at, t.bytes[..k].to_vec()));
            out.push((t.end, t.bytes[k..].to_vec()));
        } else {
            out.push((t.end, t.bytes.clone()));
        }
        last_end = Some(t.end);
    }
    out
}

fn render(
    header: &TraceHeader,
    session: &Session,
    rng: &mut Rng,
    options: &TraceOptions,
) -> Result<String, SimError> {
    let mut lines: Vec<(Time, Direction, Vec<u8>)> = session
        .host
        .iter()
        .map(|(t, b)| (*t, Direction::ToBoard, b.clone()))
        .collect();
    lines.extend(
        reads(&session.board, rng, options)
            .into_iter()
            .map(|(t, b)| (t, Direction::FromBoard, b)),
    );
    // Stable: at equal times, what the host wrote comes first.
    lines.sort_by_key(|(t, _, _)| *t);
    let io = |e: std::io::Error| SimError::Unsupported(format!("writing the trace: {e}"));
    let mut w = TraceWriter::new(Vec::new(), header).map_err(io)?;
    for (t, dir, bytes) in &lines {
        w.write(*t, *dir, bytes).map_err(io)?;
    }
    String::from_utf8(w.into_inner()).map_err(|e| SimError::Unsupported(e.to_string()))
}
