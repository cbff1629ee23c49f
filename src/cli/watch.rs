//! `eboardd watch`: follows the running daemon over D-Bus and prints what its boards do.

use std::io::{self, Write};

use anyhow::Context;
use clap::{Args, ValueEnum};
use futures_util::StreamExt;
use zbus::{MatchRule, MessageStream};

use super::CliError;
use crate::dbus::client::{BoardProxy, ManagerProxy};
use crate::dbus::{BOARD_INTERFACE, BUS_NAME, Bus, MANAGER_PATH, board_path};
use crate::event::GameEvent;

/// Arguments of `eboardd watch`.
#[derive(Debug, Args)]
pub struct WatchArgs {
    /// Only this board: its number (as in /org/eboardd/EBoard1/Board/N) or its device path.
    #[arg(long, value_name = "ID")]
    pub board: Option<String>,
    /// What to print.
    #[arg(long, value_enum, default_value_t = WatchFormat::Jsonl)]
    pub format: WatchFormat,
    /// Follow the daemon on the system bus (default: the session bus).
    #[arg(long, conflicts_with = "bus_address")]
    pub system: bool,
    /// Follow the daemon on the bus at this D-Bus address.
    #[arg(long, value_name = "ADDRESS")]
    pub bus_address: Option<String>,
    /// Follow every host through an MQTT broker instead (`--board HOST` or `HOST/N` keeps
    /// one host or one board); JSON lines carry `host`, `board`, `run` and `seq`.
    #[command(flatten)]
    pub mqtt: crate::mqtt::MqttArgs,
}

/// Output formats of `eboardd watch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WatchFormat {
    /// Every event as a contract JSON line; with several boards each line gets `"board":N`.
    Jsonl,
    /// Each confirmed move in UCI notation, one a line (as `replay --format uci` prints
    /// them); new games, withdrawn moves, takebacks and results as `info string` lines.
    Uci,
}

/// Turns the daemon's `Event` signals into output lines.
#[derive(Debug)]
pub struct Printer {
    format: WatchFormat,
    tag_boards: bool,
}

impl Printer {
    /// A printer; `tag_boards` adds the board number to every line (a `"board":N` field
    /// in JSON lines, a leading `N ` in UCI lines).
    pub fn new(format: WatchFormat, tag_boards: bool) -> Self {
        Printer { format, tag_boards }
    }

    /// The line to print for board `board`'s event `json`, if any.
    pub fn line(&mut self, board: u32, json: &str) -> Option<String> {
        match self.format {
            WatchFormat::Jsonl => Some(match json.strip_prefix('{') {
                Some(rest) if self.tag_boards => format!("{{\"board\":{board},{rest}"),
                _ => json.to_string(),
            }),
            WatchFormat::Uci => {
                let event: GameEvent = serde_json::from_str(json).ok()?;
                let line = match event {
                    GameEvent::Move { uci, .. } => uci.to_string(),
                    GameEvent::NewGame { fen, .. } => format!("info string new game {fen}"),
                    GameEvent::Retract { ply, uci } => {
                        format!("info string withdrawn: move {ply} {uci}")
                    }
                    GameEvent::Takeback { ply } => {
                        format!("info string taken back: the game ends after move {ply}")
                    }
                    GameEvent::Result { result, reason } => {
                        format!("info string result {result} ({reason})")
                    }
                    _ => return None,
                };
                Some(if self.tag_boards {
                    format!("{board} {line}")
                } else {
                    line
                })
            }
        }
    }
}

/// Runs `eboardd watch`.
pub fn run(args: WatchArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    if args.mqtt.url.is_some() {
        return runtime.block_on(watch_mqtt(args));
    }
    runtime.block_on(watch(args))
}

async fn watch_mqtt(args: WatchArgs) -> anyhow::Result<()> {
    let settings = args.mqtt.settings();
    settings
        .client_options("check")
        .map_err(|e| CliError::input(e.to_string()))?;
    let mut printer = Printer::new(args.format, false);
    let format = args.format;
    let line = move |m: &crate::mqtt::message::EventMessage, payload: &[u8]| match format {
        WatchFormat::Jsonl => Some(String::from_utf8_lossy(payload).into_owned()),
        WatchFormat::Uci => {
            let json = m.event.to_json_line();
            let text = printer.line(m.board, &json)?;
            Some(format!("{}/{} {text}", m.host, m.board))
        }
    };
    crate::mqtt::follow::watch(&settings, line, args.board.as_deref())
        .await
        .map_err(|e| CliError::input(e.to_string()).into())
}

async fn watch(args: WatchArgs) -> anyhow::Result<()> {
    let bus = match (&args.bus_address, args.system) {
        (Some(a), _) => Bus::Address(a.clone()),
        (None, true) => Bus::System,
        (None, false) => Bus::Session,
    };
    let conn = bus
        .connect()
        .await
        .with_context(|| format!("cannot connect to the {bus:?} bus"))?;
    let dbus = zbus::fdo::DBusProxy::new(&conn).await?;
    let name = zbus::names::BusName::try_from(BUS_NAME)?;
    if !dbus.name_has_owner(name).await? {
        return Err(CliError {
            message: format!(
                "eboardd is not running on the {bus:?} bus (nobody owns {BUS_NAME}); start it with `eboardd run`"
            ),
            status: 1,
        }
        .into());
    }
    let only = match &args.board {
        Some(id) => Some(resolve_board(&conn, id).await?),
        None => None,
    };
    let mut rule = MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .sender(BUS_NAME)
        .interface(BOARD_INTERFACE)
        .member("Event");
    let only_path = only.map(board_path);
    rule = match &only_path {
        Some(p) => rule.path(p.as_str()),
        None => rule.path_namespace(MANAGER_PATH),
    };
    let mut stream = MessageStream::for_match_rule(rule.build()?, &conn, None).await?;
    let mut printer = Printer::new(args.format, only.is_none());
    if args.format == WatchFormat::Uci
        && let Some(p) = &only_path
    {
        let board = BoardProxy::builder(&conn).path(p.as_str()).build().await?;
        println!("info string position {}", board.fen().await?);
    }
    let stdout = io::stdout();
    while let Some(msg) = stream.next().await {
        let msg = msg?;
        let header = msg.header();
        let Some(board) = header
            .path()
            .and_then(|p| p.as_str().rsplit('/').next())
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(json) = msg.body().deserialize::<String>() else {
            continue;
        };
        if let Some(line) = printer.line(board, &json) {
            let mut out = stdout.lock();
            if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
                // The reader went away (a closed pipe): nothing left to do.
                return Ok(());
            }
        }
    }
    Ok(())
}

/// The number of the board `id` names: a number, or a device path of an attached board.
async fn resolve_board(conn: &zbus::Connection, id: &str) -> anyhow::Result<u32> {
    let manager = ManagerProxy::new(conn).await?;
    let boards = manager.boards().await?;
    for path in boards {
        let Some(n) = path
            .as_str()
            .rsplit('/')
            .next()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if n.to_string() == id.trim() {
            return Ok(n);
        }
        let board = BoardProxy::builder(conn).path(path.clone()).build().await?;
        if board.device().await.is_ok_and(|d| d == id) {
            return Ok(n);
        }
    }
    Err(CliError::input(format!("no board {id:?} is attached to eboardd")).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_lines_get_the_board_number_when_watching_every_board() {
        let mut p = Printer::new(WatchFormat::Jsonl, true);
        assert_eq!(
            p.line(3, r#"{"t_ms":1.0,"event":"takeback","ply":2}"#)
                .as_deref(),
            Some(r#"{"board":3,"t_ms":1.0,"event":"takeback","ply":2}"#)
        );
        let mut one = Printer::new(WatchFormat::Jsonl, false);
        assert_eq!(one.line(3, "{}").as_deref(), Some("{}"));
    }

    #[test]
    fn uci_format_prints_each_confirmed_move_and_corrections_as_info_strings() {
        let mut p = Printer::new(WatchFormat::Uci, false);
        let start = r#"{"t_ms":0.0,"event":"new_game","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1","chess960":false}"#;
        assert_eq!(
            p.line(0, start).as_deref(),
            Some("info string new game rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
        );
        let e4 = r#"{"t_ms":1.0,"event":"move","ply":1,"uci":"e2e4","san":"e4","fen":"x"}"#;
        assert_eq!(p.line(0, e4).as_deref(), Some("e2e4"));
        let clock = r#"{"t_ms":2.0,"event":"clock","white_ms":1,"black_ms":2,"running":null}"#;
        assert_eq!(p.line(0, clock), None);
        let retract = r#"{"t_ms":2.5,"event":"retract","ply":1,"uci":"e2e4"}"#;
        assert_eq!(
            p.line(0, retract).as_deref(),
            Some("info string withdrawn: move 1 e2e4")
        );
        let back = r#"{"t_ms":3.0,"event":"takeback","ply":0}"#;
        assert_eq!(
            p.line(0, back).as_deref(),
            Some("info string taken back: the game ends after move 0")
        );
        let mut several = Printer::new(WatchFormat::Uci, true);
        assert_eq!(several.line(2, e4).as_deref(), Some("2 e2e4"));
    }
}
