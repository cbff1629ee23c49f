//! Browser safety: which `Host` and `Origin` a request may carry.
//!
//! Every web page the user opens can reach eboardd's listeners. A WebSocket is not held to
//! the same-origin rule, so a page from anywhere could drive the boards through the
//! LiveChess API; and a page whose name is made to resolve to 127.0.0.1 (DNS rebinding) can
//! read what a loopback listener answers. So:
//!
//! - on a listener bound to a loopback address, a request must name a loopback host
//!   (`localhost`, `127.x.x.x`, `[::1]`, any port) in `Host`, or none;
//! - a WebSocket upgrade, and any method but `GET`, `HEAD` and `OPTIONS`, must come with no
//!   `Origin` (programs that are not browsers), a loopback origin, `https://lichess.org`, or
//!   an origin the configuration adds (`[web] allowed-origins`).
//!
//! Refusals are `403 Forbidden` with a sentence saying why. It knows nothing of the boards.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The origin allowed without configuration besides loopback ones: lichess.org/dgt.
pub const LICHESS_ORIGIN: &str = "https://lichess.org";

/// What one listener lets through (see the module documentation).
#[derive(Debug, Clone)]
pub struct Guard {
    loopback_bind: bool,
    origins: Arc<Vec<String>>,
}

impl Guard {
    /// The checks for a listener bound to `bind`, allowing the configured `origins` too.
    pub fn new(bind: IpAddr, origins: &[String]) -> Guard {
        Guard {
            loopback_bind: bind.is_loopback(),
            origins: Arc::new(
                origins
                    .iter()
                    .map(|o| o.trim().trim_end_matches('/').to_ascii_lowercase())
                    .collect(),
            ),
        }
    }

    /// Why a request with these headers is refused, or `None`.
    pub fn refusal(&self, method: &Method, headers: &HeaderMap) -> Option<String> {
        if self.loopback_bind {
            let host = headers.get(header::HOST).map(|h| h.to_str().unwrap_or("?"));
            if let Some(host) = host.filter(|h| !is_loopback_host(h)) {
                return Some(format!(
                    "Host {host:?} is not this machine: a loopback listener answers only to \
                     localhost, 127.0.0.1 or [::1]"
                ));
            }
        }
        let upgrade = headers
            .get(header::UPGRADE)
            .is_some_and(|u| u.as_bytes().eq_ignore_ascii_case(b"websocket"));
        let mutating = !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
        let origin = headers
            .get(header::ORIGIN)
            .map(|o| o.to_str().unwrap_or("?"));
        if let Some(origin) = origin.filter(|o| (upgrade || mutating) && !self.origin_allowed(o)) {
            return Some(format!(
                "Origin {origin:?} may not use this API: allowed are loopback pages, \
                 {LICHESS_ORIGIN} and the origins in [web] allowed-origins"
            ));
        }
        None
    }

    /// Whether a browser page from `origin` may use the API.
    pub fn origin_allowed(&self, origin: &str) -> bool {
        let origin = origin.trim().to_ascii_lowercase();
        if origin == LICHESS_ORIGIN || self.origins.contains(&origin) {
            return true;
        }
        let rest = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"));
        rest.is_some_and(|host| !host.contains('/') && is_loopback_host(host))
    }
}

/// Whether `host` (`name[:port]`, `[v6][:port]`) names this machine's loopback.
pub fn is_loopback_host(host: &str) -> bool {
    let host = host.trim();
    let name = if let Some(rest) = host.strip_prefix('[') {
        match rest.split_once(']') {
            Some((inside, port)) if port.is_empty() || is_port(port) => inside,
            _ => return false,
        }
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) if is_port(port) => name,
            Some(_) => return false,
            None => host,
        }
    };
    let name = name.strip_suffix('.').unwrap_or(name);
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn is_port(text: &str) -> bool {
    text.strip_prefix(':')
        .unwrap_or(text)
        .parse::<u16>()
        .is_ok()
}

/// The middleware that applies a [`Guard`] to every request of a router.
pub async fn check(State(guard): State<Guard>, request: Request, next: Next) -> Response {
    match guard.refusal(request.method(), request.headers()) {
        Some(why) => {
            tracing::debug!("refused: {why}");
            (StatusCode::FORBIDDEN, format!("{why}\n")).into_response()
        }
        None => next.run(request).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(
                header::HeaderName::from_bytes(k.as_bytes()).expect("name"),
                HeaderValue::from_str(v).expect("value"),
            );
        }
        map
    }

    #[test]
    fn loopback_hosts_are_told_from_other_names() {
        for ok in [
            "localhost",
            "localhost:1982",
            "127.0.0.1",
            "127.0.0.1:8080",
            "127.1.2.3:1",
            "[::1]",
            "[::1]:1982",
            "LOCALHOST.",
        ] {
            assert!(is_loopback_host(ok), "{ok}");
        }
        for bad in [
            "evil.example",
            "rebind.attacker.example:1982",
            "127.0.0.1.evil.example",
            "localhost.evil.example",
            "[::1]x",
            "10.0.0.1",
            "localhost:99999",
        ] {
            assert!(!is_loopback_host(bad), "{bad}");
        }
    }

    #[test]
    fn a_loopback_bind_refuses_other_hosts_and_a_wide_bind_does_not() {
        let loopback = Guard::new("127.0.0.1".parse().expect("ip"), &[]);
        let evil = headers(&[("host", "evil.example")]);
        assert!(loopback.refusal(&Method::GET, &evil).is_some());
        assert!(loopback.refusal(&Method::GET, &headers(&[])).is_none());
        let wide = Guard::new("0.0.0.0".parse().expect("ip"), &[]);
        assert!(wide.refusal(&Method::GET, &evil).is_none());
    }

    #[test]
    fn websockets_and_mutating_calls_are_held_to_the_allowed_origins() {
        let guard = Guard::new(
            "127.0.0.1".parse().expect("ip"),
            &["https://club.example/".to_string()],
        );
        let ws = |origin: &str| {
            headers(&[
                ("host", "127.0.0.1:1982"),
                ("upgrade", "websocket"),
                ("origin", origin),
            ])
        };
        assert!(
            guard
                .refusal(&Method::GET, &ws("https://evil.example"))
                .is_some()
        );
        assert!(guard.refusal(&Method::GET, &ws("null")).is_some());
        for ok in [
            "https://lichess.org",
            "http://localhost:8080",
            "http://127.0.0.1",
            "https://club.example",
        ] {
            assert!(guard.refusal(&Method::GET, &ws(ok)).is_none(), "{ok}");
        }
        let post = headers(&[("origin", "https://evil.example")]);
        assert!(guard.refusal(&Method::POST, &post).is_some());
        assert!(guard.refusal(&Method::GET, &post).is_none());
    }
}
