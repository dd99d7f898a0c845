//! Parameters changed while a process runs (`framework::live_parameters`), through the real
//! runtime loop, a real parameter channel and real representation channels: a module that keeps
//! its state takes the new value in place, a module without `set_parameters:` is built anew
//! (its state is lost), an update that does not load leaves the module as it was, and the
//! process never stops.

use framework::live_parameters::{schema_hash, ParameterUpdate, CHANNEL_BYTES};
use framework::runtime::{self, Channels, Exit, ProcessSetup, RuntimeOptions};
use framework::{build_graph, ModuleRegistry, RepresentationRegistry, Update};
use ipc::{HealthBoard, TripleBuffer};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Scaled {
    /// Ticks of the module since it was built.
    pub ticks: u64,
    pub gain: u64,
}
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Shifted {
    pub ticks: u64,
    pub offset: u64,
}
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Seen {
    pub count: u64,
}
types::representations!(Scaled, Shifted, Seen);

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GainParameters {
    gain: u64,
}
impl config::Validate for GainParameters {
    fn validate(&self) -> Result<(), config::Invalid> {
        config::in_range("gain", self.gain, 1..=100)
    }
}

/// Keeps its tick count when its gain changes.
#[derive(Debug)]
pub struct Gainer {
    gain: u64,
    ticks: u64,
}
framework::module! {
    Gainer {
        inputs: GainerInputs,
        parameters: GainParameters,
        set_parameters: retune,
        requires: {},
        uses: {},
        provides: { Scaled },
    }
}
impl Gainer {
    fn new(parameters: GainParameters) -> Self {
        Gainer {
            gain: parameters.gain,
            ticks: 0,
        }
    }
    fn retune(&mut self, parameters: GainParameters) {
        self.gain = parameters.gain;
    }
}
impl Update<Scaled> for Gainer {
    fn update(&mut self, _: &GainerInputs, scaled: &mut Scaled) {
        self.ticks += 1;
        *scaled = Scaled {
            ticks: self.ticks,
            gain: self.gain,
        };
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OffsetParameters {
    offset: u64,
}
impl config::Validate for OffsetParameters {
    fn validate(&self) -> Result<(), config::Invalid> {
        Ok(())
    }
}

/// Declares no `set_parameters:`: built anew from new parameters.
#[derive(Debug)]
pub struct Offsetter {
    offset: u64,
    ticks: u64,
}
framework::module! {
    Offsetter {
        inputs: OffsetterInputs,
        parameters: OffsetParameters,
        requires: {},
        uses: {},
        provides: { Shifted },
    }
}
impl Offsetter {
    fn new(parameters: OffsetParameters) -> Self {
        Offsetter {
            offset: parameters.offset,
            ticks: 0,
        }
    }
}
impl Update<Shifted> for Offsetter {
    fn update(&mut self, _: &OffsetterInputs, shifted: &mut Shifted) {
        self.ticks += 1;
        *shifted = Shifted {
            ticks: self.ticks,
            offset: self.offset,
        };
    }
}

/// Reads both, in another process, so that the producer publishes them every tick.
#[derive(Debug)]
pub struct Watcher;
framework::module! {
    Watcher {
        inputs: WatcherInputs,
        requires: { scaled: Scaled, shifted: Shifted },
        uses: {},
        provides: { Seen },
    }
}
impl Watcher {
    fn new(_: framework::NoParameters) -> Self {
        Watcher
    }
}
impl Update<Seen> for Watcher {
    fn update(&mut self, _: &WatcherInputs, seen: &mut Seen) {
        seen.count += 1;
    }
}

fn representations() -> RepresentationRegistry {
    RepresentationRegistry::default()
        .with::<Scaled>()
        .with::<Shifted>()
        .with::<Seen>()
}

fn modules() -> ModuleRegistry {
    ModuleRegistry::default()
        .with::<Gainer>()
        .with::<Offsetter>()
        .with::<Watcher>()
}

const TABLE: &str = r#"
[[process]]
name = "producer"
kind = "cognition"
rate_hz = 500
[process.providers]
Scaled = "Gainer"
Shifted = "Offsetter"

[[process]]
name = "watcher"
kind = "debug"
rate_hz = 10
[process.providers]
Seen = "Watcher"
"#;

/// The newest value on a channel.
fn latest<T: serde::de::DeserializeOwned>(buffer: &TripleBuffer) -> Option<T> {
    let mut bytes = Vec::new();
    buffer.reader().read_latest(&mut bytes).unwrap()?;
    Some(ipc::channel::decode(&bytes).unwrap())
}

fn wait_until<T: serde::de::DeserializeOwned>(
    buffer: &TripleBuffer,
    what: &str,
    condition: impl Fn(&T) -> bool,
) -> T {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(value) = latest::<T>(buffer) {
            if condition(&value) {
                return value;
            }
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn publish(buffer: &TripleBuffer, generation: u64, overrides: &[&str]) {
    let update = ParameterUpdate {
        generation,
        overrides: overrides.iter().map(|text| (*text).to_owned()).collect(),
    };
    let mut bytes = Vec::new();
    ipc::channel::encode(&update, &mut bytes).unwrap();
    buffer.writer().unwrap().publish(&bytes).unwrap();
}

#[test]
fn new_parameters_reach_running_modules_at_the_next_tick() {
    let root = tempfile::tempdir().unwrap();
    config::scaffold::write_minimal(
        root.path(),
        TABLE,
        &[
            ("Gainer.toml", "gain = 2\n"),
            ("Offsetter.toml", "offset = 3\n"),
        ],
    )
    .unwrap();
    let config = config::Config::load(root.path(), None, &[]).unwrap();
    let graph = build_graph(config.process_table(), &modules(), &representations()).unwrap();
    let registry = representations();
    let mut channels = Channels::new();
    for channel in &graph.channels {
        let info = registry.get(&channel.representation).unwrap();
        let buffer =
            TripleBuffer::create_with_schema(&channel.name, info.capacity, info.schema_hash)
                .unwrap();
        channels.insert(channel.name.clone(), buffer);
    }
    let parameters =
        TripleBuffer::create_with_schema("producer.parameters", CHANNEL_BYTES, schema_hash())
            .unwrap();
    let board = HealthBoard::create("health", 1).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let plan = graph.process("producer").unwrap().clone();
    let spec = config.process_table().get("producer").unwrap().clone();

    std::thread::scope(|scope| {
        let running = scope.spawn(|| {
            let modules = modules();
            let representations = representations();
            runtime::run(ProcessSetup {
                plan: &plan,
                spec: &spec,
                config: &config,
                modules: &modules,
                representations: &representations,
                channels: &channels,
                parameters: Some(&parameters),
                health: (&board, 0),
                stop: stop.clone(),
                options: RuntimeOptions::default(),
            })
        });
        let scaled = channels.get("Scaled").unwrap();
        let shifted = channels.get("Shifted").unwrap();
        wait_until::<Scaled>(scaled, "20 ticks", |value| value.ticks >= 20);

        // Both change: the Gainer keeps counting, the Offsetter starts again from 1.
        publish(&parameters, 1, &["Gainer.gain=5", "Offsetter.offset=7"]);
        let before = latest::<Shifted>(shifted).unwrap();
        let gained = wait_until::<Scaled>(scaled, "gain 5", |value| value.gain == 5);
        assert!(gained.ticks > 20, "the Gainer lost its state: {gained:?}");
        let offset = wait_until::<Shifted>(shifted, "offset 7", |value| value.offset == 7);
        assert!(
            offset.ticks < before.ticks,
            "the Offsetter was not built anew: {before:?} then {offset:?}"
        );

        // A value out of range: the Gainer keeps 5 and goes on; the Offsetter is not touched.
        publish(&parameters, 2, &["Gainer.gain=500", "Offsetter.offset=7"]);
        let ticks = latest::<Scaled>(scaled).unwrap().ticks;
        let later = wait_until::<Scaled>(scaled, "more ticks", |value| value.ticks > ticks + 50);
        assert_eq!(later.gain, 5);
        let shifted_now = latest::<Shifted>(shifted).unwrap();
        assert_eq!(shifted_now.offset, 7);
        assert!(shifted_now.ticks > offset.ticks, "rebuilt without a change");

        // Taking an override back returns to the file's value.
        publish(&parameters, 3, &["Offsetter.offset=7"]);
        let back = wait_until::<Scaled>(scaled, "gain 2", |value| value.gain == 2);
        assert!(back.ticks > later.ticks);
        // The same generation again is no new update.
        publish(&parameters, 3, &["Gainer.gain=9"]);
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(latest::<Scaled>(scaled).unwrap().gain, 2);

        stop.store(true, Ordering::Relaxed);
        assert_eq!(running.join().unwrap().unwrap(), Exit::Stopped);
    });
}
