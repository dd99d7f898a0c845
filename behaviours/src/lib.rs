//! The Python behaviours of Cortex: CPython embedded in the `cognition` process (pyo3).
//!
//! **What it is.** Once per cognition tick, [`BehaviourControl`] calls `tick(blackboard)` of
//! the behaviour package (default `behaviours/python/behaviour.py`) and provides the
//! [`BehaviourRequest`](types::BehaviourRequest) it returns. Around that call:
//!
//! - the `robot` Python module ([`request`], [`team_request`], [`view`]): the typed, checked
//!   `robot.BehaviourRequest` (what the robot does and what its team mates hear) and the
//!   read-only blackboard;
//! - hot reload: the folder is watched; on a change every file is compiled, the modules are
//!   executed anew, and they replace the running ones only if all of that succeeded;
//! - rUNSWift's error policy: an exception stands the robot still, flashes its LEDs, says
//!   "Python error" at most every 10 s, logs the traceback, and the next tick tries again;
//! - the tick budget: a watchdog thread interrupts a tick that runs too long (a signal wakes a
//!   blocking call such as `time.sleep`);
//! - faults that end the process: the [`marker`] tells the supervisor that `cognition` died
//!   inside the behaviour (restarted, never the safe state), `faulthandler` names the line,
//!   threads and `fork` are refused; the current Python error goes to `cortex status`;
//! - [`log`]: `robot.log.info(…)` into the system's log, rate-limited per line of Python;
//! - [`offline`]: pytest against `tick()` with hand-written blackboards, no robot needed;
//! - [`sync`]: `cortex sync` — rsync the behaviours and configuration to a robot.
//!
//! **What it is not.** Python never runs in `motion` or `lola`. It is not an interpreter per
//! tick: one interpreter lives as long as the process, and the GIL is held only inside a tick.
//!
//! ```python
//! # behaviours/python/behaviour.py
//! import robot
//!
//! def tick(blackboard):
//!     request = robot.BehaviourRequest()
//!     if blackboard.game_state.state == "Playing":
//!         request.body.walk(x=0.1)
//!         request.leds.eyes("Green")
//!     else:
//!         request.body.stand()
//!     return request
//! ```
//!
//! Building needs a Python 3 with a shared `libpython` (`python3` on `PATH` is what pyo3's
//! build finds; see `docs/decisions.md`).

mod control;
mod engine;
mod error_policy;
pub mod log;
pub mod marker;
pub mod offline;
pub mod request;
mod robot;
pub mod sync;
pub mod team_request;
pub mod view;
mod watchdog;
mod watcher;

pub use control::{
    resolve_behaviour_dir, set_behaviour_dir, BehaviourControl, BehaviourControlParameters,
    BEHAVIOURS_DIR_VARIABLE,
};
pub use engine::{BehaviourEngine, EngineError, EngineSettings, EngineStatus};
pub use error_policy::{
    ErrorPolicy, ERROR_COLOURS, ERROR_FLASH_PERIOD, ERROR_SPEECH, PYTHON_ERROR,
};
pub use view::BlackboardSnapshot;

use framework::ModuleRegistry;

/// Sets the interpreter up (the `robot` module, no `.pyc` files) without loading a behaviour:
/// for tools and tests that use `robot` directly. [`BehaviourEngine::new`] does it by itself.
pub fn prepare_interpreter() -> pyo3::PyResult<()> {
    pyo3::Python::attach(|py| robot::install(py).map(|_| ()))
}

/// The modules of this crate (for `cognition`).
pub fn modules() -> ModuleRegistry {
    ModuleRegistry::default().with::<BehaviourControl>()
}
