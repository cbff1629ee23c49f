//! `eboardd uci` follows a board of the running daemon over D-Bus: the daemon owns the port,
//! the bridge reads the board's events and asks the daemon to show the GUI's moves (which
//! the daemon puts on the board's LEDs and clock). `eboardd watch --format uci` beside it
//! prints one line per confirmed move.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use eboardd::protocol::Protocol;
use eboardd::sim::HandOptions;
use eboardd::sim::device::BoardOptions;
use eboardd::sim::live::LiveBoard;
use shakmaty::Chess;
use shakmaty::uci::UciMove;

use crate::uci_common::{Gui, start_bus};

const SPEED: f64 = 4.0;
const LIMIT: Duration = Duration::from_secs(20);

struct Daemon(Child);

impl Daemon {
    /// `eboardd run` on the bus at `address`, its state in `dir`, reading `device`.
    fn start(address: &str, dir: &std::path::Path, device: &str) -> Daemon {
        Daemon(
            Command::new(env!("CARGO_BIN_EXE_eboardd"))
                .args(["run", "--bus-address", address, "--state-dir"])
                .arg(dir.join("state"))
                .args(["--device", device])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .spawn()
                .expect("start the daemon"),
        )
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `eboardd watch --format uci` on board 0, its lines on a channel.
struct Watch {
    child: Child,
    lines: Receiver<String>,
}

impl Watch {
    /// Starts watching and waits until it follows the board (its first line). `watch`
    /// ends at once while the daemon or its board is not there yet: it is started again.
    fn start(address: &str) -> Watch {
        let deadline = Instant::now() + LIMIT;
        loop {
            let mut child = Command::new(env!("CARGO_BIN_EXE_eboardd"))
                .args([
                    "watch",
                    "--bus-address",
                    address,
                    "--board",
                    "0",
                    "--format",
                    "uci",
                ])
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .expect("start eboardd watch");
            let stdout = child.stdout.take().expect("stdout");
            let (tx, lines) = channel();
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
            loop {
                assert!(Instant::now() < deadline, "watch never followed board 0");
                match lines.recv_timeout(Duration::from_millis(100)) {
                    Ok(l) if l.starts_with("info string position ") => {
                        return Watch { child, lines };
                    }
                    Ok(_) | Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            }
            let _ = child.wait();
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The lines up to and including the first for which `last` holds (bounded).
    fn lines_until(&mut self, last: impl Fn(&str) -> bool) -> Vec<String> {
        let mut out = Vec::new();
        loop {
            let l = self
                .lines
                .recv_timeout(LIMIT)
                .unwrap_or_else(|_| panic!("watch said only {out:?}"));
            let done = last(&l);
            out.push(l);
            if done {
                return out;
            }
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
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
    // No clock: the daemon holds a move while the mover's clock runs until its press (at
    // most 10 s), and this hand does not press clocks. A Revelation II: the daemon shows
    // the GUI's moves on its LEDs (a plain e-board gets no LED commands).
    let options = BoardOptions {
        clock: false,
        dgt_revelation: true,
        ..BoardOptions::default()
    };
    let hand = HandOptions::default().with_speed(SPEED);
    let mut board = LiveBoard::start(Protocol::Dgt, &options, &Chess::default(), 3, hand, SPEED)
        .expect("board");
    let _daemon = Daemon::start(&address, dir.path(), board.path());
    let mut gui = Gui::start(&["--bus-address", &address]);
    let mut watch = Watch::start(&address);
    gui.handshake();
    gui.send("setoption name SettleMs value 100");
    gui.send("ucinewgame");
    gui.send("position startpos");
    gui.send("go wtime 60000 btime 60000");
    // The bridge may find the daemon's board before it answers the handshake's `isready`.
    gui.heard_or_wait_for(LIMIT, |l| l.contains("following the daemon's board"));
    // Level with the GUI, whether the board's game was known before the `go` or came after.
    gui.heard_or_wait_for(LIMIT, |l| {
        l.contains("level with the GUI: White to move")
            || l.contains("waiting for White's move on the board")
    });
    play(&mut board, "e2e4");
    assert_eq!(gui.expect_protocol(LIMIT), "bestmove e2e4");

    gui.send("position startpos moves e2e4 e7e5");
    gui.send("go wtime 60000 btime 60000");
    gui.wait_for(LIMIT, |l| {
        l.contains("carry out the GUI's move on the board: Black e5 (e7e5)")
    });
    // The daemon shows it on the board (LEDs, clock); the hand carries out what it sees.
    let shown = board.wait_for_guidance(LIMIT).unwrap_or_else(|| {
        panic!(
            "the daemon shows the GUI's move on the board: {:#?}",
            gui.transcript
        )
    });
    assert_eq!(UciMove::from_standard(shown).to_string(), "e7e5");
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
    let moves: Vec<String> = watch
        .lines_until(|l| l == "g1f3")
        .into_iter()
        .filter(|l| !l.starts_with("info string"))
        .collect();
    assert_eq!(
        moves,
        ["e2e4", "e7e5", "g1f3"],
        "one line per confirmed move"
    );
    assert!(
        gui.heard(|l| l.contains("the settings did not apply")),
        "the daemon's board keeps the daemon's settings: {:#?}",
        gui.transcript
    );
}

/// A daemon that has not read its board yet has a game the board may already have left:
/// the bridge waits for the daemon's first report of the board before it calls the board
/// level with the GUI.
#[test]
fn the_bridge_waits_for_the_daemon_to_read_its_board() {
    use eboardd::sim::device::EmulatedBoard;
    use eboardd::sim::pty::PtyBoard;
    use eboardd::sim::timeline::{Timeline, squares_of};
    use eboardd::time::Time;
    use shakmaty::Position;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let squares = squares_of(Chess::default().board());
    let emulated = EmulatedBoard::with_options(
        Protocol::Dgt,
        &BoardOptions {
            clock: false,
            ..BoardOptions::default()
        },
        &squares,
        5,
    );
    // Open but silent: nothing answers the daemon until the board is switched on below.
    let mut pty = PtyBoard::open(emulated, 1.0).expect("pty");
    let _daemon = Daemon::start(&address, dir.path(), pty.path());
    let mut gui = Gui::start(&["--bus-address", &address, "--board", "0"]);
    gui.handshake();
    gui.heard_or_wait_for(LIMIT, |l| l.contains("following the daemon's board"));
    gui.send("position startpos");
    gui.send("go wtime 60000 btime 60000");
    gui.send("isready");
    assert_eq!(gui.expect_protocol(LIMIT), "readyok");
    assert!(
        gui.heard(|l| l.contains("waiting for the board, then for White's move")),
        "the daemon has not read the board: {:#?}",
        gui.transcript
    );
    assert!(
        !gui.heard(|l| l.contains("level with the GUI") || l.contains("move on the board")),
        "the board is not known to be level yet: {:#?}",
        gui.transcript
    );

    let stop = Arc::new(AtomicBool::new(false));
    let running = Arc::clone(&stop);
    let board = std::thread::spawn(move || {
        let timeline = Timeline::new(squares, Vec::new());
        pty.run(&timeline, Time::from_millis(3_600_000), &running)
    });
    gui.wait_for(LIMIT, |l| l.contains("level with the GUI: White to move"));
    gui.send("quit");
    assert_eq!(gui.wait_exit(Duration::from_secs(3)), Some(0));
    stop.store(true, Ordering::Relaxed);
    board.join().expect("board thread").expect("board ran");
}
