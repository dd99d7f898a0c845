//! `RoboCupGameControlData` v18: the 118-byte packet the GameController broadcasts at 2 Hz to
//! UDP 3838. Little-endian, natural alignment:
//!
//! ```text
//! 0 "RGme" | 4 version 18 | 5 packetNumber | 6 playersPerTeam | 7 competitionPhase
//! 8 competitionType | 9 gamePhase | 10 state | 11 setPlay | 12 firstHalf | 13 kickingTeam
//! 14 secsRemaining i16 | 16 secondaryTime i16 | 18 teams[0] | 68 teams[1]
//! team (50): 0 teamNumber | 1 fieldPlayerColour | 2 goalkeeperColour | 3 goalkeeper | 4 score
//!            5 penaltyShot | 6 singleShots u16 | 8 messageBudget u16 | 10 players[20] × 2
//! ```
//!
//! A hand-written decoder (not serde) because every error names the byte offset and the field.

use crate::game_controller_enums::{
    CompetitionPhase, CompetitionType, GamePhase, Penalty, SetPlay, State, TeamColour,
};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The packet's size in bytes.
pub const GAME_CONTROLLER_MESSAGE_SIZE: usize = 118;
/// The header of packets for robots (monitors get `"RGTD"`, which robots must ignore).
pub const GAME_CONTROLLER_HEADER: [u8; 4] = *b"RGme";
/// The version this crate speaks.
pub const GAME_CONTROLLER_VERSION: u8 = 18;
/// `MAX_NUM_PLAYERS`: entries in `TeamInfo::players`.
pub const MAX_NUMBER_OF_PLAYERS: usize = 20;
/// `kickingTeam` when no team kicks (drop ball, hidden kicking side).
pub const KICKING_TEAM_NONE: u8 = 255;

const TEAM_INFO_SIZE: usize = 50;
const TEAM_OFFSETS: [usize; 2] = [18, 18 + TEAM_INFO_SIZE];
const _: () = assert!(TEAM_OFFSETS[1] + TEAM_INFO_SIZE == GAME_CONTROLLER_MESSAGE_SIZE);
const _: () = assert!(10 + 2 * MAX_NUMBER_OF_PLAYERS == TEAM_INFO_SIZE);

/// One decoded GameController packet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameControllerMessage {
    /// Incremented with each packet, wrapping.
    pub packet_number: u8,
    /// Players per team in this competition (5, 7…).
    pub players_per_team: u8,
    pub competition_phase: CompetitionPhase,
    pub competition_type: CompetitionType,
    pub game_phase: GamePhase,
    pub state: State,
    pub set_play: SetPlay,
    pub first_half: bool,
    /// The team number of the team that kicks next; `None` is sent as 255.
    pub kicking_team: Option<u8>,
    /// Seconds remaining in the half (may be negative).
    pub seconds_remaining: i16,
    /// The secondary timer (remaining ready time, until free ball…), in seconds.
    pub secondary_seconds: i16,
    /// `teams[0]` defends the left goal as the operator sees the field.
    pub teams: [TeamInfo; 2],
}

/// `TeamInfo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamInfo {
    pub team_number: u8,
    pub field_player_colour: TeamColour,
    pub goalkeeper_colour: TeamColour,
    /// The goalkeeper's player number (1–20); `None` is sent as 0.
    pub goalkeeper: Option<u8>,
    pub score: u8,
    /// Penalty shot counter, or the fallback-mode flag outside a penalty shoot-out.
    pub penalty_shot: u8,
    /// One bit per penalty shot: success.
    pub single_shots: u16,
    /// Team messages the team may still send in this game.
    pub message_budget: u16,
    /// Players 1–20 (index 0 is player 1).
    pub players: [RobotInfo; MAX_NUMBER_OF_PLAYERS],
}

/// `RobotInfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RobotInfo {
    pub penalty: Penalty,
    pub seconds_till_unpenalised: u8,
}

impl Default for RobotInfo {
    fn default() -> Self {
        Self {
            penalty: Penalty::None,
            seconds_till_unpenalised: 0,
        }
    }
}

/// Why bytes are not a v18 GameController packet.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GameControllerDecodeError {
    #[error("header at byte 0: expected \"RGme\", found \"{}\"", found.escape_ascii())]
    Header { found: Vec<u8> },
    #[error("version at byte 4: expected {GAME_CONTROLLER_VERSION}, found {found}")]
    Version { found: u8 },
    #[error("length: expected {GAME_CONTROLLER_MESSAGE_SIZE} bytes, found {found}")]
    Length { found: usize },
    #[error("{field} at byte {offset}: expected {expected}, found {found}")]
    Field {
        field: String,
        offset: usize,
        expected: &'static str,
        found: u8,
    },
}

impl GameControllerDecodeError {
    /// A short name of the error's kind, for counters (`header`, `version`, `length`, `field`).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Header { .. } => "header",
            Self::Version { .. } => "version",
            Self::Length { .. } => "length",
            Self::Field { .. } => "field",
        }
    }
}

impl GameControllerMessage {
    /// Decodes one datagram. Total: any bytes give a message or an error, never a panic.
    /// Checked in this order: header, version, length, then every field.
    pub fn decode(bytes: &[u8]) -> Result<Self, GameControllerDecodeError> {
        let header_length = bytes.len().min(4);
        if bytes[..header_length] != GAME_CONTROLLER_HEADER[..header_length] {
            return Err(GameControllerDecodeError::Header {
                found: bytes[..header_length].to_vec(),
            });
        }
        match bytes.get(4) {
            None => return Err(GameControllerDecodeError::Length { found: bytes.len() }),
            Some(&GAME_CONTROLLER_VERSION) => {}
            Some(&found) => return Err(GameControllerDecodeError::Version { found }),
        }
        let bytes: &[u8; GAME_CONTROLLER_MESSAGE_SIZE] = bytes
            .try_into()
            .map_err(|_| GameControllerDecodeError::Length { found: bytes.len() })?;
        let first_half = match bytes[12] {
            0 => false,
            1 => true,
            found => return Err(field_error("firstHalf", 12, "0 or 1", found)),
        };
        let teams = [
            decode_team(bytes, 0, TEAM_OFFSETS[0])?,
            decode_team(bytes, 1, TEAM_OFFSETS[1])?,
        ];
        let kicking_team = match bytes[13] {
            KICKING_TEAM_NONE => None,
            number if teams.iter().any(|team| team.team_number == number) => Some(number),
            found => {
                return Err(field_error(
                    "kickingTeam",
                    13,
                    "one of the two team numbers or 255",
                    found,
                ))
            }
        };
        Ok(Self {
            packet_number: bytes[5],
            players_per_team: bytes[6],
            competition_phase: enum_at(bytes, 7, "competitionPhase", CompetitionPhase::from_byte)
                .map_err(|error| error.expecting(CompetitionPhase::EXPECTED))?,
            competition_type: enum_at(bytes, 8, "competitionType", CompetitionType::from_byte)
                .map_err(|error| error.expecting(CompetitionType::EXPECTED))?,
            game_phase: enum_at(bytes, 9, "gamePhase", GamePhase::from_byte)
                .map_err(|error| error.expecting(GamePhase::EXPECTED))?,
            state: enum_at(bytes, 10, "state", State::from_byte)
                .map_err(|error| error.expecting(State::EXPECTED))?,
            set_play: enum_at(bytes, 11, "setPlay", SetPlay::from_byte)
                .map_err(|error| error.expecting(SetPlay::EXPECTED))?,
            first_half,
            kicking_team,
            seconds_remaining: i16::from_le_bytes([bytes[14], bytes[15]]),
            secondary_seconds: i16::from_le_bytes([bytes[16], bytes[17]]),
            teams,
        })
    }

    /// The 118 bytes of this message. `kicking_team: Some(255)` and `goalkeeper: Some(0)` are
    /// written as the "none" bytes they equal on the wire.
    pub fn encode(&self) -> [u8; GAME_CONTROLLER_MESSAGE_SIZE] {
        let mut bytes = [0; GAME_CONTROLLER_MESSAGE_SIZE];
        bytes[..4].copy_from_slice(&GAME_CONTROLLER_HEADER);
        bytes[4] = GAME_CONTROLLER_VERSION;
        bytes[5] = self.packet_number;
        bytes[6] = self.players_per_team;
        bytes[7] = self.competition_phase.to_byte();
        bytes[8] = self.competition_type.to_byte();
        bytes[9] = self.game_phase.to_byte();
        bytes[10] = self.state.to_byte();
        bytes[11] = self.set_play.to_byte();
        bytes[12] = u8::from(self.first_half);
        bytes[13] = self.kicking_team.unwrap_or(KICKING_TEAM_NONE);
        bytes[14..16].copy_from_slice(&self.seconds_remaining.to_le_bytes());
        bytes[16..18].copy_from_slice(&self.secondary_seconds.to_le_bytes());
        for (team, offset) in self.teams.iter().zip(TEAM_OFFSETS) {
            let out = &mut bytes[offset..offset + TEAM_INFO_SIZE];
            out[0] = team.team_number;
            out[1] = team.field_player_colour.to_byte();
            out[2] = team.goalkeeper_colour.to_byte();
            out[3] = team.goalkeeper.unwrap_or(0);
            out[4] = team.score;
            out[5] = team.penalty_shot;
            out[6..8].copy_from_slice(&team.single_shots.to_le_bytes());
            out[8..10].copy_from_slice(&team.message_budget.to_le_bytes());
            for (index, player) in team.players.iter().enumerate() {
                out[10 + 2 * index] = player.penalty.to_byte();
                out[11 + 2 * index] = player.seconds_till_unpenalised;
            }
        }
        bytes
    }

    /// The team with this number, if it plays in this game.
    pub fn team(&self, team_number: u8) -> Option<&TeamInfo> {
        self.teams
            .iter()
            .find(|team| team.team_number == team_number)
    }

    /// Whether team messages count against the budget now: STANDBY, READY, SET and PLAYING,
    /// but not in a penalty shoot-out (GameController3's `team_message` action).
    pub fn team_messages_count(&self) -> bool {
        matches!(
            self.state,
            State::Standby | State::Ready | State::Set | State::Playing
        ) && self.game_phase != GamePhase::PenaltyShootout
    }
}

impl TeamInfo {
    /// The entry of player `number` (1–20), or `None` for numbers outside.
    pub fn player(&self, number: u8) -> Option<&RobotInfo> {
        self.players.get(usize::from(number).checked_sub(1)?)
    }

    /// Players that may send team messages now (not penalised, not substitutes), at least 1:
    /// the robots that share the team's message budget at this moment.
    pub fn sending_players(&self) -> u8 {
        let count = self
            .players
            .iter()
            .filter(|player| player.penalty == Penalty::None)
            .count();
        u8::try_from(count).unwrap_or(u8::MAX).max(1)
    }
}

struct PendingFieldError {
    field: &'static str,
    offset: usize,
    found: u8,
}

impl PendingFieldError {
    fn expecting(self, expected: &'static str) -> GameControllerDecodeError {
        field_error(self.field, self.offset, expected, self.found)
    }
}

fn enum_at<T>(
    bytes: &[u8; GAME_CONTROLLER_MESSAGE_SIZE],
    offset: usize,
    field: &'static str,
    from_byte: fn(u8) -> Option<T>,
) -> Result<T, PendingFieldError> {
    let found = bytes[offset];
    from_byte(found).ok_or(PendingFieldError {
        field,
        offset,
        found,
    })
}

fn field_error(
    field: impl Into<String>,
    offset: usize,
    expected: &'static str,
    found: u8,
) -> GameControllerDecodeError {
    GameControllerDecodeError::Field {
        field: field.into(),
        offset,
        expected,
        found,
    }
}

fn decode_team(
    bytes: &[u8; GAME_CONTROLLER_MESSAGE_SIZE],
    index: usize,
    offset: usize,
) -> Result<TeamInfo, GameControllerDecodeError> {
    let team = &bytes[offset..offset + TEAM_INFO_SIZE];
    let byte = |at: usize| team.get(at).copied().unwrap_or(0);
    let colour = |at: usize, name: &str| {
        TeamColour::from_byte(byte(at)).ok_or_else(|| {
            field_error(
                format!("teams[{index}].{name}"),
                offset + at,
                TeamColour::EXPECTED,
                byte(at),
            )
        })
    };
    let goalkeeper = match byte(3) {
        0 => None,
        number @ 1..=20 => Some(number),
        found => {
            return Err(field_error(
                format!("teams[{index}].goalkeeper"),
                offset + 3,
                "a player number 1-20 or 0",
                found,
            ))
        }
    };
    let mut players = [RobotInfo::default(); MAX_NUMBER_OF_PLAYERS];
    for (player_index, player) in players.iter_mut().enumerate() {
        let at = 10 + 2 * player_index;
        let penalty = Penalty::from_byte(byte(at)).ok_or_else(|| {
            field_error(
                format!("teams[{index}].players[{player_index}].penalty"),
                offset + at,
                Penalty::EXPECTED,
                byte(at),
            )
        })?;
        *player = RobotInfo {
            penalty,
            seconds_till_unpenalised: byte(at + 1),
        };
    }
    Ok(TeamInfo {
        team_number: byte(0),
        field_player_colour: colour(1, "fieldPlayerColour")?,
        goalkeeper_colour: colour(2, "goalkeeperColour")?,
        goalkeeper,
        score: byte(4),
        penalty_shot: byte(5),
        single_shots: u16::from_le_bytes([byte(6), byte(7)]),
        message_budget: u16::from_le_bytes([byte(8), byte(9)]),
        players,
    })
}
