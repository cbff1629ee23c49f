//! The engine, line by line: what the GUI writes, what the board reports, what comes out.

use shakmaty::Square;

use super::*;
use crate::daemon::core::START_FEN;

/// An engine whose board has started and reported the start position.
fn at_start() -> Engine {
    let mut e = greeted();
    e.handle_line("isready");
    lines(&mut e);
    actions(&mut e);
    e.handle_event(&GameEvent::Board {
        placement: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR".into(),
        orientation: Default::default(),
    });
    e.handle_event(&GameEvent::NewGame {
        fen: START_FEN.into(),
        chess960: false,
    });
    e
}

/// An engine that has answered `uci`.
fn greeted() -> Engine {
    let mut e = Engine::new();
    e.handle_line("uci");
    lines(&mut e);
    e
}

fn moved(e: &mut Engine, ply: u32, uci: &str) {
    e.handle_event(&GameEvent::Move {
        ply,
        uci: uci.parse().expect("uci"),
        // The engine reads the UCI only.
        san: shakmaty::san::SanPlus {
            san: shakmaty::san::San::Null,
            suffix: None,
        },
        fen: String::new(),
        clock_ms: None,
        emt_ms: None,
        alternatives: Vec::new(),
    });
}

fn lines(e: &mut Engine) -> Vec<String> {
    std::iter::from_fn(|| e.poll_line()).collect()
}

fn actions(e: &mut Engine) -> Vec<Action> {
    std::iter::from_fn(|| e.poll_action()).collect()
}

/// The protocol lines, without the `info string` chatter.
fn protocol(e: &mut Engine) -> Vec<String> {
    lines(e)
        .into_iter()
        .filter(|l| !l.starts_with("info string"))
        .collect()
}

fn infos(e: &mut Engine) -> Vec<String> {
    lines(e)
        .into_iter()
        .filter_map(|l| l.strip_prefix("info string ").map(str::to_string))
        .collect()
}

#[test]
fn uci_names_the_engine_lists_its_options_and_ends_with_uciok() {
    let mut e = Engine::new();
    e.handle_line("uci");
    let out = lines(&mut e);
    assert!(out[0].starts_with("id name eboardd"), "{out:?}");
    // Some GUIs keep 24 characters of the name (xboard through polyglot): all of it fits.
    let name = out[0].strip_prefix("id name ").unwrap_or_default();
    assert!(name.chars().count() <= 24, "{name:?}");
    assert!(out[1].starts_with("id author "), "{out:?}");
    for name in ["UCI_Chess960", "Laws", "TouchMove", "SettleMs"] {
        assert!(
            out.iter()
                .any(|l| l.starts_with(&format!("option name {name} "))),
            "{name}: {out:?}"
        );
    }
    assert_eq!(out.last().map(String::as_str), Some("uciok"));
    assert!(!out.iter().any(|l| l.contains("Ponder")), "no pondering");
}

#[test]
fn info_strings_wait_for_the_answer_to_uci() {
    let mut e = Engine::new();
    e.handle_notice("the board is far away");
    e.handle_line("isready");
    assert_eq!(lines(&mut e), vec!["readyok"]);
    e.handle_line("uci");
    let out = lines(&mut e);
    let uciok = out.iter().position(|l| l == "uciok").expect("uciok");
    assert_eq!(out[uciok + 1..], ["info string the board is far away"]);
}

#[test]
fn isready_is_answered_at_once_even_while_waiting_for_a_move() {
    let mut e = at_start();
    e.handle_line("position startpos");
    e.handle_line("go wtime 1000 btime 1000");
    lines(&mut e);
    assert!(e.is_searching());
    e.handle_line("isready");
    assert_eq!(protocol(&mut e), vec!["readyok"]);
    assert!(e.is_searching());
}

#[test]
fn the_players_confirmed_move_is_the_bestmove() {
    let mut e = at_start();
    e.handle_line("ucinewgame");
    e.handle_line("position startpos");
    e.handle_line("go depth 20");
    assert_eq!(protocol(&mut e), Vec::<String>::new());
    moved(&mut e, 1, "e2e4");
    assert_eq!(protocol(&mut e), vec!["bestmove e2e4"]);
    assert!(!e.is_searching());
}

#[test]
fn a_move_made_before_go_is_answered_at_once() {
    let mut e = at_start();
    e.handle_line("position startpos");
    moved(&mut e, 1, "d2d4");
    let said = infos(&mut e);
    assert!(said.iter().any(|l| l.contains("d2d4")), "{said:?}");
    e.handle_line("go movetime 10");
    assert_eq!(protocol(&mut e), vec!["bestmove d2d4"]);
}

#[test]
fn the_guis_moves_are_shown_and_are_not_the_players_move() {
    let mut e = at_start();
    e.handle_line("position startpos");
    e.handle_line("go");
    moved(&mut e, 1, "e2e4");
    assert_eq!(protocol(&mut e), vec!["bestmove e2e4"]);
    actions(&mut e);
    e.handle_line("position startpos moves e2e4 e7e5");
    let said = infos(&mut e);
    assert!(
        said.iter().any(|l| l.contains("Black e5 (e7e5)")),
        "{said:?}"
    );
    assert_eq!(
        actions(&mut e),
        vec![Action::Show(Indication {
            from: Square::E7,
            to: Square::E5,
            text: "e5".into(),
            uci: Some("e7e5".parse().expect("uci")),
        })]
    );
    e.handle_line("go wtime 5000 btime 5000");
    moved(&mut e, 2, "e7e5");
    assert_eq!(protocol(&mut e), Vec::<String>::new(), "e7e5 is the GUI's");
    assert_eq!(actions(&mut e), vec![Action::Clear]);
    moved(&mut e, 3, "g1f3");
    assert_eq!(protocol(&mut e), vec!["bestmove g1f3"]);
}

#[test]
fn several_gui_moves_are_shown_one_after_the_other() {
    let mut e = at_start();
    e.handle_line("position startpos moves e2e4 e7e5 g1f3");
    assert!(matches!(
        actions(&mut e).as_slice(),
        [Action::Show(Indication {
            from: Square::E2,
            to: Square::E4,
            ..
        })]
    ));
    assert!(infos(&mut e).iter().any(|l| l.contains("3 moves")));
    moved(&mut e, 1, "e2e4");
    assert!(matches!(
        actions(&mut e).as_slice(),
        [Action::Show(Indication {
            from: Square::E7,
            to: Square::E5,
            ..
        })]
    ));
}

#[test]
fn stop_answers_0000_when_no_move_was_made_and_only_then() {
    let mut e = at_start();
    e.handle_line("position startpos");
    e.handle_line("stop");
    assert_eq!(protocol(&mut e), Vec::<String>::new(), "no go, no bestmove");
    e.handle_line("go infinite");
    e.handle_line("stop");
    assert_eq!(protocol(&mut e), vec!["bestmove 0000"]);
    e.handle_line("stop");
    assert_eq!(protocol(&mut e), Vec::<String>::new());
}

#[test]
fn infinite_search_keeps_a_confirmed_move_until_stop() {
    let mut e = at_start();
    e.handle_line("position startpos");
    e.handle_line("go infinite");
    moved(&mut e, 1, "c2c4");
    assert_eq!(protocol(&mut e), Vec::<String>::new());
    e.handle_line("stop");
    assert_eq!(protocol(&mut e), vec!["bestmove c2c4"]);
}

#[test]
fn ponder_waits_for_ponderhit() {
    let mut e = at_start();
    e.handle_line("position startpos");
    e.handle_line("go ponder");
    moved(&mut e, 1, "c2c4");
    assert_eq!(protocol(&mut e), Vec::<String>::new());
    e.handle_line("ponderhit");
    assert_eq!(protocol(&mut e), vec!["bestmove c2c4"]);
}

#[test]
fn an_illegal_move_in_position_is_reported_and_changes_nothing() {
    let mut e = at_start();
    e.handle_line("position startpos moves e2e4");
    let shown = actions(&mut e);
    lines(&mut e);
    e.handle_line("position startpos moves e2e4 e7e4");
    let said = infos(&mut e);
    assert!(
        said.iter()
            .any(|l| l.contains("move 2") && l.contains("e7e4")),
        "{said:?}"
    );
    assert_eq!(actions(&mut e), Vec::<Action>::new(), "still {shown:?}");
    // The GUI's game is still the one before: e2e4 is still to be carried out.
    moved(&mut e, 1, "e2e4");
    assert_eq!(actions(&mut e), vec![Action::Clear]);
}

#[test]
fn garbage_gets_an_info_string_and_the_engine_goes_on() {
    let mut e = at_start();
    for garbage in [
        "hello",
        "position",
        "position fen not-a-fen",
        "go wtime soon",
        "setoption name Hash value 64",
        "setoption name SettleMs value -3",
        "\u{1b}[A",
    ] {
        e.handle_line(garbage);
        let out = lines(&mut e);
        assert_eq!(out.len(), 1, "{garbage:?}: {out:?}");
        assert!(out[0].starts_with("info string "), "{garbage:?}: {out:?}");
        assert!(!e.wants_quit());
    }
    e.handle_line("");
    assert!(lines(&mut e).is_empty());
    e.handle_line("isready");
    assert_eq!(protocol(&mut e), vec!["readyok"]);
}

#[test]
fn control_characters_the_gui_sent_are_written_back_as_escapes() {
    let mut e = greeted();
    e.handle_line("\u{0}\u{1b}[2J\u{7f}");
    assert_eq!(
        infos(&mut e),
        ["unknown command ignored: \\u{0}\\u{1b}[2J\\u{7f}"]
    );
}

#[test]
fn quit_and_the_end_of_input_both_end_the_engine() {
    let mut e = Engine::new();
    e.handle_line("quit");
    assert!(e.wants_quit());
    let mut f = Engine::new();
    f.handle_input_closed();
    assert!(f.wants_quit());
}

#[test]
fn a_position_the_board_never_reached_is_set_up_on_the_board() {
    let mut e = at_start();
    let fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";
    e.handle_line(&format!("position fen {fen}"));
    assert_eq!(actions(&mut e), vec![Action::SetPosition(fen.into())]);
    assert!(infos(&mut e).iter().any(|l| l.contains("set up")));
    e.handle_line(&format!("position fen {fen}"));
    assert_eq!(actions(&mut e), Vec::<Action>::new(), "asked once");
    e.handle_event(&GameEvent::NewGame {
        fen: fen.into(),
        chess960: false,
    });
    e.handle_line("go");
    moved(&mut e, 1, "e2e4");
    assert_eq!(protocol(&mut e), vec!["bestmove e2e4"]);
}

#[test]
fn a_board_that_has_not_reported_is_waited_for() {
    let mut e = Engine::new();
    e.handle_line("position startpos");
    e.handle_line("go");
    assert_eq!(actions(&mut e), vec![Action::Start(Settings::default())]);
    assert_eq!(protocol(&mut e), Vec::<String>::new());
    e.handle_event(&GameEvent::Board {
        placement: "8/8/8/8/8/8/8/8".into(),
        orientation: Default::default(),
    });
    assert_eq!(actions(&mut e), vec![Action::SetPosition(START_FEN.into())]);
}

#[test]
fn a_different_move_on_the_board_is_to_be_taken_back_then_the_guis_move_shown() {
    let mut e = at_start();
    e.handle_line("position startpos");
    e.handle_line("go");
    moved(&mut e, 1, "e2e4");
    lines(&mut e);
    e.handle_line("position startpos moves e2e4 c7c5");
    actions(&mut e);
    moved(&mut e, 2, "c7c6");
    let said = infos(&mut e);
    assert!(
        said.iter().any(|l| l.contains("take back 1 move")),
        "{said:?}"
    );
    assert_eq!(
        actions(&mut e),
        vec![Action::Show(Indication {
            from: Square::C6,
            to: Square::C7,
            text: "back".into(),
            uci: None,
        })]
    );
    e.handle_event(&GameEvent::Takeback { ply: 1 });
    assert!(matches!(
        actions(&mut e).as_slice(),
        [Action::Show(Indication {
            from: Square::C7,
            to: Square::C5,
            ..
        })]
    ));
}

#[test]
fn a_withdrawn_move_is_no_longer_the_players_move() {
    let mut e = at_start();
    e.handle_line("position startpos");
    moved(&mut e, 1, "f1c4");
    e.handle_event(&GameEvent::Retract {
        ply: 1,
        uci: "f1c4".parse().expect("uci"),
    });
    lines(&mut e);
    e.handle_line("go");
    assert_eq!(protocol(&mut e), Vec::<String>::new());
}

#[test]
fn chess960_castling_is_written_king_takes_rook() {
    let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
    let mut e = Engine::new();
    e.handle_event(&GameEvent::NewGame {
        fen: fen.into(),
        chess960: false,
    });
    e.handle_line(&format!("position fen {fen}"));
    e.handle_line("go");
    moved(&mut e, 1, "e1g1");
    assert_eq!(protocol(&mut e), vec!["bestmove e1g1"]);
    let mut f = Engine::new();
    f.handle_line("setoption name UCI_Chess960 value true");
    f.handle_event(&GameEvent::NewGame {
        fen: fen.into(),
        chess960: false,
    });
    f.handle_line(&format!("position fen {fen}"));
    f.handle_line("go");
    moved(&mut f, 1, "e1g1");
    assert_eq!(protocol(&mut f), vec!["bestmove e1h1"]);
}

#[test]
fn the_board_starts_with_the_options_set_before_the_first_isready() {
    let mut e = Engine::new();
    e.handle_line("uci");
    e.handle_line("setoption name SettleMs value 400");
    assert_eq!(actions(&mut e), Vec::<Action>::new(), "not yet");
    e.handle_line("isready");
    let settle = |ms| Settings {
        settle: std::time::Duration::from_millis(ms),
        ..Settings::default()
    };
    assert_eq!(actions(&mut e), vec![Action::Start(settle(400))]);
    e.handle_line("setoption name SettleMs value 500");
    e.handle_line("setoption name SettleMs value 500");
    assert_eq!(actions(&mut e), vec![Action::Configure(settle(500))]);
}

#[test]
fn a_finished_game_gets_no_move_rather_than_a_wait() {
    let mut e = at_start();
    e.handle_line("position startpos moves f2f3 e7e5 g2g4 d8h4");
    e.handle_line("go");
    assert_eq!(protocol(&mut e), vec!["bestmove (none)"]);
    assert!(!e.is_searching());
}

#[test]
fn board_events_arriving_together_are_weighed_together() {
    let mut e = Engine::new();
    e.handle_line("position startpos");
    assert_eq!(actions(&mut e), vec![Action::Start(Settings::default())]);
    // The first report and the new game it starts come in one read.
    e.handle_event(&GameEvent::Board {
        placement: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR".into(),
        orientation: Default::default(),
    });
    e.handle_event(&GameEvent::NewGame {
        fen: START_FEN.into(),
        chess960: false,
    });
    assert_eq!(actions(&mut e), Vec::<Action>::new(), "already level");
}
