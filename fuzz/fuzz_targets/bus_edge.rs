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

use eboardd::daemon::core::{Core, CoreSettings, BoardCore};
use eboardd::dbus::board::assert_published_fit;
use eboardd::protocol::Protocol;
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
    let mut core = BoardCore::for_settings(protocol, &CoreSettings::default());
    let mut now = Time::ZERO;
    core.handle_connected(now);
    let mut from = 0;
    for to in cut_points(seed, bytes.len()) {
        now = now + std::time::Duration::from_millis(u64::from(choice >> 1) + 1);
        core.handle_input(now, &bytes[from..to]);
        from = to;
        core.handle_timeout(now);
        assert_published_fit(&mut core, protocol);
    }
});
