//! A real MQTT broker for the tests: Mosquitto (Debian package `mosquitto`), started on a
//! free port of 127.0.0.1 with a configuration of its own. Without the program the MQTT
//! tests skip (they say so), unless `EBOARDD_REQUIRE_MOSQUITTO=1` (set by `.ci/run`) makes
//! its absence a failure.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use eboardd::mqtt::MqttSettings;

/// The mosquitto program, if installed.
fn program() -> Option<PathBuf> {
    let mut places: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("mosquitto"))
                .collect()
        })
        .unwrap_or_default();
    places.push("/usr/sbin/mosquitto".into());
    places.into_iter().find(|p| p.is_file())
}

/// A running broker; killed when dropped.
pub struct Broker {
    program: PathBuf,
    config: PathBuf,
    log: PathBuf,
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// Whether its listener speaks TLS.
    tls: bool,
    child: Option<Child>,
}

impl Broker {
    /// Starts a broker with its files under `dir`; `None` (after saying why) when mosquitto
    /// is not installed and not required.
    pub fn start(dir: &Path) -> Option<Broker> {
        Broker::start_with(dir, "")
    }

    /// [`Broker::start`] with a TLS listener (and no other): the certificate chain
    /// `cert_file` and its key `key_file` (PEM). Its URL is then `mqtts://`.
    pub fn start_tls(dir: &Path, cert_file: &Path, key_file: &Path) -> Option<Broker> {
        let tls = format!(
            "certfile {}\nkeyfile {}\n",
            cert_file.display(),
            key_file.display()
        );
        let mut broker = Broker::start_with(dir, &tls)?;
        broker.tls = true;
        Some(broker)
    }

    /// Starts a broker whose listener has `listener_options` (configuration lines) too.
    fn start_with(dir: &Path, listener_options: &str) -> Option<Broker> {
        let Some(program) = program() else {
            if std::env::var("EBOARDD_REQUIRE_MOSQUITTO").as_deref() == Ok("1") {
                panic!(
                    "mosquitto is required (EBOARDD_REQUIRE_MOSQUITTO=1) but not installed: apt-get install mosquitto"
                );
            }
            eprintln!("skipped: mosquitto is not installed (Debian package mosquitto)");
            return None;
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let config = dir.join("mosquitto.conf");
        let mut file = std::fs::File::create(&config).expect("broker config");
        // No persistence: a broker killed and started again has forgotten every session
        // and retained message, the worst case for the hosts and the relay.
        write!(
            file,
            "listener {port} 127.0.0.1\n{listener_options}allow_anonymous true\n\
             persistence false\nmax_queued_messages 100000\n"
        )
        .expect("write broker config");
        let mut broker = Broker {
            program,
            config,
            log: dir.join("mosquitto.log"),
            port,
            tls: false,
            child: None,
        };
        broker.restart();
        Some(broker)
    }

    /// The broker's URL.
    pub fn url(&self) -> String {
        let scheme = if self.tls { "mqtts" } else { "mqtt" };
        format!("{scheme}://127.0.0.1:{}", self.port)
    }

    /// What the broker wrote to its log.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Settings for a client of this broker, named `name`.
    pub fn settings(&self, name: &str) -> MqttSettings {
        MqttSettings {
            url: Some(self.url()),
            name: Some(name.into()),
            ..MqttSettings::default()
        }
    }

    /// Kills the broker (SIGKILL): it forgets everything.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the broker (again) on the same port and waits until it takes connections.
    pub fn restart(&mut self) {
        self.kill();
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .expect("broker log");
        let child = Command::new(&self.program)
            .arg("-c")
            .arg(&self.config)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start mosquitto");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "mosquitto did not listen on {}: {}",
                self.port,
                std::fs::read_to_string(&self.log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        self.kill();
    }
}
