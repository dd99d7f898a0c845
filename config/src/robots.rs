//! `robots.toml`: the names of heads and bodies, by serial number.
//!
//! ```toml
//! [heads]
//! P0000074A05S93M00061 = "alan"
//!
//! [bodies]
//! P0000073A07S94700012 = "alan"
//! ```
//!
//! Heads and bodies are named separately because teams swap them between robots; a head and a
//! body may share a name (their folder `robots/<name>/` is then used once).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::error::{ConfigError, Origin};
use crate::layers::SourceFile;

/// The serial numbers that LoLA reports in its first frame (`RobotConfig`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RobotIdentitySerials {
    /// Body serial number, e.g. `P0000073A07S94700012`.
    pub body: String,
    /// Head serial number, e.g. `P0000074A05S93M00061`.
    pub head: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RobotsFile {
    #[serde(default)]
    heads: BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    bodies: BTreeMap<String, Spanned<String>>,
}

/// The contents of `robots.toml`.
#[derive(Debug, Clone, Default)]
pub struct Robots {
    heads: BTreeMap<String, String>,
    bodies: BTreeMap<String, String>,
}

impl Robots {
    /// Reads and checks `robots.toml`.
    pub fn load(path: &Path) -> Result<Robots, ConfigError> {
        let file = SourceFile::read(path)?;
        let raw: RobotsFile = file.deserialize()?;
        Ok(Robots {
            heads: check_names(&file, "heads", "head name", raw.heads)?,
            bodies: check_names(&file, "bodies", "body name", raw.bodies)?,
        })
    }

    /// The name of the head with this serial number.
    pub fn head_name(&self, serial: &str) -> Option<&str> {
        self.heads.get(serial).map(String::as_str)
    }

    /// The name of the body with this serial number.
    pub fn body_name(&self, serial: &str) -> Option<&str> {
        self.bodies.get(serial).map(String::as_str)
    }
}

fn check_names(
    file: &SourceFile,
    table: &str,
    what: &'static str,
    entries: BTreeMap<String, Spanned<String>>,
) -> Result<BTreeMap<String, String>, ConfigError> {
    let mut first_use: BTreeMap<String, Origin> = BTreeMap::new();
    // Report in file order, so that "already given at" points up the file.
    let mut ordered: Vec<(String, Spanned<String>)> = entries.into_iter().collect();
    ordered.sort_by_key(|(_, name)| name.span().start);
    let mut names = BTreeMap::new();
    for (serial, name) in ordered {
        let origin = file.origin_at(name.span().start);
        let key = format!("{table}.{serial}");
        check_folder_name(name.get_ref(), &origin, &key)?;
        if let Some(first) = first_use.get(name.get_ref()) {
            return Err(ConfigError::Duplicate {
                origin,
                key,
                what,
                name: name.into_inner(),
                first: Box::new(first.clone()),
            });
        }
        first_use.insert(name.get_ref().clone(), origin);
        names.insert(serial, name.into_inner());
    }
    Ok(names)
}

/// Names of robots, locations and scenarios become folder names: one plain path component.
pub(crate) fn check_folder_name(name: &str, origin: &Origin, key: &str) -> Result<(), ConfigError> {
    let plain = !name.is_empty()
        && name != "."
        && name != ".."
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if plain {
        Ok(())
    } else {
        Err(ConfigError::InvalidValue {
            origin: origin.clone(),
            key: key.to_owned(),
            message: format!(
                "`{name}` cannot name a folder: expected letters, digits, `_`, `-` or `.`"
            ),
        })
    }
}
