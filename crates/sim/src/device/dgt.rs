//! An emulated DGT e-board, device side, sans-IO.
//!
//! It reads the host's commands with the codec's [`CommandDecoder`] and answers each as a
//! single board does: reset (back to idle), board dump, the three update modes, version,
//! serial numbers, trademark, bus address, battery, the event log, LEDs (kept, so that a
//! live hand can see the move they show, but not answered), and clock commands. Its [`DgtModel`] scans the physical board and its field updates are
//! sent only in an update mode, as on the real board. With a clock attached (a DGT3000 by
//! default) clock commands are acknowledged, the clock runs, the hand's presses move its
//! lever, and BWTIME times are sent as the update mode says (every second with 0x43, on a
//! change with 0x4b); without one, clock commands go unanswered and BWTIME says "no clock".
//! Every message is encoded with the DGT codec and timed on the 9600-baud line.

use std::collections::VecDeque;
use std::time::Duration;

use shakmaty::Color;

use super::Transmission;
use crate::board::line::SerialLine;
use crate::board::{DgtConfig, DgtMessage, DgtModel, Outgoing, SensedChange};
use crate::timeline::{Cursor, Squares};
use eboardd_core::protocol::dgt::{
    BatteryStatus, BoardMessage, BusAddress, ClockAck, ClockCommand, ClockFace, ClockTimes,
    Command, CommandDecoder, DecodedCommand, EeRecord, EeTag, FirmwareVersion, LedCommand,
    RunningSide, ack, piece_code, status,
};
use eboardd_core::time::Time;

/// How long the board takes to answer a command once it has arrived.
const REPLY_DELAY: Duration = Duration::from_micros(2000);

/// How long the clock takes to acknowledge a command.
const CLOCK_DELAY: Duration = Duration::from_millis(60);

/// How the emulated DGT board behaves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DgtDeviceConfig {
    /// The sensing model.
    pub model: DgtConfig,
    /// Whether a clock is attached.
    pub clock: bool,
    /// The time on each clock face at the start.
    pub clock_start: Duration,
    /// The board's firmware version.
    pub version: FirmwareVersion,
    /// A Revelation II (it has LEDs): its long serial number starts `3.25`, not `3.10`.
    pub revelation: bool,
}

impl Default for DgtDeviceConfig {
    fn default() -> Self {
        DgtDeviceConfig {
            model: DgtConfig::default(),
            clock: false,
            clock_start: Duration::from_secs(15 * 60),
            version: FirmwareVersion { major: 3, minor: 1 },
            revelation: false,
        }
    }
}

/// What the board sends unasked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Nothing (after power-up or reset).
    Idle,
    /// 0x43: field updates, and the clock at least every second.
    Update,
    /// 0x44: field updates only.
    UpdateBoard,
    /// 0x4b: field updates, and the clock when it changed.
    UpdateNice,
}

/// The clock attached to the board: White on the left.
#[derive(Debug, Clone)]
struct EmuClock {
    left: Duration,
    right: Duration,
    /// The running side (`None`: stopped) and since when.
    running: Option<(Color, Time)>,
    next_tick: Time,
}

impl EmuClock {
    fn remaining(&self, color: Color, now: Time) -> Duration {
        let base = match color {
            Color::White => self.left,
            Color::Black => self.right,
        };
        match self.running {
            Some((c, since)) if c == color => base.saturating_sub(now - since),
            _ => base,
        }
    }

    /// Stops the running side at `now` and starts `next` (or nothing).
    fn switch(&mut self, now: Time, next: Option<Color>) {
        if let Some((c, since)) = self.running {
            let used = now - since;
            match c {
                Color::White => self.left = self.left.saturating_sub(used),
                Color::Black => self.right = self.right.saturating_sub(used),
            }
        }
        self.running = next.map(|c| (c, now));
    }

    fn times(&self, now: Time) -> ClockTimes {
        let face = |d: Duration| {
            let s = d.as_secs();
            ClockFace {
                hours: (s / 3600).min(9) as u8,
                minutes: ((s / 60) % 60) as u8,
                seconds: (s % 60) as u8,
                flag_fallen: d.is_zero(),
                ..ClockFace::default()
            }
        };
        let mut st = 0;
        match self.running {
            Some((Color::White, _)) => st |= status::RUNNING,
            Some((Color::Black, _)) => st |= status::RUNNING | status::LEVER_RIGHT_HIGH,
            None => {}
        }
        ClockTimes {
            left: face(self.remaining(Color::White, now)),
            right: face(self.remaining(Color::Black, now)),
            status: st,
        }
    }
}

/// One emulated DGT board.
#[derive(Debug)]
pub struct DgtDevice {
    cfg: DgtDeviceConfig,
    model: DgtModel,
    decoder: CommandDecoder,
    mode: Mode,
    /// Whether the host asked for the whole board since the last reset.
    dumped: bool,
    clock: Option<EmuClock>,
    presses_seen: usize,
    leds: Option<(u8, u8)>,
    clock_text: Option<String>,
    serial: String,
    clock_acks: bool,
    to_board: SerialLine,
    to_host: SerialLine,
    out: VecDeque<Transmission>,
    sensed: Vec<SensedChange>,
}

impl DgtDevice {
    /// A board at power-up (idle) that has seen `start`; `seed` draws its scans.
    pub fn new(cfg: DgtDeviceConfig, start: &Squares, seed: u64) -> DgtDevice {
        DgtDevice {
            cfg,
            model: DgtModel::new(cfg.model, start, seed),
            decoder: CommandDecoder::new(),
            mode: Mode::Idle,
            dumped: false,
            clock: cfg.clock.then(|| EmuClock {
                left: cfg.clock_start,
                right: cfg.clock_start,
                running: Some((Color::White, Time::ZERO)),
                next_tick: Time::from_millis(1000),
            }),
            presses_seen: 0,
            leds: None,
            clock_text: None,
            serial: "10960".to_string(),
            clock_acks: true,
            to_board: SerialLine::new(9600),
            to_host: SerialLine::new(9600),
            out: VecDeque::new(),
            sensed: Vec::new(),
        }
    }

    /// Whether the host follows the board: it reports its changes as they happen (an
    /// update mode) and the host has asked for the whole board since the last reset.
    pub fn reporting(&self) -> bool {
        self.dumped
            && matches!(
                self.mode,
                Mode::Update | Mode::UpdateBoard | Mode::UpdateNice
            )
    }

    /// The sensing model.
    pub fn model(&self) -> &DgtModel {
        &self.model
    }

    /// The two fields the host last lit (a move shown: `60 04 01 from to 00`), until it
    /// puts the LEDs out.
    pub fn lit_fields(&self) -> Option<(u8, u8)> {
        self.leds
    }

    /// Gives the board another serial number (five digits; `10960` by default).
    pub fn set_serial(&mut self, serial: &str) {
        self.serial = serial.to_string();
    }

    /// Whether the clock acknowledges commands (it does by default); one that does not
    /// still carries them out and runs.
    pub fn set_clock_acks(&mut self, acks: bool) {
        self.clock_acks = acks;
    }

    /// The text the host last put on the clock (DGT3000 ASCII), trimmed, until the clock
    /// was told to show its times again. Only with a clock attached.
    pub fn clock_text(&self) -> Option<&str> {
        self.clock_text.as_deref()
    }

    /// The host wrote `bytes` at `now`. Call [`handle_timeout`](Self::handle_timeout) for
    /// everything due up to `now` first.
    pub fn handle_host_bytes(&mut self, now: Time, bytes: &[u8]) {
        let (_, arrived) = self.to_board.send(now, bytes.len());
        self.decoder.push_bytes(bytes);
        let ready = arrived + REPLY_DELAY;
        while let Some(decoded) = self.decoder.poll() {
            let DecodedCommand::Command(command) = decoded else {
                // Garbage, a damaged command or one that flashes or rewrites the board:
                // ignored.
                continue;
            };
            let reply = match command {
                Command::Reset => {
                    self.mode = Mode::Idle;
                    self.dumped = false;
                    None
                }
                Command::SendBoard => {
                    self.dumped = true;
                    self.model.request_dump(ready);
                    self.drain_model();
                    None
                }
                Command::SendUpdate => self.set_mode(Mode::Update),
                Command::SendUpdateBoard => self.set_mode(Mode::UpdateBoard),
                Command::SendUpdateNice => self.set_mode(Mode::UpdateNice),
                Command::ToBusMode => self.set_mode(Mode::Idle),
                Command::SendClock => Some(BoardMessage::ClockTimes(self.clock_times(ready))),
                Command::ReturnSerialNr => Some(BoardMessage::SerialNr(self.serial.clone())),
                Command::ReturnLongSerialNr => {
                    let firmware = if self.cfg.revelation { "3.25" } else { "3.10" };
                    Some(BoardMessage::LongSerialNr(format!(
                        "{firmware} {}",
                        self.serial
                    )))
                }
                Command::SendTrademark => Some(BoardMessage::Trademark(
                    "Digital Game Technology (emulated by eboardd)\r\nboard emulator, \
                     not a real DGT board"
                        .into(),
                )),
                Command::ReturnBusAddress => BusAddress::new(0x0806).map(BoardMessage::BusAddress),
                Command::SendVersion => Some(BoardMessage::Version(self.cfg.version)),
                Command::SendBatteryStatus => Some(BoardMessage::BatteryStatus(BatteryStatus {
                    percent: 100,
                    hours_left: BatteryStatus::NOT_AVAILABLE,
                    minutes_left: BatteryStatus::NOT_AVAILABLE,
                    ..BatteryStatus::default()
                })),
                Command::SendEeMoves => Some(BoardMessage::EeMoves(vec![
                    EeRecord::Tag(EeTag::PowerUp),
                    EeRecord::Tag(EeTag::Eof),
                ])),
                Command::Clock(clock) => {
                    self.clock_command(ready, clock);
                    None
                }
                // LEDs are kept but not answered; draughts boards and bus mode are not
                // emulated.
                Command::Leds(leds) => {
                    self.leds = match leds {
                        LedCommand::Fields {
                            on: true,
                            start,
                            end,
                        } => Some((start, end)),
                        LedCommand::Fields { on: false, .. } | LedCommand::ClearAll => None,
                        LedCommand::AutoDim(_) | LedCommand::AutoReverse(_) => self.leds,
                    };
                    None
                }
                Command::SendBoard50B | Command::SendBoard50W | Command::Bus(_) => None,
            };
            if let Some(message) = reply {
                self.send(ready, &message);
            }
        }
    }

    fn set_mode(&mut self, mode: Mode) -> Option<BoardMessage> {
        self.mode = mode;
        None
    }

    fn clock_times(&self, now: Time) -> ClockTimes {
        match &self.clock {
            Some(c) => c.times(now),
            None => ClockTimes {
                status: status::NO_CLOCK,
                ..ClockTimes::default()
            },
        }
    }

    fn clock_command(&mut self, now: Time, command: ClockCommand) {
        let Some(clock) = &mut self.clock else {
            return;
        };
        match command {
            ClockCommand::Ascii { text, .. } => {
                let text = String::from_utf8_lossy(&text).trim().to_string();
                self.clock_text = Some(text);
            }
            ClockCommand::RevelationAscii { text, .. } => {
                let text = String::from_utf8_lossy(&text).trim().to_string();
                self.clock_text = Some(text);
            }
            ClockCommand::End => self.clock_text = None,
            _ => {}
        }
        if let ClockCommand::SetAndRun { left, right, run } = command {
            let secs = |h: eboardd_core::protocol::dgt::Hms| {
                Duration::from_secs(
                    u64::from(h.hours) * 3600 + u64::from(h.minutes) * 60 + u64::from(h.seconds),
                )
            };
            clock.running = None;
            clock.left = secs(left);
            clock.right = secs(right);
            let next = match run {
                RunningSide::Left => Some(Color::White),
                RunningSide::Right => Some(Color::Black),
                RunningSide::Neither => None,
            };
            clock.switch(now, next);
        }
        // The clock answers in update modes only (the board passes acks on then).
        if self.mode == Mode::Idle || !self.clock_acks {
            return;
        }
        let third = match command {
            ClockCommand::Version => 0x21, // a DGT3000, version 2.1
            _ => 0,
        };
        let message = BoardMessage::ClockAck(ClockAck {
            bytes: [ack::OK, command.sub_command(), third, 0],
        });
        self.send(now + CLOCK_DELAY, &message);
    }

    /// The least time from a sample or a clock tick to the arrival of the last byte of a
    /// message it causes: a FIELD_UPDATE (5 bytes) is the shortest.
    pub fn report_lead(&self) -> Duration {
        self.to_host.duration(5)
    }

    /// When the board next has something to do (a field sample or a clock tick).
    pub fn poll_timeout(&self) -> Time {
        let sample = self.model.poll_timeout();
        match &self.clock {
            Some(c) if c.running.is_some() => sample.min(c.next_tick),
            _ => sample,
        }
    }

    /// Does what is due at [`poll_timeout`](Self::poll_timeout): samples a field from
    /// `physical` (advanced to that instant), or ticks the clock; a clock press seen on
    /// `physical` moves the lever.
    pub fn handle_timeout(&mut self, physical: &Cursor<'_>) {
        let now = self.poll_timeout();
        let (count, last) = physical.presses();
        if count != self.presses_seen {
            self.presses_seen = count;
            if let (Some(press), Some(clock)) = (last, &mut self.clock) {
                clock.switch(press.t, Some(press.by.other()));
                clock.next_tick = press.t + Duration::from_millis(1000);
                if matches!(self.mode, Mode::Update | Mode::UpdateNice) {
                    let times = clock.times(press.t);
                    self.send(now, &BoardMessage::ClockTimes(times));
                }
            }
        }
        let tick = self
            .clock
            .as_ref()
            .filter(|c| c.running.is_some() && c.next_tick <= self.model.poll_timeout())
            .map(|c| c.next_tick);
        if let Some(t) = tick {
            if let Some(c) = &mut self.clock {
                c.next_tick = t + Duration::from_millis(1000);
            }
            if matches!(self.mode, Mode::Update | Mode::UpdateNice) {
                let times = self.clock_times(t);
                self.send(t, &BoardMessage::ClockTimes(times));
            }
            return;
        }
        self.model.handle_timeout(physical);
        self.drain_model();
    }

    fn drain_model(&mut self) {
        while let Some(out) = self.model.poll_outgoing() {
            self.send_model(out);
        }
    }

    fn send_model(&mut self, out: Outgoing<DgtMessage>) {
        let message = match &out.message {
            DgtMessage::FieldUpdate { field, piece, .. } => {
                if !matches!(
                    self.mode,
                    Mode::Update | Mode::UpdateBoard | Mode::UpdateNice
                ) {
                    return;
                }
                BoardMessage::FieldUpdate {
                    field: *field,
                    code: piece.map_or(0, piece_code),
                }
            }
            DgtMessage::BoardDump(squares) => {
                let mut codes = [0u8; 64];
                for (field, code) in codes.iter_mut().enumerate() {
                    let square = self.model.field_square(field as u8);
                    *code = squares[square as usize].map_or(0, piece_code);
                }
                BoardMessage::BoardDump(Box::new(codes))
            }
        };
        let mut bytes = Vec::new();
        if message.encode(&mut bytes).is_err() {
            return;
        }
        let len = bytes.len();
        let (sent, sensed) = self.to_host.transmit(out.map(|_| bytes), len);
        self.sensed.extend(sensed);
        self.out.push_back(Transmission {
            start: sent.start,
            end: sent.end,
            bytes: sent.message,
        });
    }

    fn send(&mut self, ready: Time, message: &BoardMessage) {
        let mut bytes = Vec::new();
        if message.encode(&mut bytes).is_err() {
            return;
        }
        let (start, end) = self.to_host.send(ready, bytes.len());
        self.out.push_back(Transmission { start, end, bytes });
    }

    /// The next bytes for the host, in the order they go on the line.
    pub fn poll_transmit(&mut self) -> Option<Transmission> {
        self.out.pop_front()
    }

    /// The square changes the host has been sent since the last call.
    pub fn take_sensed(&mut self) -> Vec<SensedChange> {
        std::mem::take(&mut self.sensed)
    }
}
