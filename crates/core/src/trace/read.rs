//! Reading traces: every error names its line; nothing is guessed.

use std::io::{BufRead, Read};
use std::path::Path;

use super::{Chunk, Direction, Trace, TraceHeader};
use crate::game::start::{FenError, read_fen};
use crate::protocol::Protocol;
use crate::text;
use crate::time::Time;

/// Why a trace could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file could not be opened or read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// A line is not in the trace format.
    #[error("line {line}: {message}")]
    Malformed {
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// The header is incomplete.
    #[error("{0}")]
    Header(String),
}

fn malformed(line: usize, message: impl Into<String>) -> TraceError {
    TraceError::Malformed {
        line,
        message: message.into(),
    }
}

/// The longest line a trace may hold, in bytes (a data line of a 64 KiB read is 192 KiB).
pub const MAX_LINE_LEN: usize = 256 * 1024;

/// The largest trace file read, in bytes (a day of a board's traffic is a few megabytes).
pub const MAX_FILE_SIZE: u64 = 64 << 20;

/// The last time a trace can hold, in milliseconds (about 317 years): far enough for any
/// recording, near enough that timers counted from it never reach the end of [`Time`]
/// (a time near that end made a replay wait for ever on a timer that could not move on).
pub const MAX_TIME_MS: u64 = 10_000_000_000_000;

/// Reads and parses a trace file line by line: a line longer than [`MAX_LINE_LEN`] or a
/// file larger than [`MAX_FILE_SIZE`] is refused as soon as it is seen (`/dev/zero`
/// fails on its first line, having read 256 KiB).
pub fn read_trace_file(path: &Path) -> Result<Trace, TraceError> {
    let io_error = |source| TraceError::Io {
        path: path.display().to_string(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io_error)?;
    read_trace(std::io::BufReader::new(file)).map_err(|e| match e {
        TraceError::Io { source, .. } => io_error(source),
        other => other,
    })
}

/// Reads and parses a trace from `reader`, with the limits of [`read_trace_file`].
pub fn read_trace(mut reader: impl BufRead) -> Result<Trace, TraceError> {
    let mut parser = Parser::default();
    let mut buf = Vec::new();
    let mut total: u64 = 0;
    for line_no in 1.. {
        buf.clear();
        let read = (&mut reader)
            .take(MAX_LINE_LEN as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|source| TraceError::Io {
                path: String::new(),
                source,
            })?;
        if read == 0 {
            break;
        }
        total += read as u64;
        if total > MAX_FILE_SIZE {
            return Err(malformed(
                line_no,
                format!("the trace is larger than {MAX_FILE_SIZE} bytes"),
            ));
        }
        let content = buf.strip_suffix(b"\n").unwrap_or(&buf);
        if content.len() > MAX_LINE_LEN {
            return Err(malformed(
                line_no,
                format!("the line is longer than {MAX_LINE_LEN} bytes"),
            ));
        }
        let text =
            std::str::from_utf8(content).map_err(|_| malformed(line_no, "not UTF-8 text"))?;
        parser.line(line_no, text)?;
    }
    parser.finish()
}

/// Parses the text of a trace.
pub fn parse_trace(text: &str) -> Result<Trace, TraceError> {
    let mut parser = Parser::default();
    for (index, raw) in text.lines().enumerate() {
        parser.line(index + 1, raw)?;
    }
    parser.finish()
}

/// A trace read one line at a time.
struct Parser {
    version: Option<u32>,
    protocol: Option<Protocol>,
    header: TraceHeader,
    chunks: Vec<Chunk>,
    seen_data: bool,
    last_t: Time,
}

impl Default for Parser {
    fn default() -> Self {
        Parser {
            version: None,
            protocol: None,
            header: TraceHeader::new(Protocol::Dgt),
            chunks: Vec::new(),
            seen_data: false,
            last_t: Time::ZERO,
        }
    }
}

impl Parser {
    /// Takes in line `line_no` (1-based), without its line break.
    fn line(&mut self, line_no: usize, raw: &str) -> Result<(), TraceError> {
        let line = raw.trim();
        if line.is_empty() {
            return Ok(());
        }
        if let Some(comment) = line.strip_prefix('#') {
            if !self.seen_data {
                self.header_line(line_no, comment)?;
            }
            return Ok(());
        }
        if !self.seen_data {
            if self.version.is_none() {
                return Err(malformed(
                    line_no,
                    "data before the `# eboard-trace 1` header",
                ));
            }
            if self.protocol.is_none() {
                return Err(malformed(
                    line_no,
                    "data before the `# protocol:` header (dgt or millennium)",
                ));
            }
            self.seen_data = true;
        }
        let chunk = parse_data_line(line, line_no)?;
        if chunk.t < self.last_t {
            return Err(malformed(
                line_no,
                format!(
                    "time {} is earlier than the line before ({})",
                    chunk.t, self.last_t
                ),
            ));
        }
        self.last_t = chunk.t;
        self.chunks.push(chunk);
        Ok(())
    }

    fn header_line(&mut self, line_no: usize, comment: &str) -> Result<(), TraceError> {
        // The magic line is written `# eboard-trace 1` (the contract's own form) or
        // `# eboard-trace: 1`.
        let magic = comment.trim_start().strip_prefix("eboard-trace");
        let split = match magic {
            Some(rest) if rest.starts_with([' ', '\t', ':']) => {
                Some(("eboard-trace", rest.trim_start_matches([' ', '\t', ':'])))
            }
            _ => comment.split_once(':'),
        };
        let Some((key, value)) = split else {
            return Ok(());
        };
        let key = key.trim();
        let value = value.trim();
        if key.is_empty() || key.contains(char::is_whitespace) {
            return Ok(());
        }
        if self.version.is_none() && key != "eboard-trace" {
            return Err(malformed(
                line_no,
                format!(
                    "the first header must be `# eboard-trace 1`, found `{}`",
                    text::quote(key)
                ),
            ));
        }
        match key {
            "eboard-trace" => {
                if self.version.is_some() {
                    return Err(malformed(line_no, "`eboard-trace` given twice"));
                }
                let v: u32 = value.parse().map_err(|_| {
                    malformed(
                        line_no,
                        format!("trace version \"{}\" is not a number", text::quote(value)),
                    )
                })?;
                if v != 1 {
                    return Err(malformed(
                        line_no,
                        format!("trace version {v} is not supported (only 1)"),
                    ));
                }
                self.version = Some(v);
            }
            "protocol" => {
                let p: Protocol =
                    value
                        .parse()
                        .map_err(|_: crate::protocol::UnknownProtocol| {
                            malformed(
                                line_no,
                                format!(
                                    "unknown protocol \"{}\" (dgt or millennium)",
                                    text::quote(value)
                                ),
                            )
                        })?;
                self.protocol = Some(p);
            }
            "serial" => self.header.serial = Some(value.to_string()),
            "start-fen" => {
                check_start_fen(value, line_no)?;
                self.header.start_fen = Some(value.to_string());
            }
            "laws" => self.header.laws = Some(value.to_string()),
            _ => self.header.other.push((key.to_string(), value.to_string())),
        }
        Ok(())
    }

    fn finish(self) -> Result<Trace, TraceError> {
        let Some(version) = self.version else {
            return Err(TraceError::Header(
                "not a trace: no `# eboard-trace 1` header".to_string(),
            ));
        };
        let Some(protocol) = self.protocol else {
            return Err(TraceError::Header(
                "the trace has no `# protocol:` header".to_string(),
            ));
        };
        let mut header = self.header;
        header.version = version;
        header.protocol = protocol;
        Ok(Trace {
            header,
            chunks: self.chunks,
        })
    }
}

/// Refuses a `start-fen` (on line `line_no`) that is not the FEN of a legal position
/// (standard or Chess960 castling).
fn check_start_fen(value: &str, line_no: usize) -> Result<(), TraceError> {
    read_fen(value).map(|_| ()).map_err(|e| {
        let why = match e {
            FenError::Malformed { reason, .. } => format!(
                "start-fen \"{}\" is not a FEN ({reason})",
                text::quote(value)
            ),
            FenError::Illegal { .. } => format!(
                "start-fen \"{}\" is not a legal position",
                text::quote(value)
            ),
        };
        malformed(line_no, why)
    })
}

fn parse_data_line(line: &str, line_no: usize) -> Result<Chunk, TraceError> {
    let mut fields = line.split(' ').filter(|f| !f.is_empty());
    let time_text = fields
        .next()
        .ok_or_else(|| malformed(line_no, "empty data line"))?;
    let t = parse_time(time_text).ok_or_else(|| {
        malformed(
            line_no,
            format!(
                "\"{}\" is not a time in milliseconds",
                text::quote(time_text)
            ),
        )
    })?;
    if t > Time::from_millis(MAX_TIME_MS) {
        return Err(malformed(
            line_no,
            format!(
                "time {} ms is past the last time a trace can hold ({MAX_TIME_MS} ms)",
                text::quote(time_text)
            ),
        ));
    }
    let dir = match fields.next() {
        Some("<") => Direction::FromBoard,
        Some(">") => Direction::ToBoard,
        Some(other) => {
            return Err(malformed(
                line_no,
                format!(
                    "direction must be `<` or `>`, found \"{}\"",
                    text::quote(other)
                ),
            ));
        }
        None => return Err(malformed(line_no, "missing direction `<` or `>`")),
    };
    let mut bytes = Vec::new();
    for hex in fields {
        bytes.push(parse_hex_byte(hex).ok_or_else(|| {
            malformed(
                line_no,
                format!("\"{}\" is not a byte in hex", text::quote(hex)),
            )
        })?);
    }
    if bytes.is_empty() {
        return Err(malformed(line_no, "a data line needs at least one byte"));
    }
    Ok(Chunk { t, dir, bytes })
}

/// Milliseconds written as digits with an optional fraction, rounded to the nearest
/// microsecond; `None` for anything else, and for times past the last [`Time`] there is.
fn parse_time(text: &str) -> Option<Time> {
    let (whole, frac) = match text.split_once('.') {
        Some((whole, frac)) if !frac.is_empty() => (whole, frac),
        Some(_) => return None,
        None => (text, ""),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !(frac.is_empty() || digits(frac)) {
        return None;
    }
    let ms: u64 = whole.parse().ok()?;
    // The first three decimals are microseconds; the fourth rounds them.
    let mut micros = 0;
    for (i, b) in frac
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(4)
        .enumerate()
    {
        let d = u64::from(b - b'0');
        if i < 3 {
            micros = micros * 10 + d;
        } else if d >= 5 {
            micros += 1;
        }
    }
    ms.checked_mul(1000)?
        .checked_add(micros)
        .map(Time::from_micros)
}

fn parse_hex_byte(text: &str) -> Option<u8> {
    // Two hex digits exactly (`from_str_radix` alone would take "+f" too).
    if text.len() != 2 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u8::from_str_radix(text, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "# eboard-trace 1\n# protocol: dgt\n# serial: 9600 8N1\n# title: t\n\n0.0 > 42\n40.0 < 86 00\n40.5 < 43 08\n";

    #[test]
    fn reads_headers_and_chunks() {
        let t = parse_trace(SMALL).expect("valid");
        assert_eq!(t.header.protocol, Protocol::Dgt);
        assert_eq!(t.header.serial.as_deref(), Some("9600 8N1"));
        assert_eq!(t.header.other, vec![("title".to_string(), "t".to_string())]);
        assert_eq!(t.chunks.len(), 3);
        assert_eq!(t.chunks[1].bytes, vec![0x86, 0x00]);
        assert_eq!(t.chunks[2].t, Time::from_micros(40_500));
        assert_eq!(t.from_board().count(), 2);
    }

    #[test]
    fn magic_line_is_accepted_with_or_without_colon() {
        // The contract's own example writes `# eboard-trace 1`.
        let t = parse_trace("# eboard-trace 1\n# protocol: millennium\n1 < 76\n").expect("valid");
        assert_eq!(t.header.protocol, Protocol::Millennium);
        assert_eq!(t.header.version, 1);
    }

    #[test]
    fn other_versions_are_refused() {
        let e = parse_trace("# eboard-trace 2\n# protocol: dgt\n").unwrap_err();
        assert!(e.to_string().starts_with("line 1: trace version 2"), "{e}");
    }

    #[test]
    fn bad_hex_names_its_line() {
        let err = parse_trace("# eboard-trace: 1\n# protocol: dgt\n0 < 8g\n").unwrap_err();
        assert_eq!(err.to_string(), "line 3: \"8g\" is not a byte in hex");
    }

    #[test]
    fn decreasing_time_names_its_line() {
        let err = parse_trace("# eboard-trace: 1\n# protocol: dgt\n5 < 80\n4 < 80\n").unwrap_err();
        assert!(
            err.to_string().starts_with("line 4: time 4.0 is earlier"),
            "{err}"
        );
    }

    #[test]
    fn missing_protocol_is_an_error() {
        let err = parse_trace("# eboard-trace: 1\n0 < 80\n").unwrap_err();
        assert!(err.to_string().contains("protocol"), "{err}");
    }

    #[test]
    fn unknown_protocol_names_its_line() {
        let err = parse_trace("# eboard-trace: 1\n# protocol: novag\n").unwrap_err();
        assert!(err.to_string().starts_with("line 2:"), "{err}");
    }

    #[test]
    fn bad_direction_and_time_name_their_lines() {
        let e = parse_trace("# eboard-trace: 1\n# protocol: dgt\n1 = 80\n").unwrap_err();
        assert!(e.to_string().starts_with("line 3: direction"), "{e}");
        let e = parse_trace("# eboard-trace: 1\n# protocol: dgt\n-1 < 80\n").unwrap_err();
        assert!(e.to_string().starts_with("line 3:"), "{e}");
        let e = parse_trace("# eboard-trace: 1\n# protocol: dgt\n1 <\n").unwrap_err();
        assert!(e.to_string().starts_with("line 3:"), "{e}");
    }
}
