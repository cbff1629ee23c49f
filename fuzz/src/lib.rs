//! Helpers shared by eboardd's fuzz targets: how an input is cut into the pieces a port
//! might deliver.

/// Cuts `len` bytes into pieces of 1 to 64 bytes, their sizes drawn from `seed`: the ends
/// of the pieces, in order, the last one `len`. The same seed always cuts the same way.
pub fn cut_points(seed: u16, len: usize) -> Vec<usize> {
    // xorshift32; a zero state would stay zero.
    let mut state = u32::from(seed) | 0x1_0000;
    let mut points = Vec::new();
    let mut at = 0;
    while at < len {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        at = (at + 1 + (state % 64) as usize).min(len);
        points.push(at);
    }
    points
}

/// The first two bytes of `data` as a seed for [`cut_points`], and the rest.
pub fn split_seed(data: &[u8]) -> Option<(u16, &[u8])> {
    let (seed, rest) = data.split_first_chunk::<2>()?;
    Some((u16::from_le_bytes(*seed), rest))
}
