//! A state directory that cannot be written: the journal is read all the same (read
//! before write), the game resumed and kept in memory, and moves go on being confirmed.
//!
//! Root writes anywhere, so when the tests run as root the daemon's thread takes the
//! filesystem identity of `nobody` (`setfsuid`, which Linux keeps per thread) and the
//! directory is made read-only by its mode; a user other than root needs only the mode.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use eboardd::dbus::board_path;

use crate::daemon::game::wait_for_ply;
use crate::daemon::pty_board::PtyBoard;
use crate::daemon::support::*;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// Sets the mode of `path` and, with `recursive`, of everything under it.
fn chmod(path: &Path, dirs: u32, files: u32) {
    let mode = if path.is_dir() { dirs } else { files };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    if path.is_dir() {
        for entry in std::fs::read_dir(path).expect("read_dir") {
            chmod(&entry.expect("entry").path(), dirs, files);
        }
    }
}

/// Makes the calling thread see the filesystem as `nobody` when it is root.
fn drop_root_for_files() {
    // SAFETY: geteuid and setfsuid only read and set this thread's credentials.
    unsafe {
        if libc::geteuid() == 0 {
            libc::setfsuid(65534);
        }
    }
}

/// Makes the calling thread see the filesystem as root again (when it was).
fn restore_root_for_files() {
    // SAFETY: as above.
    unsafe {
        if libc::geteuid() == 0 {
            libc::setfsuid(0);
        }
    }
}

#[test]
fn a_read_only_state_directory_resumes_the_game_and_keeps_it_in_memory() {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let state = dir.path().join("state");
    let link = board_link(dir.path(), "board0");
    let mut board = PtyBoard::plug(&link);
    let client_rt = runtime();
    let conn = client_rt.block_on(client(&address));
    let proxy = client_rt.block_on(async { board_proxy(&conn, board_path(0)).await });

    // First life, on a writable disk: three moves journalled.
    let first = runtime();
    first.block_on(start_daemon(&address, &state, vec![scripted_board(&link)]));
    board.expect_line("hello", LIMIT);
    board.send(&format!("board {START}"));
    for m in ["e2e4", "c7c5", "g1f3"] {
        board.send(&format!("move {m}"));
    }
    client_rt.block_on(wait_for_ply(&proxy, 3));
    first.shutdown_background();
    let journal = std::fs::read_dir(state.join("journal"))
        .expect("journal dir")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .expect("a journal");
    let journalled = std::fs::read(&journal).expect("journal");

    // The state directory becomes read-only; the way to it and the board stay open.
    chmod(&state, 0o555, 0o444);
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    for open in [&link, &dir.path().join("bus")] {
        std::fs::set_permissions(open, std::fs::Permissions::from_mode(0o666)).expect("chmod");
    }

    // Second life, on its own thread, seeing the directory read-only.
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<()>();
    let second = {
        let (address, state, link) = (address.clone(), state.clone(), link.clone());
        std::thread::spawn(move || {
            drop_root_for_files();
            let probe = std::fs::File::create(state.join("journal").join("probe"));
            assert!(probe.is_err(), "the state directory must refuse writes");
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                let running = start_daemon(&address, &state, vec![scripted_board(&link)]).await;
                let _ = ready_tx.send(());
                let _ = stop_rx.await;
                drop(running);
            });
            restore_root_for_files();
        })
    };

    ready_rx
        .recv_timeout(LIMIT)
        .expect("the second life serves");
    // The game is resumed from the journal it could not write.
    client_rt.block_on(wait_for_ply(&proxy, 3));
    assert_eq!(client_rt.block_on(proxy.ply()).expect("Ply"), 3);
    board.expect_line("hello", LIMIT);
    // And goes on in memory.
    board.send("move d7d6");
    board.send("move d2d4");
    client_rt.block_on(wait_for_ply(&proxy, 5));
    let pgn = client_rt.block_on(proxy.pgn()).expect("Pgn");
    assert!(pgn.contains("1. e4 c5 2. Nf3 d6 3. d4"), "{pgn}");
    assert_eq!(
        std::fs::read(&journal).expect("journal"),
        journalled,
        "nothing was written"
    );

    let _ = stop_tx.send(());
    second.join().expect("the second life ends");
    chmod(&state, 0o755, 0o644);
}
