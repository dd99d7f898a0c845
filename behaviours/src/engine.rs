//! The behaviour engine: loads the behaviour folder, reloads it when it changes, calls
//! `tick(blackboard)` under the tick budget, and applies rUNSWift's error policy.
//!
//! The GIL is held only inside [`BehaviourEngine::tick`] (and while loading at construction):
//! the file watcher and the watchdog run on their own threads and never run Python, except the
//! watchdog for the moment it interrupts an overrunning tick.

use crate::error_policy::{ErrorPolicy, PYTHON_ERROR};
use crate::marker::{self, Phase};
use crate::request::PyBehaviourRequest;
use crate::robot::{install, TickTimeout};
use crate::view::{BlackboardSnapshot, PyBlackboard};
use crate::watchdog::{SignalInterrupt, Watchdog};
use crate::watcher::FolderWatcher;
use framework::faults;
use pyo3::exceptions::{PyMemoryError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use types::{BehaviourRequest, SoundRequest};

/// How the engine runs (from `BehaviourControl.toml`).
#[derive(Debug, Clone, PartialEq)]
pub struct EngineSettings {
    /// The behaviour folder.
    pub folder: PathBuf,
    /// The module whose `tick` is called (`behaviour` → `behaviour.py`).
    pub entry_module: String,
    /// A tick running longer is interrupted; zero: never.
    pub tick_budget: Duration,
    /// The first load (the modules' top-level code, at start) running longer is interrupted;
    /// zero: never.
    pub load_budget: Duration,
    /// A reload (inside a tick) running longer is interrupted; zero: never. It must be shorter
    /// than the process's freeze watchdog.
    pub reload_budget: Duration,
    /// "Python error" is said at most once per this interval.
    pub error_sound_interval: Duration,
    /// A reload waits until the folder has not changed for this long.
    pub reload_settle: Duration,
    /// Watch the folder for changes (hot reload).
    pub watch: bool,
}

/// What the engine has done, for tests, logs and the debug link.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EngineStatus {
    /// Successful loads (the first one and every reload).
    pub loads: u64,
    /// Loads that failed (the running behaviour stayed).
    pub failed_loads: u64,
    /// Why the last load failed, if it did; `None` after a successful one.
    pub load_error: Option<String>,
    /// Ticks run.
    pub ticks: u64,
    /// Ticks that ended in an error (including interrupted ones).
    pub failed_ticks: u64,
    /// Ticks interrupted by the budget.
    pub interrupted_ticks: u64,
    /// The last tick's error (traceback), `None` after a good tick.
    pub tick_error: Option<String>,
    /// The current fault in one line (`behaviour.py:12: ZeroDivisionError: division by zero`),
    /// as `cortex status` shows it; `None` while there is none.
    pub fault: Option<String>,
}

/// The engine could not start (the interpreter refused its set-up).
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// Python set-up failed.
    #[error("setting up the embedded Python interpreter: {0}")]
    Python(String),
    /// The watchdog thread could not be started.
    #[error("starting the tick watchdog thread: {0}")]
    Thread(#[from] std::io::Error),
}

/// The embedded behaviour. One per process at a time: the behaviour's modules live in the
/// interpreter's `sys.modules` under their own names.
#[derive(Debug)]
pub struct BehaviourEngine {
    settings: EngineSettings,
    loader: Py<PyAny>,
    compile_tree: Py<PyAny>,
    summarize: Py<PyAny>,
    tick_function: Option<Py<PyAny>>,
    /// The previous run of this process ended inside the behaviour: the first tick stands
    /// without running Python (so that motion gets a standing request), the load follows.
    held: Option<(String, String)>,
    load_pending: bool,
    /// The last failed load in one line (while `status.load_error` is set).
    load_fault: Option<String>,
    watcher: Option<FolderWatcher>,
    watchdog: Watchdog,
    errors: ErrorPolicy,
    sounds: u64,
    /// The newest sound requested: repeated on every tick until the next one (a consumer plays
    /// a sound when `request_counter` changes, and anyone looking sees what was said last).
    last_sound: SoundRequest,
    status: EngineStatus,
}

/// Makes the exception carry its traceback (CPython 3.11 keeps it beside the exception until
/// Python code re-raises it; `traceback.format_exception(value)` needs it on the value).
fn attach_traceback(py: Python<'_>, error: &PyErr) {
    if let Some(traceback) = error.traceback(py) {
        let _ = error.value(py).setattr("__traceback__", traceback);
    }
}

/// One line naming the file and line (`behaviour.py:12: ZeroDivisionError: …`).
fn summary(
    py: Python<'_>,
    summarize: &Py<PyAny>,
    error: &PyErr,
    folder: &std::path::Path,
) -> String {
    attach_traceback(py, error);
    summarize
        .call1(py, (error.value(py), folder.to_string_lossy().as_ref()))
        .and_then(|text| text.extract::<String>(py))
        .unwrap_or_else(|_| error.to_string())
}

fn traceback(py: Python<'_>, error: &PyErr) -> String {
    attach_traceback(py, error);
    let formatted = py.import("traceback").and_then(|traceback| {
        let lines = traceback.call_method1("format_exception", (error.value(py),))?;
        PyString::new(py, "")
            .call_method1("join", (lines,))?
            .extract::<String>()
    });
    formatted
        .map(|text| text.trim_end().to_owned())
        .unwrap_or_else(|_| error.to_string())
}

impl BehaviourEngine {
    /// Sets up the interpreter (once per process), loads the behaviour folder and starts
    /// watching it. A behaviour that does not load is no error here: the engine runs the error
    /// policy until a change to the folder loads.
    pub fn new(settings: EngineSettings) -> Result<BehaviourEngine, EngineError> {
        let (loader, compile_tree, summarize, exception, signal) = Python::attach(|py| {
            let module = install(py)?;
            let loader = module.getattr("Loader")?.call0()?.unbind();
            let compile_tree = module.getattr("compile_tree")?.unbind();
            let summarize = module.getattr("summarize")?.unbind();
            let exception = py.get_type::<TickTimeout>().into_any().unbind();
            let signal = SignalInterrupt::from_loader(module.as_any())?;
            Ok::<_, PyErr>((loader, compile_tree, summarize, exception, signal))
        })
        .map_err(|error: PyErr| EngineError::Python(error.to_string()))?;
        let watcher = settings.watch.then(|| FolderWatcher::new(&settings.folder));
        let held = marker::predecessor().map(|previous| {
            let file = previous.file();
            let name = std::path::Path::new(&file)
                .strip_prefix(&settings.folder)
                .map_or(file.clone(), |name| name.display().to_string());
            (
                format!(
                    "cognition restarted: its previous run ended {} {file}; standing for a tick \
                     before loading it again",
                    previous.phase().describe(),
                ),
                format!(
                    "{name}: cognition ended {} and was restarted",
                    previous.phase().describe()
                ),
            )
        });
        let mut engine = BehaviourEngine {
            errors: ErrorPolicy::new(settings.error_sound_interval),
            settings,
            loader,
            compile_tree,
            summarize,
            tick_function: None,
            load_pending: held.is_some(),
            load_fault: None,
            held,
            watcher,
            watchdog: Watchdog::new(exception, signal)?,
            sounds: 0,
            last_sound: SoundRequest::default(),
            status: EngineStatus::default(),
        };
        if let Some((reason, _)) = &engine.held {
            tracing::error!("{reason}");
        } else {
            let budget = engine.settings.load_budget;
            Python::attach(|py| engine.load(py, budget));
        }
        Ok(engine)
    }

    /// The settings.
    pub fn settings(&self) -> &EngineSettings {
        &self.settings
    }

    /// What the engine has done so far.
    pub fn status(&self) -> &EngineStatus {
        &self.status
    }

    /// Loads the folder now, as a change would (tests, the debug link). `Err` with the reason
    /// when the running behaviour stays.
    pub fn reload(&mut self) -> Result<(), String> {
        let budget = self.settings.reload_budget;
        Python::attach(|py| self.load(py, budget));
        match &self.status.load_error {
            None => Ok(()),
            Some(error) => Err(error.clone()),
        }
    }

    /// In a warm standby, between its waits: loads the folder if it changed (and has settled),
    /// as a tick would, so that the standby is activated with the current behaviour and the
    /// takeover pays no reload.
    pub fn refresh_while_standby(&mut self) {
        let changed = self
            .watcher
            .as_mut()
            .is_some_and(|watcher| watcher.take_settled_change(self.settings.reload_settle));
        if changed {
            let budget = self.settings.reload_budget;
            Python::attach(|py| self.load(py, budget));
        }
    }

    /// A `MemoryError` escaped the tick: the behaviour's modules are dropped and collected, so
    /// that what it hoarded is freed before the process's own allocations fail; the error policy
    /// runs until a change loads the folder again.
    fn unload_after_memory_error(
        &mut self,
        py: Python<'_>,
        result: &Result<BehaviourRequest, (String, String)>,
    ) {
        self.tick_function = None;
        if let Err(error) = self.loader.call_method0(py, "unload") {
            tracing::error!("unloading the behaviour after a MemoryError: {error}");
        }
        let line = result
            .as_ref()
            .err()
            .map_or_else(|| "MemoryError".to_owned(), |(_, line)| line.clone());
        tracing::error!(
            "the behaviour ran out of memory ({line}); it is unloaded to free its memory and \
             loads again when a file of {} changes",
            self.settings.folder.display()
        );
        self.status.load_error = Some(format!(
            "the behaviour was unloaded after a MemoryError ({line}); it loads again when a file \
             changes"
        ));
        self.load_fault = Some(format!("{line} (unloaded to free its memory)"));
    }

    /// The entry module's file.
    fn entry_file(&self) -> PathBuf {
        self.source_folder()
            .join(format!("{}.py", self.settings.entry_module))
    }

    /// The folder the modules are read from: the configured one, or its `behaviours/` if only
    /// that has the entry module (a `cortex sync --local DIR` into the folder after the start).
    fn source_folder(&self) -> PathBuf {
        let entry = format!("{}.py", self.settings.entry_module);
        let nested = self.settings.folder.join("behaviours");
        if !self.settings.folder.join(&entry).is_file() && nested.join(&entry).is_file() {
            nested
        } else {
            self.settings.folder.clone()
        }
    }

    /// Compiles every file, then imports the entry module anew; swaps only if all succeeded.
    fn load(&mut self, py: Python<'_>, budget: Duration) {
        let source = self.source_folder();
        let entry_file = self.entry_file();
        marker::mark(Phase::Loading, &entry_file);
        let armed = self.watchdog.arm(py, budget);
        let result = (|| -> PyResult<Result<Py<PyAny>, (String, String)>> {
            let folder = source.to_string_lossy().into_owned();
            let (table, errors): (Py<PyAny>, Vec<String>) =
                self.compile_tree.call1(py, (folder,))?.extract(py)?;
            if !errors.is_empty() {
                return Ok(Err((
                    format!(
                        "{} file(s) do not compile:\n{}",
                        errors.len(),
                        errors.join("\n")
                    ),
                    errors[0].clone(),
                )));
            }
            let tick = self.loader.call_method1(
                py,
                "load",
                (table, self.settings.entry_module.as_str()),
            )?;
            Ok(Ok(tick))
        })();
        let interrupted = self.watchdog.disarm(py, armed);
        marker::mark(Phase::Outside, &entry_file);
        let result = match result {
            Ok(result) => result,
            Err(error) if interrupted || error.is_instance_of::<TickTimeout>(py) => Err((
                format!(
                    "loading took longer than its budget of {budget:?}:\n{}",
                    traceback(py, &error)
                ),
                format!(
                    "{} (loading took longer than {budget:?})",
                    summary(py, &self.summarize, &error, &source)
                ),
            )),
            Err(error) => Err((
                traceback(py, &error),
                summary(py, &self.summarize, &error, &source),
            )),
        };
        let folder = source.display();
        match result {
            Ok(tick) => {
                self.tick_function = Some(tick);
                self.status.loads += 1;
                self.status.load_error = None;
                self.load_fault = None;
                self.status.fault = None;
                faults::clear_fault();
                tracing::info!(
                    "behaviour loaded from {folder} (load {})",
                    self.status.loads
                );
            }
            Err((error, line)) => {
                self.status.failed_loads += 1;
                let keeping = if self.tick_function.is_some() {
                    "the running behaviour stays"
                } else {
                    "no behaviour runs until a change loads"
                };
                tracing::error!("loading the behaviour from {folder} failed; {keeping}:\n{error}");
                let shown = format!("{PYTHON_ERROR}: {line}");
                faults::report_fault(&shown);
                self.status.load_error = Some(error);
                self.status.fault = Some(shown);
                self.load_fault = Some(line);
            }
        }
    }

    /// One tick at `now`: reloads first if the folder changed, then calls `tick(blackboard)`.
    /// Never fails: errors become the error policy's request.
    pub fn tick(&mut self, snapshot: BlackboardSnapshot, now: Instant) -> BehaviourRequest {
        let changed = self
            .watcher
            .as_mut()
            .is_some_and(|watcher| watcher.take_settled_change(self.settings.reload_settle));
        self.status.ticks += 1;
        let entry_file = self.entry_file();
        let result = if let Some(held) = self.held.take() {
            // The previous run died inside the behaviour: one standing tick before Python.
            Err(held)
        } else {
            let load = std::mem::take(&mut self.load_pending) || changed;
            Python::attach(|py| {
                if load {
                    let budget = if self.status.loads + self.status.failed_loads == 0 {
                        self.settings.load_budget
                    } else {
                        self.settings.reload_budget
                    };
                    self.load(py, budget);
                }
                let Some(tick) = self.tick_function.as_ref().map(|tick| tick.clone_ref(py)) else {
                    let error = self
                        .status
                        .load_error
                        .as_deref()
                        .unwrap_or("(not loaded yet)");
                    let line = self.load_fault.as_deref().unwrap_or("(not loaded yet)");
                    return Err((
                        format!("no behaviour is loaded:\n{error}"),
                        format!("not loaded: {line}"),
                    ));
                };
                marker::mark(Phase::Ticking, &entry_file);
                let armed = self.watchdog.arm(py, self.settings.tick_budget);
                let result = call_tick(py, &tick, snapshot);
                let interrupted = self.watchdog.disarm(py, armed);
                marker::mark(Phase::Outside, &entry_file);
                let out_of_memory =
                    matches!(&result, Err(error) if error.is_instance_of::<PyMemoryError>(py));
                let result = result.map_err(|error| {
                    let line = summary(py, &self.summarize, &error, &self.source_folder());
                    let interrupted = interrupted || error.is_instance_of::<TickTimeout>(py);
                    if interrupted {
                        self.status.interrupted_ticks += 1;
                        let budget = self.settings.tick_budget;
                        (
                            format!(
                                "the tick took longer than its budget of {budget:?}:\n{}",
                                traceback(py, &error)
                            ),
                            format!("{line} (the tick took longer than {budget:?})"),
                        )
                    } else {
                        (traceback(py, &error), line)
                    }
                });
                if out_of_memory {
                    drop(tick);
                    self.unload_after_memory_error(py, &result);
                }
                result
            })
        };
        let mut request = match result {
            Ok(mut request) => {
                self.errors.succeeded();
                self.status.tick_error = None;
                // A reload that failed while the previous code runs is still a fault to show.
                let shown = self.load_fault.as_ref().map(|line| {
                    format!("{PYTHON_ERROR}: reload failed, the previous code runs: {line}")
                });
                if self.status.fault != shown {
                    match &shown {
                        Some(text) => faults::show_fault(text),
                        None => faults::clear_fault(),
                    }
                    self.status.fault = shown;
                }
                if request.sound.sound.is_some() {
                    self.sounds += 1;
                }
                request.sound.request_counter = self.sounds;
                request
            }
            Err((error, line)) => {
                self.status.failed_ticks += 1;
                let request = self.errors.failed(&error, now, &mut self.sounds);
                self.status.tick_error = Some(error);
                let shown = format!("{PYTHON_ERROR}: {line}");
                faults::report_fault(&shown);
                self.status.fault = Some(shown);
                request
            }
        };
        if request.sound.sound.is_some() {
            self.last_sound = request.sound.clone();
        } else {
            request.sound = self.last_sound.clone();
        }
        request
    }
}

fn call_tick(
    py: Python<'_>,
    tick: &Py<PyAny>,
    snapshot: BlackboardSnapshot,
) -> PyResult<BehaviourRequest> {
    let blackboard = Py::new(py, PyBlackboard::new(snapshot))?;
    let returned = tick.bind(py).call1((blackboard,))?;
    let request = returned.cast::<PyBehaviourRequest>().map_err(|_| {
        let type_name = returned
            .get_type()
            .name()
            .map_or_else(|_| "?".to_owned(), |name| name.to_string());
        PyTypeError::new_err(format!(
            "tick(blackboard) returned {type_name}, expected a robot.BehaviourRequest"
        ))
    })?;
    let request = request.borrow().to_rust(py);
    Ok(request)
}

impl Drop for BehaviourEngine {
    fn drop(&mut self) {
        // Take this behaviour's modules out of the interpreter; the watchdog thread is joined
        // afterwards (when the field drops), without the GIL held.
        Python::attach(|py| {
            if let Err(error) = self.loader.call_method0(py, "close") {
                tracing::warn!("unloading the behaviour: {error}");
            }
        });
    }
}
