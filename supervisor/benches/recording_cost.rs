//! What recording costs (issue 15's target: the default set at most 3 % of one core and 50 MB
//! per game half of 10 min, without images). One `cortex run --sim`, phases side by side: quiet,
//! recording the shipped `Recorder.toml` (the recorder woken by every publish), recording it
//! with the old polling every 1 ms (`poll_ms = 1`), quiet again. Per phase: the CPU time of every
//! process of the instance (the supervisor's children: the writers' wake-ups show here), the
//! recorder's own CPU time, the bytes it wrote per second and what that makes in 10 minutes, and
//! the messages it wrote and missed.
//!
//! `cargo bench -p supervisor --bench recording_cost [-- SECONDS]` (default 20 s per phase)

#[path = "../../tests/support/mod.rs"]
mod support;

use support::cpu_seconds;

use std::path::Path;
use std::time::{Duration, Instant};

fn system_cpu(instance: &support::Instance) -> f64 {
    instance
        .status()
        .processes
        .iter()
        .filter_map(|process| process.pid)
        .map(cpu_seconds)
        .sum()
}

fn folder_bytes(folder: &Path) -> u64 {
    std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|entry| entry.metadata().ok())
                .map(|metadata| metadata.len())
                .sum()
        })
        .unwrap_or(0)
}

struct Row {
    phase: &'static str,
    system_percent: f64,
    recorder_percent: Option<f64>,
    bytes_per_second: Option<f64>,
    messages: String,
}

fn quiet(instance: &support::Instance, seconds: u64, phase: &'static str) -> Row {
    let start = Instant::now();
    let before = system_cpu(instance);
    std::thread::sleep(Duration::from_secs(seconds));
    let used = system_cpu(instance) - before;
    Row {
        phase,
        system_percent: 100.0 * used / start.elapsed().as_secs_f64(),
        recorder_percent: None,
        bytes_per_second: None,
        messages: "-".into(),
    }
}

fn recording(
    instance: &support::Instance,
    seconds: u64,
    output: &Path,
    config: &Path,
    phase: &'static str,
) -> Row {
    let started = instance.command(&[
        "record",
        "start",
        "--output",
        output.to_str().unwrap(),
        "--config-dir",
        config.to_str().unwrap(),
    ]);
    assert!(
        started.status.success(),
        "record start: {}",
        String::from_utf8_lossy(&started.stderr)
    );
    let pid: u32 = std::fs::read_to_string(instance.run_dir.join("recorder.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let start = Instant::now();
    let before = system_cpu(instance);
    let recorder_before = cpu_seconds(pid);
    let bytes_before = folder_bytes(output);
    std::thread::sleep(Duration::from_secs(seconds));
    let recorder_used = cpu_seconds(pid) - recorder_before;
    let used = system_cpu(instance) - before;
    let elapsed = start.elapsed().as_secs_f64();
    let stopped = instance.command(&["record", "stop"]);
    assert!(stopped.status.success());
    let bytes = folder_bytes(output) - bytes_before;
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(instance.run_dir.join("recorder.reported")).unwrap(),
    )
    .unwrap();
    let sum = |key: &str| -> u64 {
        summary[key]
            .as_object()
            .map(|counts| counts.values().filter_map(|v| v.as_u64()).sum())
            .unwrap_or(0)
    };
    let (written, missed) = (sum("messages"), sum("missed"));
    Row {
        phase,
        system_percent: 100.0 * used / elapsed,
        recorder_percent: Some(100.0 * recorder_used / elapsed),
        bytes_per_second: Some(bytes as f64 / elapsed),
        messages: format!(
            "{written} written, {missed} missed ({:.2} %)",
            100.0 * missed as f64 / (written + missed).max(1) as f64
        ),
    }
}

fn main() {
    let seconds: u64 = std::env::args()
        .skip(1)
        .find_map(|argument| argument.parse().ok())
        .unwrap_or(20);
    let instance = support::Instance::start("recording-cost", &[]);
    let folder = tempfile::tempdir().unwrap();
    let output = folder.path().join("recordings");
    // The shipped configuration, and a copy whose recorder polls every 1 ms (the old way).
    let shipped = config::default_root();
    let (_copy, polling) = support::config_copy();
    let recorder = polling.join("default/Recorder.toml");
    let text = std::fs::read_to_string(&recorder).unwrap();
    assert!(text.contains("\npoll_ms = 0\n"), "{text}");
    std::fs::write(
        &recorder,
        text.replace("\npoll_ms = 0\n", "\npoll_ms = 1\n"),
    )
    .unwrap();
    std::thread::sleep(Duration::from_secs(3));
    let rows = [
        quiet(&instance, seconds, "quiet"),
        recording(&instance, seconds, &output, &shipped, "recording"),
        recording(&instance, seconds, &output, &polling, "polling 1 ms"),
        quiet(&instance, seconds, "quiet again"),
    ];
    println!(
        "\n{:<13} {:>14} {:>14} {:>10} {:>14}  messages",
        "phase", "system %core", "recorder %core", "KB/s", "MB per 10 min"
    );
    for row in &rows {
        let rate = row.bytes_per_second;
        println!(
            "{:<13} {:>14.1} {:>14} {:>10} {:>14}  {}",
            row.phase,
            row.system_percent,
            row.recorder_percent
                .map_or("-".into(), |value| format!("{value:.2}")),
            rate.map_or("-".into(), |value| format!("{:.1}", value / 1e3)),
            rate.map_or("-".into(), |value| format!("{:.1}", value * 600.0 / 1e6)),
            row.messages
        );
    }
    println!(
        "({seconds} s per phase; the shipped Recorder.toml's channels, no images; `recording` \
         wakes on every publish, `polling 1 ms` is poll_ms = 1)"
    );
}
