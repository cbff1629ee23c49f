//! `eboardd replay --laws`: the same trace cites the numbers of the chosen edition; without
//! `--laws` the trace's `laws` header decides, else 2023.

use std::io::Write;
use std::process::Command;

/// A DGT field update: (ms, square, DGT piece code).
fn update(ms: f64, square: &str, code: u8) -> String {
    let b = square.as_bytes();
    let field = (b'8' - b[1]) * 8 + (b[0] - b'a');
    format!("{ms:.1} < 8e 00 05 {field:02x} {code:02x}\n")
}

/// White's pawn put on e3, left there 1.2 s, then moved on to e4 (a released piece moved
/// on); Black d5; White lifts the d5 pawn, puts it back and plays Nf3 (an opponent's piece
/// touched and not captured).
fn trace(header: &str) -> tempfile::NamedTempFile {
    let mut text = format!("# eboard-trace 1\n# protocol: dgt\n{header}");
    text.push_str("40.0 < 86 00 43 08 09 0a 0c 0b 0a 09 08 07 07 07 07 07 07 07 07");
    text.push_str(&" 00".repeat(32));
    text.push_str(" 01 01 01 01 01 01 01 01 02 03 04 06 05 04 03 02\n");
    for line in [
        update(1000.0, "e2", 0),
        update(1300.0, "e3", 1),
        update(2500.0, "e3", 0),
        update(2700.0, "e4", 1),
        update(4000.0, "d7", 0),
        update(4300.0, "d5", 7),
        update(6000.0, "d5", 0),
        update(6500.0, "d5", 7),
        update(7500.0, "g1", 0),
        update(7800.0, "f3", 3),
    ] {
        text.push_str(&line);
    }
    let mut f = tempfile::NamedTempFile::new().expect("temp file");
    f.write_all(text.as_bytes()).expect("write trace");
    f
}

fn violations(args: &[&str], header: &str) -> Vec<(String, String, String)> {
    let f = trace(header);
    let out = Command::new(env!("CARGO_BIN_EXE_eboardd"))
        .arg("replay")
        .args(args)
        .arg(f.path())
        .output()
        .expect("run eboardd");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["event"] == "violation")
        .map(|v| {
            (
                v["ply"].to_string(),
                v["article"].as_str().unwrap_or_default().to_string(),
                v["laws"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn triple(ply: u32, article: &str, laws: &str) -> (String, String, String) {
    (ply.to_string(), article.to_string(), laws.to_string())
}

#[test]
fn replay_cites_2023_numbers_by_default() {
    assert_eq!(
        violations(&[], ""),
        [
            triple(1, "4.7", "fide-2023"),
            triple(3, "4.3b", "fide-2023")
        ]
    );
}

#[test]
fn replay_laws_fide_2014_cites_2014_numbers() {
    assert_eq!(
        violations(&["--laws", "fide-2014"], ""),
        [
            triple(1, "4.6", "fide-2014"),
            triple(3, "4.3b", "fide-2014")
        ]
    );
}

#[test]
fn replay_laws_fide_classic_cites_classic_numbers() {
    assert_eq!(
        violations(&["--laws", "fide-classic"], ""),
        [
            triple(1, "4.7", "fide-classic"),
            triple(3, "4.3a", "fide-classic")
        ]
    );
}

#[test]
fn replay_takes_the_edition_from_the_trace_header() {
    assert_eq!(
        violations(&[], "# laws: fide-2014\n"),
        [
            triple(1, "4.6", "fide-2014"),
            triple(3, "4.3b", "fide-2014")
        ]
    );
    // The command line wins over the header.
    assert_eq!(
        violations(&["--laws", "fide-2023"], "# laws: fide-2014\n")[0],
        triple(1, "4.7", "fide-2023")
    );
}

#[test]
fn replay_touch_move_off_reports_nothing() {
    assert!(violations(&["--touch-move", "off"], "").is_empty());
}

#[test]
fn replay_rejects_an_unknown_edition_in_the_header() {
    let f = trace("# laws: fide-1999\n");
    let out = Command::new(env!("CARGO_BIN_EXE_eboardd"))
        .arg("replay")
        .arg(f.path())
        .output()
        .expect("run eboardd");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fide-1999"));
}
