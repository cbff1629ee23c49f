//! The Millennium ChessLink codec, both directions, fed arbitrary bytes in arbitrary
//! pieces.
//!
//! Input: two bytes that choose how the rest is cut into pieces, then the bytes of the
//! line (with or without parity). Checked for the board→host decoder the daemon reads
//! boards with, and for the host→board decoder the board emulator uses: decoding in one
//! piece and in many gives the same frames, the same number of dropped bytes and the same
//! bytes left waiting; every byte is a frame's, a dropped one or still waiting, also when
//! everything is pushed at once into a decoder with the smallest buffer; every frame
//! decoded encodes, with and without parity, to as many bytes as it came in and decodes
//! back to itself.

#![no_main]

use eboardd::protocol::millennium::{
    Command, CommandDecoder, Decoded, DecodedCommand, Decoder, MIN_BUFFER_LIMIT, Reply,
};
use eboardd_fuzz::{cut_points, split_seed};
use libfuzzer_sys::fuzz_target;

/// One direction's decoder, as the checks see it.
trait Direction {
    type Frame: Clone + PartialEq + std::fmt::Debug;
    fn new(limit: Option<usize>) -> Self;
    fn push(&mut self, bytes: &[u8]);
    /// A frame, or the bytes skipped.
    fn poll(&mut self) -> Option<Result<Self::Frame, usize>>;
    fn buffered(&self) -> usize;
    fn len(frame: &Self::Frame) -> usize;
    fn encodings(frame: &Self::Frame) -> [Vec<u8>; 2];
}

impl Direction for Decoder {
    type Frame = Reply;
    fn new(limit: Option<usize>) -> Self {
        limit.map_or_else(Decoder::new, Decoder::with_buffer_limit)
    }
    fn push(&mut self, bytes: &[u8]) {
        self.push_bytes(bytes);
    }
    fn poll(&mut self) -> Option<Result<Reply, usize>> {
        Decoder::poll(self).map(|d| match d {
            Decoded::Reply(r) => Ok(r),
            Decoded::Skipped { bytes, reason } => {
                assert!(!reason.is_empty());
                Err(bytes)
            }
        })
    }
    fn buffered(&self) -> usize {
        Decoder::buffered(self)
    }
    fn len(frame: &Reply) -> usize {
        frame.frame_len()
    }
    fn encodings(frame: &Reply) -> [Vec<u8>; 2] {
        [frame.encode(), frame.encode_ascii()]
    }
}

impl Direction for CommandDecoder {
    type Frame = Command;
    fn new(limit: Option<usize>) -> Self {
        limit.map_or_else(CommandDecoder::new, CommandDecoder::with_buffer_limit)
    }
    fn push(&mut self, bytes: &[u8]) {
        self.push_bytes(bytes);
    }
    fn poll(&mut self) -> Option<Result<Command, usize>> {
        CommandDecoder::poll(self).map(|d| match d {
            DecodedCommand::Command(c) => Ok(c),
            DecodedCommand::Skipped { bytes, reason } => {
                assert!(!reason.is_empty());
                Err(bytes)
            }
        })
    }
    fn buffered(&self) -> usize {
        CommandDecoder::buffered(self)
    }
    fn len(frame: &Command) -> usize {
        frame.frame_len()
    }
    fn encodings(frame: &Command) -> [Vec<u8>; 2] {
        [frame.encode(), frame.encode_ascii()]
    }
}

/// The frames decoded, the bytes dropped and the bytes left waiting.
fn decode<D: Direction>(
    bytes: &[u8],
    points: &[usize],
    limit: Option<usize>,
) -> (Vec<D::Frame>, usize, usize) {
    let mut decoder = D::new(limit);
    let mut frames = Vec::new();
    let mut skipped = 0;
    let mut from = 0;
    for &to in points {
        decoder.push(&bytes[from..to]);
        from = to;
        while let Some(step) = decoder.poll() {
            match step {
                Ok(frame) => frames.push(frame),
                Err(bytes) => {
                    assert!(bytes > 0, "a skip of no bytes");
                    skipped += bytes;
                }
            }
        }
    }
    (frames, skipped, decoder.buffered())
}

fn check<D: Direction>(bytes: &[u8], seed: u16) {
    let whole = [bytes.len()];
    let (frames, skipped, left) = decode::<D>(bytes, &whole, None);
    let (split, split_skipped, split_left) =
        decode::<D>(bytes, &cut_points(seed, bytes.len()), None);
    assert_eq!(frames, split, "pieces changed the frames");
    assert_eq!(skipped, split_skipped, "pieces changed the bytes dropped");
    assert_eq!(left, split_left, "pieces changed the bytes left waiting");

    let frame_bytes: usize = frames.iter().map(D::len).sum();
    assert_eq!(
        frame_bytes + skipped + left,
        bytes.len(),
        "bytes unaccounted for"
    );

    let (small, small_skipped, small_left) = decode::<D>(bytes, &whole, Some(MIN_BUFFER_LIMIT));
    let small_bytes: usize = small.iter().map(D::len).sum();
    assert_eq!(
        small_bytes + small_skipped + small_left,
        bytes.len(),
        "bytes unaccounted for with a small buffer"
    );
    assert!(small_left <= MIN_BUFFER_LIMIT);

    for frame in &frames {
        for encoded in D::encodings(frame) {
            assert_eq!(
                encoded.len(),
                D::len(frame),
                "{frame:?} encodes to another length"
            );
            let (back, back_skipped, back_left) = decode::<D>(&encoded, &[encoded.len()], None);
            assert_eq!(
                back,
                std::slice::from_ref(frame),
                "{frame:?} does not decode back"
            );
            assert_eq!((back_skipped, back_left), (0, 0));
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((seed, bytes)) = split_seed(data) else {
        return;
    };
    check::<Decoder>(bytes, seed);
    check::<CommandDecoder>(bytes, seed);
});
