//! The Millennium driver: what a ChessLink board needs beyond its codec.
//!
//! - **Probe**: `V`, answered by `v` with the version and a valid checksum within
//!   [`PROBE_WAIT`].
//! - **Start-up**: the status request and the register writes that set how the board
//!   reports, each checked against its echo and retried ([`RegisterWrites`]); an eONE's
//!   settings register (auto-reverse, error LEDs) written once it said what it is, so that
//!   it cannot fight eboardd's orientation and LEDs. No pacing.
//! - **Keep-alive**: status requests after dropped bytes and when the board is quiet, and
//!   the verdict on a board silent for [`SILENCE_LIMIT`] ([`LinkWatch`]).
//! - **LEDs**: an `L` frame of the 81 corner LEDs ([`millennium::LedFrame`]); a move
//!   alternates its from- and to-square, squares are lit steadily; no squares is `X` (all
//!   off). Every ChessLink board has them; none has a clock.
//!
//! [`SILENCE_LIMIT`]: crate::protocol::driver::SILENCE_LIMIT

use std::time::Duration;

use shakmaty::Square;

use crate::event::Orientation;
use crate::protocol::Protocol;
use crate::protocol::driver::{Driver, DriverError, Outbox, Probe};
use crate::protocol::link::LinkInfo;
use crate::protocol::millennium;
use crate::protocol::pace::Pacer;
use crate::time::Time;

use super::watch::LinkWatch;
use super::writes::RegisterWrites;

/// Full brightness, all the time (pattern 0xFF): a square lit by `SetLeds`.
const STEADY: u8 = 0xFF;

/// How long a Millennium board has to answer `V` when probed.
pub const PROBE_WAIT: Duration = Duration::from_secs(2);

/// How a port is asked whether a Millennium board stands on it: `V`, answered by `v` with
/// the version and a valid checksum ([`answers_probe`]).
pub fn probe() -> Probe {
    Probe {
        request: millennium::Command::Version.encode(),
        wait: PROBE_WAIT,
        answered: answers_probe,
    }
}

/// Whether `bytes` hold a version reply (`v`, four hex digits, checksum), with or without
/// the parity bit.
pub fn answers_probe(bytes: &[u8]) -> bool {
    let seven: Vec<u8> = bytes.iter().map(|b| b & 0x7f).collect();
    seven.windows(7).any(|w| {
        if w[0] != b'v' || !w[1..].iter().all(u8::is_ascii_hexdigit) {
            return false;
        }
        let sum = w[..5].iter().fold(0u8, |acc, b| acc ^ b);
        let given = std::str::from_utf8(&w[5..7])
            .ok()
            .and_then(|s| u8::from_str_radix(s, 16).ok());
        given == Some(sum)
    })
}

/// A Millennium board's driver (see the module documentation).
#[derive(Debug, Default)]
pub struct MillenniumDriver {
    watch: LinkWatch,
    /// The register writes of this link, until the board echoed them.
    writes: RegisterWrites,
    version: Option<String>,
}

impl MillenniumDriver {
    /// A driver for a board not yet connected.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Driver for MillenniumDriver {
    fn protocol(&self) -> Protocol {
        Protocol::Millennium
    }

    fn pacer(&self) -> Pacer {
        Pacer::none()
    }

    fn connected(&mut self, now: Time, out: &mut Outbox) {
        self.version = None;
        out.extend(millennium::startup_commands());
        self.writes
            .connected(now, &millennium::registers::startup_writes());
        self.watch.connected(now);
    }

    fn heard(&mut self, now: Time) {
        self.watch.input(now);
    }

    fn link_info(&mut self, t: Time, info: LinkInfo, _out: &mut Outbox) {
        match info {
            LinkInfo::Version(v) => {
                // An eONE's own auto-reverse and error LEDs would fight eboardd's
                // orientation and LEDs: its settings register is written once it said
                // what it is (once per link).
                if self.version.is_none() && millennium::registers::version_is_eone(&v) {
                    self.writes.write(
                        t,
                        millennium::registers::EONE_SETTINGS,
                        millennium::registers::EONE_STARTUP_SETTINGS,
                    );
                }
                self.version = Some(v);
            }
            LinkInfo::Written { address, data } => self.writes.written(address, data),
            _ => {}
        }
    }

    fn skipped(&mut self, t: Time) {
        self.watch.skipped(t);
    }

    fn handle_timeout(&mut self, now: Time, _out: &mut Outbox) {
        self.watch.handle_timeout(now);
        self.writes.handle_timeout(now);
    }

    fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.watch
            .poll_transmit()
            .or_else(|| self.writes.poll_transmit())
    }

    fn has_queued(&self) -> bool {
        self.watch.has_queued() || self.writes.has_queued()
    }

    fn poll_timeout(&self) -> Option<Time> {
        [self.watch.poll_timeout(), self.writes.poll_timeout()]
            .into_iter()
            .flatten()
            .min()
    }

    fn has_leds(&self) -> bool {
        true
    }

    fn show_move_leds(&self, orientation: Orientation, from: Square, to: Square) -> Vec<Vec<u8>> {
        show_move(orientation, from, to)
    }

    fn light_leds(
        &self,
        orientation: Orientation,
        squares: &[Square],
    ) -> Result<Vec<Vec<u8>>, DriverError> {
        Ok(light(orientation, squares))
    }

    fn clock_text(&mut self, _now: Time, _text: &str) -> Result<(), DriverError> {
        Err(DriverError::Unsupported(format!(
            "{} boards have no clock",
            Protocol::Millennium
        )))
    }

    fn show_move_on_clock(&mut self, _now: Time, _text: &str) {}

    /// A ChessLink board has no serial number; its firmware version names it.
    fn serial(&self) -> Option<String> {
        self.version.clone()
    }

    /// None: a ChessLink's version is the same on every board of a model.
    fn identity(&self) -> Option<String> {
        None
    }

    fn tells_identity(&self) -> bool {
        false
    }

    fn link_lost(&self) -> Option<String> {
        self.watch.lost().map(str::to_string)
    }
}

/// The bytes that show the move `from` → `to`: one `L` frame for the board's cable side.
pub fn show_move(orientation: Orientation, from: Square, to: Square) -> Vec<Vec<u8>> {
    let frame = millennium::LedFrame::show_move(from, to, cable_side(orientation));
    vec![millennium::Command::Leds(frame).encode()]
}

/// The bytes that light `squares` steadily and nothing else (none: every LED off).
pub fn light(orientation: Orientation, squares: &[Square]) -> Vec<Vec<u8>> {
    if squares.is_empty() {
        return vec![millennium::Command::LedsOff.encode()];
    }
    let mut frame = millennium::LedFrame::new(millennium::MOVE_SLOT_TIME);
    frame.light_squares(squares.iter().copied(), cable_side(orientation), STEADY);
    vec![millennium::Command::Leds(frame).encode()]
}

/// The cable side of a board standing `orientation` (normal: cable on White's right, as
/// boards are read in practice).
fn cable_side(orientation: Orientation) -> millennium::CableSide {
    match orientation {
        Orientation::Normal => millennium::CableSide::Right,
        Orientation::Rotated => millennium::CableSide::Left,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_answers_the_probe_with_or_without_parity() {
        // "v010374" as a ChessLink sends it on the wire, parity included.
        let wire = [0x76, 0xb0, 0x31, 0xb0, 0xb3, 0x37, 0x34];
        assert!(answers_probe(&wire));
        assert!(answers_probe(b"s....v010374"));
        assert!(!answers_probe(b"v010375"), "bad checksum");
    }

    #[test]
    fn a_move_is_one_l_frame_for_its_cable_side() {
        let bytes = show_move(Orientation::Normal, Square::E2, Square::E4);
        let expected = millennium::Command::Leds(millennium::LedFrame::show_move(
            Square::E2,
            Square::E4,
            millennium::CableSide::Right,
        ))
        .encode();
        assert_eq!(bytes, [expected]);
    }

    #[test]
    fn no_squares_puts_every_led_out() {
        assert_eq!(
            light(Orientation::Normal, &[]),
            [millennium::Command::LedsOff.encode()]
        );
    }

    #[test]
    fn squares_are_lit_steadily_on_their_corners() {
        let bytes = light(Orientation::Normal, &[Square::H1]);
        let mut decoder = millennium::CommandDecoder::new();
        decoder.push_bytes(&bytes[0]);
        let Some(millennium::DecodedCommand::Command(millennium::Command::Leds(frame))) =
            decoder.poll()
        else {
            panic!("an L frame");
        };
        let lit: Vec<usize> = (0..millennium::LED_COUNT)
            .filter(|&k| frame.pattern(k) == Some(STEADY))
            .collect();
        assert_eq!(lit, [0, 1, 9, 10]);
    }
}
