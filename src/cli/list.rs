//! `eboardd list`: probes the serial ports and says which have boards on them.

use std::path::PathBuf;

use clap::Args;

use crate::link;
use crate::link::probe::{self, ProbeError};
use crate::protocol::Protocol;

/// Arguments of `eboardd list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Probe only these devices (default: every serial port the system lists, and
    /// /dev/rfcomm*).
    #[arg(value_name = "PATH")]
    pub devices: Vec<PathBuf>,
}

/// What probing one port found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// A board speaking this protocol.
    Board(Protocol),
    /// The port opened but nothing answered like a board.
    NoBoard,
    /// The port could not be opened or failed (busy, no permission, gone).
    Unusable(String),
}

/// One port and what was found on it.
#[derive(Debug, Clone)]
pub struct PortReport {
    /// The device path.
    pub path: PathBuf,
    /// USB vendor and product, when the system says.
    pub usb: Option<String>,
    /// What probing found.
    pub finding: Finding,
}

impl std::fmt::Display for PortReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match &self.finding {
            Finding::Board(p) => format!("{p} board"),
            Finding::NoBoard => "no board".to_string(),
            Finding::Unusable(why) => format!("unusable: {why}"),
        };
        write!(f, "{}\t{what}", self.path.display())?;
        if let Some(usb) = &self.usb {
            write!(f, "\t{usb}")?;
        }
        Ok(())
    }
}

fn ports() -> Vec<(PathBuf, Option<String>)> {
    let mut found: Vec<(PathBuf, Option<String>)> = serialport::available_ports()
        .unwrap_or_default()
        .into_iter()
        .map(|p| {
            let usb = match p.port_type {
                serialport::SerialPortType::UsbPort(u) => Some(format!(
                    "usb {:04x}:{:04x} {}",
                    u.vid,
                    u.pid,
                    u.product.unwrap_or_default()
                )),
                _ => None,
            };
            (PathBuf::from(p.port_name), usb)
        })
        .collect();
    if let Ok(dir) = std::fs::read_dir("/dev") {
        for entry in dir.filter_map(Result::ok) {
            if entry.file_name().to_string_lossy().starts_with("rfcomm") {
                let path = entry.path();
                if !found.iter().any(|(p, _)| *p == path) {
                    found.push((path, None));
                }
            }
        }
    }
    found.sort();
    found
}

/// Probes the board on `path`.
pub async fn probe_port(path: PathBuf, usb: Option<String>) -> PortReport {
    let finding = match link::open(&path, Protocol::Dgt.baud_rate()) {
        Err(e) => Finding::Unusable(e.reason),
        Ok(mut port) => match probe::probe(&mut port).await {
            Ok(p) => Finding::Board(p),
            Err(ProbeError::NoAnswer) => Finding::NoBoard,
            Err(ProbeError::Link(e)) => Finding::Unusable(e.reason),
        },
    };
    PortReport { path, usb, finding }
}

/// Runs `eboardd list`.
pub fn run(args: ListArgs) -> anyhow::Result<()> {
    let targets: Vec<(PathBuf, Option<String>)> = if args.devices.is_empty() {
        ports()
    } else {
        args.devices.into_iter().map(|d| (d, None)).collect()
    };
    if targets.is_empty() {
        eprintln!("eboardd: no serial ports found");
        return Ok(());
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let reports = runtime.block_on(futures_util::future::join_all(
        targets.into_iter().map(|(p, u)| probe_port(p, u)),
    ));
    for r in reports {
        println!("{r}");
    }
    Ok(())
}
