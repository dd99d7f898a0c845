//! Where a running instance keeps its sockets: the run directory.

use std::path::{Path, PathBuf};

/// The default instance name.
pub const DEFAULT_INSTANCE: &str = "cortex";

/// The run directory of `instance`: `$XDG_RUNTIME_DIR/cortex/<instance>` if that variable names
/// a folder, else `/tmp/cortex-<uid>/<instance>`.
pub fn default_run_dir(instance: &str) -> PathBuf {
    if let Some(runtime) = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from) {
        if runtime.is_dir() {
            return runtime.join("cortex").join(instance);
        }
    }
    let uid = rustix::process::getuid().as_raw();
    PathBuf::from(format!("/tmp/cortex-{uid}")).join(instance)
}

/// The run directory from `--run-dir` or `--instance`.
pub fn run_dir(explicit: Option<&Path>, instance: Option<&str>) -> PathBuf {
    match explicit {
        Some(path) => path.to_owned(),
        None => default_run_dir(instance.unwrap_or(DEFAULT_INSTANCE)),
    }
}

/// The supervisor's control socket.
pub fn control_socket(run_dir: &Path) -> PathBuf {
    run_dir.join("control.sock")
}

/// The simulated LoLA's socket.
pub fn lola_socket(run_dir: &Path) -> PathBuf {
    run_dir.join("lola.sock")
}

/// The simulator's own control socket (buttons).
pub fn simulator_control(run_dir: &Path) -> PathBuf {
    run_dir.join("simulator.sock")
}
