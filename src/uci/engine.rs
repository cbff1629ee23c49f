//! The UCI engine whose moves are made by a person at a board (sans-IO).
//!
//! [`Engine`] is handed the GUI's lines and the board's game events, and hands back the lines
//! to write to the GUI and the [`Action`]s for the board (show a move, clear it, set the
//! board's game to the GUI's position, rebuild the board's core with new settings). It
//! never reads a clock or a port; the shell (`super::bridge`) does.
//!
//! It keeps two games: the GUI's (`position …`) and the board's (from its events). Where
//! they meet ([`align`](crate::uci::line::align)) decides everything:
//! - level: the player is to move; a `go` waits for the board's next confirmed move;
//! - the board behind: the GUI's moves (its engine's, an online opponent's) are shown on
//!   the board and in `info string`, one at a time; carried out, they are the GUI's moves,
//!   not the player's;
//! - the board ahead: the player has moved; `go` is answered at once with that move;
//! - apart: the board's extra moves are to be taken back; no common position at all: the
//!   board's game is set to the GUI's position and the player sets it up.
//!
//! `bestmove` is only ever a move confirmed on the board, or `0000` in reply to `stop`
//! when there is none, or `(none)` when the position has no legal move.
//!
//! - handlers: [`Engine::handle_line`], [`Engine::handle_event`], [`Engine::handle_input_closed`],
//!   [`Engine::handle_action_failed`], [`Engine::handle_notice`]
//! - polls: [`Engine::poll_line`], [`Engine::poll_action`]
//! - getters: [`Engine::wants_quit`], [`Engine::options`], [`Engine::is_searching`]

use std::collections::VecDeque;

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position, Square};

use super::command::{Command, Go, ParseError, Start, parse_line, shorten};
use super::line::GameLine;
use super::options::{Changed, Options, Settings};
use crate::event::GameEvent;
use decide::side_name;

/// The engine's name in `id name`: whole within the 24 characters some GUIs keep of it
/// (xboard through polyglot).
pub const NAME: &str = concat!("eboardd ", env!("CARGO_PKG_VERSION"), " e-board");
/// The author in `id author`.
pub const AUTHOR: &str = "the eboardd authors";

/// A move (or a takeback) to show on the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Indication {
    /// The square the piece leaves.
    pub from: Square,
    /// The square it goes to.
    pub to: Square,
    /// Short text for a clock display (at most 8 characters): the move in SAN, or `back`.
    pub text: String,
    /// The move in UCI notation when it is a move of the board's game now (for boards
    /// driven through the daemon, whose `ShowMove` takes a legal move).
    pub uci: Option<UciMove>,
}

/// Something the board must do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Show a move on the LEDs and the clock.
    Show(Indication),
    /// Clear what was shown.
    Clear,
    /// The board's game is now the GUI's position (full FEN): the player sets it up.
    SetPosition(String),
    /// Start reading the board, with these settings: the GUI has set its options and
    /// wants the engine ready (its first `isready`, `ucinewgame`, `position` or `go`).
    Start(Settings),
    /// Read the board with these settings from now on (options changed after the start).
    Configure(Settings),
}

/// How the board's game stands against the GUI's.
#[derive(Debug, Clone, PartialEq)]
enum Relation {
    /// No GUI position yet, or the board has not reported.
    Unknown,
    /// No common position: the board's game is to be set to this FEN.
    Setup(String),
    /// The same position.
    Level,
    /// The GUI's game is ahead: `next` (its move number `index` from 0) is to be carried out,
    /// `remaining` moves in all.
    Behind {
        index: usize,
        next: Move,
        remaining: usize,
    },
    /// The board's game is ahead by `extra` moves from the GUI's position; `mv` is the
    /// player's move.
    Ahead { mv: Move, extra: usize },
    /// Both went on differently: `count` moves of the board to take back, the last `last`.
    Apart { count: usize, last: Move },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Search {
    infinite: bool,
    ponder: bool,
}

/// The UCI engine (see the module documentation).
#[derive(Debug, Default)]
pub struct Engine {
    options: Options,
    gui: Option<GameLine>,
    board: Option<GameLine>,
    board_seen: bool,
    search: Option<Search>,
    relation: Option<Relation>,
    shown: Option<Indication>,
    requested: Option<String>,
    out: VecDeque<String>,
    actions: VecDeque<Action>,
    quit: bool,
    debug: bool,
    dirty: bool,
    /// Whether `uci` was answered; `info string`s wait until then, so that nothing but
    /// the answer to `uci` comes first.
    greeted: bool,
    early: VecDeque<String>,
    /// Whether the board was asked to start.
    started: bool,
    /// Whether a move was sent as `bestmove` for the GUI's position as it stands.
    answered: bool,
}

/// How many `info string`s are kept for a GUI that has not sent `uci` yet.
const EARLY_INFOS: usize = 16;

impl Engine {
    /// An engine with the default options, before `uci`.
    pub fn new() -> Engine {
        Engine::default()
    }

    // ------------------------------------------------------------------ getters

    /// Whether the engine was told to quit (or its input ended).
    pub fn wants_quit(&self) -> bool {
        self.quit
    }

    /// The options as set.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Whether a `go` waits for its `bestmove`.
    pub fn is_searching(&self) -> bool {
        self.search.is_some()
    }

    // ------------------------------------------------------------------ polls

    /// The next line for the GUI (without its newline).
    pub fn poll_line(&mut self) -> Option<String> {
        if self.dirty {
            self.sync();
        }
        self.out.pop_front()
    }

    /// The next thing the board must do.
    pub fn poll_action(&mut self) -> Option<Action> {
        if self.dirty {
            self.sync();
        }
        self.actions.pop_front()
    }

    // ------------------------------------------------------------------ handlers

    /// The GUI's input ended: quit, as if told to.
    pub fn handle_input_closed(&mut self) {
        self.quit = true;
    }

    /// Something the board task wants the person at the GUI to know.
    pub fn handle_notice(&mut self, text: &str) {
        self.info(text);
    }

    /// An action could not be carried out; `why` says why (told to the GUI).
    pub fn handle_action_failed(&mut self, action: &Action, why: &str) {
        match action {
            Action::SetPosition(fen) => {
                self.info(format!("the board's game could not be set to {fen}: {why}"));
                self.requested = None;
            }
            Action::Show(_) | Action::Clear => {
                self.info(format!("the board cannot show moves: {why}"));
            }
            Action::Start(_) | Action::Configure(_) => {
                self.info(format!("the settings did not apply: {why}"))
            }
        }
    }

    /// One line from the GUI.
    pub fn handle_line(&mut self, line: &str) {
        let parsed = match parse_line(line) {
            Ok(None) => return,
            Ok(Some(p)) => p,
            Err(ParseError::Unknown(what)) => {
                self.info(format!("unknown command ignored: {what}"));
                return;
            }
            Err(e) => {
                self.info(format!("ignored: {e}"));
                return;
            }
        };
        let needs_board = matches!(
            parsed.command,
            Command::IsReady | Command::UciNewGame | Command::Position { .. } | Command::Go(_)
        );
        if needs_board && !self.started {
            self.started = true;
            self.actions.push_back(Action::Start(self.options.settings));
        }
        if !parsed.skipped.is_empty() {
            self.info(format!(
                "ignored {} before the command",
                shorten(&parsed.skipped.join(" "))
            ));
        }
        match parsed.command {
            Command::Uci => {
                self.say(format!("id name {NAME}"));
                self.say(format!("id author {AUTHOR}"));
                for l in Options::uci_lines() {
                    self.say(l);
                }
                self.say("uciok");
                self.greeted = true;
                self.out.extend(self.early.drain(..));
            }
            Command::IsReady => self.say("readyok"),
            Command::Debug(on) => self.debug = on,
            Command::Register => {}
            Command::Quit => self.quit = true,
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::UciNewGame => {
                self.gui = None;
                self.answered = false;
                self.requested = None;
                self.sync();
            }
            Command::Position { start, moves } => self.position(&start, &moves),
            Command::Go(go) => self.go(go),
            Command::Stop => self.stop(),
            Command::PonderHit => {
                if let Some(s) = &mut self.search
                    && s.ponder
                {
                    s.ponder = false;
                    self.sync();
                }
            }
        }
    }

    /// One event of the board's game. Events that arrive together are weighed together:
    /// the engine decides at the next poll (or the next line from the GUI).
    pub fn handle_event(&mut self, event: &GameEvent) {
        match event {
            GameEvent::Board { .. } => self.board_seen = true,
            GameEvent::NewGame { fen, chess960 } => {
                self.board_seen = true;
                match GameLine::from_fen(fen, *chess960) {
                    Ok(line) => {
                        if self.requested.as_deref().is_some_and(|r| {
                            GameLine::from_fen(r, *chess960).is_ok_and(|g| g.same_position(&line))
                        }) {
                            self.requested = None;
                        }
                        self.board = Some(line);
                    }
                    Err(e) => self.info(format!("the board's new game is unreadable: {e}")),
                }
            }
            GameEvent::Move { ply, uci, .. } => {
                let Some(board) = &mut self.board else { return };
                // Plies count from the board's game start: a move for an earlier ply
                // replaces what followed it (as the game record does).
                let keep = (*ply as usize).saturating_sub(1);
                if keep < board.len() {
                    board.truncate(keep);
                }
                if let Err(e) = board.push_move(uci) {
                    let text = format!("the board's move {ply} ({uci}) does not fit its game: {e}");
                    self.info(text);
                }
            }
            GameEvent::Retract { ply, uci } => {
                if let Some(board) = &mut self.board {
                    board.truncate(ply.saturating_sub(1) as usize);
                }
                self.info(format!(
                    "correction: the board withdrew its move {uci} (ply {ply}); the game goes on from ply {}",
                    ply.saturating_sub(1)
                ));
            }
            GameEvent::Takeback { ply } => {
                if let Some(board) = &mut self.board {
                    board.truncate(*ply as usize);
                }
                self.info(format!(
                    "moves taken back on the board: its game ends after ply {ply}"
                ));
            }
            GameEvent::Mismatch { squares, .. } => self.info(format!(
                "the board differs from its game on {}: put the pieces right",
                squares
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(" ")
            )),
            GameEvent::Violation {
                article,
                laws,
                detail,
                ..
            } => self.info(format!("{laws} article {article}: {detail}")),
            GameEvent::Withdrawn { detail, .. } => self.info(detail.clone()),
            GameEvent::ClaimLapsed {
                article, detail, ..
            } => self.info(format!(
                "the claim under article {article} has lapsed: {detail}"
            )),
            GameEvent::Due {
                article, detail, ..
            } => self.info(format!("article {article}: {detail}")),
            GameEvent::Result { result, reason } => {
                self.info(format!("the board shows a result: {result} ({reason})"))
            }
            GameEvent::Clock { .. } => return,
        }
        self.dirty = true;
    }

    // ------------------------------------------------------------------ commands

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        match self.options.set(name, value) {
            Err(e) => self.info(format!("setoption ignored: {e}")),
            Ok(Changed::Nothing) => {}
            Ok(Changed::Notation) => {
                let mode = self.mode();
                if let Some(g) = &mut self.gui {
                    g.set_mode(mode);
                }
            }
            // Before the start the settings go with `Start`.
            Ok(Changed::Settings) if !self.started => {}
            Ok(Changed::Settings) => {
                self.actions
                    .push_back(Action::Configure(self.options.settings));
            }
        }
    }

    fn mode(&self) -> CastlingMode {
        if self.options.chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        }
    }

    fn position(&mut self, start: &Start, moves: &[String]) {
        let mut line = match start {
            Start::StartPos => GameLine::new(Chess::default(), CastlingMode::Standard),
            Start::Fen(fen) => match GameLine::from_fen(fen, self.options.chess960) {
                Ok(l) => l,
                Err(e) => {
                    self.info(format!("position ignored: {} is {e}", shorten(fen)));
                    return;
                }
            },
        };
        if self.options.chess960 {
            line.set_mode(CastlingMode::Chess960);
        }
        for (i, m) in moves.iter().enumerate() {
            if let Err(e) = line.push_uci(m) {
                self.info(format!("position ignored: move {} {e}", i + 1));
                return;
            }
        }
        self.gui = Some(line);
        self.answered = false;
        self.sync();
    }

    fn go(&mut self, go: Go) {
        if self.search.is_some() {
            self.info("go ignored: already waiting for a move");
            return;
        }
        if self.gui.is_none() {
            self.info("go without a position: playing from the start position");
            self.gui = Some(GameLine::new(Chess::default(), self.mode()));
        }
        let Some(gui) = &self.gui else { return };
        if gui.current().legal_moves().is_empty() {
            // Nothing can be played: say so rather than wait for ever.
            self.info("no legal move in this position");
            self.say("bestmove (none)");
            return;
        }
        let side = side_name(gui.current().turn());
        self.search = Some(Search {
            infinite: go.infinite,
            ponder: go.ponder,
        });
        match &self.relation {
            Some(Relation::Level) => self.info(format!("waiting for {side}'s move on the board")),
            Some(Relation::Unknown) | None => {
                self.info(format!("waiting for the board, then for {side}'s move"))
            }
            _ => {}
        }
        self.sync();
    }

    fn stop(&mut self) {
        if self.dirty {
            self.sync();
        }
        if self.search.take().is_none() {
            return;
        }
        match self.relation {
            Some(Relation::Ahead { mv, .. }) => self.bestmove(mv),
            _ => {
                self.info("stopped before a move was made on the board");
                self.say("bestmove 0000");
            }
        }
    }

    /// Shows (or clears) an indication unless it is shown already; whether it changed.
    fn show(&mut self, indication: Option<Indication>) -> bool {
        if self.shown == indication {
            return false;
        }
        match &indication {
            Some(i) => self.actions.push_back(Action::Show(i.clone())),
            None => self.actions.push_back(Action::Clear),
        }
        self.shown = indication;
        true
    }

    fn bestmove(&mut self, mv: Move) {
        let uci = match &self.gui {
            Some(gui) => gui.uci(mv),
            None => shakmaty::uci::UciMove::from_move(mv, self.mode()).to_string(),
        };
        self.say(format!("bestmove {uci}"));
        self.answered = true;
    }

    fn say(&mut self, line: impl Into<String>) {
        self.out.push_back(line.into());
    }

    fn info(&mut self, text: impl AsRef<str>) {
        // An info string ends at the line's end: keep it on one line, and write any other
        // control character the GUI sent (NUL, ESC…) as an escape, not as itself.
        let text: String = text
            .as_ref()
            .chars()
            .map(|c| match c {
                '\n' | '\r' => " ".to_string(),
                c if c.is_control() => c.escape_default().to_string(),
                c => c.to_string(),
            })
            .collect();
        let line = format!("info string {text}");
        if self.greeted {
            self.out.push_back(line);
        } else {
            if self.early.len() == EARLY_INFOS {
                self.early.pop_front();
            }
            self.early.push_back(line);
        }
    }
}

mod decide;

#[cfg(test)]
mod tests;
