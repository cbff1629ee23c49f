//! The daemon's configuration reader (`eboardd run --config`, `/etc/eboardd/config.toml`)
//! fed arbitrary text.
//!
//! Checked: an error says where it comes from; a configuration that reads, written out
//! again as TOML with every setting spelt out, reads back as the same configuration.

#![no_main]

use eboardd::daemon::config::{Config, OrientationChoice};
use eboardd::event::Orientation;
use libfuzzer_sys::fuzz_target;

/// A TOML string holding `text`, quoted and escaped by the TOML writer.
fn quoted(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

fn path(p: &std::path::Path) -> String {
    quoted(p.to_str().expect("paths read from TOML are UTF-8"))
}

/// Every setting of `config`, as a configuration file says it.
fn render(config: &Config) -> String {
    let mut out = String::from("[daemon]\n");
    let d = &config.daemon;
    if let Some(p) = &d.state_dir {
        out += &format!("state-dir = {}\n", path(p));
    }
    if let Some(p) = &d.record_dir {
        out += &format!("record-dir = {}\n", path(p));
    }
    if let Some(laws) = d.laws {
        out += &format!("laws = {}\n", quoted(laws.as_str()));
    }
    if let Some(mode) = d.touch_move {
        out += &format!("touch-move = {}\n", quoted(mode.as_str()));
    }
    for board in &config.boards {
        out += "\n[[board]]\n";
        out += &format!("device = {}\n", path(&board.device));
        out += &format!("protocol = {}\n", quoted(&board.protocol.to_string()));
        let orientation = match board.orientation {
            OrientationChoice::Auto => "auto",
            OrientationChoice::Fixed(Orientation::Normal) => "normal",
            OrientationChoice::Fixed(Orientation::Rotated) => "rotated",
        };
        out += &format!("orientation = {}\n", quoted(orientation));
        if let Some(name) = &board.white {
            out += &format!("white = {}\n", quoted(name));
        }
        if let Some(name) = &board.black {
            out += &format!("black = {}\n", quoted(name));
        }
        out += &format!("settle-ms = {}\n", board.settle.0.as_millis());
    }
    out
}

fuzz_target!(|data: &[u8]| {
    // What `Config::load` does with the bytes of a file.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let config = match Config::parse(text, "fuzz.toml") {
        Ok(config) => config,
        Err(e) => {
            assert!(e.to_string().starts_with("fuzz.toml: "), "{e}");
            return;
        }
    };
    let rendered = render(&config);
    let back = Config::parse(&rendered, "rendered.toml")
        .unwrap_or_else(|e| panic!("{e}\n{rendered}\nfrom\n{text}"));
    assert_eq!(back, config, "{rendered}\nfrom\n{text}");
});
