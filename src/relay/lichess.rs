//! `--lichess-round ID --lichess-token-file FILE`: the round's PGN pushed to a lichess
//! broadcast round.
//!
//! Every board's game, in board order (the text of `games.pgn`), is sent as the body of
//! `POST {base}/api/broadcast/round/{id}/push` with `Authorization: Bearer <token>` and
//! `Content-Type: text/plain`, at most once a second and only when it changed
//! ([`super::push::PushSchedule`]). After a failure (no connection, a timeout, an error
//! status) the latest PGN is pushed again after 1 s, 2 s, 4 s... up to a minute, or after the
//! server's `Retry-After` (seconds); a `429 Too Many Requests` without one waits a minute, as
//! lichess asks. The reply's per-game errors are logged.
//!
//! A lichess round keeps 64 games: a hall with more boards gives several rounds
//! (`--lichess-round ID1,ID2`), each pushed on its own as above, the first with boards 1 to
//! 64, the next with boards 65 to 128, and so on ([`spawn_lichess_pushes`]).
//!
//! The token is read from a file ([`LichessToken::read`]) and is never written anywhere but
//! the request's header: not in logs, errors or `Debug` output. The HTTP client's wire
//! traces, which would show it, are kept out of the logs by [`loggable`]. The HTTP client
//! is ureq (blocking, rustls with ring, no system TLS library); each push runs on tokio's
//! blocking pool.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use super::files::PgnDir;
use super::push::{Done, PushSchedule};
use crate::time::Time;

/// lichess itself.
pub const LICHESS: &str = "https://lichess.org";

/// The longest one push may take, connection included.
const PUSH_TIMEOUT: Duration = Duration::from_secs(30);

/// How much of an error reply is logged.
const REPLY_EXCERPT: usize = 300;

/// The most games lichess keeps in one broadcast round.
pub const MAX_GAMES: usize = 64;

/// A lichess API token (the `study:write` scope). Shown as `LichessToken(<hidden>)`.
#[derive(Clone, PartialEq, Eq)]
pub struct LichessToken(String);

impl fmt::Debug for LichessToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LichessToken(<hidden>)")
    }
}

/// Why a token file cannot be used. The messages name the file, never what it holds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// The file cannot be read.
    #[error("cannot read the lichess token file {path}: {reason}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why (the system's words).
        reason: String,
    },
    /// The file holds nothing but white space.
    #[error("the lichess token file {path} is empty: put a lichess API token in it")]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// The file holds more than one token, or characters no token has.
    #[error(
        "the lichess token file {path} does not hold one lichess API token (letters, digits \
         and _ only, on one line)"
    )]
    Malformed {
        /// The file.
        path: PathBuf,
    },
}

impl LichessToken {
    /// Reads the token from `path`: the file's text without surrounding white space. The
    /// second value is a warning to log when other users may read the file.
    pub fn read(path: &Path) -> Result<(LichessToken, Option<String>), TokenError> {
        let text = std::fs::read_to_string(path).map_err(|e| TokenError::Unreadable {
            path: path.to_path_buf(),
            reason: io_reason(&e),
        })?;
        let token = LichessToken::parse(&text).map_err(|empty| match empty {
            true => TokenError::Empty {
                path: path.to_path_buf(),
            },
            false => TokenError::Malformed {
                path: path.to_path_buf(),
            },
        })?;
        let warning = world_readable(path).then(|| {
            format!(
                "the lichess token file {} can be read by every user of this machine; \
                 chmod o-r it",
                path.display()
            )
        });
        Ok((token, warning))
    }

    /// A token from its text (white space around it dropped); `Err(true)` when there is
    /// none, `Err(false)` when the text is not one token.
    fn parse(text: &str) -> Result<LichessToken, bool> {
        let token = text.trim();
        if token.is_empty() {
            return Err(true);
        }
        if !token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            return Err(false);
        }
        Ok(LichessToken(token.to_string()))
    }

    /// `text` with every occurrence of the token replaced, for messages that may quote a
    /// server's or a library's words.
    pub fn scrub(&self, text: &str) -> String {
        text.replace(&self.0, "<token>")
    }
}

/// The system's words for an IO error, without the file's contents (an IO error has none).
fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        std::io::ErrorKind::InvalidData => "not UTF-8 text".to_string(),
        _ => e.to_string(),
    }
}

fn world_readable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o004 != 0)
}

/// Whether a log record may be written: never the HTTP client's or TLS library's
/// `TRACE` records, which show every byte sent (the token's header too). The daemon's
/// logging keeps only what this accepts.
pub fn loggable(meta: &tracing::Metadata<'_>) -> bool {
    let wire = ["ureq", "rustls"]
        .iter()
        .any(|crate_name| meta.target().starts_with(crate_name));
    !(wire && *meta.level() == tracing::Level::TRACE)
}

/// Why a round ID or base address cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PushSetupError {
    /// The round ID is not one.
    #[error("--lichess-round {0}: a round ID is letters and digits (8 on lichess)")]
    Round(String),
    /// The base address is not `http://` or `https://`.
    #[error("--lichess-url {0}: expected http://HOST[:PORT] or https://HOST[:PORT]")]
    Url(String),
    /// A round is given twice.
    #[error("--lichess-round {0} is given twice: each round takes its own 64 boards")]
    Twice(String),
}

/// What a push got back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// The server took the PGN: how many games it read, and the errors it gave for games
    /// (`Round` tag and message).
    Accepted {
        /// Games in the reply.
        games: usize,
        /// Games refused, with why.
        errors: Vec<String>,
    },
    /// The server did not take it, or could not be reached.
    Failed {
        /// A sentence for the log (the token scrubbed out).
        why: String,
        /// The pause the server asked for (or a minute for a bare 429).
        retry_after: Option<Duration>,
    },
}

/// Pushes to one lichess broadcast round. Shown without its token.
pub struct LichessPush {
    endpoint: String,
    round: String,
    token: LichessToken,
    agent: ureq::Agent,
}

impl fmt::Debug for LichessPush {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LichessPush")
            .field("endpoint", &self.endpoint)
            .field("token", &self.token)
            .finish_non_exhaustive()
    }
}

impl LichessPush {
    /// Pushes to round `round` of the lichess at `base` (normally [`LICHESS`]).
    pub fn new(base: &str, round: &str, token: LichessToken) -> Result<Self, PushSetupError> {
        if round.is_empty() || round.len() > 64 || !round.bytes().all(|b| b.is_ascii_alphanumeric())
        {
            return Err(PushSetupError::Round(round.to_string()));
        }
        let base = base.trim_end_matches('/');
        let rest = base
            .strip_prefix("https://")
            .or_else(|| base.strip_prefix("http://"));
        if rest.is_none_or(|host| host.is_empty() || host.contains(['/', '?', '#', '@', ' '])) {
            return Err(PushSetupError::Url(base.to_string()));
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(PUSH_TIMEOUT))
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(concat!("eboardd/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Ok(LichessPush {
            endpoint: format!("{base}/api/broadcast/round/{round}/push"),
            round: round.to_string(),
            token,
            agent,
        })
    }

    /// The address pushed to.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The round pushed to.
    pub fn round(&self) -> &str {
        &self.round
    }

    /// Pushes `pgn` once and waits for the reply (blocking: up to 30 s).
    pub fn push(&self, pgn: &str) -> Reply {
        let sent = self
            .agent
            .post(&self.endpoint)
            .header("Authorization", format!("Bearer {}", self.token.0))
            .content_type("text/plain; charset=utf-8")
            .send(pgn);
        let mut response = match sent {
            Ok(r) => r,
            Err(e) => {
                return Reply::Failed {
                    why: self.token.scrub(&e.to_string()),
                    retry_after: None,
                };
            }
        };
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let body = response
            .body_mut()
            .with_config()
            .limit(1 << 20)
            .read_to_string()
            .unwrap_or_default();
        if (200..300).contains(&status) {
            let (games, errors) = game_errors(&body);
            return Reply::Accepted { games, errors };
        }
        let excerpt: String = body.chars().take(REPLY_EXCERPT).collect();
        let excerpt = excerpt.split_whitespace().collect::<Vec<_>>().join(" ");
        Reply::Failed {
            why: self
                .token
                .scrub(&format!("the server answered {status}: {excerpt}")),
            retry_after: match status {
                429 => retry_after.or(Some(Duration::from_secs(60))),
                _ => retry_after,
            },
        }
    }
}

/// The games of a push reply (`{"games":[{"tags":{...},"moves":N} | {"tags":..,"error":".."}]}`)
/// and the errors among them, each as `Round "R": error`.
fn game_errors(body: &str) -> (usize, Vec<String>) {
    let Ok(reply) = serde_json::from_str::<serde_json::Value>(body) else {
        return (0, Vec::new());
    };
    let games = reply["games"].as_array().cloned().unwrap_or_default();
    let errors = games
        .iter()
        .filter_map(|g| {
            let error = g["error"].as_str()?;
            let round = g["tags"]["Round"].as_str().unwrap_or("?");
            Some(format!("Round \"{round}\": {error}"))
        })
        .collect();
    (games.len(), errors)
}

/// Starts one push for each of `pushers` (one per lichess round, in the order given), fed
/// by `files`: the first round gets boards 1 to 64, the next 65 to 128, and so on (see
/// [`PgnDir::push_to`]). Returns `files`, now feeding them, and the push tasks.
pub fn spawn_lichess_pushes(
    mut files: PgnDir,
    pushers: Vec<LichessPush>,
) -> (PgnDir, Vec<tokio::task::JoinHandle<()>>) {
    let mut tasks = Vec::with_capacity(pushers.len());
    for pusher in pushers {
        let (tx, rx) = watch::channel(String::new());
        files = files.push_to(tx);
        tasks.push(spawn_lichess_push(pusher, rx));
    }
    (files, tasks)
}

/// The pushes of `--lichess-round ID[,ID...]` to the lichess at `base`, all with the token
/// of `token_file` (and the warning to log about the file, if any). A round given twice is
/// an error.
pub fn lichess_pushes(
    base: &str,
    rounds: &[String],
    token_file: &Path,
) -> Result<(Vec<LichessPush>, Option<String>), PushError> {
    let (token, warning) = LichessToken::read(token_file)?;
    let mut pushers: Vec<LichessPush> = Vec::with_capacity(rounds.len());
    for round in rounds {
        if pushers.iter().any(|p| p.round() == round) {
            return Err(PushSetupError::Twice(round.clone()).into());
        }
        pushers.push(LichessPush::new(base, round, token.clone())?);
    }
    Ok((pushers, warning))
}

/// Why the pushes cannot start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PushError {
    /// The token file.
    #[error(transparent)]
    Token(#[from] TokenError),
    /// A round ID or the base address.
    #[error(transparent)]
    Setup(#[from] PushSetupError),
}

/// Starts pushing `games` (the round's PGN as it changes; empty: nothing yet) with
/// `pusher`, until `games`' sender is dropped.
pub fn spawn_lichess_push(
    pusher: LichessPush,
    games: watch::Receiver<String>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(run_push(Arc::new(pusher), games))
}

async fn run_push(pusher: Arc<LichessPush>, mut games: watch::Receiver<String>) {
    let origin = tokio::time::Instant::now();
    let now = || Time::from_micros(u64::try_from(origin.elapsed().as_micros()).unwrap_or(u64::MAX));
    let mut schedule = PushSchedule::new();
    let mut pushed = String::new();
    let mut logged_errors: Vec<String> = Vec::new();
    let mut in_flight: Option<(tokio::task::JoinHandle<Reply>, String)> = None;
    let mut open = true;
    let mut warned_games = false;
    if !games.borrow_and_update().is_empty() {
        schedule.handle_change();
    }
    tracing::info!(round = pusher.round(), "pushing the round's PGN to lichess");
    loop {
        if in_flight.is_none() && schedule.poll_start(now()) {
            let pgn = games.borrow_and_update().clone();
            if pgn == pushed || pgn.is_empty() {
                schedule.handle_done(now(), Done::Accepted);
            } else {
                let count =
                    pgn.matches("\n[Event ").count() + usize::from(pgn.starts_with("[Event "));
                if count > MAX_GAMES && !warned_games {
                    warned_games = true;
                    tracing::warn!(
                        round = pusher.round(),
                        games = count,
                        "a lichess round keeps {MAX_GAMES} games at most; the others are \
                         refused: give one more --lichess-round for every {MAX_GAMES} boards"
                    );
                }
                let p = Arc::clone(&pusher);
                let text = pgn.clone();
                in_flight = Some((tokio::task::spawn_blocking(move || p.push(&text)), pgn));
            }
            continue;
        }
        // The relay stopped: done once the last PGN went, or could not go.
        if !open
            && in_flight.is_none()
            && (schedule.poll_timeout().is_none() || schedule.failures() > 0)
        {
            break;
        }
        let deadline = schedule
            .poll_timeout()
            .map(|t| origin + Duration::from_micros(t.as_micros()));
        tokio::select! {
            changed = games.changed(), if open => match changed {
                Ok(()) => schedule.handle_change(),
                // The relay stopped: finish the push under way, then stop.
                Err(_) => open = false,
            },
            reply = async {
                match &mut in_flight {
                    Some((task, _)) => task.await,
                    None => std::future::pending().await,
                }
            } => {
                let sent = in_flight.take().map(|(_, pgn)| pgn).unwrap_or_default();
                let reply = reply.unwrap_or_else(|e| Reply::Failed {
                    why: format!("the push stopped: {e}"),
                    retry_after: None,
                });
                match reply {
                    Reply::Accepted { games, errors } => {
                        if schedule.failures() > 0 {
                            tracing::info!(round = pusher.round(), "lichess takes the pushes again");
                        }
                        schedule.handle_done(now(), Done::Accepted);
                        tracing::debug!(round = pusher.round(), games, bytes = sent.len(), "pushed to lichess");
                        if errors != logged_errors {
                            for e in &errors {
                                tracing::warn!(round = pusher.round(), "lichess refused a game: {e}");
                            }
                            logged_errors = errors;
                        }
                        pushed = sent;
                    }
                    Reply::Failed { why, retry_after } => {
                        schedule.handle_done(now(), Done::Failed { retry_after });
                        let wait = schedule
                            .poll_timeout()
                            .map(|t| t.saturating_since(now()).as_secs_f64())
                            .unwrap_or_default();
                        tracing::warn!(
                            round = pusher.round(),
                            failures = schedule.failures(),
                            "cannot push to lichess ({why}); trying again in {wait:.0} s"
                        );
                    }
                }
            },
            () = async {
                match deadline {
                    Some(d) => tokio::time::sleep_until(d).await,
                    None => std::future::pending().await,
                }
            }, if in_flight.is_none() => {},
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    const TOKEN: &str = "lip_s3cretTokenText_42";

    #[test]
    fn the_token_is_the_files_text_trimmed_and_never_shown() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("token");
        std::fs::write(&path, format!("  {TOKEN}\n")).expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        let (token, warning) = LichessToken::read(&path).expect("a token");
        assert_eq!(token.0, TOKEN);
        assert_eq!(warning, None);
        assert_eq!(format!("{token:?}"), "LichessToken(<hidden>)");
        let push = LichessPush::new("http://127.0.0.1:9", "abcd1234", token.clone()).expect("push");
        let shown = format!("{push:?}");
        assert!(!shown.contains(TOKEN), "{shown}");
        assert!(
            shown.contains("http://127.0.0.1:9/api/broadcast/round/abcd1234/push"),
            "{shown}"
        );
        assert_eq!(
            token.scrub(&format!("echo: Bearer {TOKEN}.")),
            "echo: Bearer <token>."
        );
    }

    #[test]
    fn a_world_readable_token_file_is_used_with_a_warning() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("token");
        std::fs::write(&path, TOKEN).expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let (_, warning) = LichessToken::read(&path).expect("a token");
        let warning = warning.expect("a warning");
        assert!(warning.contains("every user"), "{warning}");
        assert!(!warning.contains(TOKEN));
    }

    #[test]
    fn missing_empty_and_malformed_token_files_are_errors_naming_the_file_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let missing = dir.path().join("nothing");
        let e = LichessToken::read(&missing).expect_err("missing");
        assert_eq!(
            e.to_string(),
            format!(
                "cannot read the lichess token file {}: no such file",
                missing.display()
            )
        );
        let empty = dir.path().join("empty");
        std::fs::write(&empty, " \n\t\n").expect("write");
        assert!(matches!(
            LichessToken::read(&empty),
            Err(TokenError::Empty { .. })
        ));
        let two = dir.path().join("two");
        std::fs::write(&two, format!("{TOKEN}\nsecond_{TOKEN}\n")).expect("write");
        let e = LichessToken::read(&two).expect_err("two lines");
        assert!(matches!(e, TokenError::Malformed { .. }));
        assert!(!e.to_string().contains(TOKEN), "{e}");
        let unreadable = dir.path().join("locked");
        std::fs::write(&unreadable, TOKEN).expect("write");
        std::fs::set_permissions(&unreadable, std::fs::Permissions::from_mode(0o000))
            .expect("chmod");
        // Root reads any file; everyone else is refused.
        if let Err(e) = LichessToken::read(&unreadable) {
            assert!(e.to_string().contains("permission denied"), "{e}");
        }
    }

    #[test]
    fn round_ids_and_base_addresses_are_checked() {
        let token = LichessToken::parse(TOKEN).expect("token");
        assert!(LichessPush::new(LICHESS, "AbCd1234", token.clone()).is_ok());
        assert_eq!(
            LichessPush::new(LICHESS, "ab/../cd", token.clone()).map(|_| ()),
            Err(PushSetupError::Round("ab/../cd".into()))
        );
        assert!(LichessPush::new("ftp://lichess.org", "abcd1234", token.clone()).is_err());
        assert!(LichessPush::new("https://", "abcd1234", token.clone()).is_err());
        let p = LichessPush::new("https://lichess.org/", "abcd1234", token).expect("push");
        assert_eq!(
            p.endpoint(),
            "https://lichess.org/api/broadcast/round/abcd1234/push"
        );
    }

    #[test]
    fn each_round_gets_its_push_and_a_round_given_twice_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("token");
        std::fs::write(&path, TOKEN).expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        let rounds = ["first111".to_string(), "second22".to_string()];
        let (pushers, warning) = lichess_pushes(LICHESS, &rounds, &path).expect("pushes");
        assert_eq!(warning, None);
        let endpoints: Vec<&str> = pushers.iter().map(LichessPush::endpoint).collect();
        assert_eq!(
            endpoints,
            [
                "https://lichess.org/api/broadcast/round/first111/push",
                "https://lichess.org/api/broadcast/round/second22/push"
            ]
        );
        let twice = ["first111".to_string(), "first111".to_string()];
        let e = lichess_pushes(LICHESS, &twice, &path).expect_err("twice");
        assert_eq!(
            e,
            PushError::Setup(PushSetupError::Twice("first111".into()))
        );
        assert!(e.to_string().contains("given twice"), "{e}");
    }

    #[test]
    fn the_replys_refused_games_are_named_by_round() {
        let body = r#"{"games":[{"tags":{"Round":"3.1"},"moves":12},
            {"tags":{"Round":"3.2","White":"A"},"error":"Invalid move: Nxe5"}]}"#;
        assert_eq!(
            game_errors(body),
            (2, vec!["Round \"3.2\": Invalid move: Nxe5".to_string()])
        );
        assert_eq!(game_errors("not json"), (0, Vec::new()));
    }

    #[test]
    fn only_the_http_clients_wire_traces_are_kept_out_of_the_logs() {
        use tracing::{Level, Metadata, callsite::Identifier, field::FieldSet, metadata::Kind};
        struct Site;
        impl tracing::Callsite for Site {
            fn set_interest(&self, _: tracing::subscriber::Interest) {}
            fn metadata(&self) -> &Metadata<'_> {
                unreachable!()
            }
        }
        static SITE: Site = Site;
        let meta = |target: &'static str, level: Level| {
            Metadata::new(
                "event",
                target,
                level,
                None,
                None,
                None,
                FieldSet::new(&[], Identifier(&SITE)),
                Kind::EVENT,
            )
        };
        assert!(!loggable(&meta("ureq_proto::util", Level::TRACE)));
        assert!(!loggable(&meta(
            "ureq::unversioned::transport",
            Level::TRACE
        )));
        assert!(!loggable(&meta("rustls::conn", Level::TRACE)));
        assert!(loggable(&meta("ureq::pool", Level::DEBUG)));
        assert!(loggable(&meta("eboardd::relay::lichess", Level::TRACE)));
    }
}
