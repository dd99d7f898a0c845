//! Pacing of the process runtime loop: a 12 ms (83.33 Hz) process keeps its period.
//!
//! Prints, in one run, the start-time lateness (mean, p99, max) of ticks of the real runtime loop
//! (absolute deadlines) beside a naive loop that sleeps one period after each tick (relative
//! sleeps drift), and the overrun count of a provider that takes 15 ms on every 10th tick.
//!
//! `cargo bench -p framework --bench pacing`

use framework::runtime::{self, Channels, Exit, ProcessSetup, RuntimeOptions};
use framework::{build_graph, ModuleRegistry, RepresentationRegistry, Update};
use ipc::health::monotonic_ns;
use ipc::HealthBoard;
use serde::{Deserialize, Serialize};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Stamp {
    pub tick: u64,
}
types::representations!(Stamp);

static STARTS: Mutex<Vec<u64>> = Mutex::new(Vec::new());
static SLOW_EVERY: Mutex<u64> = Mutex::new(0);

#[derive(Debug)]
pub struct Stamper {
    tick: u64,
}
framework::module! {
    Stamper {
        inputs: StamperInputs,
        requires: {},
        uses: {},
        provides: { Stamp },
    }
}
impl Stamper {
    fn new(_: framework::NoParameters) -> Self {
        Stamper { tick: 0 }
    }
}
impl Update<Stamp> for Stamper {
    fn update(&mut self, _: &StamperInputs, stamp: &mut Stamp) {
        STARTS.lock().unwrap().push(monotonic_ns());
        self.tick += 1;
        stamp.tick = self.tick;
        let every = *SLOW_EVERY.lock().unwrap();
        if every > 0 && self.tick % every == 0 {
            std::thread::sleep(Duration::from_millis(15));
        }
    }
}

const PERIOD_NS: u64 = 12_000_000;
const TICKS: u64 = 250;

/// Lateness of each start against the ideal grid k × 12 ms, anchored at the earliest start the
/// grid allows (so a late first tick does not make the others look early).
fn lateness_ms(starts: &[u64]) -> (f64, f64, f64) {
    let anchor = starts
        .iter()
        .enumerate()
        .map(|(k, &start)| start as i128 - (k as u64 * PERIOD_NS) as i128)
        .min()
        .unwrap();
    let mut late: Vec<f64> = starts
        .iter()
        .enumerate()
        .map(|(k, &start)| (start as i128 - anchor - (k as u64 * PERIOD_NS) as i128) as f64 / 1e6)
        .collect();
    let mean = late.iter().sum::<f64>() / late.len() as f64;
    late.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let p99 = late[(late.len() as f64 * 0.99) as usize - 1];
    (mean, p99, *late.last().unwrap())
}

fn run_runtime(slow_every: u64) -> (Vec<u64>, u64) {
    *SLOW_EVERY.lock().unwrap() = slow_every;
    STARTS.lock().unwrap().clear();
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path();
    let table = "[[process]]\nname = \"paced\"\nkind = \"motion\"\nrate_hz = 83.333333\n[process.providers]\nStamp = \"Stamper\"\n";
    config::scaffold::write_minimal(root, table, &[]).unwrap();
    let config = config::Config::load(root, None, &[]).unwrap();
    let modules = ModuleRegistry::default().with::<Stamper>();
    let representations = RepresentationRegistry::default().with::<Stamp>();
    let graph = build_graph(config.process_table(), &modules, &representations).unwrap();
    let board = HealthBoard::create("pacing", 1).unwrap();
    // Every provided representation is a channel (the debug link reads them).
    let mut channels = Channels::new();
    let stamp = representations.get("Stamp").unwrap();
    channels.insert(
        "Stamp",
        ipc::TripleBuffer::create_with_schema("Stamp", stamp.capacity, stamp.schema_hash).unwrap(),
    );
    let exit = runtime::run(ProcessSetup {
        plan: graph.process("paced").unwrap(),
        spec: config.process_table().get("paced").unwrap(),
        config: &config,
        modules: &modules,
        representations: &representations,
        channels: &channels,
        parameters: None,
        health: (&board, 0),
        stop: Arc::new(AtomicBool::new(false)),
        options: RuntimeOptions {
            max_ticks: Some(TICKS),
            ..RuntimeOptions::default()
        },
    })
    .unwrap();
    assert_eq!(exit, Exit::TickLimit);
    let overruns = board.read(0).unwrap().unwrap().overruns;
    (STARTS.lock().unwrap().clone(), overruns)
}

fn run_naive() -> Vec<u64> {
    let mut starts = Vec::new();
    for _ in 0..TICKS {
        starts.push(monotonic_ns());
        std::hint::black_box(starts.len());
        std::thread::sleep(Duration::from_nanos(PERIOD_NS));
    }
    starts
}

fn main() {
    let (runtime_starts, _) = run_runtime(0);
    let naive_starts = run_naive();
    let (slow_starts, overruns) = run_runtime(10);
    println!("Pacing of a 12 ms process, {TICKS} ticks each (lateness of tick starts against the grid k × 12 ms)");
    println!(
        "{:<44} {:>10} {:>10} {:>10}",
        "loop", "mean ms", "p99 ms", "max ms"
    );
    for (name, starts) in [
        ("runtime loop (absolute deadlines)", &runtime_starts),
        ("naive loop (sleep 12 ms after each tick)", &naive_starts),
        ("runtime loop, 15 ms provider every 10th", &slow_starts),
    ] {
        let (mean, p99, max) = lateness_ms(starts);
        println!("{name:<44} {mean:>10.3} {p99:>10.3} {max:>10.3}");
    }
    println!();
    println!("overruns counted with a 15 ms provider on every 10th of {TICKS} ticks: {overruns} (expected {})", TICKS / 10);
}
