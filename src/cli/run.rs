//! `eboardd run`: the daemon — boards on their ports, games journalled, D-Bus service.

use crate::relay::files::{PgnDir, spawn_pgn_dir};
use crate::relay::http::{self as relay_http, RelayState};
use crate::relay::lichess::{self, LichessPush};
use crate::relay::pgn::PgnTags;
use crate::web::{Connections, WebOptions};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;

use super::CliError;
use crate::daemon::config::{Config, SYSTEM_CONFIG};
use crate::daemon::core::pipeline_factory;
use crate::daemon::{Daemon, DaemonOptions, watchdog};
use crate::dbus::{self, BUS_NAME, Bus};
use crate::laws::{Edition, TouchMove};
use crate::livechess;
use crate::mqtt::publish::spawn_publisher;
use crate::mqtt::{MqttArgs, MqttSettings};

/// Arguments of `eboardd run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The configuration file (default: /etc/eboardd/config.toml with --system, else
    /// $XDG_CONFIG_HOME/eboardd/config.toml; a missing default file is fine).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// A board's serial device, in addition to the configured ones (repeatable).
    #[arg(long = "device", value_name = "PATH")]
    pub devices: Vec<PathBuf>,
    /// Serve on the user's session bus (the default).
    #[arg(long, conflicts_with_all = ["system", "bus_address"])]
    pub session: bool,
    /// Serve on the system bus (the systemd service).
    #[arg(long, conflicts_with = "bus_address")]
    pub system: bool,
    /// Serve on the bus at this D-Bus address instead (private buses, tests).
    #[arg(long, value_name = "ADDRESS")]
    pub bus_address: Option<String>,
    /// Where journals and finished games are kept (default: $STATE_DIRECTORY, else
    /// /var/lib/eboardd with --system, else $XDG_STATE_HOME/eboardd).
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// The edition of the FIDE Laws the arbiter applies.
    #[arg(long, value_name = "EDITION", value_parser = ["fide-2023", "fide-2014", "fide-classic"])]
    pub laws: Option<String>,
    /// Touch-move breaches: report, enforce or off.
    #[arg(long, value_name = "MODE", value_parser = ["report", "enforce", "off"])]
    pub touch_move: Option<String>,
    /// Write every board's traffic as traces into this directory (for bug reports).
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
    /// Write every board's game as PGN to DIR (`board-N.pgn` and `games.pgn`), rewritten
    /// atomically on every move.
    #[arg(long, value_name = "DIR")]
    pub pgn_dir: Option<PathBuf>,
    /// Serve `/games.pgn`, `/board/N.pgn` and `/events` (server-sent events) over HTTP on
    /// ADDR (`HOST:PORT`; a bare port listens on 127.0.0.1 only).
    #[arg(long, value_name = "ADDR")]
    pub relay_listen: Option<String>,
    /// Serve the DGT LiveChess WebSocket API (`ws://ADDR/api/v1.0`, for lichess.org/dgt and
    /// other LiveChess clients) on ADDR (`HOST:PORT`; a bare port listens on 127.0.0.1 only;
    /// LiveChess itself uses 1982).
    #[arg(long, value_name = "ADDR")]
    pub livechess_listen: Option<String>,
    /// The event's name in the PGN (`Event`).
    #[arg(long, value_name = "NAME")]
    pub event: Option<String>,
    /// Where the event is played, in the PGN (`Site`).
    #[arg(long, value_name = "PLACE")]
    pub site: Option<String>,
    /// The round, in the PGN (`Round` is written `R.B` with the board's number).
    #[arg(long, value_name = "R")]
    pub round: Option<String>,
    /// The time control, in the PGN (`TimeControl`, like `5400+30`).
    #[arg(long, value_name = "TC")]
    pub time_control: Option<String>,
    /// Push every board's game (the text of `games.pgn`) to this lichess broadcast round,
    /// at most once a second, with back-off after errors. A round takes 64 games: with more
    /// boards, give more rounds (`ID1,ID2` or the option again): boards 1-64 go to the
    /// first, 65-128 to the second, and so on.
    #[arg(
        long,
        value_name = "ID",
        value_delimiter = ',',
        requires = "lichess_token_file"
    )]
    pub lichess_round: Vec<String>,
    /// The file holding the lichess API token (scope study:write) for --lichess-round; keep
    /// it readable by the daemon only.
    #[arg(long, value_name = "FILE", requires = "lichess_round")]
    pub lichess_token_file: Option<PathBuf>,
    /// The lichess to push to (tests: a local server).
    #[arg(long, value_name = "URL", hide = true, default_value = lichess::LICHESS)]
    pub lichess_url: String,
    /// Publishing every board's events and state to an MQTT broker (`[mqtt]` in the
    /// configuration; these options override it).
    #[command(flatten)]
    pub mqtt: MqttArgs,
}

fn home_dir(var: &str, fallback: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(fallback)))
}

/// The configuration as the options ask for it.
pub fn load_config(args: &RunArgs) -> Result<Config, CliError> {
    let mut config = match &args.config {
        Some(path) => Config::load(path).map_err(|e| CliError::input(e.to_string()))?,
        None => {
            let default = if args.system {
                Some(PathBuf::from(SYSTEM_CONFIG))
            } else {
                home_dir("XDG_CONFIG_HOME", ".config").map(|d| d.join("eboardd/config.toml"))
            };
            match default {
                Some(path) => {
                    Config::load_if_present(&path).map_err(|e| CliError::input(e.to_string()))?
                }
                None => Config::default(),
            }
        }
    };
    config.add_devices(&args.devices);
    config
        .check("--device")
        .map_err(|e| CliError::input(e.to_string()))?;
    Ok(config)
}

fn state_dir(args: &RunArgs, config: &Config) -> Result<PathBuf, CliError> {
    if let Some(dir) = args
        .state_dir
        .clone()
        .or_else(|| config.daemon.state_dir.clone())
    {
        return Ok(dir);
    }
    if let Some(dir) = std::env::var_os("STATE_DIRECTORY") {
        // systemd's StateDirectory=: possibly several, colon-separated; the first is ours.
        let first = dir.to_string_lossy().split(':').next().map(PathBuf::from);
        if let Some(first) = first.filter(|p| p.is_absolute()) {
            return Ok(first);
        }
    }
    if args.system {
        return Ok(PathBuf::from("/var/lib/eboardd"));
    }
    home_dir("XDG_STATE_HOME", ".local/state")
        .map(|d| d.join("eboardd"))
        .ok_or_else(|| CliError::input("no state directory: set --state-dir or $HOME"))
}

/// The round's PGN tags from the arguments.
fn round_tags(args: &RunArgs) -> PgnTags {
    PgnTags {
        event: args.event.clone(),
        site: args.site.clone(),
        round: args.round.clone(),
        time_control: args.time_control.clone(),
        ..PgnTags::default()
    }
}

/// The daemon's options from the arguments and the configuration.
pub fn options(args: &RunArgs, config: &Config) -> Result<DaemonOptions, CliError> {
    let laws = match &args.laws {
        Some(l) => l
            .parse::<Edition>()
            .map_err(|e| CliError::input(e.to_string()))?,
        None => config.daemon.laws.unwrap_or_default(),
    };
    let touch_move = match &args.touch_move {
        Some(t) => t
            .parse::<TouchMove>()
            .map_err(|e| CliError::input(e.to_string()))?,
        None => config.daemon.touch_move.unwrap_or_default(),
    };
    Ok(DaemonOptions {
        state_dir: state_dir(args, config)?,
        laws,
        touch_move,
        record_dir: args
            .record
            .clone()
            .or_else(|| config.daemon.record_dir.clone()),
        factory: pipeline_factory(),
        boards: config.boards.clone(),
        pgn_tags: round_tags(args),
    })
}

/// Runs `eboardd run`.
pub fn run(args: RunArgs) -> anyhow::Result<()> {
    let config = load_config(&args)?;
    let options = options(&args, &config)?;
    let bus = match (&args.bus_address, args.system) {
        (Some(a), _) => Bus::Address(a.clone()),
        (None, true) => Bus::System,
        (None, false) => Bus::Session,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let round = round_tags(&args);
    let listen = args
        .relay_listen
        .as_deref()
        .map(relay_address)
        .transpose()?;
    let livechess = args
        .livechess_listen
        .as_deref()
        .map(|text| {
            relay_address(text).map_err(|_| {
                CliError::input(format!(
                    "--livechess-listen {text}: expected HOST:PORT or a port"
                ))
            })
        })
        .transpose()?;
    let push = lichess_push(&args)?;
    let pgn_dir = match (&args.pgn_dir, listen.is_some() || !push.is_empty()) {
        (Some(dir), _) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| CliError::input(format!("{}: {e}", dir.display())))?;
            Some(PgnDir::new(dir, round))
        }
        (None, true) => Some(PgnDir::in_memory(round)),
        (None, false) => None,
    };
    let mqtt = config.mqtt.merged(&args.mqtt.settings());
    let mqtt = match mqtt.url {
        Some(_) => {
            // Checked now: a wrong URL, name or file is an error before anything starts.
            mqtt.client_options("check")
                .and_then(|_| mqtt.publish_prefix())
                .map_err(|e| CliError::input(e.to_string()))?;
            Some((mqtt, round_tags(&args)))
        }
        None => None,
    };
    let sinks = Sinks {
        pgn_dir,
        listen,
        livechess,
        push,
        mqtt,
    };
    runtime.block_on(serve(options, config, bus, sinks))
}

/// The pushes `--lichess-round` and `--lichess-token-file` ask for (one per round).
pub fn lichess_push(args: &RunArgs) -> Result<Vec<LichessPush>, CliError> {
    lichess_pushes_of(
        &args.lichess_url,
        &args.lichess_round,
        args.lichess_token_file.as_deref(),
    )
}

/// The pushes to `rounds` with the token in `token_file`, for `run` and `relay`.
pub fn lichess_pushes_of(
    base: &str,
    rounds: &[String],
    token_file: Option<&std::path::Path>,
) -> Result<Vec<LichessPush>, CliError> {
    let Some(file) = token_file.filter(|_| !rounds.is_empty()) else {
        return Ok(Vec::new());
    };
    let (pushers, warning) =
        lichess::lichess_pushes(base, rounds, file).map_err(|e| CliError::input(e.to_string()))?;
    if let Some(warning) = warning {
        tracing::warn!("{warning}");
    }
    Ok(pushers)
}

/// The address `--relay-listen` gives: `HOST:PORT`, or a bare port on loopback.
pub fn relay_address(text: &str) -> Result<SocketAddr, CliError> {
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.parse::<SocketAddr>().map_err(|_| {
        CliError::input(format!(
            "--relay-listen {text}: expected HOST:PORT or a port"
        ))
    })
}

/// Where the daemon's games go besides D-Bus.
struct Sinks {
    pgn_dir: Option<PgnDir>,
    listen: Option<SocketAddr>,
    livechess: Option<SocketAddr>,
    push: Vec<LichessPush>,
    mqtt: Option<(MqttSettings, PgnTags)>,
}

async fn serve(
    options: DaemonOptions,
    config: Config,
    bus: Bus,
    sinks: Sinks,
) -> anyhow::Result<()> {
    let Sinks {
        pgn_dir,
        listen,
        livechess,
        push,
        mqtt,
    } = sinks;
    std::fs::create_dir_all(&options.state_dir)
        .with_context(|| format!("cannot create {}", options.state_dir.display()))?;
    tracing::info!(state_dir = %options.state_dir.display(), laws = %options.laws, "starting");
    let daemon = Daemon::new(options);
    let descriptors = crate::web::raise_descriptor_limit();
    let mut web = WebOptions {
        allowed_origins: config.web.allowed_origins.clone(),
        ..WebOptions::default()
    };
    if let Some(max) = config.web.max_connections {
        let most = crate::web::default_max_connections_for(descriptors, usize::MAX);
        if max > most {
            tracing::warn!(
                "[web] max-connections = {max} is more than the descriptor limit allows: \
                 serving at most {most}"
            );
        }
        web.max_connections = max.clamp(1, most);
    }
    if listen.is_some() || livechess.is_some() {
        tracing::info!(
            max_connections = web.max_connections,
            descriptors = descriptors.unwrap_or(u64::MAX),
            "HTTP limits"
        );
    }
    let connections = Connections::new(web.max_connections);
    let web = std::sync::Arc::new(web);
    // The relay follows the boards from before they are attached, not to miss a move.
    let mut server = None;
    let mut pgn_dir = pgn_dir;
    if let Some(addr) = listen {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
        let addr = listener.local_addr().unwrap_or(addr);
        tracing::info!(%addr, "relay listening");
        let state = RelayState::new();
        pgn_dir = pgn_dir.map(|f| f.serve(state.clone()));
        let routes = relay_http::router(state.clone(), &web)
            .merge(crate::relay::page::router(daemon.clone(), state.clone()));
        server = Some(tokio::spawn(relay_http::serve_with(
            listener,
            routes,
            web.clone(),
            connections.clone(),
        )));
    }
    let mut pushers = Vec::new();
    if let Some(files) = pgn_dir.take() {
        let (files, tasks) = lichess::spawn_lichess_pushes(files, push);
        pgn_dir = Some(files);
        pushers = tasks;
    }
    let relay = pgn_dir.map(|files| spawn_pgn_dir(daemon.clone(), files));
    let publisher = match mqtt {
        Some((settings, round)) => Some(spawn_publisher(daemon.clone(), &settings, round)?),
        None => None,
    };
    let mut livechess_server = None;
    if let Some(addr) = livechess {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
        let addr = listener.local_addr().unwrap_or(addr);
        tracing::info!("LiveChess API listening on ws://{addr}{}", livechess::PATH);
        livechess_server = Some(tokio::spawn(livechess::server::serve_with(
            listener,
            daemon.clone(),
            web.clone(),
            connections.clone(),
        )));
    }
    for board in config.boards {
        let device = board.device.clone();
        if let Err(e) = daemon.attach(board).await {
            let device = crate::text::quote(&device.to_string_lossy()).into_owned();
            return Err(CliError::input(format!("{device}: {e}")).into());
        }
    }
    let service = dbus::serve(daemon.clone(), &bus)
        .await
        .with_context(|| format!("cannot serve {BUS_NAME} on the {bus:?} bus"))?;
    let boards = daemon.boards().await.len();
    // Listening for the signals before saying ready: a stop right after it is no kill.
    let stop = stop_signals()?;
    watchdog::notify_ready(&format!("serving {BUS_NAME}, {boards} board(s)"));
    let watchdog = tokio::spawn(watchdog::run_watchdog(daemon.clone(), service.health()));
    stop.await;
    tracing::info!("stopping");
    watchdog::notify_stopping();
    watchdog.abort();
    if let Some(relay) = relay {
        relay.abort();
    }
    if let Some(server) = server {
        server.abort();
    }
    if let Some(server) = livechess_server {
        server.abort();
    }
    for pusher in pushers {
        pusher.abort();
    }
    service.stop().await;
    daemon.shutdown().await;
    if let Some(publisher) = publisher {
        publisher.stop().await;
    }
    Ok(())
}

/// Listens for SIGTERM and SIGINT from now on; the future ends at the first of them.
fn stop_signals() -> anyhow::Result<impl Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
    })
}

#[cfg(test)]
mod relay_tests {
    use super::*;

    #[test]
    fn a_bare_relay_port_listens_on_loopback_only() {
        let addr = relay_address("8080").expect("a port");
        assert_eq!(addr, SocketAddr::from(([127, 0, 0, 1], 8080)));
        let any = relay_address("0.0.0.0:9000").expect("host and port");
        assert_eq!(any, SocketAddr::from(([0, 0, 0, 0], 9000)));
        assert!(relay_address("localhost").is_err());
    }
}
