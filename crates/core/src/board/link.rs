//! The live link's side of the board core: what a board on a port needs beyond reading
//! it, from the board type's [`Driver`]: its start-up and pacing, keep-alive, identity,
//! clock and LEDs. [`Link`] is the same for every board type: it keeps the queue of bytes
//! to send and paces it as the driver says, limits how often the LEDs change
//! ([`LED_GAP`]), and carries out [`CoreCommand`]s; [`BoardCore`] holds one and
//! implements [`Core`] with it.
//!
//! LED commands go only to boards the driver knows to have LEDs (every Millennium board; a
//! DGT board once it said it is a Revelation II). Elsewhere a shown move goes on the clock
//! only, and setting LEDs is refused with the driver's reason. A move shown before the
//! board said it has LEDs is lit when it does, unless the LEDs were set meanwhile.

use std::collections::VecDeque;
use std::time::Duration;

use shakmaty::Square;
use shakmaty::uci::UciMove;

use crate::event::{Orientation, TimedEvent};
use crate::game::record::GameRecord;
use crate::laws::LawsConfig;
use crate::pipeline::{BoardCore, CoreConfig, Reconstruction};
use crate::protocol::Protocol;
use crate::protocol::driver::{Driver, DriverError};
use crate::protocol::link::LinkInfo;
use crate::protocol::pace::Pacer;
use crate::sensing::SensingConfig;
use crate::time::Time;
use crate::tracker::TrackerConfig;

use super::{CommandError, Core, CoreCommand, CoreSettings};

/// The shortest time between two LED changes sent to a board. Changes asked for sooner
/// wait, and only the latest of them is sent: clients asking faster than the serial line
/// can carry must not hold up the board's own reports.
pub const LED_GAP: Duration = Duration::from_millis(50);

/// The link side of one board's core (see the module documentation).
#[derive(Debug)]
pub(crate) struct Link {
    driver: Box<dyn Driver>,
    transmit: VecDeque<Vec<u8>>,
    /// When the LEDs were last changed, and the latest change waiting for [`LED_GAP`].
    leds_sent: Option<Time>,
    leds_due: Option<Vec<Vec<u8>>>,
    /// A move asked to be shown before the board said it has LEDs: lit once it does.
    shown_awaiting_leds: Option<(Square, Square)>,
    /// When the next command may go (as the driver paces its board).
    pacer: Pacer,
    /// The latest time the core was given.
    now: Time,
    /// Whether a link was ever opened: until then (replay, the benchmarks) what the driver
    /// would send is dropped, so nothing piles up for a shell that never sends.
    connected: bool,
}

impl Link {
    /// The link side for a board speaking `protocol`, not yet connected.
    pub(crate) fn new(protocol: Protocol) -> Link {
        let driver = protocol.driver();
        Link {
            pacer: driver.pacer(),
            driver,
            transmit: VecDeque::new(),
            leds_sent: None,
            leds_due: None,
            shown_awaiting_leds: None,
            now: Time::ZERO,
            connected: false,
        }
    }

    /// Takes the time of a handler call.
    fn tick(&mut self, now: Time) {
        self.now = self.now.max(now);
    }

    /// Bytes came from the board at `now`.
    pub(crate) fn heard(&mut self, now: Time) {
        self.tick(now);
        self.driver.heard(now);
    }

    /// The board said something about itself or its link; the board stands as
    /// `orientation` says.
    pub(crate) fn link_info(&mut self, t: Time, info: LinkInfo, orientation: Orientation) {
        self.tick(t);
        let queued = self.transmit.len();
        self.driver.link_info(t, info, &mut self.transmit);
        self.drop_unless_connected(queued);
        // A board that has just said it has LEDs shows the move it was asked to show.
        if self.driver.has_leds()
            && let Some((from, to)) = self.shown_awaiting_leds.take()
        {
            self.show_move_leds(self.now, orientation, from, to);
        }
    }

    /// Lights a move's squares on a board known to have LEDs; on any other board keeps
    /// them until it says it has (a DGT board says whether it is a Revelation II only after
    /// its start-up questions).
    fn show_move_leds(&mut self, now: Time, orientation: Orientation, from: Square, to: Square) {
        if self.driver.has_leds() {
            let messages = self.driver.show_move_leds(orientation, from, to);
            self.set_leds(now, messages);
        } else {
            self.shown_awaiting_leds = Some((from, to));
        }
    }

    /// Drops what was queued after the first `queued` commands when no link was opened.
    fn drop_unless_connected(&mut self, queued: usize) {
        if !self.connected {
            self.transmit.truncate(queued);
        }
    }

    /// The decoder dropped bytes.
    pub(crate) fn skipped(&mut self, t: Time) {
        self.driver.skipped(t);
    }

    /// Lets the link's timers due at or before `now` fire.
    pub(crate) fn handle_timeout(&mut self, now: Time) {
        self.tick(now);
        self.send_due_leds(now);
        let queued = self.transmit.len();
        self.driver.handle_timeout(now, &mut self.transmit);
        self.drop_unless_connected(queued);
    }

    /// When the link's next timer is due.
    pub(crate) fn poll_timeout(&self) -> Option<Time> {
        [
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

    /// Whether a command waits to be sent (for its pacing, or for the shell to poll it).
    fn has_queued(&self) -> bool {
        !self.transmit.is_empty() || self.driver.has_queued()
    }

    /// When the next paced command may go, while that is still to come.
    fn pacing_due(&self) -> Option<Time> {
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

    fn connected(&mut self, now: Time) {
        self.tick(now);
        self.connected = true;
        // What was waiting for the old link is not sent on the new one: it starts afresh.
        self.transmit.clear();
        self.pacer.opened(now);
        // The board on the port may be another one now: it says again who it is.
        self.driver.connected(now, &mut self.transmit);
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
}

impl BoardCore {
    /// A core for a board speaking `protocol`, set up by the daemon's settings for it.
    pub fn for_settings(protocol: Protocol, settings: &CoreSettings) -> Self {
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
        BoardCore::new(protocol, config)
    }

    /// Whether a command waits to be sent (for its pacing, or for the shell to poll it).
    pub fn has_queued(&self) -> bool {
        self.link.has_queued()
    }

    /// When the next paced command may go, while that is still to come.
    pub fn pacing_due(&self) -> Option<Time> {
        self.link.pacing_due()
    }

    /// Which way round the board stands now (normal until the board said otherwise).
    fn orientation_now(&self) -> Orientation {
        self.sensing().orientation()
    }
}

impl Core for BoardCore {
    fn handle_connected(&mut self, now: Time) {
        self.link.connected(now);
        self.handle_reconnected();
    }

    fn handle_input(&mut self, now: Time, bytes: &[u8]) {
        BoardCore::handle_input(self, now, bytes);
    }

    fn handle_timeout(&mut self, now: Time) {
        BoardCore::handle_timeout(self, now);
    }

    fn handle_command(&mut self, now: Time, command: CoreCommand) -> Result<(), CommandError> {
        self.link.tick(now);
        match command {
            CoreCommand::NewGame(setup) | CoreCommand::SetPosition(setup) => self
                .new_game(now, &setup.fen)
                .map_err(|e| CommandError::Rejected(e.to_string())),
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
                let moves: Vec<UciMove> = record.moves.iter().map(|m| m.uci).collect();
                self.resume(now, &fen, &moves)
                    .map_err(|e| CommandError::Rejected(e.to_string()))
            }
            CoreCommand::ShowMove { uci, san } => {
                let UciMove::Normal { from, to, .. } = uci else {
                    return Err(CommandError::Rejected(format!("{uci} moves no piece")));
                };
                let orientation = self.orientation_now();
                self.link.show_move_leds(now, orientation, from, to);
                // The move on the clock too, when there is one.
                let text = if san.is_empty() { uci.to_string() } else { san };
                self.link.driver.show_move_on_clock(now, &text);
                Ok(())
            }
            CoreCommand::SetLeds(squares) => {
                self.link.shown_awaiting_leds = None;
                let orientation = self.orientation_now();
                let messages = self
                    .link
                    .driver
                    .light_leds(orientation, &squares)
                    .map_err(refused)?;
                self.link.set_leds(now, messages);
                Ok(())
            }
            CoreCommand::ClockText(text) => {
                self.link.driver.clock_text(now, &text).map_err(refused)
            }
            CoreCommand::SetOrientation(orientation) => {
                self.set_orientation(now, orientation);
                Ok(())
            }
        }
    }

    fn poll_event(&mut self) -> Option<TimedEvent> {
        BoardCore::poll_event(self)
    }

    fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.link.poll_transmit()
    }

    fn poll_timeout(&self) -> Option<Time> {
        BoardCore::poll_timeout(self)
    }

    fn placement(&self) -> Option<String> {
        let sensing = self.sensing();
        sensing.has_report().then(|| sensing.board().to_string())
    }

    fn orientation(&self) -> Option<Orientation> {
        let sensing = self.sensing();
        sensing.has_report().then(|| sensing.orientation())
    }

    fn serial(&self) -> Option<String> {
        self.link.driver.serial()
    }

    fn identity(&self) -> Option<String> {
        self.link.driver.identity()
    }

    fn tells_identity(&self) -> bool {
        self.link.driver.tells_identity()
    }

    fn link_lost(&self) -> Option<String> {
        self.link.driver.link_lost()
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
