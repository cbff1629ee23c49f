//! Character-level rules of the ChessLink line: odd parity in bit 7, the XOR block checksum
//! and upper-case hex digits.
//!
//! Everything here works on single bytes or byte slices; it knows nothing about frames.

/// Sets bit 7 of a 7-bit character so that the byte has odd parity: the bit is set when the
/// low 7 bits hold an even number of ones. Bit 7 of the input is ignored.
///
/// ```
/// use eboardd_core::protocol::millennium::with_odd_parity;
/// assert_eq!(with_odd_parity(b'V'), 0xD6);
/// assert_eq!(with_odd_parity(b'v'), 0x76);
/// assert_eq!(with_odd_parity(0xD6), 0xD6);
/// ```
pub const fn with_odd_parity(c: u8) -> u8 {
    let c = c & 0x7F;
    if c.count_ones().is_multiple_of(2) {
        c | 0x80
    } else {
        c
    }
}

/// Clears bit 7: the 7-bit character a received byte carries, whether or not it came with a
/// parity bit.
pub const fn strip_parity(b: u8) -> u8 {
    b & 0x7F
}

/// The block checksum of a frame's characters: the XOR of their 7-bit values. The result is
/// always ≤ 0x7F.
///
/// ```
/// use eboardd_core::protocol::millennium::checksum;
/// assert_eq!(checksum(b"W0203"), 0x56);
/// ```
pub fn checksum(chars: &[u8]) -> u8 {
    chars.iter().fold(0, |acc, &c| acc ^ c) & 0x7F
}

/// The upper-case hex digits, by value.
pub(crate) const HEX_DIGITS: &[u8; 16] = b"0123456789ABCDEF";

/// The value of a hex digit (either case), or `None`. Bit 7 must already be clear.
pub(crate) const fn hex_value(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'A'..=b'F' => Some(c - b'A' + 10),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

/// The two upper-case hex digits of a byte, high nibble first.
pub(crate) const fn hex_pair(v: u8) -> [u8; 2] {
    [
        HEX_DIGITS[(v >> 4) as usize],
        HEX_DIGITS[(v & 0x0F) as usize],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parity_bit_is_set_exactly_when_the_low_bits_have_even_weight() {
        for c in 0u8..0x80 {
            let b = with_odd_parity(c);
            assert_eq!(b.count_ones() % 2, 1, "{c:#04x}");
            assert_eq!(strip_parity(b), c);
        }
    }

    #[test]
    fn parity_examples_from_the_fact_sheet() {
        assert_eq!(with_odd_parity(b'V'), 0xD6);
        assert_eq!(with_odd_parity(b'v'), 0x76);
        assert_eq!(with_odd_parity(b'0'), 0xB0);
        assert_eq!(with_odd_parity(b'1'), 0x31);
    }

    #[test]
    fn checksum_uses_only_the_low_seven_bits() {
        assert_eq!(checksum(b"V"), 0x56);
        assert_eq!(checksum(&[0xD6]), 0x56);
        assert_eq!(checksum(b"v0103"), 0x74);
        assert_eq!(checksum(b""), 0);
    }

    #[test]
    fn hex_digits_are_read_in_either_case_and_written_in_upper_case() {
        assert_eq!(hex_value(b'a'), Some(10));
        assert_eq!(hex_value(b'F'), Some(15));
        assert_eq!(hex_value(b'g'), None);
        assert_eq!(hex_value(b'.'), None);
        assert_eq!(hex_pair(0x5A), *b"5A");
        assert_eq!(hex_pair(0x0f), *b"0F");
    }
}
