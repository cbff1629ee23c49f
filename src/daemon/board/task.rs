//! A board's task: it supervises the port and drives the board's core.
//!
//! The task opens the port (probing the protocol when it is `auto`), runs the core on what
//! the board sends and on its timers, writes what the core asks, journals and publishes
//! every event, and answers requests from its inbox all the while — also while the board is
//! away, when it reopens the port with back-off (0.5 s doubling to 10 s). A board that says
//! who it is (a DGT board's serial number) has its events held back until it did: when its
//! game is another port's ([`crate::daemon::seats`]), the task takes it over with the port
//! still open: the core follows the handed game from the board as it stands, so nothing
//! played meanwhile is lost. Time is tokio's, so tests can pause it. Nothing a board does can
//! stall another board's task.

use crate::relay::pgn::PgnTags;
use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use std::time::Duration;

use tokio::time::Instant;

use super::{BoardError, BoardStatus, Channels, GameFollow, Request};
use crate::daemon::config::ProtocolChoice;
use crate::daemon::core::{Core, CoreCommand, CoreFactory, CoreSettings};
use crate::daemon::game::GameView;
use crate::daemon::journal::{Journal, JournalError, board_key, civil_date};
use crate::daemon::seats::{Handover, Identified, Seats};
use crate::event::{GameEvent, TimedEvent};
use crate::link::{self, Clock, LinkError, Port, Reconnect};
use crate::protocol::Protocol;
use crate::time::Time;
use crate::trace::{TraceHeader, TraceWriter};

/// How long the game's events are held back, after the port opened, for a board that says
/// who it is to do so (a DGT board answers in milliseconds).
pub const IDENTIFY_LIMIT: Duration = Duration::from_secs(2);

/// Everything a board's task starts from.
pub(crate) struct TaskSetup {
    pub device: PathBuf,
    /// The PGN tags of this board's game (the round's and its players).
    pub tags: PgnTags,
    pub protocol: ProtocolChoice,
    pub settings: CoreSettings,
    pub factory: CoreFactory,
    pub journal: Option<Journal>,
    pub resumed: Vec<GameEvent>,
    pub record_dir: Option<PathBuf>,
    /// Which board's game each port holds.
    pub seats: Seats,
    /// This port's journal key, its name among the seats.
    pub key: String,
    /// Woken when another port hands this one a game.
    pub wake: std::sync::Arc<tokio::sync::Notify>,
}

/// How a stretch of the task's life ended.
enum Ended {
    /// Detached, or every handle dropped.
    Stop,
    /// The link failed; try again later.
    Lost(LinkError),
}

pub(crate) struct BoardTask {
    setup: TaskSetup,
    ch: Channels,
    core: Option<(Protocol, Box<dyn Core>)>,
    game: GameView,
    game_events: Vec<GameEvent>,
    clock: Clock,
    connected: bool,
    last_clock: Option<(crate::sensing::ClockReading, std::time::SystemTime)>,
}

impl BoardTask {
    pub(crate) fn new(setup: TaskSetup, ch: Channels) -> Self {
        let mut game = GameView::default();
        for e in &setup.resumed {
            game.apply(e);
        }
        let game_events = setup.resumed.clone();
        let mut task = BoardTask {
            setup,
            ch,
            core: None,
            game,
            game_events,
            clock: Clock::start(),
            connected: false,
            last_clock: None,
        };
        task.refresh_status(true);
        task
    }

    fn now(&self) -> Time {
        self.clock.now()
    }

    fn device(&self) -> String {
        self.setup.device.display().to_string()
    }

    /// Runs until detached.
    pub(crate) async fn run(mut self) {
        let mut reconnect = Reconnect::default();
        loop {
            let ended = match self.connect().await {
                Ok((port, protocol)) => {
                    reconnect.up();
                    tracing::info!(device = %self.device(), %protocol, "board connected");
                    let ended = self.session(port, protocol).await;
                    self.set_connected(false);
                    ended
                }
                Err(e) => e,
            };
            match ended {
                Ended::Stop => break,
                Ended::Lost(e) => {
                    if reconnect.failed(&e) {
                        if e.unplugged {
                            tracing::info!(device = %self.device(), "board away: {e}");
                        } else {
                            tracing::warn!(device = %self.device(), "board failed: {e}");
                        }
                    }
                }
            }
            if self.idle_until(reconnect.next_try()).await {
                break;
            }
        }
        tracing::info!(device = %self.device(), "board detached");
    }

    /// Serves requests while the board is away, until `deadline`; whether to stop.
    async fn idle_until(&mut self, deadline: Instant) -> bool {
        self.serving(tokio::time::sleep_until(deadline))
            .await
            .is_err()
    }

    /// Runs `work` while serving requests; `Err` when the task must end meanwhile.
    async fn serving<F: std::future::Future>(&mut self, work: F) -> Result<F::Output, Ended> {
        tokio::pin!(work);
        let wake = self.setup.wake.clone();
        loop {
            tokio::select! {
                done = &mut work => return Ok(done),
                req = self.ch.requests.recv() => {
                    if let Some(stop) = self.handle_request(req) {
                        return Err(stop);
                    }
                    self.publish_events();
                    self.flush_journal();
                }
                () = wake.notified() => {
                    if let Some(handover) = self.setup.seats.take_inbox(&self.setup.key) {
                        self.adopt(handover);
                    }
                }
            }
        }
    }

    /// Opens the port and finds the protocol ([`link::connect`]), serving requests
    /// meanwhile.
    async fn connect(&mut self) -> Result<(Port, Protocol), Ended> {
        let fixed = match self.setup.protocol {
            ProtocolChoice::Fixed(p) => Some(p),
            ProtocolChoice::Auto => None,
        };
        // A board coming back is asked in the protocol it spoke before.
        let first = self.core.as_ref().map_or(Protocol::Dgt, |(p, _)| *p);
        let path = self.setup.device.clone();
        match self.serving(link::connect(&path, fixed, first)).await {
            Ok(Ok(found)) => Ok(found),
            Ok(Err(e)) => Err(Ended::Lost(e)),
            Err(stop) => Err(stop),
        }
    }

    /// Makes sure the core speaks `protocol`, handing a new core the game so far.
    fn ensure_core(&mut self, protocol: Protocol) {
        if self.core.as_ref().is_some_and(|(p, _)| *p == protocol) {
            return;
        }
        let mut core = (self.setup.factory)(protocol, &self.setup.settings);
        if !self.game_events.is_empty() {
            let now = self.now();
            let resume = CoreCommand::Resume(self.game_events.clone());
            if let Err(e) = core.handle_command(now, resume) {
                tracing::warn!(device = %self.device(), "the core could not resume the game: {e}");
            }
        }
        self.core = Some((protocol, core));
    }

    /// Drives the core on an open port until the link is lost or the task stops.
    async fn session(&mut self, mut port: Port, protocol: Protocol) -> Ended {
        self.ensure_core(protocol);
        self.start_recording(&mut port, protocol);
        let now = self.now();
        if let Some((_, core)) = &mut self.core {
            core.handle_connected(now);
        }
        self.set_connected(true);
        // Until the board said who it is, its events wait: the game here may be another's.
        let mut identify_by = self
            .core
            .as_ref()
            .is_some_and(|(_, c)| c.tells_identity())
            .then(|| Instant::now() + IDENTIFY_LIMIT);
        let wake = self.setup.wake.clone();
        let ended = loop {
            if let Some(e) = port.take_trace_error() {
                tracing::warn!(device = %self.device(), "recording stopped: {e}");
            }
            if let Some(by) = identify_by {
                let identity = self.core.as_ref().and_then(|(_, c)| c.identity());
                if let Some(identity) = identity {
                    identify_by = None;
                    let seats = self.setup.seats.clone();
                    match seats.identified(&self.setup.key, &identity, &self.game_events) {
                        Identified::Keep => {}
                        Identified::Take { taken, unserved } => {
                            tracing::info!(device = %self.device(), board = identity, "the board brought its game from another port");
                            if let Some((key, game)) = unserved {
                                self.setup.seats.write_journal(&key, &game);
                            }
                            self.adopt_live(taken, protocol);
                        }
                    }
                } else if Instant::now() >= by {
                    identify_by = None;
                    tracing::debug!(device = %self.device(), "the board did not say who it is");
                }
            }
            let game_changed = identify_by.is_none() && self.publish_events();
            self.refresh_status(game_changed);
            if self.setup.journal.as_ref().is_some_and(Journal::flush_due) {
                // The tasks the events woke (D-Bus, clients) send them first: the disk's
                // flush takes a while and is not theirs to wait for.
                tokio::task::yield_now().await;
                self.flush_journal();
            }
            // Never `None` here: `ensure_core` made it, and `adopt_live` makes another.
            let Some((_, core)) = self.core.as_mut() else {
                break Ended::Stop;
            };
            tokio::select! {
                req = self.ch.requests.recv() => {
                    if let Some(stop) = self.handle_request(req) {
                        break stop;
                    }
                }
                () = wake.notified() => {
                    if let Some(handover) = self.setup.seats.take_inbox(&self.setup.key) {
                        self.adopt_live(handover, protocol);
                    }
                }
                stepped = port.step(core.as_mut(), &self.clock, identify_by) => {
                    if let Err(e) = stepped {
                        if identify_by.is_none() {
                            self.publish_events();
                            self.flush_journal();
                        }
                        break Ended::Lost(e);
                    }
                }
            }
        };
        self.setup.seats.away(&self.setup.key);
        ended
    }

    /// Takes over the game `handover` (it followed its board here): journalled here, and
    /// resumed by the core made when the port is next open.
    fn adopt(&mut self, handover: Handover) {
        self.take_game(handover);
        // The old core's events were about the other game: they go with it.
        self.core = None;
    }

    /// Takes over the game `handover` while the port is open: the running core follows it
    /// from the board as it stands, without reading the board afresh (closing the port, or
    /// a reset, would lose what is played meanwhile). What the core decided so far about
    /// the port's old game goes with it; what it said of the board and the clock stays. A
    /// handed game without a start leaves a fresh core that starts the board afresh.
    fn adopt_live(&mut self, handover: Handover, protocol: Protocol) {
        let mut kept = Vec::new();
        while let Some(event) = self.core.as_mut().and_then(|(_, c)| c.poll_event()) {
            if matches!(
                event.event,
                GameEvent::Board { .. } | GameEvent::Clock { .. }
            ) {
                kept.push(event);
            }
        }
        self.take_game(handover);
        for event in kept {
            self.publish(event);
        }
        let now = self.now();
        let resumed = match &mut self.core {
            Some((_, core)) if !self.game_events.is_empty() => {
                let resume = CoreCommand::Resume(self.game_events.clone());
                match core.handle_command(now, resume) {
                    Ok(()) => true,
                    Err(e) => {
                        tracing::warn!(device = %self.device(), "the core could not take over the game: {e}");
                        false
                    }
                }
            }
            _ => false,
        };
        if !resumed {
            self.core = None;
            self.ensure_core(protocol);
            if let Some((_, core)) = &mut self.core {
                core.handle_connected(now);
            }
        }
    }

    /// Makes `handover` this port's game: its events, its view and its journal.
    fn take_game(&mut self, handover: Handover) {
        self.game_events = handover.events;
        self.game = GameView::default();
        for e in &self.game_events {
            self.game.apply(e);
        }
        if let Some(journal) = &mut self.setup.journal
            && let Err(e) = journal.replace(&self.game_events)
        {
            tracing::error!(device = %self.setup.device.display(), "journal: {e}");
        }
        self.refresh_status(true);
    }

    /// Handles one request; `Some` when the task must end.
    fn handle_request(&mut self, req: Option<Request>) -> Option<Ended> {
        match req {
            None | Some(Request::Stop) => Some(Ended::Stop),
            Some(Request::Ping(reply)) => {
                let _ = reply.send(());
                None
            }
            Some(Request::Follow(reply)) => {
                let _ = reply.send(GameFollow {
                    record: self.game.record().clone(),
                    clock: self.last_clock,
                    events: self.ch.events.subscribe(),
                });
                None
            }
            Some(Request::Game(reply)) => {
                let _ = reply.send(self.game_events.clone());
                None
            }
            Some(Request::Command(command, reply)) => {
                let _ = reply.send(self.carry_out(command));
                None
            }
        }
    }

    fn carry_out(&mut self, command: CoreCommand) -> Result<(), BoardError> {
        let command = match command {
            CoreCommand::ShowMove { uci, .. } => {
                let (pos, _) = self.game.position();
                let Ok(m) = uci.to_move(pos) else {
                    return Err(BoardError::InvalidArgument(format!(
                        "{uci} is not a legal move in the game position {}",
                        self.game.fen()
                    )));
                };
                let san = shakmaty::san::SanPlus::from_move(pos.clone(), m).to_string();
                CoreCommand::ShowMove { uci, san }
            }
            other => other,
        };
        let needs_board = matches!(
            command,
            CoreCommand::ShowMove { .. } | CoreCommand::SetLeds(_) | CoreCommand::ClockText(_)
        );
        if needs_board && !self.connected {
            return Err(BoardError::NotConnected(self.device()));
        }
        let now = self.now();
        if let CoreCommand::SetOrientation(orientation) = command {
            // A core made later (another protocol) stands the same way.
            self.setup.settings.orientation = Some(orientation);
        }
        match (&mut self.core, command) {
            (Some((_, core)), command) => core.handle_command(now, command).map_err(Into::into),
            // No core yet (the protocol was never found): the game is set here and handed to
            // the core when it is made.
            (None, CoreCommand::NewGame(setup) | CoreCommand::SetPosition(setup)) => {
                self.publish(TimedEvent {
                    t: now,
                    event: GameEvent::NewGame {
                        fen: setup.fen,
                        chess960: setup.chess960,
                    },
                });
                self.refresh_status(true);
                Ok(())
            }
            // Likewise the orientation: the core is made with it.
            (None, CoreCommand::SetOrientation(orientation)) => {
                self.setup.settings.orientation = Some(orientation);
                Ok(())
            }
            (None, _) => Err(BoardError::NotConnected(self.device())),
        }
    }

    /// Journals and publishes what the core decided; whether the game changed. The journal
    /// is owed a [`flush_journal`](Self::flush_journal) then.
    fn publish_events(&mut self) -> bool {
        let mut changed = false;
        while let Some(event) = self.core.as_mut().and_then(|(_, c)| c.poll_event()) {
            changed |= self.publish(event);
        }
        changed
    }

    /// Puts what the journal wrote since the last flush on disk.
    fn flush_journal(&mut self) {
        if let Some(journal) = &mut self.setup.journal {
            let behind = journal.behind();
            let result = journal.flush();
            self.report_journal(behind, result);
        }
    }

    /// Says how a journal write went: once when the disk starts refusing, once when it
    /// takes the game again.
    fn report_journal(&self, was_behind: bool, result: Result<(), JournalError>) {
        let Some(journal) = &self.setup.journal else {
            return;
        };
        let device = self.setup.device.display();
        match result {
            Err(e) if !was_behind && journal.behind() => tracing::error!(
                %device,
                "journal: {e}; the game goes on in memory and is written again once the disk takes it"
            ),
            Err(e) if !journal.behind() => tracing::error!(%device, "journal: {e}"),
            Err(e) => tracing::debug!(%device, "journal still behind: {e}"),
            Ok(()) if was_behind && !journal.behind() => tracing::info!(
                %device,
                path = %journal.path().display(),
                "journal: written again, the whole game is on disk"
            ),
            Ok(()) => {}
        }
    }

    /// Journals one event (its line written first), follows it, then publishes it.
    fn publish(&mut self, event: TimedEvent) -> bool {
        if let Some(journal) = &mut self.setup.journal {
            let behind = journal.behind();
            let result = journal.record(&event);
            self.report_journal(behind, result);
        }
        let game_event = matches!(
            event.event,
            GameEvent::NewGame { .. }
                | GameEvent::Move { .. }
                | GameEvent::Retract { .. }
                | GameEvent::Takeback { .. }
                | GameEvent::Result { .. }
                | GameEvent::Violation { .. }
        );
        if game_event {
            if let GameEvent::NewGame { .. } = event.event {
                self.game_events.clear();
            }
            self.game_events.push(event.event.clone());
            self.game.apply(&event.event);
            self.setup.seats.push_event(&self.setup.key, &event.event);
            self.refresh_status(true);
        }
        if let Some(reading) = crate::sensing::ClockReading::of(&event.event) {
            self.last_clock = Some((reading, std::time::SystemTime::now()));
        }
        let _ = self.ch.events.send(event);
        game_event
    }

    fn set_connected(&mut self, connected: bool) {
        self.connected = connected;
        self.refresh_status(false);
    }

    /// Publishes the status if it changed; the PGN is rebuilt when `game` is set.
    fn refresh_status(&mut self, game: bool) {
        let core = self.core.as_ref();
        let placement = core.and_then(|(_, c)| c.placement()).unwrap_or_default();
        let orientation = core
            .and_then(|(_, c)| c.orientation())
            .map(|o| o.as_str().to_string())
            .unwrap_or_default();
        let serial = core.and_then(|(_, c)| c.serial()).unwrap_or_default();
        let protocol = core
            .map(|(p, _)| p.as_str().to_string())
            .unwrap_or_default();
        let pgn = game.then(|| self.pgn());
        let next = BoardStatus {
            connected: self.connected,
            protocol,
            device: self.device(),
            serial,
            orientation,
            placement,
            fen: self.game.fen().to_string(),
            ply: self.game.ply(),
            pgn: String::new(),
            laws: self.setup.settings.laws.name().to_string(),
        };
        self.ch.status.send_if_modified(|s| {
            let next = BoardStatus {
                pgn: pgn.unwrap_or_else(|| s.pgn.clone()),
                ..next
            };
            if *s == next {
                return false;
            }
            *s = next;
            true
        });
    }

    fn pgn(&self) -> String {
        if !self.game.started() {
            return String::new();
        }
        let tags = &self.setup.tags;
        let device = self.device();
        let mut pairs = vec![
            ("Event", tags.event.as_deref().unwrap_or("eboardd game")),
            ("Site", tags.site.as_deref().unwrap_or(&device)),
        ];
        let optional = [
            ("Round", &tags.round),
            ("White", &tags.white),
            ("Black", &tags.black),
            ("TimeControl", &tags.time_control),
        ];
        for (name, value) in optional {
            if let Some(v) = value {
                pairs.push((name, v.as_str()));
            }
        }
        self.game.pgn(&pairs)
    }

    fn start_recording(&self, port: &mut Port, protocol: Protocol) {
        let Some(dir) = &self.setup.record_dir else {
            return;
        };
        let unix_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(0))
            .unwrap_or(0);
        let (_, stamp) = civil_date(unix_ms);
        let path = dir.join(format!("{}-{stamp}.trace", board_key(&self.setup.device)));
        let mut header = TraceHeader::new(protocol);
        header.serial = Some(protocol.line_settings().to_string());
        header.other.push(("device".to_string(), self.device()));
        let writer = std::fs::create_dir_all(dir)
            .and_then(|()| File::create(&path))
            .and_then(|f| TraceWriter::new(BufWriter::new(f), &header));
        match writer {
            Ok(w) => port.record_to(w),
            Err(e) => tracing::warn!("cannot record {}: {e}", path.display()),
        }
    }
}
