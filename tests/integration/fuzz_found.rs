//! Inputs the fuzz targets (`fuzz/`) found that broke something, each kept as a test of
//! the behaviour it broke.

use eboardd::bench::accuracy::replay;
use eboardd::pipeline::CoreConfig;
use eboardd::time::Time;
use eboardd::trace::parse_trace;

#[test]
fn a_trace_time_past_the_last_microsecond_is_refused_naming_its_line() {
    // Found by `replay`: the reader took the time as the last time there is, and the
    // replay then counted a minute past it.
    let text = "# eboard-trace 1\n# protocol: dgt\n#            b\n0.0 > 4d\n\
                387777777777777777777777777777777777777777777777777777777.5 < 86 00 43 08 09 0a 56 21\n";
    let err = parse_trace(text).expect_err("no such time");
    assert_eq!(
        err.to_string(),
        "line 5: \"387777777777777777777777777777777777777777777777777777777.5\" is not a time in milliseconds"
    );
}

#[test]
fn a_trace_time_near_the_last_microsecond_is_refused_naming_its_line() {
    // Read as a time, it left `eboardd replay` waiting for ever on a timer that could not
    // move past the last time there is (100 % CPU, no output).
    let text =
        "# eboard-trace 1\n# protocol: dgt\n0.0 < 80 00 03\n18446744073709551.615 < 80 00 03\n";
    let err = parse_trace(text).expect_err("past the last time a trace holds");
    assert!(err.to_string().starts_with("line 4: time "), "{err}");
}

#[test]
fn a_trace_ending_at_the_last_time_it_can_hold_replays_to_its_end() {
    let last = eboardd::trace::MAX_TIME_MS;
    let text = format!("# eboard-trace 1\n# protocol: dgt\n0.0 < 80 00 03\n{last} < 80 00 03\n");
    let trace = parse_trace(&text).expect("the last time a trace holds reads");
    assert_eq!(trace.chunks[1].t, Time::from_millis(last));
    let (_core, events) = replay(&trace, CoreConfig::default());
    assert!(events.is_empty(), "{events:?}");
}

#[test]
fn trace_times_are_read_to_the_microsecond_however_long_the_recording() {
    // Times went through a float, which cannot hold every microsecond of a long recording.
    let text =
        "# eboard-trace 1\n# protocol: dgt\n9007199254740.993 < 80\n9007199254740.9935 < 80\n";
    let trace = parse_trace(text).expect("valid");
    assert_eq!(trace.chunks[0].t, Time::from_micros(9_007_199_254_740_993));
    assert_eq!(trace.chunks[1].t, Time::from_micros(9_007_199_254_740_994));
}

#[test]
fn a_trace_byte_is_two_hex_digits_and_nothing_else() {
    // `from_str_radix` reads "+f" as 15.
    let err = parse_trace("# eboard-trace 1\n# protocol: dgt\n0 < +f\n").expect_err("not hex");
    assert_eq!(err.to_string(), "line 3: \"+f\" is not a byte in hex");
}
