//! The D-Bus edge under hostile boards: whatever bytes a board sends, every string the
//! daemon would publish — each signal's and each property's — is one a D-Bus peer accepts
//! (no NUL) and fit for the journal (no control characters, bounded).

use proptest::collection::vec;
use proptest::prelude::*;

use super::board::{MAX_PGN, published, signals};
use crate::daemon::board::BoardStatus;
use crate::daemon::config::{Laws, TouchMove};
use crate::daemon::core::{Core, CoreSettings, PipelineCore};
use crate::protocol::Protocol;
use crate::text::{MAX_BOARD_TEXT, MAX_LINE, is_line};
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
    let settings = CoreSettings {
        orientation: None,
        settle: crate::tracker::DEFAULT_SETTLE,
        slide_rests: Default::default(),
        laws: Laws::default(),
        touch_move: TouchMove::default(),
    };
    let mut core = PipelineCore::new(protocol, &settings);
    let mut now = Time::ZERO;
    core.handle_connected(now);
    for piece in pieces {
        now = now + std::time::Duration::from_millis(40);
        core.handle_input(now, piece);
        core.handle_timeout(now);
        while core.poll_transmit().is_some() {}
        while let Some(event) = core.poll_event() {
            for signal in signals(&event) {
                for s in signal.strings() {
                    assert!(is_line(s, MAX_LINE), "{signal:?} carries {s:?}");
                }
            }
        }
        // The board's own words are fit before they reach the daemon at all.
        let serial = core.serial().unwrap_or_default();
        assert!(is_line(&serial, MAX_BOARD_TEXT), "serial {serial:?}");
        let status = BoardStatus {
            connected: true,
            protocol: protocol.as_str().to_string(),
            device: "/dev/ttyUSB0".to_string(),
            serial,
            orientation: core
                .orientation()
                .map(|o| o.as_str().to_string())
                .unwrap_or_default(),
            placement: core.placement().unwrap_or_default(),
            ..BoardStatus::default()
        };
        let shown = published(&status);
        assert_eq!(shown, status, "a fit status is published as it is");
        for s in [
            &shown.protocol,
            &shown.device,
            &shown.serial,
            &shown.orientation,
            &shown.placement,
            &shown.fen,
            &shown.laws,
        ] {
            assert!(is_line(s, MAX_LINE), "{s:?}");
        }
        assert!(!shown.pgn.contains('\0') && shown.pgn.len() <= MAX_PGN);
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
    let settings = CoreSettings {
        orientation: None,
        settle: crate::tracker::DEFAULT_SETTLE,
        slide_rests: Default::default(),
        laws: Laws::default(),
        touch_move: TouchMove::default(),
    };
    let mut core = PipelineCore::new(Protocol::Dgt, &settings);
    core.handle_connected(Time::ZERO);
    core.handle_input(Time::ZERO, &pieces[0]);
    assert_eq!(core.serial().as_deref(), Some("12\\x0045"));
    core.handle_input(Time::ZERO, &pieces[1]);
    assert_eq!(core.serial().as_deref(), Some("3.10 \\x1b[2J\\x07"));
}
