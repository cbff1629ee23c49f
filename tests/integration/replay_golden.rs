//! Golden traces: every `tests/traces/NAME.trace` replayed by the real binary must print
//! exactly the events in its insta snapshot `tests/traces/NAME.snap`. A changed or missing
//! snapshot fails the test and, outside CI, leaves the new output beside it as
//! `NAME.snap.new` for `cargo insta review`; on CI (`CI` set) nothing is written.
//! `INSTA_UPDATE=always cargo test --test integration replay_golden` writes the snapshots
//! without review.

use std::path::{Path, PathBuf};
use std::process::Command;

fn traces_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/traces")
}

fn traces() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(traces_dir())
        .expect("tests/traces exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "trace"))
        .collect();
    out.sort();
    out
}

fn replay(trace: &Path, format: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_eboardd"))
        .args(["replay", "--format", format])
        .arg(trace)
        .output()
        .expect("run eboardd");
    assert!(
        output.status.success(),
        "replay of {} failed: {}",
        trace.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("utf-8 output")
}

/// The snapshots sit beside the traces, one per trace and named after it, holding only the
/// replay's output (and, in their header, the trace they come from).
fn snapshot_settings(trace: &Path) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(traces_dir());
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_input_file(trace);
    settings
}

#[test]
fn every_golden_trace_replays_to_its_snapshot() {
    let all = traces();
    assert!(!all.is_empty(), "no golden traces found");
    let mut failed = Vec::new();
    for trace in &all {
        let name = trace
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("a trace's name is UTF-8")
            .to_string();
        let got = replay(trace, "jsonl");
        // insta ignores white space at the end of a snapshot: the lines are checked here.
        assert!(
            got.is_empty() || (got.ends_with('\n') && !got.contains("\n\n")),
            "{}: the replay's output is not one event per line",
            trace.display()
        );
        // Each trace is checked even when one before it failed, so a single run leaves a
        // pending snapshot for every changed one.
        let checked = std::panic::catch_unwind(|| {
            snapshot_settings(trace).bind(|| insta::assert_snapshot!(name.as_str(), got));
        });
        if checked.is_err() {
            failed.push(name);
        }
    }
    assert!(
        failed.is_empty(),
        "replay differs from the snapshot, or there is none, for: {}",
        failed.join(", ")
    );
}

#[test]
fn every_golden_snapshot_has_its_trace() {
    let orphans: Vec<PathBuf> = std::fs::read_dir(traces_dir())
        .expect("tests/traces exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "snap"))
        .filter(|p| !p.with_extension("trace").exists())
        .collect();
    assert!(orphans.is_empty(), "snapshots without a trace: {orphans:?}");
}

#[test]
fn pgn_replay_of_a_game_with_a_clock_writes_clk_and_emt_on_every_move() {
    let trace = traces_dir().join("dgt-opening.trace");
    let pgn = replay(&trace, "pgn");
    assert!(pgn.contains("[Round \"?\"]\n"), "{pgn}");
    assert!(
        pgn.ends_with(
            "\n1. e4 {[%clk 0:04:58] [%emt 0:00:01]} e5 {[%clk 0:04:59] [%emt 0:00:01]} 2. Nf3\n\
             {[%clk 0:04:56] [%emt 0:00:01]} *\n"
        ),
        "{pgn}"
    );
}
