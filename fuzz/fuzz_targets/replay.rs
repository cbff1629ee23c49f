//! A trace replayed through one board's whole core (codec, sensed board, tracker,
//! arbiter), as `eboardd replay` and the daemon drive it: arbitrary trace text in.
//!
//! Checked: the replay ends (every timer handled moves time on), every event is one line of
//! valid JSON, and no event is dated after the time the replay ran to. (Events need not
//! come out in time order: a move held for its clock press keeps the time it was decided.)

#![no_main]

use eboardd::bench::accuracy::replay;
use eboardd::pipeline::CoreConfig;
use eboardd::time::Time;
use eboardd::trace::parse_trace;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(trace) = parse_trace(text) else {
        return;
    };
    let config = CoreConfig {
        start_fen: trace.header.start_fen.clone(),
        ..CoreConfig::default()
    };
    let (_core, events) = replay(&trace, config);
    // The replay runs a minute past the last chunk from the board.
    let end = trace
        .from_board()
        .last()
        .map_or(Time::ZERO, |c| c.t)
        .as_micros()
        .saturating_add(60_000_000);
    for event in &events {
        let line = event.to_json_line();
        assert!(!line.is_empty() && !line.contains('\n'), "{line:?}");
        let value: serde_json::Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert!(value.get("t_ms").is_some(), "{line}");
        assert!(event.t.as_micros() <= end, "an event after the end: {line}");
    }
});
