//! EE_MOVES (0x8f): the board's own event log, read from its EEPROM, as a list of records.
//!
//! The log is a ring buffer dumped from its oldest byte, so its first record may be cut and
//! any byte may be something no record starts with; such bytes are kept as
//! [`EeRecord::Unknown`], one each, so that encoding the records gives back exactly the bytes
//! that were read. This file parses and writes records; what they mean for a game is for
//! the layers above.

use nom::branch::alt;
use nom::combinator::{map_opt, verify};
use nom::multi::many0;
use nom::number::complete::u8 as byte;
use nom::{IResult, Parser};

use super::clock::{ClockSide, from_bcd, to_bcd};
use super::encode::{EncodeError, check_max};

/// The one-byte tags of the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EeTag {
    /// 0x6a EE_POWERUP: the board was switched on.
    PowerUp,
    /// 0x6b EE_EOF: the end of the log; every dump ends with it.
    Eof,
    /// 0x6c EE_FOURROWS: 16 pieces on the two edge rows of each side, but not the standard
    /// start position (Chess960).
    FourRows,
    /// 0x6d EE_EMPTYBOARD: the board became empty.
    EmptyBoard,
    /// 0x6e EE_DOWNLOADED: the log was downloaded here.
    Downloaded,
    /// 0x6f EE_BEGINPOS: the start position, White on the connector-left side.
    BeginPos,
    /// 0x7a EE_BEGINPOS_ROT: the start position rotated by 180°.
    BeginPosRotated,
    /// 0x7b EE_START_TAG: written by the bus command SET_START_GAME.
    StartTag,
    /// 0x7c EE_WATCHDOG_ACTION: the board reset itself.
    WatchdogAction,
    /// 0x7d: reserved.
    Reserved7d,
    /// 0x7e: reserved.
    Reserved7e,
    /// 0x7f EE_NOP: filler.
    Nop,
    /// 0x00 EE_NOP2: filler (since 2012).
    Nop2,
}

impl EeTag {
    /// The tag a byte stands for, if any.
    pub fn from_byte(byte: u8) -> Option<EeTag> {
        Some(match byte {
            0x6a => EeTag::PowerUp,
            0x6b => EeTag::Eof,
            0x6c => EeTag::FourRows,
            0x6d => EeTag::EmptyBoard,
            0x6e => EeTag::Downloaded,
            0x6f => EeTag::BeginPos,
            0x7a => EeTag::BeginPosRotated,
            0x7b => EeTag::StartTag,
            0x7c => EeTag::WatchdogAction,
            0x7d => EeTag::Reserved7d,
            0x7e => EeTag::Reserved7e,
            0x7f => EeTag::Nop,
            0x00 => EeTag::Nop2,
            _ => return None,
        })
    }

    /// The byte of this tag.
    pub fn byte(self) -> u8 {
        match self {
            EeTag::PowerUp => 0x6a,
            EeTag::Eof => 0x6b,
            EeTag::FourRows => 0x6c,
            EeTag::EmptyBoard => 0x6d,
            EeTag::Downloaded => 0x6e,
            EeTag::BeginPos => 0x6f,
            EeTag::BeginPosRotated => 0x7a,
            EeTag::StartTag => 0x7b,
            EeTag::WatchdogAction => 0x7c,
            EeTag::Reserved7d => 0x7d,
            EeTag::Reserved7e => 0x7e,
            EeTag::Nop => 0x7f,
            EeTag::Nop2 => 0x00,
        }
    }
}

/// One record of the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EeRecord {
    /// Two bytes, `010r pppp` then the field: a field changed to a piece code.
    Field {
        /// Field number 0–63 (board numbering, never rotated).
        field: u8,
        /// The new piece code 0x00–0x0f (0 = the piece was removed).
        code: u8,
        /// The r bit: less than about 250 ms since the previous field record.
        quick: bool,
    },
    /// Three bytes, `011f hhhh` then BCD minutes and seconds: the time of the side that just
    /// stopped, written when the lever moved.
    Clock {
        /// The physical display (the f bit: set for the left one).
        side: ClockSide,
        /// Hours 0–9.
        hours: u8,
        /// Minutes 0–59.
        minutes: u8,
        /// Seconds 0–59.
        seconds: u8,
    },
    /// One byte: a tag.
    Tag(EeTag),
    /// A byte that does not start a complete, valid record (0x01–0x3f, a record cut off by
    /// the end of the dump, or a record with an impossible field or time).
    Unknown(u8),
}

impl EeRecord {
    /// Appends this record's bytes.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        match *self {
            EeRecord::Field { field, code, quick } => {
                let code = check_max("EE field record piece code", code, 0x0f)?;
                let field = check_max("EE field record field", field, 63)?;
                out.extend_from_slice(&[0x40 | if quick { 0x10 } else { 0 } | code, field]);
            }
            EeRecord::Clock {
                side,
                hours,
                minutes,
                seconds,
            } => {
                let left = if side == ClockSide::Left { 0x10 } else { 0 };
                let hours = check_max("EE clock record hours", hours, 9)?;
                let minutes = to_bcd(check_max("EE clock record minutes", minutes, 59)?);
                let seconds = to_bcd(check_max("EE clock record seconds", seconds, 59)?);
                out.extend_from_slice(&[0x60 | left | hours, minutes, seconds]);
            }
            EeRecord::Tag(tag) => out.push(tag.byte()),
            EeRecord::Unknown(byte) => out.push(check_max("EE unknown byte", byte, 0x7f)?),
        }
        Ok(())
    }
}

type Res<'a, T> = IResult<&'a [u8], T>;

/// A field-change record: first byte 0x40–0x5f, then a field number 0–63.
fn field_record(input: &[u8]) -> Res<'_, EeRecord> {
    (
        verify(byte, |b| b & 0xe0 == 0x40),
        verify(byte, |b| *b < 64),
    )
        .map(|(head, field)| EeRecord::Field {
            field,
            code: head & 0x0f,
            quick: head & 0x10 != 0,
        })
        .parse(input)
}

/// A clock record: first byte 0x60–0x69 or 0x70–0x79, then BCD minutes and seconds.
fn clock_record(input: &[u8]) -> Res<'_, EeRecord> {
    let bcd59 = |input| map_opt(byte, |b| from_bcd(b).filter(|v| *v <= 59)).parse(input);
    (
        verify(byte, |b| b & 0xe0 == 0x60 && b & 0x0f <= 9),
        bcd59,
        bcd59,
    )
        .map(|(head, minutes, seconds)| EeRecord::Clock {
            side: if head & 0x10 != 0 {
                ClockSide::Left
            } else {
                ClockSide::Right
            },
            hours: head & 0x0f,
            minutes,
            seconds,
        })
        .parse(input)
}

/// A one-byte tag.
fn tag_record(input: &[u8]) -> Res<'_, EeRecord> {
    map_opt(byte, |b| EeTag::from_byte(b).map(EeRecord::Tag)).parse(input)
}

/// Any byte, as the fallback that keeps the parse going.
fn unknown_byte(input: &[u8]) -> Res<'_, EeRecord> {
    byte.map(EeRecord::Unknown).parse(input)
}

/// Parses the whole log. Never fails: bytes that start no valid record become
/// [`EeRecord::Unknown`].
pub(super) fn parse_records(data: &[u8]) -> Vec<EeRecord> {
    let mut records = many0(alt((field_record, clock_record, tag_record, unknown_byte)));
    match records.parse_complete(data) {
        Ok((_, records)) => records,
        // `unknown_byte` takes any byte, so only an empty input ends the loop; keep the
        // total function anyway.
        Err(_) => data.iter().copied().map(EeRecord::Unknown).collect(),
    }
}

/// Appends the bytes of a list of records.
pub(super) fn encode_records(records: &[EeRecord], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    records.iter().try_for_each(|record| record.encode(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_records_of_every_kind_are_read() {
        let data = [
            0x7f, 0x7f, 0x7f, 0x6a, // NOP ×3, power-up
            0x41, 0x3c, // white pawn on field 60, slow
            0x57, 0x08, // black pawn on field 8, quick
            0x71, 0x25, 0x09, // left clock 1:25:09
            0x60, 0x00, 0x59, // right clock 0:00:59
            0x00, 0x6b, // NOP2, EOF
        ];
        let records = parse_records(&data);
        assert_eq!(
            records,
            vec![
                EeRecord::Tag(EeTag::Nop),
                EeRecord::Tag(EeTag::Nop),
                EeRecord::Tag(EeTag::Nop),
                EeRecord::Tag(EeTag::PowerUp),
                EeRecord::Field {
                    field: 60,
                    code: 1,
                    quick: false
                },
                EeRecord::Field {
                    field: 8,
                    code: 7,
                    quick: true
                },
                EeRecord::Clock {
                    side: ClockSide::Left,
                    hours: 1,
                    minutes: 25,
                    seconds: 9
                },
                EeRecord::Clock {
                    side: ClockSide::Right,
                    hours: 0,
                    minutes: 0,
                    seconds: 59
                },
                EeRecord::Tag(EeTag::Nop2),
                EeRecord::Tag(EeTag::Eof),
            ]
        );
        let mut out = Vec::new();
        encode_records(&records, &mut out).expect("valid records encode");
        assert_eq!(out, data);
    }

    #[test]
    fn a_record_cut_by_the_ring_buffer_is_kept_byte_by_byte() {
        // The dump starts inside a clock record (its seconds byte), and ends cut too.
        let data = [0x12, 0x6b, 0x45];
        let records = parse_records(&data);
        assert_eq!(
            records,
            vec![
                EeRecord::Unknown(0x12),
                EeRecord::Tag(EeTag::Eof),
                EeRecord::Unknown(0x45)
            ]
        );
        let mut out = Vec::new();
        encode_records(&records, &mut out).expect("valid records encode");
        assert_eq!(out, data);
    }

    #[test]
    fn a_clock_record_with_a_bad_minute_is_not_a_record() {
        let records = parse_records(&[0x61, 0x6a, 0x00]);
        assert_eq!(
            records,
            vec![
                EeRecord::Unknown(0x61),
                EeRecord::Tag(EeTag::PowerUp),
                EeRecord::Tag(EeTag::Nop2)
            ]
        );
    }
}
