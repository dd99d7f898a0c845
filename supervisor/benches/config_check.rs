//! What the configuration check costs at start-up: `cortex check` and `cortex run` (before it
//! starts a child, and again once the robot is known) load the configuration, build the graph
//! and then load and check every parameter set. Prints, in one run, the time of each step on
//! the shipped configuration (the motion modules, the game state, four keyframe files and the
//! bridge's parameters), side by side.
//!
//! `cargo bench -p supervisor --bench config_check`

use framework::{
    build_graph, check_parameters, registry, ModuleRegistry, NoParameters, ParameterSet, Update,
};
use std::time::{Duration, Instant};
use types::BehaviourRequest;

/// Stands in for the Python behaviour (crate `behaviours`, above this one).
#[derive(Debug)]
pub struct Behaviour;
framework::module! {
    Behaviour {
        inputs: BehaviourInputs,
        requires: {},
        uses: {},
        provides: { BehaviourRequest },
    }
}
impl Behaviour {
    fn new(_: NoParameters) -> Self {
        Behaviour
    }
}
impl Update<BehaviourRequest> for Behaviour {
    fn update(&mut self, _: &BehaviourInputs, _: &mut BehaviourRequest) {}
}

const ROUNDS: usize = 200;

fn time(mut step: impl FnMut()) -> (Duration, Duration, Duration) {
    let mut times: Vec<Duration> = (0..ROUNDS)
        .map(|_| {
            let started = Instant::now();
            step();
            started.elapsed()
        })
        .collect();
    times.sort();
    let mean = times.iter().sum::<Duration>() / ROUNDS as u32;
    (mean, times[ROUNDS / 2], times[ROUNDS - 1])
}

fn main() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let root = folder.path();
    testkit::files::copy_dir(&config::default_root(), root);
    // The shipped table with the Python behaviour replaced by the stand-in.
    let table = std::fs::read_to_string(root.join("default/processes.toml")).unwrap();
    std::fs::write(
        root.join("default/processes.toml"),
        table.replace("\"BehaviourControl\"", "\"Behaviour\""),
    )
    .unwrap();
    let mut modules = motion::modules();
    modules.extend(cognition::modules());
    modules.extend(ModuleRegistry::default().with::<Behaviour>());
    modules.extend(audio::modules::modules());
    let representations = registry();
    let sets = [ParameterSet {
        name: "LolaBridge",
        check: |config| lola::bridge::BridgeParameters::load(config).map(drop),
    }];

    let load = || config::Config::load(root, None, &[]).expect("the configuration");
    let config = load();
    let graph = build_graph(config.process_table(), &modules, &representations).expect("graph");
    assert!(check_parameters(&config, &graph, &modules, &sets).is_empty());

    let rows = [
        (
            "Config::load (settings, search path, process table)",
            time(|| drop(load())),
        ),
        (
            "build_graph",
            time(|| {
                drop(build_graph(
                    config.process_table(),
                    &modules,
                    &representations,
                ))
            }),
        ),
        (
            "check_parameters (every module, motions/, LolaBridge.toml)",
            time(|| drop(check_parameters(&config, &graph, &modules, &sets))),
        ),
        (
            "all three (what `cortex check` adds up to)",
            time(|| {
                let config = load();
                let graph =
                    build_graph(config.process_table(), &modules, &representations).unwrap();
                drop(check_parameters(&config, &graph, &modules, &sets));
            }),
        ),
    ];
    println!("| step | mean ms | median ms | max ms |");
    println!("|---|---|---|---|");
    for (name, (mean, median, max)) in rows {
        println!(
            "| {name} | {:.3} | {:.3} | {:.3} |",
            mean.as_secs_f64() * 1e3,
            median.as_secs_f64() * 1e3,
            max.as_secs_f64() * 1e3
        );
    }
    println!("({ROUNDS} rounds each)");
}
