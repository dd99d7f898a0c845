//! `cortex run --sim --physics`: the MuJoCo NAO of `simulator/physics/` (a Python process that
//! speaks LoLA) instead of the kinematic simulator. Python and its `mujoco` package are checked
//! before anything starts; when either is missing the error names the one-command install.

use anyhow::{bail, Context, Result};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// How to install what the physics simulator needs.
pub const INSTALL: &str = "pip install -r simulator/physics/requirements.txt";
/// Importing MuJoCo and compiling the model takes about a second; much longer on a loaded machine.
pub const START_TIMEOUT: Duration = Duration::from_secs(30);

/// The simulator script: `$CORTEX_PHYSICS_SIMULATOR` if set, else the one in this workspace.
pub fn script() -> PathBuf {
    match std::env::var_os("CORTEX_PHYSICS_SIMULATOR") {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("../simulator/physics/lola_physics.py"),
    }
}

/// The Python interpreter: `$CORTEX_PYTHON` if set, else `python3`.
pub fn python() -> OsString {
    match std::env::var_os("CORTEX_PYTHON") {
        Some(python) if !python.is_empty() => python,
        _ => OsString::from("python3"),
    }
}

/// The command that serves LoLA on `socket` from the physics simulator (real-time pacing) with
/// its control socket at `control` (`cortex sim`), after checking that it can run.
pub fn command(socket: &Path, control: &Path) -> Result<Command> {
    let python = python();
    let script = script();
    if !script.is_file() {
        bail!(
            "the physics simulator {} is not there (set CORTEX_PHYSICS_SIMULATOR to lola_physics.py)",
            script.display()
        );
    }
    let probe = Command::new(&python)
        .args(["-c", "import mujoco"])
        .stdin(Stdio::null())
        .output()
        .with_context(|| {
            format!(
                "running {} for the physics simulator (it needs Python 3 with MuJoCo: {INSTALL})",
                python.to_string_lossy()
            )
        })?;
    if !probe.status.success() {
        let said = String::from_utf8_lossy(&probe.stderr);
        let last = said.lines().last().unwrap_or("").trim();
        let reason = if last.is_empty() {
            format!("{}", probe.status)
        } else {
            last.to_owned()
        };
        bail!(
            "{} cannot import mujoco ({reason}); install the physics simulator's packages: {INSTALL}",
            python.to_string_lossy()
        );
    }
    let mut command = Command::new(&python);
    command
        .arg(&script)
        .arg(socket)
        .arg("--realtime")
        .arg("--control")
        .arg(control);
    Ok(command)
}
