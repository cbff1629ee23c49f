//! The board task when `eboardd uci` opens the board itself.
//!
//! It finds the board (the `--device` given, or the first serial port a board answers on),
//! tells its protocol when asked to (`auto`: the daemon's probe), opens it as a
//! [`Device`] and runs it: game events go to the bridge, the engine's actions come back as
//! commands for the board's core, which shows a move on the LEDs and clock the board has.
//! When the board goes away it is opened again, with the daemon's back-off
//! ([`link::Reconnect`]), and the game goes on where its events left it.
//! It is first opened at the engine's [`Action::Start`], with the options the GUI set
//! before; options changed later reopen it the same way, its core built with them (the
//! board answers the start-up again with a whole-board report).

use std::path::{Path, PathBuf};

use shakmaty::uci::UciMove;

use super::bridge::{News, TaskChannels};
use super::engine::{Action, Indication};
use super::line::GameLine;
use super::options::Settings;
use crate::daemon::core::{CommandError, CoreCommand};
use crate::device::{Device, DeviceError, DeviceOutput};
use crate::event::GameEvent;
use crate::game::record::GameRecord;
use crate::laws::LawsConfig;
use crate::link::{self, LinkError, Reconnect};
use crate::pipeline::CoreConfig;
use crate::protocol::Protocol;
use crate::tracker::TrackerConfig;

/// Which board to open.
#[derive(Debug, Clone, Default)]
pub struct DirectConfig {
    /// The device (default: the first serial port a board answers on).
    pub device: Option<PathBuf>,
    /// The protocol (default: asked of the board).
    pub protocol: Option<Protocol>,
}

/// What the task remembers across reopenings.
#[derive(Debug, Default)]
struct State {
    settings: Settings,
    record: GameRecord,
    shown: Option<Indication>,
    last_notice: Option<String>,
}

impl State {
    fn notice(&mut self, ch: &TaskChannels, text: String) {
        if self.last_notice.as_ref() != Some(&text) {
            tracing::info!("{text}");
            let _ = ch.news.send(News::Notice(text.clone()));
            self.last_notice = Some(text);
        }
    }
}

/// Why a session with the board ended.
enum Ended {
    /// The bridge is gone: the task ends.
    Bridge,
    /// Open the board again at once (the settings changed).
    Reopen,
    /// The board went away: open it again after a wait.
    Lost(LinkError),
}

/// Runs the board task until the bridge closes its channel.
pub async fn run(config: DirectConfig, mut ch: TaskChannels) {
    let mut state = State::default();
    let mut protocol = config.protocol;
    // The board is opened once the GUI has set its options and wants the engine ready.
    loop {
        match ch.actions.recv().await {
            None => return,
            Some(Action::Start(settings)) => {
                state.settings = settings;
                break;
            }
            Some(action) => remember_offline(&mut state, &ch, action),
        }
    }
    let mut reconnect = Reconnect::default();
    loop {
        match open(&config, protocol, &state).await {
            Ok((device, found, path)) => {
                if config.device.is_some() {
                    protocol = Some(found);
                }
                reconnect.up();
                state.notice(
                    &ch,
                    format!("reading the {found} board on {}", path.display()),
                );
                match session(device, &mut state, &mut ch).await {
                    Ended::Bridge => return,
                    Ended::Reopen => continue,
                    Ended::Lost(e) => {
                        reconnect.failed(&e);
                    }
                }
            }
            Err(why) => {
                reconnect.failed(&why);
                state.notice(&ch, format!("no board yet: {why}"));
            }
        }
        // Wait, still taking actions so that nothing the engine asked for is lost.
        let deadline = reconnect.next_try();
        loop {
            tokio::select! {
                action = ch.actions.recv() => match action {
                    None => return,
                    Some(action) => remember_offline(&mut state, &ch, action),
                },
                () = tokio::time::sleep_until(deadline) => break,
            }
        }
    }
}

/// An action while no board is open: kept for when it is.
fn remember_offline(state: &mut State, ch: &TaskChannels, action: Action) {
    match action {
        Action::Show(i) => state.shown = Some(i),
        Action::Clear => state.shown = None,
        Action::Start(s) | Action::Configure(s) => state.settings = s,
        Action::SetPosition(fen) => {
            let event = GameEvent::NewGame {
                chess960: crate::daemon::core::GameSetup::parse(&fen).is_ok_and(|s| s.chess960),
                fen,
            };
            state.record.apply(&event);
            // The engine hears of it as if the board had started the game.
            let _ = ch.news.send(News::Events(vec![event]));
        }
    }
}

/// The board's core as the settings say: the tracker's settle window, the arbiter's
/// edition and touch-move mode.
fn core_config(settings: &Settings) -> CoreConfig {
    CoreConfig {
        tracker: TrackerConfig {
            settle: settings.settle,
            ..TrackerConfig::default()
        },
        laws: LawsConfig {
            edition: settings.laws,
            touch_move: settings.touch_move,
            ..LawsConfig::default()
        },
        ..CoreConfig::default()
    }
}

/// Finds, probes and opens the board.
async fn open(
    config: &DirectConfig,
    protocol: Option<Protocol>,
    state: &State,
) -> Result<(Device, Protocol, PathBuf), LinkError> {
    let (port, protocol) = match &config.device {
        Some(path) => link::connect(path, protocol, Protocol::Dgt)
            .await
            .map_err(|e| named(path, e))?,
        None => find_board().await?,
    };
    let path = port.path().to_path_buf();
    let mut device = Device::on(port, protocol, core_config(&state.settings));
    // A GUI waits for the move, not for the clock's times at the press.
    device.core_mut().send_moves_at_once();
    if let Some(fen) = &state.record.start_fen {
        let moves: Vec<UciMove> = state.record.moves.iter().map(|m| m.uci).collect();
        let now = device.now();
        if let Err(e) = device.core_mut().resume(now, fen, &moves) {
            tracing::warn!("the game could not be taken up again: {e}");
        }
    }
    device
        .start()
        .await
        .map_err(|e| named(&path, e.into_link()))?;
    Ok((device, protocol, path))
}

/// `e`, saying which port it was about when it does not yet.
fn named(path: &Path, e: LinkError) -> LinkError {
    let shown = path.display().to_string();
    if e.reason.contains(&shown) {
        return e;
    }
    LinkError {
        reason: format!("{shown}: {}", e.reason),
        ..e
    }
}

/// The first USB or Bluetooth serial port a board answers on, open, and the board's
/// protocol. Other serial ports (a built-in UART, a modem) are not written to unasked.
async fn find_board() -> Result<(link::Port, Protocol), LinkError> {
    let mut candidates: Vec<PathBuf> = serialport::available_ports()
        .unwrap_or_default()
        .into_iter()
        .map(|p| PathBuf::from(p.port_name))
        .collect();
    if let Ok(dir) = std::fs::read_dir("/dev") {
        candidates.extend(dir.filter_map(Result::ok).map(|e| e.path()));
    }
    candidates.retain(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(is_board_port_name)
    });
    candidates.sort();
    candidates.dedup();
    for path in candidates {
        if let Ok(found) = link::connect(&path, None, Protocol::Dgt).await {
            return Ok(found);
        }
    }
    Err(LinkError {
        unplugged: true,
        reason: "no USB or Bluetooth serial port has a board on it (give --device PATH)".into(),
    })
}

/// Whether a device name is a USB serial adapter or a Bluetooth serial link.
fn is_board_port_name(name: &str) -> bool {
    ["ttyUSB", "ttyACM", "rfcomm"].iter().any(|prefix| {
        name.strip_prefix(prefix)
            .is_some_and(|n| n.parse::<u32>().is_ok())
    })
}

enum Step {
    Board(Result<DeviceOutput, DeviceError>),
    Action(Option<Action>),
}

async fn session(mut device: Device, state: &mut State, ch: &mut TaskChannels) -> Ended {
    if let Some(shown) = state.shown.clone() {
        show(&mut device, &shown).await;
    }
    loop {
        let step = tokio::select! {
            out = device.next() => Step::Board(out),
            action = ch.actions.recv() => Step::Action(action),
        };
        match step {
            Step::Board(Ok(DeviceOutput::Event(first))) => {
                state.record.apply(&first.event);
                if !forward_events(&mut device, state, ch, vec![first.event]) {
                    return Ended::Bridge;
                }
            }
            Step::Board(Ok(DeviceOutput::Sensed(_))) => {}
            Step::Board(Err(e)) => {
                state.notice(ch, format!("the board went away ({e}); opening it again"));
                return Ended::Lost(e.into_link());
            }
            Step::Action(None) => {
                if state.shown.is_some() {
                    clear(&mut device).await;
                }
                return Ended::Bridge;
            }
            Step::Action(Some(action)) => match action {
                Action::Show(i) => {
                    show(&mut device, &i).await;
                    state.shown = Some(i);
                }
                Action::Clear => {
                    clear(&mut device).await;
                    state.shown = None;
                }
                Action::SetPosition(fen) => {
                    // The engine asks before it has heard of the board's game; events
                    // may be on their way, or still in the core.
                    if !forward_events(&mut device, state, ch, Vec::new()) {
                        return Ended::Bridge;
                    }
                    if game_passed_through(&state.record, &fen) {
                        // The board's game already went through the GUI's position (the
                        // player moved first): starting it again would throw those moves
                        // away. The engine finds the board level or ahead once it has the
                        // events.
                        state.notice(
                            ch,
                            "the board's game already passed through the GUI's position; \
                             it goes on from there"
                                .to_string(),
                        );
                        continue;
                    }
                    let now = device.now();
                    if let Err(e) = device.core_mut().new_game(now, &fen) {
                        let _ = ch
                            .news
                            .send(News::Failed(Action::SetPosition(fen), e.to_string()));
                    }
                }
                Action::Start(settings) | Action::Configure(settings) => {
                    if settings != state.settings {
                        state.settings = settings;
                        // Reopened at once, its core built with the new settings.
                        return Ended::Reopen;
                    }
                }
            },
        }
    }
}

/// Hands the engine `events` (already kept in the game) and every event the core has
/// decided besides, together (the engine weighs them together), and keeps the game they
/// make. False when the bridge is gone.
fn forward_events(
    device: &mut Device,
    state: &mut State,
    ch: &TaskChannels,
    mut events: Vec<GameEvent>,
) -> bool {
    while let Some(e) = device.core_mut().poll_event() {
        state.record.apply(&e.event);
        events.push(e.event);
    }
    events.is_empty() || ch.news.send(News::Events(events)).is_ok()
}

/// Whether the game of `record` went through the position of `fen` (its start or after
/// any of its moves).
fn game_passed_through(record: &GameRecord, fen: &str) -> bool {
    let (Some(start), Ok(wanted)) = (
        record.start_fen.as_deref(),
        GameLine::from_fen(fen, record.chess960),
    ) else {
        return false;
    };
    let Ok(mut game) = GameLine::from_fen(start, record.chess960) else {
        return false;
    };
    for m in &record.moves {
        if game.push_move(&m.uci).is_err() {
            break;
        }
    }
    game.passed_through(&wanted)
}

/// Shows a move on the board as its core can: the LEDs of a board that has them (every
/// Millennium board, a DGT Revelation II), the move on a DGT clock.
async fn show(device: &mut Device, indication: &Indication) {
    let uci = indication.uci.unwrap_or(UciMove::Normal {
        from: indication.from,
        to: indication.to,
        promotion: None,
    });
    let command = CoreCommand::ShowMove {
        uci,
        san: indication.text.clone(),
    };
    if let Err(e) = device.command(command).await {
        // A board that went away is noticed by the next read.
        tracing::warn!("showing the move: {e}");
    }
}

/// Stops showing a move: the LEDs out (where there are LEDs), the clock's times back (where
/// there is a clock). What the board cannot do is left out.
async fn clear(device: &mut Device) {
    for command in [
        CoreCommand::SetLeds(Vec::new()),
        CoreCommand::ClockText(String::new()),
    ] {
        match device.command(command).await {
            Ok(()) | Err(DeviceError::Refused(CommandError::Unsupported(_))) => {}
            Err(e) => tracing::warn!("clearing the move shown: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::daemon::core::START_FEN;
    use crate::uci::bridge::channels;

    #[test]
    fn only_usb_and_bluetooth_serial_ports_are_looked_for_boards() {
        for name in ["ttyUSB0", "ttyACM12", "rfcomm3"] {
            assert!(is_board_port_name(name), "{name}");
        }
        for name in ["ttyS0", "ttyUSB", "rfcomm", "ttyACMx", "pts"] {
            assert!(!is_board_port_name(name), "{name}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_missing_board_is_looked_for_again_and_reported_once() {
        let (mut ours, theirs) = channels();
        let config = DirectConfig {
            device: Some(PathBuf::from("/nonexistent/eboardd-test-board")),
            protocol: Some(Protocol::Dgt),
        };
        let task = tokio::spawn(run(config, theirs));
        ours.actions
            .send(Action::SetPosition(START_FEN.into()))
            .expect("send");
        ours.actions
            .send(Action::Start(Settings::default()))
            .expect("send");
        // Before the start nothing is opened; what was asked is kept, a game set is told.
        assert!(matches!(
            ours.news.recv().await,
            Some(News::Events(e)) if matches!(e.as_slice(), [GameEvent::NewGame { .. }])
        ));
        match ours.news.recv().await {
            Some(News::Notice(text)) => assert!(text.contains("no board yet"), "{text}"),
            other => panic!("{other:?}"),
        }
        tokio::time::sleep(link::BACKOFF_MAX * 2).await;
        assert!(
            ours.news.try_recv().is_err(),
            "said once, not once a second"
        );
        drop(ours.actions);
        let ended = tokio::time::timeout(link::BACKOFF_MIN, task).await;
        assert!(ended.is_ok(), "the task ends with the bridge");
    }
}
