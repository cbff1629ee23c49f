use std::time::Duration;

use shakmaty::uci::UciMove;
use shakmaty::{Position, Square};

use super::*;
use crate::board::GameSetup;
use crate::event::GameEvent;
use crate::protocol::dgt::clock_queue::{ACK_TIMEOUT, ATTEMPTS};
use crate::protocol::dgt::driver::BOARD_CHECK as DGT_BOARD_CHECK;
use crate::protocol::dgt::{self, BoardMessage, ClockAck, ack};
use crate::protocol::driver::SILENCE_LIMIT;
use crate::protocol::millennium::{self, watch::QUIET_POLL};

fn settings() -> CoreSettings {
    CoreSettings {
        settle: Duration::from_millis(300),
        ..CoreSettings::default()
    }
}

/// Everything the core has to send, waiting out its pacing: while commands keep coming,
/// a timeout at each time the next one may go.
fn sent(core: &mut BoardCore) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = std::iter::from_fn(|| core.poll_transmit()).collect();
    while core.has_queued()
        && let Some(due) = core.pacing_due()
    {
        core.handle_timeout(due);
        out.extend(std::iter::from_fn(|| core.poll_transmit()));
    }
    out
}

fn dgt_message(m: &BoardMessage) -> Vec<u8> {
    m.to_bytes().expect("encodes")
}

fn version_ack(ack2: u8) -> Vec<u8> {
    dgt_message(&BoardMessage::ClockAck(ClockAck {
        bytes: [ack::OK, 0x09, ack2, 0],
    }))
}

const CLOCK_VERSION: [u8; 5] = [0x2b, 0x03, 0x03, 0x09, 0x00];

fn connected_dgt() -> BoardCore {
    let mut core = BoardCore::for_settings(Protocol::Dgt, &settings());
    core.handle_connected(Time::ZERO);
    core
}

#[test]
fn dgt_core_starts_with_a_reset_paced_and_keeps_the_link_alive() {
    let mut core = connected_dgt();
    // Nothing in the first 400 ms after the port opened, then one command every 100 ms:
    // the board's command buffer holds 10 bytes.
    assert_eq!(core.poll_transmit(), None, "nothing at once");
    let mut startup: Vec<(Time, Vec<u8>)> = Vec::new();
    while core.has_queued() {
        let due = core.poll_timeout().expect("a timer while commands wait");
        core.handle_timeout(due);
        while let Some(c) = core.poll_transmit() {
            startup.push((due, c));
        }
    }
    let times: Vec<u64> = startup.iter().map(|(t, _)| t.as_micros() / 1000).collect();
    assert_eq!(times.first(), Some(&400), "{times:?}");
    assert!(times.windows(2).all(|w| w[1] >= w[0] + 100), "{times:?}");
    let startup: Vec<Vec<u8>> = startup.into_iter().map(|(_, c)| c).collect();
    // Reset, update mode before the board is read (no change falls between them), then
    // who the board is.
    assert_eq!(
        startup[..5],
        [vec![0x40], vec![0x4b], vec![0x42], vec![0x45], vec![0x55]]
    );
    assert!(startup.contains(&CLOCK_VERSION.to_vec()), "asks the clock");
    assert_eq!(
        startup.iter().filter(|c| c[0] == 0x2b).count(),
        1,
        "one clock command at a time"
    );
    // The keep-alive: the serial number asked every second.
    let due = core.poll_timeout().expect("keep-alive timer");
    assert_eq!(due, Time::from_millis(2000));
    core.handle_timeout(due);
    assert_eq!(sent(&mut core).first(), Some(&vec![0x45]));
    assert!(core.poll_timeout() <= Some(Time::from_millis(3000)));
}

#[test]
fn the_serial_property_is_the_long_serial_number_or_else_the_short_one() {
    let mut core = connected_dgt();
    assert_eq!(core.serial(), None);
    core.handle_input(
        Time::from_millis(5),
        &dgt_message(&BoardMessage::SerialNr("10960".into())),
    );
    assert_eq!(core.serial().as_deref(), Some("10960"));
    core.handle_input(
        Time::from_millis(6),
        &dgt_message(&BoardMessage::LongSerialNr("3.10 10960".into())),
    );
    assert_eq!(core.serial().as_deref(), Some("3.10 10960"));

    let mut m = BoardCore::for_settings(Protocol::Millennium, &settings());
    m.handle_connected(Time::ZERO);
    let v = millennium::Reply::Version(millennium::Version { high: 1, low: 3 });
    let mut bytes = Vec::new();
    v.encode_into(&mut bytes);
    m.handle_input(Time::from_millis(5), &bytes);
    assert_eq!(m.serial().as_deref(), Some("0103"));
}

#[test]
fn clock_text_waits_for_the_clock_and_follows_its_kind() {
    let mut core = connected_dgt();
    sent(&mut core);
    core.handle_command(
        Time::from_millis(10),
        CoreCommand::ClockText("Hello".into()),
    )
    .expect("queued while the version is asked");
    assert_eq!(sent(&mut core), Vec::<Vec<u8>>::new(), "waits for the ack");
    core.handle_input(Time::from_millis(70), &version_ack(0x21));
    let text = sent(&mut core);
    assert_eq!(text.len(), 1);
    assert_eq!(&text[0][..4], &[0x2b, 0x0c, 0x03, 0x0c], "DGT3000 ASCII");
    assert_eq!(&text[0][4..12], b"Hello   ");
}

#[test]
fn an_unanswered_clock_command_is_resent_then_given_up_and_the_board_says_no_clock() {
    let mut core = connected_dgt();
    let mut versions = 0;
    let mut now = Time::ZERO;
    while now <= Time::ZERO + ACK_TIMEOUT * (ATTEMPTS + 1) {
        versions += sent(&mut core)
            .iter()
            .filter(|c| c[..] == CLOCK_VERSION)
            .count();
        now = core.poll_timeout().expect("timers");
        core.handle_timeout(now);
    }
    assert_eq!(versions, ATTEMPTS as usize);
    let refused = core.handle_command(now, CoreCommand::ClockText("hi".into()));
    assert!(
        matches!(refused, Err(CommandError::Unsupported(ref m)) if m.contains("no clock")),
        "{refused:?}"
    );
}

fn revelation_serial() -> Vec<u8> {
    dgt_message(&BoardMessage::LongSerialNr("3.250010001".into()))
}

/// Everything sent to a DGT board with a clock that answers `long_serial` while a whole
/// game is played on it, every move shown as a client shows it (ShowMove), SetLeds tried
/// now and then.
fn a_game_shown_on(long_serial: &str) -> Vec<Vec<u8>> {
    let mut core = connected_dgt();
    let mut out = sent(&mut core);
    let mut now = Time::from_millis(10);
    core.handle_input(
        now,
        &dgt_message(&BoardMessage::LongSerialNr(long_serial.into())),
    );
    core.handle_input(now, &version_ack(0x21));
    let text_ack = dgt_message(&BoardMessage::ClockAck(ClockAck {
        bytes: [ack::OK, 0x0c, 0, 0],
    }));
    let moves = [
        "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "f3g5", "d7d5", "e4d5", "c6a5", "c4b5",
        "c7c6", "d5c6", "b7c6", "b5e2", "h7h6", "g5f3", "e5e4", "f3e5", "f8d6",
    ];
    for (i, m) in moves.into_iter().enumerate() {
        now = now + Duration::from_millis(1500);
        core.handle_timeout(now);
        out.extend(sent(&mut core));
        let show = CoreCommand::ShowMove {
            uci: UciMove::from_ascii(m.as_bytes()).expect("uci"),
            san: String::new(),
        };
        core.handle_command(now, show).expect("shown");
        if i % 5 == 0 {
            let _ = core.handle_command(now, CoreCommand::SetLeds(vec![Square::E2, Square::E4]));
        }
        out.extend(sent(&mut core));
        // The clock acknowledges the text.
        core.handle_input(now + Duration::from_millis(300), &text_ack);
        out.extend(sent(&mut core));
    }
    while let Some(due) = core.poll_timeout().filter(|&t| t <= now + LED_GAP * 2) {
        core.handle_timeout(due);
        out.extend(sent(&mut core));
    }
    out
}

#[test]
fn a_plain_dgt_board_gets_no_led_command_in_a_whole_game_a_revelation_ii_does() {
    let out = a_game_shown_on("3.10 10960");
    assert!(
        out.iter().all(|b| b[0] != dgt::cmd::SET_LEDS),
        "an LED command to a plain board: {out:02x?}"
    );
    let texts = out
        .iter()
        .filter(|b| b.starts_with(&[0x2b, 0x0c, 0x03, 0x0c]));
    assert_eq!(texts.count(), 20, "every move on the clock instead");

    let mut plain = connected_dgt();
    plain.handle_input(
        Time::from_millis(10),
        &dgt_message(&BoardMessage::LongSerialNr("0000000001".into())),
    );
    let refused = plain.handle_command(
        Time::from_millis(20),
        CoreCommand::SetLeds(vec![Square::E2]),
    );
    assert!(
        matches!(refused, Err(CommandError::Unsupported(ref m)) if m.contains("no LEDs")),
        "{refused:?}"
    );

    let out = a_game_shown_on("3.250010001");
    let g1f3 = [0x60, 0x04, 0x01, 62, 45, 0x00];
    assert!(
        out.iter().any(|b| b[..] == g1f3),
        "a Revelation II shows the move on its LEDs: {out:02x?}"
    );
}

#[test]
fn a_shown_move_lights_its_squares_and_goes_on_the_clock() {
    let mut core = connected_dgt();
    sent(&mut core);
    core.handle_input(Time::from_millis(50), &revelation_serial());
    core.handle_input(Time::from_millis(70), &version_ack(0x21));
    // Told to leave the turning of its numbering to eboardd.
    assert_eq!(sent(&mut core), [auto_reverse_off()]);
    let show = CoreCommand::ShowMove {
        uci: UciMove::from_ascii(b"g1f3").expect("uci"),
        san: "Nf3".parse().expect("san"),
    };
    core.handle_command(Time::from_millis(100), show)
        .expect("shown");
    let out = sent(&mut core);
    assert_eq!(
        out[..2],
        [
            vec![0x60, 0x04, 0x00, 0x40, 0x40, 0x00],
            vec![0x60, 0x04, 0x01, 62, 45, 0x00]
        ]
    );
    assert_eq!(&out[2][..4], &[0x2b, 0x0c, 0x03, 0x0c]);
    assert_eq!(&out[2][4..12], b"Nf3     ");
}

#[test]
fn a_move_shown_before_the_board_says_it_is_a_revelation_ii_is_lit_when_it_does() {
    let leds = |out: Vec<Vec<u8>>| -> Vec<Vec<u8>> {
        out.into_iter()
            .filter(|b| b[0] == dgt::cmd::SET_LEDS && *b != auto_reverse_off())
            .collect()
    };
    let g1f3 = |uci: &[u8]| CoreCommand::ShowMove {
        uci: UciMove::from_ascii(uci).expect("uci"),
        san: String::new(),
    };
    let mut core = connected_dgt();
    sent(&mut core);
    core.handle_command(Time::from_millis(30), g1f3(b"g1f3"))
        .expect("shown");
    assert!(
        leds(sent(&mut core)).is_empty(),
        "not known to have LEDs yet"
    );
    core.handle_input(Time::from_millis(50), &revelation_serial());
    assert_eq!(
        leds(sent(&mut core)),
        [
            vec![0x60, 0x04, 0x00, 0x40, 0x40, 0x00],
            vec![0x60, 0x04, 0x01, 62, 45, 0x00]
        ],
        "lit once the board said it has LEDs"
    );

    // Put out before the board said so: nothing is lit when it does.
    let mut core = connected_dgt();
    sent(&mut core);
    core.handle_command(Time::from_millis(30), g1f3(b"g1f3"))
        .expect("shown");
    let _ = core.handle_command(Time::from_millis(40), CoreCommand::SetLeds(vec![]));
    core.handle_input(Time::from_millis(50), &revelation_serial());
    assert!(
        leds(sent(&mut core)).is_empty(),
        "the shown move was put out"
    );

    // A plain board never lights it.
    let mut core = connected_dgt();
    sent(&mut core);
    core.handle_command(Time::from_millis(30), g1f3(b"g1f3"))
        .expect("shown");
    core.handle_input(
        Time::from_millis(50),
        &dgt_message(&BoardMessage::LongSerialNr("3.10 10960".into())),
    );
    assert!(
        leds(sent(&mut core)).is_empty(),
        "a plain board has no LEDs"
    );
}

#[test]
fn leds_on_a_millennium_board_go_out_as_l_and_x_frames_and_it_has_no_clock() {
    let mut core = BoardCore::for_settings(Protocol::Millennium, &settings());
    core.handle_connected(Time::ZERO);
    sent(&mut core);
    core.handle_command(Time::ZERO, CoreCommand::SetLeds(vec![Square::E2]))
        .expect("lit");
    let l = sent(&mut core);
    assert_eq!(l.len(), 1);
    assert_eq!(l[0][0] & 0x7f, b'L');
    core.handle_command(Time::ZERO + LED_GAP, CoreCommand::SetLeds(vec![]))
        .expect("off");
    assert_eq!(sent(&mut core), [millennium::Command::LedsOff.encode()]);
    let text = core.handle_command(Time::ZERO, CoreCommand::ClockText("x".into()));
    assert!(matches!(text, Err(CommandError::Unsupported(_))));
}

#[test]
fn led_changes_asked_for_faster_than_the_gap_go_out_once_it_has_passed_only_the_latest() {
    let lit = |squares: Vec<Square>| {
        let mut fresh = BoardCore::for_settings(Protocol::Millennium, &settings());
        fresh
            .handle_command(Time::ZERO, CoreCommand::SetLeds(squares))
            .expect("lit");
        sent(&mut fresh)
    };
    let leds_frames = |out: Vec<Vec<u8>>| -> Vec<Vec<u8>> {
        out.into_iter().filter(|m| m[0] & 0x7f == b'L').collect()
    };
    let mut core = BoardCore::for_settings(Protocol::Millennium, &settings());
    core.handle_connected(Time::ZERO);
    sent(&mut core);
    let t0 = Time::from_millis(100);
    core.handle_command(t0, CoreCommand::SetLeds(vec![Square::E2]))
        .expect("lit");
    assert_eq!(
        sent(&mut core),
        lit(vec![Square::E2]),
        "the first change at once"
    );
    for (i, square) in [Square::E3, Square::E4, Square::E5].into_iter().enumerate() {
        let at = t0 + Duration::from_millis(10 * (i as u64 + 1));
        core.handle_command(at, CoreCommand::SetLeds(vec![square]))
            .expect("lit");
    }
    assert!(sent(&mut core).is_empty(), "nothing more within the gap");
    assert!(core.poll_timeout().is_some_and(|t| t <= t0 + LED_GAP));
    core.handle_timeout(t0 + LED_GAP);
    assert_eq!(
        leds_frames(sent(&mut core)),
        lit(vec![Square::E5]),
        "only the latest change, once the gap has passed"
    );
    core.handle_timeout(t0 + LED_GAP * 3);
    assert!(leds_frames(sent(&mut core)).is_empty(), "and only once");
}

/// The echoes a ChessLink sends to the start-up's register writes.
fn write_echoes() -> Vec<u8> {
    let mut echoes = Vec::new();
    for w in millennium::registers::startup_writes() {
        if let millennium::Command::Write { address, data } = w {
            millennium::Reply::Write { address, data }.encode_into(&mut echoes);
        }
    }
    echoes
}

#[test]
fn a_millennium_board_is_asked_for_its_status_after_garbage_and_when_quiet() {
    let mut core = BoardCore::for_settings(Protocol::Millennium, &settings());
    core.handle_connected(Time::ZERO);
    sent(&mut core);
    core.handle_input(Time::from_millis(10), &write_echoes());
    let status = millennium::Command::Status.encode();
    // A frame with a bad checksum is dropped: the whole board is asked for.
    core.handle_input(Time::from_millis(500), b"v0103zz");
    let due = core.poll_timeout().expect("timer");
    assert!(due <= Time::from_millis(500), "{due:?}");
    core.handle_timeout(due);
    assert_eq!(sent(&mut core), std::slice::from_ref(&status));
    // Nothing for three seconds: asked again.
    let due = core.poll_timeout().expect("timer");
    assert_eq!(due, Time::from_millis(500) + QUIET_POLL);
    core.handle_timeout(due);
    assert_eq!(sent(&mut core), [status]);
    // Still nothing: the link counts as lost once the limit is reached.
    while core.link_lost().is_none() {
        let due = core.poll_timeout().expect("timer");
        assert!(due <= Time::from_millis(500) + SILENCE_LIMIT);
        core.handle_timeout(due);
    }
}

#[test]
fn a_dgt_board_silent_despite_the_keep_alive_is_a_lost_link_and_one_that_answers_is_not() {
    let mut core = connected_dgt();
    sent(&mut core);
    let serial = dgt_message(&BoardMessage::SerialNr("10960".into()));
    // Answering every keep-alive: never lost.
    let mut now = Time::ZERO;
    while now < Time::from_millis(30_000) {
        now = core.poll_timeout().expect("timer");
        core.handle_timeout(now);
        if sent(&mut core).contains(&vec![0x45]) {
            core.handle_input(now, &serial);
        }
        assert_eq!(core.link_lost(), None, "at {now}");
    }
    // Then nothing more: lost once the limit is reached, not before.
    let last = now;
    while core.link_lost().is_none() {
        let due = core.poll_timeout().expect("timer");
        assert!(due <= last + SILENCE_LIMIT, "{due}");
        core.handle_timeout(due);
        sent(&mut core);
        now = due;
    }
    assert_eq!(now, last + SILENCE_LIMIT);
    // Opened again: a fresh start.
    core.handle_connected(now);
    assert_eq!(core.link_lost(), None);
}

#[test]
fn pipeline_core_announces_a_commanded_new_game() {
    let mut core = BoardCore::for_settings(Protocol::Millennium, &settings());
    core.handle_command(Time::ZERO, CoreCommand::NewGame(GameSetup::standard()))
        .expect("accepted");
    assert_eq!(
        core.poll_event().map(|e| e.event),
        Some(GameEvent::NewGame {
            fen: crate::board::START_FEN.into(),
            chess960: false
        })
    );
}

#[test]
fn a_millennium_register_write_that_is_not_echoed_is_written_again() {
    use crate::protocol::millennium::writes::ANSWER_LIMIT;
    let mut core = BoardCore::for_settings(Protocol::Millennium, &settings());
    core.handle_connected(Time::ZERO);
    let startup = sent(&mut core);
    let writes = millennium::registers::startup_writes();
    for w in &writes {
        assert!(startup.contains(&w.encode()), "{w:?} in the start-up");
    }
    // Every write is echoed but the first, lost on the line.
    let mut echoes = Vec::new();
    for w in &writes[1..] {
        let millennium::Command::Write { address, data } = *w else {
            panic!("{w:?} is no write");
        };
        millennium::Reply::Write { address, data }.encode_into(&mut echoes);
    }
    core.handle_input(Time::from_millis(20), &echoes);
    let due = core.poll_timeout().expect("a timer");
    assert!(due <= Time::ZERO + ANSWER_LIMIT, "{due:?}");
    core.handle_timeout(Time::ZERO + ANSWER_LIMIT);
    assert_eq!(
        sent(&mut core),
        [writes[0].encode()],
        "only the unanswered write"
    );
    // Its echo comes now: nothing more is written.
    let millennium::Command::Write { address, data } = writes[0] else {
        panic!("no write");
    };
    let mut echo = Vec::new();
    millennium::Reply::Write { address, data }.encode_into(&mut echo);
    core.handle_input(Time::ZERO + ANSWER_LIMIT + Duration::from_millis(20), &echo);
    core.handle_timeout(Time::ZERO + ANSWER_LIMIT * 3);
    assert!(
        !sent(&mut core).contains(&writes[0].encode()),
        "the echoed write is not written again"
    );
}

/// A DGT board dump of `placement` (a FEN's piece part).
fn dump_of(placement: &str) -> Vec<u8> {
    let board: shakmaty::Board = placement.parse().expect("placement");
    let mut fields = [0u8; 64];
    for (sq, piece) in board {
        fields[usize::from(dgt::square_field(sq))] = dgt::piece_code(piece);
    }
    dgt_message(&BoardMessage::BoardDump(Box::new(fields)))
}

fn field_update(square: Square, piece: Option<char>) -> Vec<u8> {
    let code = piece.map_or(0, |c| {
        dgt::piece_code(shakmaty::Piece::from_char(c).expect("piece"))
    });
    dgt_message(&BoardMessage::FieldUpdate {
        field: dgt::square_field(square),
        code,
    })
}

/// The moves the core decided, in UCI.
fn moves_of(core: &mut BoardCore) -> Vec<String> {
    std::iter::from_fn(|| core.poll_event())
        .filter_map(|e| match e.event {
            GameEvent::Move { uci, .. } => Some(uci.to_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_game_taken_over_on_an_open_port_finds_the_plies_played_meanwhile_and_the_one_under_way() {
    // The Opera game after 5...dxe5 comes with its board, which was away for 6. Bc4 Nf6 and
    // is read with White's queen in the hand for 7. Qb3; the queen is put down just after.
    let opera = [
        "e2e4", "e7e5", "g1f3", "d7d6", "d2d4", "c8g4", "d4e5", "g4f3", "d1f3", "d6e5",
    ];
    let mut events = vec![GameEvent::NewGame {
        fen: crate::board::START_FEN.into(),
        chess960: false,
    }];
    let mut pos = shakmaty::Chess::default();
    for (i, m) in opera.iter().enumerate() {
        let mv = UciMove::from_ascii(m.as_bytes())
            .expect("uci")
            .to_move(&pos)
            .expect("legal");
        let san = shakmaty::san::SanPlus::from_move(pos.clone(), mv);
        pos.play_unchecked(mv);
        events.push(GameEvent::Move {
            ply: i as u32 + 1,
            uci: m.parse().expect("uci"),
            san,
            fen: String::new(),
            clock_ms: None,
            emt_ms: None,
            alternatives: Vec::new(),
        });
    }
    let mut core = connected_dgt();
    let _ = sent(&mut core);
    core.handle_input(
        Time::from_millis(700),
        &dump_of("rn1qkb1r/ppp2ppp/5n2/4p3/2B1P3/8/PPP2PPP/RNB1K2R"),
    );
    // The port's own game was none: the board is only a board here, until it says who it
    // is and its game is handed over.
    core.handle_input(Time::from_millis(720), &field_update(Square::B3, Some('Q')));
    core.handle_command(Time::from_millis(800), CoreCommand::Resume(events))
        .expect("resumed");
    core.handle_timeout(Time::from_millis(5000));
    assert_eq!(moves_of(&mut core), ["f1c4", "g8f6", "f3b3"]);
}

/// Runs the core's timers until `until`, with what it sends meanwhile.
fn run_until(core: &mut BoardCore, until: Time) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = std::iter::from_fn(|| core.poll_transmit()).collect();
    while let Some(due) = core.poll_timeout().filter(|due| *due <= until) {
        core.handle_timeout(due);
        out.extend(std::iter::from_fn(|| core.poll_transmit()));
    }
    out
}

#[test]
fn a_dgt_board_whose_dump_shows_changes_it_never_reported_is_asked_for_update_mode_again() {
    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
    const E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR";
    let update_nice = dgt::Command::SendUpdateNice.to_bytes().expect("encodes");
    let send_board = dgt::Command::SendBoard.to_bytes().expect("encodes");
    let mut core = connected_dgt();
    let startup = run_until(&mut core, Time::from_millis(1500));
    assert_eq!(startup.iter().filter(|c| **c == update_nice).count(), 1);
    core.handle_input(Time::from_millis(1500), &dump_of(START));

    // The board is asked for the whole board now and then; one that reported every
    // change (here: none) is left as it is.
    let check = run_until(&mut core, Time::from_millis(1500) + DGT_BOARD_CHECK);
    assert!(check.contains(&send_board), "{check:02x?}");
    core.handle_input(Time::from_millis(5600), &dump_of(START));
    assert!(!run_until(&mut core, Time::from_millis(6000)).contains(&update_nice));

    // 1. e4 reported square by square, then the same in the dump: nothing to do.
    core.handle_input(Time::from_millis(7000), &field_update(Square::E2, None));
    core.handle_input(
        Time::from_millis(7100),
        &field_update(Square::E4, Some('P')),
    );
    let check = run_until(&mut core, Time::from_millis(11_000));
    assert!(check.contains(&send_board), "{check:02x?}");
    core.handle_input(Time::from_millis(10_600), &dump_of(E4));
    assert!(!run_until(&mut core, Time::from_millis(11_000)).contains(&update_nice));

    // 1...e5 shows only in the next dump: the board does not report its changes, so it is
    // asked for update mode again, and the move still reaches the game.
    let check = run_until(&mut core, Time::from_millis(16_000));
    assert!(check.contains(&send_board), "{check:02x?}");
    core.handle_input(
        Time::from_millis(15_600),
        &dump_of("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"),
    );
    let after = run_until(&mut core, Time::from_millis(17_000));
    assert_eq!(
        after.iter().filter(|c| **c == update_nice).count(),
        1,
        "{after:02x?}"
    );
    core.handle_timeout(Time::from_millis(20_000));
    assert_eq!(moves_of(&mut core), ["e2e4", "e7e5"]);
}

#[test]
fn a_revelation_ii_has_its_own_auto_reverse_switched_off_once_per_link_a_plain_board_not() {
    // LED pattern 2, start field 2, end field 0: auto-reverse off (firmware above 3.21).
    let off = auto_reverse_off();
    assert_eq!(off, [0x60, 0x04, 0x02, 0x02, 0x00, 0x00]);
    let mut core = connected_dgt();
    let _ = run_until(&mut core, Time::from_millis(1500));
    core.handle_input(Time::from_millis(1500), &revelation_serial());
    core.handle_input(Time::from_millis(2500), &revelation_serial());
    let out = run_until(&mut core, Time::from_millis(3000));
    assert_eq!(out.iter().filter(|c| **c == off).count(), 1, "{out:02x?}");
    // Plugged in again: the board is asked again who it is, and told again.
    core.handle_connected(Time::from_millis(4000));
    let _ = run_until(&mut core, Time::from_millis(5500));
    core.handle_input(Time::from_millis(5500), &revelation_serial());
    let out = run_until(&mut core, Time::from_millis(6000));
    assert!(out.contains(&off), "{out:02x?}");

    let mut plain = connected_dgt();
    let _ = run_until(&mut plain, Time::from_millis(1500));
    plain.handle_input(
        Time::from_millis(1500),
        &dgt_message(&BoardMessage::LongSerialNr("3.10 10960".into())),
    );
    let out = run_until(&mut plain, Time::from_millis(3000));
    assert!(out.iter().all(|c| c[0] != dgt::cmd::SET_LEDS), "{out:02x?}");
}

fn auto_reverse_off() -> Vec<u8> {
    dgt::Command::Leds(dgt::LedCommand::AutoReverse(false))
        .to_bytes()
        .expect("encodes")
}

#[test]
fn an_eone_has_its_settings_register_written_checked_and_retried_other_chesslinks_not() {
    use crate::protocol::millennium::registers::{EONE_SETTINGS, EONE_STARTUP_SETTINGS};
    let settings_write = millennium::Command::Write {
        address: EONE_SETTINGS,
        data: EONE_STARTUP_SETTINGS,
    }
    .encode();
    let version = |high: u8| {
        let mut bytes = Vec::new();
        millennium::Reply::Version(millennium::Version { high, low: 0x01 }).encode_into(&mut bytes);
        bytes
    };
    // An eONE (version 2.x): register 06 is written once it said its version, and written
    // again when its echo does not come.
    let mut core = BoardCore::for_settings(Protocol::Millennium, &settings());
    core.handle_connected(Time::ZERO);
    assert!(!sent(&mut core).contains(&settings_write));
    core.handle_input(Time::from_millis(10), &write_echoes());
    core.handle_input(Time::from_millis(20), &version(0x02));
    assert_eq!(sent(&mut core), std::slice::from_ref(&settings_write));
    let again = run_until(&mut core, Time::from_millis(700));
    assert!(again.contains(&settings_write), "{again:02x?}");
    // Echoed: not written again.
    let mut echo = Vec::new();
    millennium::Reply::Write {
        address: EONE_SETTINGS,
        data: EONE_STARTUP_SETTINGS,
    }
    .encode_into(&mut echo);
    core.handle_input(Time::from_millis(720), &echo);
    let later = run_until(&mut core, Time::from_millis(3000));
    assert!(!later.contains(&settings_write), "{later:02x?}");

    // A ChessLink of version 1.x has no such register.
    let mut other = BoardCore::for_settings(Protocol::Millennium, &settings());
    other.handle_connected(Time::ZERO);
    other.handle_input(Time::from_millis(10), &write_echoes());
    other.handle_input(Time::from_millis(20), &version(0x01));
    let out = run_until(&mut other, Time::from_millis(3000));
    assert!(!out.contains(&settings_write), "{out:02x?}");
}

#[test]
fn a_core_never_connected_queues_nothing_the_same_core_connected_sends() {
    // What a replay reads: a Revelation II saying who it is, then a dump showing a change
    // its field updates never reported. Connected, the core answers both (auto-reverse
    // off, update mode again); never connected, it keeps nothing to send.
    let said = [
        revelation_serial(),
        dump_of(shakmaty::Board::new().to_string().as_str()),
        dump_of("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"),
    ];
    let mut live = connected_dgt();
    sent(&mut live);
    let mut replay = BoardCore::for_settings(Protocol::Dgt, &settings());
    for (i, bytes) in said.iter().enumerate() {
        let t = Time::from_millis(1000 + 100 * i as u64);
        live.handle_input(t, bytes);
        replay.handle_input(t, bytes);
    }
    let answered = sent(&mut live);
    assert!(
        answered.contains(&vec![0x4b]),
        "update mode again: {answered:?}"
    );
    assert!(
        answered.iter().any(|c| c[0] == 0x60),
        "auto-reverse off: {answered:?}"
    );
    assert!(!replay.has_queued());
    assert_eq!(replay.poll_transmit(), None);
    let until = Time::from_millis(60_000);
    for _ in 0..1000 {
        let Some(due) = replay.poll_timeout().filter(|due| *due <= until) else {
            break;
        };
        replay.handle_timeout(due);
    }
    assert_eq!(replay.poll_transmit(), None, "nothing on its timers either");
}
