//! Testing a behaviour without the robot: `pytest` inside an interpreter that has the real
//! `robot` module, so `tick(blackboard)` gets the same checks as on the robot.
//!
//! ```text
//! cargo run -p behaviours --bin behaviour-pytest -- --behaviours behaviours/python behaviours/examples/offline
//! ```
//!
//! ```python
//! # test_behaviour.py
//! import robot, behaviour
//!
//! def test_walks_while_playing():
//!     request = behaviour.tick(robot.Blackboard(game_state={"state": "Playing"}))
//!     assert request.body.kind == "Walk"
//! ```

use crate::robot::robot_module;
use pyo3::prelude::*;
use std::path::Path;

/// Runs `pytest.main(arguments)` with `robot` importable and `behaviour_folder` first on
/// `sys.path` (so `import behaviour` finds the package under test); returns pytest's exit code
/// (0 all passed, 1 some failed, 2 and up: interrupted, usage, no tests).
pub fn run_pytest(behaviour_folder: &Path, arguments: &[String]) -> PyResult<i32> {
    Python::attach(|py| {
        let sys = py.import("sys")?;
        sys.setattr("dont_write_bytecode", true)?;
        sys.setattr("argv", vec!["behaviour-pytest".to_owned()])?;
        let modules = sys.getattr("modules")?;
        if !modules.contains("robot")? {
            modules.set_item("robot", robot_module(py)?)?;
        }
        sys.getattr("path")?
            .call_method1("insert", (0, behaviour_folder.to_string_lossy().as_ref()))?;
        add_paths_of_python3_on_path(py)?;
        let pytest = py.import("pytest")?;
        let mut arguments = arguments.to_vec();
        // No cache folder in the behaviour package or the repository.
        arguments.extend(["-p".to_owned(), "no:cacheprovider".to_owned()]);
        pytest.call_method1("main", (arguments,))?.extract::<i32>()
    })
}

/// The embedded interpreter is the `libpython` the binary was linked with, whose `sys.path` may
/// miss the packages (pytest) of the `python3` on `PATH` (a pyenv or venv of the same version):
/// their folders are appended when the versions agree.
fn add_paths_of_python3_on_path(py: Python<'_>) -> PyResult<()> {
    let sys = py.import("sys")?;
    let version: (u32, u32) = sys.getattr("version_info")?.get_item(0).and_then(|major| {
        Ok((
            major.extract()?,
            sys.getattr("version_info")?.get_item(1)?.extract()?,
        ))
    })?;
    let Ok(output) = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys; print(sys.version_info[0], sys.version_info[1]); print(*sys.path, sep='\\n')",
        ])
        .output()
    else {
        return Ok(());
    };
    let text = String::from_utf8_lossy(&output.stdout);
    let mut lines = text.lines();
    let same_version = lines.next().is_some_and(|first| {
        first
            .split_whitespace()
            .map(str::parse::<u32>)
            .collect::<Result<Vec<_>, _>>()
            .ok()
            == Some(vec![version.0, version.1])
    });
    if !output.status.success() || !same_version {
        return Ok(());
    }
    let path = sys.getattr("path")?;
    for folder in lines.filter(|line| !line.is_empty()) {
        if !path.contains(folder)? {
            path.call_method1("append", (folder,))?;
        }
    }
    Ok(())
}
