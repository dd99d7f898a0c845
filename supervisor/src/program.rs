//! This program's modules and representations, and loading the configuration and the graph from
//! the command line's options.

use anyhow::Result;
use framework::{
    build_graph, check_parameters, Graph, ModuleRegistry, ParameterError, ParameterSet,
    RepresentationRegistry,
};
use std::path::Path;

/// A failure in the configuration: the process exits with the status that
/// [`crate::exit_code`] gives it (78, `EX_CONFIG`, unless a file could not be read) and the
/// supervisor does not restart a child that exits with 78.
#[derive(Debug)]
pub struct ConfigFailure(pub anyhow::Error);

/// Every problem [`check`] found in the parameters, one per line.
#[derive(Debug)]
pub struct ParameterErrors(pub Vec<ParameterError>);

impl std::fmt::Display for ParameterErrors {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (index, error) in self.0.iter().enumerate() {
            if index > 0 {
                writeln!(formatter)?;
            }
            write!(formatter, "{error}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ParameterErrors {}

impl std::fmt::Display for ConfigFailure {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&crate::exit_code::message(&self.0))
    }
}

impl std::error::Error for ConfigFailure {}

/// Every module of the program.
pub fn modules() -> ModuleRegistry {
    let mut modules = motion::modules();
    modules.extend(cognition::modules());
    modules.extend(behaviours::modules());
    modules.extend(audio::modules::modules());
    modules.extend(network::modules());
    modules.extend(perception::modules::modules());
    modules
}

/// Every representation of the program.
pub fn representations() -> RepresentationRegistry {
    framework::registry()
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

/// `cortex run` starts the processes of the table without the robot's layers, then loads the
/// configuration for the robot: its layers must not change which processes there are.
pub fn check_same_processes<'a>(
    started: impl IntoIterator<Item = &'a str>,
    robot: &config::Config,
) -> Result<()> {
    let started: Vec<&str> = started.into_iter().collect();
    let robot_names: Vec<&str> = robot
        .process_table()
        .processes()
        .iter()
        .map(|process| process.name.as_str())
        .collect();
    if started != robot_names {
        return Err(anyhow::Error::new(ConfigFailure(anyhow::anyhow!(
            "{}: the robot's configuration layers change the process table ({} instead of {}); \
             processes.toml must be the same for every robot",
            robot.process_table().file().display(),
            robot_names.join(", "),
            started.join(", ")
        ))));
    }
    Ok(())
}

/// Parameters read outside the module framework, with the loader their reader uses.
fn parameter_sets(config: &config::Config) -> Vec<ParameterSet> {
    let has_bridge = config
        .process_table()
        .processes()
        .iter()
        .any(|process| process.kind == config::ProcessKind::Lola);
    let bridge = ParameterSet {
        name: "LolaBridge",
        check: |config| lola::bridge::BridgeParameters::load(config).map(drop),
    };
    has_bridge.then_some(bridge).into_iter().collect()
}

/// Everything a child would refuse, found before any starts: builds the graph, then loads and
/// checks every module's parameters (and the keyframe motions, the bridge's parameters) with
/// the loaders the children use, and checks that every `--set` names parameters that are read.
/// `cortex check` and `cortex run` (before it starts a child, and again once the robot's layers
/// are known) both call it. Errors are [`ConfigFailure`]s listing every problem.
pub fn check(config: &config::Config) -> Result<Graph> {
    let graph = graph(config)?;
    let errors = check_parameters(config, &graph, &modules(), &parameter_sets(config));
    if errors.is_empty() {
        Ok(graph)
    } else {
        Err(anyhow::Error::new(ConfigFailure(anyhow::Error::new(
            ParameterErrors(errors),
        ))))
    }
}
