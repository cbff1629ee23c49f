//! A throughput measurement of the DGT decoder, not a timed assertion. Run it in release
//! mode:
//!
//! ```text
//! cargo test --release --test integration dgt_throughput -- --ignored --nocapture
//! ```
//!
//! The stream mixes messages in the proportions of a real board's recording (about 7
//! BWTIME for 3 FIELD_UPDATE, a board dump now and then) and is pushed in 4 KiB reads.

use std::time::Instant;

use eboardd::protocol::dgt::{BoardMessage, ClockFace, ClockTimes, Decoded, Decoder};

/// A realistic stream of about `target` bytes.
fn realistic_stream(target: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(target + 128);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let dump = BoardMessage::BoardDump(Box::new([0; 64]));
    while out.len() < target {
        let r = next();
        let message = match r % 1000 {
            0..=1 => dump.clone(),
            2..=289 => BoardMessage::FieldUpdate {
                field: (r >> 16) as u8 & 63,
                code: (r >> 24) as u8 & 15,
            },
            _ => {
                let face = |x: u64| ClockFace {
                    hours: (x % 10) as u8,
                    minutes: (x >> 8) as u8 % 60,
                    seconds: (x >> 16) as u8 % 60,
                    ..ClockFace::default()
                };
                BoardMessage::ClockTimes(ClockTimes {
                    left: face(r >> 8),
                    right: face(r >> 32),
                    status: 0x09,
                })
            }
        };
        message.encode(&mut out).expect("valid messages encode");
    }
    out
}

#[test]
#[ignore = "a measurement: run in release mode with --ignored --nocapture"]
fn decoder_throughput_on_a_realistic_stream() {
    let stream = realistic_stream(64 << 20);
    let mut best = f64::MAX;
    let mut messages = 0usize;
    for _ in 0..5 {
        let mut decoder = Decoder::new();
        let started = Instant::now();
        messages = 0;
        for chunk in stream.chunks(4096) {
            decoder.push_bytes(chunk);
            while let Some(decoded) = decoder.poll() {
                match decoded {
                    Decoded::Message(_) => messages += 1,
                    Decoded::Skipped { .. } => panic!("a clean stream has nothing to skip"),
                }
            }
        }
        best = best.min(started.elapsed().as_secs_f64());
    }
    let mb = stream.len() as f64 / 1e6;
    println!(
        "decoded {messages} messages, {mb:.1} MB, best of 5: {:.3} s = {:.0} MB/s, {:.1} M messages/s",
        best,
        mb / best,
        messages as f64 / best / 1e6
    );
}
