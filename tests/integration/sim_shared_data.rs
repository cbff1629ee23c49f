//! Plays every game of a directory of PGN files through the hand, both emulated boards and
//! the project's own trace reader and sensing layer.
//!
//! Ignored by default: run with `EBOARDD_PGN_DIR=/path/to/pgn cargo test --test
//! sim_shared_data -- --ignored --nocapture`.

use eboardd::protocol::Protocol;
use eboardd::sensing::{Sensing, SensingConfig};
use eboardd::sim::pgn::read_games;
use eboardd::sim::timeline::placement_of;
use eboardd::sim::{HandOptions, TraceOptions, generate_trace};
use eboardd::trace::parse_trace;
use shakmaty::Position;

#[test]
#[ignore = "needs EBOARDD_PGN_DIR"]
fn every_game_of_a_pgn_directory_plays_on_both_boards() {
    let Ok(dir) = std::env::var("EBOARDD_PGN_DIR") else {
        return;
    };
    let mut games = 0;
    let mut plies = 0;
    let mut bad = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir).expect("dir").flatten().collect();
    entries.sort_by_key(|e| e.path());
    let options = TraceOptions {
        hand: HandOptions::torture(),
        ..TraceOptions::default()
    };
    for entry in entries {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "pgn") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read");
        for (i, g) in read_games(&text).into_iter().enumerate() {
            let game = match g {
                Ok(g) => g,
                Err(e) => {
                    bad += 1;
                    println!("{}: {e}", path.display());
                    continue;
                }
            };
            for protocol in [Protocol::Dgt, Protocol::Millennium] {
                let out = generate_trace(&game, protocol, i as u64 + 1, &options)
                    .unwrap_or_else(|e| panic!("{} {}: {e}", path.display(), game.name()));
                let trace = parse_trace(&out.text).expect("reads back");
                let mut sensing = Sensing::new(protocol, SensingConfig::default());
                for chunk in trace.from_board() {
                    sensing.handle_input(chunk.t, &chunk.bytes);
                    while sensing.poll().is_some() {}
                }
                // The board as it physically ended (after any result gesture).
                let tl = &out.performance.timeline;
                let physical = placement_of(&tl.state_at(tl.end()));
                assert_eq!(
                    sensing.board().to_string(),
                    physical,
                    "{} {protocol}",
                    game.name()
                );
                if out.truth.result.is_none() {
                    let end = game.positions().last().expect("positions").board().clone();
                    assert_eq!(sensing.board(), end, "{} {protocol}", game.name());
                }
            }
            games += 1;
            plies += game.moves.len();
        }
    }
    println!("{games} games, {plies} plies, {bad} unreadable");
}
