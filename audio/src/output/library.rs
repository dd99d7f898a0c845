//! `SoundLibrary`: the WAV files of the configuration's `sounds/` folders, found by name.
//!
//! A name is a file stem (`"whistle"` → `whistle.wav`), looked for along a list of folders, most
//! specific first (the configuration's search path: scenario, robot, location, default). The
//! shipped fallbacks for fixed messages are named after their text: "Python error" →
//! `python_error.wav` (see [`fallback_name`]).

use super::pcm::{LoadError, Pcm};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The longest name a sound may have.
pub const MAX_NAME_LENGTH: usize = 64;

/// Finding or loading a sound by name failed.
#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    /// The name cannot be a file stem (empty, too long, a path, a hidden file…).
    #[error("sound name {name:?} is not a sound's name: {reason} (names are 1..={max} letters, digits, '_' or '-')", max = MAX_NAME_LENGTH)]
    InvalidName { name: String, reason: &'static str },
    /// No folder holds `<name>.wav`.
    #[error("sound {name:?}: no {name}.wav in {searched}")]
    NotFound { name: String, searched: String },
    /// The file is there but cannot be played.
    #[error("sound {name:?}: {source}")]
    Unreadable {
        name: String,
        #[source]
        source: LoadError,
    },
}

/// The `sounds/` folders and the longest sound they may hold.
#[derive(Debug, Clone)]
pub struct SoundLibrary {
    directories: Vec<PathBuf>,
    max_duration: Duration,
}

impl SoundLibrary {
    /// Sounds looked for in `directories`, in that order; files longer than `max_duration` are
    /// refused.
    pub fn new(directories: Vec<PathBuf>, max_duration: Duration) -> SoundLibrary {
        SoundLibrary {
            directories,
            max_duration,
        }
    }

    pub fn directories(&self) -> &[PathBuf] {
        &self.directories
    }

    /// The file `name` refers to.
    pub fn find(&self, name: &str) -> Result<PathBuf, LookupError> {
        check_name(name)?;
        let file = format!("{name}.wav");
        self.directories
            .iter()
            .map(|directory| directory.join(&file))
            .find(|path| path.is_file())
            .ok_or_else(|| LookupError::NotFound {
                name: name.to_owned(),
                searched: if self.directories.is_empty() {
                    "no folder (none configured)".to_owned()
                } else {
                    self.directories
                        .iter()
                        .map(|directory| directory.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                },
            })
    }

    /// The file `name` refers to and its samples.
    pub fn load(&self, name: &str) -> Result<(PathBuf, Pcm), LookupError> {
        let path = self.find(name)?;
        let pcm = load(&path, self.max_duration).map_err(|source| LookupError::Unreadable {
            name: name.to_owned(),
            source,
        })?;
        Ok((path, pcm))
    }
}

fn load(path: &Path, limit: Duration) -> Result<Pcm, LoadError> {
    Pcm::load_wav(path, limit)
}

fn check_name(name: &str) -> Result<(), LookupError> {
    let invalid = |reason| {
        Err(LookupError::InvalidName {
            name: name.chars().take(2 * MAX_NAME_LENGTH).collect(),
            reason,
        })
    };
    if name.is_empty() {
        return invalid("empty");
    }
    if name.len() > MAX_NAME_LENGTH {
        return invalid("too long");
    }
    if !name
        .chars()
        .all(|character| character.is_ascii_alphanumeric() || matches!(character, '_' | '-'))
    {
        return invalid("holds a character other than a letter, digit, '_' or '-'");
    }
    Ok(())
}

/// The name of the shipped WAV that stands in for `text` when speech fails: lower case, words
/// joined by `_` ("Python error" → `python_error`, "Safe state!" → `safe_state`); `None` when
/// nothing of the text is left or the name would be too long.
pub fn fallback_name(text: &str) -> Option<String> {
    let words: Vec<String> = text
        .split(|character: char| !character.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let name = words.join("_");
    (!name.is_empty() && name.len() <= MAX_NAME_LENGTH).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fallback_names_follow_the_text() {
        assert_eq!(
            fallback_name("Python error").as_deref(),
            Some("python_error")
        );
        assert_eq!(
            fallback_name("  Safe state! ").as_deref(),
            Some("safe_state")
        );
        assert_eq!(fallback_name("?!"), None);
        assert_eq!(fallback_name(&"a ".repeat(100)), None);
    }

    #[test]
    fn names_that_are_paths_or_odd_are_refused() {
        let library = SoundLibrary::new(vec![PathBuf::from(".")], Duration::from_secs(1));
        for name in [
            "",
            "../etc/passwd",
            "a/b",
            ".hidden",
            "x.wav",
            "ä",
            &"n".repeat(65),
        ] {
            let error = library.find(name).unwrap_err();
            assert!(
                matches!(error, LookupError::InvalidName { .. }),
                "{name}: {error}"
            );
        }
    }

    #[test]
    fn the_first_folder_that_has_the_file_wins_and_a_missing_one_names_the_folders() {
        let specific = tempfile::tempdir().unwrap();
        let general = tempfile::tempdir().unwrap();
        for folder in [specific.path(), general.path()] {
            std::fs::write(folder.join("beep.wav"), b"x").unwrap();
        }
        std::fs::write(general.path().join("only.wav"), b"x").unwrap();
        let library = SoundLibrary::new(
            vec![specific.path().to_owned(), general.path().to_owned()],
            Duration::from_secs(1),
        );
        assert_eq!(
            library.find("beep").unwrap(),
            specific.path().join("beep.wav")
        );
        assert_eq!(
            library.find("only").unwrap(),
            general.path().join("only.wav")
        );
        let error = library.find("nothing").unwrap_err().to_string();
        assert!(
            error.contains(&general.path().display().to_string()),
            "{error}"
        );
        let broken = library.load("beep").unwrap_err().to_string();
        assert!(broken.contains("beep.wav"), "{broken}");
    }
}
