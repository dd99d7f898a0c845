//! The raw shape of `processes.toml` (with spans) and the checks that turn one entry into a
//! [`ProcessSpec`].

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use super::{
    Alternatives, Located, ProcessKind, ProcessSpec, Provider, RestartPolicy, Schedule,
    DEFAULT_RESTART_INTENSITY, DEFAULT_RESTART_WINDOW, MAX_CPUS, MAX_MEMORY_LIMIT_MB,
    MIN_MEMORY_LIMIT_MB, WATCHDOG_PERIODS,
};
use crate::error::{ConfigError, Origin};
use crate::layers::SourceFile;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTable {
    #[serde(default)]
    pub process: Vec<Spanned<RawProcess>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawProcess {
    name: Spanned<String>,
    kind: ProcessKind,
    rate_hz: Option<Spanned<f64>>,
    trigger: Option<Spanned<Vec<Spanned<String>>>>,
    timeout_ms: Option<Spanned<u64>>,
    priority: Option<Spanned<i64>>,
    #[serde(default)]
    cpus: Vec<Spanned<i64>>,
    watchdog_ms: Option<Spanned<u64>>,
    restart_intensity: Option<Spanned<u32>>,
    restart_window_s: Option<Spanned<f64>>,
    memory_limit_mb: Option<Spanned<i64>>,
    standby: Option<Spanned<bool>>,
    #[serde(default)]
    providers: BTreeMap<Spanned<String>, Spanned<String>>,
    #[serde(default)]
    defaults: Vec<Spanned<String>>,
    #[serde(default)]
    alternatives: BTreeMap<Spanned<String>, Spanned<Vec<Spanned<String>>>>,
}

/// The slowest and fastest tick rates, Hz: a process slower than 0.1 Hz is not watched in any
/// useful time; one faster than 1 kHz would only burn its CPU (LoLA itself runs at 83 Hz).
pub(super) const RATE_HZ: std::ops::RangeInclusive<f64> = 0.1..=1000.0;
/// The longest trigger timeout, ms.
pub(super) const MAX_TIMEOUT_MS: u64 = 10_000;
/// The longest freeze watchdog, ms: a frozen process must be noticed within a minute.
pub(super) const MAX_WATCHDOG_MS: u64 = 60_000;
/// The most restarts a window may allow (benchmarks kill a process thousands of times).
pub(super) const MAX_RESTART_INTENSITY: u32 = 10_000;
/// The longest restart window, s.
pub(super) const MAX_RESTART_WINDOW_S: f64 = 3600.0;

/// One entry while it is checked: where it is, for error messages.
struct Entry<'a> {
    file: &'a SourceFile,
    /// Position in the table, for key paths like `process[2].rate_hz`.
    index: usize,
    /// Line of the `[[process]]` header.
    line: usize,
    name: String,
}

impl Entry<'_> {
    fn key(&self, field: &str) -> String {
        format!("process[{}].{field}", self.index)
    }

    /// A bad value at its own place.
    fn invalid<T>(&self, value: &Spanned<T>, field: &str, message: String) -> ConfigError {
        ConfigError::InvalidValue {
            origin: self.file.origin_at(value.span().start),
            key: self.key(field),
            message,
        }
    }

    /// A problem of the entry as a whole (a key missing, two keys that exclude each other).
    fn invalid_entry(&self, field: &str, message: String) -> ConfigError {
        ConfigError::InvalidValue {
            origin: Origin::file(self.file.path.clone(), self.line),
            key: self.key(field),
            message,
        }
    }

    fn located(&self, value: &Spanned<String>) -> Located<String> {
        Located {
            value: value.get_ref().clone(),
            file: self.file.path.clone(),
            line: self.file.line(value.span().start),
        }
    }
}

/// Checks one entry of the table.
pub(super) fn check_process(
    file: &SourceFile,
    index: usize,
    entry: Spanned<RawProcess>,
) -> Result<ProcessSpec, ConfigError> {
    let line = file.line(entry.span().start);
    let raw = entry.into_inner();
    let entry = Entry {
        file,
        index,
        line,
        name: raw.name.get_ref().clone(),
    };
    if !is_process_name(&entry.name) {
        return Err(entry.invalid(
            &raw.name,
            "name",
            format!(
                "`{}` is not a process name: expected lower-case letters, digits, `_` and `-`, \
                 in parts separated by `.` (e.g. `perception.upper`)",
                entry.name
            ),
        ));
    }
    let schedule = schedule(&entry, raw.kind, raw.rate_hz, raw.trigger, raw.timeout_ms)?;
    let watchdog = watchdog(&entry, &schedule, raw.watchdog_ms)?;
    let defaults = representation_names(&entry, "defaults", &raw.defaults)?;
    let providers = providers(&entry, &raw.providers, &defaults)?;
    let alternatives = alternatives(&entry, &raw.alternatives, &providers)?;
    Ok(ProcessSpec {
        kind: raw.kind,
        schedule,
        priority: priority(&entry, raw.priority)?,
        cpus: cpus(&entry, &raw.cpus)?,
        watchdog,
        restart: RestartPolicy {
            intensity: restart_intensity(&entry, raw.restart_intensity)?,
            window: restart_window(&entry, raw.restart_window_s)?,
        },
        memory_limit_mb: memory_limit(&entry, raw.memory_limit_mb)?,
        standby: standby(&entry, raw.kind, raw.standby)?,
        providers,
        alternatives,
        defaults,
        file: file.path.clone(),
        line,
        name: entry.name,
    })
}

/// `memory_limit_mb`: at least [`MIN_MEMORY_LIMIT_MB`] (a Rust process with its threads needs
/// that much before it does anything), at most [`MAX_MEMORY_LIMIT_MB`].
fn memory_limit(
    entry: &Entry<'_>,
    memory_limit_mb: Option<Spanned<i64>>,
) -> Result<Option<u64>, ConfigError> {
    let Some(value) = memory_limit_mb else {
        return Ok(None);
    };
    let megabytes = *value.get_ref();
    if !(MIN_MEMORY_LIMIT_MB as i64..=MAX_MEMORY_LIMIT_MB as i64).contains(&megabytes) {
        return Err(entry.invalid(
            &value,
            "memory_limit_mb",
            format!(
                "{megabytes} MB is out of range: expected {MIN_MEMORY_LIMIT_MB} ..= \
                 {MAX_MEMORY_LIMIT_MB} MB of data memory, or no key for no limit"
            ),
        ));
    }
    Ok(Some(megabytes as u64))
}

/// `standby`: given, or on for the kinds whose loss the robot feels at once (motion, cognition,
/// perception). The bridge cannot have one: LoLA accepts a single client.
fn standby(
    entry: &Entry<'_>,
    kind: ProcessKind,
    standby: Option<Spanned<bool>>,
) -> Result<bool, ConfigError> {
    match standby {
        None => Ok(default_standby(kind)),
        Some(value) if *value.get_ref() && kind == ProcessKind::Lola => Err(entry.invalid(
            &value,
            "standby",
            "the `lola` bridge cannot have a standby: LoLA accepts one client, and the bridge is \
             what keeps the robot safe while another process fails over; remove the key or set \
             it to false"
                .to_owned(),
        )),
        Some(value) => Ok(*value.get_ref()),
    }
}

/// Whether a process of `kind` has a warm standby when the table does not say.
pub(super) fn default_standby(kind: ProcessKind) -> bool {
    matches!(
        kind,
        ProcessKind::Motion | ProcessKind::Cognition | ProcessKind::Perception
    )
}

/// Exactly one of `rate_hz` and `trigger`; `timeout_ms` only with `trigger`.
fn schedule(
    entry: &Entry<'_>,
    kind: ProcessKind,
    rate_hz: Option<Spanned<f64>>,
    trigger: Option<Spanned<Vec<Spanned<String>>>>,
    timeout_ms: Option<Spanned<u64>>,
) -> Result<Schedule, ConfigError> {
    let name = &entry.name;
    match (rate_hz, trigger) {
        (Some(_), Some(_)) => Err(entry.invalid_entry(
            "trigger",
            format!("process `{name}` has both `rate_hz` and `trigger`; give exactly one"),
        )),
        (None, None) => Err(entry.invalid_entry(
            "rate_hz",
            format!("process `{name}` has neither `rate_hz` nor `trigger`; give exactly one"),
        )),
        (Some(rate), None) => {
            let hz = *rate.get_ref();
            // Also excludes NaN and infinity.
            if !RATE_HZ.contains(&hz) {
                return Err(entry.invalid(
                    &rate,
                    "rate_hz",
                    format!(
                        "expected a rate from {} to {} Hz, found {hz}",
                        RATE_HZ.start(),
                        RATE_HZ.end()
                    ),
                ));
            }
            if let Some(timeout) = &timeout_ms {
                return Err(entry.invalid(
                    timeout,
                    "timeout_ms",
                    format!("process `{name}` runs at a rate; `timeout_ms` is only for `trigger`"),
                ));
            }
            Ok(Schedule::Rate { hz })
        }
        (None, Some(trigger)) => {
            if kind == ProcessKind::Lola {
                return Err(entry.invalid(
                    &trigger,
                    "trigger",
                    "the `lola` bridge is paced by LoLA's frames: give its nominal `rate_hz` \
                     (83.33) instead of a trigger"
                        .to_owned(),
                ));
            }
            if trigger.get_ref().is_empty() {
                return Err(entry.invalid(
                    &trigger,
                    "trigger",
                    "expected at least one representation name".to_owned(),
                ));
            }
            let representations = representation_names(entry, "trigger", trigger.get_ref())?;
            let timeout = match timeout_ms {
                Some(timeout) if !(1..=MAX_TIMEOUT_MS).contains(timeout.get_ref()) => {
                    return Err(entry.invalid(
                        &timeout,
                        "timeout_ms",
                        format!(
                            "expected a timeout from 1 to {MAX_TIMEOUT_MS} ms, found {}",
                            timeout.get_ref()
                        ),
                    ))
                }
                Some(timeout) => Some(Duration::from_millis(*timeout.get_ref())),
                None => None,
            };
            Ok(Schedule::Trigger {
                representations,
                timeout,
            })
        }
    }
}

/// The freeze watchdog: given, or [`WATCHDOG_PERIODS`] periods (or trigger timeouts). It must
/// allow at least one of them: a shorter one would fire on every healthy tick.
fn watchdog(
    entry: &Entry<'_>,
    schedule: &Schedule,
    watchdog_ms: Option<Spanned<u64>>,
) -> Result<Duration, ConfigError> {
    let (slowest_tick, tick_name) = match schedule {
        Schedule::Rate { hz } => (Duration::try_from_secs_f64(1.0 / hz).ok(), "one period"),
        Schedule::Trigger { timeout, .. } => (*timeout, "the trigger timeout"),
    };
    match (watchdog_ms, slowest_tick) {
        (Some(watchdog_ms), slowest) => {
            let watchdog = Duration::from_millis(*watchdog_ms.get_ref());
            if !(1..=MAX_WATCHDOG_MS).contains(watchdog_ms.get_ref()) {
                return Err(entry.invalid(
                    &watchdog_ms,
                    "watchdog_ms",
                    format!(
                        "expected a watchdog from 1 to {MAX_WATCHDOG_MS} ms, found {}",
                        watchdog_ms.get_ref()
                    ),
                ));
            }
            if let Some(slowest) = slowest.filter(|slowest| watchdog < *slowest) {
                return Err(entry.invalid(
                    &watchdog_ms,
                    "watchdog_ms",
                    format!(
                        "the watchdog of `{}` ({watchdog:?}) is shorter than {tick_name} \
                         ({slowest:?}); it would fire on every healthy tick",
                        entry.name
                    ),
                ));
            }
            Ok(watchdog)
        }
        (None, Some(slowest)) => Ok(slowest.saturating_mul(WATCHDOG_PERIODS)),
        (None, None) => Err(entry.invalid_entry(
            "watchdog_ms",
            format!(
                "process `{}` waits for its trigger without `timeout_ms`, so it may sleep for \
                 any time: give `timeout_ms` or `watchdog_ms`",
                entry.name
            ),
        )),
    }
}

fn priority(entry: &Entry<'_>, priority: Option<Spanned<i64>>) -> Result<Option<u8>, ConfigError> {
    let Some(priority) = priority else {
        return Ok(None);
    };
    match u8::try_from(*priority.get_ref()) {
        Ok(value @ 1..=99) => Ok(Some(value)),
        _ => Err(entry.invalid(
            &priority,
            "priority",
            format!(
                "expected a SCHED_FIFO priority from 1 to 99, found {}",
                priority.get_ref()
            ),
        )),
    }
}

/// CPU indices: each one a CPU of the NAO v6 (0 to 3) or of this machine, so that a table
/// written for the robot checks on a smaller PC and a typo like `99` does not.
fn cpus(entry: &Entry<'_>, raw: &[Spanned<i64>]) -> Result<Vec<usize>, ConfigError> {
    let mut cpus = Vec::with_capacity(raw.len());
    let count = if raw.is_empty() { 0 } else { cpu_count() };
    for (index, cpu) in raw.iter().enumerate() {
        let field = format!("cpus[{index}]");
        let value = match usize::try_from(*cpu.get_ref()) {
            Ok(value) if value < count => value,
            _ => {
                return Err(entry.invalid(
                    cpu,
                    &field,
                    format!(
                        "expected a CPU index from 0 to {} (the CPUs of the NAO v6 and of this \
                         machine), found {}",
                        count - 1,
                        cpu.get_ref()
                    ),
                ))
            }
        };
        if cpus.contains(&value) {
            return Err(entry.invalid(cpu, &field, format!("CPU {value} is listed twice")));
        }
        cpus.push(value);
    }
    Ok(cpus)
}

/// CPU indices below this are allowed: the NAO v6's 4, or the CPUs this machine may have
/// (`/sys/devices/system/cpu/possible`), at most [`MAX_CPUS`].
fn cpu_count() -> usize {
    let machine = std::fs::read_to_string("/sys/devices/system/cpu/possible")
        .ok()
        .and_then(|text| highest_cpu(&text))
        .map_or(0, |highest| highest + 1);
    machine.clamp(NAO_CPUS, MAX_CPUS)
}

/// The CPUs of the NAO v6 (Intel Atom E3845).
const NAO_CPUS: usize = 4;

/// The highest CPU in the kernel's list format (`0-3,5,7-8`).
pub(super) fn highest_cpu(text: &str) -> Option<usize> {
    text.trim()
        .split(',')
        .map(|part| part.rsplit('-').next().and_then(|last| last.parse().ok()))
        .try_fold(0, |highest: usize, last| Some(highest.max(last?)))
}

fn restart_intensity(
    entry: &Entry<'_>,
    intensity: Option<Spanned<u32>>,
) -> Result<u32, ConfigError> {
    match intensity {
        None => Ok(DEFAULT_RESTART_INTENSITY),
        Some(intensity) if *intensity.get_ref() <= MAX_RESTART_INTENSITY => {
            Ok(*intensity.get_ref())
        }
        Some(intensity) => Err(entry.invalid(
            &intensity,
            "restart_intensity",
            format!(
                "expected at most {MAX_RESTART_INTENSITY} restarts per window, found {}",
                intensity.get_ref()
            ),
        )),
    }
}

fn restart_window(
    entry: &Entry<'_>,
    seconds: Option<Spanned<f64>>,
) -> Result<Duration, ConfigError> {
    let Some(seconds) = seconds else {
        return Ok(DEFAULT_RESTART_WINDOW);
    };
    match Duration::try_from_secs_f64(*seconds.get_ref()) {
        Ok(window) if !window.is_zero() && window.as_secs_f64() <= MAX_RESTART_WINDOW_S => {
            Ok(window)
        }
        _ => Err(entry.invalid(
            &seconds,
            "restart_window_s",
            format!(
                "expected a window above 0 and up to {MAX_RESTART_WINDOW_S} seconds, found {}",
                seconds.get_ref()
            ),
        )),
    }
}

/// `Representation = "Module"` entries, in file order; a representation cannot also be a
/// default.
fn providers(
    entry: &Entry<'_>,
    raw: &BTreeMap<Spanned<String>, Spanned<String>>,
    defaults: &[Located<String>],
) -> Result<Vec<Located<Provider>>, ConfigError> {
    let mut providers: Vec<Located<Provider>> = Vec::with_capacity(raw.len());
    for (representation, module) in raw {
        let key = entry.key(&format!("providers.{}", representation.get_ref()));
        let origin = entry.file.origin_at(representation.span().start);
        if representation.get_ref().trim().is_empty() || module.get_ref().trim().is_empty() {
            return Err(ConfigError::InvalidValue {
                origin,
                key,
                message: "expected `Representation = \"Module\"` with non-empty names".to_owned(),
            });
        }
        if let Some(default) = defaults
            .iter()
            .find(|default| default.value == *representation.get_ref())
        {
            return Err(ConfigError::Duplicate {
                origin,
                key,
                what: "representation",
                name: representation.get_ref().clone(),
                first: Box::new(default.origin()),
            });
        }
        let located = entry.located(representation);
        providers.push(Located {
            value: Provider {
                representation: located.value,
                module: module.get_ref().clone(),
            },
            file: located.file,
            line: located.line,
        });
    }
    providers.sort_by_key(|provider| provider.line);
    Ok(providers)
}

/// `Representation = ["Module", "Other"]` entries: the modules that may provide a
/// representation of `providers` (its provider among them), switched at run time by the debug
/// link (`switch_provider`).
fn alternatives(
    entry: &Entry<'_>,
    raw: &BTreeMap<Spanned<String>, Spanned<Vec<Spanned<String>>>>,
    providers: &[Located<Provider>],
) -> Result<Vec<Located<Alternatives>>, ConfigError> {
    let mut alternatives = Vec::with_capacity(raw.len());
    for (representation, modules) in raw {
        let field = format!("alternatives.{}", representation.get_ref());
        let Some(provider) = providers
            .iter()
            .find(|provider| provider.representation == *representation.get_ref())
        else {
            return Err(entry.invalid(
                representation,
                &field,
                format!(
                    "`{}` has no entry in `providers`: alternatives are other modules for a \
                     representation this process provides",
                    representation.get_ref()
                ),
            ));
        };
        let names: Vec<String> = modules
            .get_ref()
            .iter()
            .map(|m| m.get_ref().clone())
            .collect();
        if names.len() < 2 {
            return Err(entry.invalid(
                modules,
                &field,
                "expected at least two modules, the provider and its alternatives".to_owned(),
            ));
        }
        if let Some(module) = modules
            .get_ref()
            .iter()
            .find(|m| m.get_ref().trim().is_empty())
        {
            return Err(entry.invalid(module, &field, "an empty module name".to_owned()));
        }
        for (index, module) in modules.get_ref().iter().enumerate() {
            if names[..index].contains(module.get_ref()) {
                return Err(entry.invalid(
                    module,
                    &field,
                    format!("`{}` is listed twice", module.get_ref()),
                ));
            }
        }
        if !names.contains(&provider.module) {
            return Err(entry.invalid(
                modules,
                &field,
                format!(
                    "the list must contain `{}`, the provider `providers` names",
                    provider.module
                ),
            ));
        }
        let located = entry.located(representation);
        alternatives.push(Located {
            value: Alternatives {
                representation: located.value,
                modules: names,
            },
            file: located.file,
            line: located.line,
        });
    }
    Ok(alternatives)
}

/// Non-empty, unique representation names (`trigger`, `defaults`).
fn representation_names(
    entry: &Entry<'_>,
    field: &str,
    names: &[Spanned<String>],
) -> Result<Vec<Located<String>>, ConfigError> {
    let mut checked: Vec<Located<String>> = Vec::with_capacity(names.len());
    for (index, name) in names.iter().enumerate() {
        let key = format!("{field}[{index}]");
        if name.get_ref().is_empty() || name.get_ref().contains(char::is_whitespace) {
            return Err(entry.invalid(
                name,
                &key,
                format!(
                    "`{}` is not a representation name: expected e.g. `SensorData` or \
                     `upper.BallPercept`",
                    name.get_ref()
                ),
            ));
        }
        if let Some(first) = checked.iter().find(|first| first.value == *name.get_ref()) {
            return Err(ConfigError::Duplicate {
                origin: entry.file.origin_at(name.span().start),
                key: entry.key(&key),
                what: "representation",
                name: name.get_ref().clone(),
                first: Box::new(first.origin()),
            });
        }
        checked.push(entry.located(name));
    }
    Ok(checked)
}

fn is_process_name(name: &str) -> bool {
    name.split('.').all(|part| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
    })
}
