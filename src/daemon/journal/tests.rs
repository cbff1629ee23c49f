use super::*;
use crate::time::Time;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn at(ms: u64, event: GameEvent) -> TimedEvent {
    TimedEvent {
        t: Time::from_millis(ms),
        event,
    }
}

fn new_game() -> GameEvent {
    GameEvent::NewGame {
        fen: START.into(),
        chess960: false,
    }
}

fn e4() -> GameEvent {
    GameEvent::Move {
        ply: 1,
        uci: "e2e4".parse().expect("uci"),
        san: "e4".parse().expect("san"),
        fen: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".into(),
        clock_ms: None,
        emt_ms: None,
        alternatives: Vec::new(),
    }
}

fn e5() -> GameEvent {
    GameEvent::Move {
        ply: 2,
        uci: "e7e5".parse().expect("uci"),
        san: "e5".parse().expect("san"),
        fen: "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2".into(),
        clock_ms: None,
        emt_ms: None,
        alternatives: Vec::new(),
    }
}

#[test]
fn a_game_survives_dropping_the_journal_without_shutdown() {
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let (mut j, resumed) = Journal::open(dir.path(), "b", Players::default()).expect("open");
        assert_eq!(resumed, Resumed::default());
        j.record(&at(0, new_game())).expect("new game");
        j.record(&at(10, e4())).expect("e4");
        j.record(&at(20, e5())).expect("e5");
        // Dropped here like a killed process: no shutdown, no final flush.
    }
    let (j, resumed) = Journal::open(dir.path(), "b", Players::default()).expect("reopen");
    assert_eq!(resumed.events, vec![new_game(), e4(), e5()]);
    assert!(resumed.corrupt.is_empty());
    assert_eq!(j.game().ply(), 2);
    assert_eq!(
        j.game().fen(),
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
}

#[test]
fn a_torn_or_corrupt_line_is_reported_and_skipped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = {
        let (mut j, _) = Journal::open(dir.path(), "b", Players::default()).expect("open");
        j.record(&at(0, new_game())).expect("new game");
        j.record(&at(10, e4())).expect("e4");
        j.path().to_path_buf()
    };
    let mut f = OpenOptions::new().append(true).open(&path).expect("append");
    f.write_all(b"{\"t_ms\":20.0,\"event\":\"mo")
        .expect("torn write");
    drop(f);
    {
        let (mut j, resumed) = Journal::open(dir.path(), "b", Players::default()).expect("reopen");
        assert_eq!(resumed.events, vec![new_game(), e4()]);
        assert_eq!(resumed.corrupt.len(), 1);
        assert_eq!(resumed.corrupt[0].line, 3);
        j.record(&at(30, e5())).expect("e5 after the torn line");
    }
    let (_, resumed) = Journal::open(dir.path(), "b", Players::default()).expect("again");
    assert_eq!(resumed.events, vec![new_game(), e4(), e5()]);
    assert_eq!(
        resumed.corrupt.len(),
        1,
        "the torn line stays alone on its line"
    );
}

#[test]
fn a_new_game_keeps_the_old_one_as_pgn_and_starts_a_fresh_journal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let players = Players {
        white: Some("Anna".into()),
        black: Some("Boris".into()),
    };
    let (mut j, _) = Journal::open(dir.path(), "b", players).expect("open");
    j.record(&at(0, new_game())).expect("new game");
    j.record(&at(10, e4())).expect("e4");
    j.record(&at(20, new_game())).expect("second game");
    let pgns: Vec<_> = fs::read_dir(dir.path().join("games"))
        .expect("games dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    assert_eq!(pgns.len(), 1, "{pgns:?}");
    let pgn = fs::read_to_string(&pgns[0]).expect("pgn");
    assert!(pgn.contains("[White \"Anna\"]"), "{pgn}");
    assert!(pgn.trim_end().ends_with("1. e4 *"), "{pgn}");
    let journal = fs::read_to_string(j.path()).expect("journal");
    assert_eq!(journal.lines().count(), 1, "{journal}");
    assert_eq!(j.game().ply(), 0);
}

#[test]
fn a_finished_game_is_kept_as_pgn_with_its_result() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut j, _) = Journal::open(dir.path(), "b", Players::default()).expect("open");
    j.record(&at(0, new_game())).expect("new game");
    j.record(&at(10, e4())).expect("e4");
    j.record(&at(
        20,
        GameEvent::Result {
            result: "1-0".parse().expect("result"),
            reason: "resignation".into(),
        },
    ))
    .expect("result");
    let pgn_path = fs::read_dir(dir.path().join("games"))
        .expect("games dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "pgn"))
        .expect("a pgn");
    let pgn = fs::read_to_string(pgn_path).expect("pgn");
    assert!(pgn.contains("[Result \"1-0\"]"), "{pgn}");
    assert!(pgn.trim_end().ends_with("1. e4 1-0"), "{pgn}");
}

#[test]
fn journal_lines_are_contract_lines_with_the_wall_clock() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut j, _) = Journal::open(dir.path(), "b", Players::default()).expect("open");
    j.record(&at(0, new_game())).expect("new game");
    j.record(&at(1500, e4())).expect("e4");
    let text = fs::read_to_string(j.path()).expect("journal");
    let line: serde_json::Value =
        serde_json::from_str(text.lines().nth(1).expect("line 2")).expect("json");
    assert_eq!(line["event"], "move");
    assert_eq!(line["t_ms"], 1500.0);
    assert_eq!(line["san"], "e4");
    assert!(line["unix_ms"].as_u64().is_some_and(|ms| ms > 0));
}

#[test]
fn civil_dates_are_right_across_leap_years() {
    assert_eq!(civil_date(0).0, "1970.01.01");
    // 2024-02-29 12:34:56 UTC.
    let (date, stamp) = civil_date(1_709_210_096_000);
    assert_eq!(date, "2024.02.29");
    assert_eq!(stamp, "20240229-123456");
}

#[test]
fn a_journal_the_disk_refuses_keeps_the_game_and_catches_up_when_it_takes_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut j, _) = Journal::open(dir.path(), "b", Players::default()).expect("open");
    j.record(&at(0, new_game())).expect("new game");
    // The disk is full: the append fails, the game goes on in memory.
    j.file = Some(
        OpenOptions::new()
            .append(true)
            .open("/dev/full")
            .expect("/dev/full"),
    );
    let e = j.record(&at(10, e4())).expect_err("no space");
    assert_eq!(e.source.raw_os_error(), Some(28), "{e}");
    assert!(j.behind());
    assert_eq!(j.game().ply(), 1);
    // Room again: the next event writes the whole game.
    j.record(&at(20, e5())).expect("caught up");
    assert!(!j.behind());
    j.record(&at(30, GameEvent::Takeback { ply: 1 }))
        .expect("appended");
    let (_, resumed) = Journal::open(dir.path(), "b", Players::default()).expect("reopen");
    assert_eq!(
        resumed.events,
        vec![new_game(), e4(), e5(), GameEvent::Takeback { ply: 1 }]
    );
    assert!(resumed.corrupt.is_empty());
}
