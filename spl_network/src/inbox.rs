//! Receiving: every datagram is decoded, and what is not for us is counted and dropped, never
//! passed on and never a reason to stop listening.

use crate::game_controller_message::{GameControllerDecodeError, GameControllerMessage};
use crate::team_message::{TeamMessage, TeamMessageDecodeError};
use serde::{Deserialize, Serialize};

/// GameController packets received, by outcome.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameControllerCounters {
    pub accepted: u64,
    pub wrong_header: u64,
    pub wrong_version: u64,
    pub wrong_length: u64,
    pub invalid_field: u64,
    /// Well-formed, but neither team is ours.
    pub other_game: u64,
}

/// Decodes GameController datagrams for one team and counts the rejected ones.
#[derive(Debug, Clone)]
pub struct GameControllerInbox {
    team_number: u8,
    pub counters: GameControllerCounters,
    /// The newest rejection, for logs and `cortex status`.
    pub last_error: Option<String>,
}

impl GameControllerInbox {
    pub fn new(team_number: u8) -> Self {
        Self {
            team_number,
            counters: GameControllerCounters::default(),
            last_error: None,
        }
    }

    /// The message if it is a valid v18 packet of a game our team plays in.
    pub fn receive(&mut self, bytes: &[u8]) -> Option<GameControllerMessage> {
        match GameControllerMessage::decode(bytes) {
            Ok(message) if message.team(self.team_number).is_some() => {
                self.counters.accepted += 1;
                Some(message)
            }
            Ok(_) => {
                self.counters.other_game += 1;
                self.last_error = Some(format!(
                    "GameController packet for another game (our team {} plays in neither team)",
                    self.team_number
                ));
                None
            }
            Err(error) => {
                let counter = match error {
                    GameControllerDecodeError::Header { .. } => &mut self.counters.wrong_header,
                    GameControllerDecodeError::Version { .. } => &mut self.counters.wrong_version,
                    GameControllerDecodeError::Length { .. } => &mut self.counters.wrong_length,
                    GameControllerDecodeError::Field { .. } => &mut self.counters.invalid_field,
                };
                *counter += 1;
                self.last_error = Some(error.to_string());
                None
            }
        }
    }
}

/// Team-port datagrams received, by outcome.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamMessageCounters {
    pub accepted: u64,
    /// Other teams' formats (no Cortex magic).
    pub foreign: u64,
    /// Cortex magic, but another format version.
    pub other_version: u64,
    /// Cortex magic and version, but broken (length, checksum, field).
    pub malformed: u64,
    /// A Cortex message of another team number.
    pub other_team: u64,
    /// Our own broadcast, heard back.
    pub own: u64,
}

/// Decodes team-port datagrams for one robot and counts what is not a team mate's message.
#[derive(Debug, Clone)]
pub struct TeamMessageInbox {
    team_number: u8,
    player_number: u8,
    pub counters: TeamMessageCounters,
    pub last_error: Option<String>,
}

impl TeamMessageInbox {
    pub fn new(team_number: u8, player_number: u8) -> Self {
        Self {
            team_number,
            player_number,
            counters: TeamMessageCounters::default(),
            last_error: None,
        }
    }

    /// A team mate's message, or `None` (counted).
    pub fn receive(&mut self, bytes: &[u8]) -> Option<TeamMessage> {
        match TeamMessage::decode(bytes) {
            Ok(message) if message.team_number != self.team_number => {
                self.counters.other_team += 1;
                None
            }
            Ok(message) if message.player_number == self.player_number => {
                self.counters.own += 1;
                None
            }
            Ok(message) => {
                self.counters.accepted += 1;
                Some(message)
            }
            Err(TeamMessageDecodeError::Foreign { .. }) => {
                self.counters.foreign += 1;
                None
            }
            Err(error) => {
                if matches!(error, TeamMessageDecodeError::Version { .. }) {
                    self.counters.other_version += 1;
                } else {
                    self.counters.malformed += 1;
                }
                self.last_error = Some(error.to_string());
                None
            }
        }
    }
}
