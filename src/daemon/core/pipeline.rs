//! The production core: [`BoardCore`] (codec, sensed board, tracker) plus what a board on a
//! live link needs — each protocol's start-up, the DGT keep-alive, DGT clock commands one
//! at a time ([`ClockQueue`]), the LEDs ([`leds`]), the board's serial number, and for
//! Millennium the status requests that keep its link honest ([`LinkWatch`]). A board that
//! sends nothing for [`SILENCE_LIMIT`] (a DGT board despite the keep-alive, a Millennium
//! board despite the status requests) is a lost link.
//!
//! A DGT board is asked for the whole board every [`DGT_BOARD_CHECK`]: a dump that shows
//! changes no field update reported means the board is not in update mode (the command
//! was lost), and UPDATE_NICE is sent again.
//!
//! Commands to a DGT board are paced ([`Pacer`]): the first 400 ms after the port opened,
//! each next one 100 ms after the one before, so the board's 10-byte command buffer never
//! overflows (a lost UPDATE_NICE would leave a board that never reports a move).
//!
//! LED commands go only to boards known to have LEDs: every Millennium board, and a DGT
//! board once its long serial number says it is a Revelation II. Elsewhere a shown move
//! goes on the clock only, and setting LEDs is refused. A Revelation II has its own
//! auto-reverse (firmware above 3.21) switched off once it said what it is, so that a
//! reversed set-up is turned by eboardd only, not twice.

use std::collections::VecDeque;
use std::time::Duration;

use shakmaty::uci::UciMove;

use crate::event::{Orientation, TimedEvent};
use crate::game::record::GameRecord;
use crate::laws::{self, Edition, LawsConfig};
use crate::pipeline::{BoardCore, CoreConfig, LinkItem, Reconstruction};
use crate::protocol::{Protocol, dgt, millennium};
use crate::sensing::{LinkInfo, SensingConfig};
use crate::time::Time;
use crate::tracker::TrackerConfig;

use super::clock::{ClockError, ClockQueue, ClockRequest};
use super::leds;
use super::pace::Pacer;
use super::watch::{LinkWatch, SILENCE_LIMIT};
use super::writes::RegisterWrites;
use super::{CommandError, Core, CoreCommand, CoreSettings};
use crate::daemon::config::{Laws, TouchMove};

/// How often a DGT board is asked for its serial number to prove the link is alive.
pub const DGT_KEEPALIVE: Duration = Duration::from_secs(1);

/// How often a DGT board is asked for the whole board, to check that its field updates
/// come (a dump that shows changes they never reported: update mode is asked again).
pub const DGT_BOARD_CHECK: Duration = Duration::from_secs(5);

/// The shortest time between two LED changes sent to a board. Changes asked for sooner
/// wait, and only the latest of them is sent: clients asking faster than the serial line
/// can carry must not hold up the board's own reports.
pub const LED_GAP: Duration = Duration::from_millis(50);

/// The production core (see the module documentation). New games, set positions and
/// journalled games to resume go into the tracker.
#[derive(Debug)]
pub struct PipelineCore {
    protocol: Protocol,
    core: BoardCore,
    transmit: VecDeque<Vec<u8>>,
    /// When the LEDs were last changed, and the latest change waiting for [`LED_GAP`].
    leds_sent: Option<Time>,
    leds_due: Option<Vec<Vec<u8>>>,
    events: VecDeque<TimedEvent>,
    keepalive: Option<Time>,
    /// When a DGT board is next asked for the whole board ([`DGT_BOARD_CHECK`]).
    board_check: Option<Time>,
    /// Whether update mode was asked again on this link (said once in the log).
    update_mode_resent: bool,
    clock: ClockQueue,
    watch: LinkWatch,
    /// A Millennium board's register writes, until it echoed them.
    writes: RegisterWrites,
    /// When a DGT board last sent anything. It answers the keep-alive every second, so
    /// [`SILENCE_LIMIT`] without a byte means the link is gone.
    heard: Option<Time>,
    /// Why the DGT link counts as lost.
    silent: Option<String>,
    serial: Option<String>,
    long_serial: Option<String>,
    version: Option<String>,
    /// When the next command may go ([`Pacer`]: a DGT board's 10-byte command buffer).
    pacer: Pacer,
    /// The latest time the core was given.
    now: Time,
}

impl PipelineCore {
    /// Takes the time of a handler call.
    fn tick(&mut self, now: Time) {
        self.now = self.now.max(now);
    }

    /// Whether a command waits to be sent (for its pacing, or for the shell to poll it).
    pub fn has_queued(&self) -> bool {
        !self.transmit.is_empty()
            || self.clock.has_queued()
            || self.watch.has_queued()
            || self.writes.has_queued()
    }

    /// When the next paced command may go, while that is still to come.
    pub fn pacing_due(&self) -> Option<Time> {
        self.pacer.due().filter(|due| *due > self.now)
    }

    /// Changes the LEDs now, or once [`LED_GAP`] has passed since the last change (a
    /// later change replacing this one meanwhile).
    fn set_leds(&mut self, now: Time, messages: Vec<Vec<u8>>) {
        self.leds_due = Some(messages);
        self.send_due_leds(now);
    }

    fn send_due_leds(&mut self, now: Time) {
        if self.leds_sent.is_some_and(|sent| now < sent + LED_GAP) {
            return;
        }
        if let Some(messages) = self.leds_due.take() {
            self.transmit.extend(messages);
            self.leds_sent = Some(now);
        }
    }

    /// Whether the board is known to have LEDs: every Millennium board; of DGT boards only
    /// a Revelation II, told by its long serial number (other DGT boards were seen to
    /// freeze on LED commands).
    fn has_leds(&self) -> bool {
        match self.protocol {
            Protocol::Millennium => true,
            Protocol::Dgt => self
                .long_serial
                .as_deref()
                .is_some_and(dgt::long_serial_is_revelation),
        }
    }

    /// A core for a board speaking `protocol`.
    pub fn new(protocol: Protocol, settings: &CoreSettings) -> Self {
        let tracker = TrackerConfig {
            settle: settings.settle,
            slide_rests: settings.slide_rests,
            ..TrackerConfig::default()
        };
        let config = CoreConfig {
            sensing: SensingConfig {
                orientation: settings.orientation,
                expected: None,
            },
            start_fen: None,
            keep_sensed: false,
            reconstruction: Reconstruction::Tracker,
            tracker,
            laws: laws_config(settings),
        };
        Self::from_config(protocol, config)
    }

    /// A core for a board speaking `protocol`, its reading set up by `config` (the shells
    /// of `watch`, `record`, `demo` and `uci --device`, which set more than the daemon's
    /// settings do).
    pub fn from_config(protocol: Protocol, config: CoreConfig) -> Self {
        PipelineCore {
            protocol,
            core: BoardCore::new(protocol, config),
            transmit: VecDeque::new(),
            leds_sent: None,
            leds_due: None,
            events: VecDeque::new(),
            keepalive: None,
            board_check: None,
            update_mode_resent: false,
            clock: ClockQueue::new(),
            watch: LinkWatch::new(),
            writes: RegisterWrites::new(),
            heard: None,
            silent: None,
            serial: None,
            long_serial: None,
            version: None,
            pacer: Pacer::for_protocol(protocol),
            now: Time::ZERO,
        }
    }

    /// The reading core inside: sensing, tracker and arbiter.
    pub fn board(&self) -> &BoardCore {
        &self.core
    }

    /// The reading core inside, for what the game needs of it (a game resumed, a new game
    /// from a FEN, moves sent at once).
    pub fn board_mut(&mut self) -> &mut BoardCore {
        &mut self.core
    }

    /// The next sensed item kept for the shell (with [`CoreConfig::keep_sensed`]).
    pub fn poll_sensed(&mut self) -> Option<crate::sensing::Sensed> {
        self.core.poll_sensed()
    }

    /// The DGT clock's queue (what is known of the clock).
    pub fn clock(&self) -> &ClockQueue {
        &self.clock
    }

    /// Which way round the board stands now (normal until the board said otherwise).
    fn orientation_now(&self) -> Orientation {
        self.core.sensing().orientation()
    }

    /// Takes in what the board said about its link.
    fn take_link_items(&mut self) {
        while let Some(item) = self.core.poll_link() {
            match item {
                LinkItem::Info(t, LinkInfo::ClockAck(ack)) => self.clock.handle_ack(t, &ack),
                LinkItem::Info(t, LinkInfo::ClockPresent(p)) => self.clock.handle_presence(t, p),
                LinkItem::Info(_, LinkInfo::Serial { text, long }) if !text.is_empty() => {
                    if long {
                        // A Revelation II (firmware 3.25 or later) would turn its own
                        // numbering on a reversed set-up, and eboardd turns it too: its
                        // auto-reverse is switched off once per link.
                        let was = self.has_leds();
                        self.long_serial = Some(text);
                        if !was && self.has_leds() {
                            self.transmit.extend(
                                dgt::Command::Leds(dgt::LedCommand::AutoReverse(false))
                                    .to_bytes()
                                    .ok(),
                            );
                        }
                    } else {
                        self.serial = Some(text);
                    }
                }
                LinkItem::Info(t, LinkInfo::Version(v)) => {
                    // An eONE's own auto-reverse and error LEDs would fight eboardd's
                    // orientation and LEDs: its settings register is written once it
                    // said what it is (once per link).
                    if self.protocol == Protocol::Millennium
                        && self.version.is_none()
                        && millennium::registers::version_is_eone(&v)
                    {
                        self.writes.write(
                            t,
                            millennium::registers::EONE_SETTINGS,
                            millennium::registers::EONE_STARTUP_SETTINGS,
                        );
                    }
                    self.version = Some(v);
                }
                LinkItem::Info(_, LinkInfo::Written { address, data }) => {
                    self.writes.written(address, data);
                }
                LinkItem::Info(_, LinkInfo::Unreported { squares }) => {
                    // The board changed without saying so: the UPDATE_NICE it was sent was
                    // lost (or it was reset meanwhile). Asked again; the next check tells.
                    if self.update_mode_resent {
                        tracing::debug!(squares, "a DGT board still reports no changes");
                    } else {
                        tracing::warn!(
                            squares,
                            "the DGT board's dump shows changes it never reported: update mode asked again"
                        );
                        self.update_mode_resent = true;
                    }
                    self.transmit
                        .extend(dgt::Command::SendUpdateNice.to_bytes().ok());
                }
                LinkItem::Skipped(t) if self.protocol == Protocol::Millennium => {
                    self.watch.skipped(t);
                }
                _ => {}
            }
        }
    }

    fn clock_text(&mut self, now: Time, text: &str) -> Result<(), CommandError> {
        if self.protocol != Protocol::Dgt {
            return Err(CommandError::Unsupported(format!(
                "{} boards have no clock",
                self.protocol
            )));
        }
        self.clock
            .push(now, ClockRequest::Text(text.to_string()))
            .map_err(|e| match e {
                ClockError::NoClock => CommandError::Unsupported(e.to_string()),
                ClockError::Busy(_) => CommandError::Rejected(e.to_string()),
            })
    }
}

impl Core for PipelineCore {
    fn handle_connected(&mut self, now: Time) {
        self.tick(now);
        // What was waiting for the old link is not sent on the new one: it starts afresh.
        self.transmit.clear();
        self.pacer.opened(now);
        self.core.handle_reconnected();
        // The board on the port may be another one now: it says again who it is.
        self.serial = None;
        self.long_serial = None;
        self.version = None;
        match self.protocol {
            Protocol::Dgt => {
                // Clock commands go through the clock's queue, one at a time. The board is
                // read (reset, update mode, the whole board) before it is asked who it is:
                // what is played until the board is read comes as one jump, which the
                // shorter the wait the likelier the tracker can order. A board that brought
                // its game from another port has that game explained from the board as
                // read ([`CoreCommand::Resume`]).
                self.transmit.extend(
                    dgt::startup_commands()
                        .into_iter()
                        .filter(|c| c.first() != Some(&dgt::cmd::CLOCK_MESSAGE)),
                );
                self.clock.restart(now);
                self.keepalive = Some(now + DGT_KEEPALIVE);
                self.board_check = Some(now + DGT_BOARD_CHECK);
                self.update_mode_resent = false;
                self.heard = Some(now);
                self.silent = None;
            }
            Protocol::Millennium => {
                self.transmit.extend(millennium::startup_commands());
                self.writes
                    .connected(now, &millennium::registers::startup_writes());
                self.watch.connected(now);
            }
        }
    }

    fn handle_input(&mut self, now: Time, bytes: &[u8]) {
        self.tick(now);
        match self.protocol {
            Protocol::Dgt => self.heard = self.heard.map(|_| now),
            Protocol::Millennium => self.watch.input(now),
        }
        self.core.handle_input(now, bytes);
        self.take_link_items();
    }

    fn handle_timeout(&mut self, now: Time) {
        self.tick(now);
        self.core.handle_timeout(now);
        self.send_due_leds(now);
        if let Some(due) = self.keepalive.filter(|due| *due <= now) {
            self.transmit
                .extend(dgt::Command::ReturnSerialNr.to_bytes().ok());
            self.keepalive = Some(due.max(now) + DGT_KEEPALIVE);
        }
        if let Some(due) = self.board_check.filter(|due| *due <= now) {
            self.transmit
                .extend(dgt::Command::SendBoard.to_bytes().ok());
            self.board_check = Some(due.max(now) + DGT_BOARD_CHECK);
        }
        self.clock.handle_timeout(now);
        if self.protocol == Protocol::Millennium {
            self.watch.handle_timeout(now);
            self.writes.handle_timeout(now);
        }
        if self.heard.is_some_and(|heard| now >= heard + SILENCE_LIMIT) {
            self.heard = None;
            self.silent = Some(format!(
                "the board sent nothing for {} s, not even answers to the keep-alive",
                SILENCE_LIMIT.as_secs()
            ));
        }
    }

    fn handle_command(&mut self, now: Time, command: CoreCommand) -> Result<(), CommandError> {
        self.tick(now);
        match command {
            CoreCommand::NewGame(setup) | CoreCommand::SetPosition(setup) => self
                .core
                .new_game(now, &setup.fen)
                .map_err(CommandError::Rejected),
            CoreCommand::Resume(events) => {
                let mut record = GameRecord::default();
                for e in &events {
                    record.apply(e);
                }
                let Some(fen) = record.start_fen.clone() else {
                    return Err(CommandError::Rejected(
                        "the journal holds no game start".to_string(),
                    ));
                };
                let moves: Vec<String> = record.moves.iter().map(|m| m.uci.clone()).collect();
                self.core
                    .resume(now, &fen, &moves)
                    .map_err(CommandError::Rejected)
            }
            CoreCommand::ShowMove { uci, san } => {
                let UciMove::Normal { from, to, .. } = uci else {
                    return Err(CommandError::Rejected(format!("{uci} moves no piece")));
                };
                if self.has_leds() {
                    let orientation = self.orientation_now();
                    let messages = leds::show_move(self.protocol, orientation, from, to);
                    self.set_leds(now, messages);
                }
                // The move on the clock too, when there is one.
                if self.protocol == Protocol::Dgt && self.clock.present() == Some(true) {
                    let text = if san.is_empty() { uci.to_string() } else { san };
                    let _ = self.clock_text(now, &text);
                }
                Ok(())
            }
            CoreCommand::SetLeds(squares) => {
                if !self.has_leds() {
                    return Err(CommandError::Unsupported(
                        "this DGT board has no LEDs (it did not say it is a Revelation II)"
                            .to_string(),
                    ));
                }
                let orientation = self.orientation_now();
                let messages = leds::light(self.protocol, orientation, &squares);
                self.set_leds(now, messages);
                Ok(())
            }
            CoreCommand::ClockText(text) => self.clock_text(now, &text),
            CoreCommand::SetOrientation(orientation) => {
                self.core.set_orientation(now, orientation);
                Ok(())
            }
        }
    }

    fn poll_event(&mut self) -> Option<TimedEvent> {
        self.events.pop_front().or_else(|| self.core.poll_event())
    }

    fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        if !self.pacer.ready(self.now) {
            return None;
        }
        let next = self
            .transmit
            .pop_front()
            .or_else(|| self.clock.poll_transmit())
            .or_else(|| self.watch.poll_transmit())
            .or_else(|| self.writes.poll_transmit())?;
        self.pacer.sent(self.now);
        Some(next)
    }

    fn poll_timeout(&self) -> Option<Time> {
        [
            self.core.poll_timeout(),
            self.leds_due
                .as_ref()
                .and(self.leds_sent)
                .map(|sent| sent + LED_GAP),
            self.keepalive,
            self.board_check,
            self.clock.poll_timeout(),
            self.watch.poll_timeout(),
            self.writes.poll_timeout(),
            self.heard.map(|heard| heard + SILENCE_LIMIT),
            self.pacing_due().filter(|_| self.has_queued()),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    fn placement(&self) -> Option<String> {
        let sensing = self.core.sensing();
        sensing.has_report().then(|| sensing.board().to_string())
    }

    fn orientation(&self) -> Option<Orientation> {
        let sensing = self.core.sensing();
        sensing.has_report().then(|| sensing.orientation())
    }

    fn serial(&self) -> Option<String> {
        match self.protocol {
            Protocol::Dgt => self.long_serial.clone().or_else(|| self.serial.clone()),
            // A ChessLink board has no serial number; its firmware version names it.
            Protocol::Millennium => self.version.clone(),
        }
    }

    fn identity(&self) -> Option<String> {
        // The number only: the long form puts the firmware version before it.
        match self.protocol {
            Protocol::Dgt => self.serial.clone(),
            // A ChessLink's version is the same on every board of a model.
            Protocol::Millennium => None,
        }
    }

    fn tells_identity(&self) -> bool {
        self.protocol == Protocol::Dgt
    }

    fn link_lost(&self) -> Option<String> {
        self.watch
            .lost()
            .or(self.silent.as_deref())
            .map(str::to_string)
    }
}

#[cfg(test)]
mod tests;

/// The arbiter's configuration for a board's settings.
fn laws_config(settings: &CoreSettings) -> LawsConfig {
    LawsConfig {
        edition: match settings.laws {
            Laws::Fide2023 => Edition::Fide2023,
            Laws::Fide2014 => Edition::Fide2014,
            Laws::FideClassic => Edition::FideClassic,
        },
        touch_move: match settings.touch_move {
            TouchMove::Report => laws::TouchMove::Report,
            TouchMove::Enforce => laws::TouchMove::Enforce,
            TouchMove::Off => laws::TouchMove::Off,
        },
        ..LawsConfig::default()
    }
}
