//! Bounded inputs: files, configurations and GUI lines that never end or hold what no
//! one meant are refused at once, naming what was wrong, with little memory. Each case
//! runs the real binary and measures its exit status, its time and its peak memory
//! (`wait4`'s `ru_maxrss`).

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a finished process did.
struct Ran {
    code: Option<i32>,
    took: Duration,
    peak_mb: f64,
    stderr: String,
}

/// What is written to a process's standard input.
type Feed<'a> = &'a dyn Fn(&mut dyn Write);

/// Asks this test binary to run eboardd and measure it (see [`measuring_helper`]).
const MEASURE_ARGS: &str = "EBOARDD_MEASURE_ARGS";
/// Where the measured process's standard error goes.
const MEASURE_STDERR: &str = "EBOARDD_MEASURE_STDERR";

/// Runs eboardd with `args`, writing `stdin` (if any) to it, and measures it.
///
/// A child's peak memory (`ru_maxrss`) starts from its parent's, since Linux carries the
/// high-water mark across `exec`, and this test process can be large while the other tests
/// run. So eboardd is started by a fresh, small copy of this test binary
/// ([`measuring_helper`]), which reports what `wait4` says of it.
fn run(args: &[&str], stdin: Option<Feed<'_>>) -> Ran {
    let dir = tempfile::tempdir().expect("tempdir");
    let err_path = dir.path().join("stderr");
    // The helper's test name: this module's path without the crate's name.
    let module = module_path!().split_once("::").map_or("", |(_, rest)| rest);
    let helper_name = format!("{module}::measuring_helper");
    let mut helper = Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "--exact",
            helper_name.as_str(),
            "--nocapture",
            "--test-threads",
            "1",
            "--quiet",
        ])
        .env(MEASURE_ARGS, args.join("\u{1f}"))
        .env(MEASURE_STDERR, &err_path)
        .env("HOME", dir.path())
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the measuring helper");
    if let Some(feed) = stdin {
        let mut pipe = helper.stdin.take().expect("stdin");
        feed(&mut pipe);
    }
    let out = helper.wait_with_output().expect("the helper ends");
    let report = String::from_utf8_lossy(&out.stdout);
    let line = report
        .lines()
        .find_map(|l| l.strip_prefix("MEASURED "))
        .unwrap_or_else(|| panic!("no measurement in {report:?}"));
    let fields: Vec<&str> = line.split(' ').collect();
    let [code, took_us, peak_kb] = fields[..] else {
        panic!("measurement {line:?}");
    };
    Ran {
        code: code.parse().ok(),
        took: Duration::from_micros(took_us.parse().expect("µs")),
        peak_mb: peak_kb.parse::<f64>().expect("kB") / 1024.0,
        stderr: std::fs::read_to_string(&err_path).unwrap_or_default(),
    }
}

/// Not a test of its own: when [`run`] starts this binary to measure eboardd, runs eboardd
/// with the arguments it was given (its standard input inherited) and prints `MEASURED
/// <exit code> <µs> <peak kB>`. Otherwise does nothing.
#[test]
fn measuring_helper() {
    let Ok(args) = std::env::var(MEASURE_ARGS) else {
        return;
    };
    let err_path = std::env::var(MEASURE_STDERR).expect("the stderr path");
    let err = std::fs::File::create(&err_path).expect("stderr file");
    let started = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_eboardd"))
        .args(args.split('\u{1f}'))
        .stdin(Stdio::inherit())
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .expect("spawn eboardd");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value to be filled in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet waited for; both pointers are to live locals.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4");
    let took = started.elapsed();
    std::mem::forget(child);
    let code = std::process::ExitStatus::from_raw(status)
        .code()
        .map_or("none".to_string(), |c| c.to_string());
    println!("MEASURED {code} {} {}", took.as_micros(), usage.ru_maxrss);
}

fn replay(path: &Path) -> Ran {
    run(&["replay", path.to_str().expect("utf-8 path")], None)
}

fn trace_with(dir: &Path, name: &str, body: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("# eboard-trace 1\n# protocol: dgt\n{body}")).expect("write");
    path
}

#[test]
fn replay_of_an_endless_file_exits_2_at_once_with_little_memory() {
    let ran = replay(Path::new("/dev/zero"));
    eprintln!(
        "replay /dev/zero: exit {:?} in {:?}, peak {:.1} MB",
        ran.code, ran.took, ran.peak_mb
    );
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(ran.stderr.contains("line 1"), "{}", ran.stderr);
    assert!(ran.took < Duration::from_secs(1), "{:?}", ran.took);
    assert!(ran.peak_mb < 100.0, "{:.1} MB", ran.peak_mb);
}

#[test]
fn replay_of_times_past_the_last_a_trace_holds_exits_2_naming_the_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    for time in ["18446744073709551", "18000000000000000", "10000000000001"] {
        let path = trace_with(
            dir.path(),
            "late.trace",
            &format!("0.0 < 86 00 43\n{time} < 8e 00 05 34 00\n"),
        );
        let ran = replay(&path);
        eprintln!(
            "replay at {time} ms: exit {:?} in {:?}, peak {:.1} MB",
            ran.code, ran.took, ran.peak_mb
        );
        assert_eq!(ran.code, Some(2), "{time}: {}", ran.stderr);
        assert!(ran.stderr.contains("line 4"), "{}", ran.stderr);
        assert!(ran.took < Duration::from_secs(1), "{:?}", ran.took);
        assert!(ran.peak_mb < 100.0, "{:.1} MB", ran.peak_mb);
    }
}

#[test]
fn replay_of_a_huge_line_or_file_exits_2_naming_the_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let long = trace_with(
        dir.path(),
        "long.trace",
        &format!("0.0 <{}\n", " 8e".repeat(200_000)),
    );
    let ran = replay(&long);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(ran.stderr.contains("line 3") && ran.stderr.contains("longer than"));
    assert!(ran.took < Duration::from_secs(1), "{:?}", ran.took);
    assert!(ran.peak_mb < 100.0, "{:.1} MB", ran.peak_mb);
}

#[test]
fn replay_of_a_bad_start_fen_exits_2_naming_the_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("fen.trace");
    std::fs::write(
        &path,
        "# eboard-trace 1\n# protocol: dgt\n# start-fen: 8/8/8/8 w - - 0 1\n0.0 < 86 00 43\n",
    )
    .expect("write");
    let ran = replay(&path);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(ran.stderr.contains("line 3") && ran.stderr.contains("start-fen"));
}

#[test]
fn an_endless_configuration_exits_2_at_once() {
    let ran = run(&["run", "--config", "/dev/zero"], None);
    eprintln!(
        "run --config /dev/zero: exit {:?} in {:?}, peak {:.1} MB",
        ran.code, ran.took, ran.peak_mb
    );
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(ran.stderr.contains("larger than"), "{}", ran.stderr);
    assert!(ran.took < Duration::from_secs(1), "{:?}", ran.took);
}

#[test]
fn a_huge_device_path_in_the_configuration_gives_a_short_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!("[[board]]\ndevice = \"/dev/{}\"\n", "x".repeat(900_000)),
    )
    .expect("write");
    let ran = run(&["run", "--config", config.to_str().expect("utf-8")], None);
    assert_eq!(
        ran.code,
        Some(2),
        "{}",
        &ran.stderr[..ran.stderr.len().min(300)]
    );
    assert!(ran.stderr.len() < 1000, "{} bytes", ran.stderr.len());
    let nul = dir.path().join("nul.toml");
    std::fs::write(&nul, "[[board]]\ndevice = \"/dev/\\u0000null\"\n").expect("write");
    let ran = run(&["run", "--config", nul.to_str().expect("utf-8")], None);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(ran.stderr.contains("control character"), "{}", ran.stderr);
}

#[test]
fn a_64_mb_gui_line_without_a_break_is_refused_with_little_memory() {
    let ran = run(
        &["uci", "--device", "/nonexistent/board", "--protocol", "dgt"],
        Some(&|pipe| {
            let block = vec![b'x'; 1 << 20];
            for _ in 0..64 {
                if pipe.write_all(&block).is_err() {
                    return;
                }
            }
            let _ = pipe.write_all(b"\nisready\nquit\n");
        }),
    );
    eprintln!(
        "uci with a 64 MB line: exit {:?} in {:?}, peak {:.1} MB",
        ran.code, ran.took, ran.peak_mb
    );
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(ran.stderr.contains("was ignored"), "{}", ran.stderr);
    assert!(ran.peak_mb < 32.0, "{:.1} MB", ran.peak_mb);
}
