//! The smallest configuration folder that loads: for tests and benchmarks that need a
//! [`Config`](crate::Config) with a process table of their own.

use std::io;
use std::path::Path;

/// Writes, under `root`, a `settings.toml` (team 1, player 1, location and scenario `default`),
/// the `default/`, `locations/default/` and `scenarios/default/` layers, `default/processes.toml`
/// with `processes`, and each `(file name, text)` of `files` into `default/`.
pub fn write_minimal(root: &Path, processes: &str, files: &[(&str, &str)]) -> io::Result<()> {
    for folder in ["default", "locations/default", "scenarios/default"] {
        std::fs::create_dir_all(root.join(folder))?;
    }
    std::fs::write(
        root.join("settings.toml"),
        "team_number = 1\nplayer_number = 1\nlocation = \"default\"\nscenario = \"default\"\n",
    )?;
    std::fs::write(root.join("default/processes.toml"), processes)?;
    for (name, text) in files {
        std::fs::write(root.join("default").join(name), text)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_minimal_folder_loads() {
        let root = tempfile::tempdir().unwrap();
        let table = "[[process]]\nname = \"motion\"\nkind = \"motion\"\nrate_hz = 83.33\n";
        super::write_minimal(root.path(), table, &[("Module.toml", "gain = 2\n")]).unwrap();
        let config = crate::Config::load(root.path(), None, &[]).unwrap();
        assert_eq!(config.process_table().processes()[0].name, "motion");
        assert!(config.find("Module.toml").is_some());
    }
}
