//! Frame capture → the cognition tick that uses it: how long after a camera frame is taken the
//! ball model has its percept, with cognition woken by the percepts (the shipped table) beside
//! cognition on its own 60 Hz clock (the table before the camera issue).
//!
//! Each variant gets its own `cortex run --sim` (a copy of the shipped configuration). The
//! bench reads `BallModel` (`cortex get`) until it has `SAMPLES` different frames: each carries
//! the monotonic time its newest frame was captured (`frame_captured_ns`) and the time of the
//! cognition tick that took it (`frame_taken_ns`), on the clock every process shares, so the
//! delays are exact, not polled. The percept carries the time its perception tick ended
//! (`frame_perceived_ns`), which splits the delay into the perception tick (capture → percept:
//! the simulated camera's rendering and the stages) and the wake-up (percept → cognition).
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
    /// Capture → cognition: p50, p90.
    total_ms: (f64, f64),
    /// Capture → percept (the perception tick: rendering or reading the frame, the stages).
    perception_ms: (f64, f64),
    /// Percept → the cognition tick that takes it.
    wake_ms: (f64, f64),
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
    let (mut totals, mut perceptions, mut wakes) = (Vec::new(), Vec::new(), Vec::new());
    let deadline = Instant::now() + Duration::from_secs(120);
    while totals.len() < SAMPLES && Instant::now() < deadline {
        let Some(model) = cortex(&run_dir, &["get", "BallModel", "--json"]) else {
            continue;
        };
        let captured = model["frame_captured_ns"].as_u64().unwrap_or(0);
        let perceived = model["frame_perceived_ns"].as_u64().unwrap_or(0);
        let taken = model["frame_taken_ns"].as_u64().unwrap_or(0);
        if captured == 0 || perceived < captured || !seen.insert(captured) {
            continue;
        }
        let ms = |from: u64, to: u64| to.saturating_sub(from) as f64 / 1e6;
        totals.push(ms(captured, taken));
        perceptions.push(ms(captured, perceived));
        wakes.push(ms(perceived, taken));
    }
    let status = cortex(&run_dir, &["status", "--json"]).unwrap_or_default();
    let cognition_rate_hz = process_field(&status, "cognition", "rate_hz").unwrap_or(f64::NAN);
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(child.id() as i32).unwrap(),
        rustix::process::Signal::TERM,
    )
    .unwrap();
    child.wait().unwrap();
    assert!(
        totals.len() >= SAMPLES / 2,
        "{variant}: only {} frames",
        totals.len()
    );
    let p50_p90 = |values: &mut Vec<f64>| (percentile(values, 0.5), percentile(values, 0.9));
    Row {
        variant,
        total_ms: p50_p90(&mut totals),
        perception_ms: p50_p90(&mut perceptions),
        wake_ms: p50_p90(&mut wakes),
        cognition_rate_hz,
    }
}

fn main() {
    let rows = [
        measure("woken by upper/lower.BallPercept", None),
        measure("rate_hz = 60", Some("rate_hz = 60\n")),
    ];
    println!(
        "\nframe capture -> percept -> the cognition tick that takes it ({SAMPLES} frames each; \
         p50 / p90, ms)\n"
    );
    println!(
        "| {:<34} | {:>15} | {:>22} | {:>22} | {:>12} |",
        "cognition", "capture -> tick", "capture -> percept", "percept -> tick", "cognition Hz"
    );
    println!(
        "|{:-<36}|{:->17}|{:->24}|{:->24}|{:->14}|",
        "", "", "", "", ""
    );
    let pair = |(p50, p90): (f64, f64)| format!("{p50:.2} / {p90:.2}");
    for row in rows {
        println!(
            "| {:<34} | {:>15} | {:>22} | {:>22} | {:>12.1} |",
            row.variant,
            pair(row.total_ms),
            pair(row.perception_ms),
            pair(row.wake_ms),
            row.cognition_rate_hz
        );
    }
}
