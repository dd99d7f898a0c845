//! The motion library: every keyframe file `motions/<name>.toml` along the configuration search
//! path, each taken whole from the most specific layer that has it.

use super::keyframes::Motion;
use config::{Config, ConfigError, Origin};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

/// The folder of keyframe files in each configuration layer.
pub const MOTIONS_FOLDER: &str = "motions";

/// The motions the motion process cannot work without.
pub const STAND: &str = "stand";
/// See [`STAND`].
pub const SIT: &str = "sit";
/// See [`STAND`].
pub const STAND_UP_FROM_SIT: &str = "stand_up_from_sit";
/// See [`STAND`].
pub const REQUIRED_MOTIONS: [&str; 3] = [STAND, SIT, STAND_UP_FROM_SIT];

/// Keyframe motions by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MotionLibrary {
    motions: BTreeMap<String, Arc<Motion>>,
}

impl MotionLibrary {
    /// Loads every motion along the search path of `config` and checks that the
    /// [`REQUIRED_MOTIONS`] are there.
    pub fn load(config: &Config) -> Result<MotionLibrary, ConfigError> {
        let mut names = BTreeSet::new();
        for layer in config.search_path() {
            names.extend(motion_names(&layer.join(MOTIONS_FOLDER))?);
        }
        let mut motions = BTreeMap::new();
        for name in names {
            let file_name = format!("{MOTIONS_FOLDER}/{name}.toml");
            if let Some(path) = config.find(&file_name) {
                motions.insert(name.clone(), Arc::new(Motion::load(&name, &path)?));
            }
        }
        for name in REQUIRED_MOTIONS {
            if !motions.contains_key(name) {
                return Err(ConfigError::MissingFile {
                    file_name: format!("{MOTIONS_FOLDER}/{name}.toml"),
                    searched: config.search_path().to_vec(),
                });
            }
        }
        Ok(MotionLibrary { motions })
    }

    /// A library of these motions (tests, tools).
    pub fn from_motions(motions: impl IntoIterator<Item = Motion>) -> MotionLibrary {
        MotionLibrary {
            motions: motions
                .into_iter()
                .map(|motion| (motion.name.clone(), Arc::new(motion)))
                .collect(),
        }
    }

    /// The motion named `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<Motion>> {
        self.motions.get(name)
    }

    /// The names of all motions, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.motions.keys().map(String::as_str)
    }
}

/// The names of the `*.toml` files in `folder` (none if it does not exist).
fn motion_names(folder: &Path) -> Result<Vec<String>, ConfigError> {
    let entries = match std::fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(ConfigError::Read {
                path: folder.to_owned(),
                source,
            })
        }
    };
    let mut names = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|source| ConfigError::Read {
                path: folder.to_owned(),
                source,
            })?
            .path();
        if path.extension().and_then(|extension| extension.to_str()) != Some("toml") {
            continue;
        }
        let name = path
            .file_stem()
            .and_then(|stem| stem.to_str())
            .unwrap_or("");
        let valid = name.starts_with(|c: char| c.is_ascii_alphabetic())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(ConfigError::InvalidValue {
                origin: Origin::file(&path, 1),
                key: "(file name)".to_owned(),
                message: "a motion's file name is its name: a letter, then letters, digits or `_`, and `.toml`".to_owned(),
            });
        }
        names.push(name.to_owned());
    }
    Ok(names)
}
