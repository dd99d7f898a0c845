//! A configuration tree in a temporary folder.

#![allow(dead_code)] // Each test binary uses a different part.

use std::path::{Path, PathBuf};

use config::{Config, ConfigError, Override, RobotIdentitySerials};

pub const HEAD_SERIAL: &str = "P0000074A05S93M00061";
pub const BODY_SERIAL: &str = "P0000073A07S94700012";

pub const MINIMAL_PROCESSES: &str = "\
[[process]]
name = \"motion\"
kind = \"motion\"
rate_hz = 83.33
";

/// A valid tree: settings, the default layer with a process table, the default location and
/// scenario, and robots.toml naming one head `ada` and one body `bob`.
pub struct Tree {
    dir: tempfile::TempDir,
}

impl Tree {
    pub fn new() -> Tree {
        let tree = Tree {
            dir: tempfile::tempdir().expect("temporary folder"),
        };
        tree.write(
            "settings.toml",
            "team_number = 24\nplayer_number = 1\nlocation = \"default\"\nscenario = \"default\"\n",
        );
        tree.write(
            "robots.toml",
            &format!("[heads]\n{HEAD_SERIAL} = \"ada\"\n\n[bodies]\n{BODY_SERIAL} = \"bob\"\n"),
        );
        tree.write("default/processes.toml", MINIMAL_PROCESSES);
        tree.mkdir("locations/default");
        tree.mkdir("scenarios/default");
        tree
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    pub fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.path(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create folder");
        }
        std::fs::write(&path, text).expect("write file");
        path
    }

    pub fn mkdir(&self, relative: &str) {
        std::fs::create_dir_all(self.path(relative)).expect("create folder");
    }

    pub fn load(&self) -> Result<Config, ConfigError> {
        Config::load(self.root(), None, &[])
    }

    pub fn load_robot(&self, overrides: &[&str]) -> Result<Config, ConfigError> {
        let overrides: Vec<Override> = overrides
            .iter()
            .map(|text| Override::parse(text).expect("valid override"))
            .collect();
        Config::load(
            self.root(),
            Some(&serials(HEAD_SERIAL, BODY_SERIAL)),
            &overrides,
        )
    }
}

pub fn serials(head: &str, body: &str) -> RobotIdentitySerials {
    RobotIdentitySerials {
        head: head.to_owned(),
        body: body.to_owned(),
    }
}

/// Asserts that `error` starts with `file:line:` (file relative to the tree) and mentions the
/// key, and that it counts as a configuration error.
pub fn assert_names(tree: &Tree, error: &ConfigError, file: &str, line: usize, key: &str) {
    let message = error.to_string();
    let prefix = format!("{}:{line}:", tree.path(file).display());
    assert!(
        message.starts_with(&prefix),
        "expected `{prefix}` at the start of: {message}"
    );
    assert!(
        message.contains(&format!("`{key}`")),
        "expected key `{key}` in: {message}"
    );
    assert!(error.is_config_error(), "{message}");
    assert_eq!(error.exit_code(), config::EX_CONFIG);
}
