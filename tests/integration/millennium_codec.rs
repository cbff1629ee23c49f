//! The Millennium ChessLink codec from the outside: golden vectors in both directions, the
//! start frames of both cable sides and property tests of the decoders (splits, garbage,
//! parity, round trips). Recorded streams are in `millennium_traces.rs`.

use eboardd::protocol::millennium::{
    CableSide, Command, CommandDecoder, Decoded, DecodedCommand, Decoder, LedFrame, Reply,
    START_CHARS_CABLE_LEFT, START_CHARS_CABLE_RIGHT, Version, board_from_status, status_from_board,
    strip_parity,
};
use proptest::prelude::*;
use shakmaty::{Board, Color, Piece, Role, Square};

// ---------------------------------------------------------------------------------------------
// Helpers

/// Everything a decoder hands back for one stream, pushed in the given chunks, polling after
/// each push until it has nothing more.
fn decode_chunks<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> (Vec<Decoded>, usize) {
    let mut decoder = Decoder::new();
    let mut out = Vec::new();
    for chunk in chunks {
        decoder.push_bytes(chunk);
        out.extend(std::iter::from_fn(|| decoder.poll()));
    }
    (out, decoder.buffered())
}

fn decode(bytes: &[u8]) -> Vec<Decoded> {
    decode_chunks([bytes]).0
}

fn decode_commands(bytes: &[u8]) -> Vec<DecodedCommand> {
    let mut decoder = CommandDecoder::new();
    decoder.push_bytes(bytes);
    std::iter::from_fn(|| decoder.poll()).collect()
}

fn replies(decoded: &[Decoded]) -> Vec<Reply> {
    decoded
        .iter()
        .filter_map(|d| match d {
            Decoded::Reply(r) => Some(r.clone()),
            Decoded::Skipped { .. } => None,
        })
        .collect()
}

fn skipped(decoded: &[Decoded]) -> usize {
    decoded
        .iter()
        .map(|d| match d {
            Decoded::Skipped { bytes, .. } => *bytes,
            Decoded::Reply(_) => 0,
        })
        .sum()
}

/// Whether `wanted` appears in `got` in order (other items may come between).
fn is_subsequence(wanted: &[Reply], got: &[Reply]) -> bool {
    let mut got = got.iter();
    wanted.iter().all(|w| got.any(|g| g == w))
}

fn status_frame_bytes(chars: &[u8; 64]) -> Vec<u8> {
    Reply::Status(Box::new(*chars)).encode()
}

// ---------------------------------------------------------------------------------------------
// Golden vectors (fact sheet §2.1)

#[test]
fn golden_command_bytes_encode_and_decode() {
    let cases: [(Command, &[u8]); 6] = [
        (Command::Version, &[0xD6, 0xB5, 0xB6]),
        (Command::Status, &[0xD3, 0xB5, 0xB3]),
        (Command::LedsOff, &[0x58, 0xB5, 0x38]),
        (Command::Reset, &[0x54, 0xB5, 0x34]),
        (
            Command::Write {
                address: 2,
                data: 3,
            },
            &[0x57, 0xB0, 0x32, 0xB0, 0xB3, 0xB5, 0xB6],
        ),
        (
            Command::Read { address: 2 },
            &[0x52, 0xB0, 0x32, 0xB5, 0xB0],
        ),
    ];
    for (command, wire) in cases {
        assert_eq!(command.encode(), wire, "{command:?}");
        assert_eq!(
            decode_commands(wire),
            [DecodedCommand::Command(command.clone())]
        );
    }
}

#[test]
fn golden_version_reply_decodes_and_encodes() {
    let wire = [0x76, 0xB0, 0x31, 0xB0, 0xB3, 0x37, 0x34];
    let reply = Reply::Version(Version { high: 1, low: 3 });
    assert_eq!(decode(&wire), [Decoded::Reply(reply.clone())]);
    assert_eq!(reply.encode(), wire);
}

#[test]
fn golden_text_of_every_reply() {
    let cases: [(Reply, &[u8]); 5] = [
        (Reply::Version(Version { high: 1, low: 3 }), b"v010374"),
        (Reply::Leds, b"l6C"),
        (Reply::LedsOff, b"x78"),
        (
            Reply::Write {
                address: 2,
                data: 3,
            },
            b"w020376",
        ),
        (
            Reply::Read {
                address: 1,
                data: 0x14,
            },
            b"r011476",
        ),
    ];
    for (reply, text) in cases {
        assert_eq!(reply.encode_ascii(), text);
        assert_eq!(decode(text), [Decoded::Reply(reply)]);
    }
}

#[test]
fn golden_led_command_round_trips() {
    let frame = LedFrame::show_move(Square::E2, Square::E4, CableSide::Right);
    let wire = Command::Leds(frame).encode();
    assert_eq!(wire.len(), 167);
    assert_eq!(
        decode_commands(&wire),
        [DecodedCommand::Command(Command::Leds(frame))]
    );
}

// ---------------------------------------------------------------------------------------------
// Start frames and orientation (fact sheet §3)

#[test]
fn cable_right_start_frame_is_the_start_position() {
    let wire = status_frame_bytes(START_CHARS_CABLE_RIGHT);
    assert_eq!(strip_parity(wire[65]), b'7');
    assert_eq!(strip_parity(wire[66]), b'3');
    let [Decoded::Reply(Reply::Status(chars))] = &decode(&wire)[..] else {
        panic!("one status frame expected");
    };
    assert_eq!(board_from_status(chars, CableSide::Right), Ok(Board::new()));
}

#[test]
fn cable_left_start_frame_is_the_start_position() {
    let wire = status_frame_bytes(START_CHARS_CABLE_LEFT);
    assert_eq!(strip_parity(wire[65]), b'7');
    assert_eq!(strip_parity(wire[66]), b'3');
    let [Decoded::Reply(Reply::Status(chars))] = &decode(&wire)[..] else {
        panic!("one status frame expected");
    };
    assert_eq!(board_from_status(chars, CableSide::Left), Ok(Board::new()));
}

#[test]
fn status_frame_arriving_between_command_and_reply_is_kept_apart() {
    let mut stream = status_frame_bytes(START_CHARS_CABLE_RIGHT);
    stream.extend(
        Reply::Write {
            address: 2,
            data: 3,
        }
        .encode(),
    );
    let got = replies(&decode(&stream));
    let write = Command::Write {
        address: 2,
        data: 3,
    };
    assert_eq!(got.len(), 2);
    assert!(!got[0].answers(&write));
    assert!(got[1].answers(&write));
}

#[test]
fn two_bishops_are_not_mistaken_for_a_checksum() {
    // "BB" is a pair of hex digits; fixed-length framing must not stop there.
    let mut chars = [b'.'; 64];
    chars[10] = b'B';
    chars[11] = b'B';
    chars[0] = b'K';
    chars[63] = b'k';
    let got = decode(&status_frame_bytes(&chars));
    assert_eq!(got, [Decoded::Reply(Reply::Status(Box::new(chars)))]);
}

// ---------------------------------------------------------------------------------------------
// Strategies

fn arb_square_chars() -> impl Strategy<Value = [u8; 64]> {
    prop::collection::vec(prop::sample::select(b"KQRNBPkqrnbp.".to_vec()), 64).prop_map(|v| {
        let mut chars = [b'.'; 64];
        chars.copy_from_slice(&v);
        chars
    })
}

fn arb_reply() -> impl Strategy<Value = Reply> {
    prop_oneof![
        1 => (any::<u8>(), any::<u8>()).prop_map(|(high, low)| Reply::Version(Version { high, low })),
        3 => arb_square_chars().prop_map(|chars| Reply::Status(Box::new(chars))),
        1 => Just(Reply::Leds),
        1 => Just(Reply::LedsOff),
        1 => (any::<u8>(), any::<u8>()).prop_map(|(address, data)| Reply::Write { address, data }),
        1 => (any::<u8>(), any::<u8>()).prop_map(|(address, data)| Reply::Read { address, data }),
    ]
}

fn arb_led_frame() -> impl Strategy<Value = LedFrame> {
    (any::<u8>(), prop::collection::vec(any::<u8>(), 81)).prop_map(|(slot, v)| {
        let mut patterns = [0u8; 81];
        patterns.copy_from_slice(&v);
        LedFrame::from_parts(slot, patterns)
    })
}

fn arb_command() -> impl Strategy<Value = Command> {
    prop_oneof![
        Just(Command::Version),
        Just(Command::Status),
        arb_led_frame().prop_map(Command::Leds),
        Just(Command::LedsOff),
        Just(Command::Reset),
        (any::<u8>(), any::<u8>()).prop_map(|(address, data)| Command::Write { address, data }),
        any::<u8>().prop_map(|address| Command::Read { address }),
    ]
}

fn arb_board() -> impl Strategy<Value = Board> {
    let piece = prop_oneof![
        3 => Just(None),
        1 => (any::<bool>(), 0usize..6).prop_map(|(white, role)| {
            let role = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King][role];
            Some(Piece { color: Color::from_white(white), role })
        }),
    ];
    prop::collection::vec(piece, 64).prop_map(|pieces| {
        let mut board = Board::empty();
        for (square, piece) in Square::ALL.into_iter().zip(pieces) {
            if let Some(piece) = piece {
                board.set_piece_at(square, piece);
            }
        }
        board
    })
}

/// Cuts `bytes` at the given fractions of its length.
fn split_at_points<'a>(bytes: &'a [u8], cuts: &[prop::sample::Index]) -> Vec<&'a [u8]> {
    let mut points: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
    points.push(0);
    points.push(bytes.len());
    points.sort_unstable();
    points.windows(2).map(|w| &bytes[w[0]..w[1]]).collect()
}

/// A piece of a test stream: a valid frame or random bytes.
#[derive(Debug, Clone)]
enum Part {
    Frame(Reply),
    Garbage(Vec<u8>),
}

fn arb_stream() -> impl Strategy<Value = Vec<Part>> {
    prop::collection::vec(
        prop_oneof![
            3 => arb_reply().prop_map(Part::Frame),
            1 => prop::collection::vec(any::<u8>(), 0..40).prop_map(Part::Garbage),
        ],
        0..12,
    )
}

fn stream_bytes(pieces: &[Part]) -> Vec<u8> {
    let mut out = Vec::new();
    for piece in pieces {
        match piece {
            Part::Frame(reply) => reply.encode_into(&mut out),
            Part::Garbage(bytes) => out.extend_from_slice(bytes),
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Properties

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_stream_split_at_any_points_decodes_the_same(
        pieces in arb_stream(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..16),
    ) {
        let bytes = stream_bytes(&pieces);
        let (whole, whole_left) = decode_chunks([&bytes[..]]);
        let (split, split_left) = decode_chunks(split_at_points(&bytes, &cuts));
        prop_assert_eq!(replies(&whole), replies(&split));
        prop_assert_eq!(skipped(&whole), skipped(&split));
        prop_assert_eq!(whole_left, split_left);
        let (bytewise, _) = decode_chunks(bytes.chunks(1));
        prop_assert_eq!(replies(&whole), replies(&bytewise));
    }

    #[test]
    fn every_byte_is_a_frame_a_skip_or_still_buffered(pieces in arb_stream()) {
        let bytes = stream_bytes(&pieces);
        let (out, left) = decode_chunks([&bytes[..]]);
        let framed: usize = replies(&out).iter().map(Reply::frame_len).sum();
        prop_assert_eq!(framed + skipped(&out) + left, bytes.len());
        prop_assert!(left < 67);
    }

    #[test]
    fn garbage_before_and_between_frames_loses_no_valid_frame(
        frames in prop::collection::vec(arb_reply(), 1..8),
        garbage in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..32), 8),
    ) {
        let mut bytes = Vec::new();
        for (frame, junk) in frames.iter().zip(&garbage) {
            bytes.extend_from_slice(junk);
            frame.encode_into(&mut bytes);
        }
        let got = replies(&decode(&bytes));
        prop_assert!(is_subsequence(&frames, &got), "wanted {:?}\ngot {:?}", frames, got);
    }

    #[test]
    fn garbage_inside_a_frame_loses_only_that_frame(
        frames in prop::collection::vec(arb_reply(), 2..8),
        victim in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        junk in prop::collection::vec(any::<u8>(), 1..32),
    ) {
        let victim = victim.index(frames.len());
        let mut bytes = Vec::new();
        for (i, frame) in frames.iter().enumerate() {
            let encoded = frame.encode();
            if i == victim {
                let at = 1 + at.index(encoded.len() - 1);
                bytes.extend_from_slice(&encoded[..at]);
                bytes.extend_from_slice(&junk);
                bytes.extend_from_slice(&encoded[at..]);
            } else {
                bytes.extend_from_slice(&encoded);
            }
        }
        let got = replies(&decode(&bytes));
        let mut intact = frames.clone();
        intact.remove(victim);
        prop_assert!(is_subsequence(&intact, &got), "wanted {:?}\ngot {:?}", intact, got);
    }

    #[test]
    fn random_bytes_never_panic_and_account_for_every_byte(
        bytes in prop::collection::vec(any::<u8>(), 0..600),
    ) {
        let (out, left) = decode_chunks([&bytes[..]]);
        let framed: usize = replies(&out).iter().map(Reply::frame_len).sum();
        prop_assert_eq!(framed + skipped(&out) + left, bytes.len());
        let mut commands = CommandDecoder::new();
        commands.push_bytes(&bytes);
        while commands.poll().is_some() {}
        prop_assert!(commands.buffered() < 167);
    }

    #[test]
    fn frames_with_and_without_parity_bits_decode_the_same(
        frames in prop::collection::vec(arb_reply(), 0..8),
        mask in prop::collection::vec(any::<bool>(), 600),
    ) {
        let mut with = Vec::new();
        let mut without = Vec::new();
        for frame in &frames {
            frame.encode_into(&mut with);
            without.extend(frame.encode_ascii());
        }
        // A mix: each byte with or without its parity bit, as the real traces have.
        let mixed: Vec<u8> = with
            .iter()
            .zip(mask.iter().cycle())
            .map(|(&b, &keep)| if keep { b } else { b & 0x7F })
            .collect();
        let expected: Vec<Decoded> = frames.iter().cloned().map(Decoded::Reply).collect();
        prop_assert_eq!(&decode(&with), &expected);
        prop_assert_eq!(&decode(&without), &expected);
        prop_assert_eq!(&decode(&mixed), &expected);
    }

    #[test]
    fn every_reply_round_trips(reply in arb_reply()) {
        prop_assert_eq!(decode(&reply.encode()), [Decoded::Reply(reply.clone())]);
        prop_assert_eq!(decode(&reply.encode_ascii()), [Decoded::Reply(reply.clone())]);
        prop_assert_eq!(reply.encode().len(), reply.frame_len());
    }

    #[test]
    fn every_command_round_trips(command in arb_command()) {
        let wire = command.encode();
        prop_assert_eq!(wire.len(), command.frame_len());
        prop_assert!(wire.iter().all(|b| b.count_ones() % 2 == 1));
        prop_assert_eq!(decode_commands(&wire), [DecodedCommand::Command(command.clone())]);
        prop_assert_eq!(
            decode_commands(&command.encode_ascii()),
            [DecodedCommand::Command(command.clone())]
        );
    }

    #[test]
    fn command_streams_survive_garbage_and_splits(
        commands in prop::collection::vec(arb_command(), 1..6),
        garbage in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..24), 6),
        chunk in 1usize..50,
    ) {
        let mut bytes = Vec::new();
        for (command, junk) in commands.iter().zip(&garbage) {
            bytes.extend_from_slice(junk);
            command.encode_into(&mut bytes);
        }
        let mut decoder = CommandDecoder::new();
        let mut got = Vec::new();
        for piece in bytes.chunks(chunk) {
            decoder.push_bytes(piece);
            while let Some(d) = decoder.poll() {
                if let DecodedCommand::Command(c) = d {
                    got.push(c);
                }
            }
        }
        let mut it = got.iter();
        prop_assert!(commands.iter().all(|c| it.any(|g| g == c)), "wanted {:?}\ngot {:?}", commands, got);
    }

    #[test]
    fn a_board_survives_the_wire_on_both_cable_sides(board in arb_board(), left in any::<bool>()) {
        let side = if left { CableSide::Left } else { CableSide::Right };
        let wire = Reply::status_of(&board, side).encode();
        let decoded = decode(&wire);
        let [Decoded::Reply(Reply::Status(chars))] = &decoded[..] else {
            return Err(TestCaseError::fail(format!("{decoded:?}")));
        };
        prop_assert_eq!(board_from_status(chars, side), Ok(board.clone()));
        prop_assert_eq!(&status_from_board(&board, side), &**chars);
    }
}
