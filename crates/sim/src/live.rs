//! An emulated board on a pseudo-terminal, played live by a hand one move at a time.
//!
//! [`LiveBoard`] puts an [`EmulatedBoard`] on a pseudo-terminal (its [`PtyBoard`] runs on a
//! thread of its own) and holds a [`LiveHand`]. Its owner decides what the hand plays and
//! when: [`LiveBoard::play`] makes a move from now on. What the host makes the board show —
//! the move on its LEDs, text on its clock — can be read back ([`LiveBoard::view`]), and
//! [`LiveBoard::guided_move`] turns it into the legal move it stands for, so a test (or
//! `eboardd emulate`) can carry out a GUI's moves exactly when the bridge shows them.
//!
//! Virtual time runs from the moment the board is started, `speed` times faster than wall
//! time; the hand's motions are in virtual time, and so are the board's scans.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use shakmaty::san::SanPlus;
use shakmaty::{Chess, Move, Position, Role, Square};

use super::SimError;
use super::device::{BoardOptions, EmulatedBoard};
use super::hand::{HandOptions, LiveHand};
use super::pty::{PtyBoard, RunStats};
use super::timeline::squares_of;
use eboardd_core::protocol::Protocol;
use eboardd_core::time::Time;

/// What the board shows the player, as the host last set it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct View {
    /// The move the LEDs show: the squares to leave and to reach.
    pub shown: Option<(Square, Square)>,
    /// The text on the clock.
    pub clock_text: Option<String>,
}

#[derive(Debug, Default)]
struct Shared {
    stop: AtomicBool,
    view: Mutex<View>,
}

/// An emulated board on a pseudo-terminal with a live hand (see the module documentation).
#[derive(Debug)]
pub struct LiveBoard {
    path: String,
    shared: Arc<Shared>,
    changes: Sender<Vec<super::PhysicalEvent>>,
    thread: Option<JoinHandle<io::Result<RunStats>>>,
    hand: LiveHand,
    origin: Instant,
    speed: f64,
}

impl LiveBoard {
    /// Starts a board of `protocol` set up as `options` say, with `start` on it, and a hand
    /// playing as `hand` says; time runs `speed` times faster than wall time.
    pub fn start(
        protocol: Protocol,
        options: &BoardOptions,
        start: &Chess,
        seed: u64,
        hand: HandOptions,
        speed: f64,
    ) -> io::Result<LiveBoard> {
        let squares = squares_of(start.board());
        let board = EmulatedBoard::with_options(protocol, options, &squares, seed);
        let mut pty = PtyBoard::open(board, speed)?;
        let path = pty.path().to_string();
        let speed = if speed.is_finite() && speed > 0.0 {
            speed
        } else {
            1.0
        };
        let shared = Arc::new(Shared::default());
        let (tx, rx) = channel();
        let origin = Instant::now();
        let thread_shared = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("live board".into())
            .spawn(move || {
                let mut observe = |board: &EmulatedBoard| {
                    let view = View {
                        shown: board.shown_move(),
                        clock_text: board.clock_text().map(str::to_string),
                    };
                    let mut shared_view = thread_shared
                        .view
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner);
                    if *shared_view != view {
                        *shared_view = view;
                    }
                };
                pty.run_live(squares, origin, &rx, &thread_shared.stop, &mut observe)
            })?;
        Ok(LiveBoard {
            path,
            shared,
            changes: tx,
            thread: Some(thread),
            hand: LiveHand::new(seed, hand, start),
            origin,
            speed,
        })
    }

    /// The path a host opens (`/dev/pts/N`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Virtual time now.
    pub fn now(&self) -> Time {
        let wall = self.origin.elapsed().as_secs_f64() * self.speed;
        Time::from_micros((wall * 1e6) as u64)
    }

    /// The wall-clock span of a virtual one.
    pub fn wall(&self, virtual_span: Duration) -> Duration {
        virtual_span.div_f64(self.speed)
    }

    /// The game position on the board.
    pub fn position(&self) -> &Chess {
        self.hand.position()
    }

    /// What the board shows now.
    pub fn view(&self) -> View {
        self.shared
            .view
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The legal move the board shows now, if it shows one.
    pub fn guided_move(&self) -> Option<Move> {
        guided_move(self.position(), &self.view())
    }

    /// Waits (up to `limit` of wall time) until the board shows a legal move.
    pub fn wait_for_guidance(&self, limit: Duration) -> Option<Move> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(m) = self.guided_move() {
                return Some(m);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The hand makes `m` (legal on the board) from now on; returns the virtual time of its
    /// last physical change.
    pub fn play(&mut self, m: Move) -> Result<Time, SimError> {
        let changes = self.hand.play(self.now(), m)?;
        self.send(changes)
    }

    /// The hand carries the piece on `from` to `to` from now on, whatever the Laws say (an
    /// illegal move, say), and leaves it there; the game position does not change. Returns
    /// the virtual time of its last physical change.
    pub fn misplace(&mut self, from: Square, to: Square) -> Result<Time, SimError> {
        let changes = self.hand.misplace(self.now(), from, to)?;
        self.send(changes)
    }

    /// The hand puts the pieces back as the game position has them, from now on; returns
    /// the virtual time of its last physical change.
    pub fn put_right(&mut self) -> Result<Time, SimError> {
        let changes = self.hand.put_right(self.now())?;
        self.send(changes)
    }

    fn send(&self, changes: Vec<super::PhysicalEvent>) -> Result<Time, SimError> {
        let end = changes.last().map_or(self.now(), |e| e.t);
        self.changes
            .send(changes)
            .map_err(|_| SimError::Unsupported("the board's thread has ended".into()))?;
        Ok(end)
    }

    /// Sleeps until virtual time `t`.
    pub fn sleep_until(&self, t: Time) {
        let now = self.now();
        if t > now {
            std::thread::sleep(self.wall(t.saturating_since(now)));
        }
    }

    /// Stops the board and says what its run did.
    pub fn stop(mut self) -> io::Result<RunStats> {
        self.finish()
    }

    fn finish(&mut self) -> io::Result<RunStats> {
        self.shared.stop.store(true, Ordering::Relaxed);
        match self.thread.take() {
            Some(t) => t
                .join()
                .map_err(|_| io::Error::other("the board's thread panicked"))?,
            None => Ok(RunStats::default()),
        }
    }
}

impl Drop for LiveBoard {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// The legal move in `pos` that `view` shows: the move between the two lit squares (for
/// castling the king's squares, or king and rook); a promotion is the piece the clock
/// names in SAN, else a queen.
/// A board without LEDs shows the move on its clock alone: the clock's text, read as SAN
/// (or as UCI), is then the move.
pub fn guided_move(pos: &Chess, view: &View) -> Option<Move> {
    let named = view.clock_text.as_deref().and_then(|t| {
        let t = t.trim();
        t.parse::<SanPlus>()
            .ok()
            .and_then(|san| san.san.to_move(pos).ok())
            .or_else(|| {
                t.parse::<shakmaty::uci::UciMove>()
                    .ok()
                    .and_then(|u| u.to_move(pos).ok())
            })
    });
    let Some((from, to)) = view.shown else {
        return named;
    };
    let candidates: Vec<Move> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| match *m {
            Move::Castle { king, rook } => {
                let king_to = m.castling_side().map(|side| side.king_to(pos.turn()));
                king == from && (to == rook || Some(to) == king_to)
            }
            _ => m.from() == Some(from) && m.to() == to,
        })
        .collect();
    if let Some(n) = named.filter(|n| candidates.contains(n)) {
        return Some(n);
    }
    candidates
        .iter()
        .copied()
        .find(|m| m.promotion().is_none_or(|r| r == Role::Queen))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shown_squares_are_the_legal_move_between_them() {
        let pos = Chess::default();
        let view = View {
            shown: Some((Square::G1, Square::F3)),
            clock_text: None,
        };
        let m = guided_move(&pos, &view).expect("a move");
        assert_eq!(m.to(), Square::F3);
        let nothing = View {
            shown: Some((Square::G1, Square::G3)),
            clock_text: None,
        };
        assert_eq!(guided_move(&pos, &nothing), None);
    }

    #[test]
    fn castling_is_shown_by_the_kings_squares_and_promotion_by_the_clock() {
        let fen = "r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1";
        let pos: Chess = fen
            .parse::<shakmaty::fen::Fen>()
            .expect("fen")
            .into_position(shakmaty::CastlingMode::Standard)
            .expect("legal");
        let castle = View {
            shown: Some((Square::E1, Square::G1)),
            clock_text: None,
        };
        assert!(matches!(
            guided_move(&pos, &castle),
            Some(Move::Castle { .. })
        ));
        let knight = View {
            shown: Some((Square::B7, Square::A8)),
            clock_text: Some("bxa8=N+".into()),
        };
        assert_eq!(
            guided_move(&pos, &knight).and_then(|m| m.promotion()),
            Some(Role::Knight)
        );
        let plain = View {
            clock_text: None,
            ..knight
        };
        assert_eq!(
            guided_move(&pos, &plain).and_then(|m| m.promotion()),
            Some(Role::Queen)
        );
    }

    #[test]
    fn a_board_without_leds_shows_the_move_by_the_clock_alone() {
        let pos = Chess::default();
        let san = View {
            shown: None,
            clock_text: Some("Nf3".into()),
        };
        assert_eq!(guided_move(&pos, &san).map(|m| m.to()), Some(Square::F3));
        let uci = View {
            shown: None,
            clock_text: Some("e2e4 ".into()),
        };
        assert_eq!(guided_move(&pos, &uci).map(|m| m.to()), Some(Square::E4));
        for text in ["", "Nf6", "12:00"] {
            let other = View {
                shown: None,
                clock_text: Some(text.into()),
            };
            assert_eq!(guided_move(&pos, &other), None, "{text:?}");
        }
    }
}
