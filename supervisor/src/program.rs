//! This program's modules and representations, and loading the configuration and the graph from
//! the command line's options.

use anyhow::Result;
use procs::framework::{build_graph, Graph, ModuleRegistry, RepresentationRegistry};
use std::path::Path;

/// A failure in the configuration: the process exits with status 78 (`EX_CONFIG`) and the
/// supervisor does not restart it.
#[derive(Debug)]
pub struct ConfigFailure(pub anyhow::Error);

impl std::fmt::Display for ConfigFailure {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{:#}", self.0)
    }
}

impl std::error::Error for ConfigFailure {}

/// Every module of the program.
pub fn modules() -> ModuleRegistry {
    let mut modules = procs::motion::modules();
    modules.extend(procs::cognition::modules());
    modules.extend(behaviours::modules());
    modules
}

/// Every representation of the program.
pub fn representations() -> RepresentationRegistry {
    procs::representations::registry()
}

/// Loads the configuration; errors are [`ConfigFailure`]s (or I/O errors).
pub fn load_config(
    root: &Path,
    identity: Option<(&str, &str)>,
    overrides: &[String],
) -> Result<config::Config> {
    let parsed: Vec<config::Override> = overrides
        .iter()
        .map(|text| config::Override::parse(text))
        .collect::<Result<_, _>>()
        .map_err(|error| ConfigFailure(error.into()))?;
    let serials = identity.map(|(body, head)| config::RobotIdentitySerials {
        body: body.to_owned(),
        head: head.to_owned(),
    });
    let config = config::Config::load(root, serials.as_ref(), &parsed).map_err(|error| {
        if error.is_config_error() {
            anyhow::Error::new(ConfigFailure(error.into()))
        } else {
            anyhow::Error::new(error)
        }
    })?;
    for warning in config.warnings() {
        tracing::warn!("{warning}");
    }
    Ok(config)
}

/// Builds the graph of `config`; errors are [`ConfigFailure`]s.
pub fn graph(config: &config::Config) -> Result<Graph> {
    build_graph(config.process_table(), &modules(), &representations())
        .map_err(|error| anyhow::Error::new(ConfigFailure(error.into())))
}
