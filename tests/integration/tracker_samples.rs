//! The tracker on the independent sample recordings in ../shared/data (read in place, never
//! copied into the repository; skipped when absent): every DGT trace of `generated/` must be
//! reconstructed exactly, and `real-dgt/1.trace` must give the 57 moves of `1.uci`.
//!
//! The DGT messages are decoded here with a few lines (field updates, board dumps, clock
//! times), so that this test does not depend on the codec; `eboardd replay` and
//! `eboardd bench traces` use the real one.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::tracker_common::*;
use eboardd::event::GameEvent;
use eboardd::sensing::SquareChange;
use eboardd::time::Time;
use eboardd::tracker::{Tracker, TrackerConfig};
use shakmaty::{Board, Color, Piece, Role, Square};

const DATA: &str = "../../shared/data";

fn data_dir() -> Option<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    [here.join(DATA), PathBuf::from("/work/shared/data")]
        .into_iter()
        .find(|p| p.is_dir())
}

#[derive(Debug, Clone)]
enum Input {
    Board(Time, Board),
    Change(Time, SquareChange),
    Press(Time),
}

fn dgt_piece(code: u8) -> Option<Piece> {
    let (color, role) = match code {
        1 => (Color::White, Role::Pawn),
        2 => (Color::White, Role::Rook),
        3 => (Color::White, Role::Knight),
        4 => (Color::White, Role::Bishop),
        5 => (Color::White, Role::King),
        6 => (Color::White, Role::Queen),
        7 => (Color::Black, Role::Pawn),
        8 => (Color::Black, Role::Rook),
        9 => (Color::Black, Role::Knight),
        10 => (Color::Black, Role::Bishop),
        11 => (Color::Black, Role::King),
        12 => (Color::Black, Role::Queen),
        _ => return None,
    };
    Some(Piece { color, role })
}

fn dgt_square(index: u8, rotated: bool) -> Square {
    let i = u32::from(index % 64);
    let sq = Square::new((7 - i / 8) * 8 + i % 8);
    if rotated {
        Square::new(63 - u32::from(sq))
    } else {
        sq
    }
}

/// Decodes the board messages of a DGT trace.
fn decode_dgt(text: &str) -> Vec<Input> {
    let mut bytes: Vec<(Time, u8)> = Vec::new();
    for line in text.lines() {
        let mut parts = line.split_whitespace();
        let (Some(t), Some("<")) = (parts.next(), parts.next()) else {
            continue;
        };
        let Ok(ms) = t.parse::<f64>() else { continue };
        for h in parts {
            if let Ok(b) = u8::from_str_radix(h, 16) {
                bytes.push((Time::from_ms_f64(ms), b));
            }
        }
    }
    let mut out = Vec::new();
    let mut rotated = false;
    let mut lever: Option<u8> = None;
    let mut i = 0;
    while i + 3 <= bytes.len() {
        let id = bytes[i].1;
        if id & 0x80 == 0 {
            i += 1;
            continue;
        }
        let len = (usize::from(bytes[i + 1].1) << 7) | usize::from(bytes[i + 2].1);
        if len < 3 || i + len > bytes.len() {
            break;
        }
        let msg = &bytes[i..i + len];
        let t = msg[len - 1].0;
        match id {
            0x86 if len == 67 => {
                let mut b = Board::empty();
                for (k, &(_, code)) in msg[3..].iter().enumerate() {
                    if let Some(p) = dgt_piece(code) {
                        b.set_piece_at(dgt_square(k as u8, false), p);
                    }
                }
                let mut turned = b.clone();
                turned.rotate_180();
                if turned == Board::new() {
                    rotated = true;
                    b = turned;
                }
                out.push(Input::Board(t, b));
            }
            0x8e if len == 5 => out.push(Input::Change(
                t,
                SquareChange {
                    square: dgt_square(msg[3].1, rotated),
                    piece: dgt_piece(msg[4].1),
                },
            )),
            0x8d if len == 10 => {
                let status = msg[9].1 & 0x02;
                if lever.is_some_and(|l| l != status) {
                    out.push(Input::Press(t));
                }
                lever = Some(status);
            }
            _ => {}
        }
        i += len;
    }
    out
}

fn run_inputs(cfg: TrackerConfig, inputs: &[Input]) -> Run {
    let mut tracker = Tracker::new(cfg);
    let mut run = Run::default();
    let mut last = Time::ZERO;
    for input in inputs {
        let t = match input {
            Input::Board(t, _) | Input::Change(t, _) | Input::Press(t) => *t,
        };
        advance(&mut tracker, t, &mut run);
        match input {
            Input::Board(t, b) => tracker.handle_board(*t, b),
            Input::Change(t, c) => tracker.handle_change(*t, *c),
            Input::Press(t) => tracker.handle_clock_press(*t),
        }
        drain(&mut tracker, &mut run);
        last = t;
    }
    advance(
        &mut tracker,
        last + std::time::Duration::from_secs(60),
        &mut run,
    );
    run
}

#[derive(Debug, Default)]
struct Tally {
    games: usize,
    exact: usize,
    moves: usize,
    misread: usize,
    retracts: usize,
    latencies: Vec<f64>,
}

impl Tally {
    fn quantile(&self, q: f64) -> f64 {
        let mut v = self.latencies.clone();
        v.sort_by(f64::total_cmp);
        v.get(((v.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or(f64::NAN)
    }
}

fn strip(s: &str) -> &str {
    s.trim_end_matches(['+', '#'])
}

fn score(run: &Run, san: &[String], ends: &[f64], tally: &mut Tally) -> bool {
    let mut game: Vec<(String, f64)> = Vec::new();
    for e in &run.events {
        match &e.event {
            GameEvent::Move { ply, san: s, .. } => {
                let i = (*ply as usize).saturating_sub(1);
                let s = s.to_string();
                if san.get(i).map(|x| strip(x)) != Some(strip(&s)) {
                    tally.misread += 1;
                }
                game.truncate(i);
                game.push((s, e.t.as_ms_f64()));
            }
            GameEvent::Retract { ply, .. } => {
                tally.retracts += 1;
                game.truncate((*ply as usize).saturating_sub(1));
            }
            GameEvent::Takeback { ply } => game.truncate(*ply as usize),
            GameEvent::NewGame { .. } => game.clear(),
            _ => {}
        }
    }
    let mut ok = game.len() == san.len();
    for (i, (s, t)) in game.iter().enumerate() {
        if san.get(i).map(|x| strip(x)) == Some(strip(s)) {
            if let Some(end) = ends.get(i) {
                tally.latencies.push(t - end);
            }
        } else {
            ok = false;
        }
    }
    tally.games += 1;
    tally.moves += san.len();
    if ok {
        tally.exact += 1;
    }
    ok
}

#[test]
fn generated_dgt_traces_are_reconstructed_exactly() {
    let tally = sample_tally(TrackerConfig::default());
    let Some((tally, failures)) = tally else {
        eprintln!("sample data absent: skipped");
        return;
    };
    assert!(failures.is_empty(), "not exact: {failures:?}");
    assert_eq!(tally.misread, 0);
}

/// How the settle window was chosen: `cargo test --release --test integration tracker_samples -- --ignored`.
#[test]
#[ignore = "a measurement"]
fn settle_window_sweep() {
    for ms in [100, 150, 200, 250, 300] {
        let cfg = TrackerConfig {
            settle: std::time::Duration::from_millis(ms),
            ..TrackerConfig::default()
        };
        if let Some((t, _)) = sample_tally(cfg) {
            eprintln!(
                "settle {ms} ms: {}/{} exact, misread {}, retracts {}, median {:.1} p95 {:.1}",
                t.exact,
                t.games,
                t.misread,
                t.retracts,
                t.quantile(0.5),
                t.quantile(0.95)
            );
        }
    }
}

fn sample_tally(cfg: TrackerConfig) -> Option<(Tally, Vec<String>)> {
    {
        let data = data_dir()?;
        let dir = data.join("generated");
        let entries = std::fs::read_dir(&dir).ok()?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().ends_with("-dgt.trace"))
            .collect();
        files.sort();
        let mut tally = Tally::default();
        let mut failures = Vec::new();
        for f in &files {
            let (Ok(text), Ok(json)) = (
                std::fs::read_to_string(f),
                std::fs::read_to_string(f.with_extension("json")),
            ) else {
                continue;
            };
            let truth: serde_json::Value = serde_json::from_str(&json).expect("truth json");
            let san: Vec<String> = truth["san"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            let ends: Vec<f64> = truth["move_end_ms"]
                .as_array()
                .map(|a| a.iter().filter_map(serde_json::Value::as_f64).collect())
                .unwrap_or_default();
            let run = run_inputs(cfg.clone(), &decode_dgt(&text));
            if !score(&run, &san, &ends, &mut tally) {
                failures.push(f.display().to_string());
            }
        }
        eprintln!(
            "DGT samples: games {}/{} exact, moves {}, misread {}, retracts {}, latency ms median {:.1} p95 {:.1} p99 {:.1}",
            tally.exact,
            tally.games,
            tally.moves,
            tally.misread,
            tally.retracts,
            tally.quantile(0.5),
            tally.quantile(0.95),
            tally.quantile(0.99)
        );
        Some((tally, failures))
    }
}

#[test]
fn real_dgt_game_gives_the_57_moves() {
    let Some(data) = data_dir() else {
        eprintln!("sample data absent: skipped");
        return;
    };
    let (Ok(text), Ok(uci)) = (
        std::fs::read_to_string(data.join("real-dgt/1.trace")),
        std::fs::read_to_string(data.join("real-dgt/1.uci")),
    ) else {
        return;
    };
    let want: Vec<&str> = uci
        .split_whitespace()
        .filter(|w| !w.ends_with('.') && *w != "*")
        .collect();
    let run = run_inputs(TrackerConfig::default(), &decode_dgt(&text));
    eprintln!("real DGT game: retracts {}", run.count("retract"));
    assert_eq!(run.final_uci(), want, "{}", run.lines());
}

/// Throughput on one core: `cargo test --release --test integration tracker_samples -- --ignored`.
#[test]
#[ignore = "a measurement, run in release"]
fn throughput_on_sample_traces() {
    let Some(data) = data_dir() else { return };
    let Ok(entries) = std::fs::read_dir(data.join("generated")) else {
        return;
    };
    let mut games = Vec::new();
    for e in entries.flatten() {
        let p = e.path();
        if p.to_string_lossy().ends_with("-dgt.trace")
            && let Ok(text) = std::fs::read_to_string(&p)
        {
            games.push(decode_dgt(&text));
        }
    }
    let changes: usize = games
        .iter()
        .map(|g| g.iter().filter(|i| matches!(i, Input::Change(..))).count())
        .sum();
    let rounds = 40;
    let cpu0 = thread_cpu_ns();
    let start = Instant::now();
    let mut moves = 0;
    for _ in 0..rounds {
        for g in &games {
            moves += run_inputs(TrackerConfig::default(), g).moves().len();
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let cpu = thread_cpu_ns().zip(cpu0).map(|(b, a)| (b - a) as f64 / 1e9);
    let per_sec = (changes * rounds) as f64 / secs;
    eprintln!(
        "throughput: {} square changes in {secs:.3} s wall = {per_sec:.0} changes/s ({moves} moves)",
        changes * rounds
    );
    if let Some(cpu) = cpu {
        eprintln!(
            "throughput: {cpu:.3} s on the CPU = {:.0} changes/s on one core",
            (changes * rounds) as f64 / cpu
        );
    }
}

/// Time this thread spent on a CPU, in ns (Linux), so that a busy machine does not count.
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}
