//! Properties of the DGT codec (round trips, split reads, damaged streams) and a real
//! board's recording decoded end to end.

use eboardd::protocol::dgt::{
    BatteryStatus, BoardMessage, BusAddress, BusCommand, BusRequest, ClockAck, ClockCommand,
    ClockFace, ClockIcons, ClockSide, ClockTimes, Command, CommandDecoder, Decoded, DecodedCommand,
    Decoder, EeRecord, EeTag, FirmwareVersion, Hms, LedCommand, RunningSide, XlDisplay,
};
use proptest::prelude::*;

// ---- strategies ----

fn ascii(len: impl Into<prop::collection::SizeRange>) -> impl Strategy<Value = String> {
    prop::collection::vec(0u8..0x80, len)
        .prop_map(|bytes| bytes.into_iter().map(char::from).collect())
}

fn seven_bit_array<const N: usize>() -> impl Strategy<Value = [u8; N]> {
    prop::collection::vec(0u8..0x80, N).prop_map(|v| {
        let mut out = [0; N];
        out.copy_from_slice(&v);
        out
    })
}

fn clock_face() -> impl Strategy<Value = ClockFace> {
    (0u8..=9, 0u8..=59, 0u8..=59, any::<[bool; 3]>()).prop_map(
        |(hours, minutes, seconds, [flag_fallen, time_per_move, flag_shown])| ClockFace {
            hours,
            minutes,
            seconds,
            flag_fallen,
            time_per_move,
            flag_shown,
        },
    )
}

fn side() -> impl Strategy<Value = ClockSide> {
    prop_oneof![Just(ClockSide::Left), Just(ClockSide::Right)]
}

fn ee_record() -> impl Strategy<Value = EeRecord> {
    let every_tag: Vec<EeRecord> = (0u8..0x80)
        .filter_map(EeTag::from_byte)
        .map(EeRecord::Tag)
        .collect();
    let tags = prop::sample::select(every_tag);
    prop_oneof![
        (0u8..64, 0u8..16, any::<bool>()).prop_map(|(field, code, quick)| EeRecord::Field {
            field,
            code,
            quick
        }),
        (side(), 0u8..=9, 0u8..=59, 0u8..=59).prop_map(|(side, hours, minutes, seconds)| {
            EeRecord::Clock {
                side,
                hours,
                minutes,
                seconds,
            }
        }),
        tags,
        (0x01u8..0x40).prop_map(EeRecord::Unknown),
    ]
}

fn board_message() -> impl Strategy<Value = BoardMessage> {
    prop_oneof![
        seven_bit_array::<64>().prop_map(|codes| BoardMessage::BoardDump(Box::new(codes))),
        (0u8..64, 0u8..16).prop_map(|(field, code)| BoardMessage::FieldUpdate { field, code }),
        (clock_face(), clock_face(), 0u8..0x80).prop_map(|(left, right, status)| {
            BoardMessage::ClockTimes(ClockTimes {
                left,
                right,
                status,
            })
        }),
        any::<[u8; 4]>().prop_map(|bytes| BoardMessage::ClockAck(ClockAck { bytes })),
        (0u8..0x80, 0u8..0x80)
            .prop_map(|(major, minor)| BoardMessage::Version(FirmwareVersion { major, minor })),
        prop_oneof![ascii(5), ascii(9)].prop_map(BoardMessage::SerialNr),
        ascii(1..=32).prop_map(BoardMessage::LongSerialNr),
        ascii(0..=512).prop_map(BoardMessage::Trademark),
        seven_bit_array::<9>().prop_map(|b| {
            BoardMessage::BatteryStatus(BatteryStatus {
                percent: b[0],
                hours_left: b[1],
                minutes_left: b[2],
                on_hours: b[3],
                on_minutes: b[4],
                standby_days: b[5],
                standby_hours: b[6],
                standby_minutes: b[7],
                flags: b[8],
            })
        }),
        (0u16..=0x3fff).prop_filter_map("14 bits", |a| BusAddress::new(a)
            .map(BoardMessage::BusAddress)),
        prop::collection::vec(ee_record(), 0..200).prop_map(BoardMessage::EeMoves),
        Just(BoardMessage::DgtNone),
    ]
}

/// Messages as they really come: mostly field updates and clock times.
fn stream_message() -> impl Strategy<Value = BoardMessage> {
    prop_oneof![
        6 => (0u8..64, 0u8..16).prop_map(|(field, code)| BoardMessage::FieldUpdate { field, code }),
        6 => (clock_face(), clock_face(), 0u8..0x40).prop_map(|(left, right, status)| {
            BoardMessage::ClockTimes(ClockTimes { left, right, status })
        }),
        1 => board_message(),
    ]
}

fn hms() -> impl Strategy<Value = Hms> {
    (0u8..=9, 0u8..=59, 0u8..=59).prop_map(|(hours, minutes, seconds)| Hms {
        hours,
        minutes,
        seconds,
    })
}

fn ascii_array<const N: usize>() -> impl Strategy<Value = [u8; N]> {
    seven_bit_array::<N>()
}

fn clock_command() -> impl Strategy<Value = ClockCommand> {
    prop_oneof![
        (any::<[u8; 6]>(), any::<u8>(), any::<bool>()).prop_map(|(segments, icons, beep)| {
            ClockCommand::Display(XlDisplay {
                segments,
                icons,
                beep,
            })
        }),
        any::<[u8; 5]>().prop_map(|[left, right, left_period, right_period, special]| {
            ClockCommand::Icons(ClockIcons {
                left,
                right,
                left_period,
                right_period,
                special,
            })
        }),
        Just(ClockCommand::End),
        Just(ClockCommand::Button),
        Just(ClockCommand::Version),
        (
            hms(),
            hms(),
            prop_oneof![
                Just(RunningSide::Left),
                Just(RunningSide::Right),
                Just(RunningSide::Neither)
            ]
        )
            .prop_map(|(left, right, run)| ClockCommand::SetAndRun { left, right, run }),
        any::<u8>().prop_map(|units| ClockCommand::Beep { units }),
        (ascii_array::<8>(), 0u8..16).prop_map(|(text, beep)| ClockCommand::Ascii { text, beep }),
        (ascii_array::<11>(), 0u8..16)
            .prop_map(|(text, beep)| ClockCommand::RevelationAscii { text, beep }),
    ]
}

fn command() -> impl Strategy<Value = Command> {
    let every_single: Vec<Command> = (0u8..=0xff).filter_map(Command::from_single_byte).collect();
    let single = prop::sample::select(every_single);
    let leds = prop_oneof![
        (any::<bool>(), 0u8..64, 0u8..64).prop_map(|(on, start, end)| LedCommand::Fields {
            on,
            start,
            end
        }),
        Just(LedCommand::ClearAll),
        any::<bool>().prop_map(LedCommand::AutoDim),
        any::<bool>().prop_map(LedCommand::AutoReverse),
    ];
    let bus = (
        prop::sample::select(BusRequest::ALL.to_vec()),
        0u16..=0x3fff,
    )
        .prop_filter_map("14 bits", |(request, address)| {
            BusAddress::new(address).map(|address| Command::Bus(BusCommand { request, address }))
        });
    prop_oneof![
        single,
        clock_command().prop_map(Command::Clock),
        leds.prop_map(Command::Leds),
        bus,
    ]
}

/// Noise: random bytes, with bit-7 bytes and message fragments common enough to matter.
fn noise() -> impl Strategy<Value = Vec<u8>> {
    let fragment = (board_message(), any::<prop::sample::Index>()).prop_map(|(m, cut)| {
        let bytes = m.to_bytes().expect("valid messages encode");
        bytes[..cut.index(bytes.len())].to_vec()
    });
    prop::collection::vec(
        prop_oneof![
            3 => prop::collection::vec(any::<u8>(), 0..12),
            1 => fragment,
        ],
        1..4,
    )
    .prop_map(|parts| parts.concat())
}

// ---- helpers ----

/// Decodes `bytes` pushed in the pieces `cuts` marks, polling after every push.
fn decode_in_pieces(bytes: &[u8], cuts: &[prop::sample::Index]) -> (Vec<Decoded>, usize) {
    let mut points: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
    points.push(0);
    points.push(bytes.len());
    points.sort_unstable();
    let mut decoder = Decoder::new();
    let mut out = Vec::new();
    for pair in points.windows(2) {
        decoder.push_bytes(&bytes[pair[0]..pair[1]]);
        out.extend(std::iter::from_fn(|| decoder.poll()));
    }
    (out, decoder.buffered())
}

fn messages_of(decoded: &[Decoded]) -> Vec<BoardMessage> {
    decoded
        .iter()
        .filter_map(|d| match d {
            Decoded::Message(m) => Some(m.clone()),
            Decoded::Skipped { .. } => None,
        })
        .collect()
}

fn skipped_bytes(decoded: &[Decoded]) -> usize {
    decoded
        .iter()
        .map(|d| match d {
            Decoded::Skipped { bytes, .. } => *bytes,
            Decoded::Message(_) => 0,
        })
        .sum()
}

/// Whether `wanted` appears in `seen` in order (other items may come between).
fn in_order(wanted: &[BoardMessage], seen: &[BoardMessage]) -> bool {
    let mut seen = seen.iter();
    wanted.iter().all(|w| seen.any(|s| s == w))
}

// ---- properties ----

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn every_message_round_trips_through_encode_and_decode(message in board_message()) {
        let bytes = message.to_bytes().expect("valid messages encode");
        let (decoded, buffered) = decode_in_pieces(&bytes, &[]);
        prop_assert_eq!(decoded, vec![Decoded::Message(message)]);
        prop_assert_eq!(buffered, 0);
    }

    #[test]
    fn every_command_round_trips_through_encode_and_decode(command in command()) {
        let bytes = command.to_bytes().expect("valid commands encode");
        let mut decoder = CommandDecoder::new();
        decoder.push_bytes(&bytes);
        let decoded: Vec<_> = std::iter::from_fn(|| decoder.poll()).collect();
        prop_assert_eq!(decoded, vec![DecodedCommand::Command(command)]);
    }

    #[test]
    fn any_ee_log_bytes_re_encode_to_the_same_bytes(
        data in prop::collection::vec(0u8..0x80, 0..2000),
    ) {
        let total = data.len() + 3;
        let mut bytes = vec![0x8f, (total >> 7) as u8, (total & 0x7f) as u8];
        bytes.extend_from_slice(&data);
        let (decoded, _) = decode_in_pieces(&bytes, &[]);
        let messages = messages_of(&decoded);
        prop_assert_eq!(messages.len(), 1);
        prop_assert_eq!(messages[0].to_bytes().expect("decoded messages encode"), bytes);
    }

    #[test]
    fn a_stream_split_anywhere_decodes_as_in_one_piece(
        parts in prop::collection::vec((stream_message(), prop::option::weighted(0.2, noise())), 1..30),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..40),
    ) {
        let mut bytes = Vec::new();
        for (message, noise) in &parts {
            bytes.extend(noise.iter().flatten());
            message.encode(&mut bytes).expect("valid messages encode");
        }
        let (whole, whole_left) = decode_in_pieces(&bytes, &[]);
        let (split, split_left) = decode_in_pieces(&bytes, &cuts);
        prop_assert_eq!(messages_of(&whole), messages_of(&split));
        prop_assert_eq!(skipped_bytes(&whole), skipped_bytes(&split));
        prop_assert_eq!(whole_left, split_left);
    }

    #[test]
    fn noise_between_messages_never_costs_a_message(
        parts in prop::collection::vec((noise(), stream_message()), 1..20),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..20),
    ) {
        let mut bytes = Vec::new();
        for (noise, message) in &parts {
            bytes.extend_from_slice(noise);
            message.encode(&mut bytes).expect("valid messages encode");
        }
        let (decoded, _) = decode_in_pieces(&bytes, &cuts);
        let wanted: Vec<BoardMessage> = parts.into_iter().map(|(_, m)| m).collect();
        prop_assert!(in_order(&wanted, &messages_of(&decoded)));
    }

    #[test]
    fn noise_inside_a_message_costs_at_most_that_message(
        messages in prop::collection::vec(stream_message(), 2..20),
        victim in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        noise in noise(),
    ) {
        let victim = victim.index(messages.len());
        let mut bytes = Vec::new();
        for (i, message) in messages.iter().enumerate() {
            let encoded = message.to_bytes().expect("valid messages encode");
            if i == victim {
                let at = 1 + at.index(encoded.len() - 1);
                bytes.extend_from_slice(&encoded[..at]);
                bytes.extend_from_slice(&noise);
                bytes.extend_from_slice(&encoded[at..]);
            } else {
                bytes.extend_from_slice(&encoded);
            }
        }
        let (decoded, _) = decode_in_pieces(&bytes, &[]);
        let mut wanted = messages.clone();
        wanted.remove(victim);
        prop_assert!(in_order(&wanted, &messages_of(&decoded)));
    }

    #[test]
    fn random_bytes_are_all_accounted_for_and_never_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..600),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..10),
    ) {
        let (decoded, buffered) = decode_in_pieces(&bytes, &cuts);
        let message_bytes: usize = messages_of(&decoded)
            .iter()
            .map(|m| m.to_bytes().expect("decoded messages encode").len())
            .sum();
        prop_assert_eq!(skipped_bytes(&decoded) + message_bytes + buffered, bytes.len());
        prop_assert!(buffered < eboardd::protocol::dgt::MAX_MESSAGE_LEN);
    }

    #[test]
    fn random_host_bytes_are_all_accounted_for_and_never_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..300),
    ) {
        let mut decoder = CommandDecoder::new();
        decoder.push_bytes(&bytes);
        let mut used = 0;
        while let Some(decoded) = decoder.poll() {
            used += match decoded {
                DecodedCommand::Command(c) => c.to_bytes().expect("decoded commands encode").len(),
                DecodedCommand::Forbidden(_) => 1,
                DecodedCommand::Skipped { bytes, .. } => bytes,
            };
        }
        prop_assert_eq!(used + decoder.buffered(), bytes.len());
    }
}

proptest! {
    #[test]
    fn host_bytes_split_anywhere_decode_as_in_one_piece(
        parts in prop::collection::vec((command(), prop::collection::vec(any::<u8>(), 0..4)), 1..20),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..20),
    ) {
        let mut bytes = Vec::new();
        for (command, noise) in &parts {
            command.encode(&mut bytes).expect("valid commands encode");
            bytes.extend_from_slice(noise);
        }
        let run = |cuts: &[prop::sample::Index]| {
            let mut points: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
            points.extend([0, bytes.len()]);
            points.sort_unstable();
            let mut decoder = CommandDecoder::new();
            let mut out = Vec::new();
            for pair in points.windows(2) {
                decoder.push_bytes(&bytes[pair[0]..pair[1]]);
                out.extend(std::iter::from_fn(|| decoder.poll()).filter(|d| {
                    !matches!(d, DecodedCommand::Skipped { .. })
                }));
            }
            out
        };
        prop_assert_eq!(run(&[]), run(&cuts));
    }
}

// ---- a real board ----

/// A recording of a real DGT board (one message per line, hex). It lives outside the
/// repository; the test passes quietly where it is absent.
const REAL_RECORDING: &str = "/work/shared/data/real-dgt/1.inbytes.hex";

#[test]
fn a_real_board_recording_decodes_without_a_skipped_byte() {
    let Ok(text) = std::fs::read_to_string(REAL_RECORDING) else {
        return;
    };
    let mut decoder = Decoder::new();
    let (mut dumps, mut updates, mut times, mut acks, mut skipped, mut lines) = (0, 0, 0, 0, 0, 0);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        lines += 1;
        let bytes: Vec<u8> = line
            .split_whitespace()
            .map(|h| u8::from_str_radix(h, 16).expect("the recording is hex"))
            .collect();
        decoder.push_bytes(&bytes);
        let mut got = Vec::new();
        while let Some(decoded) = decoder.poll() {
            match &decoded {
                Decoded::Message(BoardMessage::BoardDump(_)) => dumps += 1,
                Decoded::Message(BoardMessage::FieldUpdate { .. }) => updates += 1,
                Decoded::Message(BoardMessage::ClockTimes(_)) => times += 1,
                Decoded::Message(BoardMessage::ClockAck(_)) => acks += 1,
                Decoded::Message(_) => {}
                Decoded::Skipped { .. } => skipped += 1,
            }
            got.push(decoded);
        }
        // One message per line, and it encodes back to exactly the recorded bytes.
        match got.as_slice() {
            [Decoded::Message(m)] => assert_eq!(m.to_bytes().as_deref(), Ok(&bytes[..]), "{line}"),
            other => panic!("line {line:?} gave {other:?}"),
        }
    }
    assert_eq!(lines, 455);
    assert_eq!((dumps, updates, times + acks, skipped), (1, 131, 323, 0));
    assert_eq!(decoder.buffered(), 0);
}

#[test]
fn real_clock_messages_show_the_left_clock_running_with_bit_3_set() {
    // From the recording: status 0x09 while the left time counts down (0:03:02 → 0:03:01).
    let mut decoder = Decoder::new();
    decoder.push_bytes(&[0x8d, 0x00, 0x0a, 0x20, 0x03, 0x02, 0x20, 0x03, 0x01, 0x09]);
    let Some(Decoded::Message(BoardMessage::ClockTimes(times))) = decoder.poll() else {
        panic!("expected clock times");
    };
    assert_eq!(times.left.seconds, 1);
    assert_eq!(times.right.seconds, 2);
    assert_eq!(times.status & 0x08, 0x08);
    assert_eq!(times.running_side(), Some(ClockSide::Left));
}
