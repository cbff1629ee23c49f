//! The DGT driver: what a DGT board needs beyond its codec.
//!
//! - **Probe**: reset and a board request, answered by a board dump within [`PROBE_WAIT`].
//! - **Start-up**, paced: a DGT board in single-board mode has a 10-byte command buffer, so
//!   commands written back to back can overflow it and be lost (a lost UPDATE_NICE means
//!   the board never reports a move). A command goes at least [`COMMAND_GAP`] after the one
//!   before, the first [`OPEN_SETTLE`] after the port was opened. The board is read
//!   (reset, update mode, the whole board) before it is asked who it is.
//! - **Keep-alive**: the serial number asked every [`KEEPALIVE`]; a board that sends
//!   nothing for [`SILENCE_LIMIT`] despite it is a lost link. The whole board is asked
//!   every [`BOARD_CHECK`]: a dump that shows changes no field update reported means the
//!   board is not in update mode (the command was lost), and UPDATE_NICE is sent again.
//! - **Clock**: commands one at a time, acknowledged ([`ClockQueue`]); text shown as the
//!   attached clock (DGT3000 or XL) can show it.
//! - **LEDs** (Revelation II, command 0x60): all off, then the move from its from-field to
//!   its to-field, or each square on its own. Sent only to a board whose long serial
//!   number says it is a Revelation II: plain e-boards were seen to freeze on them. A
//!   Revelation II has its own auto-reverse (firmware above 3.21) switched off once it said
//!   what it is, so that a reversed set-up is turned by eboardd only, not twice.

use std::time::Duration;

use shakmaty::Square;

use crate::event::Orientation;
use crate::protocol::Protocol;
use crate::protocol::dgt;
use crate::protocol::driver::{Driver, DriverError, Outbox, Probe, SILENCE_LIMIT};
use crate::protocol::link::LinkInfo;
use crate::protocol::pace::Pacer;
use crate::time::Time;

use super::clock_queue::{ClockError, ClockQueue, ClockRequest};

/// The least time between two commands to a DGT board (the board's header asks for room
/// in its 10-byte buffer; other hosts sleep 0.1 s after each command).
pub const COMMAND_GAP: Duration = Duration::from_millis(100);

/// How long after the port is opened the first command waits (other hosts wait
/// 300–500 ms).
pub const OPEN_SETTLE: Duration = Duration::from_millis(400);

/// How often the board is asked for its serial number to prove the link is alive.
pub const KEEPALIVE: Duration = Duration::from_secs(1);

/// How often the board is asked for the whole board, to check that its field updates come
/// (a dump that shows changes they never reported: update mode is asked again).
pub const BOARD_CHECK: Duration = Duration::from_secs(5);

/// How long a DGT board has to send its board dump when probed.
pub const PROBE_WAIT: Duration = Duration::from_millis(1500);

/// The start of a board dump: message 0x86, length 67.
const BOARD_DUMP_HEAD: [u8; 3] = [0x86, 0x00, 0x43];

/// How a port is asked whether a DGT board stands on it: reset and a board request
/// (DGT_SEND_RESET, DGT_SEND_BRD), answered by a board dump ([`answers_probe`]).
pub fn probe() -> Probe {
    Probe {
        request: vec![dgt::cmd::RESET, dgt::cmd::SEND_BOARD],
        wait: PROBE_WAIT,
        answered: answers_probe,
    }
}

/// Whether `bytes` hold a complete board dump (message 0x86, length 67), after noise or
/// not.
pub fn answers_probe(bytes: &[u8]) -> bool {
    bytes.windows(3).enumerate().any(|(i, w)| {
        w == BOARD_DUMP_HEAD
            && bytes
                .get(i + 3..i + 67)
                .is_some_and(|squares| squares.iter().all(|&c| c < 0x80))
    })
}

/// A DGT board's driver (see the module documentation).
#[derive(Debug, Default)]
pub struct DgtDriver {
    keepalive: Option<Time>,
    /// When the board is next asked for the whole board ([`BOARD_CHECK`]).
    board_check: Option<Time>,
    /// Whether update mode was asked again on this link (said once in the log).
    update_mode_resent: bool,
    clock: ClockQueue,
    /// When the board last sent anything. It answers the keep-alive every second, so
    /// [`SILENCE_LIMIT`] without a byte means the link is gone.
    heard: Option<Time>,
    /// Why the link counts as lost.
    silent: Option<String>,
    serial: Option<String>,
    long_serial: Option<String>,
}

impl DgtDriver {
    /// A driver for a board not yet connected.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Driver for DgtDriver {
    fn protocol(&self) -> Protocol {
        Protocol::Dgt
    }

    fn pacer(&self) -> Pacer {
        Pacer::new(COMMAND_GAP, OPEN_SETTLE)
    }

    fn connected(&mut self, now: Time, out: &mut Outbox) {
        self.serial = None;
        self.long_serial = None;
        // Clock commands go through the clock's queue, one at a time. The board is read
        // (reset, update mode, the whole board) before it is asked who it is: what is
        // played until the board is read comes as one jump, which the shorter the wait the
        // likelier the tracker can order.
        out.extend(
            dgt::startup_commands()
                .into_iter()
                .filter(|c| c.first() != Some(&dgt::cmd::CLOCK_MESSAGE)),
        );
        self.clock.restart(now);
        self.keepalive = Some(now + KEEPALIVE);
        self.board_check = Some(now + BOARD_CHECK);
        self.update_mode_resent = false;
        self.heard = Some(now);
        self.silent = None;
    }

    fn heard(&mut self, now: Time) {
        self.heard = self.heard.map(|_| now);
    }

    fn link_info(&mut self, t: Time, info: LinkInfo, out: &mut Outbox) {
        match info {
            LinkInfo::ClockAck(ack) => self.clock.handle_ack(t, &ack),
            LinkInfo::ClockPresent(p) => self.clock.handle_presence(t, p),
            LinkInfo::Serial { text, long } if !text.is_empty() => {
                if long {
                    // A Revelation II (firmware 3.25 or later) would turn its own
                    // numbering on a reversed set-up, and eboardd turns it too: its
                    // auto-reverse is switched off once per link.
                    let was = self.has_leds();
                    self.long_serial = Some(text);
                    if !was && self.has_leds() {
                        out.extend(
                            dgt::Command::Leds(dgt::LedCommand::AutoReverse(false))
                                .to_bytes()
                                .ok(),
                        );
                    }
                } else {
                    self.serial = Some(text);
                }
            }
            LinkInfo::Unreported { squares } => {
                // The board changed without saying so: the UPDATE_NICE it was sent was
                // lost (or it was reset meanwhile). Asked again; the next check tells.
                if self.update_mode_resent {
                    tracing::debug!(squares, "a DGT board still reports no changes");
                } else if self.keepalive.is_none() {
                    // Never connected (a replay): nothing goes to the board, so it is
                    // only noted.
                    tracing::debug!(
                        squares,
                        "the DGT board's dump shows changes it never reported"
                    );
                } else {
                    tracing::warn!(
                        squares,
                        "the DGT board's dump shows changes it never reported: update mode asked again"
                    );
                    self.update_mode_resent = true;
                }
                out.extend(dgt::Command::SendUpdateNice.to_bytes().ok());
            }
            _ => {}
        }
    }

    fn skipped(&mut self, _t: Time) {}

    fn handle_timeout(&mut self, now: Time, out: &mut Outbox) {
        if let Some(due) = self.keepalive.filter(|due| *due <= now) {
            out.extend(dgt::Command::ReturnSerialNr.to_bytes().ok());
            self.keepalive = Some(due.max(now) + KEEPALIVE);
        }
        if let Some(due) = self.board_check.filter(|due| *due <= now) {
            out.extend(dgt::Command::SendBoard.to_bytes().ok());
            self.board_check = Some(due.max(now) + BOARD_CHECK);
        }
        self.clock.handle_timeout(now);
        if self.heard.is_some_and(|heard| now >= heard + SILENCE_LIMIT) {
            self.heard = None;
            self.silent = Some(format!(
                "the board sent nothing for {} s, not even answers to the keep-alive",
                SILENCE_LIMIT.as_secs()
            ));
        }
    }

    fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.clock.poll_transmit()
    }

    fn has_queued(&self) -> bool {
        self.clock.has_queued()
    }

    fn poll_timeout(&self) -> Option<Time> {
        [
            self.keepalive,
            self.board_check,
            self.clock.poll_timeout(),
            self.heard.map(|heard| heard + SILENCE_LIMIT),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Only a Revelation II, told by its long serial number.
    fn has_leds(&self) -> bool {
        self.long_serial
            .as_deref()
            .is_some_and(dgt::long_serial_is_revelation)
    }

    fn show_move_leds(&self, orientation: Orientation, from: Square, to: Square) -> Vec<Vec<u8>> {
        show_move(orientation, from, to)
    }

    fn light_leds(
        &self,
        orientation: Orientation,
        squares: &[Square],
    ) -> Result<Vec<Vec<u8>>, DriverError> {
        if !self.has_leds() {
            return Err(DriverError::Unsupported(format!(
                "this {} board has no LEDs (it did not say it is a Revelation II)",
                Protocol::Dgt
            )));
        }
        Ok(light(orientation, squares))
    }

    fn clock_text(&mut self, now: Time, text: &str) -> Result<(), DriverError> {
        self.clock
            .push(now, ClockRequest::Text(text.to_string()))
            .map_err(|e| match e {
                ClockError::NoClock => DriverError::Unsupported(e.to_string()),
                ClockError::Busy(_) => DriverError::Busy(e.to_string()),
            })
    }

    fn show_move_on_clock(&mut self, now: Time, text: &str) {
        if self.clock.present() == Some(true) {
            let _ = self.clock_text(now, text);
        }
    }

    fn serial(&self) -> Option<String> {
        self.long_serial.clone().or_else(|| self.serial.clone())
    }

    /// The number only: the long form puts the firmware version before it.
    fn identity(&self) -> Option<String> {
        self.serial.clone()
    }

    fn tells_identity(&self) -> bool {
        true
    }

    fn link_lost(&self) -> Option<String> {
        self.silent.clone()
    }
}

/// The bytes that show the move `from` → `to`: all off, then from-field to to-field.
pub fn show_move(orientation: Orientation, from: Square, to: Square) -> Vec<Vec<u8>> {
    led_commands(&[
        dgt::LedCommand::ClearAll,
        dgt::LedCommand::Fields {
            on: true,
            start: field(from, orientation),
            end: field(to, orientation),
        },
    ])
}

/// The bytes that light `squares` and nothing else (none: every LED off).
pub fn light(orientation: Orientation, squares: &[Square]) -> Vec<Vec<u8>> {
    let mut commands = vec![dgt::LedCommand::ClearAll];
    commands.extend(squares.iter().map(|&sq| {
        let f = field(sq, orientation);
        dgt::LedCommand::Fields {
            on: true,
            start: f,
            end: f,
        }
    }));
    led_commands(&commands)
}

/// The DGT field of a square on a board standing `orientation`.
fn field(square: Square, orientation: Orientation) -> u8 {
    let f = dgt::square_field(square);
    match orientation {
        Orientation::Normal => f,
        Orientation::Rotated => dgt::rotated_field(f),
    }
}

fn led_commands(commands: &[dgt::LedCommand]) -> Vec<Vec<u8>> {
    commands
        .iter()
        .filter_map(|c| dgt::Command::Leds(*c).to_bytes().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dump() -> Vec<u8> {
        let mut d = BOARD_DUMP_HEAD.to_vec();
        d.extend([0u8; 64]);
        d
    }

    #[test]
    fn a_dump_answers_the_probe_after_noise_but_not_when_cut_short() {
        assert_eq!(probe().request, [0x40, 0x42]);
        let mut bytes = vec![0x13, 0x80];
        bytes.extend(dump());
        assert!(answers_probe(&bytes));
        assert!(!answers_probe(&dump()[..60]));
        let mut broken = dump();
        broken[10] = 0x8e;
        assert!(!answers_probe(&broken));
    }

    #[test]
    fn a_move_is_all_off_then_from_field_to_field() {
        let bytes = show_move(Orientation::Normal, Square::E2, Square::E4);
        assert_eq!(
            bytes,
            [
                vec![0x60, 0x04, 0x00, 0x40, 0x40, 0x00],
                vec![0x60, 0x04, 0x01, 52, 36, 0x00]
            ]
        );
        let turned = show_move(Orientation::Rotated, Square::E2, Square::E4);
        assert_eq!(turned[1], vec![0x60, 0x04, 0x01, 63 - 52, 63 - 36, 0x00]);
    }

    #[test]
    fn no_squares_puts_every_led_out_and_squares_are_lit_one_by_one() {
        assert_eq!(
            light(Orientation::Normal, &[]),
            [vec![0x60, 0x04, 0x00, 0x40, 0x40, 0x00]]
        );
        let bytes = light(Orientation::Normal, &[Square::A8, Square::H1]);
        assert_eq!(
            bytes[1..],
            [vec![0x60, 4, 1, 0, 0, 0], vec![0x60, 4, 1, 63, 63, 0]]
        );
    }

    #[test]
    fn only_a_revelation_has_leds_and_gets_its_auto_reverse_switched_off() {
        let mut driver = DgtDriver::new();
        let mut out = Outbox::new();
        driver.connected(Time::ZERO, &mut out);
        out.clear();
        assert!(!driver.has_leds());
        driver.link_info(
            Time::ZERO,
            LinkInfo::Serial {
                text: "10960".into(),
                long: false,
            },
            &mut out,
        );
        assert!(
            !driver.has_leds(),
            "a short serial number says nothing of LEDs"
        );
        assert!(out.is_empty());
        assert_eq!(driver.identity().as_deref(), Some("10960"));
        driver.link_info(
            Time::ZERO,
            LinkInfo::Serial {
                text: "3.250010960".into(),
                long: true,
            },
            &mut out,
        );
        assert!(driver.has_leds());
        let off = dgt::Command::Leds(dgt::LedCommand::AutoReverse(false))
            .to_bytes()
            .unwrap();
        assert_eq!(out, [off]);
        assert_eq!(driver.serial().as_deref(), Some("3.250010960"));
        assert_eq!(driver.identity().as_deref(), Some("10960"));
    }
}
