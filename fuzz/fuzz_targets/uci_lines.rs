//! The UCI side of `eboardd uci`: the GUI's lines through the line parser and the engine,
//! mixed with the board's game events.
//!
//! Input: text, one line per GUI line, as the bridge reads it. A line starting with `@` is
//! not the GUI's but an event of the board's game, so that the engine's positions meet the
//! board's: `@new FEN`, `@move PLY UCI`, `@retract PLY UCI`, `@takeback PLY`.
//!
//! Checked: a command the parser reads, written out plainly, reads back as the same
//! command; whatever the GUI sends, every line the engine answers is one protocol line
//! (no line break or other control character inside, a UCI engine's first word), and no
//! `info` line comes before the answer to `uci` is complete (`uciok`).

#![no_main]

use eboardd::event::GameEvent;
use eboardd::uci::Engine;
use eboardd::uci::command::{Command, Parsed, Start, parse_line};
use libfuzzer_sys::fuzz_target;

/// `command` as a GUI would write it.
fn render(command: &Command) -> String {
    match command {
        Command::Uci => "uci".into(),
        Command::Debug(on) => format!("debug {}", if *on { "on" } else { "off" }),
        Command::IsReady => "isready".into(),
        Command::SetOption { name, value } => match value {
            Some(value) => format!("setoption name {name} value {value}"),
            None => format!("setoption name {name}"),
        },
        Command::Register => "register later".into(),
        Command::UciNewGame => "ucinewgame".into(),
        Command::Position { start, moves } => {
            let start = match start {
                Start::StartPos => "startpos".to_string(),
                Start::Fen(fen) => format!("fen {fen}"),
            };
            format!("position {start} moves {}", moves.join(" "))
        }
        Command::Go(go) => {
            let mut line = String::from("go");
            if go.ponder {
                line += " ponder";
            }
            if let Some(ms) = go.wtime {
                line += &format!(" wtime {ms}");
            }
            if let Some(ms) = go.btime {
                line += &format!(" btime {ms}");
            }
            if go.infinite {
                line += " infinite";
            }
            line
        }
        Command::Stop => "stop".into(),
        Command::PonderHit => "ponderhit".into(),
        Command::Quit => "quit".into(),
    }
}

/// A board event written `@…`, if it is one.
fn board_event(line: &str) -> Option<GameEvent> {
    let rest = line.strip_prefix('@')?;
    let (word, args) = rest.split_once(' ').unwrap_or((rest, ""));
    let mut fields = args.split(' ');
    Some(match word {
        "new" => GameEvent::NewGame {
            fen: args.to_string(),
            chess960: false,
        },
        "move" => GameEvent::Move {
            ply: fields.next()?.parse().ok()?,
            uci: fields.next()?.to_string(),
            san: String::new(),
            fen: String::new(),
            clock_ms: None,
            emt_ms: None,
            alternatives: Vec::new(),
        },
        "retract" => GameEvent::Retract {
            ply: fields.next()?.parse().ok()?,
            uci: fields.next()?.to_string(),
        },
        "takeback" => GameEvent::Takeback {
            ply: fields.next()?.parse().ok()?,
        },
        _ => return None,
    })
}

const FIRST_WORDS: [&str; 6] = ["id", "option", "uciok", "readyok", "bestmove", "info"];

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut engine = Engine::new();
    let mut greeted = false;
    for raw in text.split('\n') {
        // What the bridge's line reader hands on.
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.starts_with('@') {
            if let Some(event) = board_event(line) {
                engine.handle_event(&event);
            }
        } else {
            if let Ok(Some(Parsed { command, .. })) = parse_line(line) {
                let again = render(&command);
                let back = parse_line(&again).map(|p| p.map(|p| (p.command, p.skipped)));
                assert_eq!(
                    back,
                    Ok(Some((command, Vec::new()))),
                    "{again:?} from {line:?}"
                );
            }
            engine.handle_line(line);
        }
        while let Some(out) = engine.poll_line() {
            assert!(!out.contains(char::is_control), "{out:?}");
            let first = out.split(' ').next().unwrap_or_default();
            assert!(FIRST_WORDS.contains(&first), "{out:?}");
            if !greeted {
                assert!(first != "info", "{out:?} before uciok");
            }
            greeted |= out == "uciok";
        }
        while engine.poll_action().is_some() {}
        if engine.wants_quit() {
            break;
        }
    }
});
