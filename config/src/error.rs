//! The one error type of the crate, and where a bad value came from.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// The exit status for configuration errors (`EX_CONFIG` from `sysexits.h`). A supervisor does
/// not restart a child that exits with it: the same files would fail the same way again.
pub const EX_CONFIG: u8 = 78;

/// The exit status for I/O errors (`EX_IOERR` from `sysexits.h`): the files may be fine and the
/// disk or the file system failed.
pub const EX_IOERR: u8 = 74;

/// The exit status for an input that does not exist or cannot be read (`EX_NOINPUT` from
/// `sysexits.h`): the configuration root named on the command line is not there, or a file is
/// not readable for this user.
pub const EX_NOINPUT: u8 = 66;

/// `what` of [`ConfigError::MissingFolder`] for the configuration root.
pub(crate) const ROOT_FOLDER: &str = "the configuration root";

/// Where a configuration value came from: a line of a file, or a command-line override.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A line (1-based) of a TOML file.
    File {
        /// The file as it was found along the search path.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
    },
    /// A `--set key=value` argument, given as its text after `--set`.
    Override {
        /// The argument as it was given, e.g. `settings.team_number=5`.
        text: String,
    },
}

impl Origin {
    /// A line of a file.
    pub fn file(path: impl Into<PathBuf>, line: usize) -> Self {
        Origin::File {
            path: path.into(),
            line,
        }
    }

    /// The file, if the value came from a file.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Origin::File { path, .. } => Some(path),
            Origin::Override { .. } => None,
        }
    }

    /// The 1-based line, if the value came from a file.
    pub fn line(&self) -> Option<usize> {
        match self {
            Origin::File { line, .. } => Some(*line),
            Origin::Override { .. } => None,
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::File { path, line } => write!(formatter, "{}:{line}", path.display()),
            Origin::Override { text } => write!(formatter, "command-line override `--set {text}`"),
        }
    }
}

/// Everything that can go wrong while loading configuration. Each variant names the file and
/// line (or the command-line override), the key, and what was expected.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A file exists but could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },

    /// Something other than a regular file (a folder, a device, a pipe) where a file is read.
    #[error("cannot read {}: not a regular file but {what}", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What is there instead.
        what: &'static str,
    },

    /// A file too large to be a configuration file (a log or an image put there by mistake).
    #[error("cannot read {}: {size} bytes, more than the {limit} a configuration file may have", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The most a configuration file may have.
        limit: u64,
    },

    /// A file is not valid TOML (including a key given twice).
    #[error("{}:{line}:{column}: not valid TOML: {message}", file.display())]
    Syntax {
        /// The file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column (in characters).
        column: usize,
        /// What the TOML parser expected.
        message: String,
    },

    /// A key that the reader of this table does not know (often a typo).
    #[error("{origin}: unknown key `{key}`, expected {expected}")]
    UnknownKey {
        /// Where the key was written.
        origin: Origin,
        /// The full key path, e.g. `walk.step_mm`.
        key: String,
        /// The keys that are allowed at this place.
        expected: String,
    },

    /// A key that must be given is in none of the layers.
    #[error("{origin}: missing key `{key}`")]
    MissingKey {
        /// The (most specific) table that should hold the key.
        origin: Origin,
        /// The full key path.
        key: String,
    },

    /// A value of the wrong type or outside its range.
    #[error("{origin}: key `{key}`: {message}")]
    InvalidValue {
        /// Where the value was written.
        origin: Origin,
        /// The full key path.
        key: String,
        /// What was found and what was expected.
        message: String,
    },

    /// A name that must be unique appears twice.
    #[error("{origin}: key `{key}`: {what} `{name}` is already given at {first}")]
    Duplicate {
        /// The second occurrence.
        origin: Origin,
        /// The full key path of the second occurrence.
        key: String,
        /// What kind of name, e.g. "process" or "head name".
        what: &'static str,
        /// The name.
        name: String,
        /// The first occurrence (boxed to keep the error small).
        first: Box<Origin>,
    },

    /// `settings.toml` names a location or scenario that has no folder.
    #[error(
        "{origin}: key `{what}`: {what} `{name}` has no folder {}; available: {}",
        expected.display(),
        list_or_none(available)
    )]
    UnknownLayer {
        /// Where the name was set.
        origin: Origin,
        /// The key: `location` or `scenario`.
        what: &'static str,
        /// The name that was given.
        name: String,
        /// The folder that would hold it.
        expected: PathBuf,
        /// The names that do have a folder.
        available: Vec<String>,
    },

    /// A file that must exist is nowhere along the search path (or not in the root).
    #[error("`{file_name}` not found in any of: {}", display_paths(searched))]
    MissingFile {
        /// The file name that was looked for.
        file_name: String,
        /// The folders that were searched, most specific first.
        searched: Vec<PathBuf>,
    },

    /// A folder that must exist (the configuration root, its `default/`) does not.
    #[error("{what} {} does not exist or is not a folder", path.display())]
    MissingFolder {
        /// What the folder is for.
        what: &'static str,
        /// The folder.
        path: PathBuf,
    },

    /// A module asked for parameters and no layer has `<Module>.toml`.
    #[error(
        "no parameters for module `{module}`: `{module}.toml` not found in any of: {}",
        display_paths(searched)
    )]
    MissingParameters {
        /// The module.
        module: String,
        /// The folders that were searched, most specific first.
        searched: Vec<PathBuf>,
    },

    /// A module name that cannot be a file name (empty, or with a path separator).
    #[error("`{module}` is not a module name: expected a name like `BallPerceptor`")]
    InvalidModuleName {
        /// The name that was given.
        module: String,
    },

    /// A `--set` argument that cannot be understood.
    #[error("command-line override `--set {text}`: {reason}")]
    InvalidOverride {
        /// The argument.
        text: String,
        /// What is wrong and what was expected.
        reason: String,
    },
}

impl ConfigError {
    /// Whether the error is in the configuration itself (a bad or missing file, key or value):
    /// retrying with the same files fails the same way. The binary exits with [`EX_CONFIG`] for
    /// these. The only errors that are not are I/O failures while reading a file that exists.
    pub fn is_config_error(&self) -> bool {
        match self {
            ConfigError::Read { .. } => self.exit_code() == EX_CONFIG,
            _ => true,
        }
    }

    /// The process exit status for this error (`sysexits.h`): [`EX_NOINPUT`] for a
    /// configuration root that is not there, a dangling link and a file that this user may not
    /// read, [`EX_IOERR`] for a failing disk, else [`EX_CONFIG`].
    pub fn exit_code(&self) -> u8 {
        match self {
            ConfigError::Read { source, .. } => match source.kind() {
                // The configuration is broken: not text, a folder in the place of a file.
                io::ErrorKind::InvalidData
                | io::ErrorKind::IsADirectory
                | io::ErrorKind::NotADirectory => EX_CONFIG,
                // A dangling link, a file this user may not read.
                io::ErrorKind::NotFound | io::ErrorKind::PermissionDenied => EX_NOINPUT,
                _ => EX_IOERR,
            },
            ConfigError::MissingFolder { what, .. } if *what == ROOT_FOLDER => EX_NOINPUT,
            _ => EX_CONFIG,
        }
    }

    /// Where the error is, if it is at one place.
    pub fn origin(&self) -> Option<Origin> {
        match self {
            ConfigError::Syntax { file, line, .. } => Some(Origin::file(file.clone(), *line)),
            ConfigError::UnknownKey { origin, .. }
            | ConfigError::MissingKey { origin, .. }
            | ConfigError::InvalidValue { origin, .. }
            | ConfigError::Duplicate { origin, .. }
            | ConfigError::UnknownLayer { origin, .. } => Some(origin.clone()),
            ConfigError::InvalidOverride { text, .. } => {
                Some(Origin::Override { text: text.clone() })
            }
            _ => None,
        }
    }
}

fn display_paths(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    list_or_none(&names)
}

fn list_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "(none)".to_owned()
    } else {
        items.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_io_failures_are_not_configuration_errors() {
        let io = ConfigError::Read {
            path: "/x".into(),
            source: io::Error::from(io::ErrorKind::PermissionDenied),
        };
        assert!(!io.is_config_error());
        assert_eq!(io.exit_code(), EX_NOINPUT);
        let broken_disk = ConfigError::Read {
            path: "/x".into(),
            source: io::Error::from_raw_os_error(5),
        };
        assert_eq!(broken_disk.exit_code(), EX_IOERR);
        assert!(broken_disk.to_string().starts_with("cannot read /x: "));
        let utf8 = ConfigError::Read {
            path: "/x".into(),
            source: io::Error::from(io::ErrorKind::InvalidData),
        };
        assert!(utf8.is_config_error());
        let missing = ConfigError::MissingKey {
            origin: Origin::file("/c/a.toml", 3),
            key: "a.b".into(),
        };
        assert_eq!(missing.exit_code(), EX_CONFIG);
        assert_eq!(missing.to_string(), "/c/a.toml:3: missing key `a.b`");
    }

    #[test]
    fn override_origin_names_the_argument() {
        let origin = Origin::Override {
            text: "settings.team_number=x".into(),
        };
        assert_eq!(
            origin.to_string(),
            "command-line override `--set settings.team_number=x`"
        );
        assert_eq!(origin.line(), None);
    }
}
