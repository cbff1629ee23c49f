use eboardd::protocol::Protocol;
use eboardd::sim::{HandOptions, games, pgn, simulate};
use eboardd::time::Time;
use eboardd::tracker::{Tracker, TrackerConfig};
use shakmaty::Position;

fn main() {
    let reps: usize = std::env::var("REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let text = std::fs::read_to_string("/work/shared/data/pgn/pgnparser__twic-01-232games.pgn")
        .unwrap_or_default();
    let mut gs: Vec<_> = pgn::read_games(&text)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|g| !g.moves.is_empty())
        .take(100)
        .collect();
    if gs.is_empty() {
        gs = games::real_games();
    }
    let hand = HandOptions::default();
    let config = TrackerConfig {
        sensor_lag: Some(Protocol::Dgt.sensor_lag()),
        ..TrackerConfig::default()
    };
    let mut runs = Vec::new();
    for (gi, g) in gs.iter().enumerate() {
        if let Ok(sim) = simulate(g, Protocol::Dgt, gi as u64, &hand) {
            let changes: Vec<_> = sim.sensed.iter().map(|s| (s.t, s.change)).collect();
            runs.push((g.start.board().clone(), changes));
        }
    }
    let total: usize = runs.iter().map(|r| r.1.len()).sum();
    let mut n = 0;
    for _ in 0..reps {
        for (board, changes) in &runs {
            let mut tracker = Tracker::new(config.clone());
            tracker.handle_board(Time::ZERO, board);
            for &(t, change) in changes {
                while let Some(due) = tracker.poll_timeout().filter(|&d| d <= t) {
                    tracker.handle_timeout(due);
                }
                tracker.handle_change(t, change);
                while tracker.poll_event().is_some() {
                    n += 1;
                }
            }
        }
    }
    eprintln!("changes {} per rep, events {}", total, n);
}
