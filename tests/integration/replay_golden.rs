//! Golden traces: every `tests/traces/*.trace` replayed by the real binary must print
//! exactly its `*.expected.jsonl`. `EBOARDD_BLESS=1` rewrites the expected files.

use std::path::{Path, PathBuf};
use std::process::Command;

fn traces() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/traces");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
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

#[test]
fn every_golden_trace_replays_to_its_expected_events() {
    let bless = std::env::var_os("EBOARDD_BLESS").is_some();
    let all = traces();
    assert!(!all.is_empty(), "no golden traces found");
    let mut failures = Vec::new();
    for trace in all {
        let expected_path = trace.with_extension("expected.jsonl");
        let got = replay(&trace, "jsonl");
        if bless {
            std::fs::write(&expected_path, &got).expect("write expected");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_else(|_| {
            panic!(
                "{} has no {}; run with EBOARDD_BLESS=1 and review it",
                trace.display(),
                expected_path.display()
            )
        });
        if got != expected {
            failures.push(format!(
                "{}:\n--- expected\n{expected}--- got\n{got}",
                trace.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn pgn_replay_of_a_game_with_a_clock_writes_clk_and_emt_on_every_move() {
    let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/traces/dgt-opening.trace");
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
