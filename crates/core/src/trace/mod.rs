//! The trace format, version 1: recordings of the bytes between a host and one board.
//!
//! A trace is plain text (`protocols/trace.md`): `#` header lines, then one data line per
//! read or write, `TIME DIR HEX...`. This module reads and writes that text. It knows
//! nothing of what the bytes mean, of ports, or of games.

mod read;
mod write;

pub use read::{
    MAX_FILE_SIZE, MAX_LINE_LEN, MAX_TIME_MS, TraceError, parse_trace, read_trace, read_trace_file,
};
pub use write::TraceWriter;

use crate::protocol::Protocol;
use crate::time::Time;

/// Which way a chunk of bytes went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Read by the host from the board (`<`).
    FromBoard,
    /// Written by the host to the board (`>`).
    ToBoard,
}

impl Direction {
    /// The marker used in traces.
    pub fn marker(self) -> char {
        match self {
            Direction::FromBoard => '<',
            Direction::ToBoard => '>',
        }
    }
}

/// One read or one write, as the operating system delivered it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// Time since the start of the recording.
    pub t: Time,
    /// Which way the bytes went.
    pub dir: Direction,
    /// The bytes exactly as read or written.
    pub bytes: Vec<u8>,
}

/// The header of a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceHeader {
    /// Format version (always 1 for now).
    pub version: u32,
    /// The board protocol.
    pub protocol: Protocol,
    /// Line settings as written (`9600 8N1`), informational.
    pub serial: Option<String>,
    /// The FEN the game on the board starts from, when given.
    pub start_fen: Option<String>,
    /// The edition of the Laws the arbiter applies, when given.
    pub laws: Option<String>,
    /// Every other `key: value` header, in order.
    pub other: Vec<(String, String)>,
}

impl TraceHeader {
    /// A version-1 header for `protocol` with nothing else set.
    pub fn new(protocol: Protocol) -> Self {
        TraceHeader {
            version: 1,
            protocol,
            serial: None,
            start_fen: None,
            laws: None,
            other: Vec::new(),
        }
    }
}

/// A whole trace: its header and its chunks in time order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    /// The header.
    pub header: TraceHeader,
    /// Every data line, in order.
    pub chunks: Vec<Chunk>,
}

impl Trace {
    /// The chunks read from the board, in order.
    pub fn from_board(&self) -> impl Iterator<Item = &Chunk> {
        self.chunks.iter().filter(|c| c.dir == Direction::FromBoard)
    }
}
