//! What a board reports, in words every board type shares.
//!
//! A [`Reader`] decodes the bytes a board sends with its protocol's decoder and hands back
//! [`Report`]s: the whole board or one square in the board's own numbering, a clock
//! reading, or a message that changes nothing on the board; each with what it tells of the
//! link and a line for people. [`Protocol::square`] maps the board's numbering to chess
//! squares. Code above this layer (sensing, the board core) reads any board type through
//! these and never asks which one it is.

use shakmaty::{Board, Piece, Square};

use super::link::{self, LinkInfo};
use super::{Protocol, dgt, millennium};

/// What one message from the board says of the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    /// Every square, by the board's index (0..64).
    Whole {
        /// What stands on each.
        pieces: Box<[Option<Piece>; 64]>,
        /// Whether the board otherwise reports square by square, so that this report checks
        /// those updates: when it differs from them, some did not come (a DGT board's dump;
        /// a Millennium board sends its whole board every scan).
        checks: bool,
    },
    /// One square changed.
    Square {
        /// The board's index of the square (0..64).
        index: usize,
        /// What stands there now.
        piece: Option<Piece>,
    },
    /// The clock's displays and state.
    Clock(dgt::ClockTimes),
    /// Nothing about the pieces or the clock (an answer, an acknowledgement).
    Other,
}

/// One decoded message from the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// What it says of the board.
    pub reading: Reading,
    /// What it tells of the link and the board (identity, a fault), if anything.
    pub link: Option<LinkInfo>,
    /// The message, for people (logs, `watch`).
    pub text: String,
}

/// What a [`Reader`] hands back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    /// A message.
    Report(Report),
    /// Bytes dropped to get back in step, and why.
    Skipped {
        /// How many bytes were dropped.
        bytes: usize,
        /// Why, for people.
        reason: String,
    },
}

/// The board-side decoder of one board type (sans-IO: bytes in, [`Decoded`] out).
#[derive(Debug)]
pub struct Reader(Inner);

#[derive(Debug)]
enum Inner {
    Dgt(dgt::Decoder),
    Millennium(millennium::Decoder),
}

impl Reader {
    /// A decoder for what a board speaking `protocol` sends.
    pub fn new(protocol: Protocol) -> Reader {
        Reader(match protocol {
            Protocol::Dgt => Inner::Dgt(dgt::Decoder::new()),
            Protocol::Millennium => Inner::Millennium(millennium::Decoder::new()),
        })
    }

    /// Drops the bytes of a message not yet complete (the link was cut).
    pub fn clear(&mut self) {
        match &mut self.0 {
            Inner::Dgt(d) => d.clear(),
            Inner::Millennium(d) => d.clear(),
        }
    }

    /// Adds bytes read from the board.
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        match &mut self.0 {
            Inner::Dgt(d) => d.push_bytes(bytes),
            Inner::Millennium(d) => d.push_bytes(bytes),
        }
    }

    /// The next complete message or skipped run, in order.
    pub fn poll(&mut self) -> Option<Decoded> {
        match &mut self.0 {
            Inner::Dgt(d) => d.poll().map(|decoded| match decoded {
                dgt::Decoded::Message(m) => Decoded::Report(from_dgt(m)),
                dgt::Decoded::Skipped { bytes, reason } => Decoded::Skipped { bytes, reason },
            }),
            Inner::Millennium(d) => d.poll().map(|decoded| match decoded {
                millennium::Decoded::Reply(r) => Decoded::Report(from_millennium(r)),
                millennium::Decoded::Skipped { bytes, reason } => {
                    Decoded::Skipped { bytes, reason }
                }
            }),
        }
    }
}

impl Protocol {
    /// The chess square of the board's index `index` (taken mod 64) when the board stands
    /// the protocol's usual way (`rotated` false: DGT field 0 = a8; Millennium with the cable
    /// on White's right, index 0 = h1) or turned 180°.
    pub fn square(self, index: usize, rotated: bool) -> Square {
        let index = (index & 63) as u8;
        match (self, rotated) {
            (Protocol::Dgt, false) => dgt::field_square(index),
            (Protocol::Dgt, true) => dgt::field_square(63 - index),
            (Protocol::Millennium, false) => {
                millennium::status_square(index, millennium::CableSide::Right)
            }
            (Protocol::Millennium, true) => {
                millennium::status_square(index, millennium::CableSide::Left)
            }
        }
    }
}

fn from_dgt(message: dgt::BoardMessage) -> Report {
    let text = describe_dgt(&message);
    let link = link::from_dgt(&message);
    let reading = match message {
        dgt::BoardMessage::BoardDump(codes) => Reading::Whole {
            pieces: Box::new(codes.map(dgt::piece_from_code)),
            checks: true,
        },
        dgt::BoardMessage::FieldUpdate { field, code } => Reading::Square {
            index: usize::from(field),
            piece: dgt::piece_from_code(code),
        },
        dgt::BoardMessage::ClockTimes(times) => Reading::Clock(times),
        _ => Reading::Other,
    };
    Report {
        reading,
        link,
        text,
    }
}

fn from_millennium(reply: millennium::Reply) -> Report {
    let text = describe_millennium(&reply);
    let link = link::from_millennium(&reply);
    let reading = match reply {
        millennium::Reply::Status(chars) => {
            let mut pieces = [None; 64];
            for (slot, &c) in pieces.iter_mut().zip(chars.iter()) {
                *slot = millennium::piece_from_char(c).flatten();
            }
            Reading::Whole {
                pieces: Box::new(pieces),
                checks: false,
            }
        }
        _ => Reading::Other,
    };
    Report {
        reading,
        link,
        text,
    }
}

fn describe_dgt(message: &dgt::BoardMessage) -> String {
    match message {
        dgt::BoardMessage::BoardDump(codes) => {
            let mut board = Board::empty();
            for (field, &code) in codes.iter().enumerate() {
                if let Some(p) = dgt::piece_from_code(code) {
                    board.set_piece_at(dgt::field_square(field as u8), p);
                }
            }
            format!("board_dump {board}")
        }
        dgt::BoardMessage::FieldUpdate { field, code } => {
            let what = dgt::piece_from_code(*code)
                .map(|p| p.char().to_string())
                .unwrap_or_else(|| {
                    if *code == 0 {
                        "empty".into()
                    } else {
                        format!("code {code:#04x}")
                    }
                });
            format!(
                "field_update {field} ({}) {what}",
                dgt::field_square(*field)
            )
        }
        dgt::BoardMessage::ClockTimes(t) => format!(
            "clock left {}:{:02}:{:02} right {}:{:02}:{:02} status {:#04x}",
            t.left.hours,
            t.left.minutes,
            t.left.seconds,
            t.right.hours,
            t.right.minutes,
            t.right.seconds,
            t.status
        ),
        dgt::BoardMessage::ClockAck(a) => format!(
            "clock_ack {:02x} {:02x} {:02x} {:02x}",
            a.bytes[0], a.bytes[1], a.bytes[2], a.bytes[3]
        ),
        other => format!("{other:?}"),
    }
}

fn describe_millennium(reply: &millennium::Reply) -> String {
    match reply {
        millennium::Reply::Status(chars) => {
            format!("status {}", String::from_utf8_lossy(&chars[..]))
        }
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_index_is_one_square_and_turning_the_board_turns_it() {
        for protocol in Protocol::ALL {
            let mut seen = std::collections::HashSet::new();
            for index in 0..64 {
                let normal = protocol.square(index, false);
                assert!(seen.insert(normal), "{protocol}: {normal} twice");
                assert_eq!(
                    protocol.square(index, true),
                    normal.flip_vertical().flip_horizontal(),
                    "{protocol} index {index}"
                );
            }
        }
    }

    #[test]
    fn a_dgt_dump_checks_field_updates_and_a_millennium_status_does_not() {
        let mut dgt = Reader::new(Protocol::Dgt);
        let mut bytes = Vec::new();
        dgt::BoardMessage::BoardDump(Box::new([0; 64]))
            .encode(&mut bytes)
            .expect("a dump encodes");
        dgt.push_bytes(&bytes);
        let mut millennium = Reader::new(Protocol::Millennium);
        millennium.push_bytes(
            &millennium::Reply::Status(Box::new([millennium::EMPTY_SQUARE_CHAR; 64])).encode(),
        );
        for (reader, checks) in [(&mut dgt, true), (&mut millennium, false)] {
            match reader.poll() {
                Some(Decoded::Report(Report {
                    reading: Reading::Whole { pieces, checks: c },
                    ..
                })) => {
                    assert_eq!(c, checks);
                    assert!(pieces.iter().all(Option::is_none));
                }
                other => panic!("expected a whole board, got {other:?}"),
            }
            assert_eq!(reader.poll(), None);
        }
    }

    #[test]
    fn a_field_update_is_one_square_in_the_boards_numbering() {
        let mut reader = Reader::new(Protocol::Dgt);
        let queen = shakmaty::Piece::from_char('Q').expect("a piece");
        let mut bytes = Vec::new();
        dgt::BoardMessage::FieldUpdate {
            field: 12,
            code: dgt::piece_code(queen),
        }
        .encode(&mut bytes)
        .expect("an update encodes");
        reader.push_bytes(&bytes);
        let Some(Decoded::Report(report)) = reader.poll() else {
            panic!("expected a report");
        };
        assert_eq!(
            report.reading,
            Reading::Square {
                index: 12,
                piece: Some(queen),
            }
        );
        assert!(
            report.text.starts_with("field_update 12"),
            "{}",
            report.text
        );
    }
}
