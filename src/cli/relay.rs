//! `eboardd relay`: one broadcast of the boards of many hosts, followed through an MQTT
//! broker; no boards of its own.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;

use super::CliError;
use super::run::{lichess_pushes_of, relay_address};
use crate::mqtt::MqttArgs;
use crate::mqtt::aggregate::BoardMap;
use crate::mqtt::follow::spawn_relay;
use crate::relay::files::PgnDir;
use crate::relay::http::{self as relay_http, RelayState};
use crate::relay::lichess;
use crate::relay::page::HallView;
use crate::relay::pgn::PgnTags;
use crate::web::{Connections, WebOptions};

/// Arguments of `eboardd relay`.
#[derive(Debug, Args)]
pub struct RelayArgs {
    /// Where the hosts publish (`--mqtt URL` is required; `--mqtt-prefix` is a filter over
    /// all hosts, default eboardd/+/).
    #[command(flatten)]
    pub mqtt: MqttArgs,
    /// The board map (TOML): each `[[board]]` with `number`, `host`, and `board` (its number
    /// on the host) or `serial`, and optionally `white` and `black`.
    #[arg(long, value_name = "FILE")]
    pub board_map: Option<PathBuf>,
    /// Write every board's game as PGN to DIR (`board-N.pgn` and `games.pgn`).
    #[arg(long, value_name = "DIR")]
    pub pgn_dir: Option<PathBuf>,
    /// Serve `/games.pgn`, `/board/N.pgn` and `/events` over HTTP on ADDR (`HOST:PORT`; a
    /// bare port listens on 127.0.0.1 only).
    #[arg(long, value_name = "ADDR")]
    pub relay_listen: Option<String>,
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
    /// Push every board's game to this lichess broadcast round (as `eboardd run` does). A
    /// round takes 64 games: with more boards, give more rounds (`ID1,ID2` or the option
    /// again): boards 1-64 go to the first, 65-128 to the second, and so on.
    #[arg(
        long,
        value_name = "ID",
        value_delimiter = ',',
        requires = "lichess_token_file"
    )]
    pub lichess_round: Vec<String>,
    /// The file holding the lichess API token (scope study:write) for --lichess-round.
    #[arg(long, value_name = "FILE", requires = "lichess_round")]
    pub lichess_token_file: Option<PathBuf>,
    /// The lichess to push to (tests: a local server).
    #[arg(long, value_name = "URL", hide = true, default_value = lichess::LICHESS)]
    pub lichess_url: String,
}

/// Runs `eboardd relay`.
pub fn run(args: RelayArgs) -> anyhow::Result<()> {
    let settings = args.mqtt.settings();
    if settings.url.is_none() {
        return Err(CliError::input(
            "eboardd relay needs --mqtt URL: the broker the hosts publish to",
        )
        .into());
    }
    settings
        .client_options("check")
        .map_err(|e| CliError::input(e.to_string()))?;
    let map = match &args.board_map {
        Some(path) => BoardMap::load(path).map_err(|e| CliError::input(e.to_string()))?,
        None => BoardMap::default(),
    };
    let round = PgnTags {
        event: args.event.clone(),
        site: args.site.clone(),
        round: args.round.clone(),
        time_control: args.time_control.clone(),
        ..PgnTags::default()
    };
    let listen = args
        .relay_listen
        .as_deref()
        .map(relay_address)
        .transpose()?;
    let push = lichess_pushes_of(
        &args.lichess_url,
        &args.lichess_round,
        args.lichess_token_file.as_deref(),
    )?;
    let mut files = match &args.pgn_dir {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| CliError::input(format!("{}: {e}", dir.display())))?;
            PgnDir::new(dir, round)
        }
        None => PgnDir::in_memory(round),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let mut server = None;
        let mut view = None;
        if let Some(addr) = listen {
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("cannot listen on {addr}"))?;
            tracing::info!(%addr, "relay listening");
            let state = RelayState::new();
            files = files.serve(state.clone());
            let hall = HallView::new();
            view = Some(hall.clone());
            let options = WebOptions::default();
            let connections = Connections::new(options.max_connections);
            let routes = relay_http::router(state.clone(), &options)
                .merge(crate::relay::page::hall_router(hall, state));
            server = Some(tokio::spawn(relay_http::serve_with(
                listener,
                routes,
                Arc::new(options),
                connections,
            )));
        }
        let (files, pushers) = lichess::spawn_lichess_pushes(files, push);
        let relay =
            spawn_relay(&settings, map, files, view).map_err(|e| CliError::input(e.to_string()))?;
        stop_signals()?.await;
        tracing::info!("stopping");
        relay.abort();
        for task in server.into_iter().chain(pushers) {
            task.abort();
        }
        anyhow::Ok(())
    })
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
