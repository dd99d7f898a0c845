//! What the behaviour-fault hardening (issue 9, items 11–14) adds to a cognition tick, side by
//! side with the tick itself: the two marker publishes, the fault copy into the heartbeat, and
//! the folder-identity check of the watcher.
//!
//! `cargo bench -p behaviours --bench fault_costs` prints a table (medians and p99 in µs, and
//! each row's share of a trivial tick).

use behaviours::marker::{create_marker, BehaviourMarker};
use behaviours::{BehaviourEngine, BlackboardSnapshot, EngineSettings};
use std::path::Path;
use std::time::{Duration, Instant};

fn settings(folder: &Path, watch: bool) -> EngineSettings {
    EngineSettings {
        folder: folder.to_path_buf(),
        entry_module: "behaviour".to_owned(),
        tick_budget: Duration::from_millis(20),
        load_budget: Duration::from_secs(2),
        reload_budget: Duration::from_secs(2),
        error_sound_interval: Duration::from_secs(10),
        reload_settle: Duration::from_millis(20),
        watch,
    }
}

fn measure(count: usize, mut run: impl FnMut()) -> Vec<Duration> {
    for _ in 0..count / 10 {
        run();
    }
    (0..count)
        .map(|_| {
            let started = Instant::now();
            run();
            started.elapsed()
        })
        .collect()
}

fn percentile(samples: &mut [Duration], fraction: f64) -> Duration {
    samples.sort();
    samples[((samples.len() - 1) as f64 * fraction) as usize]
}

fn main() {
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(
        folder.path().join("behaviour.py"),
        "import robot\n\ndef tick(blackboard):\n    return robot.BehaviourRequest()\n",
    )
    .unwrap();
    let snapshot = BlackboardSnapshot::default();
    let mut rows: Vec<(&str, Vec<Duration>)> = Vec::new();

    let mut engine = BehaviourEngine::new(settings(folder.path(), false)).unwrap();
    rows.push((
        "tick, trivial behaviour, no watcher",
        measure(20_000, || {
            std::hint::black_box(engine.tick(snapshot.clone(), Instant::now()));
        }),
    ));
    drop(engine);
    let mut engine = BehaviourEngine::new(settings(folder.path(), true)).unwrap();
    rows.push((
        "tick, trivial behaviour, watcher on",
        measure(20_000, || {
            std::hint::black_box(engine.tick(snapshot.clone(), Instant::now()));
        }),
    ));
    drop(engine);

    let buffer = create_marker("bench.behaviour-marker").unwrap();
    let mut writer = buffer.writer().unwrap();
    let mut marker: BehaviourMarker = bytemuck::Zeroable::zeroed();
    marker.pid = std::process::id();
    rows.push((
        "marker: 2 publishes of 256 B per tick",
        measure(100_000, || {
            marker.phase = 2;
            writer.publish(bytemuck::bytes_of(&marker)).unwrap();
            marker.phase = 0;
            writer.publish(bytemuck::bytes_of(&marker)).unwrap();
        }),
    ));

    framework::faults::report_fault("behaviour.py:4: ZeroDivisionError: division by zero");
    let mut record = ipc::HealthRecord::named("cognition");
    rows.push((
        "fault copied into the heartbeat",
        measure(100_000, || {
            framework::faults::fill_record(&mut record);
            std::hint::black_box(&record);
        }),
    ));
    rows.push((
        "folder identity (stat, every 100 ms)",
        measure(20_000, || {
            std::hint::black_box(std::fs::metadata(folder.path()).ok());
        }),
    ));

    let tick = percentile(&mut rows[0].1.clone(), 0.5);
    println!(
        "{:<40} {:>10} {:>10} {:>14}",
        "what (µs)", "median", "p99", "of a tick"
    );
    for (name, samples) in &mut rows {
        let median = percentile(samples, 0.5);
        let p99 = percentile(samples, 0.99);
        println!(
            "{name:<40} {:>10.2} {:>10.2} {:>13.1}%",
            median.as_secs_f64() * 1e6,
            p99.as_secs_f64() * 1e6,
            100.0 * median.as_secs_f64() / tick.as_secs_f64()
        );
    }
}
