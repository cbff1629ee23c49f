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
//! It reads the daemon's board handles and the relay's published PGN, and sends nothing to
//! the boards.

use std::sync::Arc;
use std::time::SystemTime;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Serialize;

use super::http::RelayState;
use crate::daemon::Daemon;
use crate::event::Side;

/// The page.
pub const PAGE: &str = include_str!("page.html");

/// What the page's handlers share.
#[derive(Clone)]
struct Page {
    daemon: Daemon,
    relay: Arc<RelayState>,
}

/// The page's routes: `/` and `/boards.json`.
pub fn router(daemon: Daemon, relay: Arc<RelayState>) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/index.html", get(page))
        .route("/boards.json", get(boards_json))
        .with_state(Page { daemon, relay })
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
                let moves = follow
                    .record
                    .moves
                    .iter()
                    .map(|m| PageMove {
                        san: m.san.clone(),
                        uci: m.uci.clone(),
                        clock_ms: m.clock_ms,
                    })
                    .collect();
                let clock = follow.clock.map(|(reading, at)| PageClock {
                    white_ms: reading.white_ms,
                    black_ms: reading.black_ms,
                    running: reading.running.map(|side| match side {
                        Side::White => "white",
                        Side::Black => "black",
                    }),
                    age_ms: SystemTime::now()
                        .duration_since(at)
                        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
                });
                (
                    moves,
                    follow.record.result.clone(),
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
        boards: boards(&page.daemon, &page.relay).await,
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
