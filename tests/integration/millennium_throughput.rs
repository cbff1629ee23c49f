//! How fast the reply decoder reads a realistic stream. A measurement, not a check: run it
//! by hand in release mode with
//! `cargo test --release --test integration millennium_throughput -- --ignored --nocapture`.

use eboardd::protocol::millennium::{CableSide, Decoded, Decoder, Reply};
use shakmaty::{Board, Square};

#[test]
#[ignore = "a measurement, not a check: run in release mode by hand"]
fn decoder_throughput_on_status_frames_with_parity() {
    // A realistic stream: status frames of changing positions, every byte with parity, read
    // in 4 KiB pieces as from a port.
    let mut board = Board::new();
    let mut stream = Vec::new();
    let squares = Square::ALL;
    let mut k = 0usize;
    while stream.len() < 8 << 20 {
        let from = squares[(k * 7) % 64];
        let to = squares[(k * 13 + 5) % 64];
        if let Some(piece) = board.remove_piece_at(from) {
            board.set_piece_at(to, piece);
        }
        let side = if k.is_multiple_of(2) {
            CableSide::Right
        } else {
            CableSide::Left
        };
        Reply::status_of(&board, side).encode_into(&mut stream);
        k += 1;
    }
    let rounds = 12;
    let start = std::time::Instant::now();
    let mut frames = 0usize;
    for _ in 0..rounds {
        let mut decoder = Decoder::new();
        for chunk in stream.chunks(4096) {
            decoder.push_bytes(chunk);
            while let Some(d) = decoder.poll() {
                if let Decoded::Reply(Reply::Status(chars)) = d {
                    frames += usize::from(chars[0] != 0);
                }
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let bytes = (stream.len() * rounds) as f64;
    println!(
        "decoded {frames} status frames, {:.0} MB in {secs:.3} s: {:.0} MB/s",
        bytes / 1e6,
        bytes / 1e6 / secs
    );
}
