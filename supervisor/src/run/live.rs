//! Changing what runs while the robot stands: `cortex reload` (a new plan generation from the
//! live configuration folder, checked as `cortex run` checks it, then every child but the
//! bridge restarted one after another), `cortex set` (one module parameter, checked like a
//! file, handed to the running processes through their parameter channels) and `cortex params`
//! (a module's parameters and where each value came from).
//!
//! The supervisor keeps the overrides in force: the `--set` list of `cortex run`, then every
//! accepted `cortex set`. A child started or restarted later gets them all, so a value set live
//! survives `cortex restart` and `cortex reload`.

use super::child::State;
use super::Supervisor;
use crate::exit_code::{self, Failure};
use crate::plan_store;
use crate::program::{self, ConfigFailure};
use anyhow::{anyhow, Context, Result};
use config::{Origin, Override, OverrideTarget, ProcessKind};
use framework::live_parameters::{ParameterUpdate, CHANNEL_BYTES};
use framework::Graph;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::path::Path;
use std::time::{Duration, Instant};

/// How long a reload waits for one restarted child to tick before it goes on to the next.
const RELOAD_STEP_TIMEOUT: Duration = Duration::from_secs(30);

/// The overrides in force.
#[derive(Debug, Clone, Default)]
pub(super) struct Overrides {
    /// `cortex run --set …`, as given.
    pub(super) command_line: Vec<String>,
    /// Every accepted `cortex set`, oldest first (a later one for the same key replaces it).
    pub(super) live: Vec<String>,
}

impl Overrides {
    /// All of them, in the order they apply.
    pub(super) fn all(&self) -> Vec<String> {
        self.command_line
            .iter()
            .chain(&self.live)
            .cloned()
            .collect()
    }

    /// `message` with `cortex set`'s overrides called what they are (the config crate calls
    /// every override a command-line `--set`).
    fn describe(&self, message: String) -> String {
        self.live.iter().fold(message, |text, item| {
            text.replace(
                &format!("command-line override `--set {item}`"),
                &format!("`cortex set {item}`"),
            )
        })
    }
}

/// A reload restarting the children one after another.
#[derive(Debug)]
pub(super) struct Reloading {
    /// The children still to restart, in start order.
    queue: VecDeque<usize>,
    /// The child being restarted: its index, when it was asked, its pid before.
    current: Option<(usize, Instant, u32)>,
}

impl Supervisor {
    /// The current generation's configuration for this robot with `overrides`.
    fn plan_config(&self, overrides: &[String]) -> Result<config::Config> {
        let root = self.plans.config_root(self.plans.current());
        program::load_config(&root, self.identity_ref(), overrides)
    }

    pub(super) fn identity_ref(&self) -> Option<(&str, &str)> {
        self.identity
            .as_ref()
            .map(|(body, head)| (body.as_str(), head.as_str()))
    }

    /// A refused request: the error (each cause once, `cortex set` named as such) and the exit
    /// status the client ends with.
    fn refusal(&self, error: &anyhow::Error) -> Value {
        json!({
            "error": self.overrides.describe(exit_code::message(error)),
            "exit_code": exit_code::of(error),
        })
    }

    /// `cortex reload`.
    pub(super) fn request_reload(&mut self) -> Value {
        match self.reload() {
            Ok(reply) => reply,
            Err(error) => {
                tracing::warn!(
                    "reload refused: {}",
                    self.overrides.describe(exit_code::message(&error))
                );
                self.refusal(&error)
            }
        }
    }

    fn reload(&mut self) -> Result<Value> {
        if let Some(reason) = &self.safe_state {
            return Err(anyhow!(
                "the robot is in the safe state ({reason}): stop the instance and start it again"
            ));
        }
        if self.reload.is_some() {
            return Err(anyhow!(
                "a reload is still restarting the processes; try again when it is done"
            ));
        }
        let overrides = self.overrides.all();
        // Checked where people edit it, so that every error names the file they edit.
        let live = program::load_config(&self.config_root, self.identity_ref(), &overrides)?;
        self.check_same_processes(&live)?;
        program::check(&live)?;
        let generation = self.plans.snapshot(&self.config_root, None)?;
        let checked = (|| {
            let config = program::load_config(
                &self.plans.config_root(generation),
                self.identity_ref(),
                &overrides,
            )?;
            self.check_same_processes(&config)?;
            let graph = program::check(&config)?;
            Ok::<_, anyhow::Error>((config, graph))
        })();
        let (config, graph) = match checked {
            Ok(checked) => checked,
            Err(error) => {
                self.plans.discard(generation);
                return Err(error.context(
                    "the configuration changed while it was copied (checked, then changed?); \
                     nothing was reloaded",
                ));
            }
        };
        let old_root = self.plans.config_root(self.plans.current());
        let (added, removed, changed) =
            plan_store::differences(&old_root, &self.plans.config_root(generation))?;
        if added.is_empty() && removed.is_empty() && changed.is_empty() {
            self.plans.discard(generation);
            tracing::info!("reload: no file changed; nothing restarted");
            return Ok(json!({
                "generation": self.plans.current(),
                "added": added, "removed": removed, "changed": changed,
                "restarting": [],
            }));
        }
        let prepared = self
            .plans
            .write_graph(generation, &graph.to_string())
            .and_then(|()| self.apply_plan(&config, &graph));
        if let Err(error) = prepared {
            self.plans.discard(generation);
            return Err(error);
        }
        self.plans.make_current(generation);
        self.graph = Some(graph);
        let queue: VecDeque<usize> = (0..self.children.len())
            .filter(|&index| {
                let child = &self.children[index];
                child.kind != ProcessKind::Lola && child.state == State::Running
            })
            .collect();
        let restarting: Vec<Value> = queue
            .iter()
            .map(|&index| json!({ "process": self.children[index].name, "pid": self.children[index].pid }))
            .collect();
        let bridge_files = added
            .iter()
            .chain(&removed)
            .chain(&changed)
            .any(|file| file.ends_with("LolaBridge.toml"));
        tracing::info!(
            "reload: plan generation {generation} (added {added:?}, removed {removed:?}, \
             changed {changed:?}); restarting {} processes one after another, the bridge keeps \
             the robot standing",
            queue.len()
        );
        if bridge_files {
            tracing::warn!(
                "reload: LolaBridge.toml changed; the bridge is not restarted (the robot must \
                 stay standing): it reads the new file when it next starts"
            );
        }
        self.reload = Some(Reloading {
            queue,
            current: None,
        });
        Ok(json!({
            "generation": generation,
            "added": added, "removed": removed, "changed": changed,
            "restarting": restarting,
            "bridge_not_restarted": bridge_files,
        }))
    }

    /// A reload may change anything of the table but which processes exist (their segments,
    /// health slots and order are made once, at start).
    fn check_same_processes(&self, config: &config::Config) -> Result<()> {
        let running: Vec<&str> = self.children.iter().map(|c| c.name.as_str()).collect();
        let planned: Vec<&str> = config
            .process_table()
            .processes()
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        if running != planned {
            return Err(anyhow::Error::new(ConfigFailure(anyhow!(
                "{}: the process table names the processes {} but {} run: `cortex reload` cannot \
                 add, remove or reorder processes; stop the instance and `cortex run` again",
                config.process_table().file().display(),
                planned.join(", "),
                running.join(", ")
            ))));
        }
        Ok(())
    }

    /// Restarts the next child of a reload once the previous one ticks again (called by the
    /// supervision loop).
    pub(super) fn advance_reload(&mut self) {
        let Some(reload) = self.reload.as_mut() else {
            return;
        };
        if let Some((index, asked, old_pid)) = reload.current {
            let child = &self.children[index];
            let ticking = child.pid != old_pid
                && child.state == State::Running
                && matches!(self.board.read(child.slot), Ok(Some(record)) if record.pid == child.pid && record.ticks > 0);
            let given_up = matches!(child.state, State::Failed(_) | State::Stopped);
            if !ticking && !given_up && asked.elapsed() < RELOAD_STEP_TIMEOUT {
                return;
            }
            if !ticking {
                tracing::warn!(
                    process = %child.name,
                    "reload: {} is not ticking {:?} after its restart; going on",
                    child.name,
                    asked.elapsed()
                );
            }
            reload.current = None;
        }
        if self.safe_state.is_some() {
            self.reload = None;
            return;
        }
        while let Some(index) = reload.queue.pop_front() {
            let child = &mut self.children[index];
            if child.state != State::Running {
                // Backing off: it starts with the new generation anyway.
                continue;
            }
            child.restart_requested = true;
            self.takeover.disarm(index);
            child.signal(rustix::process::Signal::TERM);
            tracing::info!(process = %child.name, "reload: restarting {}", child.name);
            reload.current = Some((index, Instant::now(), child.pid));
            return;
        }
        tracing::info!(
            "reload: done; every process runs plan generation {}",
            self.plans.current()
        );
        self.reload = None;
        self.remove_unused_generations();
    }

    /// Removes the generations no child runs any more.
    pub(super) fn remove_unused_generations(&mut self) {
        let in_use: Vec<u64> = self
            .children
            .iter()
            .filter(|child| child.process.is_some())
            .map(|child| child.generation)
            .chain(
                self.children
                    .iter()
                    .filter_map(|child| child.standby.as_ref().map(|s| s.generation)),
            )
            .collect();
        self.plans.remove_unused(&in_use);
    }

    /// `cortex set MODULE.KEY=VALUE`.
    pub(super) fn request_set(&mut self, assignment: &str) -> Value {
        match self.set(assignment) {
            Ok(reply) => reply,
            Err(error) => {
                let reply = self.refusal(&error);
                tracing::warn!("cortex set {assignment}: refused: {}", reply["error"]);
                reply
            }
        }
    }

    fn set(&mut self, assignment: &str) -> Result<Value> {
        let item = Override::parse(assignment).map_err(|error| {
            let reason = match &error {
                config::ConfigError::InvalidOverride { reason, .. } => reason.clone(),
                other => other.to_string(),
            };
            Failure::error(
                error.exit_code(),
                format!(
                    "`cortex set {}`: {reason}; refused, the old value stays",
                    assignment.escape_debug()
                ),
            )
        })?;
        let module = match item.target() {
            OverrideTarget::Module(module) => module.to_owned(),
            OverrideTarget::Settings => {
                return Err(Failure::error(
                    exit_code::EX_USAGE,
                    format!(
                        "`{assignment}`: the settings are read when a process starts; `cortex \
                         set` changes module parameters (MODULE.KEY=VALUE). Give settings to \
                         `cortex run --set`"
                    ),
                ))
            }
        };
        let processes = self.processes_running(&module)?;
        let mut live: Vec<String> = self
            .overrides
            .live
            .iter()
            .filter(|earlier| {
                Override::parse(earlier).map_or(true, |earlier| {
                    earlier.target() != item.target() || earlier.key_path() != item.key_path()
                })
            })
            .cloned()
            .collect();
        live.push(assignment.to_owned());
        let all: Vec<String> = self
            .overrides
            .command_line
            .iter()
            .chain(&live)
            .cloned()
            .collect();
        // The check `cortex check` and `cortex run` make, with the new value in place.
        let candidate = Overrides {
            command_line: self.overrides.command_line.clone(),
            live: live.clone(),
        };
        let config = self.plan_config(&all);
        let checked = config.and_then(|config| program::check(&config).map(drop));
        if let Err(error) = checked {
            return Err(Failure::error(
                exit_code::of(&error),
                format!(
                    "{}; refused, the old value stays",
                    candidate.describe(exit_code::message(&error))
                ),
            ));
        }
        let update = ParameterUpdate {
            generation: self.parameter_generation + 1,
            overrides: all,
        };
        let mut bytes = Vec::new();
        ipc::channel::encode(&update, &mut bytes).context("encoding the parameter update")?;
        if bytes.len() > CHANNEL_BYTES {
            return Err(anyhow!(
                "{} overrides take {} bytes, more than the {CHANNEL_BYTES} a parameter update may \
                 have",
                update.overrides.len(),
                bytes.len()
            ));
        }
        for (child, channel) in self.children.iter().zip(&self.parameter_channels) {
            let Some(channel) = channel else { continue };
            let published = channel
                .writer()
                .and_then(|mut writer| writer.publish(&bytes));
            if let Err(error) = published {
                tracing::error!(process = %child.name, "publishing the parameter update: {error}");
            }
        }
        self.parameter_generation = update.generation;
        self.overrides.live = live;
        tracing::info!(
            "cortex set {assignment}: accepted (update {}), for {}",
            update.generation,
            processes.join(", ")
        );
        Ok(json!({
            "set": assignment,
            "module": module,
            "processes": processes,
            "update": update.generation,
        }))
    }

    /// The processes that run `module` (which must have parameters).
    fn processes_running(&self, module: &str) -> Result<Vec<String>> {
        let modules = program::modules();
        let running: Vec<String> = self
            .graph
            .iter()
            .flat_map(|graph: &Graph| &graph.processes)
            .filter(|plan| plan.order.iter().any(|step| step.module == module))
            .map(|plan| plan.name.clone())
            .collect();
        let with_parameters = || {
            let mut names: Vec<String> = self
                .graph
                .iter()
                .flat_map(|graph: &Graph| &graph.processes)
                .flat_map(|plan| plan.order.iter().map(|step| step.module.clone()))
                .filter(|name| {
                    modules
                        .get(name)
                        .is_some_and(|entry| entry.has_parameters())
                })
                .collect();
            names.sort();
            names.dedup();
            names.join(", ")
        };
        if module == "LolaBridge" {
            return Err(Failure::error(
                exit_code::EX_USAGE,
                "LolaBridge's parameters are read by the bridge when it starts and cannot change \
                 while it holds the robot; edit LolaBridge.toml and `cortex reload`: the bridge \
                 reads it when it next starts",
            ));
        }
        match modules.get(module) {
            None => Err(Failure::error(
                exit_code::EX_USAGE,
                format!(
                    "no module `{module}` in this program; modules with parameters that run: {}",
                    with_parameters()
                ),
            )),
            Some(entry) if !entry.has_parameters() => Err(Failure::error(
                exit_code::EX_USAGE,
                format!("module `{module}` has no parameters"),
            )),
            Some(_) if running.is_empty() => Err(Failure::error(
                exit_code::EX_USAGE,
                format!(
                    "module `{module}` runs in no process of this instance; modules with \
                     parameters that run: {}",
                    with_parameters()
                ),
            )),
            Some(_) => Ok(running),
        }
    }

    /// `cortex params MODULE`.
    pub(super) fn request_params(&self, module: &str) -> Value {
        match self.params(module) {
            Ok(reply) => reply,
            Err(error) => self.refusal(&error),
        }
    }

    fn params(&self, module: &str) -> Result<Value> {
        let processes = self.processes_running(module)?;
        let config = self.plan_config(&self.overrides.all())?;
        let values = config
            .parameter_values(module)
            .map_err(|e| ConfigFailure(e.into()))?;
        let generation_root = self.plans.config_root(self.plans.current());
        let parameters: Vec<Value> = values
            .into_iter()
            .map(|value| {
                let shown = serde_json::to_value(&value.value).unwrap_or(Value::Null);
                match value.origin {
                    Origin::File { path, line } => json!({
                        "key": value.key,
                        "value": shown,
                        "source": "file",
                        "file": live_path(&path, &generation_root, &self.config_root),
                        "line": line,
                    }),
                    Origin::Override { text } => {
                        let source = if self.overrides.live.contains(&text) {
                            "cortex set"
                        } else {
                            "--set"
                        };
                        json!({
                            "key": value.key,
                            "value": shown,
                            "source": source,
                            "text": text,
                        })
                    }
                    // `Origin` may grow: say what it is.
                    #[allow(unreachable_patterns)]
                    other => json!({
                        "key": value.key,
                        "value": shown,
                        "source": other.to_string(),
                    }),
                }
            })
            .collect();
        Ok(json!({
            "module": module,
            "processes": processes,
            "generation": self.plans.current(),
            "parameters": parameters,
        }))
    }
}

/// A file of the plan generation, named as the file people edit in the live folder.
fn live_path(path: &Path, generation_root: &Path, live_root: &Path) -> String {
    match path.strip_prefix(generation_root) {
        Ok(relative) => live_root.join(relative).display().to_string(),
        Err(_) => path.display().to_string(),
    }
}
