//! The emulated boards answer every command the daemon sends, as the real boards do.

use std::time::Duration;

use eboardd::protocol::Protocol;
use eboardd::protocol::dgt::{self, BoardMessage, ClockCommand, Command, Decoded};
use eboardd::sensing::{Sensed, Sensing, SensingConfig};
use eboardd::sim::device::{
    BoardOptions, DgtDevice, DgtDeviceConfig, EmulatedBoard, daemon_startup, run_session,
};
use eboardd::sim::games::real_games;
use eboardd::sim::timeline::{Cursor, Timeline, squares_of};
use eboardd::sim::trace::{TraceOptions, generate_trace};
use eboardd::sim::{Hand, HandOptions};
use eboardd::time::Time;
use eboardd::trace::parse_trace;
use shakmaty::{Board, Position};

fn dgt_replies(dev: &mut DgtDevice) -> Vec<BoardMessage> {
    let mut decoder = dgt::Decoder::new();
    while let Some(t) = dev.poll_transmit() {
        decoder.push_bytes(&t.bytes);
    }
    let mut out = Vec::new();
    while let Some(d) = decoder.poll() {
        match d {
            Decoded::Message(m) => out.push(m),
            Decoded::Skipped { bytes, reason } => panic!("skipped {bytes}: {reason}"),
        }
    }
    out
}

fn encode(commands: &[Command]) -> Vec<u8> {
    let mut out = Vec::new();
    for c in commands {
        c.encode(&mut out).expect("encodes");
    }
    out
}

#[test]
fn a_dgt_board_answers_every_query() {
    let start = squares_of(&Board::default());
    let mut dev = DgtDevice::new(DgtDeviceConfig::default(), &start, 1);
    let host = encode(&[
        Command::Reset,
        Command::SendBoard,
        Command::SendVersion,
        Command::ReturnSerialNr,
        Command::ReturnLongSerialNr,
        Command::SendTrademark,
        Command::ReturnBusAddress,
        Command::SendBatteryStatus,
        Command::SendEeMoves,
        Command::SendClock,
    ]);
    dev.handle_host_bytes(Time::ZERO, &host);
    let r = dgt_replies(&mut dev);
    assert_eq!(r.len(), 9, "{r:?}");
    let BoardMessage::BoardDump(codes) = &r[0] else {
        panic!("a dump first: {r:?}");
    };
    let pieces = codes.map(dgt::piece_from_code);
    for (field, p) in pieces.iter().enumerate() {
        let sq = dgt::field_square(field as u8);
        assert_eq!(*p, Board::default().piece_at(sq), "{sq}");
    }
    assert!(matches!(r[1], BoardMessage::Version(_)));
    assert!(matches!(&r[2], BoardMessage::SerialNr(s) if s.len() == 5));
    assert!(matches!(r[3], BoardMessage::LongSerialNr(_)));
    assert!(matches!(r[4], BoardMessage::Trademark(_)));
    assert!(matches!(r[5], BoardMessage::BusAddress(_)));
    assert!(matches!(r[6], BoardMessage::BatteryStatus(_)));
    assert!(matches!(r[7], BoardMessage::EeMoves(_)));
    let BoardMessage::ClockTimes(times) = &r[8] else {
        panic!("clock times last: {r:?}");
    };
    assert!(times.no_clock());
}

#[test]
fn a_dgt_board_sends_field_updates_only_in_an_update_mode() {
    let game = &real_games()[0];
    let perf = Hand::new(2, HandOptions::plain())
        .play(game)
        .expect("plays");
    let end = perf.truth.plies[3].move_end + Duration::from_millis(500);
    // Idle: only the dump.
    let mut idle = EmulatedBoard::new(Protocol::Dgt, &perf.timeline.start, 2);
    let s = run_session(
        &mut idle,
        &perf.timeline,
        &[(Time::ZERO, encode(&[Command::SendBoard]))],
        end,
    );
    assert_eq!(s.board.len(), 1);
    assert!(s.sensed.is_empty());
    // Update mode: the changes too.
    let mut live = EmulatedBoard::new(Protocol::Dgt, &perf.timeline.start, 2);
    let s = run_session(
        &mut live,
        &perf.timeline,
        &daemon_startup(Protocol::Dgt),
        end,
    );
    assert!(s.sensed.len() >= 8, "{}", s.sensed.len());
}

#[test]
fn a_dgt_clock_acknowledges_commands_only_when_attached() {
    let start = squares_of(&Board::default());
    let commands = encode(&[
        Command::SendUpdateNice,
        Command::Clock(ClockCommand::Version),
        Command::Clock(ClockCommand::Beep { units: 2 }),
    ]);
    let with = DgtDeviceConfig {
        clock: true,
        ..DgtDeviceConfig::default()
    };
    let mut dev = DgtDevice::new(with, &start, 1);
    dev.handle_host_bytes(Time::ZERO, &commands);
    let acks: Vec<_> = dgt_replies(&mut dev)
        .into_iter()
        .filter_map(|m| match m {
            BoardMessage::ClockAck(a) => Some(a),
            _ => None,
        })
        .collect();
    assert_eq!(acks.len(), 2);
    assert_eq!(acks[0].clock_version(), Some((2, 1)));
    assert!(acks.iter().all(|a| a.is_ok()));
    let mut without = DgtDevice::new(DgtDeviceConfig::default(), &start, 1);
    without.handle_host_bytes(Time::ZERO, &commands);
    assert!(dgt_replies(&mut without).is_empty());
}

#[test]
fn clock_presses_reach_the_host_as_lever_changes() {
    let game = &real_games()[0];
    let opts = TraceOptions {
        hand: HandOptions {
            clock_press: 1.0,
            ..HandOptions::default()
        },
        board: BoardOptions {
            clock: true,
            ..BoardOptions::default()
        },
        ..TraceOptions::default()
    };
    let out = generate_trace(game, Protocol::Dgt, 4, &opts).expect("a trace");
    let trace = parse_trace(&out.text).expect("reads back");
    let mut sensing = Sensing::new(Protocol::Dgt, SensingConfig::default());
    let mut presses = Vec::new();
    for chunk in trace.from_board() {
        sensing.handle_input(chunk.t, &chunk.bytes);
        while let Some(s) = sensing.poll() {
            if let Sensed::ClockPress { t } = s {
                presses.push(t);
            }
        }
    }
    let truth: Vec<Time> = out
        .truth
        .plies
        .iter()
        .filter_map(|p| p.clock_press)
        .collect();
    assert_eq!(presses.len(), truth.len());
    for (seen, pressed) in presses.iter().zip(&truth) {
        assert!(*seen >= *pressed && *seen - *pressed < Duration::from_millis(30));
    }
}

#[test]
fn a_turned_dgt_board_reads_back_the_right_way_round() {
    let game = &real_games()[1];
    let opts = TraceOptions {
        board: BoardOptions {
            turned: true,
            ..BoardOptions::default()
        },
        ..TraceOptions::default()
    };
    let out = generate_trace(game, Protocol::Dgt, 6, &opts).expect("a trace");
    let trace = parse_trace(&out.text).expect("reads back");
    let mut sensing = Sensing::new(Protocol::Dgt, SensingConfig::default());
    for chunk in trace.from_board() {
        sensing.handle_input(chunk.t, &chunk.bytes);
        while sensing.poll().is_some() {}
    }
    let end = game.positions().last().expect("positions").board().clone();
    assert_eq!(sensing.board(), end);
}

#[test]
fn a_timeline_without_events_keeps_the_dgt_board_quiet() {
    let start = squares_of(&Board::default());
    let tl = Timeline::new(start, Vec::new());
    let mut dev = DgtDevice::new(DgtDeviceConfig::default(), &start, 1);
    dev.handle_host_bytes(Time::ZERO, &encode(&[Command::SendUpdateBoard]));
    let mut cursor = Cursor::new(&tl);
    while dev.poll_timeout() < Time::from_millis(2000) {
        cursor.advance_to(dev.poll_timeout());
        dev.handle_timeout(&cursor);
    }
    assert!(dgt_replies(&mut dev).is_empty());
}
