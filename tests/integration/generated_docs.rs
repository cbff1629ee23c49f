//! The man pages and shell completions in doc/ are generated from the clap definitions;
//! this test regenerates them and compares. `EBOARDD_BLESS=1` rewrites them.

use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap_complete::Shell;

fn doc_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("doc")
}

fn pages() -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let cmd = eboardd::cli::Cli::command();
    let mut main = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .render(&mut main)
        .expect("render the man page");
    out.push((doc_dir().join("man/eboardd.1"), main));
    for sub in cmd.get_subcommands() {
        let name = format!("eboardd-{}", sub.get_name());
        let mut page = Vec::new();
        let leaked: &'static str = Box::leak(name.clone().into_boxed_str());
        clap_mangen::Man::new(sub.clone().name(leaked))
            .render(&mut page)
            .expect("render a subcommand page");
        out.push((doc_dir().join(format!("man/{name}.1")), page));
    }
    for (shell, file) in [
        (Shell::Bash, "eboardd.bash"),
        (Shell::Zsh, "_eboardd"),
        (Shell::Fish, "eboardd.fish"),
    ] {
        let mut script = Vec::new();
        clap_complete::generate(shell, &mut cmd.clone(), "eboardd", &mut script);
        out.push((doc_dir().join("completions").join(file), script));
    }
    out
}

#[test]
fn man_pages_and_completions_match_the_command_line_definitions() {
    let bless = std::env::var_os("EBOARDD_BLESS").is_some();
    for (path, content) in pages() {
        if bless {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).expect("doc dir");
            }
            std::fs::write(&path, &content).expect("write");
            continue;
        }
        let shipped = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (EBOARDD_BLESS=1 writes it)", path.display()));
        assert!(
            shipped == content,
            "{} is out of date (EBOARDD_BLESS=1 cargo test --test integration generated_docs)",
            path.display()
        );
    }
}
