//! `eboardd run --mqtt URL`: this host's boards published to a broker.
//!
//! One task per board follows its game ([`BoardHandle::follow_game`]: the game so far and
//! every event after it, nothing missed or seen twice) and queues its messages: each event
//! (QoS 1, numbered), and the board's state (retained) whenever the game, the link or, at
//! most once a second, the clock changes. One task hands the queue to the MQTT client in
//! order, one drives the client's connection.
//!
//! A broker that is away stops nothing: the queue holds the messages in memory (in order)
//! until the connection is back. Messages the broker had not acknowledged when it went
//! away may be lost if the broker forgets the session (restarted without persistence);
//! every board's latest state is published again on each connection, and it carries the
//! whole game, so consumers catch up whatever was lost. The status topic says `online` on
//! each connection; the broker says `offline` for us (the last will) when the connection
//! drops, and we say it on a clean stop.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rumqttc::{AsyncClient, Event, LastWill, Packet, QoS};
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinHandle;

use super::message::{ClockState, EventMessage, GameState, Position, StateMessage};
use super::{MqttError, MqttSettings};
use crate::daemon::board::{BoardHandle, BoardStatus};
use crate::daemon::complaint::{Complaint, Say};
use crate::daemon::{BoardChange, Daemon};
use crate::event::{GameEvent, TimedEvent};
use crate::game::record::GameRecord;
use crate::relay::files::PgnDir;
use crate::relay::pgn::PgnTags;

/// How often a board's clock-only changes are published in its state, at most.
pub const STATE_CLOCK_PERIOD: Duration = Duration::from_secs(1);

/// One message to publish.
#[derive(Debug, Clone)]
struct Outgoing {
    topic: String,
    payload: String,
    retain: bool,
}

/// What the board tasks share.
#[derive(Clone)]
struct Shared {
    name: String,
    prefix: String,
    run: u64,
    round: PgnTags,
    outbox: mpsc::UnboundedSender<Outgoing>,
    /// Each board's last event number in this run (kept when a board is detached and
    /// attached again, so that its numbers go on).
    seqs: Arc<Mutex<HashMap<u32, u64>>>,
    /// Each board's latest state message, published again on every connection.
    states: Arc<Mutex<BTreeMap<u32, Outgoing>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The running publisher: stop it with [`Publisher::stop`].
pub struct Publisher {
    client: AsyncClient,
    status_topic: String,
    tasks: Vec<JoinHandle<()>>,
}

impl Publisher {
    /// Says `offline` and disconnects (bounded: a broker that is away is not waited for).
    pub async fn stop(self) {
        let offline = async {
            let _ = self
                .client
                .publish(&self.status_topic, QoS::AtLeastOnce, true, "offline")
                .await;
            let _ = self.client.disconnect().await;
            // Let the connection task send them.
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let _ = tokio::time::timeout(Duration::from_secs(1), offline).await;
        for t in self.tasks {
            t.abort();
        }
    }
}

/// Starts publishing every board of `daemon` to the broker of `settings`, with `round`'s
/// tags in the states' PGN. Call it before boards are attached (it follows each board from
/// its announcement on).
pub fn spawn_publisher(
    daemon: Daemon,
    settings: &MqttSettings,
    round: PgnTags,
) -> Result<Publisher, MqttError> {
    let name = settings.name()?;
    let prefix = settings.publish_prefix()?;
    let mut options = settings.client_options(&format!("eboardd-{name}"))?;
    let status_topic = format!("{prefix}status");
    options.set_last_will(LastWill::new(
        &status_topic,
        "offline",
        QoS::AtLeastOnce,
        true,
    ));
    options.set_clean_session(false);
    let (client, eventloop) = AsyncClient::new(options, 256);
    let (outbox, queued) = mpsc::unbounded_channel();
    let run = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    let shared = Shared {
        name,
        prefix,
        run,
        round,
        outbox,
        seqs: Arc::default(),
        states: Arc::default(),
    };
    let changes = daemon.subscribe();
    let tasks = vec![
        tokio::spawn(drive(eventloop, shared.clone(), status_topic.clone())),
        tokio::spawn(send(client.clone(), queued)),
        tokio::spawn(follow_boards(daemon, shared, changes)),
    ];
    Ok(Publisher {
        client,
        status_topic,
        tasks,
    })
}

/// Drives the connection: reconnects (every second while the broker is away) and says
/// `online` and every board's state again on each connection.
async fn drive(mut eventloop: rumqttc::EventLoop, shared: Shared, status_topic: String) {
    let mut trouble = Complaint::new();
    loop {
        match eventloop.poll().await {
            Ok(Event::Incoming(Packet::ConnAck(_))) => {
                if let Some(Say::Cleared) = trouble.note::<String>(Ok(())) {
                    tracing::info!("MQTT broker reached again");
                } else {
                    tracing::info!("MQTT broker reached");
                }
                let _ = shared.outbox.send(Outgoing {
                    topic: status_topic.clone(),
                    payload: "online".into(),
                    retain: true,
                });
                let states: Vec<Outgoing> = lock(&shared.states).values().cloned().collect();
                for state in states {
                    let _ = shared.outbox.send(state);
                }
            }
            Ok(_) => {}
            Err(e) => {
                let kind = format!("{:?}", std::mem::discriminant(&e));
                if let Some(Say::Failing(e)) = trouble.note(Err((e, kind))) {
                    tracing::warn!(
                        "MQTT broker unreachable: {e}; trying every second, messages kept until then"
                    );
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

/// Hands the queue to the client, in order; waits while the client's own queue is full.
async fn send(client: AsyncClient, mut queued: mpsc::UnboundedReceiver<Outgoing>) {
    while let Some(m) = queued.recv().await {
        if client
            .publish(m.topic, QoS::AtLeastOnce, m.retain, m.payload)
            .await
            .is_err()
        {
            break;
        }
    }
}

async fn follow_boards(
    daemon: Daemon,
    shared: Shared,
    mut changes: broadcast::Receiver<BoardChange>,
) {
    let mut followed: HashMap<u32, JoinHandle<()>> = HashMap::new();
    let start = |handle: BoardHandle, followed: &mut HashMap<u32, JoinHandle<()>>| {
        let id = handle.id();
        if followed.get(&id).is_some_and(|t| !t.is_finished()) {
            return;
        }
        let players = daemon
            .options()
            .boards
            .iter()
            .find(|b| b.device == handle.device())
            .map(|b| (b.white.clone(), b.black.clone()))
            .unwrap_or_default();
        followed.insert(
            id,
            tokio::spawn(follow_board(handle, shared.clone(), players)),
        );
    };
    for handle in daemon.boards().await {
        start(handle, &mut followed);
    }
    loop {
        match changes.recv().await {
            Ok(BoardChange::Added(handle)) => start(handle, &mut followed),
            Ok(BoardChange::Removed(_)) | Err(broadcast::error::RecvError::Lagged(_)) => {}
            Err(broadcast::error::RecvError::Closed) => break,
        }
    }
}

/// Whether an event changes the game a state carries (or its illegal-move flag).
fn changes_game(event: &GameEvent) -> bool {
    matches!(
        event,
        GameEvent::NewGame { .. }
            | GameEvent::Move { .. }
            | GameEvent::Retract { .. }
            | GameEvent::Takeback { .. }
            | GameEvent::Result { .. }
            | GameEvent::Violation { uci: Some(_), .. }
    )
}

/// One board's game as its task keeps it.
struct BoardFeed {
    id: u32,
    shared: Shared,
    white: Option<String>,
    black: Option<String>,
    record: GameRecord,
    pgn: PgnDir,
    clock: Option<ClockState>,
    seq: u64,
}

impl BoardFeed {
    fn topic(&self, what: &str) -> String {
        format!("{}board/{}/{what}", self.shared.prefix, self.id)
    }

    /// Starts from `record` (the game so far): a fresh PGN model with it.
    fn reset(&mut self, record: GameRecord) {
        let mut pgn = PgnDir::in_memory(self.shared.round.clone());
        pgn.add_board(self.id, self.white.clone(), self.black.clone());
        for e in GameState::of(&record).events() {
            pgn.apply(self.id, &e);
        }
        self.pgn = pgn;
        self.record = record;
    }

    fn next_seq(&mut self) -> u64 {
        let mut seqs = lock(&self.shared.seqs);
        let seq = seqs.entry(self.id).or_insert(0);
        *seq += 1;
        self.seq = *seq;
        self.seq
    }

    fn publish_event(&mut self, event: &TimedEvent) {
        let seq = self.next_seq();
        let message = EventMessage {
            host: self.shared.name.clone(),
            board: self.id,
            at: Position {
                run: self.shared.run,
                seq,
            },
            event: event.clone(),
        };
        let _ = self.shared.outbox.send(Outgoing {
            topic: self.topic("event"),
            payload: message.to_json(),
            retain: false,
        });
        self.record.apply(&event.event);
        self.pgn.apply(self.id, &event.event);
        if let GameEvent::Clock {
            white_ms,
            black_ms,
            running,
        } = event.event
        {
            self.clock = Some(ClockState {
                white_ms,
                black_ms,
                running,
            });
        }
    }

    fn publish_state(&mut self, status: &BoardStatus) {
        let state = StateMessage {
            host: self.shared.name.clone(),
            board: self.id,
            run: self.shared.run,
            seq: self.seq,
            connected: status.connected,
            protocol: status.protocol.clone(),
            device: status.device.clone(),
            serial: status.serial.clone(),
            fen: status.fen.clone(),
            ply: status.ply,
            pgn: self.pgn.board_pgn(self.id).unwrap_or_default(),
            clock: self.clock,
            white: self.white.clone(),
            black: self.black.clone(),
            game: GameState::of(&self.record),
        };
        let message = Outgoing {
            topic: self.topic("state"),
            payload: state.to_json(),
            retain: true,
        };
        lock(&self.shared.states).insert(self.id, message.clone());
        let _ = self.shared.outbox.send(message);
    }
}

/// The part of a board's status its state shows besides the game (its FEN and ply change
/// with the game, before the game's event is sent, so the state after the event has them).
fn link_of(s: &BoardStatus) -> (bool, String, String) {
    (s.connected, s.protocol.clone(), s.serial.clone())
}

async fn follow_board(
    handle: BoardHandle,
    shared: Shared,
    (white, black): (Option<String>, Option<String>),
) {
    let id = handle.id();
    let mut status = handle.watch_status();
    let Ok(follow) = handle.follow_game().await else {
        return;
    };
    let seq = lock(&shared.seqs).get(&id).copied().unwrap_or(0);
    let mut feed = BoardFeed {
        id,
        shared,
        white,
        black,
        record: GameRecord::default(),
        pgn: PgnDir::in_memory(PgnTags::default()),
        clock: follow.clock.map(|(c, _)| ClockState {
            white_ms: c.white_ms,
            black_ms: c.black_ms,
            running: c.running,
        }),
        seq,
    };
    feed.reset(follow.record);
    let mut events = follow.events;
    let mut shown = link_of(&status.borrow_and_update());
    feed.publish_state(&handle.status());
    let mut clock_tick = tokio::time::interval(STATE_CLOCK_PERIOD);
    clock_tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut clock_changed = false;
    loop {
        tokio::select! {
            event = events.recv() => match event {
                Ok(event) => {
                    feed.publish_event(&event);
                    if changes_game(&event.event) {
                        feed.publish_state(&handle.status());
                        clock_changed = false;
                    } else if matches!(event.event, GameEvent::Clock { .. }) {
                        clock_changed = true;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!(board = id, missed = n, "MQTT fell behind the board; its state is published whole");
                    let Ok(again) = handle.follow_game().await else { break };
                    feed.reset(again.record);
                    events = again.events;
                    // A number no event has: consumers rebuild from this state.
                    feed.next_seq();
                    feed.publish_state(&handle.status());
                }
                Err(broadcast::error::RecvError::Closed) => break,
            },
            changed = status.changed() => {
                if changed.is_err() {
                    break;
                }
                let now = link_of(&status.borrow_and_update());
                if now != shown {
                    shown = now;
                    feed.publish_state(&handle.status());
                    clock_changed = false;
                }
            }
            _ = clock_tick.tick() => {
                if clock_changed {
                    feed.publish_state(&handle.status());
                    clock_changed = false;
                }
            }
        }
    }
    // Detached: the board is away.
    let last = BoardStatus {
        connected: false,
        ..handle.status()
    };
    feed.publish_state(&last);
}
