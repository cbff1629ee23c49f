//! `eboardd demo` plays its game through a pseudo-terminal and ends with the game's PGN.

use std::process::Command;

#[test]
fn demo_plays_the_opera_game_through_a_pty_and_prints_its_pgn() {
    let out = Command::new(env!("CARGO_BIN_EXE_eboardd"))
        .args(["demo", "--speed", "10"])
        .output()
        .expect("run eboardd demo");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("[White \"Morphy, Paul\"]"), "{stdout}");
    assert!(
        stdout.contains("12. O-O-O Rd8 13. Rxd7 Rxd7"),
        "castling and captures in the PGN: {stdout}"
    );
    assert!(stdout.trim_end().ends_with("17. Rd8# 1-0"), "{stdout}");
}

#[test]
fn demo_refuses_a_speed_of_zero() {
    let out = Command::new(env!("CARGO_BIN_EXE_eboardd"))
        .args(["demo", "--speed", "0"])
        .output()
        .expect("run eboardd demo");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--speed"));
}
