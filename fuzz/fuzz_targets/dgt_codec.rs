//! The DGT codec, both directions, fed arbitrary bytes in arbitrary pieces.
//!
//! Input: two bytes that choose how the rest is cut into pieces, then the bytes of the
//! line. Checked for the board→host decoder the daemon reads boards with: decoding in one
//! piece and in many gives the same messages, the same number of dropped bytes and the same
//! bytes left waiting; every byte is a message's, a dropped one or still waiting; nothing
//! waits longer than the longest message; every message decoded encodes to as many bytes
//! as it came in and decodes back to itself. For the host→board decoder the board emulator
//! uses: one piece and many give the same commands, and each command decoded round-trips.

#![no_main]

use eboardd::protocol::dgt::{
    BoardMessage, CommandDecoder, Decoded, DecodedCommand, Decoder, MAX_MESSAGE_LEN,
};
use eboardd_fuzz::{cut_points, split_seed};
use libfuzzer_sys::fuzz_target;

/// Every message decoded, the bytes dropped, and the bytes left waiting.
fn decode(bytes: &[u8], points: &[usize]) -> (Vec<BoardMessage>, usize, usize) {
    let mut decoder = Decoder::new();
    let mut messages = Vec::new();
    let mut skipped = 0;
    let mut from = 0;
    for &to in points {
        decoder.push_bytes(&bytes[from..to]);
        from = to;
        while let Some(decoded) = decoder.poll() {
            match decoded {
                Decoded::Message(m) => messages.push(m),
                Decoded::Skipped { bytes, reason } => {
                    assert!(bytes > 0, "a skip of no bytes: {reason}");
                    assert!(!reason.is_empty());
                    skipped += bytes;
                }
            }
        }
    }
    (messages, skipped, decoder.buffered())
}

/// Every command decoded (skips and forbidden commands left out), and the bytes used.
fn decode_commands(bytes: &[u8], points: &[usize]) -> (Vec<DecodedCommand>, usize) {
    let mut decoder = CommandDecoder::new();
    let mut out = Vec::new();
    let mut used = 0;
    let mut from = 0;
    for &to in points {
        decoder.push_bytes(&bytes[from..to]);
        from = to;
        while let Some(decoded) = decoder.poll() {
            used += match &decoded {
                DecodedCommand::Command(c) => c.to_bytes().expect("decoded commands encode").len(),
                DecodedCommand::Forbidden(_) => 1,
                DecodedCommand::Skipped { bytes, .. } => *bytes,
            };
            if !matches!(decoded, DecodedCommand::Skipped { .. }) {
                out.push(decoded);
            }
        }
    }
    (out, used + decoder.buffered())
}

fuzz_target!(|data: &[u8]| {
    let Some((seed, bytes)) = split_seed(data) else {
        return;
    };
    let whole = [bytes.len()];
    let pieces = cut_points(seed, bytes.len());

    let (messages, skipped, left) = decode(bytes, &whole);
    let (split_messages, split_skipped, split_left) = decode(bytes, &pieces);
    assert_eq!(messages, split_messages, "pieces changed the messages");
    assert_eq!(skipped, split_skipped, "pieces changed the bytes dropped");
    assert_eq!(left, split_left, "pieces changed the bytes left waiting");
    assert!(left < MAX_MESSAGE_LEN, "{left} bytes wait for one message");

    let mut message_bytes = 0;
    for message in &messages {
        let encoded = message.to_bytes().expect("decoded messages encode");
        message_bytes += encoded.len();
        let (back, back_skipped, back_left) = decode(&encoded, &[encoded.len()]);
        assert_eq!(
            back,
            std::slice::from_ref(message),
            "{message:?} does not decode back"
        );
        assert_eq!((back_skipped, back_left), (0, 0));
    }
    assert_eq!(
        message_bytes + skipped + left,
        bytes.len(),
        "bytes unaccounted for"
    );

    let (commands, used) = decode_commands(bytes, &whole);
    let (split_commands, split_used) = decode_commands(bytes, &pieces);
    assert_eq!(commands, split_commands, "pieces changed the commands");
    assert_eq!(used, bytes.len(), "host bytes unaccounted for");
    assert_eq!(
        split_used,
        bytes.len(),
        "host bytes unaccounted for in pieces"
    );
    for decoded in &commands {
        if let DecodedCommand::Command(command) = decoded {
            let encoded = command.to_bytes().expect("decoded commands encode");
            let (back, _) = decode_commands(&encoded, &[encoded.len()]);
            assert_eq!(
                back,
                std::slice::from_ref(decoded),
                "{command:?} does not decode back"
            );
        }
    }
});
