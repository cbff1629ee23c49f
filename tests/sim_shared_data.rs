//! Plays every game of a directory of PGN files through the hand and both board models.
//!
//! Ignored by default: run with `EBOARDD_PGN_DIR=/path/to/pgn cargo test --test
//! sim_shared_data -- --ignored --nocapture`.

use eboardd::protocol::Protocol;
use eboardd::sim::pgn::read_games;
use eboardd::sim::timeline::squares_of;
use eboardd::sim::{HandOptions, simulate};
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
                let sim = simulate(&game, protocol, i as u64 + 1, &HandOptions::torture())
                    .unwrap_or_else(|e| panic!("{} {}: {e}", path.display(), game.name()));
                // The host's view ends equal to the physical board.
                let mut view = squares_of(game.start.board());
                for s in &sim.sensed {
                    view[s.change.square as usize] = s.change.piece;
                }
                let tl = &sim.performance.timeline;
                assert_eq!(view, tl.state_at(tl.end()), "{}", game.name());
            }
            games += 1;
            plies += game.moves.len();
        }
    }
    println!("{games} games, {plies} plies, {bad} unreadable");
}
