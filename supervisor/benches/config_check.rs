//! What the configuration check costs at start-up: `cortex check` and `cortex run` (before it
//! starts a child, and again once the robot is known) load the configuration, build the graph
//! and then load and check every parameter set. Prints, in one run, the time of each step on
//! the shipped configuration (the motion modules, the game state, four keyframe files and the
//! bridge's parameters), side by side.
//!
//! `cargo bench -p supervisor --bench config_check`

mod stand_in;

use framework::{build_graph, check_parameters, registry, ParameterSet};
use stand_in::{modules, print_table, shipped_configuration, time};

const ROUNDS: usize = 200;

fn main() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let root = folder.path();
    shipped_configuration(root);
    let modules = modules();
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
            time(ROUNDS, || drop(load())),
        ),
        (
            "build_graph",
            time(ROUNDS, || {
                drop(build_graph(
                    config.process_table(),
                    &modules,
                    &representations,
                ))
            }),
        ),
        (
            "check_parameters (every module, motions/, LolaBridge.toml)",
            time(ROUNDS, || {
                drop(check_parameters(&config, &graph, &modules, &sets))
            }),
        ),
        (
            "all three (what `cortex check` adds up to)",
            time(ROUNDS, || {
                let config = load();
                let graph =
                    build_graph(config.process_table(), &modules, &representations).unwrap();
                drop(check_parameters(&config, &graph, &modules, &sets));
            }),
        ),
    ];
    print_table("step", &rows);
    println!("({ROUNDS} rounds each)");
}
