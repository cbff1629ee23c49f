//! Simulated traces: written in the trace format, read back by the project's own reader and
//! sensing layer, they say what the board model said.

use std::time::Duration;

use eboardd::protocol::Protocol;
use eboardd::sensing::{Sensed, Sensing, SensingConfig};
use eboardd::sim::HandOptions;
use eboardd::sim::games::{drills, real_games};
use eboardd::sim::trace::{TraceOptions, generate_trace};
use eboardd::trace::{Direction, parse_trace};
use shakmaty::Position;

fn options() -> TraceOptions {
    TraceOptions {
        hand: HandOptions::torture(),
        split_reads: 0.2,
        ..TraceOptions::default()
    }
}

#[test]
fn a_millennium_trace_reads_back_as_the_changes_the_board_model_sent() {
    reads_back_as_the_changes_the_board_model_sent(Protocol::Millennium);
}

#[test]
fn a_dgt_trace_reads_back_as_the_changes_the_board_model_sent() {
    reads_back_as_the_changes_the_board_model_sent(Protocol::Dgt);
}

fn reads_back_as_the_changes_the_board_model_sent(protocol: Protocol) {
    let mut games = real_games();
    games.extend(drills());
    for (i, game) in games.iter().enumerate() {
        let out = generate_trace(game, protocol, i as u64, &options())
            .unwrap_or_else(|e| panic!("{}: {e}", game.name()));
        let trace = parse_trace(&out.text).expect("the trace reads back");
        assert_eq!(trace.header.protocol, protocol);
        let mut sensing = Sensing::new(protocol, SensingConfig::default());
        let mut changes = Vec::new();
        let mut skipped = 0;
        let mut first_board = None;
        for chunk in trace
            .chunks
            .iter()
            .filter(|c| c.dir == Direction::FromBoard)
        {
            sensing.handle_input(chunk.t, &chunk.bytes);
            while let Some(s) = sensing.poll() {
                match s {
                    Sensed::Change { t, change } => changes.push((t, change)),
                    Sensed::Skipped { .. } => skipped += 1,
                    Sensed::Board {
                        board, first: true, ..
                    } => first_board = Some(board),
                    _ => {}
                }
            }
        }
        assert_eq!(skipped, 0, "{}", game.name());
        assert_eq!(
            first_board.map(|b| b.to_string()),
            Some(game.start.board().to_string())
        );
        let expected = &out.session.sensed;
        assert_eq!(changes.len(), expected.len(), "{}", game.name());
        for ((t, change), want) in changes.iter().zip(expected) {
            assert_eq!(*change, want.change, "{}", game.name());
            // The host has the change when the read that completes the frame arrives.
            assert!(*t >= want.t && *t - want.t < Duration::from_millis(20));
        }
    }
}

#[test]
fn a_trace_starts_as_the_daemon_opens_a_board() {
    let game = &real_games()[0];
    let out =
        generate_trace(game, Protocol::Millennium, 1, &TraceOptions::default()).expect("a trace");
    let mut lines = out.text.lines();
    assert_eq!(lines.next(), Some("# eboard-trace 1"));
    assert_eq!(lines.next(), Some("# protocol: millennium"));
    assert_eq!(lines.next(), Some("# serial: 38400 7O1"));
    // V first, with parity.
    assert!(
        out.text.contains("\n0.0 > d6 b5 b6\n"),
        "{}",
        &out.text[..400]
    );
    assert!(!out.text.contains("# start-fen"));
}

#[test]
fn a_set_up_position_is_named_in_the_header() {
    let game = &drills()[1];
    let out =
        generate_trace(game, Protocol::Millennium, 1, &TraceOptions::default()).expect("a trace");
    let trace = parse_trace(&out.text).expect("reads back");
    assert_eq!(
        trace.header.start_fen.as_deref(),
        Some(out.truth.start_fen.as_str())
    );
}

#[test]
fn a_generated_trace_is_reproducible_from_its_seed() {
    let game = &real_games()[1];
    let a = generate_trace(game, Protocol::Millennium, 5, &options()).expect("a");
    let b = generate_trace(game, Protocol::Millennium, 5, &options()).expect("b");
    assert_eq!(a.text, b.text);
    assert_eq!(a.truth.to_json(), b.truth.to_json());
}

#[test]
fn the_truth_json_matches_the_shared_format() {
    let game = &real_games()[0];
    let out =
        generate_trace(game, Protocol::Millennium, 2, &TraceOptions::default()).expect("a trace");
    let v: serde_json::Value = serde_json::from_str(&out.truth.to_json()).expect("json");
    assert_eq!(v["san"].as_array().map(Vec::len), Some(game.moves.len()));
    assert_eq!(
        v["move_end_ms"].as_array().map(Vec::len),
        Some(game.moves.len())
    );
    assert_eq!(v["chess960"], serde_json::Value::Bool(false));
    assert!(v["start_fen"].is_string());
}

#[test]
fn a_turned_millennium_board_without_parity_reads_back_the_right_way_round() {
    use eboardd::sim::device::BoardOptions;
    let game = &real_games()[2];
    let opts = TraceOptions {
        board: BoardOptions {
            turned: true,
            parity: false,
            ..BoardOptions::default()
        },
        ..options()
    };
    let out = generate_trace(game, Protocol::Millennium, 9, &opts).expect("a trace");
    let trace = parse_trace(&out.text).expect("reads back");
    // Without parity every byte is 7-bit.
    assert!(
        trace
            .from_board()
            .all(|c| c.bytes.iter().all(|b| b & 0x80 == 0))
    );
    let mut sensing = Sensing::new(Protocol::Millennium, SensingConfig::default());
    for chunk in trace.from_board() {
        sensing.handle_input(chunk.t, &chunk.bytes);
        while sensing.poll().is_some() {}
    }
    let end = game.positions().last().expect("positions").board().clone();
    assert_eq!(sensing.board(), end);
}

#[test]
fn after_an_outage_the_host_reopens_the_board_and_finds_it_moved_on() {
    use eboardd::sim::trace::Outage;
    let game = &real_games()[0];
    for protocol in [Protocol::Dgt, Protocol::Millennium] {
        let opts = TraceOptions {
            outage: Some(Outage {
                after_ply: 6,
                plies: 3,
            }),
            ..TraceOptions::default()
        };
        let out = generate_trace(game, protocol, 2, &opts).expect("a trace");
        let (down, back) = out.outage.expect("an outage");
        assert!(down > out.truth.plies[5].move_end && back > out.truth.plies[8].move_end);
        let trace = parse_trace(&out.text).expect("reads back");
        assert!(trace.from_board().all(|c| c.t < down || c.t >= back));
        let reopened = trace
            .chunks
            .iter()
            .filter(|c| c.dir == Direction::ToBoard && c.t == back)
            .count();
        assert!(reopened >= 3, "{protocol}: {reopened}");
        // Just before the link comes back the host still sees the board of ply 6.
        let mut sensing = Sensing::new(protocol, SensingConfig::default());
        let positions = game.positions();
        let mut checked = false;
        for chunk in trace.from_board() {
            if chunk.t >= back && !checked {
                assert_eq!(sensing.board(), positions[6].board().clone(), "{protocol}");
                checked = true;
            }
            sensing.handle_input(chunk.t, &chunk.bytes);
            while sensing.poll().is_some() {}
        }
        assert_eq!(sensing.board(), positions[game.moves.len()].board().clone());
    }
}
