//! Golden vectors in both directions and the decoders' behaviour on damaged input.

mod board;
mod host;

/// Bytes from space-separated hex.
pub(super) fn hex(text: &str) -> Vec<u8> {
    text.split_whitespace()
        .map(|h| u8::from_str_radix(h, 16).expect("test hex"))
        .collect()
}
