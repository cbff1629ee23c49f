//! The byte buffer behind both stream decoders: bytes pushed but not yet decoded, with a
//! start offset so consuming a message costs nothing, compacted rarely, and capped.
//!
//! It knows nothing of the protocol; the decoders decide how many bytes to consume.

/// Capacity kept after a burst empties the buffer.
const SHRINK_ABOVE: usize = 64 * 1024;

/// Bytes pushed and not yet consumed, at most `cap` of them.
#[derive(Debug, Default)]
pub(super) struct StreamBuffer {
    /// Bytes pushed; those before `start` are consumed.
    buf: Vec<u8>,
    /// The first unconsumed byte.
    start: usize,
    /// Bytes dropped because the cap was hit, not yet reported.
    overflow: usize,
}

impl StreamBuffer {
    /// Appends bytes. If more than `cap` would then be pending, the oldest are dropped and
    /// counted for [`take_overflow`](Self::take_overflow). Returns whether any pending byte
    /// was dropped (so a decoder can forget what it knew about them).
    pub(super) fn push(&mut self, bytes: &[u8], cap: usize) -> bool {
        let pending = self.pending().len();
        let mut bytes = bytes;
        let mut dropped_pending = false;
        if pending + bytes.len() > cap {
            let excess = pending + bytes.len() - cap;
            let from_buffer = excess.min(pending);
            self.start += from_buffer;
            bytes = &bytes[excess - from_buffer..];
            self.overflow += excess;
            dropped_pending = from_buffer > 0;
        }
        self.compact();
        self.buf.extend_from_slice(bytes);
        dropped_pending
    }

    /// The bytes not yet consumed.
    pub(super) fn pending(&self) -> &[u8] {
        &self.buf[self.start..]
    }

    /// Marks `n` pending bytes as consumed (never more than are pending).
    pub(super) fn consume(&mut self, n: usize) {
        self.start = (self.start + n).min(self.buf.len());
    }

    /// How many bytes the cap dropped since the last call.
    pub(super) fn take_overflow(&mut self) -> usize {
        std::mem::take(&mut self.overflow)
    }

    /// Moves the pending bytes to the front when that costs no more than what was consumed
    /// before them, so the buffer stays short without copying on every message.
    fn compact(&mut self) {
        if self.start == 0 {
            return;
        }
        let pending = self.buf.len() - self.start;
        if pending == 0 {
            self.buf.clear();
            self.start = 0;
            if self.buf.capacity() > SHRINK_ABOVE {
                self.buf.shrink_to(SHRINK_ABOVE);
            }
        } else if pending <= self.start {
            self.buf.copy_within(self.start.., 0);
            self.buf.truncate(pending);
            self.start = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_drops_the_oldest_bytes_and_counts_them() {
        let mut b = StreamBuffer::default();
        b.push(&[1, 2, 3], 4);
        assert!(b.push(&[4, 5], 4));
        assert_eq!(b.pending(), [2, 3, 4, 5]);
        assert_eq!(b.take_overflow(), 1);
        assert!(b.push(&[6, 7, 8, 9, 10, 11], 4));
        assert_eq!(b.pending(), [8, 9, 10, 11]);
        assert_eq!(b.take_overflow(), 6);
    }

    #[test]
    fn consumed_bytes_are_reclaimed() {
        let mut b = StreamBuffer::default();
        b.push(&[1, 2, 3, 4], 100);
        b.consume(3);
        b.push(&[5], 100);
        assert_eq!(b.pending(), [4, 5]);
        b.consume(10);
        assert!(b.pending().is_empty());
    }
}
