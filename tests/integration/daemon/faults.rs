//! Faults on the line while an emulated board plays a real game: bursts of garbage and
//! truncated messages between the board's own, and a board that stops answering with its
//! port still open. The game must come through whole and the daemon still serve.

use eboardd::daemon::config::ProtocolChoice;
use eboardd::dbus::board_path;
use eboardd::protocol::Protocol;
use eboardd::protocol::driver::SILENCE_LIMIT;
use eboardd::sim::device::BoardOptions;
use eboardd::sim::{HandOptions, Performance};
use eboardd::time::Time;
use std::time::Duration;
use zbus::Message;

use crate::daemon::emulated::EmulatedPty;
use crate::daemon::emulated_game::{
    Followed, SPEED, contains, count, find, game_limit_at, is_event, is_move, opera, play,
    real_daemon, truth_sans,
};
use crate::daemon::support::*;

/// `len` bytes of line noise that can never make a message of `protocol`: 7-bit bytes (and
/// for DGT bytes with bit 7 set that start no message), drawn from `seed`. A ChessLink
/// frame needs a type letter, hex digits and its checksum, so the noise has no letters.
fn noise(protocol: Protocol, seed: u32, len: usize) -> Vec<u8> {
    let mut state = seed | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let b = (state % 128) as u8;
            match protocol {
                // 0xff and 0xc1 are no DGT message ids.
                Protocol::Dgt if state.is_multiple_of(9) => [0xff, 0xc1][(state % 2) as usize],
                Protocol::Dgt => b,
                Protocol::Millennium if b.is_ascii_alphabetic() => b'#',
                Protocol::Millennium => b,
            }
        })
        .collect()
}

/// Messages of `protocol` cut short: each ends where the board's next message begins.
fn truncated(protocol: Protocol) -> Vec<u8> {
    match protocol {
        Protocol::Dgt => [
            &[0x8e, 0x00, 0x05, 0x34][..], // FIELD_UPDATE without its piece
            &[0x86, 0x00, 0x43, 0x08, 0x09, 0x0a][..], // BOARD_DUMP, 3 of 64 squares
            &[0x8d, 0x00][..],             // BWTIME, half its header
        ]
        .concat(),
        // A status frame cut after 30 squares, a version frame with a bad checksum, a
        // register echo cut after its address.
        Protocol::Millennium => [
            &b"sRNBQKBNRPPPPPPPP.............."[..],
            &b"v010375"[..],
            &b"w02"[..],
        ]
        .concat(),
    }
}

/// The daemon, an emulated `protocol` board playing the Opera game, and a client
/// recording the signals.
struct Setup {
    _dir: tempfile::TempDir,
    conn: zbus::Connection,
    signals: Signals,
    board: EmulatedPty,
    perf: Performance,
    speed: f64,
    _daemon: (eboardd::daemon::Daemon, eboardd::dbus::Service),
}

async fn set_up(protocol: Protocol, seed: u64) -> Setup {
    set_up_with(
        protocol,
        seed,
        HandOptions::default(),
        BoardOptions::default(),
        SPEED,
    )
    .await
}

/// [`set_up`] with this hand and board, the game played `speed` times faster than real
/// time.
async fn set_up_with(
    protocol: Protocol,
    seed: u64,
    hand: HandOptions,
    board: BoardOptions,
    speed: f64,
) -> Setup {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    let address = start_bus(dir.path());
    let link = board_link(dir.path(), "board0");
    let played = play(&opera(), protocol, seed, hand, board);
    let perf = played.perf;
    let conn = client(&address).await;
    let signals = Signals::record(&conn).await;
    let board = EmulatedPty::start(&link, played.board, perf.timeline.clone(), speed, vec![]);
    let daemon = real_daemon(
        &address,
        &dir.path().join("state"),
        &link,
        ProtocolChoice::Fixed(protocol),
    )
    .await;
    Setup {
        _dir: dir,
        conn,
        signals,
        board,
        perf,
        speed,
        _daemon: daemon,
    }
}

impl Setup {
    /// Waits for the `Move` signal of `ply`, keeping every signal in `seen`.
    async fn until_move(&mut self, seen: &mut Vec<Message>, ply: u32) {
        let limit = game_limit_at(&self.perf, self.speed);
        seen.extend(self.signals.until(limit, |m| is_move(m, ply)).await);
    }

    /// Waits for the game's result, then checks that the signals told the whole game and
    /// that the daemon still answers and still reaches the board.
    async fn finish(&mut self, mut seen: Vec<Message>) -> Followed {
        let limit = game_limit_at(&self.perf, self.speed);
        seen.extend(self.signals.until(limit, |m| is_event(m, "result")).await);
        let followed = Followed::from(&seen);
        assert_eq!(
            followed.sans,
            truth_sans(&self.perf),
            "{:?}",
            followed.counts
        );
        assert_eq!(followed.results, [("1-0".into(), "checkmate".into())]);
        let proxy = board_proxy(&self.conn, board_path(0)).await;
        let last = self.perf.truth.plies.last().expect("plies");
        assert_eq!(proxy.fen().await.expect("Fen"), last.fen_after);
        assert_eq!(proxy.ply().await.expect("Ply"), followed.sans.len() as u32);
        assert!(proxy.connected().await.expect("Connected"));
        let written = self.board.host_bytes().len();
        // A plain DGT board has no LEDs (SetLeds is refused): its keep-alive shows the
        // daemon still reaches it.
        match proxy.set_leds(&["e2", "e4"]).await {
            Ok(()) => {}
            Err(e) if e.to_string().contains("no LEDs") => {}
            Err(e) => panic!("SetLeds: {e}"),
        }
        self.board
            .wait_host(LIMIT, "the LEDs or keep-alive after the faults", |b| {
                b.len() > written
            });
        followed
    }
}

/// A moment after ply `ply` ended and before the next one starts, in the hand's time.
fn between(perf: &Performance, ply: usize) -> Time {
    let end = perf.truth.plies[ply - 1].move_end;
    let soon = end + std::time::Duration::from_millis(500);
    match perf.truth.plies.get(ply) {
        Some(next) => soon.min(end + (next.move_start - end) / 2),
        None => soon,
    }
}

/// Whether `msg` says the board's link went (`false`) or came back (`true`).
fn connected_change(msg: &Message) -> Option<bool> {
    if member(msg) != "PropertiesChanged" {
        return None;
    }
    let (_, changed, _): (
        String,
        std::collections::HashMap<String, zbus::OwnedVariant>,
        Vec<String>,
    ) = msg.body().deserialize().ok()?;
    bool::try_from(changed.get("Connected")?.clone()).ok()
}

/// A real game through line faults: a burst of garbage, then truncated messages, then a
/// long burst ending in truncated messages, then the board falls silent with its port
/// open after ply 16. The daemon gives the silent link up, opens the port again, and once the board
/// answers the game goes on; every move is seen, and the daemon still serves.
async fn through_faults(protocol: Protocol) {
    let mut s = set_up(protocol, 21).await;
    // Silent from between plies 16 and 17 on, in the hand's time: whatever the daemon's pace,
    // no move is half made when the board stops answering.
    s.board.mute_at(between(&s.perf, 16));
    let mut seen = Vec::new();
    s.until_move(&mut seen, 3).await;
    s.board.inject(&noise(protocol, 7, 40));
    s.until_move(&mut seen, 7).await;
    s.board.inject(&truncated(protocol));
    s.until_move(&mut seen, 11).await;
    // A truncated message last: the board's next message is what cuts it short.
    let mut burst = noise(protocol, 99, 3000);
    burst.extend(truncated(protocol));
    s.board.inject(&burst);
    s.until_move(&mut seen, 15).await;
    assert!(
        !Followed::from(&seen).connected.contains(&false),
        "garbage is no reason to drop the link"
    );

    let limit = SILENCE_LIMIT + LIMIT;
    seen.extend(
        s.signals
            .until(limit, |m| connected_change(m) == Some(false))
            .await,
    );
    s.board.unmute();
    let followed = s.finish(seen).await;
    assert!(
        followed.connected.ends_with(&[false, true])
            && followed.connected.iter().filter(|c| !**c).count() == 1,
        "given up once, then back: {:?}",
        followed.connected
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dgt_game_comes_through_garbage_truncated_messages_and_a_board_that_stops_answering() {
    through_faults(Protocol::Dgt).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_millennium_game_comes_through_garbage_truncated_frames_and_a_board_that_stops_answering()
{
    through_faults(Protocol::Millennium).await;
}

#[test]
fn the_noise_holds_no_message() {
    use eboardd::protocol::{dgt, millennium};
    let bytes = noise(Protocol::Dgt, 99, 3000);
    let mut decoder = dgt::Decoder::new();
    decoder.push_bytes(&bytes);
    assert!(std::iter::from_fn(|| decoder.poll()).all(|d| !matches!(d, dgt::Decoded::Message(_))));
    let bytes = noise(Protocol::Millennium, 99, 3000);
    let mut decoder = millennium::Decoder::new();
    decoder.push_bytes(&bytes);
    assert!(
        std::iter::from_fn(|| decoder.poll()).all(|d| !matches!(d, millennium::Decoded::Reply(_)))
    );
}

/// Whether `bytes` is a message that reports a move in progress: a DGT field update, a
/// ChessLink status frame (its parity bit aside).
fn reports_squares(protocol: Protocol, bytes: &[u8]) -> bool {
    match (protocol, bytes.first()) {
        (Protocol::Dgt, Some(&b)) => b == 0x8e,
        (Protocol::Millennium, Some(&b)) => b & 0x7f == b's',
        (_, None) => false,
    }
}

/// A real game whose board is unplugged in the middle of a message reporting ply `ply`
/// (half of it reached the daemon), and plugged back in once the next ply was played
/// meanwhile. The half message is no move and no reason to stop: the game goes on with
/// every move, none twice, and the daemon still serves.
async fn cut_mid_message(protocol: Protocol, ply: usize) {
    let mut s = set_up(protocol, 21).await;
    let mut seen = Vec::new();
    // Once the ply before is confirmed, the next message about squares is cut: the
    // daemon's, not the hand's, pace decides which ply it is in.
    s.until_move(&mut seen, ply as u32 - 1).await;
    s.board.cut_at(
        Time::ZERO,
        move |b| reports_squares(protocol, b),
        between(&s.perf, ply + 1),
    );
    let followed = s.finish(seen).await;
    let cut = s
        .board
        .wait(Duration::ZERO, "the cut", |st| Some(st.cut.clone()));
    let [(sent, whole)] = &cut[..] else {
        panic!("one message cut: {cut:?}");
    };
    assert!(
        !sent.is_empty() && sent.len() < whole.len(),
        "{sent:?} of {whole:?}"
    );
    assert_eq!(
        s.board.wait(Duration::ZERO, "plugs", |st| Some(st.plugs)),
        2
    );
    assert!(
        followed.connected.ends_with(&[false, true])
            && followed.connected.iter().filter(|c| !**c).count() == 1,
        "away once, then back: {:?}",
        followed.connected
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dgt_board_unplugged_in_the_middle_of_a_field_update_comes_back_with_the_game_whole() {
    cut_mid_message(Protocol::Dgt, 12).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_millennium_board_unplugged_in_the_middle_of_a_status_frame_comes_back_with_the_game_whole()
 {
    cut_mid_message(Protocol::Millennium, 12).await;
}

/// The DGT3000 command that shows `text` (at most eight characters).
fn clock_text_command(text: &str) -> Vec<u8> {
    [
        &[0x2b, 0x0c, 0x03, 0x0c][..],
        format!("{text:<8}").as_bytes(),
        &[0, 0],
    ]
    .concat()
}

/// A DGT clock that acknowledges commands at first and then never again, from between
/// plies 10 and 11 on, while a client asks for text on it after every move. Every call
/// is answered, no command is sent more than the attempts allow, the texts go out in the
/// order asked and the last one asked still gets out (nothing stalls or piles up), and
/// the game comes through whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dgt_clock_that_stops_acknowledging_neither_stalls_the_board_nor_piles_up_commands() {
    use eboardd::protocol::dgt::clock_queue::ATTEMPTS;
    let hand = HandOptions {
        clock_press: 1.0,
        ..HandOptions::default()
    };
    let board = BoardOptions {
        clock: true,
        ..BoardOptions::default()
    };
    // Slower than the other tests: the client's calls between plies run on the same
    // runtime as the daemon, and a stall must not bunch several plies together.
    let mut s = set_up_with(Protocol::Dgt, 21, hand, board, SPEED / 3.0).await;
    let silent_from = between(&s.perf, 10);
    s.board.change_at(silent_from, |b| b.set_clock_acks(false));
    let mut seen = Vec::new();
    s.until_move(&mut seen, 11).await;
    let acked_until = s.board.host_bytes().len();
    let proxy = board_proxy(&s.conn, board_path(0)).await;
    let plies = s.perf.truth.plies.len() as u32;
    let mut asked = Vec::new();
    for ply in 12..plies {
        s.until_move(&mut seen, ply).await;
        for i in 0..20 {
            let text = format!("p{ply}-{i}");
            let answer = tokio::time::timeout(LIMIT, proxy.clock_text(&text))
                .await
                .unwrap_or_else(|_| panic!("ClockText {text} not answered"));
            match answer {
                Ok(()) => asked.push(text),
                Err(zbus::Error::MethodError(name, _, _))
                    if name.as_str() == "org.eboardd.EBoard1.Error.Rejected" => {}
                Err(e) => panic!("ClockText {text}: {e}"),
            }
        }
    }
    let last = asked.last().expect("texts accepted").clone();
    s.board
        .wait_host(LIMIT + LIMIT, "the last text asked", |b| {
            contains(&b[acked_until..], &clock_text_command(&last))
        });
    let host = s.board.host_bytes();
    let sent: Vec<(usize, usize)> = asked
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let command = clock_text_command(t);
            let times = count(&host[acked_until..], &command);
            (times > 0).then_some((i, times))
        })
        .collect();
    // Each text but the last was sent as often as the attempts allow, then given up for
    // the next: the clock never answered, and the daemon neither waited for it for ever
    // nor kept trying.
    let (_, last_times) = sent.last().expect("the last text was sent");
    assert!(*last_times <= ATTEMPTS as usize);
    for (i, times) in &sent[..sent.len() - 1] {
        assert_eq!(
            *times, ATTEMPTS as usize,
            "{} sent {times} times",
            asked[*i]
        );
    }
    assert!(sent.len() >= 2, "more than one text went out: {sent:?}");
    // In the order asked: each text sent starts after the last sending of the one before.
    let mut from = 0;
    for (i, _) in &sent {
        let command = clock_text_command(&asked[*i]);
        let at = find(&host[acked_until + from..], &command)
            .unwrap_or_else(|| panic!("{} out of order", asked[*i]));
        from += at + command.len();
    }
    assert!(
        sent.len() < asked.len() / 4,
        "{} of {} texts sent: the clock's queue kept every one",
        sent.len(),
        asked.len()
    );
    s.finish(seen).await;
}
