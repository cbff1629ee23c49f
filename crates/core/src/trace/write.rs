//! Writing traces, line by line as bytes pass, so a crash loses at most the last line.

use std::io::{self, Write};

use super::{Chunk, Direction, TraceHeader};
use crate::time::Time;

/// Writes a trace to any [`Write`]: the header first, then one line per chunk.
#[derive(Debug)]
pub struct TraceWriter<W: Write> {
    out: W,
    last: Time,
}

impl<W: Write> TraceWriter<W> {
    /// Writes `header` and returns a writer for the data lines.
    pub fn new(mut out: W, header: &TraceHeader) -> io::Result<Self> {
        writeln!(out, "# eboard-trace {}", header.version)?;
        writeln!(out, "# protocol: {}", header.protocol)?;
        if let Some(serial) = &header.serial {
            writeln!(out, "# serial: {}", one_line(serial))?;
        }
        if let Some(fen) = &header.start_fen {
            writeln!(out, "# start-fen: {}", one_line(fen))?;
        }
        if let Some(laws) = &header.laws {
            writeln!(out, "# laws: {}", one_line(laws))?;
        }
        for (key, value) in &header.other {
            writeln!(
                out,
                "# {}: {}",
                key.replace([':', ' '], "-"),
                one_line(value)
            )?;
        }
        Ok(TraceWriter {
            out,
            last: Time::ZERO,
        })
    }

    /// Writes one chunk. Times that would go backwards are written as the previous time,
    /// so the trace stays valid; empty chunks are skipped.
    pub fn write(&mut self, t: Time, dir: Direction, bytes: &[u8]) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        let t = t.max(self.last);
        self.last = t;
        let mut line = String::with_capacity(16 + bytes.len() * 3);
        line.push_str(&t.to_string());
        line.push(' ');
        line.push(dir.marker());
        for b in bytes {
            line.push(' ');
            line.push(char::from(HEX[usize::from(b >> 4)]));
            line.push(char::from(HEX[usize::from(b & 0x0f)]));
        }
        line.push('\n');
        self.out.write_all(line.as_bytes())
    }

    /// Writes a chunk read from a trace.
    pub fn write_chunk(&mut self, chunk: &Chunk) -> io::Result<()> {
        self.write(chunk.t, chunk.dir, &chunk.bytes)
    }

    /// Flushes what was written.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.out
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Protocol;
    use crate::trace::parse_trace;

    #[test]
    fn written_trace_reads_back_the_same() {
        let mut header = TraceHeader::new(Protocol::Millennium);
        header.serial = Some("38400 7O1".into());
        header.start_fen = Some("8/8/8/8/8/8/8/K6k w - - 0 1".into());
        header.other.push(("title".into(), "two\nlines".into()));
        let mut w = TraceWriter::new(Vec::new(), &header).expect("write");
        w.write(
            Time::from_micros(0),
            Direction::ToBoard,
            &[0xd6, 0xb5, 0xb6],
        )
        .expect("write");
        w.write(
            Time::from_micros(30_500),
            Direction::FromBoard,
            &[0x76, 0x0a],
        )
        .expect("write");
        let text = String::from_utf8(w.into_inner()).expect("utf8");
        assert!(text.starts_with("# eboard-trace 1\n# protocol: millennium\n"));
        assert!(text.contains("30.5 < 76 0a\n"), "{text}");
        let back = parse_trace(&text).expect("parse");
        assert_eq!(back.header.start_fen, header.start_fen);
        assert_eq!(back.header.other[0].1, "two lines");
        assert_eq!(back.chunks.len(), 2);
        assert_eq!(back.chunks[1].bytes, vec![0x76, 0x0a]);
        assert_eq!(back.chunks[1].t, Time::from_micros(30_500));
    }
}
