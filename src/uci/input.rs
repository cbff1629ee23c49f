//! The GUI's lines, read with a bound: a line longer than [`MAX_LINE`] is skipped as it
//! arrives, never held whole, so a GUI (or anything else on standard input) that sends
//! megabytes without a line break costs no memory.
//!
//! This module only reads lines; it knows nothing of what they mean.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// The longest line read from the GUI, in bytes (a `position ... moves` line of a
/// 500-ply game is under 3 KB).
pub const MAX_LINE: usize = 64 * 1024;

/// One line from the GUI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputLine {
    /// A line, without its line break.
    Text(String),
    /// A line that was not UTF-8.
    NotUtf8,
    /// A line longer than the limit, skipped; its length in bytes.
    TooLong(usize),
}

/// Lines of `reader`, each at most `max` bytes held at once.
#[derive(Debug)]
pub struct BoundedLines<R> {
    reader: R,
    max: usize,
    buf: Vec<u8>,
    /// The length so far of a line being skipped.
    skipping: Option<usize>,
}

impl<R: AsyncBufRead + Unpin> BoundedLines<R> {
    /// Lines of `reader`, each at most `max` bytes.
    pub fn new(reader: R, max: usize) -> Self {
        BoundedLines {
            reader,
            max,
            buf: Vec::new(),
            skipping: None,
        }
    }

    /// The next line; `None` at the end of the input. Cancel-safe: what was read stays in
    /// `self` until the line is complete.
    pub async fn next_line(&mut self) -> std::io::Result<Option<InputLine>> {
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                if let Some(len) = self.skipping.take() {
                    return Ok(Some(InputLine::TooLong(len)));
                }
                if self.buf.is_empty() {
                    return Ok(None);
                }
                return Ok(Some(self.finish()));
            }
            let (used, done) = match available.iter().position(|&b| b == b'\n') {
                Some(at) => (at + 1, true),
                None => (available.len(), false),
            };
            let piece = &available[..if done { used - 1 } else { used }];
            match &mut self.skipping {
                Some(len) => *len += piece.len(),
                None if self.buf.len() + piece.len() > self.max => {
                    self.skipping = Some(self.buf.len() + piece.len());
                    self.buf = Vec::new();
                }
                None => self.buf.extend_from_slice(piece),
            }
            self.reader.consume(used);
            if done {
                if let Some(len) = self.skipping.take() {
                    return Ok(Some(InputLine::TooLong(len)));
                }
                return Ok(Some(self.finish()));
            }
        }
    }

    fn finish(&mut self) -> InputLine {
        let mut bytes = std::mem::take(&mut self.buf);
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
        match String::from_utf8(bytes) {
            Ok(text) => InputLine::Text(text),
            Err(_) => InputLine::NotUtf8,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn all(input: &[u8], max: usize) -> Vec<InputLine> {
        let mut lines = BoundedLines::new(input, max);
        let mut out = Vec::new();
        while let Some(line) = lines.next_line().await.expect("read") {
            out.push(line);
        }
        out
    }

    #[tokio::test]
    async fn lines_come_without_their_breaks() {
        assert_eq!(
            all(b"uci\r\nisready\nquit", 100).await,
            [
                InputLine::Text("uci".into()),
                InputLine::Text("isready".into()),
                InputLine::Text("quit".into())
            ]
        );
    }

    #[tokio::test]
    async fn a_long_line_is_skipped_and_the_next_one_read() {
        let mut input = vec![b'x'; 10_000];
        input.extend_from_slice(b"\nisready\n\xff\n");
        assert_eq!(
            all(&input, 100).await,
            [
                InputLine::TooLong(10_000),
                InputLine::Text("isready".into()),
                InputLine::NotUtf8
            ]
        );
        assert_eq!(all(&[b'y'; 300], 100).await, [InputLine::TooLong(300)]);
    }
}
