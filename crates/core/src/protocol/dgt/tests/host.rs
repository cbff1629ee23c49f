//! Host→board: golden vectors of every command and the command decoder on bad input.

use super::super::*;
use super::hex;

fn command(bytes: &[u8]) -> Vec<DecodedCommand> {
    let mut decoder = CommandDecoder::new();
    decoder.push_bytes(bytes);
    std::iter::from_fn(|| decoder.poll()).collect()
}

/// Checks a command both ways.
fn golden_command(bytes: &str, expected: Command) {
    let bytes = hex(bytes);
    assert_eq!(
        expected.to_bytes(),
        Ok(bytes.clone()),
        "encoding {expected:?}"
    );
    assert_eq!(
        command(&bytes),
        [DecodedCommand::Command(expected)],
        "decoding {bytes:02x?}"
    );
}

#[test]
fn single_byte_commands_have_their_documented_bytes() {
    let table = [
        (Command::Reset, 0x40),
        (Command::SendClock, 0x41),
        (Command::SendBoard, 0x42),
        (Command::SendUpdate, 0x43),
        (Command::SendUpdateBoard, 0x44),
        (Command::ReturnSerialNr, 0x45),
        (Command::ReturnBusAddress, 0x46),
        (Command::SendTrademark, 0x47),
        (Command::SendEeMoves, 0x49),
        (Command::ToBusMode, 0x4a),
        (Command::SendUpdateNice, 0x4b),
        (Command::SendBatteryStatus, 0x4c),
        (Command::SendVersion, 0x4d),
        (Command::SendBoard50B, 0x50),
        (Command::SendBoard50W, 0x52),
        (Command::ReturnLongSerialNr, 0x55),
    ];
    for (cmd, byte) in table {
        golden_command(&format!("{byte:02x}"), cmd);
    }
}

#[test]
fn bus_commands_carry_the_documented_checksum() {
    let address = BusAddress::new(0x806).expect("14 bits");
    golden_command(
        "81 10 06 17",
        Command::Bus(BusCommand {
            request: BusRequest::SendClock,
            address,
        }),
    );
    golden_command(
        "87 00 00 07",
        Command::Bus(BusCommand {
            request: BusRequest::Ping,
            address: BusAddress::ALL,
        }),
    );
    for request in BusRequest::ALL {
        let bus = Command::Bus(BusCommand {
            request,
            address: BusAddress::new(0x3fff).expect("14 bits"),
        });
        let bytes = bus.to_bytes().expect("bus commands encode");
        assert_eq!(command(&bytes), [DecodedCommand::Command(bus)]);
    }
}

#[test]
fn a_bus_command_with_a_wrong_checksum_is_skipped() {
    let out = command(&hex("81 10 06 18 42"));
    assert!(matches!(out[0], DecodedCommand::Skipped { bytes: 1, .. }));
    assert_eq!(
        out.last(),
        Some(&DecodedCommand::Command(Command::SendBoard))
    );
}

#[test]
fn xl_display_sends_its_digits_in_the_order_c_b_a_f_e_d() {
    golden_command(
        "2b 0b 03 01 03 02 01 06 05 04 12 03 00",
        Command::Clock(ClockCommand::Display(XlDisplay {
            segments: [1, 2, 3, 4, 5, 6],
            icons: icon::xl::LEFT_COLON | icon::xl::RIGHT_COLON,
            beep: true,
        })),
    );
    // "no beep" is 0x01 on the wire; 0x00, as some drivers send, is read the same.
    let quiet = ClockCommand::Display(XlDisplay::text("-8a", 0, false));
    assert_eq!(
        Command::Clock(quiet).to_bytes(),
        Ok(hex("2b 0b 03 01 5f 7f 40 00 00 00 00 01 00"))
    );
    assert_eq!(
        command(&hex("2b 0b 03 01 5f 7f 40 00 00 00 00 00 00")),
        [DecodedCommand::Command(Command::Clock(quiet))]
    );
}

#[test]
fn seven_segment_table_covers_digits_letters_and_signs() {
    assert_eq!(
        xl_segments("0123456789"),
        [0x3f, 0x06, 0x5b, 0x4f, 0x66, 0x6d]
    );
    assert_eq!(xl_segments("PLAY"), [0x73, 0x38, 0x5f, 0x6e, 0, 0]);
    assert_eq!(xl_segments("a%?"), [0x5f, 0, 0x53, 0, 0, 0]);
    assert_eq!(seven_segment('\\'), Some(0x64));
    assert_eq!(seven_segment('_'), Some(0x08));
}

#[test]
fn clock_sub_commands_have_their_documented_frames() {
    golden_command(
        "2b 0b 03 02 01 02 20 01 41 00 00 00 00",
        Command::Clock(ClockCommand::Icons(ClockIcons {
            left: icon::mode::TIME,
            right: icon::mode::FISCHER,
            left_period: icon::period::FLAG,
            right_period: icon::period::FIRST,
            special: icon::special::STAY | icon::special::CLEAR_ALL,
        })),
    );
    golden_command("2b 03 03 03 00", Command::Clock(ClockCommand::End));
    golden_command("2b 03 03 08 00", Command::Clock(ClockCommand::Button));
    golden_command("2b 03 03 09 00", Command::Clock(ClockCommand::Version));
    golden_command(
        "2b 04 03 0b 10 00",
        Command::Clock(ClockCommand::Beep { units: 16 }),
    );
    golden_command(
        "2b 0c 03 0c 70 69 63 6f 20 20 20 20 00 00",
        Command::Clock(ClockCommand::ascii("pico", 0)),
    );
    golden_command(
        "2b 0f 03 0d 52 45 56 20 49 49 20 54 45 58 54 05 00",
        Command::Clock(ClockCommand::revelation_ascii("REV II TEXT!", 5)),
    );
}

#[test]
fn set_and_run_sends_plain_binary_times_and_the_running_side() {
    golden_command(
        "2b 0a 03 0a 01 1e 00 00 05 3b 02 00",
        Command::Clock(ClockCommand::SetAndRun {
            left: Hms {
                hours: 1,
                minutes: 30,
                seconds: 0,
            },
            right: Hms {
                hours: 0,
                minutes: 5,
                seconds: 59,
            },
            run: RunningSide::Right,
        }),
    );
    assert_eq!(
        Hms::from_seconds(5400),
        Some(Hms {
            hours: 1,
            minutes: 30,
            seconds: 0
        })
    );
    assert_eq!(Hms::from_seconds(36_000), None);
    let paused = Command::Clock(ClockCommand::SetAndRun {
        left: Hms::default(),
        right: Hms::default(),
        run: RunningSide::Neither,
    });
    assert_eq!(
        paused.to_bytes(),
        Ok(hex("2b 0a 03 0a 00 00 00 00 00 00 04 00"))
    );
    let too_long = Command::Clock(ClockCommand::SetAndRun {
        left: Hms {
            hours: 0,
            minutes: 60,
            seconds: 0,
        },
        right: Hms::default(),
        run: RunningSide::Left,
    });
    assert!(too_long.to_bytes().is_err());
}

#[test]
fn led_commands_use_the_revelation_layout() {
    golden_command(
        "60 04 01 0c 1c 00",
        Command::Leds(LedCommand::Fields {
            on: true,
            start: 12,
            end: 28,
        }),
    );
    golden_command("60 04 00 40 40 00", Command::Leds(LedCommand::ClearAll));
    golden_command(
        "60 04 02 01 00 00",
        Command::Leds(LedCommand::AutoDim(false)),
    );
    golden_command(
        "60 04 02 02 01 00",
        Command::Leds(LedCommand::AutoReverse(true)),
    );
    assert!(
        Command::Leds(LedCommand::Fields {
            on: true,
            start: 64,
            end: 0
        })
        .to_bytes()
        .is_err()
    );
}

#[test]
fn forbidden_bytes_are_recognised_but_never_commands() {
    let out = command(&hex("4e 51 53 54"));
    assert_eq!(
        out,
        [
            DecodedCommand::Forbidden(ForbiddenCommand::StartBootloader),
            DecodedCommand::Forbidden(ForbiddenCommand::Scan50Black),
            DecodedCommand::Forbidden(ForbiddenCommand::Scan50White),
            DecodedCommand::Forbidden(ForbiddenCommand::Scan100),
        ]
    );
    for forbidden in [0x4e, 0x51, 0x53, 0x54] {
        assert_eq!(Command::from_single_byte(forbidden), None);
    }
}

#[test]
fn bytes_that_start_no_command_are_skipped_in_one_report() {
    let out = command(&hex("00 90 df 48 42"));
    assert!(matches!(out[0], DecodedCommand::Skipped { bytes: 4, .. }));
    assert_eq!(out[1], DecodedCommand::Command(Command::SendBoard));
}

#[test]
fn malformed_clock_frames_are_skipped_without_swallowing_the_next_command() {
    // Size out of range, then wrong start marker, then unknown sub-command.
    let out = command(&hex("2b 40 42 2b 03 04 09 00 42 2b 03 03 07 00 42"));
    let commands: Vec<_> = out
        .iter()
        .filter(|d| **d == DecodedCommand::Command(Command::SendBoard))
        .collect();
    assert_eq!(commands.len(), 3, "{out:?}");
}

#[test]
fn a_partial_clock_frame_waits_for_the_rest() {
    let mut decoder = CommandDecoder::new();
    decoder.push_bytes(&hex("2b 03 03"));
    assert_eq!(decoder.poll(), None);
    decoder.push_bytes(&hex("09 00"));
    assert_eq!(
        decoder.poll(),
        Some(DecodedCommand::Command(Command::Clock(
            ClockCommand::Version
        )))
    );
}

#[test]
fn reply_ids_name_the_answering_message() {
    assert_eq!(Command::SendBoard.reply_id(), Some(msg::BOARD_DUMP));
    assert_eq!(
        Command::Clock(ClockCommand::End).reply_id(),
        Some(msg::BWTIME)
    );
    assert_eq!(Command::Reset.reply_id(), None);
}

#[test]
fn a_long_serial_of_version_3_25_or_more_is_a_revelation_ii() {
    use crate::protocol::dgt::long_serial_is_revelation;
    assert!(long_serial_is_revelation("3.250010001"));
    assert!(long_serial_is_revelation("3.25 10960"));
    assert!(long_serial_is_revelation("4.00 1"));
    assert!(!long_serial_is_revelation("3.24 10960"));
    assert!(!long_serial_is_revelation("3.10 10960"));
    assert!(!long_serial_is_revelation("0000000001"));
    assert!(!long_serial_is_revelation("3.2"));
    assert!(!long_serial_is_revelation(""));
}
