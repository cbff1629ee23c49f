//! How the engine weighs the board's game against the GUI's, and what it does about it.

use shakmaty::{Color, Move, Position, Square};

use super::{Action, Engine, Indication, Relation};
use crate::uci::line::align;

impl Engine {
    pub(super) fn relation(&self) -> Relation {
        let Some(gui) = &self.gui else {
            return Relation::Unknown;
        };
        if !self.board_seen {
            return Relation::Unknown;
        }
        let Some(board) = &self.board else {
            return Relation::Setup(gui.current_fen());
        };
        let Some(a) = align(board, gui) else {
            return Relation::Setup(gui.current_fen());
        };
        let board_extra = board.len() - a.board;
        let gui_extra = gui.len() - a.gui;
        match (board_extra, gui_extra) {
            (0, 0) => Relation::Level,
            (0, remaining) => Relation::Behind {
                index: a.gui,
                next: gui.moves()[a.gui],
                remaining,
            },
            (extra, 0) => Relation::Ahead {
                mv: board.moves()[a.board],
                extra,
            },
            (count, _) => Relation::Apart {
                count,
                last: board.moves()[board.len() - 1],
            },
        }
    }

    /// Works out where the games stand and acts on any change.
    pub(super) fn sync(&mut self) {
        self.dirty = false;
        let now = self.relation();
        if self.relation.as_ref() != Some(&now) {
            if self.debug {
                self.info(format!("debug: board and GUI now {now:?}"));
            }
            self.changed(&now);
        }
        if let (Relation::Ahead { mv, .. }, Some(search)) = (&now, self.search)
            && !search.infinite
            && !search.ponder
        {
            self.search = None;
            self.bestmove(*mv);
        }
        self.relation = Some(now);
    }

    fn changed(&mut self, now: &Relation) {
        match now {
            Relation::Unknown => {
                self.show(None);
            }
            Relation::Setup(fen) => {
                self.show(None);
                if self.requested.as_deref() != Some(fen.as_str()) {
                    self.requested = Some(fen.clone());
                    self.actions.push_back(Action::SetPosition(fen.clone()));
                    self.info(format!(
                        "the board is not in the GUI's game: set up {fen} on the board"
                    ));
                }
            }
            Relation::Level => {
                self.show(None);
                if let Some(gui) = &self.gui
                    && self.search.is_some()
                {
                    let side = side_name(gui.current().turn());
                    self.info(format!("the board is level with the GUI: {side} to move"));
                }
            }
            Relation::Behind {
                index,
                next,
                remaining,
            } => self.guide(*index, *next, *remaining),
            Relation::Ahead { mv, extra } => {
                self.show(None);
                if self.answered {
                    // The GUI has its move; the rest is for its next position.
                    return;
                }
                let Some(gui) = &self.gui else { return };
                let uci = gui.uci(*mv);
                if *extra > 1 {
                    self.info(format!(
                        "the board is {extra} moves ahead of the GUI; the player's move is {uci}"
                    ));
                }
                if self.search.is_none_or(|s| s.infinite || s.ponder) {
                    self.info(format!("move made on the board: {uci}"));
                }
            }
            Relation::Apart { count, last } => self.take_back(*count, *last),
        }
    }

    fn guide(&mut self, index: usize, next: Move, remaining: usize) {
        let Some(gui) = &self.gui else { return };
        let san = gui.san(index).unwrap_or_default();
        let uci = gui.uci(next);
        let side = side_name(gui.position(index).map_or(Color::White, |p| p.turn()));
        let more = if remaining > 1 {
            format!(" ({remaining} moves to carry out)")
        } else {
            String::new()
        };
        let board_uci = self.board.as_ref().unwrap_or(gui).uci_move(next);
        let (from, to) = squares_of(next);
        let indication = Indication {
            from,
            to,
            text: clock_text(&san),
            uci: Some(board_uci),
        };
        if self.show(Some(indication)) {
            self.info(format!(
                "carry out the GUI's move on the board: {side} {san} ({uci}){more}"
            ));
        }
    }

    fn take_back(&mut self, count: usize, last: Move) {
        let Some(board) = &self.board else { return };
        let san = board.san(board.len() - 1).unwrap_or_default();
        let (from, to) = squares_of(last);
        let noun = if count == 1 { "move" } else { "moves" };
        let indication = Indication {
            from: to,
            to: from,
            text: "back".to_string(),
            uci: None,
        };
        if self.show(Some(indication)) {
            self.info(format!(
                "the board went another way than the GUI: take back {count} {noun} on the board, the last {san}"
            ));
        }
    }
}

pub(super) fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The squares a move's piece leaves and reaches (the king's for castling).
fn squares_of(m: Move) -> (Square, Square) {
    match m {
        Move::Castle { king, rook } => {
            let to = m.castling_side().map_or(rook, |side| {
                side.king_to(Color::from_white(king.rank() == shakmaty::Rank::First))
            });
            (king, to)
        }
        _ => (m.from().unwrap_or(m.to()), m.to()),
    }
}

/// A SAN move for an eight-character clock display.
fn clock_text(san: &str) -> String {
    san.chars().take(8).collect()
}
