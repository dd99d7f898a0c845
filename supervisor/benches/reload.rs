//! What `cortex set` and `cortex reload` cost the supervision loop, which does them between two
//! looks at the heartbeats: on the shipped configuration, side by side in one run, the check a
//! `cortex set` makes (the whole check `cortex check` runs, with the new override) against the
//! cheaper alternative of checking only the module it names, and the steps of a reload (the
//! check, the copy into a plan generation, the comparison with the previous generation).
//!
//! `cargo bench -p supervisor --bench reload`

// (Its `#[test]`s are not compiled in a bench without the test harness: their imports are unused.)
#[allow(dead_code, unused_imports)]
#[path = "../src/plan_store.rs"]
mod plan_store;

mod stand_in;

use framework::{build_graph, check_parameters, registry, ParameterSet};
use stand_in::{modules, print_table, shipped_configuration, time};

const ROUNDS: usize = 100;

fn main() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let root = folder.path().join("config");
    shipped_configuration(&root);
    let modules = modules();
    let representations = registry();
    let sets = [ParameterSet {
        name: "LolaBridge",
        check: |config| lola::bridge::BridgeParameters::load(config).map(drop),
    }];
    let assignment = config::Override::parse("GameStateProvider.long_press_ms=100").unwrap();

    // What the supervisor does for `cortex set`: the configuration with the new override, the
    // graph, every module's parameters (the chosen way) …
    let whole = || {
        let config = config::Config::load(&root, None, std::slice::from_ref(&assignment))
            .expect("the configuration");
        let graph = build_graph(config.process_table(), &modules, &representations).unwrap();
        assert!(check_parameters(&config, &graph, &modules, &sets).is_empty());
    };
    // … or only the module the override names (the alternative).
    let config = config::Config::load(&root, None, &[]).unwrap();
    let one = || {
        let with = config.with_overrides(std::slice::from_ref(&assignment));
        modules
            .get("GameStateProvider")
            .unwrap()
            .check(&with)
            .unwrap();
    };

    let run = folder.path().join("run");
    std::fs::create_dir(&run).unwrap();
    let mut store = plan_store::PlanStore::create(&run).unwrap();
    let first = store.snapshot(&root, None).unwrap();
    store.make_current(first);
    let second = store.snapshot(&root, None).unwrap();

    let rows = [
        ("cortex set: the whole check (chosen)", time(ROUNDS, whole)),
        ("cortex set: only the named module", time(ROUNDS, one)),
        (
            "reload: copy the folder into a plan generation",
            time(ROUNDS, || {
                let generation = store.snapshot(&root, None).unwrap();
                store.discard(generation);
            }),
        ),
        (
            "reload: compare two generations",
            time(ROUNDS, || {
                let (added, removed, changed) =
                    plan_store::differences(&store.config_root(first), &store.config_root(second))
                        .unwrap();
                assert!(added.is_empty() && removed.is_empty() && changed.is_empty());
            }),
        ),
        (
            "reload: check folder, copy, check copy, compare",
            time(ROUNDS, || {
                whole();
                let generation = store.snapshot(&root, None).unwrap();
                whole();
                drop(plan_store::differences(
                    &store.config_root(first),
                    &store.config_root(generation),
                ));
                store.discard(generation);
            }),
        ),
    ];
    print_table("step (blocks the supervision loop)", &rows);
    println!(
        "({ROUNDS} rounds each; the shipped configuration, the Python behaviour stood in for)"
    );
    store.remove_all();
}
