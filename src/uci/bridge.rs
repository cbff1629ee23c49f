//! The thin IO loop of `eboardd uci`: the GUI's lines in, the engine's lines out, and a
//! board task beside it.
//!
//! [`serve`] reads lines from the GUI and [`News`] from the board task, hands both to the
//! [`Engine`], writes every line the engine says (one line, one flush) and sends the
//! engine's [`Action`]s to the board task. The board task is an actor of its own
//! ([`super::direct`] opens the board itself, [`super::follow`] follows a board of the
//! running daemon), so opening or probing a board never holds up an answer to the GUI:
//! `uci` and `isready` are answered at once, always.

use tokio::io::{AsyncBufRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use super::engine::{Action, Engine};
use super::input::{BoundedLines, InputLine, MAX_LINE};
use crate::event::GameEvent;

/// What the board task tells the bridge.
#[derive(Debug, Clone, PartialEq)]
pub enum News {
    /// Events of the board's game, decided together.
    Events(Vec<GameEvent>),
    /// An action could not be carried out, and why.
    Failed(Action, String),
    /// Something for the person at the GUI (the board connected, went away…).
    Notice(String),
}

/// The bridge's end of the channels to a board task.
#[derive(Debug)]
pub struct BoardChannels {
    /// Actions for the board.
    pub actions: mpsc::UnboundedSender<Action>,
    /// What the board task reports.
    pub news: mpsc::UnboundedReceiver<News>,
}

/// The board task's end of the channels.
#[derive(Debug)]
pub struct TaskChannels {
    /// Actions to carry out, in order; closed when the bridge ends.
    pub actions: mpsc::UnboundedReceiver<Action>,
    /// Where to report.
    pub news: mpsc::UnboundedSender<News>,
}

/// A pair of connected channel ends.
pub fn channels() -> (BoardChannels, TaskChannels) {
    let (actions_tx, actions_rx) = mpsc::unbounded_channel();
    let (news_tx, news_rx) = mpsc::unbounded_channel();
    (
        BoardChannels {
            actions: actions_tx,
            news: news_rx,
        },
        TaskChannels {
            actions: actions_rx,
            news: news_tx,
        },
    )
}

/// Runs the engine until `quit` or the end of `input`; returns when the last line is
/// written. A write that fails (the GUI went away) ends it too.
pub async fn serve<R, W>(
    mut engine: Engine,
    input: R,
    mut output: W,
    mut board: BoardChannels,
) -> std::io::Result<()>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut lines = BoundedLines::new(input, MAX_LINE);
    let mut board_open = true;
    loop {
        while let Some(line) = engine.poll_line() {
            output.write_all(line.as_bytes()).await?;
            output.write_all(b"\n").await?;
            output.flush().await?;
        }
        while let Some(action) = engine.poll_action() {
            tracing::debug!("board action {action:?}");
            if board.actions.send(action.clone()).is_err() {
                engine.handle_action_failed(&action, "the board task has ended");
            }
        }
        if engine.wants_quit() {
            // Lines and actions are out; an action left in the channel is still carried
            // out by the board task before it sees the channel closed.
            return Ok(());
        }
        tokio::select! {
            line = lines.next_line() => match line {
                Ok(Some(InputLine::Text(line))) => {
                    tracing::debug!("gui: {line}");
                    engine.handle_line(&line);
                }
                // A line we cannot read is skipped (and told as the engine tells any line
                // it does not know).
                Ok(Some(InputLine::NotUtf8)) => engine.handle_line("\u{fffd}"),
                Ok(Some(InputLine::TooLong(len))) => {
                    tracing::warn!("a line of {len} bytes from the GUI was ignored");
                    engine.handle_notice(&format!(
                        "a line of {len} bytes was ignored: lines are at most {MAX_LINE} bytes"
                    ));
                }
                Ok(None) => engine.handle_input_closed(),
                // A broken input ends the engine.
                Err(_) => engine.handle_input_closed(),
            },
            news = board.news.recv(), if board_open => match news {
                Some(News::Events(events)) => {
                    for e in &events {
                        engine.handle_event(e);
                    }
                }
                Some(News::Failed(action, why)) => engine.handle_action_failed(&action, &why),
                Some(News::Notice(text)) => engine.handle_notice(&text),
                None => {
                    board_open = false;
                    engine.handle_notice("the board task ended; no more moves will come");
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};

    use super::*;
    use crate::daemon::core::START_FEN;

    /// The next line that is not an `info string`, within five seconds.
    async fn next_protocol_line(lines: &mut Lines<BufReader<DuplexStream>>) -> Option<String> {
        tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                match lines.next_line().await.ok()? {
                    Some(l) if l.starts_with("info string") => continue,
                    other => return other,
                }
            }
        })
        .await
        .ok()
        .flatten()
    }

    #[tokio::test]
    async fn a_line_that_is_not_utf8_is_reported_and_the_next_is_read() {
        let (mut gui, engine_in) = tokio::io::duplex(4096);
        let (engine_out, from_engine) = tokio::io::duplex(4096);
        let (ours, _task) = channels();
        let bridge = tokio::spawn(serve(
            Engine::new(),
            BufReader::new(engine_in),
            engine_out,
            ours,
        ));
        let mut replies = BufReader::new(from_engine).lines();
        gui.write_all(b"uci\n\xff\xfe go\nisready\n")
            .await
            .expect("write");
        let mut said = Vec::new();
        while let Some(l) = next_protocol_line(&mut replies).await {
            let done = l == "readyok";
            said.push(l);
            if done {
                break;
            }
        }
        assert_eq!(said.last().map(String::as_str), Some("readyok"), "{said:?}");
        drop(gui);
        let _ = tokio::time::timeout(Duration::from_secs(5), bridge).await;
    }

    #[tokio::test]
    async fn the_gui_is_answered_while_the_board_is_silent_and_a_move_ends_the_wait() {
        let (mut gui, engine_in) = tokio::io::duplex(4096);
        let (engine_out, from_engine) = tokio::io::duplex(4096);
        let (ours, mut task) = channels();
        let bridge = tokio::spawn(serve(
            Engine::new(),
            BufReader::new(engine_in),
            engine_out,
            ours,
        ));
        let mut replies = BufReader::new(from_engine).lines();
        gui.write_all(b"uci\n").await.expect("write");
        let mut got = Vec::new();
        while let Some(l) = next_protocol_line(&mut replies).await {
            let done = l == "uciok";
            got.push(l);
            if done {
                break;
            }
        }
        assert_eq!(got.last().map(String::as_str), Some("uciok"), "{got:?}");
        gui.write_all(b"position startpos\ngo wtime 1000 btime 1000\nisready\n")
            .await
            .expect("write");
        assert_eq!(
            next_protocol_line(&mut replies).await.as_deref(),
            Some("readyok")
        );
        let start = vec![
            GameEvent::Board {
                placement: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR".into(),
                orientation: Default::default(),
            },
            GameEvent::NewGame {
                fen: START_FEN.into(),
                chess960: false,
            },
        ];
        task.news.send(News::Events(start)).expect("send");
        let e4 = GameEvent::Move {
            ply: 1,
            uci: "e2e4".parse().expect("uci"),
            san: "e4".parse().expect("san"),
            fen: String::new(),
            clock_ms: None,
            emt_ms: None,
            alternatives: Vec::new(),
        };
        task.news.send(News::Events(vec![e4])).expect("send");
        assert_eq!(
            next_protocol_line(&mut replies).await.as_deref(),
            Some("bestmove e2e4")
        );
        drop(gui);
        let ended = tokio::time::timeout(Duration::from_secs(5), bridge).await;
        assert!(matches!(ended, Ok(Ok(Ok(())))), "{ended:?}");
        assert!(
            matches!(task.actions.recv().await, Some(Action::Start(_))),
            "the board is started at the first isready"
        );
        assert!(
            task.actions.recv().await.is_none(),
            "the board task is told to end"
        );
    }
}
