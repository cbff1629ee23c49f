//! Lines from the GUI → typed UCI commands.
//!
//! The parser follows the UCI specification's tolerance: any whitespace separates tokens, a
//! trailing `\r` is ignored, and unknown tokens in front of a command are skipped ("joho
//! debug on" is `debug on`). What it cannot read is an error that says what was wrong; the
//! engine answers it with an `info string` and changes nothing. This module knows nothing
//! of chess rules: moves and FENs are checked by the engine against its game.

use std::fmt;

/// Where a `position` command starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    /// `startpos`: the standard start position.
    StartPos,
    /// `fen …`: the FEN as written (its fields joined by single spaces).
    Fen(String),
}

/// The limits of a `go` command that matter to a person at a board.
///
/// Depth, nodes, mate and move time are read and ignored: a person cannot obey them, and
/// the GUI judges time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Go {
    /// `infinite`: no `bestmove` before `stop`.
    pub infinite: bool,
    /// `ponder`: no `bestmove` before `ponderhit` or `stop`.
    pub ponder: bool,
    /// White's clock in milliseconds (`wtime`), if given.
    pub wtime: Option<u64>,
    /// Black's clock in milliseconds (`btime`), if given.
    pub btime: Option<u64>,
}

/// One command from the GUI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `uci`: identify and list the options.
    Uci,
    /// `debug on|off`.
    Debug(bool),
    /// `isready`: answer `readyok` at once.
    IsReady,
    /// `setoption name <id> [value <x>]`; the name as written (compared without case).
    SetOption {
        /// The option's name (may contain spaces).
        name: String,
        /// The value, if any (may contain spaces).
        value: Option<String>,
    },
    /// `register …`: nothing to register; accepted and ignored.
    Register,
    /// `ucinewgame`: the next position is from a new game.
    UciNewGame,
    /// `position startpos|fen … [moves …]`.
    Position {
        /// Where the game starts.
        start: Start,
        /// The moves played since, as written (UCI long algebraic notation).
        moves: Vec<String>,
    },
    /// `go …`: the player is to move.
    Go(Go),
    /// `stop`: answer now.
    Stop,
    /// `ponderhit`: the pondered move was played; go on as a normal `go`.
    PonderHit,
    /// `quit`: exit.
    Quit,
}

/// A line that is not a command the engine can carry out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// No known command word in the line.
    #[error("unknown command: {0}")]
    Unknown(String),
    /// A known command, wrongly written.
    #[error("{0}")]
    Malformed(String),
}

/// What a line says: a command (with the unknown tokens skipped before it), or nothing for
/// a blank line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// The command.
    pub command: Command,
    /// Unknown tokens skipped before the command word.
    pub skipped: Vec<String>,
}

const COMMANDS: [&str; 11] = [
    "uci",
    "debug",
    "isready",
    "setoption",
    "register",
    "ucinewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "quit",
];

/// Reads one line from the GUI. `Ok(None)` for a blank line.
///
/// ```
/// use eboardd::uci::command::{parse_line, Command, Start};
/// let p = parse_line("position startpos moves e2e4 e7e5\r").unwrap().unwrap();
/// assert_eq!(p.command, Command::Position {
///     start: Start::StartPos,
///     moves: vec!["e2e4".into(), "e7e5".into()],
/// });
/// assert!(parse_line("  ").unwrap().is_none());
/// assert!(parse_line("hello").is_err());
/// ```
pub fn parse_line(line: &str) -> Result<Option<Parsed>, ParseError> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    if tokens.is_empty() {
        return Ok(None);
    }
    let Some(at) = tokens.iter().position(|t| COMMANDS.contains(t)) else {
        return Err(ParseError::Unknown(shorten(line.trim())));
    };
    let skipped = tokens[..at].iter().map(|s| s.to_string()).collect();
    let word = tokens[at];
    let args = &tokens[at + 1..];
    let command = match word {
        "uci" => Command::Uci,
        "isready" => Command::IsReady,
        "ucinewgame" => Command::UciNewGame,
        "stop" => Command::Stop,
        "ponderhit" => Command::PonderHit,
        "quit" => Command::Quit,
        "register" => Command::Register,
        "debug" => match args.first() {
            Some(&"on") | None => Command::Debug(true),
            Some(&"off") => Command::Debug(false),
            Some(other) => {
                return Err(ParseError::Malformed(format!(
                    "debug takes on or off, not {}",
                    shorten(other)
                )));
            }
        },
        "setoption" => parse_setoption(args)?,
        "position" => parse_position(args)?,
        "go" => Command::Go(parse_go(args)?),
        _ => return Err(ParseError::Unknown(shorten(line.trim()))),
    };
    Ok(Some(Parsed { command, skipped }))
}

fn parse_setoption(args: &[&str]) -> Result<Command, ParseError> {
    if args.first() != Some(&"name") {
        return Err(ParseError::Malformed(
            "setoption needs `name <id> [value <x>]`".into(),
        ));
    }
    let rest = &args[1..];
    let (name, value) = match rest.iter().position(|t| *t == "value") {
        Some(v) => (&rest[..v], Some(rest[v + 1..].join(" "))),
        None => (rest, None),
    };
    if name.is_empty() {
        return Err(ParseError::Malformed(
            "setoption without an option name".into(),
        ));
    }
    Ok(Command::SetOption {
        name: name.join(" "),
        value,
    })
}

fn parse_position(args: &[&str]) -> Result<Command, ParseError> {
    let moves_at = args.iter().position(|t| *t == "moves");
    let (head, moves) = match moves_at {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &args[args.len()..]),
    };
    let start = match head.first() {
        Some(&"startpos") if head.len() == 1 => Start::StartPos,
        Some(&"startpos") => {
            return Err(ParseError::Malformed(format!(
                "position startpos followed by {} (expected `moves`)",
                shorten(&head[1..].join(" "))
            )));
        }
        Some(&"fen") if head.len() > 1 => Start::Fen(head[1..].join(" ")),
        Some(&"fen") => return Err(ParseError::Malformed("position fen without a FEN".into())),
        Some(other) => {
            return Err(ParseError::Malformed(format!(
                "position must start with startpos or fen, not {}",
                shorten(other)
            )));
        }
        None => {
            return Err(ParseError::Malformed(
                "position needs startpos or fen".into(),
            ));
        }
    };
    Ok(Command::Position {
        start,
        moves: moves.iter().map(|m| m.to_string()).collect(),
    })
}

fn parse_go(args: &[&str]) -> Result<Go, ParseError> {
    let mut go = Go::default();
    let mut i = 0;
    while let Some(&token) = args.get(i) {
        i += 1;
        match token {
            "infinite" => go.infinite = true,
            "ponder" => go.ponder = true,
            "wtime" | "btime" => {
                let value = args
                    .get(i)
                    .and_then(|v| v.parse::<i64>().ok())
                    .ok_or_else(|| {
                        ParseError::Malformed(format!("go {token} needs a number of milliseconds"))
                    })?;
                i += 1;
                // Some GUIs send a negative time once the flag has fallen.
                let ms = u64::try_from(value).unwrap_or(0);
                if token == "wtime" {
                    go.wtime = Some(ms);
                } else {
                    go.btime = Some(ms);
                }
            }
            // Limits a person cannot obey: read their value and ignore it.
            "winc" | "binc" | "movestogo" | "depth" | "nodes" | "mate" | "movetime"
                if args.get(i).is_some_and(|v| v.parse::<i64>().is_ok()) =>
            {
                i += 1;
            }
            // The moves to search among: a person may play any legal move.
            "searchmoves" => {
                while args.get(i).is_some_and(|t| looks_like_move(t)) {
                    i += 1;
                }
            }
            _ => {}
        }
    }
    Ok(go)
}

fn looks_like_move(t: &str) -> bool {
    let b = t.as_bytes();
    (b.len() == 4 || b.len() == 5)
        && (b'a'..=b'h').contains(&b[0])
        && (b'1'..=b'8').contains(&b[1])
        && (b'a'..=b'h').contains(&b[2])
        && (b'1'..=b'8').contains(&b[3])
}

/// At most 60 characters of what the GUI wrote, for messages.
pub fn shorten(text: &str) -> String {
    const MAX: usize = 60;
    let mut out: String = text.chars().take(MAX).collect();
    if text.chars().count() > MAX {
        out.push('…');
    }
    out
}

impl fmt::Display for Start {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Start::StartPos => f.write_str("startpos"),
            Start::Fen(fen) => write!(f, "fen {fen}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(line: &str) -> Command {
        parse_line(line)
            .expect("parses")
            .expect("not blank")
            .command
    }

    #[test]
    fn simple_commands_tolerate_whitespace_and_carriage_returns() {
        assert_eq!(cmd("uci\r"), Command::Uci);
        assert_eq!(cmd("  isready  "), Command::IsReady);
        assert_eq!(cmd("\tucinewgame"), Command::UciNewGame);
        assert_eq!(cmd("stop"), Command::Stop);
        assert_eq!(cmd("quit"), Command::Quit);
        assert_eq!(cmd("ponderhit"), Command::PonderHit);
        assert_eq!(cmd("debug off"), Command::Debug(false));
    }

    #[test]
    fn unknown_tokens_before_a_command_are_skipped() {
        let p = parse_line("joho debug on").expect("ok").expect("some");
        assert_eq!(p.command, Command::Debug(true));
        assert_eq!(p.skipped, vec!["joho".to_string()]);
    }

    #[test]
    fn a_line_without_a_command_is_unknown() {
        assert_eq!(
            parse_line("hello world"),
            Err(ParseError::Unknown("hello world".into()))
        );
        assert!(matches!(parse_line("xboard"), Err(ParseError::Unknown(_))));
    }

    #[test]
    fn setoption_names_and_values_may_hold_spaces() {
        assert_eq!(
            cmd("setoption name Clear Hash"),
            Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            }
        );
        assert_eq!(
            cmd("setoption name SettleMs value 300"),
            Command::SetOption {
                name: "SettleMs".into(),
                value: Some("300".into())
            }
        );
        assert!(parse_line("setoption SettleMs 3").is_err());
        assert!(parse_line("setoption name value 3").is_err());
    }

    #[test]
    fn positions_from_startpos_and_fen_with_moves() {
        assert_eq!(
            cmd("position startpos"),
            Command::Position {
                start: Start::StartPos,
                moves: vec![]
            }
        );
        assert_eq!(
            cmd("position fen 8/8/8/8/8/8/8/K1k5 w - - 0 1 moves a1a2"),
            Command::Position {
                start: Start::Fen("8/8/8/8/8/8/8/K1k5 w - - 0 1".into()),
                moves: vec!["a1a2".into()]
            }
        );
        assert!(parse_line("position").is_err());
        assert!(parse_line("position fen").is_err());
        assert!(parse_line("position start").is_err());
        assert!(parse_line("position startpos e2e4").is_err());
    }

    #[test]
    fn go_reads_clocks_and_ignores_limits_a_person_cannot_obey() {
        assert_eq!(
            cmd("go wtime 300000 btime 295000 winc 0 binc 0 movestogo 30"),
            Command::Go(Go {
                wtime: Some(300_000),
                btime: Some(295_000),
                ..Go::default()
            })
        );
        assert_eq!(
            cmd("go depth 20 nodes 1000 movetime 50"),
            Command::Go(Go::default())
        );
        assert_eq!(
            cmd("go infinite searchmoves e2e4 d2d4"),
            Command::Go(Go {
                infinite: true,
                ..Go::default()
            })
        );
        assert_eq!(
            cmd("go ponder wtime -20"),
            Command::Go(Go {
                ponder: true,
                wtime: Some(0),
                ..Go::default()
            })
        );
        assert!(parse_line("go wtime soon").is_err());
    }
}
