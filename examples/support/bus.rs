//! What the examples that measure the daemon share: a private D-Bus broker, the daemon's
//! command line, the boards' signals.

// Each example uses what it needs.
#![allow(dead_code)]

use std::time::Duration;

/// Starts busd on a socket at `socket`; its address.
pub fn start_bus(socket: &std::path::Path) -> Result<String, String> {
    let address = format!("unix:path={}", socket.display());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        zruntime::block_on(async move {
            match busd::bus::Bus::for_address(Some(&address)).await {
                Ok(mut bus) => {
                    let _ = tx.send(Ok(bus.address().to_string()));
                    let _ = bus.run().await;
                }
                Err(e) => {
                    let _ = tx.send(Err(e.to_string()));
                }
            }
        })
    });
    rx.recv_timeout(Duration::from_secs(10))
        .map_err(|e| e.to_string())?
}

/// The command that runs `eboardd run` on the bus at `address` with the configuration
/// `config`, written to `dir`/config.toml, and its state in `dir`/state.
pub fn daemon_command(
    eboardd: &std::path::Path,
    address: &str,
    dir: &std::path::Path,
    config: &str,
) -> Result<std::process::Command, String> {
    let config_path = dir.join("config.toml");
    std::fs::write(&config_path, config).map_err(|e| format!("{}: {e}", config_path.display()))?;
    let mut command = std::process::Command::new(eboardd);
    command
        .args(["run", "--bus-address", address, "--config"])
        .arg(&config_path)
        .arg("--state-dir")
        .arg(dir.join("state"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    Ok(command)
}

/// A connection to the bus at `address` and the stream of the boards' signals (only
/// `member` when given).
pub async fn board_signals(
    address: &str,
    member: Option<&str>,
) -> Result<(zbus::Connection, zbus::MessageStream), String> {
    let conn = zbus::connection::Builder::address(address)
        .build()
        .await
        .map_err(|e| e.to_string())?;
    let mut rule = zbus::MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .interface("org.eboardd.EBoard1.Board");
    if let Some(member) = member {
        rule = rule.member(member);
    }
    let rule = rule.build().map_err(|e| e.to_string())?;
    let stream = zbus::MessageStream::for_match_rule(rule, &conn, None)
        .await
        .map_err(|e| e.to_string())?;
    Ok((conn, stream))
}

/// The device a board object (`/org/eboardd/EBoard1/Board/N`) reads.
pub async fn device_of(conn: &zbus::Connection, path: &str) -> Result<String, String> {
    let proxy = zbus::Proxy::new(
        conn,
        "org.eboardd.EBoard1",
        path.to_string(),
        "org.eboardd.EBoard1.Board",
    )
    .await
    .map_err(|e| e.to_string())?;
    proxy
        .get_property("Device")
        .await
        .map_err(|e| e.to_string())
}

/// The number of tasks the daemon runs now (the manager's `Tasks`).
pub async fn tasks_of(conn: &zbus::Connection) -> Result<u32, String> {
    let proxy = zbus::Proxy::new(
        conn,
        "org.eboardd.EBoard1",
        "/org/eboardd/EBoard1",
        "org.eboardd.EBoard1.Manager",
    )
    .await
    .map_err(|e| e.to_string())?;
    proxy.get_property("Tasks").await.map_err(|e| e.to_string())
}
