//! The D-Bus edge under hostile boards: whatever bytes a board sends, every string the
//! daemon would publish — each signal's and each property's — is one a D-Bus peer accepts
//! (no NUL) and fit for the journal (no control characters, bounded).

use proptest::collection::vec;
use proptest::prelude::*;

use super::board::assert_published_fit;
use crate::daemon::core::{BoardCore, Core, CoreSettings};
use crate::protocol::Protocol;
use crate::time::Time;

/// A DGT message with id `id` and `data`, its length header right.
fn dgt_frame(id: u8, data: &[u8]) -> Vec<u8> {
    let total = data.len() + 3;
    let mut out = vec![id, ((total >> 7) & 0x7f) as u8, (total & 0x7f) as u8];
    out.extend_from_slice(data);
    out
}

/// What a hostile DGT board sends: serial numbers of any 7-bit text, messages of any id,
/// and plain junk.
fn dgt_piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        (
            prop::sample::select(vec![0x91u8, 0xa2, 0x92]),
            vec(0u8..0x80, 1..40)
        )
            .prop_map(|(id, data)| dgt_frame(id, &data)),
        (0x80u8..=0xff, vec(0u8..0x80, 0..80)).prop_map(|(id, data)| dgt_frame(id, &data)),
        vec(any::<u8>(), 0..64),
    ]
}

/// Feeds `pieces` to a core of `protocol` and checks every string published on the way.
fn publishes_only_valid_strings(protocol: Protocol, pieces: &[Vec<u8>]) {
    let mut core = BoardCore::for_settings(protocol, &CoreSettings::default());
    let mut now = Time::ZERO;
    core.handle_connected(now);
    for piece in pieces {
        now = now + std::time::Duration::from_millis(40);
        core.handle_input(now, piece);
        core.handle_timeout(now);
        assert_published_fit(&mut core, protocol);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_dgt_bytes_publish_only_valid_strings(pieces in vec(dgt_piece(), 1..40)) {
        publishes_only_valid_strings(Protocol::Dgt, &pieces);
    }

    #[test]
    fn any_millennium_bytes_publish_only_valid_strings(
        pieces in vec(vec(any::<u8>(), 0..80), 1..40)
    ) {
        publishes_only_valid_strings(Protocol::Millennium, &pieces);
    }
}

#[test]
fn a_serial_number_with_nul_and_escapes_is_published_escaped() {
    let pieces = [
        dgt_frame(0x91, b"12\x0045"),
        dgt_frame(0xa2, b"3.10 \x1b[2J\x07"),
    ];
    publishes_only_valid_strings(Protocol::Dgt, &pieces);
    let mut core = BoardCore::for_settings(Protocol::Dgt, &CoreSettings::default());
    core.handle_connected(Time::ZERO);
    core.handle_input(Time::ZERO, &pieces[0]);
    assert_eq!(core.serial().as_deref(), Some("12\\x0045"));
    core.handle_input(Time::ZERO, &pieces[1]);
    assert_eq!(core.serial().as_deref(), Some("3.10 \\x1b[2J\\x07"));
}
