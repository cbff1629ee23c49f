//! The D-Bus edge: arbitrary bytes from a board, in arbitrary pieces, through the
//! production core the daemon runs per board, then through the functions that make every
//! signal and property string.
//!
//! Input: one byte that chooses the protocol (even: DGT, odd: Millennium), two bytes that
//! choose how the rest is cut into pieces, then the bytes from the board. Checked after
//! every piece: every string of every signal the events make is one a D-Bus peer accepts
//! and the journal can show (no NUL, no control character, bounded); the board's serial
//! number is already printable and short as the core gives it; and a status built from
//! the core is published unchanged (it was fit) with every string fit.

#![no_main]

use eboardd::daemon::board::BoardStatus;
use eboardd::daemon::config::{Laws, TouchMove};
use eboardd::daemon::core::{Core, CoreSettings, PipelineCore};
use eboardd::dbus::board::{MAX_PGN, published, signals};
use eboardd::protocol::Protocol;
use eboardd::text::{MAX_BOARD_TEXT, MAX_LINE, is_line};
use eboardd::time::Time;
use eboardd_fuzz::{cut_points, split_seed};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&choice, rest)) = data.split_first() else {
        return;
    };
    let Some((seed, bytes)) = split_seed(rest) else {
        return;
    };
    let protocol = if choice % 2 == 0 {
        Protocol::Dgt
    } else {
        Protocol::Millennium
    };
    let settings = CoreSettings {
        orientation: None,
        settle: eboardd::tracker::DEFAULT_SETTLE,
        slide_rests: Default::default(),
        laws: Laws::default(),
        touch_move: TouchMove::default(),
    };
    let mut core = PipelineCore::new(protocol, &settings);
    let mut now = Time::ZERO;
    core.handle_connected(now);
    let mut from = 0;
    for to in cut_points(seed, bytes.len()) {
        now = now + std::time::Duration::from_millis(u64::from(choice >> 1) + 1);
        core.handle_input(now, &bytes[from..to]);
        from = to;
        core.handle_timeout(now);
        while core.poll_transmit().is_some() {}
        while let Some(event) = core.poll_event() {
            for signal in signals(&event) {
                for s in signal.strings() {
                    assert!(is_line(s, MAX_LINE), "{signal:?} carries {s:?}");
                }
            }
        }
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
});
