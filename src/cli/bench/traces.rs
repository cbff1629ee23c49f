//! `eboardd bench traces`: scoring recorded traces against their truth.

use std::path::PathBuf;

use crate::bench::accuracy::{Summary, Truth, score_trace};
use crate::pipeline::CoreConfig;
use crate::trace::read_trace_file;

/// Scores every trace (files, or folders of `NAME.trace` with `NAME.json` beside).
pub(super) fn run(
    paths: &[PathBuf],
    settle_ms: Option<u64>,
    slide_rests: Option<crate::tracker::SlideRests>,
) -> anyhow::Result<()> {
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
    let contenders = [
        ("eboardd", super::accuracy::ours(settle_ms, slide_rests)),
        (
            "still-250ms",
            CoreConfig {
                reconstruction: crate::bench::still_board::reconstruction(
                    std::time::Duration::from_millis(250),
                ),
                ..CoreConfig::default()
            },
        ),
    ];
    let mut summaries = vec![Summary::default(); contenders.len()];
    for file in &files {
        let trace = read_trace_file(file)?;
        let truth_path = file.with_extension("json");
        let truth: Truth = serde_json::from_str(&std::fs::read_to_string(&truth_path)?)
            .map_err(|e| anyhow::anyhow!("{}: {e}", truth_path.display()))?;
        for ((name, config), summary) in contenders.iter().zip(summaries.iter_mut()) {
            let s = score_trace(&trace, &truth, config.clone());
            if !s.exact() {
                println!(
                    "  {name}: {} not exact: {}/{} correct, misread {}, missed {}",
                    file.display(),
                    s.correct,
                    s.expected,
                    s.misread,
                    s.missed
                );
            }
            summary.add(&s);
        }
    }
    println!("{} traces:", files.len());
    for ((name, _), summary) in contenders.iter().zip(&summaries) {
        println!("  {name:<12} {summary}");
    }
    Ok(())
}
