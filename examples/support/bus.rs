//! A private D-Bus broker for the examples that measure the daemon.

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
