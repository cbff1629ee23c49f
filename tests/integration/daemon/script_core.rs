//! A scripted core for daemon tests, until the real codecs, tracker and emulator land.
//!
//! The board on the pty speaks lines of text instead of DGT or Millennium bytes:
//! `board <placement>`, `move <uci>`, `clock <white_ms> <black_ms> <white|black|none>`,
//! `violation <article> <detail…>`, `mismatch <squares…>`, `takeback <ply>`, `retract`,
//! `result <result> <reason…>`, `serial <text>`. The core answers a new connection with
//! `hello`, and LED and clock commands with `leds …`, `show …`, `text …`. After a
//! reconnection a `board` line is reconciled with the game the way the tracker's catch-up
//! will: up to two legal moves that explain it are confirmed, anything else is a mismatch.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use eboardd::daemon::core::{CommandError, Core, CoreCommand, CoreFactory, GameSetup};
use eboardd::event::{GameEvent, Orientation, TimedEvent};
use eboardd::game::notation::play_move;
use eboardd::time::Time;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Position};

/// What the test can see of the cores the daemon made.
#[derive(Debug, Default)]
pub struct Seen {
    /// Every `Resume` a core was given.
    pub resumed: Vec<Vec<GameEvent>>,
    /// How many cores were made.
    pub made: usize,
}

/// A factory of scripted cores that report to `seen`.
pub fn factory(seen: Arc<Mutex<Seen>>) -> CoreFactory {
    Arc::new(move |_protocol, _settings| {
        if let Ok(mut s) = seen.lock() {
            s.made += 1;
        }
        Box::new(ScriptCore {
            seen: seen.clone(),
            ..ScriptCore::default()
        })
    })
}

#[derive(Default)]
pub struct ScriptCore {
    seen: Arc<Mutex<Seen>>,
    buf: Vec<u8>,
    positions: Vec<Chess>,
    moves: Vec<String>,
    mode: Option<CastlingMode>,
    placement: Option<String>,
    serial: Option<String>,
    events: VecDeque<TimedEvent>,
    transmit: VecDeque<Vec<u8>>,
}

impl ScriptCore {
    fn emit(&mut self, t: Time, event: GameEvent) {
        self.events.push_back(TimedEvent { t, event });
    }

    fn start(&mut self, t: Time, setup: &GameSetup) {
        let Some((pos, mode)) = setup.position() else {
            return;
        };
        self.placement = Some(pos.board().to_string());
        self.positions = vec![pos];
        self.moves.clear();
        self.mode = Some(mode);
        self.emit(
            t,
            GameEvent::NewGame {
                fen: setup.fen.clone(),
                chess960: setup.chess960,
            },
        );
    }

    fn play(&mut self, t: Time, uci: &str) -> bool {
        let Some(pos) = self.positions.last().cloned() else {
            return false;
        };
        let mode = self.mode.unwrap_or(CastlingMode::Standard);
        let Some(m) = UciMove::from_ascii(uci.as_bytes())
            .ok()
            .and_then(|u| u.to_move(&pos).ok())
        else {
            return false;
        };
        let ply = self.moves.len() as u32 + 1;
        let (event, after) = play_move(&pos, m, ply, mode);
        self.placement = Some(after.board().to_string());
        self.positions.push(after);
        self.moves.push(uci.to_string());
        self.emit(t, event);
        true
    }

    /// Up to two legal moves from the game position that give `placement`.
    fn explain(&self, placement: &str) -> Option<Vec<String>> {
        let pos = self.positions.last()?;
        if pos.board().to_string() == placement {
            return Some(Vec::new());
        }
        let mode = self.mode.unwrap_or(CastlingMode::Standard);
        for m in pos.legal_moves() {
            let mut one = pos.clone();
            one.play_unchecked(m);
            let first = UciMove::from_move(m, mode).to_string();
            if one.board().to_string() == placement {
                return Some(vec![first]);
            }
            for m2 in one.legal_moves() {
                let mut two = one.clone();
                two.play_unchecked(m2);
                if two.board().to_string() == placement {
                    return Some(vec![first, UciMove::from_move(m2, mode).to_string()]);
                }
            }
        }
        None
    }

    fn line(&mut self, t: Time, line: &str) {
        let mut words = line.split_whitespace();
        let Some(kind) = words.next() else { return };
        let rest: Vec<&str> = words.collect();
        match kind {
            "board" => {
                let Some(placement) = rest.first().map(|s| s.to_string()) else {
                    return;
                };
                if self.positions.is_empty() {
                    self.emit(
                        t,
                        GameEvent::Board {
                            placement: placement.clone(),
                            orientation: Orientation::Normal,
                        },
                    );
                    if placement == Chess::default().board().to_string() {
                        self.start(t, &GameSetup::standard());
                    }
                } else {
                    match self.explain(&placement) {
                        Some(moves) => {
                            for m in moves {
                                self.play(t, &m);
                            }
                        }
                        None => self.emit(
                            t,
                            GameEvent::Mismatch {
                                squares: Vec::new(),
                                nearest: None,
                            },
                        ),
                    }
                }
                self.placement = Some(placement);
            }
            "move" => {
                let uci = rest.first().copied().unwrap_or("");
                if !self.play(t, uci) {
                    self.emit(
                        t,
                        GameEvent::Mismatch {
                            squares: Vec::new(),
                            nearest: None,
                        },
                    );
                }
            }
            "clock" => {
                let ms = |i: usize| rest.get(i).and_then(|s| s.parse().ok()).unwrap_or(0);
                let running = match rest.get(2) {
                    Some(&"white") => Some(Color::White),
                    Some(&"black") => Some(Color::Black),
                    _ => None,
                };
                self.emit(
                    t,
                    GameEvent::Clock {
                        white_ms: ms(0),
                        black_ms: ms(1),
                        running,
                    },
                );
            }
            "violation" => {
                let ply = self.moves.len() as u32 + 1;
                self.emit(
                    t,
                    GameEvent::Violation {
                        ply,
                        article: rest.first().unwrap_or(&"").to_string(),
                        laws: "fide-2023".into(),
                        detail: rest.get(1..).unwrap_or(&[]).join(" "),
                        claimable: true,
                        square: None,
                        uci: None,
                        san: None,
                    },
                );
            }
            "mismatch" => {
                let squares = rest.iter().filter_map(|s| s.parse().ok()).collect();
                self.emit(
                    t,
                    GameEvent::Mismatch {
                        squares,
                        nearest: None,
                    },
                );
            }
            "takeback" => {
                let ply: usize = rest.first().and_then(|s| s.parse().ok()).unwrap_or(0);
                self.positions.truncate(ply + 1);
                self.moves.truncate(ply);
                self.emit(t, GameEvent::Takeback { ply: ply as u32 });
            }
            "retract" => {
                if let Some(uci) = self.moves.pop() {
                    self.positions.pop();
                    let ply = self.moves.len() as u32 + 1;
                    if let Ok(uci) = uci.parse() {
                        self.emit(t, GameEvent::Retract { ply, uci });
                    }
                }
            }
            "result" => {
                if let Some(Ok(result)) = rest.first().map(|r| r.parse()) {
                    self.emit(
                        t,
                        GameEvent::Result {
                            result,
                            reason: rest.get(1..).unwrap_or(&[]).join(" "),
                        },
                    );
                }
            }
            "serial" => self.serial = rest.first().map(|s| s.to_string()),
            _ => {}
        }
    }
}

impl Core for ScriptCore {
    fn handle_connected(&mut self, _now: Time) {
        self.transmit.push_back(b"hello\n".to_vec());
    }

    fn handle_input(&mut self, now: Time, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
        while let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.buf.drain(..=i).collect();
            let text = String::from_utf8_lossy(&line).trim().to_string();
            self.line(now, &text);
        }
    }

    fn handle_timeout(&mut self, _now: Time) {}

    fn handle_command(&mut self, now: Time, command: CoreCommand) -> Result<(), CommandError> {
        match command {
            CoreCommand::NewGame(setup) | CoreCommand::SetPosition(setup) => {
                self.start(now, &setup);
            }
            CoreCommand::Resume(events) => {
                if let Ok(mut s) = self.seen.lock() {
                    s.resumed.push(events.clone());
                }
                for e in events {
                    match e {
                        GameEvent::NewGame { fen, chess960 } => {
                            self.start(now, &GameSetup { fen, chess960 });
                            self.events.clear();
                        }
                        GameEvent::Move { uci, .. } => {
                            self.play(now, &uci.to_string());
                            self.events.clear();
                        }
                        GameEvent::Takeback { ply } => {
                            self.positions.truncate(ply as usize + 1);
                            self.moves.truncate(ply as usize);
                        }
                        GameEvent::Retract { .. } => {
                            self.positions.pop();
                            self.moves.pop();
                        }
                        _ => {}
                    }
                }
            }
            CoreCommand::ShowMove { uci, .. } => self
                .transmit
                .push_back(format!("show {uci}\n").into_bytes()),
            CoreCommand::SetLeds(squares) => {
                let names: Vec<String> = squares.iter().map(|s| s.to_string()).collect();
                self.transmit
                    .push_back(format!("leds {}\n", names.join(" ")).into_bytes());
            }
            CoreCommand::ClockText(text) => self
                .transmit
                .push_back(format!("text {text}\n").into_bytes()),
            CoreCommand::SetOrientation(o) => self
                .transmit
                .push_back(format!("orientation {}\n", o.as_str()).into_bytes()),
        }
        Ok(())
    }

    fn poll_event(&mut self) -> Option<TimedEvent> {
        self.events.pop_front()
    }

    fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.transmit.pop_front()
    }

    fn poll_timeout(&self) -> Option<Time> {
        None
    }

    fn placement(&self) -> Option<String> {
        self.placement.clone()
    }

    fn orientation(&self) -> Option<Orientation> {
        self.placement.as_ref().map(|_| Orientation::Normal)
    }

    fn serial(&self) -> Option<String> {
        self.serial.clone()
    }
}
