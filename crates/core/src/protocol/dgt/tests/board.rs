//! Board→host: golden vectors and the decoder on damaged input.

use super::super::*;
use super::hex;

/// Everything a decoder makes of `bytes` pushed in one piece.
fn decode_all(bytes: &[u8]) -> Vec<Decoded> {
    let mut decoder = Decoder::new();
    decoder.push_bytes(bytes);
    std::iter::from_fn(|| decoder.poll()).collect()
}

fn message(bytes: &[u8]) -> BoardMessage {
    match decode_all(bytes).as_slice() {
        [Decoded::Message(m)] => m.clone(),
        other => panic!("expected one message, got {other:?}"),
    }
}

/// Checks a golden vector both ways: the bytes decode to the message and the message
/// encodes to the bytes.
fn golden(bytes: &str, expected: BoardMessage) {
    let bytes = hex(bytes);
    assert_eq!(message(&bytes), expected, "decoding {bytes:02x?}");
    assert_eq!(expected.to_bytes(), Ok(bytes), "encoding {expected:?}");
}

fn skipped(decoded: &Decoded) -> Option<usize> {
    match decoded {
        Decoded::Skipped { bytes, .. } => Some(*bytes),
        Decoded::Message(_) => None,
    }
}

const START_DUMP: &str = "86 00 43 08 09 0a 0c 0b 0a 09 08 07 07 07 07 07 07 07 07 \
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 \
    01 01 01 01 01 01 01 01 02 03 04 06 05 04 03 02";

#[test]
fn start_position_dump_reads_as_the_start_position() {
    let mut codes = [0u8; 64];
    codes[..8].copy_from_slice(&[8, 9, 10, 12, 11, 10, 9, 8]);
    codes[8..16].fill(7);
    codes[48..56].fill(1);
    codes[56..].copy_from_slice(&[2, 3, 4, 6, 5, 4, 3, 2]);
    golden(START_DUMP, BoardMessage::BoardDump(Box::new(codes)));

    let board: shakmaty::Board = (0..64u8)
        .filter_map(|f| piece_from_code(codes[usize::from(f)]).map(|p| (field_square(f), p)))
        .collect();
    assert_eq!(board, shakmaty::Board::default());
}

#[test]
fn field_updates_carry_field_and_masked_code() {
    golden(
        "8e 00 05 34 00",
        BoardMessage::FieldUpdate {
            field: 0x34,
            code: 0,
        },
    );
    golden(
        "8e 00 05 24 01",
        BoardMessage::FieldUpdate {
            field: 0x24,
            code: 1,
        },
    );
    // An undocumented high bit in the code is masked away.
    assert_eq!(
        message(&hex("8e 00 05 3f 1c")),
        BoardMessage::FieldUpdate {
            field: 63,
            code: 0x0c
        }
    );
}

#[test]
fn real_bwtime_reads_as_three_minutes_two_seconds_with_the_left_clock_running() {
    let face = ClockFace {
        hours: 0,
        minutes: 3,
        seconds: 2,
        time_per_move: true,
        ..ClockFace::default()
    };
    let times = ClockTimes {
        left: face,
        right: face,
        status: 0x09,
    };
    golden(
        "8d 00 0a 20 03 02 20 03 02 09",
        BoardMessage::ClockTimes(times),
    );
    assert!(times.running() && !times.lever_right_high() && !times.no_clock());
    assert_eq!(times.running_side(), Some(ClockSide::Left));
    assert_eq!(times.left.millis(), 182_000);
}

#[test]
fn bwtime_puts_the_right_clock_first_with_flags_and_bcd() {
    let times = ClockTimes {
        right: ClockFace {
            hours: 1,
            minutes: 59,
            seconds: 7,
            flag_fallen: true,
            ..ClockFace::default()
        },
        left: ClockFace {
            hours: 9,
            minutes: 0,
            seconds: 45,
            flag_shown: true,
            ..ClockFace::default()
        },
        status: 0x23,
    };
    golden(
        "8d 00 0a 11 59 07 49 00 45 23",
        BoardMessage::ClockTimes(times),
    );
    assert!(times.no_clock());
    assert_eq!(times.running_side(), Some(ClockSide::Right));
}

#[test]
fn all_zero_bwtime_is_decoded_and_marked_null() {
    match message(&hex("8d 00 0a 00 00 00 00 00 00 00")) {
        BoardMessage::ClockTimes(times) => assert!(times.is_null()),
        other => panic!("expected clock times, got {other:?}"),
    }
}

#[test]
fn clock_acks_are_rebuilt_with_their_spare_bits() {
    // The version ack logged from a DGT3000: (16, 9, 32, 0).
    golden(
        "8d 00 0a 0a 10 09 0a 20 00 00",
        BoardMessage::ClockAck(ClockAck {
            bytes: [0x10, 0x09, 0x20, 0x00],
        }),
    );
    // A button report: ack1 0x88 keeps its bit 7 in bit 5 of d3.
    golden(
        "8d 00 0a 0a 10 08 2a 45 35 00",
        BoardMessage::ClockAck(ClockAck {
            bytes: [0x10, 0x88, 0x45, 0x35],
        }),
    );
    // All four spare bits.
    golden(
        "8d 00 0a 3a 7f 7f 3a 7f 7f 00",
        BoardMessage::ClockAck(ClockAck { bytes: [0xff; 4] }),
    );
}

#[test]
fn a_bwtime_is_an_ack_when_either_hours_nibble_is_0x0a() {
    // Only d0 marks it; d0 bit 4 is ack2's bit 7.
    assert_eq!(
        message(&hex("8d 00 0a 1a 10 09 00 20 00 00")),
        BoardMessage::ClockAck(ClockAck {
            bytes: [0x10, 0x09, 0xa0, 0x00]
        })
    );
    // Only d3 marks it.
    assert_eq!(
        message(&hex("8d 00 0a 00 10 0c 0a 00 00 00")),
        BoardMessage::ClockAck(ClockAck {
            bytes: [0x10, 0x0c, 0x00, 0x00]
        })
    );
}

#[test]
fn identification_messages_have_golden_bytes() {
    golden(
        "93 00 05 03 0a",
        BoardMessage::Version(FirmwareVersion {
            major: 3,
            minor: 10,
        }),
    );
    golden(
        "91 00 08 31 32 33 34 35",
        BoardMessage::SerialNr("12345".into()),
    );
    golden(
        "91 00 0c 30 31 30 32 35 20 31 2e 30",
        BoardMessage::SerialNr("01025 1.0".into()),
    );
    golden(
        "a2 00 0d 33 2e 32 35 30 30 31 30 30 30",
        BoardMessage::LongSerialNr("3.25001000".into()),
    );
    golden(
        "92 00 0f 44 47 54 20 50 72 6f 6a 65 63 74 73",
        BoardMessage::Trademark("DGT Projects".into()),
    );
    golden(
        "90 00 05 08 01",
        BoardMessage::BusAddress(BusAddress::new(1025).expect("14 bits")),
    );
    golden("80 00 03", BoardMessage::DgtNone);
}

#[test]
fn battery_status_has_nine_data_bytes() {
    let battery = BatteryStatus {
        percent: 87,
        hours_left: 0x7f,
        minutes_left: 0x7f,
        on_hours: 2,
        on_minutes: 30,
        standby_days: 1,
        standby_hours: 4,
        standby_minutes: 5,
        flags: 0x02,
    };
    golden(
        "a0 00 0c 57 7f 7f 02 1e 01 04 05 02",
        BoardMessage::BatteryStatus(battery),
    );
    assert!(battery.discharging());
    assert_eq!(battery.time_left(), None);
}

#[test]
fn ee_moves_records_are_read_from_the_log() {
    golden(
        "8f 00 0b 6a 41 3c 71 02 30 7a 6b",
        BoardMessage::EeMoves(vec![
            EeRecord::Tag(EeTag::PowerUp),
            EeRecord::Field {
                field: 60,
                code: 1,
                quick: false,
            },
            EeRecord::Clock {
                side: ClockSide::Left,
                hours: 1,
                minutes: 2,
                seconds: 30,
            },
            EeRecord::Tag(EeTag::BeginPosRotated),
            EeRecord::Tag(EeTag::Eof),
        ]),
    );
}

#[test]
fn a_full_size_ee_dump_arriving_in_small_pieces_is_decoded() {
    let mut data = vec![0x7f; 0x1f00];
    data[0x1eff] = 0x6b;
    let mut bytes = vec![0x8f, 0x3e, 0x03];
    bytes.extend_from_slice(&data);
    assert_eq!(bytes.len(), MAX_MESSAGE_LEN);
    let mut decoder = Decoder::new();
    let mut out = Vec::new();
    for chunk in bytes.chunks(17) {
        decoder.push_bytes(chunk);
        out.extend(std::iter::from_fn(|| decoder.poll()));
    }
    match out.as_slice() {
        [Decoded::Message(BoardMessage::EeMoves(records))] => {
            assert_eq!(records.len(), 0x1f00);
            assert_eq!(records.last(), Some(&EeRecord::Tag(EeTag::Eof)));
        }
        other => panic!("expected one EE_MOVES, got {} items", other.len()),
    }
}

#[test]
fn a_length_beyond_the_largest_message_is_refused_at_once() {
    // EE_MOVES claiming 0x2003 bytes: refused from the header, without waiting.
    let out = decode_all(&hex("8f 40 03 7f 7f"));
    assert_eq!(out.len(), 1);
    assert_eq!(skipped(&out[0]), Some(5));
}

#[test]
fn bytes_before_a_message_start_are_skipped() {
    let mut bytes = hex("00 12 7f");
    bytes.extend(hex("8e 00 05 34 00"));
    let out = decode_all(&bytes);
    assert_eq!(skipped(&out[0]), Some(3));
    assert_eq!(
        out[1],
        Decoded::Message(BoardMessage::FieldUpdate {
            field: 0x34,
            code: 0
        })
    );
    assert_eq!(out.len(), 2);
}

#[test]
fn a_start_byte_inside_the_data_drops_the_partial_message() {
    // A BWTIME cut after four data bytes, then a whole FIELD_UPDATE.
    let out = decode_all(&hex("8d 00 0a 20 03 02 20 8e 00 05 34 00"));
    assert_eq!(skipped(&out[0]), Some(7));
    assert!(matches!(
        out[1],
        Decoded::Message(BoardMessage::FieldUpdate { field: 0x34, .. })
    ));
    assert_eq!(out.len(), 2);
}

#[test]
fn the_partial_message_is_dropped_as_soon_as_the_next_start_arrives() {
    let mut decoder = Decoder::new();
    decoder.push_bytes(&hex("86 00 43 08 09"));
    assert_eq!(decoder.poll(), None);
    decoder.push_bytes(&hex("8e"));
    assert_eq!(decoder.poll().as_ref().and_then(skipped), Some(5));
    assert_eq!(decoder.poll(), None);
    assert_eq!(decoder.buffered(), 1);
}

#[test]
fn a_start_byte_in_the_length_drops_only_what_came_before_it() {
    let out = decode_all(&hex("8e 8e 00 05 01 02"));
    assert_eq!(skipped(&out[0]), Some(1));
    assert!(matches!(out[1], Decoded::Message(_)));
    let out = decode_all(&hex("8e 00 8e 00 05 01 02"));
    assert_eq!(skipped(&out[0]), Some(2));
    assert!(matches!(out[1], Decoded::Message(_)));
}

#[test]
fn an_unknown_id_is_skipped_with_its_data() {
    let out = decode_all(&hex("94 00 06 01 02 03 8e 00 05 01 02"));
    assert_eq!(skipped(&out[0]), Some(6));
    match &out[0] {
        Decoded::Skipped { reason, .. } => assert!(reason.contains("0x94"), "{reason}"),
        Decoded::Message(_) => unreachable!(),
    }
    assert!(matches!(out[1], Decoded::Message(_)));
    assert_eq!(out.len(), 2);
}

#[test]
fn a_known_id_with_the_wrong_length_is_skipped() {
    let out = decode_all(&hex("8e 00 06 01 02 03 8d 00 0a 20 03 02 20 03 02 09"));
    assert_eq!(skipped(&out[0]), Some(6));
    match &out[0] {
        Decoded::Skipped { reason, .. } => assert!(reason.contains("FIELD_UPDATE"), "{reason}"),
        Decoded::Message(_) => unreachable!(),
    }
    assert!(matches!(
        out[1],
        Decoded::Message(BoardMessage::ClockTimes(_))
    ));
}

#[test]
fn a_field_update_for_a_field_beyond_63_is_skipped_whole() {
    let out = decode_all(&hex("8e 00 05 40 01 80 00 03"));
    assert_eq!(skipped(&out[0]), Some(5));
    assert_eq!(out[1], Decoded::Message(BoardMessage::DgtNone));
}

#[test]
fn a_bwtime_with_an_impossible_time_is_skipped_whole() {
    for bad in [
        "8d 00 0a 00 60 00 00 00 00 01",
        "8d 00 0a 00 00 0b 00 00 00 01",
        "8d 00 0a 0c 00 00 00 00 00 01",
    ] {
        let out = decode_all(&hex(bad));
        assert_eq!(out.len(), 1, "{bad}");
        assert_eq!(skipped(&out[0]), Some(10), "{bad}");
    }
}

#[test]
fn a_flood_of_dgt_none_is_decoded_message_by_message() {
    let bytes: Vec<u8> = hex("80 00 03").repeat(1000);
    let out = decode_all(&bytes);
    assert_eq!(out.len(), 1000);
    assert!(
        out.iter()
            .all(|d| *d == Decoded::Message(BoardMessage::DgtNone))
    );
}

#[test]
fn pushing_too_much_without_polling_drops_the_oldest_bytes_and_says_so() {
    let mut decoder = Decoder::new();
    let message = hex("8e 00 05 34 00");
    let copies = MAX_BUFFERED / message.len() + 2;
    for _ in 0..copies {
        decoder.push_bytes(&message);
    }
    assert!(decoder.buffered() <= MAX_BUFFERED);
    let first = decoder.poll();
    assert_eq!(
        first.as_ref().and_then(skipped),
        Some(copies * message.len() - MAX_BUFFERED)
    );
    let rest: Vec<Decoded> = std::iter::from_fn(|| decoder.poll()).collect();
    let messages = rest.iter().filter(|d| skipped(d).is_none()).count();
    assert!(messages >= copies - 3, "{messages} of {copies}");
}

#[test]
fn encoding_refuses_values_the_wire_cannot_carry_and_appends_nothing() {
    let mut out = vec![0xaa];
    let bad = [
        BoardMessage::FieldUpdate { field: 64, code: 0 },
        BoardMessage::FieldUpdate {
            field: 1,
            code: 0x10,
        },
        BoardMessage::BoardDump(Box::new([0x80; 64])),
        BoardMessage::SerialNr("123456".into()),
        BoardMessage::Trademark("é".into()),
        BoardMessage::ClockTimes(ClockTimes {
            left: ClockFace {
                hours: 10,
                ..ClockFace::default()
            },
            ..ClockTimes::default()
        }),
        BoardMessage::ClockTimes(ClockTimes {
            status: 0x80,
            ..ClockTimes::default()
        }),
        BoardMessage::EeMoves(vec![EeRecord::Tag(EeTag::Nop); 0x1f01]),
    ];
    for message in bad {
        assert!(message.encode(&mut out).is_err(), "{message:?}");
        assert_eq!(out, [0xaa]);
    }
}
