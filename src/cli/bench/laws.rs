//! `eboardd bench laws`: the arbiter scored against the observations of traces' truth.

use std::path::{Path, PathBuf};

use crate::bench::accuracy::Truth;
use crate::bench::laws::{LawsScore, score_laws};
use crate::laws::{LawsConfig, TouchMove};
use crate::pipeline::CoreConfig;
use crate::trace::read_trace_file;

/// Scores every trace (files, or folders of `NAME.trace` with `NAME.json` beside) under the
/// 2023 Laws in `report` mode and prints expected, found and false reports per article.
pub(super) fn run(paths: &[PathBuf], verbose: bool) -> anyhow::Result<()> {
    let files = trace_files(paths)?;
    let config = CoreConfig {
        laws: LawsConfig {
            touch_move: TouchMove::Report,
            ..LawsConfig::default()
        },
        ..CoreConfig::default()
    };
    let mut total = LawsScore::default();
    for file in &files {
        let trace = read_trace_file(file)?;
        let truth = read_truth(file)?;
        let s = score_laws(&trace, &truth, config.clone());
        if verbose {
            for m in &s.missed {
                println!("  {}: missed {m}", file.display());
            }
            for f in &s.false_lines {
                println!("  {}: false {f}", file.display());
            }
        }
        total.add(&s);
    }
    println!("{} traces, fide-2023, report:", files.len());
    println!("{total}");
    Ok(())
}

fn read_truth(trace: &Path) -> anyhow::Result<Truth> {
    let truth_path = trace.with_extension("json");
    serde_json::from_str(&std::fs::read_to_string(&truth_path)?)
        .map_err(|e| anyhow::anyhow!("{}: {e}", truth_path.display()))
}

fn trace_files(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "trace"))
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(p.clone());
        }
    }
    Ok(files)
}
