//! What the configuration benches share: the shipped configuration with the Python behaviour
//! stood in for (its interpreter is not what they measure), the modules of the program with that
//! stand-in, and timing a step over many rounds into a printed table.

use framework::{ModuleRegistry, NoParameters, Update};
use std::path::Path;
use std::time::{Duration, Instant};
use types::BehaviourRequest;

/// Stands in for the Python behaviour (crate `behaviours`).
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

/// Copies the shipped configuration to `root`, with `BehaviourControl` replaced by [`Behaviour`].
pub fn shipped_configuration(root: &Path) {
    testkit::files::copy_dir(&config::default_root(), root);
    let path = root.join("default/processes.toml");
    let table = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        table.replace("\"BehaviourControl\"", "\"Behaviour\""),
    )
    .unwrap();
}

/// The program's modules (supervisor/src/program.rs `modules`), with [`Behaviour`] for the
/// Python behaviour.
pub fn modules() -> ModuleRegistry {
    let mut modules = motion::modules();
    modules.extend(cognition::modules());
    modules.extend(ModuleRegistry::default().with::<Behaviour>());
    modules.extend(audio::modules::modules());
    modules.extend(network::modules());
    modules.extend(perception::modules::modules());
    modules
}

/// Mean, median and 99th percentile of `rounds` runs of `step`.
pub fn time(rounds: usize, mut step: impl FnMut()) -> [Duration; 3] {
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let started = Instant::now();
            step();
            started.elapsed()
        })
        .collect();
    times.sort();
    let mean = times.iter().sum::<Duration>() / rounds as u32;
    [mean, times[rounds / 2], times[rounds * 99 / 100]]
}

/// Prints `rows` of [`time`] results as a table whose first column is headed `what`.
pub fn print_table(what: &str, rows: &[(&str, [Duration; 3])]) {
    println!("| {what} | mean ms | median ms | p99 ms |");
    println!("|---|---|---|---|");
    for (name, [mean, median, p99]) in rows {
        println!(
            "| {name} | {:.3} | {:.3} | {:.3} |",
            mean.as_secs_f64() * 1e3,
            median.as_secs_f64() * 1e3,
            p99.as_secs_f64() * 1e3
        );
    }
}
