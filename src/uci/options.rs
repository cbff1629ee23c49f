//! The engine's options, as `uci` lists them and `setoption` sets them.

use std::time::Duration;

use crate::laws::{Edition, TouchMove};

/// The shortest settle window `SettleMs` accepts.
pub const SETTLE_MIN_MS: u64 = 20;
/// The longest settle window `SettleMs` accepts.
pub const SETTLE_MAX_MS: u64 = 5000;
/// The settle window by default (the tracker's).
pub const SETTLE_DEFAULT_MS: u64 = 250;

/// How the board's moves are read and judged: what the board's core is built with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// The edition of the FIDE Laws.
    pub laws: Edition,
    /// What is done about touch-move breaches.
    pub touch_move: TouchMove,
    /// How long the board must stay still before a placed piece counts as released.
    pub settle: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            laws: Edition::default(),
            touch_move: TouchMove::default(),
            settle: Duration::from_millis(SETTLE_DEFAULT_MS),
        }
    }
}

/// Every option of the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    /// `UCI_Chess960`: castling written king-takes-rook (`e1h1`).
    pub chess960: bool,
    /// `Laws`, `TouchMove`, `SettleMs`.
    pub settings: Settings,
}

/// What a `setoption` changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Changed {
    /// How castling is written.
    Notation,
    /// How the board is read: the board's core must be rebuilt with the new settings.
    Settings,
    /// Nothing (the value was already set).
    Nothing,
}

impl Options {
    /// The `option` lines of the answer to `uci`.
    pub fn uci_lines() -> Vec<String> {
        vec![
            "option name UCI_Chess960 type check default false".to_string(),
            format!(
                "option name Laws type combo default {} var fide-2023 var fide-2014 var fide-classic",
                Edition::default().name()
            ),
            format!(
                "option name TouchMove type combo default {} var report var enforce var off",
                TouchMove::default().name()
            ),
            format!(
                "option name SettleMs type spin default {SETTLE_DEFAULT_MS} min {SETTLE_MIN_MS} max {SETTLE_MAX_MS}"
            ),
        ]
    }

    /// Sets option `name` (any case) to `value`; `Err` says what was wrong and changes
    /// nothing.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Changed, String> {
        let value = value.map(str::trim);
        let need = |what: &str| format!("option {name} needs a value ({what})");
        let before = *self;
        match name.trim().to_ascii_lowercase().as_str() {
            "uci_chess960" => {
                self.chess960 = match value.map(str::to_ascii_lowercase).as_deref() {
                    Some("true") => true,
                    Some("false") => false,
                    Some(other) => {
                        return Err(format!("UCI_Chess960 is true or false, not {other:?}"));
                    }
                    None => return Err(need("true or false")),
                };
                return Ok(if before == *self {
                    Changed::Nothing
                } else {
                    Changed::Notation
                });
            }
            "laws" => {
                let v = value.ok_or_else(|| need("fide-2023, fide-2014 or fide-classic"))?;
                self.settings.laws = v
                    .to_ascii_lowercase()
                    .parse()
                    .map_err(|e: crate::laws::UnknownEdition| e.to_string())?;
            }
            "touchmove" => {
                let v = value.ok_or_else(|| need("report, enforce or off"))?;
                self.settings.touch_move = v
                    .to_ascii_lowercase()
                    .parse()
                    .map_err(|e: crate::laws::UnknownTouchMove| e.to_string())?;
            }
            "settlems" => {
                let v = value.ok_or_else(|| need("milliseconds"))?;
                let ms: u64 = v
                    .parse()
                    .map_err(|_| format!("SettleMs is a number of milliseconds, not {v:?}"))?;
                if !(SETTLE_MIN_MS..=SETTLE_MAX_MS).contains(&ms) {
                    return Err(format!(
                        "SettleMs must be from {SETTLE_MIN_MS} to {SETTLE_MAX_MS}, not {ms}"
                    ));
                }
                self.settings.settle = Duration::from_millis(ms);
            }
            _ => return Err(format!("there is no option named {:?}", name.trim())),
        }
        Ok(if before == *self {
            Changed::Nothing
        } else {
            Changed::Settings
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_names_are_read_without_case() {
        let mut o = Options::default();
        assert_eq!(o.set("uci_chess960", Some("true")), Ok(Changed::Notation));
        assert!(o.chess960);
        assert_eq!(o.set("UCI_Chess960", Some("true")), Ok(Changed::Nothing));
        assert_eq!(o.set("SETTLEMS", Some("400")), Ok(Changed::Settings));
        assert_eq!(o.settings.settle, Duration::from_millis(400));
        assert_eq!(o.set("TouchMove", Some("enforce")), Ok(Changed::Settings));
        assert_eq!(o.settings.touch_move, TouchMove::Enforce);
        assert_eq!(o.set("Laws", Some("fide-2014")), Ok(Changed::Settings));
        assert_eq!(o.settings.laws, Edition::Fide2014);
    }

    #[test]
    fn bad_values_and_unknown_options_change_nothing() {
        let mut o = Options::default();
        for (name, value) in [
            ("SettleMs", Some("5")),
            ("SettleMs", Some("soon")),
            ("SettleMs", None),
            ("Laws", Some("fide-1900")),
            ("TouchMove", Some("maybe")),
            ("UCI_Chess960", Some("yes")),
            ("Hash", Some("16")),
        ] {
            assert!(o.set(name, value).is_err(), "{name} {value:?}");
        }
        assert_eq!(o, Options::default());
    }

    #[test]
    fn every_option_is_listed_for_the_gui() {
        let lines = Options::uci_lines();
        for name in ["UCI_Chess960", "Laws", "TouchMove", "SettleMs"] {
            assert!(
                lines
                    .iter()
                    .any(|l| l.starts_with(&format!("option name {name} type"))),
                "{name}"
            );
        }
    }
}
