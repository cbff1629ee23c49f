//! `eboardd bench`: figures measured on one core and printed.
//!
//! - `codec`: decoder throughput. The streams are made here, in memory, from message
//!   layouts of the protocols (see `protocols/`), so the figures measure the decoders and
//!   nothing else.
//! - `traces`: accuracy and latency on recorded traces with their truth.
//! - `accuracy`: real games played by the simulated hand on emulated boards, in virtual
//!   time, through the codecs, the sensed board and the tracker; beside the fixed 250 ms
//!   still-board matcher, on the same traces in the same run; and tracker throughput.
//! - `laws`: the arbiter against the observations of traces' truth.

mod accuracy;
mod laws;
mod traces;

pub use accuracy::HandStyle;

use std::hint::black_box;
use std::time::Instant;

use clap::{Args, ValueEnum};

use std::path::PathBuf;

use crate::protocol::{dgt, millennium};

/// Arguments of `eboardd bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Which figures.
    #[arg(value_enum, default_value_t = BenchWhat::Codec)]
    pub what: BenchWhat,
    /// How many megabytes of stream to decode per protocol (`codec`).
    #[arg(long, default_value_t = 64)]
    pub megabytes: usize,
    /// Traces to score (`traces`, `laws`): files, or folders of `NAME.trace` with
    /// `NAME.json` beside.
    pub paths: Vec<PathBuf>,
    /// Options of `accuracy`.
    #[command(flatten)]
    pub accuracy: accuracy::AccuracyArgs,
}

/// What to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchWhat {
    /// Decoder throughput for both protocols, in MB/s on one core.
    Codec,
    /// Accuracy and decision latency on traces with their truth, beside the fixed 250 ms
    /// still-board matcher.
    Traces,
    /// Accuracy, decision latency and tracker throughput on real games played by the
    /// simulated hand on emulated boards, beside the fixed 250 ms still-board matcher.
    Accuracy,
    /// The arbiter (2023 Laws, `report` mode) against the truth's observations: expected,
    /// found and false reports per article.
    Laws,
}

/// Runs `eboardd bench`.
pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    match args.what {
        BenchWhat::Codec => codec(args.megabytes.max(1)),
        BenchWhat::Traces => traces::run(
            &args.paths,
            args.accuracy.settle_ms,
            args.accuracy.slide_rests,
        )?,
        BenchWhat::Accuracy => accuracy::run(&args.accuracy)?,
        BenchWhat::Laws => laws::run(&args.paths, args.accuracy.verbose)?,
    }
    Ok(())
}

const CHUNK: usize = 4096;

fn codec(megabytes: usize) {
    let target = megabytes * 1_000_000;
    let dgt_stream = repeat_to(&dgt_sample(), target);
    let mill_stream = repeat_to(&millennium_sample(), target);
    println!("decoder throughput, one core, {CHUNK}-byte reads:");

    let (secs, messages) = time_it(|| {
        let mut d = dgt::Decoder::new();
        let mut n = 0usize;
        for chunk in dgt_stream.chunks(CHUNK) {
            d.push_bytes(chunk);
            while let Some(m) = d.poll() {
                black_box(&m);
                n += 1;
            }
        }
        n
    });
    report("dgt", dgt_stream.len(), secs, messages);

    let (secs, messages) = time_it(|| {
        let mut d = millennium::Decoder::new();
        let mut n = 0usize;
        for chunk in mill_stream.chunks(CHUNK) {
            d.push_bytes(chunk);
            while let Some(m) = d.poll() {
                black_box(&m);
                n += 1;
            }
        }
        n
    });
    report("millennium", mill_stream.len(), secs, messages);
}

fn time_it(f: impl Fn() -> usize) -> (f64, usize) {
    // One warm-up run, then the best of three.
    let mut best = f64::MAX;
    let mut count = f();
    for _ in 0..3 {
        let start = Instant::now();
        count = f();
        best = best.min(start.elapsed().as_secs_f64());
    }
    (best, count)
}

fn report(name: &str, bytes: usize, secs: f64, messages: usize) {
    let mb = bytes as f64 / 1e6;
    println!(
        "  {name:<11} {:>8.1} MB/s  {:>10.0} messages/s  ({mb:.0} MB, {messages} messages, {:.3} s)",
        mb / secs,
        messages as f64 / secs,
        secs
    );
}

fn repeat_to(sample: &[u8], target: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(target + sample.len());
    while out.len() < target {
        out.extend_from_slice(sample);
    }
    out
}

/// A game's worth of DGT traffic: a board dump, then field updates with a clock message
/// about every fourth message.
fn dgt_sample() -> Vec<u8> {
    let mut out = vec![0x86, 0x00, 0x43];
    out.extend_from_slice(&[0x08, 0x09, 0x0a, 0x0c, 0x0b, 0x0a, 0x09, 0x08]);
    out.extend_from_slice(&[0x07; 8]);
    out.extend_from_slice(&[0x00; 32]);
    out.extend_from_slice(&[0x01; 8]);
    out.extend_from_slice(&[0x02, 0x03, 0x04, 0x06, 0x05, 0x04, 0x03, 0x02]);
    for i in 0..240u8 {
        let field = i % 64;
        out.extend_from_slice(&[
            0x8e,
            0x00,
            0x05,
            field,
            if i % 2 == 0 { 0 } else { 1 + i % 12 },
        ]);
        if i % 3 == 0 {
            let s = i % 60;
            let bcd = (s / 10) << 4 | (s % 10);
            out.extend_from_slice(&[0x8d, 0x00, 0x0a, 0x00, 0x05, bcd, 0x00, 0x04, 0x59, 0x09]);
        }
    }
    out
}

/// Millennium status frames with odd parity in bit 7, as a board sends them every scan.
fn millennium_sample() -> Vec<u8> {
    let start = b"RNBKQBNRPPPPPPPP................................pppppppprnbkqbnr";
    let mut out = Vec::new();
    for i in 0..32usize {
        let mut frame = Vec::with_capacity(67);
        frame.push(b's');
        let mut squares = *start;
        squares.swap(8 + i % 8, 24 + i % 8);
        frame.extend_from_slice(&squares);
        let sum = frame.iter().fold(0u8, |acc, b| acc ^ b);
        frame.extend_from_slice(format!("{sum:02X}").as_bytes());
        out.extend(frame.into_iter().map(millennium::with_odd_parity));
    }
    out
}
