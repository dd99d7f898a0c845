//! `team.toml`: which robot plays which number, for `cortex deploy`.
//!
//! ```toml
//! team_number = 24
//! location = "default"
//! scenario = "default"
//!
//! [players]
//! alan = 1
//! grace = 2
//! ```
//!
//! A robot's name is the one `robots.toml` gives its head or body (and its address). `cortex
//! deploy alan` writes alan's own `settings.toml` from this file: team number, player number,
//! location and scenario. Every error names the file, the line and the key.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::error::{ConfigError, Origin};
use crate::layers::SourceFile;
use crate::robots::check_folder_name;
use crate::settings::{Settings, MAX_PLAYER_NUMBER};

/// The team file's name in the configuration root.
pub const TEAM_FILE: &str = "team.toml";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TeamFile {
    team_number: Spanned<u8>,
    location: Spanned<String>,
    scenario: Spanned<String>,
    #[serde(default)]
    players: BTreeMap<String, Spanned<i64>>,
}

/// The contents of `team.toml`, checked.
#[derive(Debug, Clone)]
pub struct Team {
    team_number: u8,
    location: String,
    scenario: String,
    players: BTreeMap<String, (u8, Origin)>,
}

impl Team {
    /// Reads and checks a team file: player numbers from 1 to [`MAX_PLAYER_NUMBER`], each given
    /// once, robot, location and scenario names that can name a folder.
    pub fn load(path: &Path) -> Result<Team, ConfigError> {
        let file = SourceFile::read(path)?;
        let raw: TeamFile = file.deserialize()?;
        for (key, name) in [("location", &raw.location), ("scenario", &raw.scenario)] {
            check_folder_name(name.get_ref(), &file.origin_at(name.span().start), key)?;
        }
        let mut ordered: Vec<(String, Spanned<i64>)> = raw.players.into_iter().collect();
        ordered.sort_by_key(|(_, number)| number.span().start);
        let mut first_use: BTreeMap<u8, Origin> = BTreeMap::new();
        let mut players = BTreeMap::new();
        for (name, number) in ordered {
            let origin = file.origin_at(number.span().start);
            let key = format!("players.{name}");
            check_folder_name(&name, &origin, &key)?;
            let value = *number.get_ref();
            let player_number = u8::try_from(value)
                .ok()
                .filter(|n| (1..=MAX_PLAYER_NUMBER).contains(n))
                .ok_or_else(|| ConfigError::InvalidValue {
                    origin: origin.clone(),
                    key: key.clone(),
                    message: format!(
                        "expected a player number from 1 to {MAX_PLAYER_NUMBER}, found {value}"
                    ),
                })?;
            if let Some(first) = first_use.get(&player_number) {
                return Err(ConfigError::Duplicate {
                    origin,
                    key,
                    what: "player number",
                    name: player_number.to_string(),
                    first: Box::new(first.clone()),
                });
            }
            first_use.insert(player_number, origin.clone());
            players.insert(name, (player_number, origin));
        }
        Ok(Team {
            team_number: *raw.team_number.get_ref(),
            location: raw.location.into_inner(),
            scenario: raw.scenario.into_inner(),
            players,
        })
    }

    /// The settings of the robot `name`, or `None` if the team file does not list it.
    pub fn settings_of(&self, name: &str) -> Option<Settings> {
        self.players.get(name).map(|(player_number, _)| Settings {
            team_number: self.team_number,
            player_number: *player_number,
            location: self.location.clone(),
            scenario: self.scenario.clone(),
        })
    }

    /// Where the robot's player number is given.
    pub fn origin_of(&self, name: &str) -> Option<&Origin> {
        self.players.get(name).map(|(_, origin)| origin)
    }

    /// The robots the team file lists, by name.
    pub fn robot_names(&self) -> impl Iterator<Item = &str> {
        self.players.keys().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<Team, ConfigError> {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join(TEAM_FILE);
        std::fs::write(&path, text).unwrap();
        Team::load(&path)
    }

    const GOOD: &str =
        "team_number = 24\nlocation = \"default\"\nscenario = \"default\"\n\n[players]\nalan = 1\ngrace = 2\n";

    #[test]
    fn a_listed_robot_gets_its_settings() {
        let team = load(GOOD).unwrap();
        let alan = team.settings_of("alan").unwrap();
        assert_eq!((alan.team_number, alan.player_number), (24, 1));
        assert_eq!(team.settings_of("grace").unwrap().player_number, 2);
        assert!(team.settings_of("nobody").is_none());
        assert_eq!(team.origin_of("grace").and_then(Origin::line), Some(7));
    }

    #[test]
    fn errors_name_line_and_key() {
        let cases = [
            (
                GOOD.replace("grace = 2", "grace = 1"),
                ":7",
                "players.grace",
                "already given at",
            ),
            (
                GOOD.replace("grace = 2", "grace = 21"),
                ":7",
                "players.grace",
                "from 1 to 20",
            ),
            (
                GOOD.replace("grace = 2", "grace = -3"),
                ":7",
                "players.grace",
                "found -3",
            ),
            (
                GOOD.replace("grace = 2", "\"../x\" = 3"),
                ":7",
                "../x",
                "cannot name a folder",
            ),
            (
                GOOD.replace("\"default\"\nscenario", "\"a b\"\nscenario"),
                ":2",
                "location",
                "cannot name a folder",
            ),
            (
                GOOD.replace("team_number = 24", "team_number = 300"),
                ":1",
                "team_number",
                "",
            ),
            (
                GOOD.replace("alan = 1", "alan = \"one\""),
                ":6",
                "players.alan",
                "",
            ),
            (
                GOOD.replace("[players]", "colour = \"red\"\n[players]"),
                ":5",
                "colour",
                "unknown key",
            ),
        ];
        for (text, line, key, words) in cases {
            let message = load(&text).unwrap_err().to_string();
            assert!(message.contains(&format!("{TEAM_FILE}{line}")), "{message}");
            assert!(message.contains(key), "{key}: {message}");
            assert!(message.contains(words), "{words}: {message}");
        }
        let missing = load("location = \"default\"\nscenario = \"default\"\n").unwrap_err();
        assert!(missing.to_string().contains("team_number"), "{missing}");
    }

    #[test]
    fn the_shipped_team_has_an_address_for_every_player() {
        let root = crate::default_root();
        let team = Team::load(&root.join(TEAM_FILE)).unwrap();
        let robots = crate::Robots::load(&root.join(crate::ROBOTS_FILE)).unwrap();
        assert!(team.robot_names().count() > 0);
        for name in team.robot_names() {
            assert!(robots.address(name).is_some(), "{name} has no address");
        }
    }
}
