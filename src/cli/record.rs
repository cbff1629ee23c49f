//! `eboardd record`: a board's traffic to a trace, printing what it decodes.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::{LawsArgs, protocol_parser};
use crate::device::{Device, DeviceOutput};
use crate::pipeline::CoreConfig;
use crate::protocol::Protocol;

/// Arguments of `eboardd record`.
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The board's serial device (`/dev/ttyUSB0`, `/dev/rfcomm0`...).
    #[arg(long)]
    pub device: PathBuf,
    /// The board's protocol.
    #[arg(long, value_parser = protocol_parser())]
    pub protocol: Protocol,
    /// Stop after this many seconds (default: until interrupted or the board goes away).
    #[arg(long)]
    pub seconds: Option<f64>,
    /// How the game is judged.
    #[command(flatten)]
    pub laws: LawsArgs,
    /// A title for the trace header.
    #[arg(long, default_value = "eboardd record")]
    pub title: String,
    /// The trace file to write.
    pub out: PathBuf,
}

/// Runs `eboardd record`.
pub fn run(args: RecordArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(record(args))
}

async fn record(args: RecordArgs) -> anyhow::Result<()> {
    let protocol = args.protocol;
    let config = CoreConfig {
        keep_sensed: true,
        laws: args.laws.config(None)?,
        ..CoreConfig::default()
    };
    let mut device = Device::open(&args.device, protocol, config)?;
    device.record_to(&args.out, &args.title)?;
    device.start().await?;
    let limit = args
        .seconds
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64);
    let deadline = limit.map(|d| tokio::time::Instant::now() + d);
    let stop = async {
        match deadline {
            Some(d) => tokio::time::sleep_until(d).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(stop);
    let interrupted = tokio::signal::ctrl_c();
    tokio::pin!(interrupted);
    loop {
        tokio::select! {
            out = device.next() => match out {
                Ok(DeviceOutput::Sensed(item)) => println!("{item}"),
                Ok(DeviceOutput::Event(event)) => println!("{} event {}", event.t, event.to_json_line()),
                Err(crate::device::DeviceError::Disconnected { path, link }) => {
                    eprintln!("eboardd: {path}: board disconnected ({}); the trace is complete", link.reason);
                    break;
                }
                Err(e) => return Err(e.into()),
            },
            () = &mut stop => break,
            _ = &mut interrupted => break,
        }
    }
    Ok(())
}
