//! Text from outside — a board, a file, a client — made fit for the daemon's edges.
//!
//! D-Bus strings may not hold NUL (a NUL in one signal breaks the whole connection), the
//! journal and terminals are thrown by control characters, and a serial number or a path
//! of megabytes has no place in a log line. Every string that comes from a board, a file
//! or a client passes through [`line()`] or [`lines`] (replaced) or [`check_line`]
//! (refused) before it reaches D-Bus, JSON, a PGN tag or the journal. This module knows
//! nothing of where the text goes; it only says what is fit.

use std::borrow::Cow;

/// The longest text a board may name itself with (serial number, version, trademark);
/// longer is cut.
pub const MAX_BOARD_TEXT: usize = 64;

/// The longest single-line string the daemon publishes (a FEN, a serial number, a device
/// path, one JSON event line); longer is cut.
pub const MAX_LINE: usize = 64 * 1024;

/// How much of a bad value an error message quotes.
pub const MAX_QUOTE: usize = 80;

/// Whether `c` may stand in a published line: anything but control characters (C0, DEL,
/// C1). Tabs and line breaks are control characters here.
pub fn is_printable(c: char) -> bool {
    !c.is_control()
}

/// Whether `text` is fit to publish as one line as it is: no control characters and at
/// most `max` bytes.
pub fn is_line(text: &str, max: usize) -> bool {
    text.len() <= max && text.chars().all(is_printable)
}

/// `text` as one printable line of at most `max` bytes: every control character is
/// written as an escape (`\x00`, `\x1b`, `\u{85}`), and a text longer than `max` is cut
/// at a character boundary and ends in `…`. Text that is fit already is borrowed.
///
/// ```
/// use eboardd_core::text::line;
/// assert_eq!(line("12345", 64), "12345");
/// assert_eq!(line("12\u{0}45", 64), "12\\x0045");
/// assert_eq!(line("abcdefgh", 6), "abc…");
/// ```
pub fn line(text: &str, max: usize) -> Cow<'_, str> {
    clean(text, max, false)
}

/// `text` as printable lines of at most `max` bytes in all, as [`line()`] makes them but
/// keeping line breaks (`\n`) and tabs: for PGN and other multi-line text.
pub fn lines(text: &str, max: usize) -> Cow<'_, str> {
    clean(text, max, true)
}

/// `text` quoted for an error message: [`line()`] of at most [`MAX_QUOTE`] bytes, so a
/// megabyte path gives a short message.
pub fn quote(text: &str) -> Cow<'_, str> {
    line(text, MAX_QUOTE)
}

/// Why a value was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    /// The value holds a control character (NUL, an escape, a line break).
    #[error("{what} holds a control character ({code}) at byte {at}: \"{quoted}\"")]
    Control {
        /// What the value is (`the device path`).
        what: &'static str,
        /// The character, escaped.
        code: String,
        /// Its byte offset.
        at: usize,
        /// The start of the value, made printable.
        quoted: String,
    },
    /// The value is too long.
    #[error("{what} is {len} bytes long, more than the {max} allowed: \"{quoted}\"")]
    TooLong {
        /// What the value is.
        what: &'static str,
        /// Its length in bytes.
        len: usize,
        /// The limit.
        max: usize,
        /// The start of the value, made printable.
        quoted: String,
    },
}

/// Refuses `text` unless it is one printable line of at most `max` bytes; the error
/// names `what` and quotes at most [`MAX_QUOTE`] bytes of it.
pub fn check_line(what: &'static str, text: &str, max: usize) -> Result<(), TextError> {
    if text.len() > max {
        return Err(TextError::TooLong {
            what,
            len: text.len(),
            max,
            quoted: quote(text).into_owned(),
        });
    }
    if let Some((at, c)) = text.char_indices().find(|(_, c)| !is_printable(*c)) {
        return Err(TextError::Control {
            what,
            code: escape(c),
            at,
            quoted: quote(text).into_owned(),
        });
    }
    Ok(())
}

/// Text a board sent (7-bit bytes, but any of them) as one printable line of at most
/// [`MAX_BOARD_TEXT`] bytes, trimmed of spaces and NULs at either end (boards pad with
/// them).
pub fn board_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let trimmed = text.trim_matches(|c: char| c == '\0' || c.is_whitespace());
    line(trimmed, MAX_BOARD_TEXT).into_owned()
}

fn escape(c: char) -> String {
    let code = u32::from(c);
    if code < 0x80 {
        format!("\\x{code:02x}")
    } else {
        format!("\\u{{{code:x}}}")
    }
}

fn clean(text: &str, max: usize, keep_breaks: bool) -> Cow<'_, str> {
    let fits = |c: char| is_printable(c) || (keep_breaks && matches!(c, '\n' | '\t'));
    if text.len() <= max && text.chars().all(fits) {
        return Cow::Borrowed(text);
    }
    const CUT: &str = "…";
    let room = max.saturating_sub(CUT.len());
    let mut out = String::with_capacity(text.len().min(max));
    let mut cut = false;
    for c in text.chars() {
        let piece = if fits(c) { c.to_string() } else { escape(c) };
        if out.len() + piece.len() > room {
            cut = true;
            break;
        }
        out.push_str(&piece);
    }
    if cut {
        // Everything up to `room` fitted; finish with the mark if it fits at all.
        if out.len() + CUT.len() <= max {
            out.push_str(CUT);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_text_is_borrowed_unchanged() {
        assert!(matches!(line("DGT 12345", 64), Cow::Borrowed("DGT 12345")));
        assert!(matches!(lines("1. e4 e5\n2. Nf3", 64), Cow::Borrowed(_)));
    }

    #[test]
    fn control_characters_are_escaped_never_passed_on() {
        assert_eq!(line("a\0b\x1b[2Jc\x7f", 64), "a\\x00b\\x1b[2Jc\\x7f");
        assert_eq!(line("a\nb", 64), "a\\x0ab");
        assert_eq!(lines("a\nb\0", 64), "a\nb\\x00");
        assert_eq!(line("\u{85}", 64), "\\u{85}");
    }

    #[test]
    fn long_text_is_cut_at_a_character_boundary_within_the_limit() {
        let long = "é".repeat(1000);
        let cut = line(&long, 101);
        assert!(cut.len() <= 101, "{}", cut.len());
        assert!(cut.ends_with('…'));
        let escapes = "\0".repeat(100);
        assert!(line(&escapes, 50).len() <= 50);
        assert!(line("abcdef", 2).len() <= 2);
    }

    #[test]
    fn board_text_is_trimmed_printable_and_short() {
        assert_eq!(board_text(b"  12345\0\0"), "12345");
        assert_eq!(board_text(b"12\x0045"), "12\\x0045");
        let long = board_text(&[b'7'; 1024]);
        assert!(long.len() <= MAX_BOARD_TEXT && long.starts_with("777"));
        assert_eq!(board_text(&[0xff, b'1']), "\u{fffd}1");
    }

    #[test]
    fn a_refused_value_is_named_and_quoted_briefly() {
        let huge = "/dev/".to_string() + &"x".repeat(30 << 20);
        let e = check_line("the device path", &huge, 4096).expect_err("too long");
        assert!(e.to_string().len() < 300, "{}", e.to_string().len());
        let e = check_line("the device path", "/dev/\0null", 4096).expect_err("NUL");
        assert_eq!(
            e.to_string(),
            "the device path holds a control character (\\x00) at byte 5: \"/dev/\\x00null\""
        );
        assert!(check_line("x", "/dev/ttyUSB0", 4096).is_ok());
    }
}
