//! The trace reader (`eboardd replay`, the regression traces, bug reports) fed arbitrary
//! text.
//!
//! Checked: the streaming reader (`read_trace`, what `read_trace_file` uses) and the
//! reader of whole texts agree on every trace and every error; a malformed trace is
//! refused naming a line that is in the text; a trace that
//! reads, written out again by the trace writer, reads back as the same trace (header
//! values put on one line, as the writer does) with every chunk at the same time with the
//! same bytes, and writing that again gives the same text.

#![no_main]

use eboardd::trace::{Trace, TraceError, TraceWriter, parse_trace, read_trace};
use libfuzzer_sys::fuzz_target;

fn write(trace: &Trace) -> String {
    let mut writer = TraceWriter::new(Vec::new(), &trace.header).expect("writing to memory");
    for chunk in &trace.chunks {
        writer.write_chunk(chunk).expect("writing to memory");
    }
    String::from_utf8(writer.into_inner()).expect("traces are written as UTF-8")
}

/// A header value as the writer keeps it: on one line.
fn one_line(value: &str) -> String {
    value.replace(['\n', '\r'], " ")
}

fuzz_target!(|data: &[u8]| {
    // What `read_trace_file` does with the bytes of a file.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let streamed = read_trace(data).map_err(|e| e.to_string());
    assert_eq!(
        streamed,
        parse_trace(text).map_err(|e| e.to_string()),
        "the streaming reader disagrees on {text:?}"
    );
    let trace = match parse_trace(text) {
        Ok(trace) => trace,
        Err(TraceError::Malformed { line, message }) => {
            assert!(
                line >= 1 && line <= text.lines().count(),
                "line {line} of {text:?}"
            );
            assert!(!message.is_empty());
            return;
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    let written = write(&trace);
    let back = parse_trace(&written)
        .unwrap_or_else(|e| panic!("a written trace does not read: {e}\n{written}"));
    assert_eq!(back.chunks, trace.chunks, "chunks changed:\n{written}");
    let header = &trace.header;
    let again = &back.header;
    assert_eq!(again.version, header.version);
    assert_eq!(again.protocol, header.protocol);
    assert_eq!(again.serial, header.serial.as_deref().map(one_line));
    assert_eq!(again.start_fen, header.start_fen.as_deref().map(one_line));
    assert_eq!(again.laws, header.laws.as_deref().map(one_line));
    assert_eq!(again.other.len(), header.other.len(), "{written}");
    for ((key, value), (key2, value2)) in header.other.iter().zip(&again.other) {
        assert_eq!(key2, key, "{written}");
        assert_eq!(value2, &one_line(value), "{written}");
    }
    assert_eq!(write(&back), written, "writing is not stable");
});
