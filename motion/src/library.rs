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
/// Played while the robot falls or lies (optional: without it the pose is held).
pub const FALL_PROTECTION: &str = "fall_protection";
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
        Err(error) if error.kind() == std::io::ErrorKind::NotADirectory => {
            return Err(ConfigError::InvalidValue {
                origin: Origin::file(folder, 1),
                key: "(file name)".to_owned(),
                message: format!("`{MOTIONS_FOLDER}` must be a folder of keyframe files"),
            })
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use types::JointId;

    /// A configuration tree: settings, a process table, default location and scenario.
    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        write(
            &dir,
            "settings.toml",
            "team_number = 1\nplayer_number = 1\nlocation = \"default\"\nscenario = \"default\"\n",
        );
        write(
            &dir,
            "default/processes.toml",
            "[[process]]\nname = \"motion\"\nkind = \"motion\"\nrate_hz = 83.33\n",
        );
        std::fs::create_dir_all(dir.path().join("locations/default")).unwrap();
        std::fs::create_dir_all(dir.path().join("scenarios/default")).unwrap();
        for name in REQUIRED_MOTIONS {
            write(
                &dir,
                &format!("default/motions/{name}.toml"),
                &motion(1, 50.0),
            );
        }
        dir
    }

    fn write(dir: &tempfile::TempDir, relative: &str, text: &str) {
        let path = dir.path().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A motion of `frames` keyframes moving the left knee to `knee_deg`, keeping the rest.
    fn motion(frames: usize, knee_deg: f32) -> String {
        (0..frames)
            .map(|_| format!("[[keyframe]]\nduration_ms = 100\nstiffness = 0.5\n[keyframe.positions_deg]\nLeftKneePitch = {knee_deg}\n\"*\" = \"*\"\n"))
            .collect()
    }

    fn load(dir: &tempfile::TempDir) -> Result<MotionLibrary, ConfigError> {
        MotionLibrary::load(&Config::load(dir.path(), None, &[]).unwrap())
    }

    #[test]
    fn the_most_specific_layer_gives_the_whole_file() {
        let dir = tree();
        write(&dir, "default/motions/wave.toml", &motion(3, 20.0));
        write(
            &dir,
            "scenarios/default/motions/wave.toml",
            &motion(1, 40.0),
        );
        write(&dir, "scenarios/default/motions/bow.toml", &motion(2, 10.0));
        write(&dir, "default/motions/README.md", "not a motion");
        let library = load(&dir).unwrap();
        assert_eq!(
            library.names().collect::<Vec<_>>(),
            ["bow", "sit", "stand", "stand_up_from_sit", "wave"]
        );
        let wave = library.get("wave").unwrap();
        assert_eq!(wave.keyframes.len(), 1);
        assert!(wave.file.starts_with(dir.path().join("scenarios")));
        assert_eq!(
            wave.final_positions()[JointId::LeftKneePitch],
            Some(40_f32.to_radians())
        );
        assert_eq!(library.get("bow").unwrap().keyframes.len(), 2);
    }

    #[test]
    fn a_missing_required_motion_names_the_file_and_the_folders() {
        let dir = tree();
        std::fs::remove_file(dir.path().join("default/motions/sit.toml")).unwrap();
        let error = load(&dir).unwrap_err();
        assert!(
            matches!(&error, ConfigError::MissingFile { file_name, .. } if file_name == "motions/sit.toml"),
            "{error}"
        );
    }

    #[test]
    fn a_bad_file_in_any_layer_is_an_error_naming_it() {
        let dir = tree();
        write(
            &dir,
            "scenarios/default/motions/wave.toml",
            "[[keyframe]]\nduration_ms = -5\n",
        );
        let error = load(&dir).unwrap_err();
        let origin = error.origin().unwrap();
        assert!(
            origin
                .path()
                .unwrap()
                .ends_with("scenarios/default/motions/wave.toml"),
            "{error}"
        );
        assert_eq!(origin.line(), Some(2));

        let dir = tree();
        write(&dir, "default/motions/big wave.toml", &motion(1, 10.0));
        let error = load(&dir).unwrap_err();
        assert!(error.to_string().contains("big wave.toml"), "{error}");
    }
}
