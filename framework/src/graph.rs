//! The graph builder (B-Human's `ModuleGraphCreator`): from the process table and the module
//! declarations it computes, once, before any process starts:
//!
//! - for each process, the order of its providers (topological over `requires`; a cycle is an
//!   error that names it);
//! - for each representation provided in a process, a channel to every process that requires or
//!   uses it (possibly none: the debug link and `cortex get` read any channel);
//! - channel names with the instance alias of processes of one kind (`perception.upper`
//!   provides `upper.BallPercept`);
//! - errors for a representation nobody provides, two providers in one process, an unknown module
//!   or representation, a module configured for something it does not provide, a cycle, a bad or
//!   ambiguous alias, a default representation that is also provided — each naming the file and
//!   line, the process and the module.
//!
//! ```text
//!  processes.toml ─┐
//!                  ├─► build() ─► Graph { processes: [ProcessPlan { order, inbound, outbound }],
//!  declarations  ──┘                      channels: [ChannelPlan { name, producer, consumers }] }
//! ```

// The builder runs once before any process starts, and its errors carry the whole context a
// person needs (file, line, process, module, candidates); their size costs nothing here.
#![allow(clippy::result_large_err)]

use super::module::{Declaration, ModuleRegistry};
use super::representation::RepresentationRegistry;
use config::{Origin, ProcessKind, ProcessSpec, ProcessTable, Schedule};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// What the `lola` bridge provides and reads: it runs no modules, but its channels are wired
/// like everyone else's.
pub const LOLA_PROVIDES: [&str; 2] = ["SensorData", "RobotIdentity"];
/// What the `lola` bridge reads (the newest value, no ordering).
pub const LOLA_USES: [&str; 2] = ["JointRequest", "LedRequest"];

/// What the simulator (`cortex simulator`, outside the process table) publishes: a module
/// reads it like any other input, from a channel of the same name that the supervisor makes;
/// without `--sim` nobody writes it and readers keep its default value.
pub const SIMULATOR_PROVIDES: [&str; 1] = ["GroundTruth"];
/// The producer the graph names for [`SIMULATOR_PROVIDES`] (not a process of the table).
pub const SIMULATOR_PRODUCER: &str = "the simulator";

/// The fixed interface of a process kind that has no module-configured providers.
fn builtin_interface(kind: ProcessKind) -> (&'static [&'static str], &'static [&'static str]) {
    match kind {
        ProcessKind::Lola => (&LOLA_PROVIDES, &LOLA_USES),
        _ => (&[], &[]),
    }
}

/// One step of a process's tick: a module and the representations it provides there, in its
/// declaration order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderStep {
    /// The module.
    pub module: String,
    /// What it provides in this process.
    pub representations: Vec<String>,
}

/// A channel a process reads.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Inbound {
    /// The channel's name (`SensorData`, `upper.BallPercept`).
    pub channel: String,
    /// The representation it carries.
    pub representation: String,
}

/// Everything one process needs to run.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcessPlan {
    /// Instance name.
    pub name: String,
    /// Kind.
    pub kind: ProcessKind,
    /// Providers in execution order.
    pub order: Vec<ProviderStep>,
    /// Channels read at the start of each tick, sorted by name.
    pub inbound: Vec<Inbound>,
    /// Channels written at the end of each tick, sorted by name.
    pub outbound: Vec<String>,
    /// The outbound channels another process reads, sorted by name: encoded and published
    /// every tick. The others are encoded and published only while someone watches them
    /// (`cortex get`, the debug link): "published while subscribed".
    pub outbound_read: Vec<String>,
    /// Channels whose publish wakes the process (empty for rate-driven processes).
    pub triggers: Vec<String>,
    /// Representations that exist here with their default value.
    pub defaults: Vec<String>,
}

impl ProcessPlan {
    /// Every representation the process's blackboard holds.
    pub fn representations(&self) -> BTreeSet<String> {
        let mut all: BTreeSet<String> = self.defaults.iter().cloned().collect();
        all.extend(
            self.inbound
                .iter()
                .map(|inbound| inbound.representation.clone()),
        );
        all.extend(
            self.order
                .iter()
                .flat_map(|step| step.representations.iter().cloned()),
        );
        all
    }
}

/// A channel between processes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelPlan {
    /// Its name: the representation, prefixed with the producer's instance alias if it has one.
    pub name: String,
    /// The representation it carries.
    pub representation: String,
    /// The process that publishes it.
    pub producer: String,
    /// The processes that read it, sorted.
    pub consumers: Vec<String>,
}

/// The result of the graph builder.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    /// One plan per process, in table order.
    pub processes: Vec<ProcessPlan>,
    /// All channels, sorted by name.
    pub channels: Vec<ChannelPlan>,
}

impl Graph {
    /// The plan of the process named `name`.
    pub fn process(&self, name: &str) -> Option<&ProcessPlan> {
        self.processes.iter().find(|process| process.name == name)
    }

    /// The channel named `name`.
    pub fn channel(&self, name: &str) -> Option<&ChannelPlan> {
        self.channels.iter().find(|channel| channel.name == name)
    }
}

impl fmt::Display for Graph {
    /// The report of `cortex check`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for process in &self.processes {
            writeln!(f, "{} ({})", process.name, process.kind)?;
            if process.order.is_empty() {
                writeln!(f, "  providers: none")?;
            }
            for (index, step) in process.order.iter().enumerate() {
                writeln!(
                    f,
                    "  {:>2}. {} -> {}",
                    index + 1,
                    step.module,
                    step.representations.join(", ")
                )?;
            }
            if !process.defaults.is_empty() {
                writeln!(f, "  defaults: {}", process.defaults.join(", "))?;
            }
            let inbound: Vec<&str> = process.inbound.iter().map(|i| i.channel.as_str()).collect();
            writeln!(
                f,
                "  in:  {}",
                if inbound.is_empty() {
                    "-".to_owned()
                } else {
                    inbound.join(", ")
                }
            )?;
            let outbound = if process.outbound.is_empty() {
                "-".to_owned()
            } else {
                process.outbound.join(", ")
            };
            writeln!(f, "  out: {outbound}")?;
            if !process.triggers.is_empty() {
                writeln!(f, "  woken by: {}", process.triggers.join(", "))?;
            }
        }
        writeln!(f, "channels:")?;
        for channel in &self.channels {
            writeln!(
                f,
                "  {}: {} -> {}",
                channel.name,
                channel.producer,
                if channel.consumers.is_empty() {
                    "- (published only while watched: cortex get)".to_owned()
                } else {
                    channel.consumers.join(", ")
                }
            )?;
        }
        Ok(())
    }
}

/// Why a process table and the module declarations do not make a graph. Each names the place in
/// the configuration, the process, and the module or representation at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    /// A representation name nobody declared.
    #[error(
        "{origin}: process `{process}`: unknown representation `{representation}`{}",
        known_hint(known)
    )]
    UnknownRepresentation {
        /// Where it is named.
        origin: Origin,
        /// The process.
        process: String,
        /// The name.
        representation: String,
        /// Names that are close, or all names.
        known: Vec<String>,
    },
    /// A module declares a representation the program does not register.
    #[error("{origin}: process `{process}`: module `{module}` reads `{representation}`, which is not a registered representation")]
    UnknownDeclared {
        /// The process entry.
        origin: Origin,
        /// The process.
        process: String,
        /// The module.
        module: String,
        /// The name.
        representation: String,
    },
    /// A module name the program does not have.
    #[error(
        "{origin}: process `{process}`: unknown module `{module}` for `{representation}`{}",
        known_hint(known)
    )]
    UnknownModule {
        /// Where it is named.
        origin: Origin,
        /// The process.
        process: String,
        /// The module name.
        module: String,
        /// The representation it was chosen for.
        representation: String,
        /// Names that are close, or all names.
        known: Vec<String>,
    },
    /// A module chosen for a representation it does not declare.
    #[error("{origin}: process `{process}`: module `{module}` does not provide `{representation}` (it provides: {})", list(provides))]
    NotProvidedByModule {
        /// Where it is chosen.
        origin: Origin,
        /// The process.
        process: String,
        /// The module.
        module: String,
        /// The representation.
        representation: String,
        /// What the module does provide.
        provides: Vec<String>,
    },
    /// Two providers for one representation in one process.
    #[error("{origin}: process `{process}`: `{representation}` has two providers, `{first}` and `{second}`")]
    TwoProviders {
        /// Where the second is given.
        origin: Origin,
        /// The process.
        process: String,
        /// The representation.
        representation: String,
        /// The first provider.
        first: String,
        /// The second provider.
        second: String,
    },
    /// Required or used, provided nowhere.
    #[error("{origin}: process `{process}`: `{reader}` requires `{representation}`, which no process provides and which is not a default")]
    MissingProvider {
        /// The process entry.
        origin: Origin,
        /// The process.
        process: String,
        /// The module (or trigger) that reads it.
        reader: String,
        /// The representation.
        representation: String,
    },
    /// A cycle of `requires` inside one process.
    #[error("{origin}: process `{process}`: the providers form a cycle: {}", cycle.join(" -> "))]
    Cycle {
        /// The process entry.
        origin: Origin,
        /// The process.
        process: String,
        /// The modules of the cycle, the first repeated at the end.
        cycle: Vec<String>,
    },
    /// An alias (`upper.BallPercept`) that names no instance providing the representation.
    #[error("{origin}: process `{process}`: bad alias `{alias}`: {reason}")]
    BadAlias {
        /// Where it is written.
        origin: Origin,
        /// The process.
        process: String,
        /// The alias.
        alias: String,
        /// What is wrong.
        reason: String,
    },
    /// More than one process provides what a process reads, and it did not say which.
    #[error(
        "{origin}: process `{process}`: `{representation}` is provided by {} — name one, e.g. `{}`",
        list(candidates),
        suggestion
    )]
    Ambiguous {
        /// The process entry.
        origin: Origin,
        /// The process.
        process: String,
        /// The representation.
        representation: String,
        /// The channels that could be meant.
        candidates: Vec<String>,
        /// A qualified name to use.
        suggestion: String,
    },
    /// A default representation that a provider also provides.
    #[error("{origin}: process `{process}`: `{representation}` is a default representation but is also provided by `{provider}`")]
    DefaultAlsoProvided {
        /// Where the default is given.
        origin: Origin,
        /// The process.
        process: String,
        /// The representation.
        representation: String,
        /// The provider (`module in process`).
        provider: String,
    },
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "nothing".to_owned()
    } else {
        items
            .iter()
            .map(|item| format!("`{item}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn known_hint(known: &[String]) -> String {
    if known.is_empty() {
        String::new()
    } else {
        format!(" (known: {})", known.join(", "))
    }
}

/// Names in `all` that resemble `name` (same prefix, or contain one another); all if none do.
fn similar(name: &str, all: impl Iterator<Item = &'static str>) -> Vec<String> {
    let all: Vec<&str> = all.collect();
    let lower = name.to_lowercase();
    let close: Vec<String> = all
        .iter()
        .filter(|candidate| {
            let candidate = candidate.to_lowercase();
            candidate.contains(&lower)
                || lower.contains(&candidate)
                || candidate.chars().take(4).eq(lower.chars().take(4))
        })
        .map(|s| s.to_string())
        .collect();
    if close.is_empty() {
        all.iter().map(|s| s.to_string()).collect()
    } else {
        close
    }
}

/// The instance alias of a process name: `upper` for `perception.upper`, none for `motion`.
pub fn instance_alias(process: &str) -> Option<&str> {
    process.split_once('.').map(|(_, instance)| instance)
}

/// The name of the channel carrying `representation` from `process`.
pub fn channel_name(process: &str, representation: &str) -> String {
    match instance_alias(process) {
        Some(instance) => format!("{instance}.{representation}"),
        None => representation.to_owned(),
    }
}

/// What one process provides, with the origin of each entry.
struct Provided<'a> {
    /// representation → (module, origin); `None` module for built-ins.
    by_representation: BTreeMap<String, (Option<String>, Origin)>,
    spec: &'a ProcessSpec,
}

/// Builds the graph.
pub fn build(
    table: &ProcessTable,
    modules: &ModuleRegistry,
    representations: &RepresentationRegistry,
) -> Result<Graph, GraphError> {
    let specs = table.processes();
    let mut provided: Vec<Provided<'_>> = Vec::new();
    for spec in specs {
        provided.push(check_providers(spec, modules, representations)?);
    }
    check_defaults(&provided, representations)?;

    let mut plans = Vec::new();
    // channel name → (representation, producer, consumers)
    let mut channels: BTreeMap<String, ChannelPlan> = BTreeMap::new();
    for (index, process) in provided.iter().enumerate() {
        let spec = process.spec;
        let order = order_providers(process, modules)?;
        let mut inbound: BTreeSet<Inbound> = BTreeSet::new();
        let local = |representation: &str| {
            process.by_representation.contains_key(representation)
                || spec
                    .defaults
                    .iter()
                    .any(|default| default.value == representation)
        };
        // Everything the modules (or the built-in interface) read from elsewhere.
        let mut reads: Vec<(String, &'static str)> = Vec::new();
        for step in &order {
            let declaration = &modules.get(&step.module).expect("checked").declaration;
            for &representation in declaration.requires.iter().chain(&declaration.uses) {
                check_known(representation, spec, &step.module, representations)?;
                if !local(representation) {
                    reads.push((step.module.clone(), representation));
                }
            }
            for input in &declaration.qualified {
                check_known(input.representation, spec, &step.module, representations)?;
                if Some(input.instance) == instance_alias(&spec.name) {
                    // Its own instance's value: read like an unqualified one.
                    if !local(input.representation) {
                        reads.push((step.module.clone(), input.representation));
                    }
                    continue;
                }
                let qualified = format!("{}.{}", input.instance, input.representation);
                let channel = resolve_alias(
                    &provided,
                    index,
                    input.instance,
                    input.representation,
                    |reason| GraphError::BadAlias {
                        origin: spec.origin(),
                        process: spec.name.clone(),
                        alias: format!("{qualified} (read by module `{}`)", step.module),
                        reason,
                    },
                )?;
                inbound.insert(Inbound {
                    channel,
                    representation: input.representation.to_owned(),
                });
            }
        }
        let (_, builtin_uses) = builtin_interface(spec.kind);
        for &representation in builtin_uses {
            if !local(representation) {
                reads.push((format!("the {} bridge", spec.kind), representation));
            }
        }
        for (reader, representation) in reads {
            let channel = resolve_source(&provided, index, representation, &reader)?;
            inbound.insert(Inbound {
                channel,
                representation: representation.to_owned(),
            });
        }
        let mut triggers = Vec::new();
        if let Schedule::Trigger {
            representations: names,
            ..
        } = &spec.schedule
        {
            for name in names {
                let (channel, representation) =
                    resolve_trigger(&provided, index, name, representations)?;
                inbound.insert(Inbound {
                    channel: channel.clone(),
                    representation,
                });
                triggers.push(channel);
            }
        }
        for entry in &inbound {
            let producer = provided
                .iter()
                .find(|other| {
                    channel_name(&other.spec.name, &entry.representation) == entry.channel
                        && other.by_representation.contains_key(&entry.representation)
                })
                .map_or_else(
                    || {
                        assert!(SIMULATOR_PROVIDES.contains(&entry.representation.as_str()));
                        SIMULATOR_PRODUCER.to_owned()
                    },
                    |producer| producer.spec.name.clone(),
                );
            channels
                .entry(entry.channel.clone())
                .or_insert_with(|| ChannelPlan {
                    name: entry.channel.clone(),
                    representation: entry.representation.clone(),
                    producer,
                    consumers: Vec::new(),
                })
                .consumers
                .push(spec.name.clone());
        }
        plans.push(ProcessPlan {
            name: spec.name.clone(),
            kind: spec.kind,
            order,
            inbound: inbound.into_iter().collect(),
            outbound: Vec::new(),
            outbound_read: Vec::new(),
            triggers,
            defaults: spec
                .defaults
                .iter()
                .map(|default| default.value.clone())
                .collect(),
        });
    }
    // Everything provided is shared, read by a process or not: the debug link and `cortex get`
    // read any channel (`docs/architecture.md` §1).
    for process in &provided {
        for representation in process.by_representation.keys() {
            let name = channel_name(&process.spec.name, representation);
            channels.entry(name.clone()).or_insert_with(|| ChannelPlan {
                name,
                representation: representation.clone(),
                producer: process.spec.name.clone(),
                consumers: Vec::new(),
            });
        }
    }
    for channel in channels.values_mut() {
        channel.consumers.sort();
        channel.consumers.dedup();
        if channel.producer == SIMULATOR_PRODUCER {
            continue;
        }
        let producer = plans
            .iter_mut()
            .find(|plan| plan.name == channel.producer)
            .expect("a process");
        producer.outbound.push(channel.name.clone());
        if !channel.consumers.is_empty() {
            producer.outbound_read.push(channel.name.clone());
        }
    }
    for plan in &mut plans {
        plan.outbound.sort();
        plan.outbound_read.sort();
    }
    Ok(Graph {
        processes: plans,
        channels: channels.into_values().collect(),
    })
}

fn check_known(
    representation: &str,
    spec: &ProcessSpec,
    module: &str,
    representations: &RepresentationRegistry,
) -> Result<(), GraphError> {
    if representations.get(representation).is_some() {
        return Ok(());
    }
    Err(GraphError::UnknownDeclared {
        origin: spec.origin(),
        process: spec.name.clone(),
        module: module.to_owned(),
        representation: representation.to_owned(),
    })
}

fn check_providers<'a>(
    spec: &'a ProcessSpec,
    modules: &ModuleRegistry,
    representations: &RepresentationRegistry,
) -> Result<Provided<'a>, GraphError> {
    let mut by_representation: BTreeMap<String, (Option<String>, Origin)> = BTreeMap::new();
    let (builtin_provides, _) = builtin_interface(spec.kind);
    for &representation in builtin_provides {
        by_representation.insert(representation.to_owned(), (None, spec.origin()));
    }
    for provider in &spec.providers {
        let representation = &provider.value.representation;
        let module = &provider.value.module;
        if representations.get(representation).is_none() {
            return Err(GraphError::UnknownRepresentation {
                origin: provider.origin(),
                process: spec.name.clone(),
                representation: representation.clone(),
                known: similar(representation, representations.names()),
            });
        }
        let Some(entry) = modules.get(module) else {
            return Err(GraphError::UnknownModule {
                origin: provider.origin(),
                process: spec.name.clone(),
                module: module.clone(),
                representation: representation.clone(),
                known: similar(module, modules.names()),
            });
        };
        if !entry
            .declaration
            .provides
            .contains(&representation.as_str())
        {
            return Err(GraphError::NotProvidedByModule {
                origin: provider.origin(),
                process: spec.name.clone(),
                module: module.clone(),
                representation: representation.clone(),
                provides: entry
                    .declaration
                    .provides
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
            });
        }
        if let Some((first, _)) = by_representation.get(representation) {
            return Err(GraphError::TwoProviders {
                origin: provider.origin(),
                process: spec.name.clone(),
                representation: representation.clone(),
                first: first
                    .clone()
                    .unwrap_or_else(|| format!("the {} bridge", spec.kind)),
                second: module.clone(),
            });
        }
        by_representation.insert(
            representation.clone(),
            (Some(module.clone()), provider.origin()),
        );
    }
    Ok(Provided {
        by_representation,
        spec,
    })
}

fn check_defaults(
    provided: &[Provided<'_>],
    representations: &RepresentationRegistry,
) -> Result<(), GraphError> {
    for process in provided {
        for default in &process.spec.defaults {
            if representations.get(&default.value).is_none() {
                return Err(GraphError::UnknownRepresentation {
                    origin: default.origin(),
                    process: process.spec.name.clone(),
                    representation: default.value.clone(),
                    known: similar(&default.value, representations.names()),
                });
            }
            for other in provided {
                if let Some((module, _)) = other.by_representation.get(&default.value) {
                    let module = module
                        .clone()
                        .unwrap_or_else(|| format!("the {} bridge", other.spec.kind));
                    return Err(GraphError::DefaultAlsoProvided {
                        origin: default.origin(),
                        process: process.spec.name.clone(),
                        representation: default.value.clone(),
                        provider: format!("{module}` in process `{}", other.spec.name),
                    });
                }
            }
        }
    }
    Ok(())
}

/// The modules of a process in an order where every module runs after the providers of what
/// it requires. Ties keep the order of the providers table.
fn order_providers(
    process: &Provided<'_>,
    modules: &ModuleRegistry,
) -> Result<Vec<ProviderStep>, GraphError> {
    let spec = process.spec;
    let mut module_names: Vec<String> = Vec::new();
    for provider in &spec.providers {
        if !module_names.contains(&provider.value.module) {
            module_names.push(provider.value.module.clone());
        }
    }
    let declaration =
        |module: &str| -> &Declaration { &modules.get(module).expect("checked").declaration };
    // Edges: provider of a required representation → the requiring module.
    let mut predecessors: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let own_instance = instance_alias(&spec.name);
    for module in &module_names {
        let entry = predecessors.entry(module.as_str()).or_default();
        let declaration = declaration(module);
        let own_qualified = declaration
            .qualified
            .iter()
            .filter(|input| input.required && Some(input.instance) == own_instance)
            .map(|input| &input.representation);
        for required in declaration.requires.iter().chain(own_qualified) {
            if let Some((Some(provider), _)) = process.by_representation.get(*required) {
                entry.insert(provider.as_str());
            }
        }
    }
    let mut order: Vec<&str> = Vec::new();
    let mut remaining: Vec<&str> = module_names.iter().map(String::as_str).collect();
    while !remaining.is_empty() {
        let ready = remaining
            .iter()
            .position(|module| predecessors[module].iter().all(|p| order.contains(p)));
        match ready {
            Some(position) => order.push(remaining.remove(position)),
            None => {
                return Err(GraphError::Cycle {
                    origin: spec.origin(),
                    process: spec.name.clone(),
                    cycle: find_cycle(&remaining, &predecessors),
                })
            }
        }
    }
    Ok(order
        .into_iter()
        .map(|module| ProviderStep {
            module: module.to_owned(),
            representations: declaration(module)
                .provides
                .iter()
                .filter(|representation| {
                    matches!(process.by_representation.get(**representation), Some((Some(m), _)) if m == module)
                })
                .map(|s| s.to_string())
                .collect(),
        })
        .collect())
}

/// A cycle among `remaining` (each has a predecessor among them): follow predecessors until a
/// module repeats, then report it in execution direction.
fn find_cycle(remaining: &[&str], predecessors: &BTreeMap<&str, BTreeSet<&str>>) -> Vec<String> {
    let mut path: Vec<&str> = vec![remaining[0]];
    loop {
        let current = *path.last().expect("non-empty");
        let next = predecessors[current]
            .iter()
            .find(|p| remaining.contains(p))
            .copied()
            .expect("every remaining module waits for another remaining one");
        if let Some(start) = path.iter().position(|m| *m == next) {
            let mut cycle: Vec<String> =
                path[start..].iter().rev().map(|s| s.to_string()).collect();
            cycle.push(cycle[0].clone());
            return cycle;
        }
        path.push(next);
    }
}

/// The channel a process reads `representation` from.
fn resolve_source(
    provided: &[Provided<'_>],
    reader_index: usize,
    representation: &str,
    reader: &str,
) -> Result<String, GraphError> {
    let spec = provided[reader_index].spec;
    let candidates: Vec<String> = provided
        .iter()
        .enumerate()
        .filter(|(index, other)| {
            *index != reader_index && other.by_representation.contains_key(representation)
        })
        .map(|(_, other)| channel_name(&other.spec.name, representation))
        .collect();
    match candidates.len() {
        0 if SIMULATOR_PROVIDES.contains(&representation) => Ok(representation.to_owned()),
        0 => Err(GraphError::MissingProvider {
            origin: spec.origin(),
            process: spec.name.clone(),
            reader: reader.to_owned(),
            representation: representation.to_owned(),
        }),
        1 => Ok(candidates.into_iter().next().expect("one")),
        _ => Err(GraphError::Ambiguous {
            origin: spec.origin(),
            process: spec.name.clone(),
            representation: representation.to_owned(),
            suggestion: candidates[0].clone(),
            candidates,
        }),
    }
}

/// The channel and representation of a trigger name (`SensorData` or `upper.BallPercept`).
fn resolve_trigger(
    provided: &[Provided<'_>],
    reader_index: usize,
    name: &config::Located<String>,
    representations: &RepresentationRegistry,
) -> Result<(String, String), GraphError> {
    let spec = provided[reader_index].spec;
    let Some((alias, representation)) = name.value.split_once('.') else {
        if representations.get(&name.value).is_none() {
            return Err(GraphError::UnknownRepresentation {
                origin: name.origin(),
                process: spec.name.clone(),
                representation: name.value.clone(),
                known: similar(&name.value, representations.names()),
            });
        }
        let channel = resolve_source(provided, reader_index, &name.value, "its trigger")?;
        return Ok((channel, name.value.clone()));
    };
    let bad = |reason: String| GraphError::BadAlias {
        origin: name.origin(),
        process: spec.name.clone(),
        alias: name.value.clone(),
        reason,
    };
    if representations.get(representation).is_none() {
        return Err(bad(format!("`{representation}` is not a representation")));
    }
    let channel = resolve_alias(provided, reader_index, alias, representation, bad)?;
    Ok((channel, representation.to_owned()))
}

/// The channel `alias.representation` read by process `reader_index`: the instance must exist,
/// be another process, and provide the representation; otherwise `bad` with the reason.
fn resolve_alias(
    provided: &[Provided<'_>],
    reader_index: usize,
    alias: &str,
    representation: &str,
    bad: impl Fn(String) -> GraphError,
) -> Result<String, GraphError> {
    let instances: Vec<&str> = provided
        .iter()
        .filter_map(|p| instance_alias(&p.spec.name))
        .collect();
    let Some(producer) = provided
        .iter()
        .enumerate()
        .find(|(_, p)| instance_alias(&p.spec.name) == Some(alias))
    else {
        return Err(bad(format!(
            "no process instance is called `{alias}` (instances: {})",
            if instances.is_empty() {
                "none".to_owned()
            } else {
                instances.join(", ")
            }
        )));
    };
    if producer.0 == reader_index {
        return Err(bad("a process cannot read its own channel".to_owned()));
    }
    if !producer.1.by_representation.contains_key(representation) {
        return Err(bad(format!(
            "process `{}` does not provide `{representation}`",
            producer.1.spec.name
        )));
    }
    Ok(channel_name(&producer.1.spec.name, representation))
}
