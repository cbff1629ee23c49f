//! `eboardd run --mqtt URL`: this host's boards published to a broker.
//!
//! One task per board follows its game ([`BoardHandle::follow_game`]: the game so far and
//! every event after it, nothing missed or seen twice) and queues its messages: each event
//! (QoS 1, numbered), and the board's state (retained) whenever the game, the link or, at
//! most once a second, the clock changes. One task hands the queue to the MQTT client in
//! order, one drives the client's connection.
//!
//! A broker that is away stops nothing: the queue holds the messages in memory (in order)
//! until the connection is back, and every event message is also kept on disk ([`spool`])
//! until the broker acknowledges it. A daemon stopped or killed meanwhile publishes those
//! first when it runs again, with the `run` and `seq` they were given, before anything of
//! its new life. Messages the broker had acknowledged may still be lost if the broker
//! forgets them (restarted without persistence); every board's latest state is published
//! again on each connection, and it carries the whole game, so consumers catch up whatever
//! was lost. The status topic says `online` on each connection; the broker says `offline`
//! for us (the last will) when the connection drops, and we say it on a clean stop.
//!
//! [`spool`]: super::spool

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rumqttc::{AsyncClient, Event, LastWill, Packet, QoS};
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinHandle;

use super::message::{ClockState, EventMessage, GameState, Position, StateMessage};
use super::spool::{SAVE_PERIOD, Spool, Spooled};
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
    /// The board and position of a spooled event message.
    tag: Tag,
}

/// What the broker's acknowledgement of a message means for the spool: `(board, position)`
/// of an event message, `None` for the others.
type Tag = Option<(u32, Position)>;

/// The tags of the messages handed to the MQTT client, in the order handed: the client
/// numbers them (packet ids) in that order.
type Handed = Arc<Mutex<VecDeque<Tag>>>;

/// The spool, if it could be opened, and how writing to it goes.
#[derive(Clone)]
struct Disk {
    spool: Arc<Mutex<Spool>>,
    trouble: Arc<Mutex<Complaint>>,
}

impl Disk {
    /// Notes the outcome of a spool write, logging a failure once and its end once.
    fn note(&self, outcome: std::io::Result<()>) {
        let said = lock(&self.trouble).note(outcome.map_err(|e| {
            let kind = format!("{:?}", e.kind());
            (e, kind)
        }));
        match said {
            Some(Say::Failing(e)) => tracing::warn!(
                "MQTT spool: {e}; events are published from memory only until the disk takes them"
            ),
            Some(Say::Cleared) => tracing::info!("MQTT spool written again"),
            None => {}
        }
    }
}

/// What the board tasks share.
#[derive(Clone)]
struct Shared {
    name: String,
    prefix: String,
    run: u64,
    round: PgnTags,
    outbox: mpsc::UnboundedSender<Outgoing>,
    /// Where event messages wait for the broker's acknowledgement (none: memory only).
    disk: Option<Disk>,
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
    handed: Handed,
    disk: Option<Disk>,
    /// The task handing the queue to the client.
    sender: JoinHandle<()>,
    tasks: Vec<JoinHandle<()>>,
}

impl Publisher {
    /// Says `offline` and disconnects (bounded: a broker that is away is not waited for);
    /// what the broker acknowledged is written to the spool's marks.
    pub async fn stop(self) {
        // Nothing more is handed to the client but `offline`.
        self.sender.abort();
        let _ = self.sender.await;
        {
            let mut handed = lock(&self.handed);
            handed.push_back(None);
            if self
                .client
                .try_publish(&self.status_topic, QoS::AtLeastOnce, true, "offline")
                .is_err()
            {
                handed.pop_back();
            }
        }
        let offline = async {
            let _ = self.client.disconnect().await;
            // Let the connection task send them.
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let _ = tokio::time::timeout(Duration::from_secs(1), offline).await;
        for t in self.tasks {
            t.abort();
        }
        if let Some(disk) = &self.disk {
            let saved = lock(&disk.spool).save();
            disk.note(saved);
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
    let mut run = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    let spool_dir = daemon.options().state_dir.join("mqtt");
    let disk = match Spool::open(&spool_dir) {
        Ok((spool, pending, last_run)) => {
            // A later life than every one before, whatever the clock says.
            run = run.max(last_run.saturating_add(1));
            if let Err(e) = spool.set_run(run) {
                tracing::warn!("MQTT spool {}: {e}", spool_dir.display());
            }
            if !pending.is_empty() {
                tracing::info!(
                    messages = pending.len(),
                    "MQTT: events the broker did not acknowledge before the daemon stopped are published first"
                );
            }
            // Before anything of this life.
            for (board, m) in pending {
                let _ = outbox.send(Outgoing {
                    tag: Some((board, m.at())),
                    topic: m.topic,
                    payload: m.payload,
                    retain: false,
                });
            }
            Some(Disk {
                spool: Arc::new(Mutex::new(spool)),
                trouble: Arc::default(),
            })
        }
        Err(e) => {
            tracing::warn!(
                "MQTT spool {}: {e}; events are published from memory only",
                spool_dir.display()
            );
            None
        }
    };
    let handed = Handed::default();
    let shared = Shared {
        name,
        prefix,
        run,
        round,
        outbox,
        disk: disk.clone(),
        seqs: Arc::default(),
        states: Arc::default(),
    };
    let changes = daemon.subscribe();
    let mut tasks = vec![
        tokio::spawn(drive(
            eventloop,
            shared.clone(),
            status_topic.clone(),
            handed.clone(),
        )),
        tokio::spawn(follow_boards(daemon, shared, changes)),
    ];
    if let Some(disk) = disk.clone() {
        tasks.push(tokio::spawn(save_marks(disk)));
    }
    let sender = tokio::spawn(send(client.clone(), queued, handed.clone()));
    Ok(Publisher {
        client,
        status_topic,
        handed,
        disk,
        sender,
        tasks,
    })
}

/// Writes the spool's marks every [`SAVE_PERIOD`].
async fn save_marks(disk: Disk) {
    let mut tick = tokio::time::interval(SAVE_PERIOD);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let saved = lock(&disk.spool).save();
        disk.note(saved);
    }
}

/// Drives the connection: reconnects (every second while the broker is away), says
/// `online` and every board's state again on each connection, and tells the spool which
/// event messages the broker acknowledged.
async fn drive(
    mut eventloop: rumqttc::EventLoop,
    shared: Shared,
    status_topic: String,
    handed: Handed,
) {
    let mut trouble = Complaint::new();
    // The tag of each packet id the client has sent and the broker not yet acknowledged.
    let mut inflight: HashMap<u16, Tag> = HashMap::new();
    loop {
        match eventloop.poll().await {
            Ok(Event::Outgoing(rumqttc::Outgoing::Publish(pkid))) => {
                // A packet id seen before is the same message sent again (reconnected).
                if pkid != 0 && !inflight.contains_key(&pkid) {
                    let tag = lock(&handed).pop_front().flatten();
                    inflight.insert(pkid, tag);
                }
            }
            Ok(Event::Incoming(Packet::PubAck(ack))) => {
                if let (Some(Some((board, at))), Some(disk)) =
                    (inflight.remove(&ack.pkid), &shared.disk)
                {
                    lock(&disk.spool).acked(board, at);
                }
            }
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
                    tag: None,
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

/// Hands the queue to the client, in order, noting each message's tag as it goes; waits
/// while the client's own queue is full.
async fn send(client: AsyncClient, mut queued: mpsc::UnboundedReceiver<Outgoing>, handed: Handed) {
    while let Some(m) = queued.recv().await {
        loop {
            // The tag and the message go together or not at all (no await between them).
            let full = {
                let mut tags = lock(&handed);
                tags.push_back(m.tag);
                match client.try_publish(
                    m.topic.clone(),
                    QoS::AtLeastOnce,
                    m.retain,
                    m.payload.clone(),
                ) {
                    Ok(()) => false,
                    Err(rumqttc::ClientError::TryRequest(_)) => {
                        tags.pop_back();
                        true
                    }
                    Err(_) => return,
                }
            };
            if !full {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
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
        let topic = self.topic("event");
        let payload = message.to_json();
        if let Some(disk) = &self.shared.disk {
            let spooled = Spooled {
                run: self.shared.run,
                seq,
                topic: topic.clone(),
                payload: payload.clone(),
            };
            let written = lock(&disk.spool).append(self.id, &spooled);
            disk.note(written);
        }
        let _ = self.shared.outbox.send(Outgoing {
            topic,
            payload,
            retain: false,
            tag: Some((
                self.id,
                Position {
                    run: self.shared.run,
                    seq,
                },
            )),
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
            tag: None,
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
