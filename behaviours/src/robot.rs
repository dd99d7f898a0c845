//! The `robot` Python module and the interpreter's one-time set-up.

use crate::log::PyLog;
use crate::request::{PyBehaviourRequest, PyBody, PyHead, PyLeds, PySound, COLOURS, LED_GROUPS};
use crate::team_request::{PyTeam, TEAM_INTENTIONS, TEAM_ROLES};
use crate::view::{joint_indices, PyBlackboard};
use pyo3::prelude::*;
use pyo3::types::{PyModule, PyTuple};
use std::ffi::CString;

pyo3::create_exception!(
    robot,
    TickTimeout,
    pyo3::exceptions::PyBaseException,
    "Raised inside a tick (or a load) that runs longer than its budget. It derives from \
     BaseException, like KeyboardInterrupt, so that `except Exception:` does not swallow it."
);

const LOADER_SOURCE: &str = include_str!("loader.py");

/// Sets the interpreter up once per process: no `.pyc` files, the `robot` module, the loader,
/// and the loader's `harden` (fault handler, no threads, the watchdog's signal). Returns the
/// loader module.
pub(crate) fn install(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    let sys = py.import("sys")?;
    let modules = sys.getattr("modules")?;
    if let Ok(loader) = modules.get_item("_cortex_loader") {
        return Ok(loader.cast_into::<PyModule>()?);
    }
    sys.setattr("dont_write_bytecode", true)?;
    if !sys.hasattr("argv")? {
        sys.setattr("argv", vec!["cortex"])?;
    }

    let robot = robot_module(py)?;
    modules.set_item("robot", &robot)?;

    let source = CString::new(LOADER_SOURCE).expect("loader.py has no NUL byte");
    let loader = PyModule::from_code(py, &source, c"cortex/loader.py", c"_cortex_loader")?;
    modules.set_item("_cortex_loader", &loader)?;
    loader.call_method0("harden")?;
    Ok(loader)
}

/// The `robot` module alone, without the loader and its hardening (for offline tests, where
/// pytest owns the interpreter).
pub(crate) fn robot_module(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    let robot = PyModule::new(py, "robot")?;
    robot.setattr(
        "__doc__",
        "The robot as a behaviour sees it: robot.BehaviourRequest (what tick returns), \
         robot.Blackboard (what tick reads), robot.COLOURS, robot.LED_GROUPS, robot.TEAM_ROLES, \
         robot.TEAM_INTENTIONS, robot.JOINTS, \
         robot.TickTimeout, robot.log (messages into the system's log).",
    )?;
    robot.add_class::<PyBehaviourRequest>()?;
    robot.add_class::<PyBody>()?;
    robot.add_class::<PyHead>()?;
    robot.add_class::<PyLeds>()?;
    robot.add_class::<PySound>()?;
    robot.add_class::<PyTeam>()?;
    robot.add_class::<PyBlackboard>()?;
    robot.add_class::<PyLog>()?;
    robot.add("log", Py::new(py, PyLog)?)?;
    robot.add("TickTimeout", py.get_type::<TickTimeout>())?;
    robot.add(
        "COLOURS",
        PyTuple::new(py, COLOURS.iter().map(|(name, _)| *name))?,
    )?;
    robot.add("LED_GROUPS", PyTuple::new(py, LED_GROUPS)?)?;
    robot.add(
        "TEAM_ROLES",
        PyTuple::new(py, TEAM_ROLES.iter().map(|(name, _)| *name))?,
    )?;
    robot.add(
        "TEAM_INTENTIONS",
        PyTuple::new(py, TEAM_INTENTIONS.iter().map(|(name, _)| *name))?,
    )?;
    robot.add("JOINTS", joint_indices(py)?)?;
    Ok(robot)
}
