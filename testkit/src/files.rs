//! Files for tests: a breakable copy of the shipped configuration, folder copies.

use std::path::{Path, PathBuf};

/// A copy of the shipped configuration in a temporary folder, to break on purpose.
pub fn config_copy() -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let target = folder.path().join("config");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/data"),
        &target,
    );
    (folder, target)
}

/// Sets every process's `restart_intensity` in the configuration at `config` to `restarts`, so
/// that a benchmark's many deliberate kills do not put the robot into the safe state.
pub fn raise_restart_intensity(config: &Path, restarts: u32) {
    let table = config.join("default/processes.toml");
    let text = std::fs::read_to_string(&table).unwrap();
    std::fs::write(
        &table,
        text.replace(
            "\nkind = ",
            &format!("\nrestart_intensity = {restarts}\nkind = "),
        ),
    )
    .unwrap();
}

/// Copies a folder tree (without `__pycache__`, which Python may have left in a source folder).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let name = entry.file_name();
        if name == "__pycache__" {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
