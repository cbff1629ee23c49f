//! The board task when `eboardd uci` follows a board of the running daemon over D-Bus.
//!
//! The daemon owns the port; this task subscribes to the board's `Event` signals (the
//! contract JSON lines), reads the game so far from its `Pgn` property, and carries out the
//! engine's actions with the board's methods: `ShowMove` (a move of the game), `SetLeds`
//! and `ClockText` (a takeback), `SetPosition`. The daemon reads the board with its own
//! settings, so `Laws`, `TouchMove` and `SettleMs` are refused here. A daemon that has not
//! read its board yet has a game the board may already have left: the game is passed on
//! with the daemon's first report of the board. When the daemon goes away the task looks
//! for it again every two seconds.

use std::time::Duration;

use futures_util::StreamExt;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use zbus::{MatchRule, MessageStream};

use super::bridge::{News, TaskChannels};
use super::engine::{Action, Indication};
use super::options::Settings;
use crate::dbus::client::{BoardProxy, ManagerProxy};
use crate::dbus::{BOARD_INTERFACE, BUS_NAME, Bus};
use crate::event::GameEvent;

/// How long to wait before looking for the daemon again.
pub const RETRY: Duration = Duration::from_secs(2);

/// How long the daemon may take to answer while the board is looked up.
pub const ANSWER: Duration = Duration::from_secs(5);

/// Which daemon and which of its boards.
#[derive(Debug, Clone)]
pub struct FollowConfig {
    /// The bus the daemon is on.
    pub bus: Bus,
    /// The board: its number or device path (default: the first connected board).
    pub board: Option<String>,
}

/// Whether a daemon owns its name on `bus` now.
pub async fn daemon_running(bus: &Bus) -> bool {
    match bus.connect().await {
        Ok(conn) => has_owner(&conn).await,
        Err(_) => false,
    }
}

/// Whether a daemon owns its name on the bus of `conn` now.
async fn has_owner(conn: &zbus::Connection) -> bool {
    let Ok(dbus) = zbus::fdo::DBusProxy::new(conn).await else {
        return false;
    };
    let Ok(name) = zbus::names::BusName::try_from(BUS_NAME) else {
        return false;
    };
    dbus.name_has_owner(name).await.unwrap_or(false)
}

struct Link {
    board: BoardProxy<'static>,
    stream: MessageStream,
    path: String,
    /// While the daemon has not reported the board yet: the events held until it does.
    held: Option<Vec<GameEvent>>,
}

/// Runs the board task until the bridge closes its channel.
pub async fn run(config: FollowConfig, mut ch: TaskChannels) {
    let mut last_notice: Option<String> = None;
    let mut shown: Option<Indication> = None;
    loop {
        let attempt = tokio::time::timeout(ANSWER, connect(&config)).await;
        let connected = attempt.unwrap_or_else(|_| Err("the daemon did not answer".to_string()));
        match connected {
            Ok((mut link, events)) => {
                let text = format!("following the daemon's board {}", link.path);
                tracing::info!("{text}");
                let _ = ch.news.send(News::Notice(text));
                last_notice = None;
                // Until the daemon has read the board, its game waits with the events after
                // it: the board may not be where the game is.
                match &mut link.held {
                    Some(held) => *held = events,
                    None => {
                        if ch.news.send(News::Events(events)).is_err() {
                            return;
                        }
                    }
                }
                if let Some(i) = &shown
                    && let Err(e) = show(&link.board, i).await
                {
                    tracing::debug!("{e}");
                }
                if session(link, &mut shown, &mut ch).await {
                    return;
                }
            }
            Err(why) => {
                if last_notice.as_ref() != Some(&why) {
                    let _ = ch
                        .news
                        .send(News::Notice(format!("no daemon board yet: {why}")));
                    last_notice = Some(why);
                }
            }
        }
        let deadline = tokio::time::Instant::now() + RETRY;
        loop {
            tokio::select! {
                action = ch.actions.recv() => match action {
                    None => return,
                    Some(Action::Show(i)) => shown = Some(i),
                    Some(Action::Clear) => shown = None,
                    Some(Action::Start(_)) => {}
                    Some(other) => {
                        let _ = ch.news.send(News::Failed(other, "the daemon is not there".into()));
                    }
                },
                () = tokio::time::sleep_until(deadline) => break,
            }
        }
    }
}

/// Connects, finds the board, subscribes to its events and reads its game so far.
async fn connect(config: &FollowConfig) -> Result<(Link, Vec<GameEvent>), String> {
    tracing::debug!("looking for the daemon on the {:?} bus", config.bus);
    let conn = config
        .bus
        .connect()
        .await
        .map_err(|e| format!("cannot connect to the {:?} bus: {e}", config.bus))?;
    // Asked first: a call to a name nobody owns may wait for an owner on some brokers.
    if !has_owner(&conn).await {
        return Err(format!(
            "eboardd is not running on the {:?} bus",
            config.bus
        ));
    }
    // Uncached: a cached proxy made before the daemon is up may wait for ever.
    let manager = ManagerProxy::builder(&conn)
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
        .map_err(|e| e.to_string())?;
    let boards = manager
        .boards()
        .await
        .map_err(|e| format!("eboardd is not running on the {:?} bus ({e})", config.bus))?;
    tracing::debug!("the daemon has boards {boards:?}");
    let mut chosen = None;
    for path in boards {
        let proxy = BoardProxy::builder(&conn)
            .path(path.clone())
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build()
            .await
            .map_err(|e| e.to_string())?;
        let number = path
            .as_str()
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_string();
        let wanted = match &config.board {
            Some(id) => id.trim() == number || proxy.device().await.is_ok_and(|d| d == id.trim()),
            None => proxy.connected().await.unwrap_or(false),
        };
        if wanted {
            chosen = Some((path.to_string(), proxy));
            break;
        }
    }
    let Some((path, board)) = chosen else {
        return Err(match &config.board {
            Some(id) => format!("no board {id:?} is attached to eboardd"),
            None => "eboardd has no connected board".to_string(),
        });
    };
    let rule = MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .sender(BUS_NAME)
        .interface(BOARD_INTERFACE)
        .member("Event")
        .path(path.as_str())
        .build()
        .map_err(|e| e.to_string())?;
    // Subscribed before the game is read, so no move falls between the two.
    let stream = MessageStream::for_match_rule(rule, &conn, None)
        .await
        .map_err(|e| e.to_string())?;
    tracing::debug!("subscribed to {path}");
    let (events, read) = game_so_far(&board).await;
    Ok((
        Link {
            board,
            stream,
            path,
            held: (!read).then(Vec::new),
        },
        events,
    ))
}

/// The board's report and its game so far, as the events that would have told them, and
/// whether the daemon has read the board yet.
async fn game_so_far(board: &BoardProxy<'static>) -> (Vec<GameEvent>, bool) {
    let mut events = Vec::new();
    let placement = board.placement().await.unwrap_or_default();
    let read = !placement.is_empty();
    if read {
        events.push(GameEvent::Board {
            placement,
            orientation: Default::default(),
        });
    }
    let pgn = board.pgn().await.unwrap_or_default();
    let game = crate::sim::pgn::parse_games(&pgn)
        .ok()
        .and_then(|g| g.into_iter().next());
    match game {
        Some(game) => {
            events.push(GameEvent::NewGame {
                fen: game.start_fen(),
                chess960: game.chess960,
            });
            let mode = game.castling_mode();
            let mut pos = game.start.clone();
            for (i, m) in game.moves.iter().enumerate() {
                let san = SanPlus::from_move_and_play_unchecked(&mut pos, *m);
                events.push(GameEvent::Move {
                    ply: i as u32 + 1,
                    uci: UciMove::from_move(*m, mode),
                    san,
                    fen: String::new(),
                    clock_ms: None,
                    emt_ms: None,
                    alternatives: Vec::new(),
                });
            }
        }
        None => {
            let fen = board.fen().await.unwrap_or_default();
            if !fen.is_empty() {
                events.push(GameEvent::NewGame {
                    fen,
                    chess960: false,
                });
            }
        }
    }
    (events, read)
}

/// Follows the board until the daemon goes away (false) or the bridge ends (true).
async fn session(mut link: Link, shown: &mut Option<Indication>, ch: &mut TaskChannels) -> bool {
    loop {
        tokio::select! {
            msg = link.stream.next() => {
                let Some(Ok(msg)) = msg else {
                    let _ = ch.news.send(News::Notice("the daemon went away".into()));
                    return false;
                };
                let Ok(json) = msg.body().deserialize::<String>() else { continue };
                match serde_json::from_str::<GameEvent>(&json) {
                    Ok(event) => match &mut link.held {
                        Some(held) if !matches!(event, GameEvent::Board { .. }) => held.push(event),
                        held => {
                            let mut events = held.take().unwrap_or_default();
                            events.push(event);
                            if ch.news.send(News::Events(events)).is_err() {
                                return true;
                            }
                        }
                    },
                    Err(e) => tracing::warn!("an event the bridge cannot read: {e}: {json}"),
                }
            }
            action = ch.actions.recv() => {
                let Some(action) = action else {
                    if shown.is_some() {
                        let _ = clear(&link.board).await;
                    }
                    return true;
                };
                let result = match &action {
                    Action::Show(i) => {
                        *shown = Some(i.clone());
                        show(&link.board, i).await
                    }
                    Action::Clear => {
                        *shown = None;
                        clear(&link.board).await
                    }
                    Action::SetPosition(fen) => {
                        link.board.set_position(fen).await.map_err(|e| e.to_string())
                    }
                    Action::Start(s) if *s == Settings::default() => Ok(()),
                    Action::Start(_) | Action::Configure(_) => Err(
                        "the daemon reads its board with its own settings (eboardd run --laws, \
                         --touch-move, and the configuration's settle)"
                            .to_string(),
                    ),
                };
                if let Err(why) = result
                    && ch.news.send(News::Failed(action, why)).is_err()
                {
                    return true;
                }
            }
        }
    }
}

async fn show(board: &BoardProxy<'static>, i: &Indication) -> Result<(), String> {
    match &i.uci {
        Some(uci) => board
            .show_move(&uci.to_string())
            .await
            .map_err(|e| e.to_string()),
        None => {
            let squares = [i.from.to_string(), i.to.to_string()];
            let squares: Vec<&str> = squares.iter().map(String::as_str).collect();
            board.set_leds(&squares).await.map_err(|e| e.to_string())?;
            board.clock_text(&i.text).await.map_err(|e| e.to_string())
        }
    }
}

async fn clear(board: &BoardProxy<'static>) -> Result<(), String> {
    board.set_leds(&[]).await.map_err(|e| e.to_string())
}
