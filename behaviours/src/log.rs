//! `robot.log`: a behaviour's messages into the system's log (`tracing`), rate-limited per
//! call site so that a line that runs every tick cannot flood the log.
//!
//! ```python
//! robot.log.info("ball at", x, y)          # also debug(), warning(), error()
//! robot.log("warning", "no ball for", 5)  # the level by name
//! ```
//!
//! The arguments are joined like `print` does (`str()` of each, one space between). Each call
//! site (file and line) may log [`BURST`] messages per [`WINDOW`]; the rest are counted, and the
//! next message from that line says how many were left out. The log line names the file, the
//! line and the function: `behaviour.py:12 (tick): ball at 1.0 2.0`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The levels, by the names `robot.log(level, …)` takes (Python's `logging` spelling).
pub const LEVELS: [&str; 4] = ["debug", "info", "warning", "error"];
/// Messages one call site may log per [`WINDOW`].
pub const BURST: u32 = 5;
/// The rate limit's window.
pub const WINDOW: Duration = Duration::from_secs(1);
/// Longer messages are cut (with `…`) so that one call cannot fill the log.
pub const MAX_MESSAGE_CHARS: usize = 1000;
/// More distinct call sites than this (code generated with `exec`) start the table afresh.
const MAX_SITES: usize = 4096;

/// Where a message was logged from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CallSite {
    pub file: String,
    pub line: u32,
}

#[derive(Debug)]
struct SiteWindow {
    started: Instant,
    logged: u32,
    suppressed: u64,
}

/// The per-call-site rate limit: [`BURST`] messages per [`WINDOW`].
#[derive(Debug, Default)]
pub struct RateLimiter {
    sites: HashMap<CallSite, SiteWindow>,
}

/// What to do with one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Log it, saying how many messages from this site were left out before it.
    Log { suppressed_before: u64 },
    /// Leave it out (it is counted).
    Suppress,
}

impl RateLimiter {
    /// Whether a message from `site` at `now` is logged.
    pub fn admit(&mut self, site: &CallSite, now: Instant) -> Admission {
        if self.sites.len() >= MAX_SITES && !self.sites.contains_key(site) {
            self.sites.clear();
        }
        let window = self.sites.entry(site.clone()).or_insert(SiteWindow {
            started: now,
            logged: 0,
            suppressed: 0,
        });
        if now.saturating_duration_since(window.started) >= WINDOW {
            window.started = now;
            window.logged = 0;
        }
        if window.logged < BURST {
            window.logged += 1;
            Admission::Log {
                suppressed_before: std::mem::take(&mut window.suppressed),
            }
        } else {
            window.suppressed += 1;
            Admission::Suppress
        }
    }
}

static LIMITER: Mutex<Option<RateLimiter>> = Mutex::new(None);

/// `robot.log`: call it with a level name, or use its methods `debug`, `info`, `warning`,
/// `error`.
#[pyclass(module = "robot", name = "Log", frozen)]
#[derive(Debug, Default)]
pub struct PyLog;

#[pymethods]
impl PyLog {
    /// `robot.log(level, *parts)`: `level` is one of "debug", "info", "warning", "error".
    #[pyo3(signature = (level, *parts))]
    fn __call__(
        &self,
        py: Python<'_>,
        level: &Bound<'_, PyAny>,
        parts: &Bound<'_, PyTuple>,
    ) -> PyResult<()> {
        let name = level
            .cast::<PyString>()
            .map_err(|_| {
                PyValueError::new_err(format!(
                    "robot.log: the level must be one of {LEVELS:?}, got a {}",
                    level
                        .get_type()
                        .name()
                        .map_or_else(|_| "?".to_owned(), |name| name.to_string())
                ))
            })?
            .to_str()?
            .to_owned();
        let Some(&level) = LEVELS.iter().find(|known| **known == name) else {
            return Err(PyValueError::new_err(format!(
                "robot.log: the level must be one of {LEVELS:?}, got {name:?}"
            )));
        };
        emit(py, level, parts)
    }
    /// Details for whoever debugs the behaviour (shown with `CORTEX_LOG=debug`).
    #[pyo3(signature = (*parts))]
    fn debug(&self, py: Python<'_>, parts: &Bound<'_, PyTuple>) -> PyResult<()> {
        emit(py, "debug", parts)
    }
    /// What an operator should see.
    #[pyo3(signature = (*parts))]
    fn info(&self, py: Python<'_>, parts: &Bound<'_, PyTuple>) -> PyResult<()> {
        emit(py, "info", parts)
    }
    /// Something unexpected that the behaviour copes with.
    #[pyo3(signature = (*parts))]
    fn warning(&self, py: Python<'_>, parts: &Bound<'_, PyTuple>) -> PyResult<()> {
        emit(py, "warning", parts)
    }
    /// Something the behaviour cannot cope with.
    #[pyo3(signature = (*parts))]
    fn error(&self, py: Python<'_>, parts: &Bound<'_, PyTuple>) -> PyResult<()> {
        emit(py, "error", parts)
    }
    fn __repr__(&self) -> &'static str {
        "robot.log"
    }
}

/// The Python frame that called into `robot.log` (a Rust method pushes no frame of its own).
fn caller(py: Python<'_>) -> (CallSite, String) {
    let found = (|| -> PyResult<(CallSite, String)> {
        let frame = py.import("sys")?.call_method1("_getframe", (0,))?;
        let code = frame.getattr("f_code")?;
        Ok((
            CallSite {
                file: code.getattr("co_filename")?.extract()?,
                line: frame.getattr("f_lineno")?.extract().unwrap_or(0),
            },
            code.getattr("co_name")?.extract()?,
        ))
    })();
    found.unwrap_or_else(|_| {
        (
            CallSite {
                file: "?".to_owned(),
                line: 0,
            },
            "?".to_owned(),
        )
    })
}

fn emit(py: Python<'_>, level: &str, parts: &Bound<'_, PyTuple>) -> PyResult<()> {
    let mut message = String::new();
    for (index, part) in parts.iter().enumerate() {
        if index > 0 {
            message.push(' ');
        }
        message.push_str(part.str()?.to_str()?);
        if message.chars().count() > MAX_MESSAGE_CHARS {
            break;
        }
    }
    if message.chars().count() > MAX_MESSAGE_CHARS {
        message = message.chars().take(MAX_MESSAGE_CHARS).collect();
        message.push('…');
    }
    let (site, function) = caller(py);
    let admission = {
        let mut limiter = LIMITER
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        limiter
            .get_or_insert_with(RateLimiter::default)
            .admit(&site, Instant::now())
    };
    let Admission::Log { suppressed_before } = admission else {
        return Ok(());
    };
    let left_out = if suppressed_before > 0 {
        format!(" ({suppressed_before} earlier messages from this line left out)")
    } else {
        String::new()
    };
    let CallSite { file, line } = site;
    match level {
        "debug" => {
            tracing::debug!(target: "behaviour", "{file}:{line} ({function}): {message}{left_out}")
        }
        "info" => {
            tracing::info!(target: "behaviour", "{file}:{line} ({function}): {message}{left_out}")
        }
        "warning" => {
            tracing::warn!(target: "behaviour", "{file}:{line} ({function}): {message}{left_out}")
        }
        _ => {
            tracing::error!(target: "behaviour", "{file}:{line} ({function}): {message}{left_out}")
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(line: u32) -> CallSite {
        CallSite {
            file: "behaviour.py".to_owned(),
            line,
        }
    }

    #[test]
    fn each_call_site_logs_a_burst_per_window_and_then_counts_what_it_left_out() {
        let mut limiter = RateLimiter::default();
        let start = Instant::now();
        let admitted: Vec<Admission> = (0..BURST + 3)
            .map(|_| limiter.admit(&site(3), start))
            .collect();
        assert!(admitted[..BURST as usize].iter().all(|a| *a
            == Admission::Log {
                suppressed_before: 0
            }));
        assert!(admitted[BURST as usize..]
            .iter()
            .all(|a| *a == Admission::Suppress));
        // Another line has its own budget.
        assert_eq!(
            limiter.admit(&site(4), start),
            Admission::Log {
                suppressed_before: 0
            }
        );
        // The next window: the first message says how many were left out.
        assert_eq!(
            limiter.admit(&site(3), start + WINDOW),
            Admission::Log {
                suppressed_before: 3
            }
        );
        assert_eq!(
            limiter.admit(&site(3), start + WINDOW),
            Admission::Log {
                suppressed_before: 0
            }
        );
    }
}
