//! `eboardd relay --mqtt URL` and `eboardd watch --mqtt URL`: every host's boards followed
//! through the broker.
//!
//! The relay subscribes (QoS 1, a persistent session under a fixed client id) to every
//! host's states and events, puts them together with [`Aggregator`] and keeps the relay's
//! games ([`PgnDir`]: `--pgn-dir`, HTTP, the lichess push) as the local relay does. Started
//! late or restarted, it rebuilds every game from the retained states and goes on with the
//! events; the broker keeps the events of its session meanwhile.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::time::Duration;

use rumqttc::{AsyncClient, Event, Packet, QoS};
use tokio::sync::mpsc;

use super::aggregate::{Aggregator, BoardMap, Update};
use super::message::{EventMessage, StateHead, StateMessage};
use super::{MqttError, MqttSettings};
use crate::daemon::complaint::{Complaint, Say};
use crate::relay::files::PgnDir;
use crate::relay::page::{HallState, HallView};
use crate::sensing::ClockReading;

/// What the connection task hands on.
enum Heard {
    /// A message on `topic`.
    Message { topic: String, payload: Vec<u8> },
}

/// Drives `eventloop`, subscribing to `filters` on every connection, and hands every
/// message to `tx` until it is closed.
async fn drive(
    mut eventloop: rumqttc::EventLoop,
    client: AsyncClient,
    filters: Vec<String>,
    tx: mpsc::UnboundedSender<Heard>,
) {
    let mut trouble = Complaint::new();
    loop {
        match eventloop.poll().await {
            Ok(Event::Incoming(Packet::ConnAck(_))) => {
                match trouble.note::<String>(Ok(())) {
                    Some(Say::Cleared) => tracing::info!("MQTT broker reached again"),
                    _ => tracing::info!("MQTT broker reached"),
                }
                // On every connection: a broker that forgot the session (restarted) has
                // forgotten the subscriptions too. Retained states come with them.
                let subscriptions = filters
                    .iter()
                    .map(|f| rumqttc::SubscribeFilter::new(f.clone(), QoS::AtLeastOnce));
                if let Err(e) = client.try_subscribe_many(subscriptions) {
                    tracing::warn!("cannot subscribe: {e}");
                }
            }
            Ok(Event::Incoming(Packet::Publish(p))) => {
                let heard = Heard::Message {
                    topic: p.topic,
                    payload: p.payload.to_vec(),
                };
                if tx.send(heard).is_err() {
                    return;
                }
            }
            Ok(_) => {}
            Err(e) => {
                let kind = format!("{:?}", std::mem::discriminant(&e));
                if let Some(Say::Failing(e)) = trouble.note(Err((e, kind))) {
                    tracing::warn!("MQTT broker unreachable: {e}; trying every second");
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

/// Connects as `client_id` and starts following `filters`.
fn connect(
    settings: &MqttSettings,
    client_id: &str,
    persistent: bool,
    filters: Vec<String>,
) -> Result<(mpsc::UnboundedReceiver<Heard>, tokio::task::JoinHandle<()>), MqttError> {
    let mut options = settings.client_options(client_id)?;
    options.set_clean_session(!persistent);
    let (client, eventloop) = AsyncClient::new(options, 64);
    let (tx, rx) = mpsc::unbounded_channel();
    let task = tokio::spawn(drive(eventloop, client, filters, tx));
    Ok((rx, task))
}

/// The relay's client id (fixed, so that the broker keeps its session across restarts).
pub fn relay_client_id(settings: &MqttSettings) -> Result<String, MqttError> {
    Ok(format!("eboardd-relay-{}", settings.name()?))
}

/// What one message says, as the aggregator takes it.
enum Message {
    /// A state with its head (read first).
    State(StateHead, Box<StateMessage>),
    /// A state that says nothing new of the game: its head, which says how the board is.
    Head(StateHead),
    Event(EventMessage),
    Status {
        host: String,
        online: bool,
    },
}

fn read(topic: &str, payload: &[u8], aggregator: &Aggregator) -> Result<Option<Message>, String> {
    if topic.ends_with("/event") {
        return EventMessage::from_json(payload)
            .map(|m| Some(Message::Event(m)))
            .map_err(|e| e.to_string());
    }
    if topic.ends_with("/state") {
        // Most states say nothing new (the events did): only their head is read then.
        let head = StateHead::from_json(payload).map_err(|e| e.to_string())?;
        if !aggregator.wants_state(&head.host, head.board, head.at()) {
            return Ok(Some(Message::Head(head)));
        }
        return StateMessage::from_json(payload)
            .map(|m| Some(Message::State(head, Box::new(m))))
            .map_err(|e| e.to_string());
    }
    if let Some(rest) = topic.strip_suffix("/status") {
        let host = rest.rsplit('/').next().unwrap_or_default().to_string();
        let online = payload == b"online";
        return Ok(Some(Message::Status { host, online }));
    }
    Ok(None)
}

/// Shows how a board is, as its state's head says (with the state's clock reading, when
/// the whole state was read), on the live page's view of the hall.
fn show_state(
    view: Option<&HallView>,
    aggregator: &Aggregator,
    head: StateHead,
    clock: Option<ClockReading>,
) {
    if let (Some(view), Some(number)) = (view, aggregator.number(&head.host, head.board)) {
        view.state(
            number,
            &HallState {
                host: head.host,
                device: head.device,
                protocol: head.protocol,
                serial: head.serial,
                connected: head.connected,
                clock,
            },
        );
    }
}

/// Shows `updates` on the live page's view of the hall.
fn show(view: &HallView, updates: &[Update]) {
    for update in updates {
        match update {
            Update::Add { number, .. } => view.add(*number),
            Update::Rebuild { number, events } => view.rebuild(*number, events),
            Update::Event { number, event } => view.event(*number, &event.event),
        }
    }
}

/// Applies the aggregator's updates to the relay's games; the boards (ids from 0) whose
/// PGN changed.
fn apply(files: &mut PgnDir, updates: Vec<Update>, changed: &mut BTreeSet<u32>) {
    for update in updates {
        match update {
            Update::Add {
                number,
                white,
                black,
            } => {
                let id = number.saturating_sub(1);
                files.add_board(id, white, black);
                changed.insert(id);
            }
            Update::Rebuild { number, events } => {
                let id = number.saturating_sub(1);
                let mut changes = false;
                for e in &events {
                    changes |= files.apply(id, e);
                }
                if changes {
                    changed.insert(id);
                }
            }
            Update::Event { number, event } => {
                let id = number.saturating_sub(1);
                files.publish_event(id, &event);
                // Clock readings and the like change no PGN: no text is made for them.
                if files.apply(id, &event.event) {
                    changed.insert(id);
                }
            }
        }
    }
}

/// Runs the relay over MQTT until the task is dropped: every host's boards under
/// `settings`' prefix filter, in the order of `map`, kept in `files`.
pub fn spawn_relay(
    settings: &MqttSettings,
    map: BoardMap,
    files: PgnDir,
    view: Option<HallView>,
) -> Result<tokio::task::JoinHandle<()>, MqttError> {
    let prefix = settings.follow_prefix();
    let filters = vec![
        format!("{prefix}status"),
        format!("{prefix}board/+/state"),
        format!("{prefix}board/+/event"),
    ];
    let (rx, connection) = connect(settings, &relay_client_id(settings)?, true, filters)?;
    Ok(tokio::spawn(run_relay(rx, connection, map, files, view)))
}

async fn run_relay(
    mut rx: mpsc::UnboundedReceiver<Heard>,
    connection: tokio::task::JoinHandle<()>,
    map: BoardMap,
    mut files: PgnDir,
    view: Option<HallView>,
) {
    // The connection ends with the relay.
    struct AbortOnDrop(tokio::task::JoinHandle<()>);
    impl Drop for AbortOnDrop {
        fn drop(&mut self) {
            self.0.abort();
        }
    }
    let _connection = AbortOnDrop(connection);
    let mut aggregator = Aggregator::new(map);
    let mut bad = Complaint::new();
    let mut pgn_errors = Complaint::new();
    while let Some(first) = rx.recv().await {
        // Everything heard meanwhile, then one write.
        let mut heard = vec![first];
        while let Ok(more) = rx.try_recv() {
            heard.push(more);
        }
        let mut changed = BTreeSet::new();
        for Heard::Message { topic, payload } in heard {
            let message = match read(&topic, &payload, &aggregator) {
                Ok(m) => m,
                Err(e) => {
                    if let Some(Say::Failing(e)) = bad.note(Err((e, topic.clone()))) {
                        tracing::warn!("{topic}: {e}; ignored");
                    }
                    continue;
                }
            };
            let updates = match message {
                Some(Message::State(head, state)) => {
                    let updates = aggregator.handle_state(&state);
                    let clock = state.clock.as_ref().map(|c| ClockReading {
                        white_ms: c.white_ms,
                        black_ms: c.black_ms,
                        running: c.running,
                    });
                    show_state(view.as_ref(), &aggregator, head, clock);
                    updates
                }
                Some(Message::Event(event)) => aggregator.handle_event(event),
                Some(Message::Head(head)) => {
                    show_state(view.as_ref(), &aggregator, head, None);
                    Vec::new()
                }
                Some(Message::Status { host, online }) => {
                    tracing::info!(%host, "host {}", if online { "online" } else { "offline" });
                    Vec::new()
                }
                None => Vec::new(),
            };
            if let Some(view) = &view {
                show(view, &updates);
            }
            apply(&mut files, updates, &mut changed);
        }
        if changed.is_empty() {
            continue;
        }
        let ids: Vec<u32> = changed.into_iter().collect();
        let written = files.write_boards(&ids).await;
        match pgn_errors.note(written.map_err(|e| {
            let kind = format!("{:?}", e.kind());
            (e, kind)
        })) {
            Some(Say::Failing(e)) => tracing::warn!(
                "cannot write PGN: {e}; tried again on every move, said again once it works"
            ),
            Some(Say::Cleared) => tracing::info!("PGN written again"),
            None => {}
        }
    }
}

/// `eboardd watch --mqtt URL`: prints every host's events as JSON lines (with `host`,
/// `board`, `run` and `seq`), or, with `uci`, each line's text as `HOST/N TEXT`, until
/// stdout is closed. `only` keeps one host's boards, or one board (`HOST/N`).
pub async fn watch(
    settings: &MqttSettings,
    mut line: impl FnMut(&EventMessage, &[u8]) -> Option<String>,
    only: Option<&str>,
) -> Result<(), MqttError> {
    let prefix = settings.follow_prefix();
    let filter = match only.map(|o| o.split_once('/').unwrap_or((o, "+"))) {
        Some((host, board)) => {
            let base = prefix.trim_end_matches('/');
            let base = base.rsplit_once('/').map_or("", |(b, _)| b);
            let sep = if base.is_empty() { "" } else { "/" };
            format!("{base}{sep}{host}/board/{board}/event")
        }
        None => format!("{prefix}board/+/event"),
    };
    let client_id = format!(
        "eboardd-watch-{}-{}",
        super::host_name(),
        std::process::id()
    );
    let (mut rx, connection) = connect(settings, &client_id, false, vec![filter])?;
    let mut seen = std::collections::HashMap::new();
    let mut stdout = std::io::stdout().lock();
    while let Some(Heard::Message { topic, payload }) = rx.recv().await {
        let Ok(message) = EventMessage::from_json(&payload) else {
            tracing::warn!("{topic}: not an eboardd event; ignored");
            continue;
        };
        // QoS 1 may bring one twice.
        let key = (message.host.clone(), message.board);
        if seen.get(&key).is_some_and(|&at| message.at <= at) {
            continue;
        }
        seen.insert(key, message.at);
        if let Some(text) = line(&message, &payload)
            && writeln!(stdout, "{text}")
                .and_then(|()| stdout.flush())
                .is_err()
        {
            break;
        }
    }
    connection.abort();
    Ok(())
}
