//! `--relay-listen ADDR`: the relay's PGN and events over a minimal HTTP/1.1 server.
//!
//! - `GET /games.pgn`: every board's game in board order;
//! - `GET /board/N.pgn`: board N's game (N from 1);
//! - `GET /events`: the contract's JSON events as server-sent events (`data: {...}`).
//!
//! PGN answers carry an `ETag` (the relay's version) and `Last-Modified`, and answer
//! `304 Not Modified` to a matching `If-None-Match`, so pollers are cheap. Every answer closes
//! the connection. Only `GET` is served; requests are read up to 8 KiB.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use std::time::{SystemTime, UNIX_EPOCH};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::broadcast;

const MAX_REQUEST: usize = 8192;

/// What the relay publishes now.
#[derive(Debug, Clone)]
struct Snapshot {
    version: u64,
    modified: SystemTime,
    games: String,
    boards: BTreeMap<u32, String>,
}

/// The relay's published state, shared between the relay task and the HTTP server.
#[derive(Debug)]
pub struct RelayState {
    snapshot: RwLock<Snapshot>,
    events: broadcast::Sender<String>,
}

impl RelayState {
    /// An empty relay.
    pub fn new() -> Arc<RelayState> {
        let (events, _) = broadcast::channel(1024);
        Arc::new(RelayState {
            snapshot: RwLock::new(Snapshot {
                version: 0,
                modified: SystemTime::now(),
                games: String::new(),
                boards: BTreeMap::new(),
            }),
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

    /// Sends one JSON event line to every `/events` listener.
    pub fn publish_event(&self, line: String) {
        let _ = self.events.send(line);
    }
}

/// An HTTP date (RFC 9110 IMF-fixdate) for `t`.
pub fn http_date(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = secs / 86_400;
    let rem = secs % 86_400;
    // Days to civil date (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let weekday = WEEKDAYS[(days % 7) as usize];
    let month_name = MONTHS[((month - 1).clamp(0, 11)) as usize];
    format!(
        "{weekday}, {day:02} {month_name} {year} {:02}:{:02}:{:02} GMT",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Serves the relay on `listener` until the task is dropped.
pub async fn serve(listener: TcpListener, state: Arc<RelayState>) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                let state = state.clone();
                tokio::spawn(async move {
                    if let Err(e) = handle(stream, state).await {
                        tracing::debug!("relay connection: {e}");
                    }
                });
            }
            Err(e) => tracing::warn!("relay accept: {e}"),
        }
    }
}

async fn read_head(stream: &mut TcpStream) -> std::io::Result<Option<String>> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 1024];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        if buf.len() > MAX_REQUEST {
            return Ok(None);
        }
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Ok(Some(String::from_utf8_lossy(&buf).into_owned()))
}

async fn respond(
    stream: &mut TcpStream,
    status: &str,
    headers: &[(&str, String)],
    body: &str,
) -> std::io::Result<()> {
    let mut head = format!("HTTP/1.1 {status}\r\nConnection: close\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body.as_bytes()).await?;
    stream.shutdown().await
}

async fn handle(mut stream: TcpStream, state: Arc<RelayState>) -> std::io::Result<()> {
    let Some(head) = read_head(&mut stream).await? else {
        return respond(&mut stream, "400 Bad Request", &[], "").await;
    };
    let mut lines = head.lines();
    let request = lines.next().unwrap_or_default();
    let mut parts = request.split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let if_none_match = lines.find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim()
            .eq_ignore_ascii_case("if-none-match")
            .then(|| v.trim().to_string())
    });
    if method != "GET" {
        let allow = [("Allow", "GET".to_string())];
        return respond(&mut stream, "405 Method Not Allowed", &allow, "").await;
    }
    if path == "/events" {
        let mut events = state.events.subscribe();
        stream
            .write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\
                  Cache-Control: no-cache\r\nConnection: close\r\n\r\n",
            )
            .await?;
        stream.flush().await?;
        loop {
            match events.recv().await {
                Ok(line) => {
                    stream
                        .write_all(format!("data: {line}\n\n").as_bytes())
                        .await?;
                    stream.flush().await?;
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return Ok(()),
            }
        }
    }
    let snapshot = state.snapshot.read().ok().map(|s| s.clone());
    let Some(snapshot) = snapshot else {
        return respond(&mut stream, "500 Internal Server Error", &[], "").await;
    };
    let body = if path == "/games.pgn" {
        Some(snapshot.games.clone())
    } else {
        path.strip_prefix("/board/")
            .and_then(|rest| rest.strip_suffix(".pgn"))
            .and_then(|n| n.parse::<u32>().ok())
            .and_then(|n| snapshot.boards.get(&n).cloned())
    };
    let Some(body) = body else {
        return respond(&mut stream, "404 Not Found", &[], "").await;
    };
    let etag = format!("\"{}\"", snapshot.version);
    let headers = [
        ("Content-Type", "application/x-chess-pgn".to_string()),
        ("ETag", etag.clone()),
        ("Last-Modified", http_date(snapshot.modified)),
        ("Cache-Control", "no-cache".to_string()),
    ];
    if if_none_match.as_deref() == Some(etag.as_str()) {
        return respond(&mut stream, "304 Not Modified", &headers, "").await;
    }
    respond(&mut stream, "200 OK", &headers, &body).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_dates_are_imf_fixdates() {
        let t = UNIX_EPOCH + std::time::Duration::from_secs(784_111_777);
        assert_eq!(http_date(t), "Sun, 06 Nov 1994 08:49:37 GMT");
    }
}
