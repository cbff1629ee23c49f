//! The server: the LiveChess routes on [`crate::web`]'s HTTP front — a WebSocket session
//! at `/api/v1.0` and a plain `GET /api/v1.0/eboards` — answering calls from the daemon's
//! boards.
//!
//! Each session reads the client's messages in order and answers each one; a message that
//! is not understood gets an error answer and the session goes on. Every subscription is a
//! task of its own that follows its board ([`Feed`]) and sends a feed message whenever what
//! it says changes; a single writer task sends everything (and a ping every quarter of the
//! idle timeout, so that a quiet session is not taken for an idle one), so a slow client
//! only holds up its own feeds. A session holds at most [`MAX_FEEDS`] subscriptions.
//! Browser pages are held to the allowed origins by [`crate::web::guard`].

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures_util::{SinkExt, StreamExt};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};

use super::PATH;
use super::feed::{Feed, clock_of, flipped, unix_ms};
use super::message::{Call, EBoard, Id, call_reply, error_reply, feed_message, parse};
use crate::daemon::Daemon;
use crate::daemon::board::BoardHandle;
use crate::event::Orientation;
use crate::web::{self, Connections, Held, WebOptions};

/// The longest message a client may send.
const MAX_MESSAGE: usize = 64 * 1024;
/// How many messages may wait for a slow client before its feeds wait too.
const OUTBOX: usize = 256;
/// The most subscriptions one session may hold at once.
pub const MAX_FEEDS: usize = 64;
/// What the API's handlers share.
#[derive(Clone)]
struct Api {
    daemon: Daemon,
    ping: Duration,
}

/// The LiveChess routes for the boards of `daemon`, for a server under `options`.
pub fn router(daemon: Daemon, options: &WebOptions) -> Router {
    let api_state = Api {
        daemon,
        ping: options.keep_alive(),
    };
    Router::new()
        .route(PATH, get(api))
        .route(&format!("{PATH}/"), get(api))
        .route(&format!("{PATH}/eboards"), get(eboards_json))
        .route(&format!("{PATH}/eboards/"), get(eboards_json))
        .fallback(not_found)
        .with_state(api_state)
}

/// Serves the LiveChess API on `listener` for the boards of `daemon` with the default
/// limits, until the task is dropped.
pub async fn serve(listener: TcpListener, daemon: Daemon) {
    let options = WebOptions::default();
    let connections = Connections::new(options.max_connections);
    serve_with(listener, daemon, Arc::new(options), connections).await;
}

/// Serves the LiveChess API on `listener` under `options`, until the task is dropped.
pub async fn serve_with(
    listener: TcpListener,
    daemon: Daemon,
    options: Arc<WebOptions>,
    connections: Arc<Connections>,
) {
    let bind = listener
        .local_addr()
        .map_or(std::net::Ipv4Addr::LOCALHOST.into(), |a| a.ip());
    let guard = web::guard::Guard::new(bind, &options.allowed_origins);
    let routes = router(daemon, &options).layer(axum::middleware::from_fn_with_state(
        guard,
        web::guard::check,
    ));
    web::serve("livechess", listener, routes, options, connections).await;
}

async fn not_found() -> Response {
    let text = format!("eboardd serves the LiveChess API at ws://HOST:PORT{PATH}\n");
    (StatusCode::NOT_FOUND, text).into_response()
}

async fn eboards_json(State(api): State<Api>) -> Response {
    let body = serde_json::to_string(&eboards(&api.daemon).await).unwrap_or_default();
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// `/api/v1.0`: the WebSocket handshake (RFC 6455 §4.2), then the session.
async fn api(State(api): State<Api>, mut request: Request) -> Response {
    let Api { daemon, ping } = api;
    let headers = request.headers();
    let has = |name: header::HeaderName, token: &str| {
        headers.get_all(name).iter().any(|v| {
            v.to_str()
                .is_ok_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
        })
    };
    if !has(header::UPGRADE, "websocket") {
        return not_found().await;
    }
    if !has(header::CONNECTION, "upgrade") || !has(header::SEC_WEBSOCKET_VERSION, "13") {
        let why = "a WebSocket needs Connection: Upgrade and Sec-WebSocket-Version: 13\n";
        return (StatusCode::BAD_REQUEST, why).into_response();
    }
    let Some(key) = headers.get(header::SEC_WEBSOCKET_KEY) else {
        return (StatusCode::BAD_REQUEST, "no Sec-WebSocket-Key\n").into_response();
    };
    let accept = derive_accept_key(key.as_bytes());
    let held = request.extensions_mut().remove::<Held>();
    let upgrade = hyper::upgrade::on(&mut request);
    tokio::spawn(async move {
        let upgraded = match upgrade.await {
            Ok(u) => u,
            Err(e) => {
                tracing::debug!("livechess upgrade: {e}");
                return;
            }
        };
        let config = WebSocketConfig::default()
            .max_message_size(Some(MAX_MESSAGE))
            .max_frame_size(Some(MAX_MESSAGE));
        let ws =
            WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Server, Some(config))
                .await;
        tracing::debug!("livechess client connected");
        session(ws, daemon, ping).await;
        // The connection's place under the cap is given back when the session ends.
        drop(held);
    });
    let mut response = StatusCode::SWITCHING_PROTOCOLS.into_response();
    let h = response.headers_mut();
    h.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    h.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
    if let Ok(v) = HeaderValue::from_str(&accept) {
        h.insert(header::SEC_WEBSOCKET_ACCEPT, v);
    }
    response
}

/// The board's key in the API: its number in eboardd, from 1.
pub fn serialnr(handle: &BoardHandle) -> String {
    handle.id().saturating_add(1).to_string()
}

/// The board a client names: by its number, or by the board's own serial number when one
/// board has it.
async fn find_board(daemon: &Daemon, serialnr_text: &str) -> Option<BoardHandle> {
    let boards = daemon.boards().await;
    let wanted = serialnr_text.trim();
    if let Some(b) = boards.iter().find(|b| serialnr(b) == wanted) {
        return Some(b.clone());
    }
    // A DGT board's serial reads "3.10 10960" (version, then number): either names it.
    let mut same = boards.iter().filter(|b| {
        let serial = b.status().serial;
        !wanted.is_empty() && (serial == wanted || serial.split_whitespace().last() == Some(wanted))
    });
    match (same.next(), same.next()) {
        (Some(b), None) => Some(b.clone()),
        _ => None,
    }
}

/// The answer to `eboards`: every board attached now.
async fn eboards(daemon: &Daemon) -> Vec<EBoard> {
    let mut list = Vec::new();
    for handle in daemon.boards().await {
        let status = handle.status();
        let clock = match handle.follow_game().await {
            Ok(follow) => follow.clock.map(|(reading, at)| clock_of(reading, at)),
            Err(_) => None,
        };
        let comment = format!("{} {}", status.protocol, status.serial);
        list.push(EBoard {
            serialnr: serialnr(&handle),
            source: Some(status.device.clone()),
            state: Some(if status.connected {
                "ACTIVE"
            } else {
                "NOTRESPONDING"
            }),
            battery: None,
            comment: Some(comment.trim().to_string()).filter(|c| !c.is_empty()),
            board: Some(status.placement.clone()).filter(|p| !p.is_empty()),
            flipped: flipped(&status),
            clock,
        });
    }
    list
}

/// A request to a subscription's task.
enum Control {
    /// `setup` with this FEN; the answer says whether it was done.
    Setup(String, oneshot::Sender<Result<(), String>>),
}

/// One feed of a session.
struct Subscription {
    handle: BoardHandle,
    control: mpsc::Sender<Control>,
    task: JoinHandle<()>,
}

/// One client's WebSocket session, until it closes.
async fn session<S>(ws: tokio_tungstenite::WebSocketStream<S>, daemon: Daemon, ping: Duration)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sink, mut incoming) = ws.split();
    let (out, mut outbox) = mpsc::channel::<String>(OUTBOX);
    tokio::spawn(async move {
        let mut ping = tokio::time::interval(ping);
        ping.tick().await;
        loop {
            let message = tokio::select! {
                text = outbox.recv() => match text {
                    Some(text) => Message::text(text),
                    None => break,
                },
                _ = ping.tick() => Message::Ping(Vec::new().into()),
            };
            if sink.send(message).await.is_err() {
                return;
            }
        }
        let _ = sink.close().await;
    });
    let mut feeds: HashMap<Id, Subscription> = HashMap::new();
    while let Some(message) = incoming.next().await {
        let text = match message {
            Ok(Message::Text(text)) => text,
            Ok(Message::Binary(_)) => {
                let now = unix_ms(SystemTime::now());
                let reply = error_reply(Value::Null, "send calls as JSON text messages", now);
                if out.send(reply).await.is_err() {
                    break;
                }
                continue;
            }
            Ok(Message::Close(_)) => break,
            Ok(_) => continue,
            Err(e) => {
                tracing::debug!("livechess session: {e}");
                break;
            }
        };
        let reply = match parse(text.as_str()) {
            Ok((id, call)) => match answer(id, call, &daemon, &mut feeds, &out).await {
                Ok(None) => continue,
                Ok(Some(reply)) => reply,
                Err(message) => error_reply(Value::from(id), &message, unix_ms(SystemTime::now())),
            },
            Err(bad) => error_reply(bad.id, &bad.message, unix_ms(SystemTime::now())),
        };
        if out.send(reply).await.is_err() {
            break;
        }
    }
    for (_, feed) in feeds {
        feed.task.abort();
    }
    tracing::debug!("livechess client gone");
}

/// Carries out one call: the answer to send (`None` when it was sent already), or why not.
async fn answer(
    id: Id,
    call: Call,
    daemon: &Daemon,
    feeds: &mut HashMap<Id, Subscription>,
    out: &mpsc::Sender<String>,
) -> Result<Option<String>, String> {
    let now = || unix_ms(SystemTime::now());
    let no_feed = |feed: Id| format!("no feed {feed} on this connection: subscribe first");
    match call {
        Call::EBoards => Ok(Some(call_reply(id, eboards(daemon).await, now()))),
        Call::Subscribe {
            feed,
            serialnr: named,
        } => {
            if feeds.len() >= MAX_FEEDS && !feeds.contains_key(&feed) {
                return Err(format!(
                    "this connection holds {MAX_FEEDS} feeds already, the most it may: \
                     unsubscribe one first"
                ));
            }
            let handle = find_board(daemon, &named)
                .await
                .ok_or_else(|| format!("no board with serialnr {named:?}"))?;
            let follow = handle.follow_game().await.map_err(|e| e.to_string())?;
            // The answer goes before the feed's first message.
            out.send(call_reply(id, Value::Null, now()))
                .await
                .map_err(|_| "the connection is closing".to_string())?;
            let (control, inbox) = mpsc::channel(8);
            let clock = follow.clock.map(|(reading, at)| clock_of(reading, at));
            let state = Feed::new(serialnr(&handle), follow.record, clock);
            let task = tokio::spawn(run_feed(
                feed,
                handle.clone(),
                state,
                follow.events,
                inbox,
                out.clone(),
            ));
            if let Some(old) = feeds.insert(
                feed,
                Subscription {
                    handle,
                    control,
                    task,
                },
            ) {
                old.task.abort();
            }
            Ok(None)
        }
        Call::Unsubscribe { feed } => {
            let sub = feeds.remove(&feed).ok_or_else(|| no_feed(feed))?;
            sub.task.abort();
            Ok(Some(call_reply(id, Value::Null, now())))
        }
        Call::Setup { feed, fen } => {
            let sub = feeds.get(&feed).ok_or_else(|| no_feed(feed))?;
            let (tx, rx) = oneshot::channel();
            sub.control
                .send(Control::Setup(fen, tx))
                .await
                .map_err(|_| format!("feed {feed} has ended (the board was detached)"))?;
            rx.await
                .map_err(|_| format!("feed {feed} has ended (the board was detached)"))??;
            Ok(Some(call_reply(id, Value::Null, now())))
        }
        Call::Flip { feed, flip } => {
            let sub = feeds.get(&feed).ok_or_else(|| no_feed(feed))?;
            let turned = flip.unwrap_or_else(|| !flipped(&sub.handle.status()));
            let orientation = if turned {
                Orientation::Rotated
            } else {
                Orientation::Normal
            };
            sub.handle
                .set_orientation(orientation)
                .await
                .map_err(|e| e.to_string())?;
            Ok(Some(call_reply(id, Value::Null, now())))
        }
    }
}

/// A subscription's task: follows the board and sends a feed message whenever what the
/// feed says changes, the first at once.
async fn run_feed(
    feed_id: Id,
    handle: BoardHandle,
    mut feed: Feed,
    mut events: broadcast::Receiver<crate::event::TimedEvent>,
    mut control: mpsc::Receiver<Control>,
    out: mpsc::Sender<String>,
) {
    let mut status = handle.watch_status();
    feed.handle_status(&status.borrow_and_update());
    let mut last = None;
    loop {
        let now = feed.event();
        if last.as_ref() != Some(&now) {
            let text = feed_message(feed_id, &now, unix_ms(SystemTime::now()));
            if out.send(text).await.is_err() {
                return;
            }
            last = Some(now);
        }
        tokio::select! {
            event = events.recv() => match event {
                Ok(event) => feed.handle_event(&event.event, SystemTime::now()),
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    tracing::debug!(feed = feed_id, missed, "livechess feed fell behind");
                    match handle.follow_game().await {
                        Ok(follow) => {
                            let clock = follow.clock.map(|(reading, at)| clock_of(reading, at));
                            feed.restart(follow.record, clock);
                            events = follow.events;
                        }
                        Err(_) => return,
                    }
                }
                Err(broadcast::error::RecvError::Closed) => return,
            },
            changed = status.changed() => {
                if changed.is_err() {
                    return;
                }
                feed.handle_status(&status.borrow_and_update());
            }
            request = control.recv() => match request {
                Some(Control::Setup(fen, reply)) => {
                    let done = if feed.rebase(&fen) {
                        Ok(())
                    } else {
                        handle.new_game(&fen).await.map_err(|e| e.to_string())
                    };
                    let _ = reply.send(done);
                }
                None => return,
            },
        }
    }
}
