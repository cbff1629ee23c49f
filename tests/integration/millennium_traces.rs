//! The generated Millennium traces (outside the repository, beside the checkout in
//! `../shared/data/generated`, or in `EBOARDD_TRACE_DIR`): every frame in both directions
//! must decode without a single skip. Nothing is checked when the traces are absent.

use eboardd::protocol::millennium::{
    CableSide, CommandDecoder, Decoded, DecodedCommand, Decoder, Reply, board_from_status,
};

/// Where the generated traces live: `EBOARDD_TRACE_DIR`, or `../shared/data/generated`
/// beside the checkout.
fn trace_dir() -> std::path::PathBuf {
    std::env::var_os("EBOARDD_TRACE_DIR")
        .map(Into::into)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/generated")
        })
}

#[test]
fn generated_millennium_traces_decode_without_a_skip() {
    let Ok(entries) = std::fs::read_dir(trace_dir()) else {
        return;
    };
    let mut paths: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with("-millennium.trace"))
        })
        .collect();
    paths.sort();
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let mut replies_in = Decoder::new();
        let mut commands_in = CommandDecoder::new();
        let mut statuses = 0;
        for (n, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let mut fields = line.split_whitespace();
            let (_time, dir) = (fields.next(), fields.next());
            let bytes: Vec<u8> = fields
                .map(|h| u8::from_str_radix(h, 16).expect("hex byte in trace"))
                .collect();
            match dir {
                Some("<") => {
                    replies_in.push_bytes(&bytes);
                    while let Some(d) = replies_in.poll() {
                        match d {
                            Decoded::Reply(Reply::Status(chars)) => {
                                statuses += 1;
                                assert!(
                                    board_from_status(&chars, CableSide::Right).is_ok(),
                                    "{}:{}",
                                    path.display(),
                                    n + 1
                                );
                            }
                            Decoded::Reply(_) => {}
                            Decoded::Skipped { bytes, reason } => panic!(
                                "{}:{}: skipped {bytes} bytes: {reason}",
                                path.display(),
                                n + 1
                            ),
                        }
                    }
                }
                Some(">") => {
                    commands_in.push_bytes(&bytes);
                    while let Some(d) = commands_in.poll() {
                        if let DecodedCommand::Skipped { bytes, reason } = d {
                            panic!(
                                "{}:{}: skipped {bytes} command bytes: {reason}",
                                path.display(),
                                n + 1
                            );
                        }
                    }
                }
                _ => {}
            }
        }
        assert!(statuses > 0, "{}: no status frame", path.display());
        println!("{}: {statuses} status frames, no skip", path.display());
        assert_eq!(replies_in.buffered(), 0, "{}", path.display());
        assert_eq!(commands_in.buffered(), 0, "{}", path.display());
    }
}
