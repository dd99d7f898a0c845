//! Cortex team messages: our own fixed-size binary format, 36 bytes, broadcast to UDP
//! `10000 + team number`. The rules allow any format up to 128 bytes; other teams' robots on
//! the same port send theirs, so every message starts with a magic and a version, and
//! anything without our magic is *foreign* (ignored and counted, not an error to log).
//!
//! ```text
//! 0 "CTX" | 3 version 1 | 4 team | 5 player (1–20) | 6 flags (bit 0 fallen, others 0)
//! 7 role | 8 intention | 9 pass target (0 none, 1–20)
//! 10 timestamp ms u32 (sender's clock)
//! 14 GameController packet number u8 | 15 ms since that packet u16 (65535: none heard)
//! 17 pose x mm i16 | 19 pose y mm i16 | 21 pose θ u16 (2π/65536 rad per unit)
//! 23 ball x mm i16 | 25 ball y mm i16 (robot-relative) | 27 ball age ms u16 (65535: never seen)
//! 29 walk target x mm i16 | 31 walk target y mm i16
//! 33 reserved 0 | 34 Fletcher-16 of bytes 0..34
//! ```
//!
//! Every field has a fixed size, so every message is exactly [`TEAM_MESSAGE_SIZE`] bytes, which
//! is checked against the rules' 128 at compile time. Values are quantised on the way out:
//! positions to whole mm (saturating at ±32.7 m), angles to 2π/65536 rad (wrapped), ages to
//! whole ms (saturating at 65.534 s); decoding and encoding again gives the same bytes.

use crate::wire_enum::wire_enum;
use serde::{Deserialize, Serialize};
use std::f32::consts::TAU;
use thiserror::Error;

/// The size of every Cortex team message.
pub const TEAM_MESSAGE_SIZE: usize = 36;
/// The most a team message may have (SPL rules; a longer one zeroes the team's score).
pub const MAX_TEAM_MESSAGE_SIZE: usize = 128;
const _: () = assert!(TEAM_MESSAGE_SIZE <= MAX_TEAM_MESSAGE_SIZE);
/// The first bytes of every Cortex team message.
pub const TEAM_MESSAGE_MAGIC: [u8; 3] = *b"CTX";
/// The format version this crate writes and reads.
pub const TEAM_MESSAGE_VERSION: u8 = 1;
/// Team messages go to this port plus the team number.
pub const TEAM_MESSAGE_PORT_BASE: u16 = 10000;

const CHECKSUM_OFFSET: usize = 34;
const NONE_U16: u16 = u16::MAX;
const ANGLE_UNITS_PER_TURN: f32 = 65536.0;

wire_enum! {
    /// What the robot does in the team.
    pub enum Role ("a role (0 none … 5 searcher)") {
        None = 0 => "none",
        Goalkeeper = 1 => "goalkeeper",
        Striker = 2 => "striker",
        Supporter = 3 => "supporter",
        Defender = 4 => "defender",
        Searcher = 5 => "searcher",
    }
}

wire_enum! {
    /// What the robot is about to do.
    pub enum Intention ("an intention (0 none … 5 keep goal)") {
        None = 0 => "none",
        PlayBall = 1 => "play-ball",
        Pass = 2 => "pass",
        WalkToPosition = 3 => "walk-to-position",
        SearchBall = 4 => "search-ball",
        KeepGoal = 5 => "keep-goal",
    }
}

/// What a team mate needs to know about this robot.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TeamMessage {
    pub team_number: u8,
    /// 1–20.
    pub player_number: u8,
    pub fallen: bool,
    pub role: Role,
    pub intention: Intention,
    /// The player the ball is passed to (1–20), with [`Intention::Pass`].
    pub pass_target: Option<u8>,
    /// The sender's clock when it sent, ms.
    pub timestamp_ms: u32,
    /// The newest GameController packet the sender heard, for clock synchronisation.
    pub game_controller_reference: Option<GameControllerReference>,
    /// Field coordinates: x, y mm; angle rad.
    pub pose: Pose,
    /// The ball, if the robot has seen it.
    pub ball: Option<Ball>,
    /// Where the robot walks to, field coordinates, mm.
    pub walk_target_mm: [f32; 2],
}

/// Which GameController packet the sender heard last, and how long before sending.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameControllerReference {
    pub packet_number: u8,
    /// Saturates at 65534.
    pub milliseconds_since: u16,
}

/// A robot pose on the field.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Pose {
    pub x_mm: f32,
    pub y_mm: f32,
    pub angle_rad: f32,
}

/// The ball as the sender sees it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Ball {
    /// Relative to the robot, mm.
    pub position_mm: [f32; 2],
    /// Since the ball was last seen; saturates at 65534.
    pub age_ms: u16,
}

/// Why a team message cannot be written.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum TeamMessageEncodeError {
    #[error("player number {found}: expected 1-20")]
    PlayerNumber { found: u8 },
    #[error("pass target {found}: expected 1-20")]
    PassTarget { found: u8 },
    #[error("{field} is {found}: expected a finite number")]
    NotFinite { field: &'static str, found: f32 },
}

/// Why a datagram on the team port is not a Cortex team message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TeamMessageDecodeError {
    /// Not our magic: another team's robot (or anything else) on the port.
    #[error("foreign message ({length} bytes): it does not start with \"CTX\"")]
    Foreign { length: usize },
    #[error("version at byte 3: expected {TEAM_MESSAGE_VERSION}, found {found}")]
    Version { found: u8 },
    #[error("length: expected {TEAM_MESSAGE_SIZE} bytes, found {found}")]
    Length { found: usize },
    #[error("checksum at byte {CHECKSUM_OFFSET}: computed {computed:#06x}, found {found:#06x}")]
    Checksum { computed: u16, found: u16 },
    #[error("{field} at byte {offset}: expected {expected}, found {found}")]
    Field {
        field: &'static str,
        offset: usize,
        expected: &'static str,
        found: u16,
    },
}

impl TeamMessageDecodeError {
    /// Whether the datagram was somebody else's (not a broken message of ours).
    pub fn is_foreign(&self) -> bool {
        matches!(self, Self::Foreign { .. })
    }
}

impl TeamMessage {
    /// The message's bytes: always [`TEAM_MESSAGE_SIZE`], quantised as the module says.
    pub fn encode(&self) -> Result<[u8; TEAM_MESSAGE_SIZE], TeamMessageEncodeError> {
        if !(1..=20).contains(&self.player_number) {
            return Err(TeamMessageEncodeError::PlayerNumber {
                found: self.player_number,
            });
        }
        if let Some(found) = self.pass_target.filter(|target| !(1..=20).contains(target)) {
            return Err(TeamMessageEncodeError::PassTarget { found });
        }
        let mut bytes = [0; TEAM_MESSAGE_SIZE];
        bytes[..3].copy_from_slice(&TEAM_MESSAGE_MAGIC);
        bytes[3] = TEAM_MESSAGE_VERSION;
        bytes[4] = self.team_number;
        bytes[5] = self.player_number;
        bytes[6] = u8::from(self.fallen);
        bytes[7] = self.role.to_byte();
        bytes[8] = self.intention.to_byte();
        bytes[9] = self.pass_target.unwrap_or(0);
        bytes[10..14].copy_from_slice(&self.timestamp_ms.to_le_bytes());
        let (packet_number, since) = match self.game_controller_reference {
            Some(reference) => (
                reference.packet_number,
                reference.milliseconds_since.min(NONE_U16 - 1),
            ),
            None => (0, NONE_U16),
        };
        bytes[14] = packet_number;
        bytes[15..17].copy_from_slice(&since.to_le_bytes());
        put(&mut bytes, 17, millimetres("pose.x_mm", self.pose.x_mm)?);
        put(&mut bytes, 19, millimetres("pose.y_mm", self.pose.y_mm)?);
        put(&mut bytes, 21, angle_units(self.pose.angle_rad)?);
        let (ball_x, ball_y, ball_age) = match self.ball {
            Some(ball) => (
                millimetres("ball.position_mm[0]", ball.position_mm[0])?,
                millimetres("ball.position_mm[1]", ball.position_mm[1])?,
                ball.age_ms.min(NONE_U16 - 1),
            ),
            None => (0, 0, NONE_U16),
        };
        put(&mut bytes, 23, ball_x);
        put(&mut bytes, 25, ball_y);
        put(&mut bytes, 27, ball_age);
        put(
            &mut bytes,
            29,
            millimetres("walk_target_mm[0]", self.walk_target_mm[0])?,
        );
        put(
            &mut bytes,
            31,
            millimetres("walk_target_mm[1]", self.walk_target_mm[1])?,
        );
        let checksum = fletcher16(&bytes[..CHECKSUM_OFFSET]);
        put(&mut bytes, CHECKSUM_OFFSET, checksum);
        Ok(bytes)
    }

    /// Decodes one datagram from the team port. Total: never panics. Foreign datagrams give
    /// [`TeamMessageDecodeError::Foreign`].
    pub fn decode(bytes: &[u8]) -> Result<Self, TeamMessageDecodeError> {
        if bytes.len() < 4 || bytes[..3] != TEAM_MESSAGE_MAGIC {
            return Err(TeamMessageDecodeError::Foreign {
                length: bytes.len(),
            });
        }
        if bytes[3] != TEAM_MESSAGE_VERSION {
            return Err(TeamMessageDecodeError::Version { found: bytes[3] });
        }
        let bytes: &[u8; TEAM_MESSAGE_SIZE] = bytes
            .try_into()
            .map_err(|_| TeamMessageDecodeError::Length { found: bytes.len() })?;
        let computed = fletcher16(&bytes[..CHECKSUM_OFFSET]);
        let found = u16_at(bytes, CHECKSUM_OFFSET);
        if computed != found {
            return Err(TeamMessageDecodeError::Checksum { computed, found });
        }
        let field = |field, offset, expected, found: u8| TeamMessageDecodeError::Field {
            field,
            offset,
            expected,
            found: found.into(),
        };
        if !(1..=20).contains(&bytes[5]) {
            return Err(field("player", 5, "1-20", bytes[5]));
        }
        let fallen = match bytes[6] {
            0 => false,
            1 => true,
            found => return Err(field("flags", 6, "0 or 1 (bit 0: fallen)", found)),
        };
        let role = Role::from_byte(bytes[7]).ok_or(field("role", 7, Role::EXPECTED, bytes[7]))?;
        let intention = Intention::from_byte(bytes[8]).ok_or(field(
            "intention",
            8,
            Intention::EXPECTED,
            bytes[8],
        ))?;
        let pass_target = match bytes[9] {
            0 => None,
            target @ 1..=20 => Some(target),
            found => return Err(field("pass target", 9, "0 or 1-20", found)),
        };
        let game_controller_reference = match (bytes[14], u16_at(bytes, 15)) {
            (0, NONE_U16) => None,
            (found, NONE_U16) => {
                return Err(field(
                    "GameController packet number",
                    14,
                    "0 when no packet was heard",
                    found,
                ))
            }
            (packet_number, milliseconds_since) => Some(GameControllerReference {
                packet_number,
                milliseconds_since,
            }),
        };
        let ball = match (i16_at(bytes, 23), i16_at(bytes, 25), u16_at(bytes, 27)) {
            (0, 0, NONE_U16) => None,
            (_, _, NONE_U16) => {
                return Err(TeamMessageDecodeError::Field {
                    field: "ball position",
                    offset: 23,
                    expected: "0 when the ball was never seen",
                    found: u16_at(bytes, 23) | u16_at(bytes, 25),
                })
            }
            (x, y, age_ms) => Some(Ball {
                position_mm: [x.into(), y.into()],
                age_ms,
            }),
        };
        if bytes[33] != 0 {
            return Err(field("reserved", 33, "0", bytes[33]));
        }
        Ok(Self {
            team_number: bytes[4],
            player_number: bytes[5],
            fallen,
            role,
            intention,
            pass_target,
            timestamp_ms: u32::from_le_bytes([bytes[10], bytes[11], bytes[12], bytes[13]]),
            game_controller_reference,
            pose: Pose {
                x_mm: i16_at(bytes, 17).into(),
                y_mm: i16_at(bytes, 19).into(),
                angle_rad: f32::from(u16_at(bytes, 21) as i16) * (TAU / ANGLE_UNITS_PER_TURN),
            },
            ball,
            walk_target_mm: [i16_at(bytes, 29).into(), i16_at(bytes, 31).into()],
        })
    }
}

/// Fletcher-16 (modulo 255) of `bytes`.
fn fletcher16(bytes: &[u8]) -> u16 {
    let (mut sum1, mut sum2) = (0_u16, 0_u16);
    for &byte in bytes {
        sum1 = (sum1 + u16::from(byte)) % 255;
        sum2 = (sum2 + sum1) % 255;
    }
    (sum2 << 8) | sum1
}

fn put(bytes: &mut [u8; TEAM_MESSAGE_SIZE], offset: usize, value: impl Into<WireU16>) {
    let value = value.into().0.to_le_bytes();
    bytes[offset] = value[0];
    bytes[offset + 1] = value[1];
}

struct WireU16(u16);

impl From<u16> for WireU16 {
    fn from(value: u16) -> Self {
        Self(value)
    }
}

impl From<i16> for WireU16 {
    fn from(value: i16) -> Self {
        Self(u16::from_le_bytes(value.to_le_bytes()))
    }
}

fn u16_at(bytes: &[u8; TEAM_MESSAGE_SIZE], offset: usize) -> u16 {
    u16::from_le_bytes([bytes[offset], bytes[offset + 1]])
}

fn i16_at(bytes: &[u8; TEAM_MESSAGE_SIZE], offset: usize) -> i16 {
    i16::from_le_bytes([bytes[offset], bytes[offset + 1]])
}

/// Whole millimetres, saturating at the `i16` range.
fn millimetres(field: &'static str, value: f32) -> Result<i16, TeamMessageEncodeError> {
    if !value.is_finite() {
        return Err(TeamMessageEncodeError::NotFinite {
            field,
            found: value,
        });
    }
    // `as` saturates; the value is finite.
    Ok(value.round() as i16)
}

/// The angle in units of 2π/65536, wrapped to one turn.
fn angle_units(angle_rad: f32) -> Result<u16, TeamMessageEncodeError> {
    if !angle_rad.is_finite() {
        return Err(TeamMessageEncodeError::NotFinite {
            field: "pose.angle_rad",
            found: angle_rad,
        });
    }
    let units = (f64::from(angle_rad) * f64::from(ANGLE_UNITS_PER_TURN) / std::f64::consts::TAU)
        .round() as i64;
    Ok(units.rem_euclid(65536) as u16)
}
