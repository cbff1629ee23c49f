//! MQTT for a hall of hosts: every board's game published to a broker, and one relay that
//! follows every host through it.
//!
//! - [`publish`]: `eboardd run --mqtt URL`, the games of this host's boards as topics;
//! - [`aggregate`]: the games of many hosts put together, in tournament board order
//!   (sans-IO);
//! - [`follow`]: `eboardd relay --mqtt URL` and `eboardd watch --mqtt URL`, the broker's
//!   messages fed to [`aggregate`] and to the relay's PGN, HTTP and lichess sinks;
//! - [`spool`]: the publisher's event messages on disk until the broker acknowledges them,
//!   so that a daemon restarted while the broker is away loses none.
//!
//! The topics, under a prefix (default `eboardd/<host>/`):
//! - `<prefix>status`: `online`, or `offline` (the last will), retained;
//! - `<prefix>board/<N>/event`: every event of board N (its D-Bus number) as the contract's
//!   JSON line with `host`, `board`, `run` and `seq` added, QoS 1, in order;
//! - `<prefix>board/<N>/state`: the board now (link, FEN, PGN, clocks, players and the
//!   game itself), retained, so that a consumer started late rebuilds every game from it.
//!
//! `run` names one life of the publishing daemon (its start time in ms) and `seq` counts
//! board N's events in that life from 1; a state carries the `(run, seq)` of the last event
//! it includes. Consumers order and deduplicate by `(run, seq)`.
//!
//! This module speaks MQTT through rumqttc; it knows nothing of D-Bus or of the board tasks
//! beyond their handles.

pub mod aggregate;
pub mod follow;
pub mod message;
pub mod publish;
pub mod spool;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;

/// The MQTT settings of a daemon, relay or watcher (`[mqtt]` in the configuration, or the
/// `--mqtt*` options).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct MqttSettings {
    /// The broker: `mqtt://[USER[:PASSWORD]@]HOST[:PORT]` or `mqtts://...` (TLS).
    pub url: Option<String>,
    /// The topic prefix (ends in `/`). Publishing: default `eboardd/<name>/`; following:
    /// a topic filter, default `eboardd/+/`.
    pub prefix: Option<String>,
    /// This host's name in topics and messages (default: the machine's host name).
    pub name: Option<String>,
    /// The user name (overrides one in the URL).
    pub username: Option<String>,
    /// A file holding the password (the first line; overrides one in the URL).
    pub password_file: Option<PathBuf>,
    /// The CA certificates (PEM) that sign the broker's certificate (default: the system's).
    pub ca_file: Option<PathBuf>,
    /// This client's certificate chain (PEM), for brokers that require one.
    pub cert_file: Option<PathBuf>,
    /// This client's private key (PEM) for `cert_file`.
    pub key_file: Option<PathBuf>,
}

/// Why MQTT settings cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum MqttError {
    /// The URL is not one we can use.
    #[error("--mqtt {url}: {why}")]
    Url {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        why: String,
    },
    /// A file could not be read or used.
    #[error("{path}: {why}")]
    File {
        /// The file.
        path: String,
        /// What went wrong.
        why: String,
    },
    /// The settings do not fit together.
    #[error("{0}")]
    Settings(String),
}

/// A broker address parsed from an `mqtt://` or `mqtts://` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerUrl {
    /// Whether TLS is used (`mqtts`).
    pub tls: bool,
    /// The host name or address.
    pub host: String,
    /// The port (1883 for mqtt, 8883 for mqtts by default).
    pub port: u16,
    /// The user name, if the URL has one.
    pub username: Option<String>,
    /// The password, if the URL has one.
    pub password: Option<String>,
}

/// Undoes `%XX` escapes (for user names and passwords in URLs).
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

impl std::str::FromStr for BrokerUrl {
    type Err = MqttError;

    fn from_str(url: &str) -> Result<Self, Self::Err> {
        let bad = |why: &str| MqttError::Url {
            url: url.to_string(),
            why: why.to_string(),
        };
        let (tls, rest) = if let Some(rest) = url.strip_prefix("mqtt://") {
            (false, rest)
        } else if let Some(rest) = url.strip_prefix("mqtts://") {
            (true, rest)
        } else {
            return Err(bad("expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"));
        };
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        if rest.contains(['/', '?', '#']) {
            return Err(bad("a broker URL has no path or query"));
        }
        let (userinfo, hostport) = match rest.rsplit_once('@') {
            Some((u, h)) => (Some(u), h),
            None => (None, rest),
        };
        let (username, password) = match userinfo {
            Some(u) => {
                let (user, pass) = match u.split_once(':') {
                    Some((user, pass)) => (user, Some(pass)),
                    None => (u, None),
                };
                let user = percent_decode(user).ok_or_else(|| bad("bad %-escape in the user"))?;
                let pass = pass
                    .map(|p| percent_decode(p).ok_or_else(|| bad("bad %-escape in the password")))
                    .transpose()?;
                (Some(user), pass)
            }
            None => (None, None),
        };
        let default_port = if tls { 8883 } else { 1883 };
        let (host, port) = if let Some(v6) = hostport.strip_prefix('[') {
            let (host, after) = v6
                .split_once(']')
                .ok_or_else(|| bad("unclosed [ in the host"))?;
            let port = match after.strip_prefix(':') {
                Some(p) => p.parse().map_err(|_| bad("the port is not a number"))?,
                None if after.is_empty() => default_port,
                None => return Err(bad("unexpected text after the host")),
            };
            (host.to_string(), port)
        } else {
            match hostport.rsplit_once(':') {
                Some((h, p)) => (
                    h.to_string(),
                    p.parse().map_err(|_| bad("the port is not a number"))?,
                ),
                None => (hostport.to_string(), default_port),
            }
        };
        if host.is_empty() {
            return Err(bad("no host"));
        }
        Ok(BrokerUrl {
            tls,
            host,
            port,
            username,
            password,
        })
    }
}

/// The machine's host name (for the default prefix and client ids).
pub fn host_name() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|n| n.trim().to_string())
        .unwrap_or_default();
    if name.is_empty() {
        "localhost".into()
    } else {
        name
    }
}

/// Whether `name` can stand as one topic level: not empty, no `/`, `+`, `#` or control
/// characters, at most 64 bytes.
pub fn valid_level(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && !name.contains(['/', '+', '#'])
        && !name.chars().any(char::is_control)
}

fn read_file(path: &Path) -> Result<Vec<u8>, MqttError> {
    std::fs::read(path).map_err(|e| MqttError::File {
        path: path.display().to_string(),
        why: e.to_string(),
    })
}

impl MqttSettings {
    /// These settings, with each of `over`'s that is set taking precedence.
    pub fn merged(&self, over: &MqttSettings) -> MqttSettings {
        MqttSettings {
            url: over.url.clone().or_else(|| self.url.clone()),
            prefix: over.prefix.clone().or_else(|| self.prefix.clone()),
            name: over.name.clone().or_else(|| self.name.clone()),
            username: over.username.clone().or_else(|| self.username.clone()),
            password_file: over
                .password_file
                .clone()
                .or_else(|| self.password_file.clone()),
            ca_file: over.ca_file.clone().or_else(|| self.ca_file.clone()),
            cert_file: over.cert_file.clone().or_else(|| self.cert_file.clone()),
            key_file: over.key_file.clone().or_else(|| self.key_file.clone()),
        }
    }

    /// This host's name: the configured one, else the machine's.
    pub fn name(&self) -> Result<String, MqttError> {
        let name = self.name.clone().unwrap_or_else(host_name);
        if valid_level(&name) {
            Ok(name)
        } else {
            Err(MqttError::Settings(format!(
                "the MQTT host name {} cannot stand in a topic (no /, + or #, 1 to 64 bytes)",
                crate::text::quote(&name)
            )))
        }
    }

    /// The publishing prefix: the configured one, else `eboardd/<name>/`.
    pub fn publish_prefix(&self) -> Result<String, MqttError> {
        let prefix = match &self.prefix {
            Some(p) => p.clone(),
            None => format!("eboardd/{}/", self.name()?),
        };
        if prefix.contains(['+', '#']) || prefix.chars().any(char::is_control) {
            return Err(MqttError::Settings(format!(
                "the MQTT prefix {} may not hold + or #",
                crate::text::quote(&prefix)
            )));
        }
        Ok(with_slash(prefix))
    }

    /// The following filter: the configured prefix, else `eboardd/+/`.
    pub fn follow_prefix(&self) -> String {
        with_slash(self.prefix.clone().unwrap_or_else(|| "eboardd/+/".into()))
    }

    /// The client options for client id `client_id`: broker, credentials, TLS.
    pub fn client_options(&self, client_id: &str) -> Result<rumqttc::MqttOptions, MqttError> {
        let url_text = self
            .url
            .as_deref()
            .ok_or_else(|| MqttError::Settings("no MQTT broker URL".into()))?;
        let url: BrokerUrl = url_text.parse()?;
        let mut options = rumqttc::MqttOptions::new(client_id, url.host.clone(), url.port);
        let username = self.username.clone().or(url.username.clone());
        let password = match &self.password_file {
            Some(path) => {
                let text = read_file(path)?;
                let text = String::from_utf8(text).map_err(|_| MqttError::File {
                    path: path.display().to_string(),
                    why: "not UTF-8 text".into(),
                })?;
                Some(text.lines().next().unwrap_or_default().to_string())
            }
            None => url.password.clone(),
        };
        match (username, password) {
            (Some(u), p) => {
                options.set_credentials(u, p.unwrap_or_default());
            }
            (None, Some(_)) => {
                return Err(MqttError::Settings(
                    "an MQTT password needs a user name".into(),
                ));
            }
            (None, None) => {}
        }
        if url.tls {
            let config = self.tls_config()?;
            options.set_transport(rumqttc::Transport::tls_with_config(
                rumqttc::TlsConfiguration::Rustls(Arc::new(config)),
            ));
        } else if self.ca_file.is_some() || self.cert_file.is_some() {
            return Err(MqttError::Settings(
                "certificates are for mqtts:// URLs; this one is mqtt://".into(),
            ));
        }
        options.set_keep_alive(Duration::from_secs(5));
        // Board states carry whole games: allow far more than rumqttc's 10 KiB default.
        options.set_max_packet_size(4 << 20, 4 << 20);
        Ok(options)
    }

    fn tls_config(&self) -> Result<rustls::ClientConfig, MqttError> {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let pem_error = |path: &Path, e: &dyn std::fmt::Display| MqttError::File {
            path: path.display().to_string(),
            why: format!("not usable PEM: {e}"),
        };
        let mut roots = rustls::RootCertStore::empty();
        match &self.ca_file {
            Some(path) => {
                let pem = read_file(path)?;
                for cert in CertificateDer::pem_slice_iter(&pem) {
                    let cert = cert.map_err(|e| pem_error(path, &e))?;
                    roots.add(cert).map_err(|e| pem_error(path, &e))?;
                }
                if roots.is_empty() {
                    return Err(pem_error(path, &"no certificate in it"));
                }
            }
            None => {
                let found = rustls_native_certs::load_native_certs();
                for cert in found.certs {
                    let _ = roots.add(cert);
                }
            }
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| MqttError::Settings(format!("TLS: {e}")))?
            .with_root_certificates(roots);
        match (&self.cert_file, &self.key_file) {
            (Some(cert), Some(key)) => {
                let pem = read_file(cert)?;
                let chain = CertificateDer::pem_slice_iter(&pem)
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| pem_error(cert, &e))?;
                let key_pem = read_file(key)?;
                let private =
                    PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| pem_error(key, &e))?;
                builder
                    .with_client_auth_cert(chain, private)
                    .map_err(|e| MqttError::Settings(format!("TLS client certificate: {e}")))
            }
            (None, None) => Ok(builder.with_no_client_auth()),
            _ => Err(MqttError::Settings(
                "a client certificate needs both --mqtt-cert-file and --mqtt-key-file".into(),
            )),
        }
    }
}

fn with_slash(mut prefix: String) -> String {
    if !prefix.is_empty() && !prefix.ends_with('/') {
        prefix.push('/');
    }
    prefix
}

/// The command-line options for MQTT, shared by `run`, `relay` and `watch`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct MqttArgs {
    /// The MQTT broker: mqtt://[USER[:PASSWORD]@]HOST[:PORT] or mqtts://... (TLS).
    #[arg(long = "mqtt", value_name = "URL")]
    pub url: Option<String>,
    /// The topic prefix: this host's (default eboardd/<host>/) for `run`, a filter over all
    /// hosts (default eboardd/+/) for `relay` and `watch`.
    #[arg(long = "mqtt-prefix", value_name = "PREFIX")]
    pub prefix: Option<String>,
    /// This host's name in topics and messages (default: the machine's host name).
    #[arg(long = "mqtt-name", value_name = "NAME")]
    pub name: Option<String>,
    /// The MQTT user name (overrides one in the URL).
    #[arg(long = "mqtt-user", value_name = "USER")]
    pub username: Option<String>,
    /// A file holding the MQTT password (its first line).
    #[arg(long = "mqtt-password-file", value_name = "FILE")]
    pub password_file: Option<PathBuf>,
    /// CA certificates (PEM) for the broker's certificate (default: the system's).
    #[arg(long = "mqtt-ca-file", value_name = "FILE")]
    pub ca_file: Option<PathBuf>,
    /// A client certificate chain (PEM) for brokers that require one.
    #[arg(long = "mqtt-cert-file", value_name = "FILE", requires = "key_file")]
    pub cert_file: Option<PathBuf>,
    /// The private key (PEM) of --mqtt-cert-file.
    #[arg(long = "mqtt-key-file", value_name = "FILE", requires = "cert_file")]
    pub key_file: Option<PathBuf>,
}

impl MqttArgs {
    /// The options as settings.
    pub fn settings(&self) -> MqttSettings {
        MqttSettings {
            url: self.url.clone(),
            prefix: self.prefix.clone(),
            name: self.name.clone(),
            username: self.username.clone(),
            password_file: self.password_file.clone(),
            ca_file: self.ca_file.clone(),
            cert_file: self.cert_file.clone(),
            key_file: self.key_file.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broker_urls_give_host_port_credentials_and_tls() {
        let u: BrokerUrl = "mqtt://hall:s%40cret@broker.local".parse().expect("url");
        assert_eq!(
            u,
            BrokerUrl {
                tls: false,
                host: "broker.local".into(),
                port: 1883,
                username: Some("hall".into()),
                password: Some("s@cret".into()),
            }
        );
        let t: BrokerUrl = "mqtts://[::1]:9000/".parse().expect("url");
        assert_eq!((t.tls, t.host.as_str(), t.port), (true, "::1", 9000));
        let d: BrokerUrl = "mqtts://b".parse().expect("url");
        assert_eq!(d.port, 8883);
        for bad in [
            "http://b",
            "mqtt://",
            "mqtt://b:x",
            "mqtt://b/topic",
            "mqtt://u%zz@b",
        ] {
            assert!(bad.parse::<BrokerUrl>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_default_prefix_names_the_host_and_bad_names_are_refused() {
        let s = MqttSettings {
            name: Some("hall-a".into()),
            ..MqttSettings::default()
        };
        assert_eq!(s.publish_prefix().expect("prefix"), "eboardd/hall-a/");
        assert_eq!(s.follow_prefix(), "eboardd/+/");
        let bad = MqttSettings {
            name: Some("a/b".into()),
            ..MqttSettings::default()
        };
        assert!(bad.publish_prefix().is_err());
        let wild = MqttSettings {
            prefix: Some("x/#".into()),
            ..MqttSettings::default()
        };
        assert!(wild.publish_prefix().is_err());
    }

    #[test]
    fn certificates_over_plain_mqtt_are_refused() {
        let s = MqttSettings {
            url: Some("mqtt://b".into()),
            ca_file: Some("/nonexistent".into()),
            ..MqttSettings::default()
        };
        assert!(matches!(s.client_options("c"), Err(MqttError::Settings(_))));
        let missing = MqttSettings {
            url: Some("mqtts://b".into()),
            ca_file: Some("/nonexistent/ca.pem".into()),
            ..MqttSettings::default()
        };
        assert!(matches!(
            missing.client_options("c"),
            Err(MqttError::File { .. })
        ));
    }
}
