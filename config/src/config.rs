//! Loading: robot names, settings, the search path, the process table and module parameters.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use crate::error::ConfigError;
use crate::layers::{parse_key, Layered, SourceFile};
use crate::overrides::{Override, OverrideTarget};
use crate::processes::ProcessTable;
use crate::robots::{RobotIdentitySerials, Robots};
use crate::settings::Settings;
use crate::validate::{Invalid, Validate};

/// The file that maps serial numbers to names, in the root.
pub const ROBOTS_FILE: &str = "robots.toml";
/// The settings file, in the root (and optionally in the robot folders).
pub const SETTINGS_FILE: &str = "settings.toml";
/// The process table, along the search path.
pub const PROCESSES_FILE: &str = "processes.toml";

/// One value of a module's parameters and where it was written ([`Config::parameter_values`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ParameterValue {
    /// Its key path as TOML writes it (`gains.p`).
    pub key: String,
    /// The value.
    pub value: toml::Value,
    /// The file and line, or the override, that set it.
    pub origin: crate::error::Origin,
}

/// Which layers make up the search path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// `scenarios/<scenario>/`.
    pub scenario: String,
    /// `locations/<location>/`.
    pub location: String,
    /// `robots/<head>/`, if the head's serial number is in `robots.toml`.
    pub head: Option<String>,
    /// `robots/<body>/`, if the body's serial number is in `robots.toml`.
    pub body: Option<String>,
}

/// Something odd that does not stop the robot from starting with the default layers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigWarning {
    /// The head's serial number is not in `robots.toml`: no head layer.
    UnknownHead {
        /// The serial number LoLA reported.
        serial: String,
        /// The `robots.toml` that was searched.
        robots_file: PathBuf,
    },
    /// The body's serial number is not in `robots.toml`: no body layer.
    UnknownBody {
        /// The serial number LoLA reported.
        serial: String,
        /// The `robots.toml` that was searched.
        robots_file: PathBuf,
    },
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (part, serial, file) = match self {
            ConfigWarning::UnknownHead {
                serial,
                robots_file,
            } => ("head", serial, robots_file),
            ConfigWarning::UnknownBody {
                serial,
                robots_file,
            } => ("body", serial, robots_file),
        };
        write!(
            formatter,
            "{part} serial number `{serial}` is not in {}: running without a {part} layer",
            file.display()
        )
    }
}

/// The resolved configuration of one robot: settings, search path, process table, and access to
/// module parameters.
#[derive(Debug, Clone)]
pub struct Config {
    root: PathBuf,
    selection: Selection,
    search_path: Vec<PathBuf>,
    settings: Settings,
    process_table: ProcessTable,
    overrides: Vec<Override>,
    warnings: Vec<ConfigWarning>,
}

impl Config {
    /// Loads the configuration under `root` for the robot with these serial numbers (`None`:
    /// no robot layers, e.g. a check on a PC), with command-line overrides applied in order.
    ///
    /// Serial numbers missing from `robots.toml` (or a missing `robots.toml`) are not errors:
    /// the layer is left out and [`Config::warnings`] says so.
    pub fn load(
        root: &Path,
        identity: Option<&RobotIdentitySerials>,
        overrides: &[Override],
    ) -> Result<Config, ConfigError> {
        if !root.is_dir() {
            return Err(ConfigError::MissingFolder {
                what: crate::error::ROOT_FOLDER,
                path: root.to_owned(),
            });
        }
        let default = root.join("default");
        if !default.is_dir() {
            return Err(ConfigError::MissingFolder {
                what: "the default layer",
                path: default,
            });
        }

        let mut warnings = Vec::new();
        let (head, body) = match identity {
            Some(serials) => resolve_robot(root, serials, &mut warnings)?,
            None => (None, None),
        };
        let robot_folders: Vec<PathBuf> = [&head, &body]
            .into_iter()
            .flatten()
            .map(|name| root.join("robots").join(name))
            .collect();

        let (settings, settings_layers) = load_settings(root, &robot_folders, overrides)?;
        let location = layer_folder(
            root,
            "locations",
            "location",
            &settings.location,
            &settings_layers,
        )?;
        let scenario = layer_folder(
            root,
            "scenarios",
            "scenario",
            &settings.scenario,
            &settings_layers,
        )?;

        let mut search_path = vec![scenario];
        for folder in robot_folders {
            if folder.is_dir() && !search_path.contains(&folder) {
                search_path.push(folder);
            }
        }
        search_path.push(location);
        search_path.push(default);

        let processes = find_all(&search_path, PROCESSES_FILE)
            .into_iter()
            .next()
            .ok_or_else(|| ConfigError::MissingFile {
                file_name: PROCESSES_FILE.to_owned(),
                searched: search_path.clone(),
            })?;
        let process_table = ProcessTable::load(&processes)?;

        Ok(Config {
            root: root.to_owned(),
            selection: Selection {
                scenario: settings.scenario.clone(),
                location: settings.location.clone(),
                head,
                body,
            },
            search_path,
            settings,
            process_table,
            overrides: overrides.to_vec(),
            warnings,
        })
    }

    /// The configuration root (the folder holding `default/`, `robots.toml` …).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The layers that were selected.
    pub fn selection(&self) -> &Selection {
        &self.selection
    }

    /// The folders searched for files, most specific first: scenario, head, body, location,
    /// default. Robot folders that do not exist are left out.
    pub fn search_path(&self) -> &[PathBuf] {
        &self.search_path
    }

    /// The most specific `file_name` along the search path.
    pub fn find(&self, file_name: &str) -> Option<PathBuf> {
        self.find_all(file_name).into_iter().next()
    }

    /// Every `file_name` along the search path, most specific first.
    pub fn find_all(&self, file_name: &str) -> Vec<PathBuf> {
        find_all(&self.search_path, file_name)
    }

    /// The settings after the robot layers and the overrides.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The most specific `processes.toml`, checked.
    pub fn process_table(&self) -> &ProcessTable {
        &self.process_table
    }

    /// Odd things that did not stop loading (unknown serial numbers).
    pub fn warnings(&self) -> &[ConfigWarning] {
        &self.warnings
    }

    /// The command-line overrides, in the order they are applied.
    pub fn overrides(&self) -> &[Override] {
        &self.overrides
    }

    /// The parameters of `module`: every `<module>.toml` along the search path merged key by key
    /// (more specific files win), then the overrides `<module>.key=value`.
    ///
    /// `T` should use `#[serde(deny_unknown_fields)]` so that typos are errors. A module with
    /// no file in any layer is an error naming the folders searched.
    pub fn parameters<T: DeserializeOwned>(&self, module: &str) -> Result<T, ConfigError> {
        let (layers, files) = self.parameter_layers(module)?;
        if files == 0 {
            return Err(ConfigError::MissingParameters {
                module: module.to_owned(),
                searched: self.search_path.clone(),
            });
        }
        layers.deserialize()
    }

    /// Like [`Config::parameters`], but a module with no file and no override gets
    /// `T::default()`. Types read from partial files or from overrides alone should carry
    /// `#[serde(default)]`.
    pub fn parameters_or_default<T: DeserializeOwned + Default>(
        &self,
        module: &str,
    ) -> Result<T, ConfigError> {
        let (layers, _) = self.parameter_layers(module)?;
        if layers.is_empty() {
            Ok(T::default())
        } else {
            layers.deserialize()
        }
    }

    /// [`Config::parameters`], then the type's own range checks ([`Validate`]): a value out of
    /// range is an [`ConfigError::InvalidValue`] naming the file and line (or the override)
    /// that set it.
    pub fn validated_parameters<T: DeserializeOwned + Validate>(
        &self,
        module: &str,
    ) -> Result<T, ConfigError> {
        let (layers, files) = self.parameter_layers(module)?;
        if files == 0 {
            return Err(ConfigError::MissingParameters {
                module: module.to_owned(),
                searched: self.search_path.clone(),
            });
        }
        validated(&layers, layers.deserialize()?)
    }

    /// [`Config::parameters_or_default`], then the type's own range checks ([`Validate`]),
    /// which the default must pass too.
    pub fn validated_parameters_or_default<T: DeserializeOwned + Default + Validate>(
        &self,
        module: &str,
    ) -> Result<T, ConfigError> {
        let (layers, _) = self.parameter_layers(module)?;
        let parameters = if layers.is_empty() {
            T::default()
        } else {
            layers.deserialize()?
        };
        validated(&layers, parameters)
    }

    /// This configuration with `overrides` instead of its own, for module parameters changed
    /// while the robot runs (`cortex set`). The settings stay as they were loaded: a process
    /// reads them when it starts, so only `<Module>.key=value` overrides change what
    /// [`Config::parameters`] returns.
    pub fn with_overrides(&self, overrides: &[Override]) -> Config {
        Config {
            overrides: overrides.to_vec(),
            ..self.clone()
        }
    }

    /// Every value the parameter files of `module` and the overrides set, merged as
    /// [`Config::parameters`] merges them, each with where it was written (the file and line,
    /// or the override): one entry per value that is not a table, in key order (an array is one
    /// value). Keys a file leaves out and the type fills in with its default are not listed.
    pub fn parameter_values(&self, module: &str) -> Result<Vec<ParameterValue>, ConfigError> {
        let (layers, _) = self.parameter_layers(module)?;
        Ok(layers.values())
    }

    /// The merged layers of `<module>.toml` and how many files took part.
    fn parameter_layers(&self, module: &str) -> Result<(Layered, usize), ConfigError> {
        let is_module_name = module.starts_with(|c: char| c.is_ascii_alphabetic())
            && module
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !is_module_name {
            return Err(ConfigError::InvalidModuleName {
                module: module.to_owned(),
            });
        }
        let files = self.find_all(&format!("{module}.toml"));
        let mut layers = Layered::new();
        for path in files.iter().rev() {
            layers.overlay(Layered::from_file(&SourceFile::read(path)?)?);
        }
        for item in &self.overrides {
            if item.target() == OverrideTarget::Module(module) {
                layers.overlay(Layered::from_override(
                    item.key_path(),
                    item.value(),
                    item.text(),
                ));
            }
        }
        Ok((layers, files.len()))
    }
}

/// `parameters` if they pass their range checks; else the error at the line that set the value.
fn validated<T: Validate>(layers: &Layered, parameters: T) -> Result<T, ConfigError> {
    match parameters.validate() {
        Ok(()) => Ok(parameters),
        Err(Invalid { key, message }) => Err(ConfigError::InvalidValue {
            origin: layers.origin_of(&parse_key(&key)),
            key,
            message,
        }),
    }
}

/// Everything named `file_name` along the search path, files or not: a folder, a dangling
/// link or a file in a folder this user may not search is reported by the read that follows,
/// with its path, instead of being passed over as if it were not there.
fn find_all(search_path: &[PathBuf], file_name: &str) -> Vec<PathBuf> {
    search_path
        .iter()
        .map(|folder| folder.join(file_name))
        .filter(|path| match path.symlink_metadata() {
            Ok(_) => true,
            Err(error) => error.kind() != std::io::ErrorKind::NotFound,
        })
        .collect()
}

/// The shipped configuration: `$CORTEX_CONFIG_DIR` if set, else `data/` beside this crate.
pub fn default_root() -> PathBuf {
    match std::env::var_os("CORTEX_CONFIG_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("data"),
    }
}

fn resolve_robot(
    root: &Path,
    serials: &RobotIdentitySerials,
    warnings: &mut Vec<ConfigWarning>,
) -> Result<(Option<String>, Option<String>), ConfigError> {
    let robots_file = root.join(ROBOTS_FILE);
    let robots = if robots_file.is_file() {
        Robots::load(&robots_file)?
    } else {
        Robots::default()
    };
    let head = robots.head_name(&serials.head).map(str::to_owned);
    if head.is_none() {
        warnings.push(ConfigWarning::UnknownHead {
            serial: serials.head.clone(),
            robots_file: robots_file.clone(),
        });
    }
    let body = robots.body_name(&serials.body).map(str::to_owned);
    if body.is_none() {
        warnings.push(ConfigWarning::UnknownBody {
            serial: serials.body.clone(),
            robots_file,
        });
    }
    Ok((head, body))
}

/// `settings.toml` of the root, then of the body and head folders, then `settings.*` overrides.
fn load_settings(
    root: &Path,
    robot_folders: &[PathBuf],
    overrides: &[Override],
) -> Result<(Settings, Layered), ConfigError> {
    let base = root.join(SETTINGS_FILE);
    if !base.is_file() {
        return Err(ConfigError::MissingFile {
            file_name: SETTINGS_FILE.to_owned(),
            searched: vec![root.to_owned()],
        });
    }
    let mut layers = Layered::from_file(&SourceFile::read(&base)?)?;
    // robot_folders is head first; the head is the more specific layer, so it goes on top.
    for folder in robot_folders.iter().rev() {
        let path = folder.join(SETTINGS_FILE);
        if path.is_file() {
            layers.overlay(Layered::from_file(&SourceFile::read(&path)?)?);
        }
    }
    for item in overrides {
        if item.target() == OverrideTarget::Settings {
            layers.overlay(Layered::from_override(
                item.key_path(),
                item.value(),
                item.text(),
            ));
        }
    }
    Ok((Settings::from_layers(&layers)?, layers))
}

/// `root/<parent>/<name>` for the location or scenario; it must exist.
fn layer_folder(
    root: &Path,
    parent: &str,
    key: &'static str,
    name: &str,
    settings_layers: &Layered,
) -> Result<PathBuf, ConfigError> {
    let folder = root.join(parent).join(name);
    if folder.is_dir() {
        return Ok(folder);
    }
    let mut available: Vec<String> = std::fs::read_dir(root.join(parent))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|entry| entry.path().is_dir())
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    available.sort();
    Err(ConfigError::UnknownLayer {
        origin: settings_layers.origin_of_key(key),
        what: key,
        name: name.to_owned(),
        expected: folder,
        available,
    })
}
