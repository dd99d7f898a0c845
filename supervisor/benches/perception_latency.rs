//! Frame capture → the cognition tick that uses it: how long after a camera frame is taken the
//! ball model has its percept, with cognition woken by the percepts (the shipped table) beside
//! cognition on its own 60 Hz clock (the table before the camera issue).
//!
//! Each variant gets its own `cortex run --sim` (a copy of the shipped configuration). The
//! bench reads `BallModel` (`cortex get`) until it has `SAMPLES` different frames: each carries
//! the monotonic time its newest frame was captured (`frame_captured_ns`) and the time of the
//! cognition tick that took it (`frame_taken_ns`), on the clock every process shares, so the
//! delays are exact, not polled. The perception tick (the stages after the camera) is part of
//! the delay; the table shows the perception processes' mean tick beside it (from the status).
//!
//! `cargo bench -p supervisor --bench perception_latency`

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SAMPLES: usize = 150;

fn cortex(run_dir: &Path, args: &[&str]) -> Option<serde_json::Value> {
    let output = Command::new(env!("CARGO_BIN_EXE_cortex"))
        .args(args)
        .arg("--run-dir")
        .arg(run_dir)
        .stderr(Stdio::null())
        .output()
        .ok()?;
    serde_json::from_slice(&output.stdout).ok()
}

fn process_field(status: &serde_json::Value, name: &str, field: &str) -> Option<f64> {
    status["processes"]
        .as_array()?
        .iter()
        .find(|process| process["name"] == name)?[field]
        .as_f64()
}

fn percentile(values: &mut [f64], fraction: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    values[((values.len() - 1) as f64 * fraction).round() as usize]
}

struct Row {
    variant: &'static str,
    latency_ms: (f64, f64, f64),
    perception_tick_ms: f64,
    cognition_rate_hz: f64,
}

fn measure(variant: &'static str, cognition_schedule: Option<&str>) -> Row {
    let folder = tempfile::tempdir().unwrap();
    let config = folder.path().join("config");
    testkit::files::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/data"),
        &config,
    );
    if let Some(schedule) = cognition_schedule {
        let table = config.join("default/processes.toml");
        let text = std::fs::read_to_string(&table).unwrap();
        let triggered =
            "trigger = [\"upper.BallPercept\", \"lower.BallPercept\"]\ntimeout_ms = 50\n";
        assert!(text.contains(triggered), "the shipped cognition trigger");
        std::fs::write(&table, text.replace(triggered, schedule)).unwrap();
    }
    let run_dir = folder.path().join("run");
    let mut child: Child = Command::new(env!("CARGO_BIN_EXE_cortex"))
        .args(["run", "--sim", "--instance"])
        .arg(format!("perception-latency-{}", std::process::id()))
        .arg("--run-dir")
        .arg(&run_dir)
        .arg("--config-dir")
        .arg(&config)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        let ready = cortex(&run_dir, &["status", "--json"]).is_some_and(|status| {
            status["processes"].as_array().is_some_and(|all| {
                all.iter()
                    .all(|p| p["state"] == "running" && p["ticks"].as_u64().unwrap_or(0) > 0)
            })
        });
        if ready {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Settle (the first frames go with start-up's load).
    std::thread::sleep(Duration::from_secs(2));

    let mut seen = std::collections::BTreeSet::new();
    let mut latencies = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(120);
    while latencies.len() < SAMPLES && Instant::now() < deadline {
        let Some(model) = cortex(&run_dir, &["get", "BallModel", "--json"]) else {
            continue;
        };
        let captured = model["frame_captured_ns"].as_u64().unwrap_or(0);
        let taken = model["frame_taken_ns"].as_u64().unwrap_or(0);
        if captured == 0 || !seen.insert(captured) {
            continue;
        }
        latencies.push(taken.saturating_sub(captured) as f64 / 1e6);
    }
    let status = cortex(&run_dir, &["status", "--json"]).unwrap_or_default();
    let perception_tick_ms = ["perception.upper", "perception.lower"]
        .iter()
        .filter_map(|name| process_field(&status, name, "tick_mean_ms"))
        .sum::<f64>()
        / 2.0;
    let cognition_rate_hz = process_field(&status, "cognition", "rate_hz").unwrap_or(f64::NAN);
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(child.id() as i32).unwrap(),
        rustix::process::Signal::TERM,
    )
    .unwrap();
    child.wait().unwrap();
    assert!(
        latencies.len() >= SAMPLES / 2,
        "{variant}: only {} frames",
        latencies.len()
    );
    Row {
        variant,
        latency_ms: (
            percentile(&mut latencies, 0.5),
            percentile(&mut latencies, 0.9),
            percentile(&mut latencies, 1.0),
        ),
        perception_tick_ms,
        cognition_rate_hz,
    }
}

fn main() {
    let rows = [
        measure("woken by upper/lower.BallPercept", None),
        measure("rate_hz = 60", Some("rate_hz = 60\n")),
    ];
    println!(
        "\nframe capture -> the cognition tick that takes its percept ({SAMPLES} frames each)\n"
    );
    println!(
        "| {:<34} | {:>8} | {:>8} | {:>8} | {:>18} | {:>16} | {:>12} |",
        "cognition",
        "p50 ms",
        "p90 ms",
        "max ms",
        "perception tick ms",
        "p50 - tick ms",
        "cognition Hz"
    );
    println!(
        "|{:-<36}|{:->10}|{:->10}|{:->10}|{:->20}|{:->18}|{:->14}|",
        "", "", "", "", "", "", ""
    );
    for row in rows {
        let (p50, p90, max) = row.latency_ms;
        println!(
            "| {:<34} | {p50:>8.2} | {p90:>8.2} | {max:>8.2} | {:>18.2} | {:>16.2} | {:>12.1} |",
            row.variant,
            row.perception_tick_ms,
            p50 - row.perception_tick_ms,
            row.cognition_rate_hz
        );
    }
}
