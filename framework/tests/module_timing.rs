//! Each module's update time reaches the health board: a process runs a module that sleeps a
//! known time beside one that does almost nothing, and the record in the board names both, in
//! the plan's order, with the sleeper's last, mean and maximum update time at least its sleep.

use framework::runtime::{self, Channels, Exit, ProcessSetup, RuntimeOptions};
use framework::{build_graph, ModuleRegistry, RepresentationRegistry, Update};
use ipc::{HealthBoard, TripleBuffer};
use serde::{Deserialize, Serialize};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

const NAP: Duration = Duration::from_millis(3);

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Nap {
    pub count: u64,
}
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    pub count: u64,
}
types::representations!(Nap, Tally);

#[derive(Debug)]
pub struct Sleeper {
    count: u64,
}
framework::module! {
    Sleeper {
        inputs: SleeperInputs,
        requires: {},
        uses: {},
        provides: { Nap },
    }
}
impl Sleeper {
    fn new(_: framework::NoParameters) -> Self {
        Sleeper { count: 0 }
    }
}
impl Update<Nap> for Sleeper {
    fn update(&mut self, _: &SleeperInputs, nap: &mut Nap) {
        std::thread::sleep(NAP);
        self.count += 1;
        nap.count = self.count;
    }
}

#[derive(Debug)]
pub struct Counter;
framework::module! {
    Counter {
        inputs: CounterInputs,
        requires: { nap: Nap },
        uses: {},
        provides: { Tally },
    }
}
impl Counter {
    fn new(_: framework::NoParameters) -> Self {
        Counter
    }
}
impl Update<Tally> for Counter {
    fn update(&mut self, inputs: &CounterInputs, tally: &mut Tally) {
        tally.count = inputs.nap.count;
    }
}

const PROCESSES: &str = r#"
[[process]]
name = "napper"
kind = "cognition"
rate_hz = 100
[process.providers]
Tally = "Counter"
Nap = "Sleeper"
"#;

#[test]
fn a_sleeping_module_reports_at_least_its_sleep_and_every_module_is_named() {
    let root = tempfile::tempdir().unwrap();
    config::scaffold::write_minimal(root.path(), PROCESSES, &[]).unwrap();
    let config = config::Config::load(root.path(), None, &[]).unwrap();
    let modules = ModuleRegistry::default()
        .with::<Counter>()
        .with::<Sleeper>();
    let representations = RepresentationRegistry::default()
        .with::<Nap>()
        .with::<Tally>();
    let graph = build_graph(config.process_table(), &modules, &representations).unwrap();
    let mut channels = Channels::new();
    for channel in &graph.channels {
        let info = representations.get(&channel.representation).unwrap();
        channels.insert(
            channel.name.clone(),
            TripleBuffer::create_with_schema(&channel.name, info.capacity, info.schema_hash)
                .unwrap(),
        );
    }
    let plan = graph.process("napper").unwrap().clone();
    let spec = config.process_table().get("napper").unwrap().clone();
    let board = HealthBoard::create("health", 1).unwrap();
    let exit = runtime::run(ProcessSetup {
        plan: &plan,
        spec: &spec,
        config: &config,
        modules: &modules,
        representations: &representations,
        channels: &channels,
        parameters: None,
        health: (&board, 0),
        stop: Arc::new(AtomicBool::new(false)),
        options: RuntimeOptions {
            // Several windows in 30 ticks, however slowly a loaded machine ticks.
            stats_window: Duration::from_millis(20),
            max_ticks: Some(30),
            ..RuntimeOptions::default()
        },
    })
    .unwrap();
    assert_eq!(exit, Exit::TickLimit);

    let record = board.read(0).unwrap().unwrap();
    let names: Vec<String> = record.modules().iter().map(|m| m.name()).collect();
    assert_eq!(
        names,
        ["Sleeper", "Counter"],
        "every module of the plan, in the order the process runs them"
    );
    let sleeper = record.modules()[0];
    let nap_ns = NAP.as_nanos() as u64;
    assert!(sleeper.last_ns >= nap_ns, "{sleeper:?}");
    assert!(sleeper.mean_ns >= nap_ns, "{sleeper:?}");
    assert!(sleeper.max_ns >= sleeper.mean_ns, "{sleeper:?}");
    let counter = record.modules()[1];
    assert!(
        counter.mean_ns > 0 && counter.max_ns >= counter.mean_ns,
        "a complete window for the quick module too: {counter:?}"
    );
}
