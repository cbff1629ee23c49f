//! The daemon's configuration: a TOML file, then the command line on top.
//!
//! The file (`/etc/eboardd/config.toml` for the system service, or `--config FILE`) names
//! the boards and how each is read: device, protocol (`auto` probes), orientation, player
//! names and settle window, plus daemon-wide defaults (state directory, edition of the
//! Laws, touch-move mode). Unknown keys are rejected and every error names the line, so a
//! typo never silently changes how a game is judged. This module only reads settings; it
//! knows nothing of ports, tasks or D-Bus.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use serde::Deserialize;

use crate::event::Orientation;
use crate::laws::{Edition, TouchMove};
use crate::protocol::Protocol;
use crate::text;
use crate::tracker::SlideRests;

/// Where the system service reads its configuration.
pub const SYSTEM_CONFIG: &str = "/etc/eboardd/config.toml";

/// The settle window when none is configured: the tracker's.
pub const DEFAULT_SETTLE: Duration = crate::tracker::DEFAULT_SETTLE;

/// The longest settle window accepted.
pub const MAX_SETTLE: Duration = Duration::from_secs(10);

/// The largest configuration file read (a file of many boards is a few kilobytes).
pub const MAX_CONFIG_SIZE: u64 = 1 << 20;

/// The longest device path accepted (Linux's `PATH_MAX`).
pub const MAX_DEVICE_PATH: usize = 4096;

/// The longest player name accepted.
pub const MAX_NAME: usize = 255;

/// Refuses a device path that holds a control character (a NUL included) or is longer
/// than [`MAX_DEVICE_PATH`]; the message quotes only the start of it.
pub fn check_device_path(path: &Path) -> Result<(), text::TextError> {
    text::check_line("the device path", &path.to_string_lossy(), MAX_DEVICE_PATH)
}

/// The text of the file at `path`, refused past [`MAX_CONFIG_SIZE`] bytes without reading
/// further (`/dev/zero` is refused at once).
fn read_bounded(path: &Path) -> Result<String, ConfigError> {
    use std::io::Read;
    let read_error = |source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(read_error)?;
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_SIZE + 1)
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    if bytes.len() as u64 > MAX_CONFIG_SIZE {
        return Err(ConfigError::Invalid {
            origin: path.display().to_string(),
            message: format!(
                "the file is larger than {MAX_CONFIG_SIZE} bytes; a configuration is a few kilobytes"
            ),
        });
    }
    String::from_utf8(bytes).map_err(|e| ConfigError::Invalid {
        origin: path.display().to_string(),
        message: format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
    })
}

/// Why the configuration could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not valid (the message names the line and column).
    #[error("{origin}: {message}")]
    Invalid {
        /// The file (or `<string>`).
        origin: String,
        /// What is wrong and where, as the TOML reader says it.
        message: String,
    },
}

/// The whole configuration file.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Daemon-wide settings (`[daemon]`).
    #[serde(default)]
    pub daemon: DaemonSettings,
    /// The HTTP listeners' limits and browser origins (`[web]`).
    #[serde(default)]
    pub web: WebSettings,
    /// The boards (`[[board]]`, any number).
    #[serde(default, rename = "board")]
    pub boards: Vec<BoardConfig>,
    /// Publishing to an MQTT broker (`[mqtt]`).
    #[serde(default)]
    pub mqtt: crate::mqtt::MqttSettings,
}

/// Daemon-wide settings; each may be overridden on the command line.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct DaemonSettings {
    /// Where journals and finished games are kept.
    pub state_dir: Option<PathBuf>,
    /// The edition of the FIDE Laws the arbiter applies.
    pub laws: Option<Edition>,
    /// What to do about touch-move breaches.
    pub touch_move: Option<TouchMove>,
    /// Write every board's traffic as traces into this directory.
    pub record_dir: Option<PathBuf>,
}

/// Settings of the HTTP listeners (`--relay-listen`, `--livechess-listen`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct WebSettings {
    /// The most connections open at once over both listeners (default: 1,024, or fewer
    /// when the descriptor limit is low).
    pub max_connections: Option<usize>,
    /// Browser origins (`https://host[:port]`) allowed to use the LiveChess WebSocket,
    /// besides loopback pages and `https://lichess.org`.
    #[serde(default)]
    pub allowed_origins: Vec<String>,
}

/// Whether `text` is a web origin: `http://` or `https://`, a host, perhaps a port, no
/// path.
fn is_origin(text: &str) -> bool {
    let rest = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"));
    let rest = rest.map(|r| r.strip_suffix('/').unwrap_or(r));
    rest.is_some_and(|host| {
        !host.is_empty()
            && host.len() <= 253 + 7
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-.:[]".contains(c))
    })
}

/// One board as configured.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct BoardConfig {
    /// The serial device (`/dev/serial/by-id/…`, `/dev/ttyUSB0`, `/dev/rfcomm0`).
    pub device: PathBuf,
    /// The protocol, or `auto` to probe.
    #[serde(default)]
    pub protocol: ProtocolChoice,
    /// Which way round the board stands, or `auto` to tell from the start position.
    #[serde(default)]
    pub orientation: OrientationChoice,
    /// White's name, for PGN.
    pub white: Option<String>,
    /// Black's name, for PGN.
    pub black: Option<String>,
    /// How long a placed piece must rest before the move counts as released.
    #[serde(default, rename = "settle-ms")]
    pub settle: Settle,
    /// Whose slid pieces wait, in case they rest on their way, before their move counts as
    /// released: `learned` (a player's once seen resting), `always` or `never`.
    #[serde(default, rename = "slide-rests")]
    pub slide_rests: SlideRests,
}

impl BoardConfig {
    /// A board on `device` with every other setting at its default.
    pub fn for_device(device: impl Into<PathBuf>) -> Self {
        BoardConfig {
            device: device.into(),
            protocol: ProtocolChoice::Auto,
            orientation: OrientationChoice::Auto,
            white: None,
            black: None,
            settle: Settle::default(),
            slide_rests: SlideRests::default(),
        }
    }
}

impl Config {
    /// Parses configuration text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Config, ConfigError> {
        let config: Config = toml::from_str(text).map_err(|e| ConfigError::Invalid {
            origin: origin.to_string(),
            message: e.to_string().trim_end().to_string(),
        })?;
        config.check(origin)?;
        Ok(config)
    }

    /// Reads the file at `path` (at most [`MAX_CONFIG_SIZE`] bytes).
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = read_bounded(path)?;
        Config::parse(&text, &path.display().to_string())
    }

    /// Reads the file at `path` if it exists; a missing file is an empty configuration.
    pub fn load_if_present(path: &Path) -> Result<Config, ConfigError> {
        match read_bounded(path) {
            Ok(text) => Config::parse(&text, &path.display().to_string()),
            Err(ConfigError::Read { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                Ok(Config::default())
            }
            Err(e) => Err(e),
        }
    }

    /// Checks what serde cannot: each device named once, device paths and player names
    /// of printable text and sensible length (a NUL in a path or a name would reach D-Bus,
    /// PGN and the journal).
    pub fn check(&self, origin: &str) -> Result<(), ConfigError> {
        let invalid = |message: String| ConfigError::Invalid {
            origin: origin.to_string(),
            message,
        };
        for (i, a) in self.boards.iter().enumerate() {
            check_device_path(&a.device).map_err(|e| invalid(format!("board {}: {e}", i + 1)))?;
            for name in [&a.white, &a.black].into_iter().flatten() {
                text::check_line("a player's name", name, MAX_NAME)
                    .map_err(|e| invalid(format!("board {}: {e}", i + 1)))?;
            }
            if self.boards[..i].iter().any(|b| b.device == a.device) {
                return Err(invalid(format!(
                    "board {} names device {} again; each device may be configured once",
                    i + 1,
                    text::quote(&a.device.to_string_lossy())
                )));
            }
        }
        for o in &self.web.allowed_origins {
            if !is_origin(o) {
                return Err(invalid(format!(
                    "[web] allowed-origins: {} is not an origin; write \
                     scheme://host[:port] with http or https and no path",
                    text::quote(o)
                )));
            }
        }
        Ok(())
    }

    /// Adds a board for each of `devices` that the file does not already configure.
    pub fn add_devices(&mut self, devices: &[PathBuf]) {
        for device in devices {
            if !self.boards.iter().any(|b| &b.device == device) {
                self.boards.push(BoardConfig::for_device(device.clone()));
            }
        }
    }
}

/// A protocol, or `auto` to probe for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProtocolChoice {
    /// Probe: DGT first, then Millennium.
    #[default]
    Auto,
    /// Always this protocol.
    Fixed(Protocol),
}

impl FromStr for ProtocolChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.trim().eq_ignore_ascii_case("auto") {
            return Ok(ProtocolChoice::Auto);
        }
        s.parse::<Protocol>()
            .map(ProtocolChoice::Fixed)
            .map_err(|_| {
                let names: Vec<&str> = Protocol::ALL.iter().map(|p| p.as_str()).collect();
                format!(
                    "unknown protocol {s:?} (expected auto or {})",
                    names.join(" or ")
                )
            })
    }
}

impl fmt::Display for ProtocolChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtocolChoice::Auto => f.write_str("auto"),
            ProtocolChoice::Fixed(p) => p.fmt(f),
        }
    }
}

/// Which way round a board stands, or `auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OrientationChoice {
    /// Tell from the start position.
    #[default]
    Auto,
    /// Always this way round.
    Fixed(Orientation),
}

impl OrientationChoice {
    /// The fixed orientation, if any.
    pub fn fixed(self) -> Option<Orientation> {
        match self {
            OrientationChoice::Auto => None,
            OrientationChoice::Fixed(o) => Some(o),
        }
    }
}

impl FromStr for OrientationChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(OrientationChoice::Auto),
            "normal" => Ok(OrientationChoice::Fixed(Orientation::Normal)),
            "rotated" => Ok(OrientationChoice::Fixed(Orientation::Rotated)),
            _ => Err(format!(
                "unknown orientation {s:?} (expected auto, normal or rotated)"
            )),
        }
    }
}

/// The settle window, configured in milliseconds (`settle-ms`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settle(pub Duration);

impl Default for Settle {
    fn default() -> Self {
        Settle(DEFAULT_SETTLE)
    }
}

impl TryFrom<i64> for Settle {
    type Error = String;
    fn try_from(ms: i64) -> Result<Self, Self::Error> {
        let max = MAX_SETTLE.as_millis() as i64;
        if (1..=max).contains(&ms) {
            Ok(Settle(Duration::from_millis(ms as u64)))
        } else {
            Err(format!(
                "settle-ms must be between 1 and {max} milliseconds, not {ms}"
            ))
        }
    }
}

eboardd_core::deserialize_from_str!(ProtocolChoice, OrientationChoice);

impl<'de> Deserialize<'de> for Settle {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let ms = i64::deserialize(d)?;
        Settle::try_from(ms).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_file_reads_into_boards_and_defaults() {
        let text = r#"
[daemon]
state-dir = "/var/lib/eboardd"
laws = "fide-2014"
touch-move = "enforce"

[[board]]
device = "/dev/ttyUSB0"
protocol = "dgt"
orientation = "rotated"
white = "Anna"
black = "Boris"
settle-ms = 250
slide-rests = "always"

[[board]]
device = "/dev/rfcomm0"
"#;
        let c = Config::parse(text, "test.toml").expect("valid");
        assert_eq!(c.daemon.laws, Some(Edition::Fide2014));
        assert_eq!(c.daemon.touch_move, Some(TouchMove::Enforce));
        assert_eq!(c.boards.len(), 2);
        assert_eq!(c.boards[0].protocol, ProtocolChoice::Fixed(Protocol::Dgt));
        assert_eq!(
            c.boards[0].orientation,
            OrientationChoice::Fixed(Orientation::Rotated)
        );
        assert_eq!(c.boards[0].white.as_deref(), Some("Anna"));
        assert_eq!(c.boards[0].settle, Settle(Duration::from_millis(250)));
        assert_eq!(c.boards[1].protocol, ProtocolChoice::Auto);
        assert_eq!(c.boards[1].settle, Settle(DEFAULT_SETTLE));
        assert_eq!(c.boards[0].slide_rests, SlideRests::Always);
        assert_eq!(c.boards[1].slide_rests, SlideRests::Learned);
    }

    #[test]
    fn an_unknown_slide_rests_value_is_rejected_naming_the_choices() {
        let text = "[[board]]\ndevice = \"/dev/ttyUSB0\"\nslide-rests = \"sometimes\"\n";
        let msg = Config::parse(text, "x.toml")
            .expect_err("bad value")
            .to_string();
        assert!(msg.contains("sometimes"), "{msg}");
        assert!(msg.contains("never, learned or always"), "{msg}");
    }

    #[test]
    fn unknown_key_is_rejected_with_its_line() {
        let text = "[[board]]\ndevice = \"/dev/ttyUSB0\"\nsettle = 300\n";
        let err = Config::parse(text, "x.toml").expect_err("unknown key");
        let msg = err.to_string();
        assert!(msg.contains("x.toml"), "{msg}");
        assert!(msg.contains("line 3"), "{msg}");
        assert!(msg.contains("settle"), "{msg}");
    }

    #[test]
    fn bad_values_are_rejected_with_their_line() {
        for (text, line, word) in [
            (
                "[[board]]\ndevice = \"/d\"\nprotocol = \"dtg\"\n",
                "line 3",
                "dtg",
            ),
            (
                "[[board]]\ndevice = \"/d\"\n\nsettle-ms = 0\n",
                "line 4",
                "settle-ms",
            ),
            ("[daemon]\nlaws = \"fide-2020\"\n", "line 2", "fide-2020"),
            ("[daemon]\ntouch-move = \"strict\"\n", "line 2", "strict"),
            (
                "[[board]]\norientation = \"left\"\ndevice = \"/d\"\n",
                "line 2",
                "left",
            ),
        ] {
            let msg = Config::parse(text, "c.toml").expect_err(text).to_string();
            assert!(msg.contains(line), "{text}: {msg}");
            assert!(msg.contains(word), "{text}: {msg}");
        }
    }

    #[test]
    fn a_device_path_with_nul_is_refused_naming_the_board() {
        let e =
            Config::parse("[[board]]\ndevice = \"/dev/\\u0000null\"\n", "c.toml").expect_err("NUL");
        let text = e.to_string();
        assert!(
            text.starts_with("c.toml: board 1: the device path"),
            "{text}"
        );
        assert!(text.contains("\\x00"), "{text}");
    }

    #[test]
    fn a_huge_device_path_gives_a_short_error() {
        let text = format!("[[board]]\ndevice = \"/dev/{}\"\n", "x".repeat(30 << 20));
        let e = Config::parse(&text, "c.toml").expect_err("too long");
        assert!(e.to_string().len() < 300, "{} bytes", e.to_string().len());
    }

    #[test]
    fn an_endless_file_is_refused_at_once() {
        let started = std::time::Instant::now();
        let e = Config::load(Path::new("/dev/zero")).expect_err("endless");
        assert!(e.to_string().contains("larger than"), "{e}");
        assert!(started.elapsed() < Duration::from_secs(1));
    }

    #[test]
    fn player_names_with_control_characters_are_refused() {
        let e = Config::parse(
            "[[board]]\ndevice = \"/dev/ttyUSB0\"\nwhite = \"A\\u001b[2J\"\n",
            "c.toml",
        )
        .expect_err("escape");
        assert!(e.to_string().contains("a player's name"), "{e}");
    }

    #[test]
    fn board_without_device_is_rejected() {
        let msg = Config::parse("[[board]]\nprotocol = \"dgt\"\n", "c.toml")
            .expect_err("no device")
            .to_string();
        assert!(msg.contains("device"), "{msg}");
    }

    #[test]
    fn same_device_twice_is_rejected() {
        let text = "[[board]]\ndevice = \"/d\"\n[[board]]\ndevice = \"/d\"\n";
        let msg = Config::parse(text, "c.toml")
            .expect_err("twice")
            .to_string();
        assert!(msg.contains("/d"), "{msg}");
    }

    #[test]
    fn missing_default_file_is_an_empty_configuration() {
        let dir = tempfile::tempdir().expect("tempdir");
        let c = Config::load_if_present(&dir.path().join("none.toml")).expect("missing is fine");
        assert_eq!(c, Config::default());
        assert!(Config::load(&dir.path().join("none.toml")).is_err());
    }

    #[test]
    fn command_line_devices_join_the_configured_ones_once() {
        let mut c =
            Config::parse("[[board]]\ndevice = \"/a\"\nprotocol = \"dgt\"\n", "c").expect("valid");
        c.add_devices(&[PathBuf::from("/a"), PathBuf::from("/b")]);
        assert_eq!(c.boards.len(), 2);
        assert_eq!(c.boards[0].protocol, ProtocolChoice::Fixed(Protocol::Dgt));
        assert_eq!(c.boards[1].device, PathBuf::from("/b"));
    }

    #[test]
    fn web_settings_are_read_and_unknown_web_keys_refused() {
        let c = Config::parse(
            "[web]\nmax-connections = 64\nallowed-origins = [\"https://club.example\"]\n",
            "c",
        )
        .expect("valid");
        assert_eq!(c.web.max_connections, Some(64));
        assert_eq!(c.web.allowed_origins, ["https://club.example"]);
        let bad = Config::parse("[web]\nmax-connection = 64\n", "c").expect_err("a typo");
        assert!(bad.to_string().contains("line 2"), "{bad}");
        for wrong in [
            "club.example",
            "https://club.example/page",
            "ftp://x",
            "https://",
        ] {
            let text = format!("[web]\nallowed-origins = [\"{wrong}\"]\n");
            let bad = Config::parse(&text, "c").expect_err(wrong);
            assert!(bad.to_string().contains("not an origin"), "{bad}");
        }
    }

    #[test]
    fn shipped_example_configuration_is_valid() {
        let text = include_str!("../../systemd/config.toml");
        Config::parse(text, "systemd/config.toml").expect("the shipped file reads");
    }
}
