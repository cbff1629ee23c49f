//! `--relay-listen ADDR`: the relay's PGN and events over HTTP (on [`crate::web`]).
//!
//! - `GET /games.pgn`: every board's game in board order (a query string is ignored, for
//!   viewers that add one to get past caches);
//! - `GET /board/N.pgn`: board N's game (N from 1, written without sign or leading zero);
//! - `GET /events`: the contract's JSON events as server-sent events, each with an `id:`;
//!   a client that comes back with `Last-Event-ID` gets the events it missed while they are
//!   still kept (the last [`BACKLOG`]), and a comment every 15 s (a quarter of the idle
//!   timeout) keeps the server and proxies from closing a quiet stream;
//!
//! The live page (`/`, [`super::page`]) is added to these routes by the daemon.
//!
//! PGN answers carry an `ETag` (the relay's version) and `Last-Modified`, and answer
//! `304 Not Modified` to a matching `If-None-Match` or `If-Modified-Since`, so pollers are
//! cheap. `HEAD` is answered like `GET` without the body; other methods get `405`.

use std::collections::{BTreeMap, VecDeque};
use std::convert::Infallible;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime};

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures_util::Stream;
use tokio::net::TcpListener;
use tokio::sync::broadcast;

use crate::web::{self, Connections, WebOptions, cache};

/// How many events are kept for clients that come back with `Last-Event-ID`.
pub const BACKLOG: usize = 1024;

/// What the relay publishes now.
#[derive(Debug, Clone)]
struct Snapshot {
    version: u64,
    modified: SystemTime,
    games: String,
    boards: BTreeMap<u32, String>,
}

/// One event of `/events`: its number and its JSON line.
type Numbered = (u64, Arc<str>);

/// The events kept, numbered from 1.
#[derive(Debug, Default)]
struct Backlog {
    last: u64,
    kept: VecDeque<Numbered>,
}

/// The relay's published state, shared between the relay task and the HTTP server.
#[derive(Debug)]
pub struct RelayState {
    snapshot: RwLock<Snapshot>,
    backlog: Mutex<Backlog>,
    events: broadcast::Sender<Numbered>,
}

impl RelayState {
    /// An empty relay.
    pub fn new() -> Arc<RelayState> {
        let (events, _) = broadcast::channel(BACKLOG);
        Arc::new(RelayState {
            snapshot: RwLock::new(Snapshot {
                version: 0,
                modified: SystemTime::now(),
                games: String::new(),
                boards: BTreeMap::new(),
            }),
            backlog: Mutex::new(Backlog::default()),
            events,
        })
    }

    /// Publishes the games now: `games` for all boards, and the PGN of the boards in
    /// `boards` (by id, from 0; served as board id + 1).
    pub fn publish_pgn(&self, boards: Vec<(u32, String)>, games: String) {
        if let Ok(mut s) = self.snapshot.write() {
            s.version += 1;
            s.modified = SystemTime::now();
            for (id, pgn) in boards {
                s.boards.insert(id.saturating_add(1), pgn);
            }
            s.games = games;
        }
    }

    /// Sends one JSON event line to every `/events` listener, and keeps it for those that
    /// come back.
    pub fn publish_event(&self, line: String) {
        let Ok(mut backlog) = self.backlog.lock() else {
            return;
        };
        backlog.last += 1;
        let event = (backlog.last, Arc::<str>::from(line));
        if backlog.kept.len() == BACKLOG {
            backlog.kept.pop_front();
        }
        backlog.kept.push_back(event.clone());
        // Sent under the lock: a new listener sees each event once, kept or sent.
        let _ = self.events.send(event);
    }

    /// The events after `after` still kept, and the ones to come.
    fn follow(&self, after: u64) -> (Vec<Numbered>, broadcast::Receiver<Numbered>) {
        let Ok(backlog) = self.backlog.lock() else {
            return (Vec::new(), self.events.subscribe());
        };
        let missed = backlog
            .kept
            .iter()
            .filter(|(id, _)| *id > after)
            .cloned()
            .collect();
        (missed, self.events.subscribe())
    }

    /// Board `n`'s PGN as published now (`n` from 1).
    pub fn board_pgn(&self, n: u32) -> Option<String> {
        self.snapshot.read().ok()?.boards.get(&n).cloned()
    }

    /// The number of the last event published (0 before the first).
    pub fn last_event_id(&self) -> u64 {
        self.backlog.lock().map_or(0, |b| b.last)
    }
}

/// What the relay's handlers share.
#[derive(Debug, Clone)]
struct Relay {
    state: Arc<RelayState>,
    keep_alive: Duration,
}

/// The relay's routes over `state`, for a server under `options`.
pub fn router(state: Arc<RelayState>, options: &WebOptions) -> Router {
    let relay = Relay {
        state,
        keep_alive: options.keep_alive(),
    };
    Router::new()
        .route("/games.pgn", get(games_pgn))
        .route("/board/{file}", get(board_pgn))
        .route("/events", get(events))
        .fallback(not_found)
        .with_state(relay)
}

/// Serves the relay on `listener` with the default limits, until the task is dropped.
pub async fn serve(listener: TcpListener, state: Arc<RelayState>) {
    let options = WebOptions::default();
    let connections = Connections::new(options.max_connections);
    let routes = router(state, &options);
    serve_with(listener, routes, Arc::new(options), connections).await;
}

/// Serves `routes` (the relay's, perhaps with more) on `listener` under `options`, with
/// the `Host` check its address calls for.
pub async fn serve_with(
    listener: TcpListener,
    routes: Router,
    options: Arc<WebOptions>,
    connections: Arc<Connections>,
) {
    let bind = listener
        .local_addr()
        .map_or(std::net::Ipv4Addr::LOCALHOST.into(), |a| a.ip());
    let guard = web::guard::Guard::new(bind, &options.allowed_origins);
    let routes = routes.layer(axum::middleware::from_fn_with_state(
        guard,
        web::guard::check,
    ));
    web::serve("relay", listener, routes, options, connections).await;
}

async fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        "eboardd's relay serves /, /games.pgn, /board/N.pgn and /events\n",
    )
        .into_response()
}

/// The board number a `/board/` file names: `N.pgn`, N from 1 in plain digits.
fn board_number(file: &str) -> Option<u32> {
    let digits = file.strip_suffix(".pgn")?;
    if digits.is_empty() || digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

fn pgn_answer(headers: &HeaderMap, snapshot: &Snapshot, body: String) -> Response {
    let etag = format!("\"{}\"", snapshot.version);
    let mut response = if cache::not_modified(headers, &etag, snapshot.modified) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        (
            [(
                header::CONTENT_TYPE,
                "application/x-chess-pgn; charset=utf-8",
            )],
            body,
        )
            .into_response()
    };
    let h = response.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    if let Ok(v) = HeaderValue::from_str(&httpdate::fmt_http_date(snapshot.modified)) {
        h.insert(header::LAST_MODIFIED, v);
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

fn snapshot(state: &RelayState) -> Option<Snapshot> {
    state.snapshot.read().ok().map(|s| s.clone())
}

async fn games_pgn(State(relay): State<Relay>, headers: HeaderMap) -> Response {
    match snapshot(&relay.state) {
        Some(s) => {
            let body = s.games.clone();
            pgn_answer(&headers, &s, body)
        }
        None => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

async fn board_pgn(
    State(relay): State<Relay>,
    Path(file): Path<String>,
    headers: HeaderMap,
) -> Response {
    let Some(s) = snapshot(&relay.state) else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    match board_number(&file).and_then(|n| s.boards.get(&n).cloned()) {
        Some(body) => pgn_answer(&headers, &s, body),
        None => not_found().await,
    }
}

/// The event stream: the events after `Last-Event-ID` still kept, then the new ones; it
/// ends when the client falls more than [`BACKLOG`] events behind (it comes back with its
/// last id).
fn event_stream(
    state: &RelayState,
    after: u64,
) -> impl Stream<Item = Result<Event, Infallible>> + use<> {
    let (missed, receiver) = state.follow(after);
    let missed = futures_util::stream::iter(missed);
    let live = futures_util::stream::unfold(receiver, |mut receiver| async move {
        match receiver.recv().await {
            Ok(event) => Some((event, receiver)),
            Err(_) => None,
        }
    });
    use futures_util::StreamExt as _;
    missed
        .chain(live)
        .map(|(id, line)| Ok(Event::default().id(id.to_string()).data(&*line)))
}

async fn events(State(relay): State<Relay>, headers: HeaderMap) -> Response {
    let state = &relay.state;
    let after = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        // A client that comes back to a relay that started again has no events to miss.
        .filter(|&id| id <= state.last_event_id())
        .unwrap_or_else(|| state.last_event_id());
    let stream = event_stream(state, after);
    let mut response = Sse::new(stream)
        .keep_alive(
            KeepAlive::new()
                .interval(relay.keep_alive)
                .text("keep-alive"),
        )
        .into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_numbers_are_plain_digits_from_one() {
        assert_eq!(board_number("1.pgn"), Some(1));
        assert_eq!(board_number("20.pgn"), Some(20));
        for bad in [
            "01.pgn",
            "+1.pgn",
            "0.pgn",
            "1",
            ".pgn",
            "1.pgn.pgn",
            " 1.pgn",
            "99999999999.pgn",
        ] {
            assert_eq!(board_number(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_listener_coming_back_gets_only_the_events_it_missed() {
        let state = RelayState::new();
        for n in 1..=5 {
            state.publish_event(format!("{{\"n\":{n}}}"));
        }
        let (missed, _) = state.follow(3);
        let ids: Vec<u64> = missed.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, [4, 5]);
        for n in 6..=(BACKLOG as u64 + 10) {
            state.publish_event(format!("{{\"n\":{n}}}"));
        }
        let (missed, _) = state.follow(0);
        assert_eq!(missed.len(), BACKLOG);
        assert_eq!(missed.first().map(|(id, _)| *id), Some(11));
    }
}
