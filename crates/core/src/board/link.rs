//! The production core: [`BoardCore`] (codec, sensed board, tracker) plus what a board on a
//! live link needs, from the board type's [`Driver`]: its start-up and pacing, keep-alive,
//! identity, clock and LEDs. The core itself is the same for every board type: it keeps
//! the queue of bytes to send and paces it as the driver says, limits how often the LEDs
//! change ([`LED_GAP`]), and takes commands from the board's task.
//!
//! LED commands go only to boards the driver knows to have LEDs (every Millennium board; a
//! DGT board once it said it is a Revelation II). Elsewhere a shown move goes on the clock
//! only, and setting LEDs is refused.

use std::collections::VecDeque;
use std::time::Duration;

use shakmaty::uci::UciMove;

use crate::event::{Orientation, TimedEvent};
use crate::game::record::GameRecord;
use crate::laws::LawsConfig;
use crate::pipeline::{BoardCore, CoreConfig, LinkItem, Reconstruction};
use crate::protocol::Protocol;
use crate::protocol::driver::{Driver, DriverError};
use crate::protocol::pace::Pacer;
use crate::sensing::SensingConfig;
use crate::time::Time;
use crate::tracker::TrackerConfig;

use super::{CommandError, Core, CoreCommand, CoreSettings};

/// The shortest time between two LED changes sent to a board. Changes asked for sooner
/// wait, and only the latest of them is sent: clients asking faster than the serial line
/// can carry must not hold up the board's own reports.
pub const LED_GAP: Duration = Duration::from_millis(50);

/// The production core (see the module documentation). New games, set positions and
/// journalled games to resume go into the tracker.
#[derive(Debug)]
pub struct PipelineCore {
    driver: Box<dyn Driver>,
    core: BoardCore,
    transmit: VecDeque<Vec<u8>>,
    /// When the LEDs were last changed, and the latest change waiting for [`LED_GAP`].
    leds_sent: Option<Time>,
    leds_due: Option<Vec<Vec<u8>>>,
    /// When the next command may go (as the driver paces its board).
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
        !self.transmit.is_empty() || self.driver.has_queued()
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
        let driver = protocol.driver();
        PipelineCore {
            pacer: driver.pacer(),
            driver,
            core: BoardCore::new(protocol, config),
            transmit: VecDeque::new(),
            leds_sent: None,
            leds_due: None,
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

    /// Which way round the board stands now (normal until the board said otherwise).
    fn orientation_now(&self) -> Orientation {
        self.core.sensing().orientation()
    }

    /// Takes in what the board said about its link.
    fn take_link_items(&mut self) {
        while let Some(item) = self.core.poll_link() {
            match item {
                LinkItem::Info(t, info) => self.driver.link_info(t, info, &mut self.transmit),
                LinkItem::Skipped(t) => self.driver.skipped(t),
            }
        }
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
        self.driver.connected(now, &mut self.transmit);
    }

    fn handle_input(&mut self, now: Time, bytes: &[u8]) {
        self.tick(now);
        self.driver.heard(now);
        self.core.handle_input(now, bytes);
        self.take_link_items();
    }

    fn handle_timeout(&mut self, now: Time) {
        self.tick(now);
        self.core.handle_timeout(now);
        self.send_due_leds(now);
        self.driver.handle_timeout(now, &mut self.transmit);
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
                if self.driver.has_leds() {
                    let orientation = self.orientation_now();
                    let messages = self.driver.show_move_leds(orientation, from, to);
                    self.set_leds(now, messages);
                }
                // The move on the clock too, when there is one.
                let text = if san.is_empty() { uci.to_string() } else { san };
                self.driver.show_move_on_clock(now, &text);
                Ok(())
            }
            CoreCommand::SetLeds(squares) => {
                let orientation = self.orientation_now();
                let messages = self
                    .driver
                    .light_leds(orientation, &squares)
                    .map_err(refused)?;
                self.set_leds(now, messages);
                Ok(())
            }
            CoreCommand::ClockText(text) => self.driver.clock_text(now, &text).map_err(refused),
            CoreCommand::SetOrientation(orientation) => {
                self.core.set_orientation(now, orientation);
                Ok(())
            }
        }
    }

    fn poll_event(&mut self) -> Option<TimedEvent> {
        self.core.poll_event()
    }

    fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        if !self.pacer.ready(self.now) {
            return None;
        }
        let next = self
            .transmit
            .pop_front()
            .or_else(|| self.driver.poll_transmit())?;
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
            self.driver.poll_timeout(),
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
        self.driver.serial()
    }

    fn identity(&self) -> Option<String> {
        self.driver.identity()
    }

    fn tells_identity(&self) -> bool {
        self.driver.tells_identity()
    }

    fn link_lost(&self) -> Option<String> {
        self.driver.link_lost()
    }
}

#[cfg(test)]
mod tests;

/// A driver's refusal as the shell reports it.
fn refused(e: DriverError) -> CommandError {
    match e {
        DriverError::Unsupported(why) => CommandError::Unsupported(why),
        DriverError::Busy(why) => CommandError::Rejected(why),
    }
}

/// The arbiter's configuration for a board's settings.
fn laws_config(settings: &CoreSettings) -> LawsConfig {
    LawsConfig {
        edition: settings.laws,
        touch_move: settings.touch_move,
        ..LawsConfig::default()
    }
}
