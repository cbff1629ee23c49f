//! DGT clock commands, one at a time (sans-IO).
//!
//! A DGT clock takes one command at a time and acknowledges each (BWTIME acks, only while
//! the board is in an update mode). The fact sheet's rules (`dgt-protocol-facts.md` §2.3),
//! as picochess keeps them: send the next command only after the ack of the last; resend
//! a command not acknowledged within [`ACK_TIMEOUT`]; resend once a command acknowledged
//! with an error; give up on a command after [`ATTEMPTS`] sendings and go on with the next.
//! [`ClockQueue`] keeps those rules; it is told the time and the board's acks and hands
//! back the bytes to send. It also keeps what is known of the clock: whether one is
//! attached, and whether it is a DGT3000 (eight ASCII characters) or a DGT XL (six
//! seven-segment digits), which decides how text is shown.

use std::collections::VecDeque;
use std::time::Duration;

use crate::protocol::dgt::{ClockAck, ClockCommand, Command, XlDisplay};
use crate::time::Time;

/// How long the clock has to acknowledge a command before it is sent again.
pub const ACK_TIMEOUT: Duration = Duration::from_secs(2);

/// How many times a command is sent in all before it is given up.
pub const ATTEMPTS: u32 = 3;

/// The most requests that may wait behind the one being sent.
pub const MAX_WAITING: usize = 8;

/// Which clock is attached, as its version says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockKind {
    /// A DGT3000 (main version 2): eight ASCII characters.
    Dgt3000,
    /// A DGT XL (any other version): six seven-segment digits.
    Xl,
}

/// Something to have the clock do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClockRequest {
    /// Show text (as much of it as the clock can show); empty: show the times again.
    Text(String),
    /// Send this command as it is.
    Command(ClockCommand),
}

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClockError {
    /// No clock answered on this board.
    #[error("no clock is attached to the board (it did not answer)")]
    NoClock,
    /// Too many requests wait already.
    #[error("the clock is busy: {0} commands are waiting for it")]
    Busy(usize),
}

#[derive(Debug, Clone, Copy)]
struct InFlight {
    command: ClockCommand,
    sent: Time,
    attempts: u32,
    error_resent: bool,
}

/// DGT clock commands, sent one at a time with acks, retries and a give-up.
#[derive(Debug, Default)]
pub struct ClockQueue {
    kind: Option<ClockKind>,
    present: Option<bool>,
    waiting: VecDeque<ClockRequest>,
    in_flight: Option<InFlight>,
    out: VecDeque<Vec<u8>>,
    given_up: u32,
}

impl ClockQueue {
    /// A queue that knows nothing of the clock yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The clock attached, once its version answered.
    pub fn kind(&self) -> Option<ClockKind> {
        self.kind
    }

    /// Whether a clock is attached: `Some(false)` once it failed to answer (or the board
    /// said so), `None` while unknown.
    pub fn present(&self) -> Option<bool> {
        self.present
    }

    /// How many commands were given up without an ack.
    pub fn given_up(&self) -> u32 {
        self.given_up
    }

    /// The link is (again) open: what was being sent is sent again, after the clock's
    /// version is asked (it tells whether a clock is there and which).
    pub fn restart(&mut self, now: Time) {
        if let Some(f) = self.in_flight.take() {
            self.waiting.push_front(ClockRequest::Command(f.command));
        }
        self.waiting
            .retain(|r| *r != ClockRequest::Command(ClockCommand::Version));
        self.waiting
            .push_front(ClockRequest::Command(ClockCommand::Version));
        self.dispatch(now);
    }

    /// Queues `request`. Text replaces text still waiting (only the last would be seen).
    pub fn push(&mut self, now: Time, request: ClockRequest) -> Result<(), ClockError> {
        if self.present == Some(false) {
            return Err(ClockError::NoClock);
        }
        if matches!(request, ClockRequest::Text(_)) {
            self.waiting.retain(|r| !matches!(r, ClockRequest::Text(_)));
        }
        if self.waiting.len() >= MAX_WAITING {
            return Err(ClockError::Busy(self.waiting.len()));
        }
        self.waiting.push_back(request);
        self.dispatch(now);
        Ok(())
    }

    /// The board passed on a clock ack.
    pub fn handle_ack(&mut self, now: Time, ack: &ClockAck) {
        if ack.is_auto() {
            return;
        }
        self.present = Some(true);
        let Some(f) = self.in_flight else {
            return;
        };
        // An ack of another command: a late repeat (Bluetooth boards repeat acks).
        if ack.answers() != f.command.sub_command() {
            return;
        }
        if ack.is_ok() {
            if let Some((main, _)) = ack.clock_version() {
                self.kind = Some(if main == 2 {
                    ClockKind::Dgt3000
                } else {
                    ClockKind::Xl
                });
            }
            self.in_flight = None;
        } else if !f.error_resent {
            self.send(now, f.command, f.attempts + 1, true);
        } else {
            tracing::warn!(command = ?f.command, "the clock refused a command twice");
            self.give_up();
        }
        self.dispatch(now);
    }

    /// The board said whether a clock is attached (its clock times).
    pub fn handle_presence(&mut self, now: Time, present: bool) {
        let was = self.present;
        self.present = Some(present);
        if present && was != Some(true) && self.kind.is_none() {
            let version = ClockRequest::Command(ClockCommand::Version);
            if !self.waiting.contains(&version) {
                self.waiting.push_front(version);
            }
            self.dispatch(now);
        }
        if !present {
            self.in_flight = None;
            self.waiting.clear();
        }
    }

    /// Lets the ack timer fire if it is due.
    pub fn handle_timeout(&mut self, now: Time) {
        let Some(f) = self.in_flight else {
            return;
        };
        if now < f.sent + ACK_TIMEOUT {
            return;
        }
        if f.attempts < ATTEMPTS {
            self.send(now, f.command, f.attempts + 1, f.error_resent);
            return;
        }
        if f.command == ClockCommand::Version && self.present != Some(true) {
            // Nobody answered the question "is there a clock?".
            self.present = Some(false);
            self.in_flight = None;
            self.waiting.clear();
            return;
        }
        tracing::warn!(command = ?f.command, "the clock did not acknowledge a command; given up");
        self.give_up();
        self.dispatch(now);
    }

    /// The next bytes to send to the board.
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.out.pop_front()
    }

    /// Whether a command waits to be sent.
    pub fn has_queued(&self) -> bool {
        !self.out.is_empty()
    }

    /// When [`ClockQueue::handle_timeout`] should next be called.
    pub fn poll_timeout(&self) -> Option<Time> {
        self.in_flight.map(|f| f.sent + ACK_TIMEOUT)
    }

    fn give_up(&mut self) {
        self.in_flight = None;
        self.given_up += 1;
    }

    fn dispatch(&mut self, now: Time) {
        while self.in_flight.is_none() {
            let Some(request) = self.waiting.pop_front() else {
                return;
            };
            if let Some(command) = self.encode(&request) {
                self.send(now, command, 1, false);
            }
        }
    }

    /// The command for a request, given the clock attached (text needs to know which).
    fn encode(&self, request: &ClockRequest) -> Option<ClockCommand> {
        match request {
            ClockRequest::Command(c) => Some(*c),
            ClockRequest::Text(t) if t.is_empty() => Some(ClockCommand::End),
            ClockRequest::Text(t) => match self.kind {
                Some(ClockKind::Dgt3000) => Some(ClockCommand::ascii(t, 0)),
                Some(ClockKind::Xl) => Some(ClockCommand::Display(XlDisplay::text(t, 0, false))),
                None => {
                    tracing::warn!("clock text dropped: the clock never said which it is");
                    None
                }
            },
        }
    }

    fn send(&mut self, now: Time, command: ClockCommand, attempts: u32, error_resent: bool) {
        match Command::Clock(command).to_bytes() {
            Ok(bytes) => {
                self.out.push_back(bytes);
                self.in_flight = Some(InFlight {
                    command,
                    sent: now,
                    attempts,
                    error_resent,
                });
            }
            Err(e) => tracing::warn!(?command, "a clock command cannot be encoded: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::dgt::ack;

    fn ack_of(command: ClockCommand, ack0: u8, ack2: u8) -> ClockAck {
        ClockAck {
            bytes: [ack0, command.sub_command(), ack2, 0],
        }
    }

    fn started() -> ClockQueue {
        let mut q = ClockQueue::new();
        q.restart(Time::ZERO);
        assert_eq!(q.poll_transmit(), Some(vec![0x2b, 0x03, 0x03, 0x09, 0x00]));
        q.handle_ack(
            Time::from_millis(60),
            &ack_of(ClockCommand::Version, ack::OK, 0x21),
        );
        assert_eq!(q.kind(), Some(ClockKind::Dgt3000));
        q
    }

    #[test]
    fn commands_go_one_at_a_time_each_after_the_ack_of_the_last() {
        let mut q = started();
        q.push(
            Time::from_millis(100),
            ClockRequest::Command(ClockCommand::Beep { units: 4 }),
        )
        .expect("queued");
        q.push(Time::from_millis(100), ClockRequest::Text("hello".into()))
            .expect("queued");
        let beep = q.poll_transmit().expect("the beep goes at once");
        assert_eq!(beep[3], 0x0b);
        assert_eq!(q.poll_transmit(), None, "the text waits for the beep's ack");
        // An ack of another command changes nothing.
        q.handle_ack(
            Time::from_millis(150),
            &ack_of(ClockCommand::Version, ack::OK, 0x21),
        );
        assert_eq!(q.poll_transmit(), None);
        q.handle_ack(
            Time::from_millis(200),
            &ack_of(ClockCommand::Beep { units: 4 }, ack::OK, 0),
        );
        let text = q.poll_transmit().expect("the text follows the ack");
        assert_eq!(&text[..4], &[0x2b, 0x0c, 0x03, 0x0c]);
        assert_eq!(&text[4..12], b"hello   ");
    }

    #[test]
    fn an_unacknowledged_command_is_sent_again_then_given_up_and_the_next_goes() {
        let mut q = started();
        q.push(
            Time::ZERO,
            ClockRequest::Command(ClockCommand::Beep { units: 1 }),
        )
        .expect("queued");
        q.push(Time::ZERO, ClockRequest::Command(ClockCommand::End))
            .expect("queued");
        let first = q.poll_transmit().expect("sent");
        let mut sendings = 1;
        let mut now = Time::ZERO;
        while let Some(due) = q.poll_timeout() {
            now = due;
            q.handle_timeout(now);
            match q.poll_transmit() {
                Some(b) if b == first => sendings += 1,
                Some(b) => {
                    assert_eq!(b[3], 0x03, "then the next command");
                    break;
                }
                None => panic!("the timer fired without sending"),
            }
        }
        assert_eq!(sendings, ATTEMPTS);
        assert_eq!(now, Time::ZERO + ACK_TIMEOUT * ATTEMPTS);
        assert_eq!(q.given_up(), 1);
    }

    #[test]
    fn a_command_refused_is_sent_once_more() {
        let mut q = started();
        let end = ClockCommand::End;
        q.push(Time::ZERO, ClockRequest::Command(end))
            .expect("queued");
        let sent = q.poll_transmit().expect("sent");
        q.handle_ack(Time::from_millis(50), &ack_of(end, ack::ERROR, 0));
        assert_eq!(q.poll_transmit(), Some(sent));
        q.handle_ack(Time::from_millis(100), &ack_of(end, ack::ERROR, 0));
        assert_eq!(q.poll_transmit(), None);
        assert_eq!(q.given_up(), 1);
        assert_eq!(q.poll_timeout(), None);
    }

    #[test]
    fn a_board_without_a_clock_refuses_clock_requests_after_the_version_goes_unanswered() {
        let mut q = ClockQueue::new();
        q.restart(Time::ZERO);
        while let Some(due) = q.poll_timeout() {
            q.handle_timeout(due);
        }
        assert_eq!(q.present(), Some(false));
        assert_eq!(
            q.push(Time::from_millis(7000), ClockRequest::Text("hi".into())),
            Err(ClockError::NoClock)
        );
        // Clock times that say a clock is there: it is asked for its version again.
        while q.poll_transmit().is_some() {}
        q.handle_presence(Time::from_millis(8000), true);
        assert_eq!(q.poll_transmit(), Some(vec![0x2b, 0x03, 0x03, 0x09, 0x00]));
    }

    #[test]
    fn text_on_an_xl_is_seven_segment_digits_and_empty_text_shows_the_times() {
        let mut q = ClockQueue::new();
        q.restart(Time::ZERO);
        q.poll_transmit();
        q.handle_ack(Time::ZERO, &ack_of(ClockCommand::Version, ack::OK, 0x11));
        assert_eq!(q.kind(), Some(ClockKind::Xl));
        q.push(Time::ZERO, ClockRequest::Text("e4".into()))
            .expect("queued");
        let display = q.poll_transmit().expect("sent");
        assert_eq!(&display[..4], &[0x2b, 0x0b, 0x03, 0x01]);
        q.handle_ack(
            Time::ZERO,
            &ack_of(ClockCommand::Display(XlDisplay::default()), ack::OK, 0),
        );
        q.push(Time::ZERO, ClockRequest::Text(String::new()))
            .expect("queued");
        assert_eq!(q.poll_transmit(), Some(vec![0x2b, 0x03, 0x03, 0x03, 0x00]));
    }

    #[test]
    fn waiting_text_is_replaced_and_a_full_queue_refuses_more() {
        let mut q = started();
        q.push(Time::ZERO, ClockRequest::Command(ClockCommand::End))
            .expect("in flight");
        for i in 0..20 {
            q.push(Time::ZERO, ClockRequest::Text(format!("t{i}")))
                .expect("text replaces text");
        }
        for _ in 1..MAX_WAITING {
            q.push(Time::ZERO, ClockRequest::Command(ClockCommand::Button))
                .expect("room");
        }
        assert_eq!(
            q.push(Time::ZERO, ClockRequest::Command(ClockCommand::Button)),
            Err(ClockError::Busy(MAX_WAITING))
        );
    }

    #[test]
    fn after_a_reconnect_the_version_is_asked_first_then_what_was_in_flight_again() {
        let mut q = started();
        q.push(Time::ZERO, ClockRequest::Command(ClockCommand::End))
            .expect("queued");
        let end = q.poll_transmit().expect("sent");
        q.restart(Time::from_millis(1000));
        assert_eq!(q.poll_transmit(), Some(vec![0x2b, 0x03, 0x03, 0x09, 0x00]));
        q.handle_ack(
            Time::from_millis(1000),
            &ack_of(ClockCommand::Version, ack::OK, 0x21),
        );
        assert_eq!(q.poll_transmit(), Some(end));
    }
}
