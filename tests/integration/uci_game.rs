//! `eboardd uci --device <pty>` plays whole games against a GUI, the emulated hand making the
//! player's moves and carrying out the GUI's moves as the board shows them.

use std::time::{Duration, Instant};

use eboardd::protocol::Protocol;
use eboardd::sim::device::BoardOptions;
use eboardd::sim::live::LiveBoard;
use eboardd::sim::{Game, HandOptions, games};
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{Color, Move, Position};

use crate::uci_common::Gui;

/// How much faster than real time the board and hand run.
const SPEED: f64 = 4.0;
/// The longest a confirmed move may take to come back as `bestmove` (wall time).
const MOVE_LIMIT: Duration = Duration::from_secs(15);

fn uci(m: Move) -> String {
    UciMove::from_standard(m).to_string()
}

fn position(moves: &[String]) -> String {
    if moves.is_empty() {
        "position startpos".to_string()
    } else {
        format!("position startpos moves {}", moves.join(" "))
    }
}

/// Plays `game` with the board's player on `player`'s side and the GUI playing the other
/// side's moves of the game. Along the way: `isready` while waiting, a `stop` with no move
/// made, and garbage lines. Returns the wall time of each `bestmove` after the hand's move
/// was complete.
fn play(game: &Game, protocol: Protocol, player: Color, seed: u64) -> Vec<Duration> {
    // A DGT board with LEDs is a Revelation II (LED commands go to no other DGT board).
    let options = BoardOptions {
        clock: protocol == Protocol::Dgt,
        dgt_revelation: protocol == Protocol::Dgt,
        ..BoardOptions::default()
    };
    let hand = HandOptions::default().with_speed(SPEED);
    let mut board =
        LiveBoard::start(protocol, &options, &game.start, seed, hand, SPEED).expect("board");
    let protocol_name = protocol.to_string();
    let mut gui = Gui::start(&["--device", board.path(), "--protocol", &protocol_name]);
    gui.handshake();
    gui.send("ucinewgame");
    gui.send("isready");
    assert_eq!(gui.expect_protocol(Duration::from_secs(5)), "readyok");

    let mut moves: Vec<String> = Vec::new();
    let mut latencies = Vec::new();
    // The player's moves, counted from 0, at which `stop` and garbage are tried.
    let (stop_at, garbage_at) = (2, 3);
    let mut turn = 0;
    for (i, &m) in game.moves.iter().enumerate() {
        let mover = if i % 2 == 0 {
            game.start.turn()
        } else {
            game.start.turn().other()
        };
        if mover != player {
            // The GUI's move: it reaches the board with the next `position`.
            moves.push(uci(m));
            continue;
        }
        gui.send(&position(&moves));
        if turn == stop_at {
            gui.send("go infinite");
            gui.send("stop");
            assert_eq!(gui.expect_protocol(MOVE_LIMIT), "bestmove 0000");
            gui.send(&position(&moves));
        }
        gui.send("go wtime 300000 btime 300000 winc 0 binc 0");
        if let Some(last) = moves.last() {
            // The GUI's move is shown on the board; the hand carries it out.
            let shown = board
                .wait_for_guidance(Duration::from_secs(10))
                .unwrap_or_else(|| panic!("the board never showed {last}"));
            assert_eq!(&uci(shown), last, "the board shows the GUI's move");
            if protocol == Protocol::Dgt {
                let san = SanPlus::from_move(board.position().clone(), shown).to_string();
                let deadline = Instant::now() + Duration::from_secs(5);
                while board.view().clock_text.as_deref() != Some(san.as_str()) {
                    assert!(
                        Instant::now() < deadline,
                        "the clock shows {:?}, not {san}",
                        board.view().clock_text
                    );
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
            let end = board.play(shown).expect("the hand carries it out");
            board.sleep_until(end);
            let cleared = Instant::now() + Duration::from_secs(10);
            while board.view().shown.is_some() {
                assert!(Instant::now() < cleared, "the lights stay on after {last}");
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        gui.send("isready");
        assert_eq!(
            gui.expect_protocol(Duration::from_secs(2)),
            "readyok",
            "readyok while waiting, and no bestmove for the GUI's own move"
        );
        if turn == garbage_at {
            for garbage in ["hello", "position startpos moves e2e5", "go wtime soon"] {
                gui.send(garbage);
            }
            gui.send("isready");
            assert_eq!(gui.expect_protocol(Duration::from_secs(2)), "readyok");
        }
        let end = board.play(m).expect("the hand plays");
        board.sleep_until(end);
        let done = Instant::now();
        let answer = gui.expect_protocol(MOVE_LIMIT);
        latencies.push(done.elapsed());
        assert_eq!(answer, format!("bestmove {}", uci(m)), "move {}", i + 1);
        moves.push(uci(m));
        turn += 1;
    }
    gui.send("quit");
    assert_eq!(
        gui.wait_exit(Duration::from_secs(3)),
        Some(0),
        "quit ends it"
    );
    let infos: Vec<&String> = gui
        .transcript
        .iter()
        .filter(|l| l.starts_with("info string"))
        .collect();
    for text in [
        "unknown command ignored: hello",
        "position ignored: move 1 e2e5",
        "stopped before a move was made",
    ] {
        assert!(infos.iter().any(|l| l.contains(text)), "{text}: {infos:#?}");
    }
    assert!(
        gui.transcript.iter().all(|l| l.starts_with("info string")
            || l.starts_with("bestmove ")
            || l.starts_with("id ")
            || l.starts_with("option ")
            || l == "uciok"
            || l == "readyok"),
        "nothing but protocol lines: {:#?}",
        gui.transcript
    );
    board.stop().expect("the board ran");
    latencies
}

fn report(name: &str, started: Instant, latencies: &[Duration]) {
    let worst = latencies.iter().max().copied().unwrap_or_default();
    let mean = latencies.iter().sum::<Duration>() / latencies.len().max(1) as u32;
    eprintln!(
        "{name}: {} moves by the player in {:.1} s; bestmove after the move: mean {:.0} ms, worst {:.0} ms",
        latencies.len(),
        started.elapsed().as_secs_f64(),
        mean.as_secs_f64() * 1000.0,
        worst.as_secs_f64() * 1000.0
    );
}

#[test]
fn a_whole_game_on_a_dgt_board_with_the_guis_moves_shown_on_leds_and_clock() {
    let started = Instant::now();
    let game = &games::real_games()[0];
    let latencies = play(game, Protocol::Dgt, Color::White, 11);
    assert_eq!(latencies.len(), game.moves.len().div_ceil(2));
    report("dgt, white", started, &latencies);
}

#[test]
fn a_plain_dgt_board_shows_the_guis_move_on_its_clock_and_gets_no_led_command() {
    let options = BoardOptions {
        clock: true,
        dgt_revelation: false,
        ..BoardOptions::default()
    };
    let hand = HandOptions::default().with_speed(SPEED);
    let start = shakmaty::Chess::default();
    let board = LiveBoard::start(Protocol::Dgt, &options, &start, 13, hand, SPEED).expect("board");
    let mut gui = Gui::start(&["--device", board.path(), "--protocol", "dgt"]);
    gui.handshake();
    gui.send("ucinewgame");
    gui.send("isready");
    assert_eq!(gui.expect_protocol(Duration::from_secs(5)), "readyok");
    gui.send("position startpos moves e2e4");
    gui.send("go infinite");
    let deadline = Instant::now() + Duration::from_secs(10);
    while board.view().clock_text.as_deref() != Some("e4") {
        assert!(
            Instant::now() < deadline,
            "the clock shows {:?}, not e4",
            board.view().clock_text
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(
        board.view().shown,
        None,
        "no LED command reached a plain DGT board"
    );
    gui.send("stop");
    assert_eq!(gui.expect_protocol(MOVE_LIMIT), "bestmove 0000");
    gui.send("quit");
    assert_eq!(
        gui.wait_exit(Duration::from_secs(3)),
        Some(0),
        "quit ends it"
    );
    board.stop().expect("the board ran");
}

#[test]
fn a_whole_game_on_a_millennium_board_playing_black() {
    let started = Instant::now();
    let game = &games::real_games()[0];
    let latencies = play(game, Protocol::Millennium, Color::Black, 12);
    assert_eq!(latencies.len(), game.moves.len() / 2);
    report("millennium, black", started, &latencies);
}

/// The engine may ask for the GUI's position before it has heard of the board's game. If
/// the player has moved meanwhile, the board's game already went through that position: it
/// is kept (the engine then finds the board ahead), not started again over the move.
#[test]
fn a_position_asked_for_after_the_players_first_move_keeps_the_boards_game() {
    use eboardd::daemon::core::START_FEN;
    use eboardd::event::GameEvent;
    use eboardd::uci::Action;
    use eboardd::uci::bridge::{News, channels};
    use eboardd::uci::direct::{DirectConfig, run};
    use eboardd::uci::options::Settings;

    const LIMIT: Duration = Duration::from_secs(15);
    let start = shakmaty::Chess::default();
    let hand = HandOptions::default().with_speed(SPEED);
    let mut board = LiveBoard::start(
        Protocol::Dgt,
        &BoardOptions::default(),
        &start,
        21,
        hand,
        SPEED,
    )
    .expect("board");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let (mut ours, theirs) = channels();
        let config = DirectConfig {
            device: Some(board.path().into()),
            protocol: Some(Protocol::Dgt),
        };
        let task = tokio::spawn(run(config, theirs));
        ours.actions
            .send(Action::Start(Settings::default()))
            .expect("send");
        let mut next_events = async || loop {
            match tokio::time::timeout(LIMIT, ours.news.recv()).await {
                Ok(Some(News::Events(events))) => return events,
                Ok(Some(News::Notice(_))) => {}
                other => panic!("{other:?}"),
            }
        };
        while !next_events()
            .await
            .iter()
            .any(|e| matches!(e, GameEvent::NewGame { .. }))
        {}
        let e4 = "e2e4"
            .parse::<UciMove>()
            .expect("uci")
            .to_move(&start)
            .expect("legal");
        board.play(e4).expect("played");
        while !next_events()
            .await
            .iter()
            .any(|e| matches!(e, GameEvent::Move { ply: 1, .. }))
        {}
        // The engine's request, late: the game is not started again over 1. e4.
        ours.actions
            .send(Action::SetPosition(START_FEN.into()))
            .expect("send");
        loop {
            match tokio::time::timeout(LIMIT, ours.news.recv()).await {
                Ok(Some(News::Notice(text))) if text.contains("already passed through") => break,
                Ok(Some(News::Notice(_))) => {}
                Ok(Some(News::Events(events))) => assert!(
                    !events.iter().any(|e| matches!(
                        e,
                        GameEvent::NewGame { .. } | GameEvent::Mismatch { .. }
                    )),
                    "{events:?}"
                ),
                other => panic!("{other:?}"),
            }
        }
        drop(ours.actions);
        tokio::time::timeout(LIMIT, task)
            .await
            .expect("the task ends with the bridge")
            .expect("task");
    });
    board.stop().expect("board");
}
