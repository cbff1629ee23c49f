//! The board models: what DGT and Millennium sensors report, and when.

use std::collections::HashMap;
use std::time::Duration;

use eboardd::protocol::Protocol;
use eboardd::protocol::millennium::CableSide;
use eboardd::sim::board::{
    BoardModel, DgtConfig, DgtMessage, DgtModel, MillenniumConfig, ModelMessage, SerialLine,
    last_reports,
};
use eboardd::sim::games::{drills, real_games};
use eboardd::sim::timeline::{Cursor, Part, PhysicalEvent, Squares, Timeline, squares_of};
use eboardd::sim::{Hand, HandOptions, SensedChange, simulate};
use eboardd::time::Time;
use shakmaty::{Board, Color, Piece, Role, Square};

const PAWN: Piece = Piece {
    color: Color::White,
    role: Role::Pawn,
};

fn start() -> Squares {
    squares_of(&Board::default())
}

fn event(ms: u64, square: Square, piece: Option<Piece>) -> PhysicalEvent {
    PhysicalEvent {
        t: Time::from_millis(ms),
        square,
        piece,
        ply: 1,
        part: Part::Move,
    }
}

/// The instants at which a DGT model with this seed samples each square, up to `end`.
fn dgt_schedule(seed: u64, end: Time) -> HashMap<Square, Vec<Time>> {
    let mut m = DgtModel::new(DgtConfig::default(), &start(), seed);
    let tl = Timeline {
        presses: Vec::new(),
        start: start(),
        events: Vec::new(),
    };
    let cursor = Cursor::new(&tl);
    let mut out: HashMap<Square, Vec<Time>> = HashMap::new();
    while m.poll_timeout() <= end {
        out.entry(m.next_square())
            .or_default()
            .push(m.poll_timeout());
        m.handle_timeout(&cursor);
    }
    out
}

fn apply(start: &Squares, sensed: &[SensedChange]) -> Squares {
    let mut view = *start;
    for s in sensed {
        view[s.change.square as usize] = s.change.piece;
    }
    view
}

#[test]
fn dgt_reports_each_change_at_the_next_scan_of_its_square() {
    let seed = 21;
    let tl = Timeline {
        presses: Vec::new(),
        start: start(),
        events: vec![
            event(1000, Square::E2, None),
            event(1300, Square::E4, Some(PAWN)),
        ],
    };
    let schedule = dgt_schedule(seed, Time::from_millis(3000));
    let mut model = BoardModel::dgt(DgtConfig::default(), &start(), seed);
    let sensed = model.run(&tl);
    assert_eq!(sensed.len(), 2);
    for s in &sensed {
        let changed = tl
            .events
            .iter()
            .find(|e| e.square == s.change.square)
            .map(|e| e.t)
            .expect("a physical change");
        let next_scan = schedule[&s.change.square]
            .iter()
            .copied()
            .find(|&t| t >= changed)
            .expect("scanned");
        assert_eq!(s.sampled, next_scan, "{}", s.change.square);
        assert!(s.sampled - changed <= Duration::from_millis(250));
        // Five bytes at 9600 baud.
        assert_eq!(s.t - s.sampled, Duration::from_micros(5208));
    }
}

#[test]
fn dgt_never_reports_a_state_shorter_than_the_gap_between_two_scans() {
    let seed = 4;
    let schedule = dgt_schedule(seed, Time::from_millis(3000));
    let scans = &schedule[&Square::D2];
    // Lifted just after one scan of d2, put back well before the next.
    let lift = scans[3] + Duration::from_millis(1);
    let back = lift + Duration::from_millis(120);
    assert!(back < scans[4]);
    let tl = Timeline {
        presses: Vec::new(),
        start: start(),
        events: vec![
            PhysicalEvent {
                t: lift,
                square: Square::D2,
                piece: None,
                ply: 1,
                part: Part::Adjust,
            },
            PhysicalEvent {
                t: back,
                square: Square::D2,
                piece: Some(PAWN),
                ply: 1,
                part: Part::Adjust,
            },
        ],
    };
    let sensed = BoardModel::dgt(DgtConfig::default(), &start(), seed).run(&tl);
    assert!(sensed.is_empty(), "{sensed:?}");
}

#[test]
fn dgt_can_report_the_new_square_before_the_old_one() {
    let game = &real_games()[0];
    let mut found = 0;
    for seed in 0..4 {
        let sim = simulate(game, Protocol::Dgt, seed, &HandOptions::plain()).expect("plays");
        for (i, m) in game.moves.iter().enumerate() {
            let ply = i as u32 + 1;
            let (Some(from), to) = (m.from(), m.to()) else {
                continue;
            };
            let at = |sq: Square| {
                sim.sensed
                    .iter()
                    .find(|s| s.ply == ply && s.part == Part::Move && s.change.square == sq)
                    .map(|s| s.t)
            };
            if let (Some(f), Some(t)) = (at(from), at(to))
                && t < f
            {
                found += 1;
            }
        }
    }
    assert!(found > 0, "never saw the new square first");
}

#[test]
fn dgt_board_dump_reports_what_the_board_last_saw() {
    let tl = Timeline {
        presses: Vec::new(),
        start: start(),
        events: vec![
            event(100, Square::E2, None),
            event(400, Square::E4, Some(PAWN)),
        ],
    };
    let mut m = DgtModel::new(DgtConfig::default(), &start(), 1);
    let mut cursor = Cursor::new(&tl);
    while m.poll_timeout() <= Time::from_millis(1000) {
        cursor.advance_to(m.poll_timeout());
        m.handle_timeout(&cursor);
    }
    m.request_dump(Time::from_millis(1000));
    let mut line = SerialLine::new(9600);
    let mut dump = None;
    while let Some(out) = m.poll_outgoing() {
        let len = out.message.wire_len();
        let (sent, _) = line.transmit(out, len);
        if let DgtMessage::BoardDump(squares) = sent.message {
            assert_eq!(
                sent.end - sent.start,
                Duration::from_micros(67 * 10 * 1_000_000 / 9600)
            );
            dump = Some(squares);
        }
    }
    let dump = dump.expect("a dump");
    assert_eq!(*dump, tl.state_at(Time::from_millis(1000)));
}

#[test]
fn a_turned_dgt_board_scans_from_h1() {
    let cfg = DgtConfig {
        rotated: true,
        ..DgtConfig::default()
    };
    let m = DgtModel::new(cfg, &start(), 0);
    assert_eq!(m.field_square(0), Square::H1);
}

#[test]
fn millennium_emits_one_frame_per_scan() {
    let tl = Timeline {
        presses: Vec::new(),
        start: start(),
        events: vec![
            event(500, Square::E2, None),
            event(800, Square::E4, Some(PAWN)),
        ],
    };
    let cfg = MillenniumConfig::default();
    let mut model = BoardModel::millennium(cfg, &start(), 3);
    let end = Time::from_millis(2000);
    model.run_until(&tl, end);
    let frames: Vec<_> = model
        .sent()
        .iter()
        .filter_map(|s| match &s.message {
            ModelMessage::Status(squares) => Some((s.start, s.end, squares.clone())),
            ModelMessage::Dgt(_) => None,
        })
        .collect();
    let period = cfg.scan_period();
    assert!(frames.len() as u128 >= 2_000_000 / period.as_micros() - 2);
    for w in frames.windows(2) {
        assert_eq!(w[1].0 - w[0].0, period);
        // 67 bytes at 38400 baud.
        assert_eq!(w[0].1 - w[0].0, Duration::from_micros(17_447));
    }
    assert_eq!(*frames[frames.len() - 1].2, tl.state_at(end));
}

#[test]
fn millennium_scan_time_follows_its_register() {
    let cfg = MillenniumConfig {
        scan_register: 48,
        ..MillenniumConfig::default()
    };
    assert_eq!(cfg.scan_period(), Duration::from_micros(48 * 2048));
    let tl = Timeline {
        presses: Vec::new(),
        start: start(),
        events: vec![],
    };
    let mut model = BoardModel::millennium(cfg, &start(), 2);
    model.run_until(&tl, Time::from_millis(983 * 3));
    let m = model.as_millennium().expect("a Millennium model");
    assert!((29..=30).contains(&m.frames_sent()), "{}", m.frames_sent());
}

#[test]
fn millennium_on_change_mode_sends_only_changed_scans() {
    let tl = Timeline {
        presses: Vec::new(),
        start: start(),
        events: vec![
            event(500, Square::E2, None),
            event(800, Square::E4, Some(PAWN)),
        ],
    };
    let cfg = MillenniumConfig {
        report_register: 3,
        cable: CableSide::Left,
        ..MillenniumConfig::default()
    };
    let mut model = BoardModel::millennium(cfg, &start(), 5);
    let sensed = model.run(&tl);
    let m = model.as_millennium().expect("a Millennium model");
    // A change can straddle a scan: at most two frames per physical change.
    assert!((2..=4).contains(&m.frames_sent()), "{}", m.frames_sent());
    assert_eq!(apply(&start(), &sensed), tl.state_at(tl.end()));
}

#[test]
fn millennium_debounce_mode_hides_short_states() {
    // A square empty for 60 ms: seen by a 41 ms scan, but not stable for 5 scans.
    let tl = Timeline {
        presses: Vec::new(),
        start: start(),
        events: vec![
            event(500, Square::E2, None),
            event(560, Square::E2, Some(PAWN)),
        ],
    };
    let cfg = MillenniumConfig {
        report_register: 7,
        ..MillenniumConfig::default()
    };
    let sensed = BoardModel::millennium(cfg, &start(), 5).run(&tl);
    assert!(sensed.is_empty(), "{sensed:?}");
    let every = BoardModel::millennium(MillenniumConfig::default(), &start(), 5).run(&tl);
    assert_eq!(every.len(), 2);
}

#[test]
fn the_host_view_ends_equal_to_the_physical_board_on_both_boards() {
    let mut games = real_games();
    games.extend(drills());
    for game in &games {
        for protocol in [Protocol::Dgt, Protocol::Millennium] {
            let sim = simulate(game, protocol, 17, &HandOptions::torture()).expect("plays");
            let tl = &sim.performance.timeline;
            assert_eq!(apply(&tl.start, &sim.sensed), tl.state_at(tl.end()));
            // Reports arrive in time order.
            assert!(sim.sensed.windows(2).all(|w| w[0].t <= w[1].t));
        }
    }
}

#[test]
fn every_move_is_reported_soon_after_its_end() {
    let game = &real_games()[2];
    let perf = Hand::new(8, HandOptions::default())
        .play(game)
        .expect("plays");
    // DGT: the next scan of the square (<= 250 ms) and five bytes. Millennium: the next
    // sample of the square (one scan), the end of that scan, and a 67-byte frame.
    for (protocol, bound) in [(Protocol::Dgt, 260), (Protocol::Millennium, 100)] {
        let mut model = BoardModel::new(protocol, &perf.timeline.start, 8);
        let sensed = model.run(&perf.timeline);
        let last = last_reports(&sensed, perf.truth.plies.len());
        for (ply, t) in perf.truth.plies.iter().zip(&last) {
            let t = t.expect("reported");
            assert!(
                t - ply.move_end <= Duration::from_millis(bound),
                "{protocol} ply {}: {:?}",
                ply.ply,
                t - ply.move_end
            );
        }
    }
}

#[test]
fn slides_show_their_transit_squares_to_a_millennium_board() {
    let opts = HandOptions {
        slide: 1.0,
        ..HandOptions::plain()
    };
    let game = &real_games()[0];
    let sim = simulate(game, Protocol::Millennium, 3, &opts).expect("plays");
    let mut transits = 0;
    for (i, m) in game.moves.iter().enumerate() {
        let ply = i as u32 + 1;
        let (Some(from), to) = (m.from(), m.to()) else {
            continue;
        };
        let between = shakmaty::attacks::between(from, to);
        if sim.truth().plies[i]
            .behaviours
            .contains(&eboardd::sim::Behaviour::Slide)
        {
            transits += sim
                .sensed
                .iter()
                .filter(|s| s.ply == ply && between.contains(s.change.square))
                .count();
        }
    }
    assert!(transits > 0);
}
