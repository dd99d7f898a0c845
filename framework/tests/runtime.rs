//! The process runtime loop with real channels and a real health board: a module that panics on
//! chosen ticks is caught, the module set is rebuilt and the process keeps ticking; a module that
//! always panics ends the process; a stop request ends it after the tick; a triggered process
//! ticks on its producer's publishes and reads its channel.

use framework::runtime::{self, Channels, Exit, ProcessSetup, RuntimeOptions};
use framework::{build_graph, ModuleRegistry, RepresentationRegistry, Update};
use ipc::health::ProcessState;
use ipc::{HealthBoard, TripleBuffer};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Beat {
    pub count: u64,
}
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Echo {
    pub count: u64,
    pub seen: Vec<u64>,
}
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Doomed {
    pub count: u64,
}
types::representations!(Beat, Echo, Doomed);

fn representations() -> RepresentationRegistry {
    RepresentationRegistry::default()
        .with::<Beat>()
        .with::<Echo>()
        .with::<Doomed>()
}

/// Counts ticks across rebuilds (in a static: the module is destroyed on a panic) and panics on
/// the ticks its parameters name.
static BEATER_TICKS: AtomicU64 = AtomicU64::new(0);
static BEATER_BUILT: AtomicU64 = AtomicU64::new(0);

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeaterParameters {
    panic_on_ticks: Vec<u64>,
}

impl config::Validate for BeaterParameters {
    fn validate(&self) -> Result<(), config::Invalid> {
        Ok(())
    }
}

#[derive(Debug)]
pub struct Beater {
    panic_on_ticks: Vec<u64>,
}
framework::module! {
    Beater {
        inputs: BeaterInputs,
        parameters: BeaterParameters,
        requires: {},
        uses: {},
        provides: { Beat },
    }
}
impl Beater {
    fn new(parameters: BeaterParameters) -> Self {
        BEATER_BUILT.fetch_add(1, Ordering::SeqCst);
        Beater {
            panic_on_ticks: parameters.panic_on_ticks,
        }
    }
}
impl Update<Beat> for Beater {
    fn update(&mut self, _: &BeaterInputs, beat: &mut Beat) {
        let tick = BEATER_TICKS.fetch_add(1, Ordering::SeqCst) + 1;
        if self.panic_on_ticks.contains(&tick) {
            panic!("chosen panic on tick {tick}");
        }
        beat.count = tick;
    }
}

/// Counts its own ticks (no statics: the trigger test runs beside the panic test).
#[derive(Debug)]
pub struct Pulse {
    count: u64,
}
framework::module! {
    Pulse {
        inputs: PulseInputs,
        requires: {},
        uses: {},
        provides: { Beat },
    }
}
impl Pulse {
    fn new(_: framework::NoParameters) -> Self {
        Pulse { count: 0 }
    }
}
impl Update<Beat> for Pulse {
    fn update(&mut self, _: &PulseInputs, beat: &mut Beat) {
        self.count += 1;
        beat.count = self.count;
    }
}

#[derive(Debug)]
pub struct Echoer;
framework::module! {
    Echoer {
        inputs: EchoerInputs,
        requires: { beat: Beat },
        uses: {},
        provides: { Echo },
    }
}
impl Echoer {
    fn new(_: framework::NoParameters) -> Self {
        Echoer
    }
}
impl Update<Echo> for Echoer {
    fn update(&mut self, inputs: &EchoerInputs, echo: &mut Echo) {
        echo.count = inputs.beat.count;
        echo.seen.push(inputs.beat.count);
    }
}

#[derive(Debug)]
pub struct AlwaysPanics;
framework::module! {
    AlwaysPanics {
        inputs: AlwaysPanicsInputs,
        requires: {},
        uses: {},
        provides: { Doomed },
    }
}
impl AlwaysPanics {
    fn new(_: framework::NoParameters) -> Self {
        AlwaysPanics
    }
}
impl Update<Doomed> for AlwaysPanics {
    fn update(&mut self, _: &AlwaysPanicsInputs, _: &mut Doomed) {
        panic!("this module always panics");
    }
}

/// Provides a `Beat` far above `Pulse`'s, so that a reader can tell the two apart.
#[derive(Debug)]
pub struct HighPulse {
    count: u64,
}
framework::module! {
    HighPulse {
        inputs: HighPulseInputs,
        requires: {},
        uses: {},
        provides: { Beat },
    }
}
impl HighPulse {
    fn new(_: framework::NoParameters) -> Self {
        HighPulse { count: 1_000_000 }
    }
}
impl Update<Beat> for HighPulse {
    fn update(&mut self, _: &HighPulseInputs, beat: &mut Beat) {
        self.count += 1;
        beat.count = self.count;
    }
}

/// Reads the `Beat` of two named instances.
#[derive(Debug)]
pub struct BothBeats;
framework::module! {
    BothBeats {
        inputs: BothBeatsInputs,
        requires: { low from low: Beat },
        uses: { high from high: Beat },
        provides: { Echo },
    }
}
impl BothBeats {
    fn new(_: framework::NoParameters) -> Self {
        BothBeats
    }
}
impl Update<Echo> for BothBeats {
    fn update(&mut self, inputs: &BothBeatsInputs, echo: &mut Echo) {
        echo.count += 1;
        echo.seen = vec![inputs.low.count, inputs.high.count];
    }
}

fn modules() -> ModuleRegistry {
    ModuleRegistry::default()
        .with::<HighPulse>()
        .with::<BothBeats>()
        .with::<Beater>()
        .with::<Pulse>()
        .with::<Echoer>()
        .with::<AlwaysPanics>()
}

/// A configuration folder with the given process table and Beater parameters.
fn configuration(processes: &str, panic_on_ticks: &str) -> (tempfile::TempDir, config::Config) {
    let root = tempfile::tempdir().unwrap();
    let path = root.path();
    let beater = format!("panic_on_ticks = {panic_on_ticks}\n");
    config::scaffold::write_minimal(path, processes, &[("Beater.toml", &beater)]).unwrap();
    let config = config::Config::load(path, None, &[]).unwrap();
    (root, config)
}

/// Every channel of the configuration's graph, as the supervisor would create them.
fn all_channels(config: &config::Config) -> Channels {
    let graph = build_graph(config.process_table(), &modules(), &representations()).unwrap();
    let registry = representations();
    let mut channels = Channels::new();
    for channel in &graph.channels {
        let info = registry.get(&channel.representation).unwrap();
        channels.insert(
            channel.name.clone(),
            TripleBuffer::create_with_schema(&channel.name, info.capacity, info.schema_hash)
                .unwrap(),
        );
    }
    channels
}

fn run_process(
    config: &config::Config,
    name: &str,
    channels: &Channels,
    board: &HealthBoard,
    slot: usize,
    stop: Arc<AtomicBool>,
    options: RuntimeOptions,
) -> Result<Exit, runtime::RuntimeError> {
    let graph = build_graph(config.process_table(), &modules(), &representations()).unwrap();
    let plan = graph.process(name).unwrap().clone();
    let spec = config.process_table().get(name).unwrap().clone();
    let modules = modules();
    let representations = representations();
    runtime::run(ProcessSetup {
        plan: &plan,
        spec: &spec,
        config,
        modules: &modules,
        representations: &representations,
        channels,
        parameters: None,
        health: (board, slot),
        stop,
        options,
    })
}

const BEATER_ONLY: &str = r#"
[[process]]
name = "beater"
kind = "cognition"
rate_hz = 500
[process.providers]
Beat = "Beater"
"#;

#[test]
fn a_panicking_module_is_rebuilt_and_the_process_keeps_ticking() {
    // Runs alone in this test binary's statics: the other tests use other modules.
    let (_root, config) = configuration(BEATER_ONLY, "[5, 12]");
    let board = HealthBoard::create("health", 2).unwrap();
    let options = RuntimeOptions {
        max_ticks: Some(20),
        ..RuntimeOptions::default()
    };
    let exit = run_process(
        &config,
        "beater",
        &all_channels(&config),
        &board,
        1,
        Arc::new(AtomicBool::new(false)),
        options,
    )
    .unwrap();
    assert_eq!(exit, Exit::TickLimit);
    let record = board.read(1).unwrap().unwrap();
    assert_eq!(
        record.panics, 2,
        "both chosen panics were caught and counted"
    );
    assert_eq!(record.ticks, 20, "the process kept ticking");
    assert_eq!(record.name(), "beater");
    assert_eq!(record.pid, std::process::id());
    assert_eq!(record.process_state(), Some(ProcessState::Stopped));
    assert_eq!(
        BEATER_BUILT.load(Ordering::SeqCst),
        3,
        "built once, rebuilt after each panic"
    );
    assert!(
        record.rate_mhz == 0 || record.rate_mhz > 100_000,
        "rate in the board: {}",
        record.rate_mhz
    );
}

#[test]
fn a_module_that_always_panics_ends_the_process() {
    let (_root, config) = configuration(
        r#"
[[process]]
name = "doomed"
kind = "cognition"
rate_hz = 1000
[process.providers]
Doomed = "AlwaysPanics"
"#,
        "[]",
    );
    let board = HealthBoard::create("health", 1).unwrap();
    let options = RuntimeOptions {
        panic_limit: 3,
        max_ticks: Some(1000),
        ..RuntimeOptions::default()
    };
    let exit = run_process(
        &config,
        "doomed",
        &all_channels(&config),
        &board,
        0,
        Arc::new(AtomicBool::new(false)),
        options,
    )
    .unwrap();
    assert_eq!(
        exit,
        Exit::TooManyPanics {
            module: "AlwaysPanics".to_owned(),
            count: 4
        }
    );
    assert_eq!(board.read(0).unwrap().unwrap().panics, 4);
}

#[test]
fn a_triggered_process_ticks_on_its_producer_and_stops_on_request() {
    let (_root, config) = configuration(
        r#"
[[process]]
name = "producer"
kind = "motion"
rate_hz = 200
[process.providers]
Beat = "Pulse"

[[process]]
name = "consumer"
kind = "cognition"
trigger = ["Beat"]
timeout_ms = 1000
[process.providers]
Echo = "Echoer"
"#,
        "[]",
    );
    let channels = all_channels(&config);
    let board = HealthBoard::create("health", 2).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    std::thread::scope(|scope| {
        let consumer = scope.spawn(|| {
            let options = RuntimeOptions {
                max_ticks: Some(30),
                ..RuntimeOptions::default()
            };
            run_process(
                &config,
                "consumer",
                &channels,
                &board,
                1,
                Arc::new(AtomicBool::new(false)),
                options,
            )
        });
        let producer = scope.spawn(|| {
            run_process(
                &config,
                "producer",
                &channels,
                &board,
                0,
                stop.clone(),
                RuntimeOptions::default(),
            )
        });
        // Stop the producer before asserting anything, so that a failure cannot hang the scope.
        let consumer = consumer.join().unwrap();
        stop.store(true, Ordering::SeqCst);
        let producer = producer.join().unwrap();
        assert_eq!(consumer.unwrap(), Exit::TickLimit);
        assert_eq!(producer.unwrap(), Exit::Stopped);
    });
    let consumer = board.read(1).unwrap().unwrap();
    let producer = board.read(0).unwrap().unwrap();
    assert_eq!(consumer.ticks, 30);
    assert!(
        producer.ticks >= 30,
        "the consumer ticked once per publish at most: {}",
        producer.ticks
    );
    assert_eq!(producer.process_state(), Some(ProcessState::Stopped));
    // The consumer read the producer's channel: its last value is in the shared Beat channel.
    let mut bytes = Vec::new();
    channels
        .get("Beat")
        .unwrap()
        .reader()
        .read_latest(&mut bytes)
        .unwrap()
        .unwrap();
    let beat: Beat = ipc::channel::decode(&bytes).unwrap();
    assert!(beat.count >= 30);
}

fn latest<T: serde::de::DeserializeOwned>(channels: &Channels, name: &str) -> Option<(u64, T)> {
    let mut bytes = Vec::new();
    let count = channels
        .get(name)
        .unwrap()
        .reader()
        .read_latest(&mut bytes)
        .unwrap()?;
    Some((count, ipc::channel::decode(&bytes).unwrap()))
}

#[test]
fn inputs_from_named_instances_read_their_own_channels() {
    let (_root, config) = configuration(
        r#"
[[process]]
name = "beats.low"
kind = "motion"
rate_hz = 500
[process.providers]
Beat = "Pulse"

[[process]]
name = "beats.high"
kind = "motion"
rate_hz = 500
[process.providers]
Beat = "HighPulse"

[[process]]
name = "listener"
kind = "cognition"
trigger = ["low.Beat"]
timeout_ms = 1000
[process.providers]
Echo = "BothBeats"
"#,
        "[]",
    );
    let channels = all_channels(&config);
    // Nobody else reads Echo: it is published only while watched. Watch it for a minute.
    channels
        .get("Echo")
        .unwrap()
        .reader()
        .watch(ipc::health::monotonic_ns() + 60_000_000_000);
    let board = HealthBoard::create("health", 3).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    std::thread::scope(|scope| {
        let producers: Vec<_> = [("beats.low", 0), ("beats.high", 1)]
            .into_iter()
            .map(|(name, slot)| {
                let (config, channels, board, stop) = (&config, &channels, &board, stop.clone());
                scope.spawn(move || {
                    run_process(
                        config,
                        name,
                        channels,
                        board,
                        slot,
                        stop,
                        RuntimeOptions::default(),
                    )
                })
            })
            .collect();
        // Wait until both producers published before the listener starts, so that it reads a
        // value of each from its first tick on.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while ["low.Beat", "high.Beat"]
            .iter()
            .any(|name| channels.get(name).unwrap().published() == 0)
        {
            assert!(
                std::time::Instant::now() < deadline,
                "the producers never published"
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let listener = run_process(
            &config,
            "listener",
            &channels,
            &board,
            2,
            Arc::new(AtomicBool::new(false)),
            RuntimeOptions {
                max_ticks: Some(20),
                ..RuntimeOptions::default()
            },
        );
        stop.store(true, Ordering::SeqCst);
        for producer in producers {
            assert_eq!(producer.join().unwrap().unwrap(), Exit::Stopped);
        }
        assert_eq!(listener.unwrap(), Exit::TickLimit);
    });
    let (published, echo): (u64, Echo) = latest(&channels, "Echo").expect("Echo was watched");
    assert_eq!(published, 20, "published on every tick while watched");
    let [low, high] = echo.seen[..] else {
        panic!("{echo:?}")
    };
    assert!(
        (1..1_000_000).contains(&low),
        "low.Beat came from Pulse: {echo:?}"
    );
    assert!(high > 1_000_000, "high.Beat came from HighPulse: {echo:?}");
}

#[test]
fn a_value_nobody_reads_is_published_only_while_watched() {
    let (_root, config) = configuration(
        r#"
[[process]]
name = "lonely"
kind = "cognition"
rate_hz = 1000
[process.providers]
Beat = "Pulse"
"#,
        "[]",
    );
    let channels = all_channels(&config);
    let board = HealthBoard::create("health", 1).unwrap();
    let run = |ticks| {
        let options = RuntimeOptions {
            max_ticks: Some(ticks),
            ..RuntimeOptions::default()
        };
        let stop = Arc::new(AtomicBool::new(false));
        run_process(&config, "lonely", &channels, &board, 0, stop, options).unwrap()
    };
    assert_eq!(run(30), Exit::TickLimit);
    let beat = channels.get("Beat").unwrap();
    assert_eq!(beat.published(), 0, "unwatched, nothing was encoded");
    // A watcher asks; the next run publishes every tick, starting with its first.
    beat.reader()
        .watch(ipc::health::monotonic_ns() + 60_000_000_000);
    assert_eq!(run(30), Exit::TickLimit);
    let (published, value): (u64, Beat) = latest(&channels, "Beat").unwrap();
    assert_eq!(published, 30);
    assert_eq!(value.count, 30, "the value of the last tick");
    // A lease that has run out asks for nothing.
    let channels = all_channels(&config);
    let beat = channels.get("Beat").unwrap();
    beat.reader().watch(ipc::health::monotonic_ns());
    let options = RuntimeOptions {
        max_ticks: Some(30),
        ..RuntimeOptions::default()
    };
    let stop = Arc::new(AtomicBool::new(false));
    let exit = run_process(&config, "lonely", &channels, &board, 0, stop, options).unwrap();
    assert_eq!(exit, Exit::TickLimit);
    assert!(beat.reader().watched_until() > 0);
    assert_eq!(beat.published(), 0, "a lease in the past publishes nothing");
}
