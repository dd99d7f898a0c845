//! `settings.toml`: who the robot is in the game, and which location and scenario it uses.

use serde::Deserialize;

use crate::error::ConfigError;
use crate::layers::Layered;
use crate::robots::check_folder_name;

/// The highest player number the GameController's packet has room for (`MAX_NUM_PLAYERS`).
pub const MAX_PLAYER_NUMBER: u8 = 20;

/// The contents of `settings.toml` after the robot layers and the overrides.
///
/// ```toml
/// team_number = 24
/// player_number = 1
/// location = "default"
/// scenario = "default"
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The team number the GameController knows the team by.
    pub team_number: u8,
    /// 1 ..= [`MAX_PLAYER_NUMBER`].
    pub player_number: u8,
    /// The folder `locations/<location>/` of the search path (the field and its lighting).
    pub location: String,
    /// The folder `scenarios/<scenario>/` of the search path (a game, a test, a demo).
    pub scenario: String,
}

impl Settings {
    pub(crate) fn from_layers(layers: &Layered) -> Result<Settings, ConfigError> {
        let settings: Settings = layers.deserialize()?;
        if !(1..=MAX_PLAYER_NUMBER).contains(&settings.player_number) {
            return Err(ConfigError::InvalidValue {
                origin: layers.origin_of_key("player_number"),
                key: "player_number".to_owned(),
                message: format!(
                    "expected a player number from 1 to {MAX_PLAYER_NUMBER}, found {}",
                    settings.player_number
                ),
            });
        }
        for (key, name) in [
            ("location", &settings.location),
            ("scenario", &settings.scenario),
        ] {
            check_folder_name(name, &layers.origin_of_key(key), key)?;
        }
        Ok(settings)
    }
}
