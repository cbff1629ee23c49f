//! The server: connections on a TCP listener, each a WebSocket session at `/api/v1.0` (or
//! one plain HTTP `GET /api/v1.0/eboards`), answering calls from the daemon's boards.
//!
//! Each session reads the client's messages in order and answers each one; a message that
//! is not understood gets an error answer and the session goes on. Every subscription is a
//! task of its own that follows its board ([`Feed`]) and sends a feed message whenever what
//! it says changes; a single writer task sends everything, so a slow client only holds up
//! its own feeds.

use std::collections::HashMap;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, SystemTime};

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use super::PATH;
use super::feed::{Feed, clock_of, flipped, unix_ms};
use super::message::{Call, EBoard, Id, call_reply, error_reply, feed_message, parse};
use crate::daemon::Daemon;
use crate::daemon::board::BoardHandle;
use crate::event::Orientation;

/// The longest request head read before a connection is refused.
const MAX_HEAD: usize = 8192;
/// How long a client may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest message a client may send.
const MAX_MESSAGE: usize = 64 * 1024;
/// How many messages may wait for a slow client before its feeds wait too.
const OUTBOX: usize = 256;

/// Serves the LiveChess API on `listener` for the boards of `daemon`, until the task is
/// dropped.
pub async fn serve(listener: TcpListener, daemon: Daemon) {
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => {
                let daemon = daemon.clone();
                tokio::spawn(async move {
                    if let Err(e) = connection(stream, daemon).await {
                        tracing::debug!(%peer, "livechess connection: {e}");
                    }
                });
            }
            Err(e) => tracing::warn!("livechess accept: {e}"),
        }
    }
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
    let mut same = boards.iter().filter(|b| {
        let serial = b.status().serial;
        !serial.is_empty() && serial == wanted
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

/// What a request head asks for.
#[derive(Debug, PartialEq, Eq)]
enum Route {
    WebSocket,
    EBoards,
    NotFound,
    NotGet,
}

fn route(head: &str) -> Route {
    let mut lines = head.lines();
    let request = lines.next().unwrap_or_default();
    let mut parts = request.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let path = target.split('?').next().unwrap_or_default();
    let path = path.strip_suffix('/').unwrap_or(path);
    let upgrade = lines.any(|l| {
        l.split_once(':').is_some_and(|(k, v)| {
            k.trim().eq_ignore_ascii_case("upgrade") && v.trim().eq_ignore_ascii_case("websocket")
        })
    });
    if method != "GET" {
        return Route::NotGet;
    }
    match path {
        PATH if upgrade => Route::WebSocket,
        p if p == format!("{PATH}/eboards") => Route::EBoards,
        _ => Route::NotFound,
    }
}

/// Reads the request head (and whatever came with it), up to [`MAX_HEAD`].
async fn read_head(stream: &mut TcpStream) -> std::io::Result<Option<Vec<u8>>> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 1024];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        if buf.len() > MAX_HEAD {
            return Ok(None);
        }
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Ok(Some(buf))
}

async fn respond(
    stream: &mut TcpStream,
    status: &str,
    content_type: &str,
    body: &str,
) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nConnection: close\r\nContent-Type: {content_type}\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body.as_bytes()).await?;
    stream.shutdown().await
}

async fn connection(mut stream: TcpStream, daemon: Daemon) -> Result<(), String> {
    let head = match tokio::time::timeout(HEAD_TIMEOUT, read_head(&mut stream)).await {
        Ok(Ok(Some(head))) => head,
        Ok(Ok(None)) => {
            let _ = respond(&mut stream, "400 Bad Request", "text/plain", "").await;
            return Err("no request head".into());
        }
        Ok(Err(e)) => return Err(e.to_string()),
        Err(_) => return Err("no request head in time".into()),
    };
    let text = String::from_utf8_lossy(&head).into_owned();
    let not_found = format!("eboardd serves the LiveChess API at ws://HOST:PORT{PATH}\n");
    let answered = match route(&text) {
        Route::WebSocket => {
            let config = WebSocketConfig::default()
                .max_message_size(Some(MAX_MESSAGE))
                .max_frame_size(Some(MAX_MESSAGE));
            let stream = Rewind {
                head,
                at: 0,
                inner: stream,
            };
            let ws = tokio_tungstenite::accept_async_with_config(stream, Some(config))
                .await
                .map_err(|e| e.to_string())?;
            tracing::debug!("livechess client connected");
            session(ws, daemon).await;
            return Ok(());
        }
        Route::EBoards => {
            let body = serde_json::to_string(&eboards(&daemon).await).unwrap_or_default();
            respond(&mut stream, "200 OK", "application/json", &body).await
        }
        Route::NotFound => respond(&mut stream, "404 Not Found", "text/plain", &not_found).await,
        Route::NotGet => respond(&mut stream, "405 Method Not Allowed", "text/plain", "").await,
    };
    answered.map_err(|e| e.to_string())
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
async fn session<S>(ws: tokio_tungstenite::WebSocketStream<S>, daemon: Daemon)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sink, mut incoming) = ws.split();
    let (out, mut outbox) = mpsc::channel::<String>(OUTBOX);
    tokio::spawn(async move {
        while let Some(text) = outbox.recv().await {
            if sink.send(Message::text(text)).await.is_err() {
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

/// A connection whose first bytes were already read: they are read again first.
struct Rewind {
    head: Vec<u8>,
    at: usize,
    inner: TcpStream,
}

impl AsyncRead for Rewind {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        if this.at < this.head.len() {
            let n = buf.remaining().min(this.head.len() - this.at);
            buf.put_slice(&this.head[this.at..this.at + n]);
            this.at += n;
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for Rewind {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_routed_by_path_and_upgrade() {
        let ws = "GET /api/v1.0 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\r\n";
        assert_eq!(route(ws), Route::WebSocket);
        let ws = "GET /api/v1.0/?x=1 HTTP/1.1\r\nupgrade:  WebSocket\r\n\r\n";
        assert_eq!(route(ws), Route::WebSocket);
        let plain = "GET /api/v1.0/eboards HTTP/1.1\r\nHost: x\r\n\r\n";
        assert_eq!(route(plain), Route::EBoards);
        let other = "GET /other HTTP/1.1\r\nUpgrade: websocket\r\n\r\n";
        assert_eq!(route(other), Route::NotFound);
        let no_upgrade = "GET /api/v1.0 HTTP/1.1\r\n\r\n";
        assert_eq!(route(no_upgrade), Route::NotFound);
        assert_eq!(route("POST /api/v1.0 HTTP/1.1\r\n\r\n"), Route::NotGet);
    }
}
