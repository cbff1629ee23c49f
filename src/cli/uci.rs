//! `eboardd uci`: the board as a UCI engine for chess GUIs, its `bestmove` the move made on
//! the board.
//!
//! Standard output carries nothing but protocol lines; logs go to standard error. With
//! `--device` the board is opened here; otherwise a running daemon's board is followed over
//! D-Bus, and without a daemon the first serial port with a board on it is opened.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::protocol_choice_parser;
use crate::daemon::config::ProtocolChoice;
use crate::dbus::Bus;
use crate::uci::bridge::{self, TaskChannels};
use crate::uci::direct::{self, DirectConfig};
use crate::uci::engine::Engine;
use crate::uci::follow::{self, FollowConfig};

/// How long the board task may take to put the lights out after `quit`.
const LAST_WORDS: Duration = Duration::from_millis(500);

/// Arguments of `eboardd uci`.
#[derive(Debug, Args)]
pub struct UciArgs {
    /// Follow this board of the running daemon: its number (as in
    /// /org/eboardd/EBoard1/Board/N) or its device path.
    #[arg(long, value_name = "ID", conflicts_with = "device")]
    pub board: Option<String>,
    /// Open the board on this serial device here, not through the daemon.
    #[arg(long, value_name = "PATH")]
    pub device: Option<PathBuf>,
    /// The board's protocol when it is opened here.
    #[arg(long, value_name = "PROTOCOL", default_value = "auto", value_parser = protocol_choice_parser())]
    pub protocol: ProtocolChoice,
    /// Follow the daemon on the system bus (default: the session bus, then the system bus).
    #[arg(long, conflicts_with_all = ["bus_address", "device"])]
    pub system: bool,
    /// Follow the daemon on the bus at this D-Bus address.
    #[arg(long, value_name = "ADDRESS", conflicts_with = "device")]
    pub bus_address: Option<String>,
}

/// Runs `eboardd uci` until `quit` or the end of standard input.
pub fn run(args: UciArgs) -> anyhow::Result<()> {
    let protocol = match args.protocol {
        ProtocolChoice::Fixed(p) => Some(p),
        ProtocolChoice::Auto => None,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let result = runtime.block_on(async {
        let (ours, theirs) = bridge::channels();
        let task = tokio::spawn(board_task(args, protocol, theirs));
        let input = tokio::io::BufReader::new(tokio::io::stdin());
        let served = bridge::serve(Engine::new(), input, tokio::io::stdout(), ours).await;
        // The bridge dropped its end: the board task clears what it showed and ends.
        let _ = tokio::time::timeout(LAST_WORDS, task).await;
        served
    });
    // Standard input is read on a thread that cannot be interrupted: do not wait for it.
    runtime.shutdown_background();
    match result {
        Ok(()) => Ok(()),
        // The GUI closed our output: nobody is left to talk to.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Opens the board here or follows it through the daemon, as the arguments say.
async fn board_task(
    args: UciArgs,
    protocol: Option<crate::protocol::Protocol>,
    channels: TaskChannels,
) {
    if args.device.is_some() {
        let config = DirectConfig {
            device: args.device,
            protocol,
        };
        return direct::run(config, channels).await;
    }
    let buses = match (&args.bus_address, args.system) {
        (Some(a), _) => vec![Bus::Address(a.clone())],
        (None, true) => vec![Bus::System],
        (None, false) => vec![Bus::Session, Bus::System],
    };
    for bus in &buses {
        if follow::daemon_running(bus).await {
            let config = FollowConfig {
                bus: bus.clone(),
                board: args.board.clone(),
            };
            return follow::run(config, channels).await;
        }
    }
    if args.board.is_some() || args.bus_address.is_some() || args.system {
        // The daemon was asked for by name: wait for it rather than open a port behind
        // its back.
        let config = FollowConfig {
            bus: buses.into_iter().next().unwrap_or(Bus::Session),
            board: args.board,
        };
        return follow::run(config, channels).await;
    }
    direct::run(
        DirectConfig {
            device: None,
            protocol,
        },
        channels,
    )
    .await
}
