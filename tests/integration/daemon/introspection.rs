//! The interface XML in protocols/ is what the running service introspects as.
//! `EBOARDD_BLESS=1` rewrites the files from the live service (review the diff).

use std::path::Path;

use eboardd::dbus::{BOARD_INTERFACE, BUS_NAME, MANAGER_INTERFACE, MANAGER_PATH, board_path};

use crate::daemon::pty_board::PtyBoard;
use crate::daemon::support::*;

/// The `<interface name="…">…</interface>` element of `xml`, lines trimmed.
fn interface_element(xml: &str, name: &str) -> Option<String> {
    let open = format!("<interface name=\"{name}\">");
    let start = xml.find(&open)?;
    let end = start + xml[start..].find("</interface>")? + "</interface>".len();
    Some(
        xml[start..end]
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

fn file_for(interface: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("protocols")
        .join(format!("{interface}.xml"))
}

fn check(live: &str, interface: &str) {
    let live = interface_element(live, interface)
        .unwrap_or_else(|| panic!("{interface} is not in the live introspection"));
    let path = file_for(interface);
    if std::env::var_os("EBOARDD_BLESS").is_some() {
        let doc = format!(
            "<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\"\n \"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd\">\n<!-- {interface}: generated from the live service by `EBOARDD_BLESS=1 cargo test --test integration daemon::introspection`; the test compares them. -->\n<node>\n{}\n</node>\n",
            indent(&live)
        );
        std::fs::write(&path, doc).expect("write the interface file");
        return;
    }
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let shipped = interface_element(&text, interface)
        .unwrap_or_else(|| panic!("{} has no {interface} element", path.display()));
    assert_eq!(
        shipped,
        live,
        "{} differs from the live introspection (EBOARDD_BLESS=1 rewrites it)",
        path.display()
    );
}

/// Indents an element's lines by nesting depth, for the written file.
fn indent(element: &str) -> String {
    let mut depth = 1usize;
    let mut out = Vec::new();
    for line in element.lines() {
        if line.starts_with("</") {
            depth = depth.saturating_sub(1);
        }
        out.push(format!("{}{line}", "  ".repeat(depth)));
        let opens = line.starts_with('<')
            && !line.starts_with("</")
            && !line.starts_with("<!--")
            && !line.ends_with("/>")
            && !line.contains("</");
        if opens {
            depth += 1;
        }
    }
    out.join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interface_files_in_protocols_match_the_live_introspection() {
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let link = board_link(dir.path(), "board0");
    let _board = PtyBoard::plug(&link);
    let conn = client(&address).await;
    let (_daemon, _service, _) = start_daemon(
        &address,
        &dir.path().join("state"),
        vec![scripted_board(&link)],
    )
    .await;
    let introspect = |path: String| {
        let conn = conn.clone();
        async move {
            zbus::fdo::IntrospectableProxy::builder(&conn)
                .destination(BUS_NAME)
                .path(path)
                .build()
                .await
                .expect("introspectable proxy")
                .introspect()
                .await
                .expect("introspect")
        }
    };
    let manager = introspect(MANAGER_PATH.to_string()).await;
    assert!(
        manager.contains("org.freedesktop.DBus.ObjectManager"),
        "{manager}"
    );
    check(&manager, MANAGER_INTERFACE);
    let board = introspect(board_path(0)).await;
    check(&board, BOARD_INTERFACE);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_object_manager_lists_every_board_with_its_properties() {
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let links: Vec<_> = (0..2)
        .map(|i| board_link(dir.path(), &format!("board{i}")))
        .collect();
    let _boards: Vec<_> = links.iter().map(|l| PtyBoard::plug(l)).collect();
    let conn = client(&address).await;
    let configs = links.iter().map(|l| scripted_board(l)).collect();
    let (_daemon, _service, _) = start_daemon(&address, &dir.path().join("state"), configs).await;
    let om = zbus::fdo::ObjectManagerProxy::builder(&conn)
        .destination(BUS_NAME)
        .path(MANAGER_PATH)
        .build()
        .await
        .expect("object manager proxy");
    let objects = om.get_managed_objects().await.expect("GetManagedObjects");
    for (i, link) in links.iter().enumerate() {
        let path = zbus::OwnedObjectPath::try_from(board_path(i as u32)).expect("path");
        let ifaces = objects
            .get(&path)
            .unwrap_or_else(|| panic!("{path} listed"));
        let props = ifaces
            .iter()
            .find(|(name, _)| name.as_str() == BOARD_INTERFACE)
            .map(|(_, props)| props)
            .expect("the board interface");
        let device = props.get("Device").expect("Device");
        assert_eq!(
            String::try_from(device.clone()).expect("s"),
            link.display().to_string()
        );
    }
}
