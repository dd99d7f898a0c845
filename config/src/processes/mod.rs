//! `processes.toml`, the process table (B-Human's `threads.cfg`): which processes run, when they
//! tick, how they are watched and restarted, and which module provides each representation.
//!
//! ```toml
//! [[process]]
//! name = "motion"
//! kind = "motion"
//! trigger = ["SensorData"]    # tick on every new SensorData …
//! timeout_ms = 24             # … or after 24 ms without one
//! watchdog_ms = 40            # no heartbeat for 40 ms: the supervisor restarts it
//! priority = 55               # SCHED_FIFO
//! restart_intensity = 5       # more than 5 restarts …
//! restart_window_s = 60       # … within 60 s: safe state instead of another restart
//! memory_limit_mb = 256       # at most 256 MB of data memory (RLIMIT_DATA)
//! standby = true              # a warm standby takes over when it dies (default for motion)
//! defaults = ["FallState"]    # provided with its default value
//!
//! [process.providers]
//! JointRequest = "MotionCombinator"
//! ```
//!
//! This module checks what the table alone can tell (unique names, exactly one of `rate_hz` and
//! `trigger`, ranges, known kinds). Whether modules and representations exist, and whether the
//! providers form a graph without cycles, is the graph builder's job in `framework`; every entry
//! therefore carries its file and line ([`Located`]) so that those errors can name them too.

use std::fmt;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::error::{ConfigError, Origin};
use crate::layers::SourceFile;

mod check;
#[cfg(test)]
mod tests;

use check::{check_process, RawTable};

/// Restarts allowed within [`DEFAULT_RESTART_WINDOW`] unless a process says otherwise.
pub const DEFAULT_RESTART_INTENSITY: u32 = 5;
/// The window for [`DEFAULT_RESTART_INTENSITY`].
pub const DEFAULT_RESTART_WINDOW: Duration = Duration::from_secs(60);
/// The default freeze watchdog is this many periods (or trigger timeouts).
pub const WATCHDOG_PERIODS: u32 = 3;
/// CPU indices must be below this (glibc's `CPU_SETSIZE`).
pub const MAX_CPUS: usize = 1024;
/// The smallest `memory_limit_mb` (a process with its threads and libraries needs this much).
pub const MIN_MEMORY_LIMIT_MB: u64 = 16;
/// The largest `memory_limit_mb` (1 TiB: a larger number is a unit mistake).
pub const MAX_MEMORY_LIMIT_MB: u64 = 1 << 20;

/// A value with the file and line it was written at.
#[derive(Debug, Clone, PartialEq)]
pub struct Located<T> {
    /// The value.
    pub value: T,
    /// The file it was read from.
    pub file: PathBuf,
    /// Its 1-based line.
    pub line: usize,
}

impl<T> Located<T> {
    /// Where the value was written, for error messages.
    pub fn origin(&self) -> Origin {
        Origin::file(self.file.clone(), self.line)
    }
}

impl<T> Deref for Located<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

/// The kinds of process; each has its modules in its own crate (`motion`, `cognition`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProcessKind {
    /// The LoLA bridge.
    Lola,
    /// Camera capture and image processing.
    Perception,
    /// World model, game state, behaviour.
    Cognition,
    /// Joint targets.
    Motion,
    /// Microphones.
    Audio,
    /// The GameController and team mates over UDP.
    Network,
    /// The link to tools on a PC.
    Debug,
}

impl ProcessKind {
    /// The name used in `processes.toml`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProcessKind::Lola => "lola",
            ProcessKind::Perception => "perception",
            ProcessKind::Cognition => "cognition",
            ProcessKind::Motion => "motion",
            ProcessKind::Audio => "audio",
            ProcessKind::Network => "network",
            ProcessKind::Debug => "debug",
        }
    }
}

impl fmt::Display for ProcessKind {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// When a process ticks.
#[derive(Debug, Clone, PartialEq)]
pub enum Schedule {
    /// At a fixed rate (absolute deadlines). For the `lola` bridge this is LoLA's nominal frame
    /// rate: the bridge is paced by the frames themselves, the rate only sets its watchdog.
    Rate {
        /// Ticks per second.
        hz: f64,
    },
    /// Whenever one of these representations is published.
    Trigger {
        /// Representation names, possibly with an instance alias (`upper.BallPercept`).
        representations: Vec<Located<String>>,
        /// Tick anyway after this long without a trigger.
        timeout: Option<Duration>,
    },
}

/// How often a process may be restarted before the supervisor gives up on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestartPolicy {
    /// Restarts allowed within `window`; one more puts the robot into its safe state.
    pub intensity: u32,
    /// The sliding window.
    pub window: Duration,
}

/// One entry of a `providers` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provider {
    /// The representation, e.g. `JointRequest`.
    pub representation: String,
    /// The module that provides it in this process, e.g. `MotionCombinator`.
    pub module: String,
}

/// One entry of an `alternatives` table: the modules that may provide a representation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alternatives {
    /// The representation, e.g. `BallModel`.
    pub representation: String,
    /// The modules, the one `providers` names among them.
    pub modules: Vec<String>,
}

/// One process instance of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcessSpec {
    /// Unique instance name, e.g. `perception.upper`.
    pub name: String,
    /// What the process is.
    pub kind: ProcessKind,
    /// When it ticks.
    pub schedule: Schedule,
    /// `SCHED_FIFO` priority (1 ..= 99), or the normal scheduler.
    pub priority: Option<u8>,
    /// CPUs the process may run on; empty: any.
    pub cpus: Vec<usize>,
    /// Heartbeat deadline for the supervisor's freeze watchdog.
    pub watchdog: Duration,
    /// Restart intensity.
    pub restart: RestartPolicy,
    /// The most data memory the process may hold, MB (`RLIMIT_DATA`, set by the supervisor at
    /// spawn); `None`: no limit. A behaviour that allocates without bound gets a `MemoryError`.
    pub memory_limit_mb: Option<u64>,
    /// Whether the supervisor keeps a warm standby of this process (built, not ticking) that
    /// takes over the moment the active instance dies or freezes.
    pub standby: bool,
    /// Which module provides which representation, in file order.
    pub providers: Vec<Located<Provider>>,
    /// Other modules that may provide a representation of `providers`, switched at run time
    /// (the debug link's `switch_provider`).
    pub alternatives: Vec<Located<Alternatives>>,
    /// Representations that exist with their default value (B-Human's default representations).
    pub defaults: Vec<Located<String>>,
    /// The file of the table.
    pub file: PathBuf,
    /// The line of the entry (its `[[process]]` header).
    pub line: usize,
}

impl ProcessSpec {
    /// Where the entry starts, for error messages.
    pub fn origin(&self) -> Origin {
        Origin::file(self.file.clone(), self.line)
    }

    /// The time between ticks of a rate-driven process.
    pub fn period(&self) -> Option<Duration> {
        match self.schedule {
            // Checked when the table was read; `ok()` keeps a hand-built spec from panicking.
            Schedule::Rate { hz } => Duration::try_from_secs_f64(1.0 / hz).ok(),
            Schedule::Trigger { .. } => None,
        }
    }

    /// The module that provides `representation` in this process.
    pub fn provider_of(&self, representation: &str) -> Option<&Located<Provider>> {
        self.providers
            .iter()
            .find(|provider| provider.representation == representation)
    }
}

/// The parsed and checked `processes.toml`.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcessTable {
    file: PathBuf,
    processes: Vec<ProcessSpec>,
}

impl ProcessTable {
    /// Reads and checks a process table file.
    pub fn load(path: &Path) -> Result<ProcessTable, ConfigError> {
        ProcessTable::from_source(&SourceFile::read(path)?)
    }

    /// Parses and checks a process table given as text; `path` is used in error messages.
    pub fn parse(path: &Path, text: &str) -> Result<ProcessTable, ConfigError> {
        ProcessTable::from_source(&SourceFile::new(path, text.to_owned()))
    }

    /// A table built in code (tests of the graph builder, tools that switch modules at run time).
    /// The checks of [`ProcessTable::parse`] are not run: the specs are taken as they are,
    /// including states that no file can express, such as a representation with two providers.
    pub fn from_specs(file: &Path, processes: Vec<ProcessSpec>) -> ProcessTable {
        ProcessTable {
            file: file.to_owned(),
            processes,
        }
    }

    fn from_source(file: &SourceFile) -> Result<ProcessTable, ConfigError> {
        let raw: RawTable = file.deserialize()?;
        if raw.process.is_empty() {
            return Err(ConfigError::MissingKey {
                origin: Origin::file(file.path.clone(), 1),
                key: "process".to_owned(),
            });
        }
        let mut processes: Vec<ProcessSpec> = Vec::with_capacity(raw.process.len());
        for (index, entry) in raw.process.into_iter().enumerate() {
            let spec = check_process(file, index, entry)?;
            if let Some(first) = processes.iter().find(|other| other.name == spec.name) {
                return Err(ConfigError::Duplicate {
                    origin: spec.origin(),
                    key: format!("process[{index}].name"),
                    what: "process",
                    name: spec.name.clone(),
                    first: Box::new(first.origin()),
                });
            }
            if spec.kind == ProcessKind::Lola {
                if let Some(first) = processes.iter().find(|p| p.kind == ProcessKind::Lola) {
                    return Err(ConfigError::InvalidValue {
                        origin: spec.origin(),
                        key: format!("process[{index}].kind"),
                        message: format!(
                            "a second `lola` process (`{}`; the first is `{}` at {}): LoLA \
                             accepts one client",
                            spec.name,
                            first.name,
                            first.origin()
                        ),
                    });
                }
            }
            processes.push(spec);
        }
        Ok(ProcessTable {
            file: file.path.clone(),
            processes,
        })
    }

    /// The file the table was read from.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The processes in file order.
    pub fn processes(&self) -> &[ProcessSpec] {
        &self.processes
    }

    /// The process with this instance name.
    pub fn get(&self, name: &str) -> Option<&ProcessSpec> {
        self.processes.iter().find(|process| process.name == name)
    }
}
