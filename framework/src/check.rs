//! Checking every parameter of a configuration before anything runs: what each process would
//! refuse when it builds its modules, found at once by `cortex check` and by the supervisor
//! before it starts a child.
//!
//! ```text
//! graph (which module runs where) ──► every module: ModuleEntry::check (the loader construct uses)
//! parameter sets outside modules  ──► their own loader (the lola bridge's LolaBridge.toml)
//! --set MODULE.key=value          ──► MODULE must be read by one of the above
//! ```

use super::graph::Graph;
use super::module::ModuleRegistry;
use config::{Config, ConfigError, OverrideTarget};
use std::collections::BTreeMap;

/// Parameters read outside the module framework (the lola bridge's `LolaBridge.toml`), with the
/// loader their reader uses.
#[derive(Debug, Clone, Copy)]
pub struct ParameterSet {
    /// The name of the file without `.toml`, and the target of `--set NAME.key=value`.
    pub name: &'static str,
    /// Loads and checks the parameters as their reader does.
    pub check: fn(&Config) -> Result<(), ConfigError>,
}

/// One problem found by [`check_parameters`]. The configuration error comes first: it names the
/// file, the line and the key (or the override).
#[derive(Debug, thiserror::Error)]
pub enum ParameterError {
    /// A module's parameters (or the files they load, such as keyframe motions) are broken.
    #[error("{error} (loading module `{module}` for {processes})")]
    Module {
        /// The module.
        module: String,
        /// The processes that run it, for people: "process `motion`".
        processes: String,
        /// What is wrong, where.
        error: ConfigError,
    },
    /// Parameters read outside the module framework are broken.
    #[error("{error} (loading {name})")]
    Set {
        /// The parameter set, e.g. `LolaBridge`.
        name: String,
        /// What is wrong, where.
        error: ConfigError,
    },
    /// A `--set` names something that reads no parameters.
    #[error("{0}")]
    Override(ConfigError),
}

impl ParameterError {
    /// The configuration error inside.
    pub fn config_error(&self) -> &ConfigError {
        match self {
            ParameterError::Module { error, .. }
            | ParameterError::Set { error, .. }
            | ParameterError::Override(error) => error,
        }
    }
}

/// Loads and checks the parameters of every module that runs in `graph` and of every parameter
/// set in `sets`, exactly as the processes will, and checks that every `--set` override names a
/// module or set whose parameters are read. Returns every problem, in table order.
pub fn check_parameters(
    config: &Config,
    graph: &Graph,
    modules: &ModuleRegistry,
    sets: &[ParameterSet],
) -> Vec<ParameterError> {
    // Module → the processes that run it, in table order.
    let mut running: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    for plan in &graph.processes {
        for step in &plan.order {
            let processes = running.entry(step.module.as_str()).or_default();
            if processes.is_empty() {
                order.push(step.module.as_str());
            }
            processes.push(plan.name.as_str());
        }
    }
    let mut errors = Vec::new();
    for module in &order {
        // The graph builder only plans modules the registry has.
        let Some(entry) = modules.get(module) else {
            continue;
        };
        if let Err(error) = entry.check(config) {
            errors.push(ParameterError::Module {
                module: (*module).to_owned(),
                processes: describe_processes(&running[module]),
                error,
            });
        }
    }
    for set in sets {
        if let Err(error) = (set.check)(config) {
            errors.push(ParameterError::Set {
                name: set.name.to_owned(),
                error,
            });
        }
    }
    let mut checked_idle: Vec<&str> = Vec::new();
    for item in config.overrides() {
        let OverrideTarget::Module(target) = item.target() else {
            continue;
        };
        let refuse = |reason: String| {
            ParameterError::Override(ConfigError::InvalidOverride {
                text: item.text().to_owned(),
                reason,
            })
        };
        if sets.iter().any(|set| set.name == target) {
            continue;
        }
        let Some(entry) = modules.get(target) else {
            errors.push(refuse(format!(
                "no module or parameter set `{target}` in this program; known: {}",
                known_names(modules, sets)
            )));
            continue;
        };
        if !entry.has_parameters() {
            errors.push(refuse(format!("module `{target}` has no parameters")));
            continue;
        }
        if running.contains_key(target) {
            continue;
        }
        // A module that runs nowhere: the override changes nothing unless the module's file is
        // there (a table that will use it); then its keys are checked like any module's.
        if config.find(&format!("{target}.toml")).is_none() {
            errors.push(refuse(format!(
                "module `{target}` runs in no process of {} and has no parameter file: \
                 the override would change nothing",
                config.process_table().file().display()
            )));
        } else if !checked_idle.contains(&target) {
            checked_idle.push(target);
            if let Err(error) = entry.check(config) {
                errors.push(ParameterError::Module {
                    module: target.to_owned(),
                    processes: "no process".to_owned(),
                    error,
                });
            }
        }
    }
    errors
}

fn describe_processes(processes: &[&str]) -> String {
    let names: Vec<String> = processes.iter().map(|name| format!("`{name}`")).collect();
    match names.len() {
        1 => format!("process {}", names[0]),
        _ => format!("processes {}", names.join(", ")),
    }
}

fn known_names(modules: &ModuleRegistry, sets: &[ParameterSet]) -> String {
    let mut names: Vec<&str> = modules.names().collect();
    names.extend(sets.iter().map(|set| set.name));
    names.sort_unstable();
    names.join(", ")
}
