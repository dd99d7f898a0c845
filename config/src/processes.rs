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
//! defaults = ["FallState"]    # provided with its default value
//!
//! [process.providers]
//! JointRequest = "MotionCombinator"
//! ```
//!
//! This module checks what the table alone can tell (unique names, exactly one of `rate_hz` and
//! `trigger`, ranges, known kinds). Whether modules and representations exist, and whether the
//! providers form a graph without cycles, is the graph builder's job in `procs`; every entry
//! therefore carries its file and line ([`Located`]) so that those errors can name them too.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use crate::error::{ConfigError, Origin};
use crate::layers::SourceFile;

/// Restarts allowed within [`DEFAULT_RESTART_WINDOW`] unless a process says otherwise.
pub const DEFAULT_RESTART_INTENSITY: u32 = 5;
/// The window for [`DEFAULT_RESTART_INTENSITY`].
pub const DEFAULT_RESTART_WINDOW: Duration = Duration::from_secs(60);
/// The default freeze watchdog is this many periods (or trigger timeouts).
pub const WATCHDOG_PERIODS: u32 = 3;
/// CPU indices must be below this (glibc's `CPU_SETSIZE`).
pub const MAX_CPUS: usize = 1024;

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

/// The kinds of process; each has its own `main` in `procs`.
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
    /// Which module provides which representation, in file order.
    pub providers: Vec<Located<Provider>>,
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
            Schedule::Rate { hz } => Some(Duration::from_secs_f64(1.0 / hz)),
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
        ProcessTable::from_source(&SourceFile {
            path: path.to_owned(),
            text: text.to_owned(),
        })
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    #[serde(default)]
    process: Vec<Spanned<RawProcess>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProcess {
    name: Spanned<String>,
    kind: ProcessKind,
    rate_hz: Option<Spanned<f64>>,
    trigger: Option<Spanned<Vec<Spanned<String>>>>,
    timeout_ms: Option<Spanned<u64>>,
    priority: Option<Spanned<i64>>,
    #[serde(default)]
    cpus: Vec<Spanned<i64>>,
    watchdog_ms: Option<Spanned<u64>>,
    restart_intensity: Option<u32>,
    restart_window_s: Option<Spanned<f64>>,
    #[serde(default)]
    providers: BTreeMap<Spanned<String>, Spanned<String>>,
    #[serde(default)]
    defaults: Vec<Spanned<String>>,
}

/// Checks one entry; `index` is its position for key paths like `process[2].rate_hz`.
fn check_process(
    file: &SourceFile,
    index: usize,
    entry: Spanned<RawProcess>,
) -> Result<ProcessSpec, ConfigError> {
    let line = file.line(entry.span().start);
    let raw = entry.into_inner();
    let name = raw.name.get_ref().clone();
    let invalid = |span_start: usize, field: &str, message: String| ConfigError::InvalidValue {
        origin: file.origin_at(span_start),
        key: format!("process[{index}].{field}"),
        message,
    };
    let at_entry = |field: &str, message: String| ConfigError::InvalidValue {
        origin: Origin::file(file.path.clone(), line),
        key: format!("process[{index}].{field}"),
        message,
    };
    if !is_process_name(&name) {
        return Err(invalid(
            raw.name.span().start,
            "name",
            format!(
                "`{name}` is not a process name: expected lower-case letters, digits, `_` and \
                 `-`, in parts separated by `.` (e.g. `perception.upper`)"
            ),
        ));
    }

    let schedule = match (raw.rate_hz, raw.trigger) {
        (Some(_), Some(_)) => {
            return Err(at_entry(
                "trigger",
                format!("process `{name}` has both `rate_hz` and `trigger`; give exactly one"),
            ))
        }
        (None, None) => {
            return Err(at_entry(
                "rate_hz",
                format!("process `{name}` has neither `rate_hz` nor `trigger`; give exactly one"),
            ))
        }
        (Some(rate), None) => {
            let hz = *rate.get_ref();
            if !(hz.is_finite() && hz > 0.0 && Duration::try_from_secs_f64(1.0 / hz).is_ok()) {
                return Err(invalid(
                    rate.span().start,
                    "rate_hz",
                    format!("expected a rate above 0 Hz, found {hz}"),
                ));
            }
            if let Some(timeout) = &raw.timeout_ms {
                return Err(invalid(
                    timeout.span().start,
                    "timeout_ms",
                    format!("process `{name}` runs at a rate; `timeout_ms` is only for `trigger`"),
                ));
            }
            Schedule::Rate { hz }
        }
        (None, Some(trigger)) => {
            if raw.kind == ProcessKind::Lola {
                return Err(invalid(
                    trigger.span().start,
                    "trigger",
                    "the `lola` bridge is paced by LoLA's frames: give its nominal `rate_hz` \
                     (83.33) instead of a trigger"
                        .to_owned(),
                ));
            }
            if trigger.get_ref().is_empty() {
                return Err(invalid(
                    trigger.span().start,
                    "trigger",
                    "expected at least one representation name".to_owned(),
                ));
            }
            let representations = check_names(
                file,
                &format!("process[{index}].trigger"),
                "trigger",
                trigger.get_ref(),
            )?;
            let timeout = match raw.timeout_ms {
                Some(timeout) if *timeout.get_ref() == 0 => {
                    return Err(invalid(
                        timeout.span().start,
                        "timeout_ms",
                        "expected a timeout of at least 1 ms".to_owned(),
                    ))
                }
                Some(timeout) => Some(Duration::from_millis(*timeout.get_ref())),
                None => None,
            };
            Schedule::Trigger {
                representations,
                timeout,
            }
        }
    };

    let priority = match raw.priority {
        Some(priority) => match u8::try_from(*priority.get_ref()) {
            Ok(value @ 1..=99) => Some(value),
            _ => {
                return Err(invalid(
                    priority.span().start,
                    "priority",
                    format!(
                        "expected a SCHED_FIFO priority from 1 to 99, found {}",
                        priority.get_ref()
                    ),
                ))
            }
        },
        None => None,
    };

    let mut cpus = Vec::with_capacity(raw.cpus.len());
    for (cpu_index, cpu) in raw.cpus.iter().enumerate() {
        let field = format!("cpus[{cpu_index}]");
        let value = match usize::try_from(*cpu.get_ref()) {
            Ok(value) if value < MAX_CPUS => value,
            _ => {
                return Err(invalid(
                    cpu.span().start,
                    &field,
                    format!(
                        "expected a CPU index from 0 to {}, found {}",
                        MAX_CPUS - 1,
                        cpu.get_ref()
                    ),
                ))
            }
        };
        if cpus.contains(&value) {
            return Err(invalid(
                cpu.span().start,
                &field,
                format!("CPU {value} is listed twice"),
            ));
        }
        cpus.push(value);
    }

    // The watchdog must allow at least one period (or trigger timeout): a shorter one would
    // fire on every healthy tick.
    let (slowest_tick, tick_name) = match &schedule {
        Schedule::Rate { hz } => (Some(Duration::from_secs_f64(1.0 / hz)), "one period"),
        Schedule::Trigger { timeout, .. } => (*timeout, "the trigger timeout"),
    };
    let watchdog = match (raw.watchdog_ms, slowest_tick) {
        (Some(watchdog), slowest) => {
            let value = Duration::from_millis(*watchdog.get_ref());
            if let Some(slowest) = slowest.filter(|slowest| value < *slowest) {
                return Err(invalid(
                    watchdog.span().start,
                    "watchdog_ms",
                    format!(
                        "the watchdog of `{name}` ({value:?}) is shorter than {tick_name} \
                         ({slowest:?}); it would fire on every healthy tick"
                    ),
                ));
            }
            if value.is_zero() {
                return Err(invalid(
                    watchdog.span().start,
                    "watchdog_ms",
                    "expected a watchdog of at least 1 ms".to_owned(),
                ));
            }
            value
        }
        (None, Some(slowest)) => slowest.saturating_mul(WATCHDOG_PERIODS),
        (None, None) => {
            return Err(at_entry(
                "watchdog_ms",
                format!(
                    "process `{name}` waits for its trigger without `timeout_ms`, so it may \
                     sleep for any time: give `timeout_ms` or `watchdog_ms`"
                ),
            ))
        }
    };

    let window = match raw.restart_window_s {
        Some(seconds) => match Duration::try_from_secs_f64(*seconds.get_ref()) {
            Ok(window) if !window.is_zero() => window,
            _ => {
                return Err(invalid(
                    seconds.span().start,
                    "restart_window_s",
                    format!(
                        "expected a window above 0 seconds, found {}",
                        seconds.get_ref()
                    ),
                ))
            }
        },
        None => DEFAULT_RESTART_WINDOW,
    };
    let restart = RestartPolicy {
        intensity: raw.restart_intensity.unwrap_or(DEFAULT_RESTART_INTENSITY),
        window,
    };

    let defaults = check_names(
        file,
        &format!("process[{index}].defaults"),
        "default representation",
        &raw.defaults,
    )?;
    let mut providers: Vec<Located<Provider>> = Vec::with_capacity(raw.providers.len());
    for (representation, module) in &raw.providers {
        let key = format!("process[{index}].providers.{}", representation.get_ref());
        let origin = file.origin_at(representation.span().start);
        if representation.get_ref().trim().is_empty() || module.get_ref().trim().is_empty() {
            return Err(ConfigError::InvalidValue {
                origin,
                key,
                message: "expected `Representation = \"Module\"` with non-empty names".to_owned(),
            });
        }
        if let Some(default) = defaults
            .iter()
            .find(|d| d.value == *representation.get_ref())
        {
            return Err(ConfigError::Duplicate {
                origin,
                key,
                what: "representation",
                name: representation.get_ref().clone(),
                first: Box::new(default.origin()),
            });
        }
        providers.push(Located {
            value: Provider {
                representation: representation.get_ref().clone(),
                module: module.get_ref().clone(),
            },
            file: file.path.clone(),
            line: file.line(representation.span().start),
        });
    }
    providers.sort_by_key(|provider| provider.line);

    Ok(ProcessSpec {
        name,
        kind: raw.kind,
        schedule,
        priority,
        cpus,
        watchdog,
        restart,
        providers,
        defaults,
        file: file.path.clone(),
        line,
    })
}

/// Non-empty, unique representation names.
fn check_names(
    file: &SourceFile,
    key: &str,
    what: &'static str,
    names: &[Spanned<String>],
) -> Result<Vec<Located<String>>, ConfigError> {
    let mut checked: Vec<Located<String>> = Vec::with_capacity(names.len());
    for (index, name) in names.iter().enumerate() {
        let origin = file.origin_at(name.span().start);
        let key = format!("{key}[{index}]");
        if name.get_ref().trim().is_empty() || name.get_ref().contains(char::is_whitespace) {
            return Err(ConfigError::InvalidValue {
                origin,
                key,
                message: format!(
                    "`{}` is not a representation name: expected e.g. `SensorData` or \
                     `upper.BallPercept`",
                    name.get_ref()
                ),
            });
        }
        if let Some(first) = checked.iter().find(|first| first.value == *name.get_ref()) {
            return Err(ConfigError::Duplicate {
                origin,
                key,
                what,
                name: name.get_ref().clone(),
                first: Box::new(first.origin()),
            });
        }
        checked.push(Located {
            value: name.get_ref().clone(),
            file: file.path.clone(),
            line: origin.line().unwrap_or(1),
        });
    }
    Ok(checked)
}

fn is_process_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ProcessTable, ConfigError> {
        ProcessTable::parse(Path::new("processes.toml"), text)
    }

    #[test]
    fn a_complete_entry_is_read_with_lines() {
        let text = r#"
[[process]]
name = "motion"
kind = "motion"
trigger = ["SensorData"]
timeout_ms = 24
watchdog_ms = 40
priority = 55
cpus = [3]
restart_intensity = 2
restart_window_s = 10
defaults = ["FallState"]

[process.providers]
JointRequest = "MotionCombinator"
Odometry = "OdometryProvider"

[[process]]
name = "perception.upper"
kind = "perception"
rate_hz = 30
"#;
        let table = parse(text).unwrap();
        let motion = table.get("motion").unwrap();
        assert_eq!(motion.line, 2);
        assert_eq!(motion.kind, ProcessKind::Motion);
        assert_eq!(motion.priority, Some(55));
        assert_eq!(motion.cpus, [3]);
        assert_eq!(motion.watchdog, Duration::from_millis(40));
        assert_eq!(
            motion.restart,
            RestartPolicy {
                intensity: 2,
                window: Duration::from_secs(10)
            }
        );
        let Schedule::Trigger {
            representations,
            timeout,
        } = &motion.schedule
        else {
            panic!("motion is triggered");
        };
        assert_eq!(representations[0].value, "SensorData");
        assert_eq!(representations[0].line, 5);
        assert_eq!(*timeout, Some(Duration::from_millis(24)));
        let joint = motion.provider_of("JointRequest").unwrap();
        assert_eq!(
            (joint.module.as_str(), joint.line),
            ("MotionCombinator", 15)
        );
        assert_eq!(motion.defaults[0].line, 12);

        let upper = table.get("perception.upper").unwrap();
        assert_eq!(upper.line, 18);
        assert_eq!(upper.schedule, Schedule::Rate { hz: 30.0 });
        // Three periods of 33.3 ms by default; default restart policy.
        assert_eq!(upper.watchdog, Duration::from_secs_f64(1.0 / 30.0) * 3);
        assert_eq!(upper.restart.intensity, DEFAULT_RESTART_INTENSITY);
        assert!(upper.providers.is_empty());
    }

    fn error_of(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn rate_and_trigger_are_exclusive() {
        let both = "[[process]]\nname = \"a\"\nkind = \"debug\"\nrate_hz = 10\ntrigger = [\"X\"]\n";
        assert_eq!(
            error_of(both),
            "processes.toml:1: key `process[0].trigger`: process `a` has both `rate_hz` and \
             `trigger`; give exactly one"
        );
        let neither = "[[process]]\nname = \"a\"\nkind = \"debug\"\n";
        assert!(error_of(neither).starts_with("processes.toml:1: key `process[0].rate_hz`"));
    }

    #[test]
    fn duplicate_names_name_both_lines() {
        let text = "[[process]]\nname = \"a\"\nkind = \"debug\"\nrate_hz = 10\n\n\
                    [[process]]\nname = \"a\"\nkind = \"audio\"\nrate_hz = 10\n";
        assert_eq!(
            error_of(text),
            "processes.toml:6: key `process[1].name`: process `a` is already given at \
             processes.toml:1"
        );
    }

    #[test]
    fn ranges_and_kinds_are_checked_at_their_line() {
        let base = "[[process]]\nname = \"a\"\nkind = \"debug\"\n";
        let cases = [
            (
                "rate_hz = 0\n",
                4,
                "process[0].rate_hz",
                "expected a rate above 0 Hz",
            ),
            (
                "rate_hz = 10\npriority = 100\n",
                5,
                "process[0].priority",
                "from 1 to 99",
            ),
            (
                "rate_hz = 10\ncpus = [1, 1]\n",
                5,
                "process[0].cpus[1]",
                "listed twice",
            ),
            (
                "rate_hz = 10\ncpus = [-1]\n",
                5,
                "process[0].cpus[0]",
                "CPU index",
            ),
            (
                "rate_hz = 10\nwatchdog_ms = 50\n",
                5,
                "process[0].watchdog_ms",
                "shorter than",
            ),
            (
                "rate_hz = 10\ntimeout_ms = 50\n",
                5,
                "process[0].timeout_ms",
                "only for",
            ),
            ("trigger = []\n", 4, "process[0].trigger", "at least one"),
            (
                "trigger = [\"A\", \"A\"]\ntimeout_ms = 5\n",
                4,
                "process[0].trigger[1]",
                "already",
            ),
            (
                "trigger = [\"A\"]\n",
                1,
                "process[0].watchdog_ms",
                "give `timeout_ms`",
            ),
            (
                "rate_hz = 1\nrestart_window_s = -1\n",
                5,
                "process[0].restart_window_s",
                "above 0",
            ),
            (
                "rate_hz = \"fast\"\n",
                4,
                "process[0].rate_hz",
                "invalid type: string",
            ),
            (
                "rate_hz = 1\nbogus = 1\n",
                5,
                "process[0].bogus",
                "unknown key",
            ),
            (
                "rate_hz = 1\ndefaults = [\"A\"]\n[process.providers]\nA = \"M\"\n",
                7,
                "process[0].providers.A",
                "representation `A` is already given at processes.toml:5",
            ),
        ];
        for (tail, line, key, message) in cases {
            let error = error_of(&format!("{base}{tail}"));
            assert!(
                error.starts_with(&format!("processes.toml:{line}:")),
                "{tail}: {error}"
            );
            assert!(error.contains(&format!("key `{key}`")), "{tail}: {error}");
            assert!(error.contains(message), "{tail}: {error}");
        }
        let kind = error_of("[[process]]\nname = \"a\"\nkind = \"vision\"\nrate_hz = 1\n");
        assert!(
            kind.starts_with("processes.toml:3: key `process[0].kind`: unknown variant `vision`"),
            "{kind}"
        );
        let name = error_of("[[process]]\nname = \"Motion\"\nkind = \"motion\"\nrate_hz = 1\n");
        assert!(
            name.starts_with("processes.toml:2: key `process[0].name`"),
            "{name}"
        );
    }

    #[test]
    fn lola_is_rate_paced_and_single() {
        let triggered = "[[process]]\nname = \"lola\"\nkind = \"lola\"\ntrigger = [\"X\"]\n";
        assert!(error_of(triggered).contains("paced by LoLA's frames"));
        let twice = "[[process]]\nname = \"lola\"\nkind = \"lola\"\nrate_hz = 83.33\n\
                     [[process]]\nname = \"lola2\"\nkind = \"lola\"\nrate_hz = 83.33\n";
        let error = error_of(twice);
        assert!(
            error.starts_with("processes.toml:5: key `process[1].kind`"),
            "{error}"
        );
        assert!(error.contains("LoLA accepts one client"), "{error}");
    }

    #[test]
    fn an_empty_table_is_an_error() {
        assert_eq!(
            error_of("# nothing\n"),
            "processes.toml:1: missing key `process`"
        );
    }
}
