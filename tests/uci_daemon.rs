//! `eboardd uci` follows a board of the running daemon over D-Bus: the daemon owns the port,
//! the bridge reads the board's events and asks the daemon to show the GUI's moves.

mod uci_common;

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use eboardd::protocol::Protocol;
use eboardd::sim::HandOptions;
use eboardd::sim::device::BoardOptions;
use eboardd::sim::live::LiveBoard;
use shakmaty::Chess;
use shakmaty::uci::UciMove;

use uci_common::{Gui, start_bus};

const SPEED: f64 = 4.0;
const LIMIT: Duration = Duration::from_secs(20);

struct Daemon(Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn play(board: &mut LiveBoard, uci: &str) {
    let m = UciMove::from_ascii(uci.as_bytes())
        .expect("uci")
        .to_move(board.position())
        .expect("legal on the board");
    let end = board.play(m).expect("the hand plays");
    board.sleep_until(end);
}

#[test]
fn the_bridge_follows_the_daemons_board_and_answers_with_its_moves() {
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let options = BoardOptions {
        clock: true,
        ..BoardOptions::default()
    };
    let hand = HandOptions::default().with_speed(SPEED);
    let mut board = LiveBoard::start(Protocol::Dgt, &options, &Chess::default(), 3, hand, SPEED)
        .expect("board");
    let _daemon = Daemon(
        Command::new(env!("CARGO_BIN_EXE_eboardd"))
            .args(["run", "--bus-address", &address, "--state-dir"])
            .arg(dir.path().join("state"))
            .args(["--device", board.path()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .expect("start the daemon"),
    );
    let mut gui = Gui::start(&["--bus-address", &address]);
    gui.handshake();
    gui.send("setoption name SettleMs value 100");
    gui.send("ucinewgame");
    gui.send("position startpos");
    gui.send("go wtime 60000 btime 60000");
    gui.wait_for(LIMIT, |l| l.contains("following the daemon's board"));
    gui.wait_for(LIMIT, |l| l.contains("level with the GUI: White to move"));
    play(&mut board, "e2e4");
    assert_eq!(gui.expect_protocol(LIMIT), "bestmove e2e4");

    gui.send("position startpos moves e2e4 e7e5");
    gui.send("go wtime 60000 btime 60000");
    gui.wait_for(LIMIT, |l| {
        l.contains("carry out the GUI's move on the board: Black e5 (e7e5)")
    });
    play(&mut board, "e7e5");
    gui.send("isready");
    assert_eq!(
        gui.expect_protocol(LIMIT),
        "readyok",
        "e7e5 is the GUI's move"
    );
    play(&mut board, "g1f3");
    assert_eq!(gui.expect_protocol(LIMIT), "bestmove g1f3");
    gui.send("quit");
    assert_eq!(gui.wait_exit(Duration::from_secs(3)), Some(0));
    assert!(
        gui.transcript
            .iter()
            .any(|l| l.contains("the settings did not apply")),
        "the daemon's board keeps the daemon's settings: {:#?}",
        gui.transcript
    );
}
