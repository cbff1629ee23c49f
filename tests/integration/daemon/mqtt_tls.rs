//! MQTT over TLS: a Mosquitto whose only listener speaks TLS, with a certificate made by
//! the test (its own certificate authority, for 127.0.0.1 and localhost). `eboardd run
//! --mqtt mqtts://... --mqtt-ca-file CA` publishes a game through it and the relay, trusting
//! the same authority, has every move; a client that does not trust the authority, or does
//! not speak TLS, gets nowhere.

use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;
use std::time::Duration;

use eboardd::mqtt::MqttSettings;
use eboardd::mqtt::aggregate::{BoardMap, MapEntry};
use eboardd::protocol::Protocol;
use eboardd::sim::HandOptions;
use eboardd::sim::device::BoardOptions;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, SanType};
use rumqttc::{AsyncClient, Event, MqttOptions, Packet};

use crate::daemon::emulated::EmulatedPty;
use crate::daemon::emulated_game::{game_limit_at, opera, play, truth_sans};
use crate::daemon::emulated_links::spawn_daemon_with;
use crate::daemon::mqtt::{moves_of, start_relay_with, try_wait_for_text};
use crate::daemon::mqtt_broker::Broker;
use crate::daemon::support::*;

/// Writes a certificate authority (`ca.pem`) and a certificate it signed for 127.0.0.1 and
/// localhost (`server.pem`, key `server.key`) under `dir`.
fn make_certificates(dir: &Path) {
    let ca_key = KeyPair::generate().expect("CA key");
    let mut ca = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "eboardd test hall CA");
    let ca_cert = ca.self_signed(&ca_key).expect("CA certificate");
    let issuer = Issuer::new(ca, ca_key);
    let server_key = KeyPair::generate().expect("server key");
    let mut server = CertificateParams::new(vec!["localhost".to_string()]).expect("params");
    server
        .subject_alt_names
        .push(SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST)));
    server
        .distinguished_name
        .push(DnType::CommonName, "broker.hall");
    let server_cert = server
        .signed_by(&server_key, &issuer)
        .expect("server certificate");
    std::fs::write(dir.join("ca.pem"), ca_cert.pem()).expect("ca.pem");
    std::fs::write(dir.join("server.pem"), server_cert.pem()).expect("server.pem");
    std::fs::write(dir.join("server.key"), server_key.serialize_pem()).expect("server.key");
}

/// How a first connection with `options` ends: `Ok` on the broker's CONNACK.
async fn connect_once(options: MqttOptions) -> Result<(), String> {
    let (_client, mut eventloop) = AsyncClient::new(options, 8);
    match tokio::time::timeout(Duration::from_secs(5), eventloop.poll()).await {
        Ok(Ok(Event::Incoming(Packet::ConnAck(_)))) => Ok(()),
        Ok(Ok(other)) => Err(format!("{other:?}")),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("no answer within 5 s".into()),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_publishes_over_tls_to_a_broker_the_relay_follows_over_tls() {
    logs();
    let dir = tempfile::tempdir().expect("tempdir");
    make_certificates(dir.path());
    let ca = dir.path().join("ca.pem");
    let Some(broker) = Broker::start_tls(
        dir.path(),
        &dir.path().join("server.pem"),
        &dir.path().join("server.key"),
    ) else {
        return;
    };
    let url = broker.url();
    assert!(url.starts_with("mqtts://"), "{url}");
    let trusting = |name: &str| MqttSettings {
        url: Some(url.clone()),
        name: Some(name.into()),
        ca_file: Some(ca.clone()),
        ..MqttSettings::default()
    };

    // Who does not trust the hall's authority, or speaks plain MQTT, is not let in.
    let untrusting = MqttSettings {
        ca_file: None,
        ..trusting("untrusting")
    };
    let refused = connect_once(untrusting.client_options("t-untrusting").expect("options")).await;
    assert!(refused.is_err(), "a broker certificate from an unknown CA");
    let plain = MqttOptions::new("t-plain", "127.0.0.1", broker.port);
    assert!(connect_once(plain).await.is_err(), "plain MQTT on TLS");
    let trusted = connect_once(
        trusting("trusting")
            .client_options("t-trusting")
            .expect("opt"),
    )
    .await;
    assert_eq!(trusted, Ok(()), "the CA file's authority: {}", broker.log());

    let map = BoardMap {
        boards: vec![MapEntry {
            number: 1,
            host: "host-t".into(),
            board: Some(0),
            serial: None,
            white: Some("White 1".into()),
            black: Some("Black 1".into()),
        }],
    };
    let (relay, server, addr) = start_relay_with(trusting("test-relay"), map).await;
    let address = start_bus(dir.path());
    let speed = 6.0;
    let hand = HandOptions {
        clock_press: 1.0,
        ..HandOptions::default()
    };
    let board = BoardOptions {
        clock: true,
        ..BoardOptions::default()
    };
    let played = play(&opera(), Protocol::Dgt, 11, hand, board);
    let truth = truth_sans(&played.perf);
    let end = played.perf.timeline.end();
    let limit = game_limit_at(&played.perf, speed);
    let link = board_link(dir.path(), "t0");
    let emulated = EmulatedPty::start(
        &link,
        played.board,
        played.perf.timeline.clone(),
        speed,
        vec![],
    );
    let state = dir.path().join("state");
    let log = dir.path().join("daemon.log");
    let ca_text = ca.display().to_string();
    let extra = [
        "--mqtt",
        url.as_str(),
        "--mqtt-ca-file",
        ca_text.as_str(),
        "--mqtt-name",
        "host-t",
        "--event",
        "Hall Open",
        "--round",
        "3",
    ];
    let _daemon = spawn_daemon_with(&address, &state, &link, &log, &extra);
    tokio::task::block_in_place(|| {
        emulated.wait(limit, "the whole game played", |s| {
            (s.reached >= end).then_some(())
        })
    });
    let pgn = try_wait_for_text(addr, "/board/1.pgn", LIMIT, |t| {
        moves_of(t) == truth && t.contains("[Result \"1-0\"]")
    })
    .await
    .unwrap_or_else(|e| {
        panic!(
            "{e}\ndaemon log:\n{}\nbroker log:\n{}",
            std::fs::read_to_string(&log).unwrap_or_default(),
            broker.log()
        )
    });
    assert!(pgn.contains("[White \"White 1\"]"), "{pgn}");
    relay.abort();
    server.abort();
}
