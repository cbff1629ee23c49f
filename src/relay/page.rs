//! The live page at `/` of `--relay-listen`: every board at a glance, for the arbiter or
//! the broadcast operator.
//!
//! - `GET /`: one HTML page with its script and style inline — no build step, no file
//!   from elsewhere (a tournament hall is often offline). It draws each board as SVG and
//!   follows `/events`, fetching `/boards.json` again when a board's game changes.
//! - `GET /boards.json`: every board now: link state, protocol, serial, orientation, the
//!   sensed placement and the game's FEN (the page marks the squares where they differ,
//!   with what belongs there), the moves with their SAN, UCI and clock, the result, the
//!   last clock reading and the players (from the relay's PGN tags).
//!
//! It reads the daemon's board handles (or, on the hall relay of `eboardd relay --mqtt`, a
//! [`HallView`] of the boards every host publishes) and the relay's published PGN, and
//! sends nothing to the boards.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Serialize;

use super::http::RelayState;
use crate::daemon::Daemon;
use crate::daemon::game::GameView;
use crate::event::{GameEvent, Orientation};
use crate::game::record::GameRecord;
use crate::sensing::ClockReading;
use shakmaty::Color;

/// The page.
pub const PAGE: &str = include_str!("page.html");

/// Where the page's boards come from.
#[derive(Clone)]
enum Source {
    /// This daemon's boards.
    Daemon(Daemon),
    /// Boards of other hosts, as the hall relay hears of them.
    Hall(HallView),
}

/// What the page's handlers share.
#[derive(Clone)]
struct Page {
    source: Source,
    relay: Arc<RelayState>,
}

/// The page's routes for a daemon's boards: `/` and `/boards.json`.
pub fn router(daemon: Daemon, relay: Arc<RelayState>) -> Router {
    routes(Source::Daemon(daemon), relay)
}

/// The page's routes for the boards of every host (`eboardd relay --mqtt`).
pub fn hall_router(view: HallView, relay: Arc<RelayState>) -> Router {
    routes(Source::Hall(view), relay)
}

fn routes(source: Source, relay: Arc<RelayState>) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/index.html", get(page))
        .route("/boards.json", get(boards_json))
        .with_state(Page { source, relay })
}

/// One board of another host, as the hall relay hears of it: its last published state and
/// the game its events add up to.
#[derive(Debug, Default)]
struct HallBoard {
    /// `host:device`.
    device: String,
    protocol: String,
    serial: String,
    connected: bool,
    orientation: String,
    placement: String,
    game: GameView,
    clock: Option<(ClockReading, SystemTime)>,
}

impl HallBoard {
    fn follow(&mut self, event: &GameEvent) {
        match event {
            GameEvent::Board {
                placement,
                orientation,
            } => {
                self.placement = placement.clone();
                self.orientation = orientation_name(*orientation).into();
            }
            GameEvent::Clock { .. } => {
                self.clock = ClockReading::of(event).map(|r| (r, SystemTime::now()));
            }
            _ => {}
        }
        self.game.apply(event);
    }
}

fn orientation_name(o: Orientation) -> &'static str {
    match o {
        Orientation::Normal => "normal",
        Orientation::Rotated => "rotated",
    }
}

/// What a host says of one of its boards besides its events (its retained state).
#[derive(Debug, Clone, Default)]
pub struct HallState {
    /// The publishing host.
    pub host: String,
    /// The device path on that host.
    pub device: String,
    /// `dgt` or `millennium` (empty until known).
    pub protocol: String,
    /// The serial number (empty until known).
    pub serial: String,
    /// Whether the board is connected.
    pub connected: bool,
    /// The last clock reading.
    pub clock: Option<ClockReading>,
}

/// The boards of every host as the hall relay hears of them, by tournament number, for the
/// live page. Cheap to clone (shared).
#[derive(Clone, Debug, Default)]
pub struct HallView(Arc<Mutex<BTreeMap<u32, HallBoard>>>);

impl HallView {
    /// An empty view.
    pub fn new() -> HallView {
        HallView::default()
    }

    fn with<R>(&self, f: impl FnOnce(&mut BTreeMap<u32, HallBoard>) -> R) -> R {
        f(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Board `number` (from 1) is in the tournament.
    pub fn add(&self, number: u32) {
        self.with(|b| {
            b.entry(number).or_default();
        });
    }

    /// Board `number`'s host published its state.
    pub fn state(&self, number: u32, state: &HallState) {
        self.with(|b| {
            let board = b.entry(number).or_default();
            board.device = format!("{}:{}", state.host, state.device);
            board.protocol = state.protocol.clone();
            board.serial = state.serial.clone();
            board.connected = state.connected;
            if let Some(reading) = state.clock {
                board.clock = Some((reading, SystemTime::now()));
            }
        });
    }

    /// Board `number`'s game is these events from the start.
    pub fn rebuild(&self, number: u32, events: &[GameEvent]) {
        self.with(|b| {
            let board = b.entry(number).or_default();
            board.game = GameView::default();
            for e in events {
                board.follow(e);
            }
        });
    }

    /// Board `number` follows one event.
    pub fn event(&self, number: u32, event: &GameEvent) {
        self.with(|b| b.entry(number).or_default().follow(event));
    }

    /// Every board now, as the page shows it.
    fn boards(&self, relay: &RelayState) -> Vec<PageBoard> {
        self.with(|b| {
            b.iter()
                .map(|(&n, board)| {
                    let pgn = relay.board_pgn(n).unwrap_or_default();
                    let record = board.game.record();
                    PageBoard {
                        board: n,
                        device: board.device.clone(),
                        protocol: board.protocol.clone(),
                        serial: board.serial.clone(),
                        connected: board.connected,
                        link: link_state(board.connected, &board.placement),
                        orientation: board.orientation.clone(),
                        placement: board.placement.clone(),
                        fen: board.game.fen().to_string(),
                        start_fen: record.start_fen.clone(),
                        moves: page_moves(record),
                        result: record.result.map(|r| r.to_string()),
                        clock: board.clock.as_ref().map(|(r, at)| page_clock(r, *at)),
                        white: pgn_tag(&pgn, "White").unwrap_or_else(|| "?".into()),
                        black: pgn_tag(&pgn, "Black").unwrap_or_else(|| "?".into()),
                    }
                })
                .collect()
        })
    }
}

/// A game's moves as the page shows them.
fn page_moves(record: &GameRecord) -> Vec<PageMove> {
    record
        .moves
        .iter()
        .map(|m| PageMove {
            san: m.san.to_string(),
            uci: m.uci.to_string(),
            clock_ms: m.clock_ms,
        })
        .collect()
}

/// A clock reading taken at `at`, as the page shows it.
fn page_clock(reading: &ClockReading, at: SystemTime) -> PageClock {
    PageClock {
        white_ms: reading.white_ms,
        black_ms: reading.black_ms,
        running: reading.running.map(|side| match side {
            Color::White => "white",
            Color::Black => "black",
        }),
        age_ms: SystemTime::now()
            .duration_since(at)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
    }
}

async fn page() -> Response {
    let mut response = ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], PAGE).into_response();
    let h = response.headers_mut();
    // Everything the page needs is in it: forbid the rest.
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
             connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; \
             frame-ancestors 'none'",
        ),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// One move of a board's game.
#[derive(Debug, Serialize)]
pub struct PageMove {
    /// SAN.
    pub san: String,
    /// UCI.
    pub uci: String,
    /// The mover's remaining time once the clock was pressed, if read.
    pub clock_ms: Option<u64>,
}

/// A clock reading.
#[derive(Debug, Serialize)]
pub struct PageClock {
    /// White's time left.
    pub white_ms: u64,
    /// Black's time left.
    pub black_ms: u64,
    /// `white`, `black`, or `null` when stopped.
    pub running: Option<&'static str>,
    /// How long ago it was read.
    pub age_ms: u64,
}

/// One board as the page shows it.
#[derive(Debug, Serialize)]
pub struct PageBoard {
    /// Its number, from 1.
    pub board: u32,
    /// The device path.
    pub device: String,
    /// `dgt` or `millennium` (empty until known).
    pub protocol: String,
    /// The board's serial number (empty until known).
    pub serial: String,
    /// Whether the port is open and the board answering.
    pub connected: bool,
    /// The link as people see it: `connected`, `not responding` (the port is open but the
    /// board has not reported its squares yet) or `away` (the port is closed).
    pub link: &'static str,
    /// `normal` or `rotated` (empty until known).
    pub orientation: String,
    /// What the sensors see (FEN placement; empty until reported).
    pub placement: String,
    /// The game's position (FEN).
    pub fen: String,
    /// The position the game started from, when not the standard one.
    pub start_fen: Option<String>,
    /// The moves.
    pub moves: Vec<PageMove>,
    /// The result, once the game ended.
    pub result: Option<String>,
    /// The last clock reading.
    pub clock: Option<PageClock>,
    /// White's name (`?` when not known).
    pub white: String,
    /// Black's name (`?` when not known).
    pub black: String,
}

/// A tag's value in a PGN text (`[Name "value"]`), unescaped.
pub fn pgn_tag(pgn: &str, name: &str) -> Option<String> {
    let prefix = format!("[{name} \"");
    let line = pgn.lines().find(|l| l.starts_with(&prefix))?;
    let inner = line.strip_prefix(&prefix)?.strip_suffix("\"]")?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// A board's link for people: `away` while its port is closed, `not responding` while it
/// is open but the board has not reported its squares, else `connected`.
pub fn link_state(connected: bool, placement: &str) -> &'static str {
    match (connected, placement.is_empty()) {
        (false, _) => "away",
        (true, true) => "not responding",
        (true, false) => "connected",
    }
}

/// Every board now.
pub async fn boards(daemon: &Daemon, relay: &RelayState) -> Vec<PageBoard> {
    let mut list = Vec::new();
    for handle in daemon.boards().await {
        let status = handle.status();
        let n = handle.id().saturating_add(1);
        let (moves, result, start_fen, clock) = match handle.follow_game().await {
            Ok(follow) => {
                let clock = follow.clock.map(|(reading, at)| page_clock(&reading, at));
                (
                    page_moves(&follow.record),
                    follow.record.result.map(|r| r.to_string()),
                    follow.record.start_fen.clone(),
                    clock,
                )
            }
            Err(_) => (Vec::new(), None, None, None),
        };
        let pgn = relay.board_pgn(n).unwrap_or_default();
        list.push(PageBoard {
            board: n,
            device: status.device.clone(),
            protocol: status.protocol.clone(),
            serial: status.serial.clone(),
            connected: status.connected,
            link: link_state(status.connected, &status.placement),
            orientation: status.orientation.clone(),
            placement: status.placement.clone(),
            fen: status.fen.clone(),
            start_fen,
            moves,
            result,
            clock,
            white: pgn_tag(&pgn, "White").unwrap_or_else(|| "?".into()),
            black: pgn_tag(&pgn, "Black").unwrap_or_else(|| "?".into()),
        });
    }
    list
}

async fn boards_json(State(page): State<Page>) -> Response {
    #[derive(Serialize)]
    struct Boards {
        boards: Vec<PageBoard>,
        last_event_id: u64,
    }
    // The event number first: an event after it makes the page fetch again.
    let last_event_id = page.relay.last_event_id();
    let body = Boards {
        boards: match &page.source {
            Source::Daemon(daemon) => boards(daemon, &page.relay).await,
            Source::Hall(view) => view.boards(&page.relay),
        },
        last_event_id,
    };
    let text = serde_json::to_string(&body).unwrap_or_else(|_| "{\"boards\":[]}".into());
    let mut response = ([(header::CONTENT_TYPE, "application/json")], text).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(ply: u32, uci: &str, san: &str) -> GameEvent {
        GameEvent::plain_move(
            ply,
            uci.parse().expect("uci"),
            san.parse().expect("san"),
            "",
        )
    }

    #[test]
    fn a_hall_board_shows_its_hosts_state_and_the_game_its_events_leave() {
        let view = HallView::new();
        view.add(3);
        view.state(
            3,
            &HallState {
                host: "hall-a".into(),
                device: "/dev/ttyACM0".into(),
                protocol: "dgt".into(),
                serial: "10960".into(),
                connected: true,
                clock: None,
            },
        );
        view.rebuild(
            3,
            &[
                GameEvent::NewGame {
                    fen: crate::game::record::STANDARD_FEN.into(),
                    chess960: false,
                },
                mv(1, "e2e4", "e4"),
                mv(2, "e7e5", "e5"),
            ],
        );
        view.event(
            3,
            &GameEvent::Retract {
                ply: 2,
                uci: "e7e5".parse().expect("uci"),
            },
        );
        view.event(3, &mv(2, "c7c5", "c5"));
        let boards = view.boards(&RelayState::new());
        assert_eq!(boards.len(), 1);
        let b = &boards[0];
        assert_eq!((b.board, b.device.as_str()), (3, "hall-a:/dev/ttyACM0"));
        assert_eq!((b.protocol.as_str(), b.serial.as_str()), ("dgt", "10960"));
        // Connected, but no placement heard yet.
        assert_eq!(b.link, "not responding");
        let sans: Vec<&str> = b.moves.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(sans, ["e4", "c5"]);
        assert_eq!(
            b.fen,
            "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
        );
        view.event(
            3,
            &GameEvent::Board {
                placement: "8/8/8/8/8/8/8/8".into(),
                orientation: Orientation::Rotated,
            },
        );
        let b = &view.boards(&RelayState::new())[0];
        assert_eq!((b.link, b.orientation.as_str()), ("connected", "rotated"));
    }

    #[test]
    fn an_open_port_whose_board_never_reported_is_not_responding() {
        assert_eq!(link_state(false, ""), "away");
        assert_eq!(link_state(false, "8/8/8/8/8/8/8/8"), "away");
        assert_eq!(link_state(true, ""), "not responding");
        assert_eq!(link_state(true, "8/8/8/8/8/8/8/8"), "connected");
    }

    #[test]
    fn pgn_tags_are_read_and_unescaped() {
        let pgn = "[Event \"?\"]\n[White \"Anna \\\"A\\\" \\\\ B\"]\n[Black \"?\"]\n\n*\n";
        assert_eq!(pgn_tag(pgn, "White").as_deref(), Some("Anna \"A\" \\ B"));
        assert_eq!(pgn_tag(pgn, "Black").as_deref(), Some("?"));
        assert_eq!(pgn_tag(pgn, "Round"), None);
    }
}
