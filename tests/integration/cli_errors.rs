//! Bad input on the command line gets a clear message and exit status 2.

use std::process::Command;

fn eboardd(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_eboardd"))
        .args(args)
        .output()
        .expect("run eboardd")
}

#[test]
fn replay_of_a_missing_file_exits_2_naming_the_file() {
    let out = eboardd(&["replay", "/nonexistent/board.trace"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/board.trace"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn replay_of_a_malformed_file_exits_2_naming_the_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("bad.trace");
    std::fs::write(
        &path,
        "# eboard-trace 1\n# protocol: dgt\n0.0 < 86 00\n12.5 < 8e 00 zz\n",
    )
    .expect("write");
    let out = eboardd(&["replay", path.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 4"), "{err}");
    assert!(err.contains("\"zz\""), "{err}");
}

#[test]
fn replay_without_a_protocol_header_exits_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("noproto.trace");
    std::fs::write(&path, "# eboard-trace 1\n0.0 < 86\n").expect("write");
    let out = eboardd(&["replay", path.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("protocol"));
}
