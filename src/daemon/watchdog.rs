//! systemd readiness and watchdog notifications.
//!
//! `READY=1` is sent once the daemon serves (its bus name owned); `WATCHDOG=1` only after
//! every board's task has answered a ping and while the daemon owns its bus name, so a
//! stuck task, or a bus connection that cannot be had back, stops the pings and systemd
//! restarts the daemon. Outside systemd (no `NOTIFY_SOCKET`) everything here is a no-op.

use std::time::Duration;

use sd_notify::NotifyState;

use super::Daemon;
use crate::dbus::BusHealth;

/// Tells systemd the daemon is ready, with a status line.
pub fn notify_ready(status: &str) {
    if let Err(e) = sd_notify::notify(&[NotifyState::Ready, NotifyState::Status(status)]) {
        tracing::warn!("cannot notify systemd: {e}");
    }
}

/// Tells systemd the daemon is stopping.
pub fn notify_stopping() {
    let _ = sd_notify::notify(&[NotifyState::Stopping]);
}

/// The watchdog interval systemd asked for, if any.
pub fn watchdog_interval() -> Option<Duration> {
    sd_notify::watchdog_enabled()
}

/// Pings systemd at half the watchdog interval for as long as every board answers and the
/// daemon owns its bus name (`bus`). Returns at once when no watchdog is configured.
pub async fn run_watchdog(daemon: Daemon, bus: BusHealth) {
    let Some(interval) = watchdog_interval() else {
        return;
    };
    let period = interval / 2;
    let mut tick = tokio::time::interval(period);
    loop {
        tick.tick().await;
        if !bus.owns_name() {
            tracing::error!("not on the bus with its name; withholding the watchdog ping");
        } else if daemon.all_alive(period / 2).await {
            let _ = sd_notify::notify(&[NotifyState::Watchdog]);
        } else {
            tracing::error!("a board's task did not answer; withholding the watchdog ping");
        }
    }
}
