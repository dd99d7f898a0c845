//! `robots.toml`: the names of heads and bodies, by serial number.
//!
//! ```toml
//! [heads]
//! P0000074A05S93M00061 = "alan"
//!
//! [bodies]
//! P0000073A07S94700012 = "alan"
//!
//! [addresses]
//! alan = "nao@10.1.24.21"
//! ```
//!
//! Heads and bodies are named separately because teams swap them between robots; a head and a
//! body may share a name (their folder `robots/<name>/` is then used once). `[addresses]` says
//! how `cortex deploy NAME` reaches a robot over ssh: `host` or `user@host`.

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
    #[serde(default)]
    addresses: BTreeMap<String, Spanned<String>>,
}

/// The contents of `robots.toml`.
#[derive(Debug, Clone, Default)]
pub struct Robots {
    heads: BTreeMap<String, String>,
    bodies: BTreeMap<String, String>,
    addresses: BTreeMap<String, (String, Origin)>,
}

impl Robots {
    /// Reads and checks `robots.toml`.
    pub fn load(path: &Path) -> Result<Robots, ConfigError> {
        let file = SourceFile::read(path)?;
        let raw: RobotsFile = file.deserialize()?;
        Ok(Robots {
            heads: check_names(&file, "heads", "head name", raw.heads)?,
            bodies: check_names(&file, "bodies", "body name", raw.bodies)?,
            addresses: check_addresses(&file, raw.addresses)?,
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

    /// How to reach the robot `name` over ssh (`host` or `user@host`), and where that is said.
    pub fn address(&self, name: &str) -> Option<(&str, &Origin)> {
        self.addresses
            .get(name)
            .map(|(address, origin)| (address.as_str(), origin))
    }

    /// The robots that have an address, by name.
    pub fn addressed_names(&self) -> impl Iterator<Item = &str> {
        self.addresses.keys().map(String::as_str)
    }
}

/// Addresses are handed to ssh and rsync: `host` or `user@host`, nothing that an option or a
/// path could be read from.
fn check_addresses(
    file: &SourceFile,
    entries: BTreeMap<String, Spanned<String>>,
) -> Result<BTreeMap<String, (String, Origin)>, ConfigError> {
    let mut addresses = BTreeMap::new();
    for (name, address) in entries {
        let origin = file.origin_at(address.span().start);
        let key = format!("addresses.{name}");
        check_folder_name(&name, &origin, &key)?;
        let text = address.into_inner();
        let plain = !text.is_empty()
            && !text.starts_with('-')
            && text.matches('@').count() <= 1
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '@'));
        if !plain {
            return Err(ConfigError::InvalidValue {
                origin,
                key,
                message: format!(
                    "`{text}` is not an ssh address: expected `host` or `user@host` (letters, \
                     digits, `.`, `-`, `_`)"
                ),
            });
        }
        addresses.insert(name, (text, origin));
    }
    Ok(addresses)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<Robots, ConfigError> {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("robots.toml");
        std::fs::write(&path, text).unwrap();
        Robots::load(&path)
    }

    #[test]
    fn addresses_are_plain_ssh_targets() {
        let robots =
            load("[addresses]\nalan = \"nao@10.1.24.21\"\ngrace = \"grace.local\"\n").unwrap();
        assert_eq!(
            robots.address("alan").map(|(a, _)| a),
            Some("nao@10.1.24.21")
        );
        assert_eq!(robots.address("grace").and_then(|(_, o)| o.line()), Some(3));
        assert!(robots.address("nobody").is_none());
        for bad in ["-oProxyCommand=x", "nao@host:/tmp", "a b", "", "x@y@z"] {
            let text = format!("[addresses]\nalan = \"{bad}\"\n");
            let message = load(&text).unwrap_err().to_string();
            assert!(
                message.contains("robots.toml:2") && message.contains("addresses.alan"),
                "{bad}: {message}"
            );
        }
    }
}
