//! What per-module timing costs the runtime loop, per module per tick (issue 10, item 8; target
//! ≤ 100 ns of framework overhead per module per tick).
//!
//! Prints, in one run, the median over repetitions of the nanoseconds per module per tick of:
//! an empty loop over the modules (the floor), the stopwatch alone (`Instant::now` and
//! `elapsed`, what the loop did before), the stopwatch with the window statistics
//! ([`ModuleTimings::record`]), and that plus copying the times into the health record; and per
//! tick, publishing the health record with its module entries beside publishing one of the
//! size the record had before them. Each "module" is a call that does nothing, so the rows show
//! the framework's own cost.
//!
//! `cargo bench -p framework --bench module_timing`

use framework::module_timing::ModuleTimings;
use ipc::health::{HealthRecord, ModuleTiming, MODULE_SLOTS};
use ipc::TripleBuffer;
use std::hint::black_box;
use std::time::{Duration, Instant};

const MODULES: usize = 8;
const TICKS: u32 = 20_000;
const REPETITIONS: usize = 21;

#[inline(never)]
fn module(state: &mut u64) {
    *state = black_box(*state).wrapping_add(1);
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    samples[samples.len() / 2]
}

/// Median over repetitions of `tick` run `TICKS` times, in ns per call divided by `per`.
fn measure(per: usize, mut tick: impl FnMut()) -> f64 {
    median(
        (0..REPETITIONS)
            .map(|_| {
                let started = Instant::now();
                for _ in 0..TICKS {
                    tick();
                }
                started.elapsed().as_nanos() as f64 / f64::from(TICKS) / per as f64
            })
            .collect(),
    )
}

fn main() {
    let names: Vec<String> = (0..MODULES).map(|i| format!("Module{i}")).collect();
    let mut state = 0u64;
    let floor = measure(MODULES, || {
        for _ in 0..MODULES {
            module(&mut state);
        }
    });
    let mut last = [Duration::ZERO; MODULES];
    let stopwatch = measure(MODULES, || {
        for slot in &mut last {
            let started = Instant::now();
            module(&mut state);
            *slot = started.elapsed();
        }
    });
    black_box(last);
    let mut timings = ModuleTimings::new(MODULES, Duration::from_secs(1));
    let statistics = measure(MODULES, || {
        for index in 0..MODULES {
            let started = Instant::now();
            module(&mut state);
            timings.record(index, started.elapsed(), started);
        }
    });
    let mut record = HealthRecord::named("bench");
    record.set_modules(names.iter().map(String::as_str));
    let filled = measure(MODULES, || {
        for index in 0..MODULES {
            let started = Instant::now();
            module(&mut state);
            timings.record(index, started.elapsed(), started);
        }
        timings.fill(&mut record);
    });
    black_box(&record);

    let size = std::mem::size_of::<HealthRecord>();
    let before = size - MODULE_SLOTS * std::mem::size_of::<ModuleTiming>();
    let buffer = TripleBuffer::create("bench-health", size).unwrap();
    let mut writer = buffer.writer().unwrap();
    let bytes = bytemuck::bytes_of(&record).to_vec();
    let publish_before = measure(1, || {
        writer.publish(&bytes[..before]).unwrap();
    });
    let publish_now = measure(1, || {
        writer.publish(&bytes).unwrap();
    });

    println!("per-module timing, {MODULES} modules, {TICKS} ticks, median of {REPETITIONS} runs");
    println!("{:<52} {:>12} {:>10}", "loop", "ns/module", "vs floor");
    for (name, value) in [
        ("modules only (floor)", floor),
        ("+ stopwatch (before this item)", stopwatch),
        ("+ stopwatch + window statistics", statistics),
        ("+ stopwatch + statistics + fill the record", filled),
    ] {
        println!("{name:<52} {value:>12.1} {:>10.1}", value - floor);
    }
    println!(
        "timing overhead of this item per module per tick: {:.1} ns",
        filled - stopwatch
    );
    println!();
    println!(
        "{:<52} {:>12} {:>10}",
        "health record publish", "ns/tick", "ns/module"
    );
    println!(
        "{:<52} {publish_before:>12.1} {:>10.1}",
        format!("{before} bytes (without module entries)"),
        publish_before / MODULES as f64
    );
    println!(
        "{:<52} {publish_now:>12.1} {:>10.1}",
        format!("{size} bytes (with {MODULE_SLOTS} module entries)"),
        publish_now / MODULES as f64
    );
}
