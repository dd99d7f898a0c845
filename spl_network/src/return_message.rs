//! `RoboCupGameControlReturnData` v4: the 32 bytes a robot unicasts to the GameController at
//! UDP 3939, 0.5–2 times a second. Little-endian:
//!
//! ```text
//! 0 "RGrt" | 4 version 4 | 5 playerNum (1–20) | 6 teamNum | 7 fallen (0/1)
//! 8 pose x mm f32 | 12 pose y mm f32 | 16 pose θ rad f32 | 20 ballAge s f32 (−1 never seen)
//! 24 ball x mm f32 | 28 ball y mm f32 (robot-relative)
//! ```
//!
//! The GameController rejects a wrong length, header or version, a player number outside 1–20,
//! `fallen` > 1 and NaN; the encoder refuses to write what it would reject, the decoder reports
//! the same faults with their byte offset. Both also refuse infinities (the GameController
//! takes them, but they only come from a broken estimate).

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The packet's size in bytes.
pub const RETURN_MESSAGE_SIZE: usize = 32;
/// The header.
pub const RETURN_HEADER: [u8; 4] = *b"RGrt";
/// The version this crate speaks.
pub const RETURN_VERSION: u8 = 4;

/// One status message of a robot to the GameController.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GameControllerReturnMessage {
    /// 1–20.
    pub player_number: u8,
    pub team_number: u8,
    pub fallen: bool,
    /// Field coordinates: x and y in mm (0,0 the centre, +x towards the opponent goal), θ in rad.
    pub pose: [f32; 3],
    /// Seconds since this robot saw the ball; `None` is sent as −1 (never seen).
    pub ball_age_seconds: Option<f32>,
    /// The ball relative to the robot, mm.
    pub ball_position: [f32; 2],
}

/// Why a return message cannot be written.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ReturnMessageEncodeError {
    #[error("player number {found}: expected 1-20")]
    PlayerNumber { found: u8 },
    #[error("{field} is {found}: expected a finite number")]
    NotFinite { field: &'static str, found: f32 },
    #[error("ball age {found} s: expected at least 0 (None means never seen)")]
    NegativeBallAge { found: f32 },
}

/// Why bytes are not a v4 return message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReturnMessageDecodeError {
    #[error("header at byte 0: expected \"RGrt\", found \"{}\"", found.escape_ascii())]
    Header { found: Vec<u8> },
    #[error("version at byte 4: expected {RETURN_VERSION}, found {found}")]
    Version { found: u8 },
    #[error("length: expected {RETURN_MESSAGE_SIZE} bytes, found {found}")]
    Length { found: usize },
    #[error("playerNum at byte 5: expected 1-20, found {found}")]
    PlayerNumber { found: u8 },
    #[error("fallen at byte 7: expected 0 or 1, found {found}")]
    Fallen { found: u8 },
    #[error("{field} at byte {offset}: expected a finite number, found bits {bits:#010x}")]
    NotFinite {
        field: &'static str,
        offset: usize,
        bits: u32,
    },
}

const FLOAT_FIELDS: [(&str, usize); 6] = [
    ("pose[0]", 8),
    ("pose[1]", 12),
    ("pose[2]", 16),
    ("ballAge", 20),
    ("ball[0]", 24),
    ("ball[1]", 28),
];

impl GameControllerReturnMessage {
    /// The 32 bytes, or what the GameController would reject.
    pub fn encode(&self) -> Result<[u8; RETURN_MESSAGE_SIZE], ReturnMessageEncodeError> {
        if !(1..=20).contains(&self.player_number) {
            return Err(ReturnMessageEncodeError::PlayerNumber {
                found: self.player_number,
            });
        }
        let ball_age = match self.ball_age_seconds {
            None => -1.0,
            Some(age) if age < 0.0 => {
                return Err(ReturnMessageEncodeError::NegativeBallAge { found: age })
            }
            Some(age) => age,
        };
        let floats = [
            self.pose[0],
            self.pose[1],
            self.pose[2],
            ball_age,
            self.ball_position[0],
            self.ball_position[1],
        ];
        let mut bytes = [0; RETURN_MESSAGE_SIZE];
        bytes[..4].copy_from_slice(&RETURN_HEADER);
        bytes[4] = RETURN_VERSION;
        bytes[5] = self.player_number;
        bytes[6] = self.team_number;
        bytes[7] = u8::from(self.fallen);
        for (value, (field, offset)) in floats.into_iter().zip(FLOAT_FIELDS) {
            if !value.is_finite() {
                return Err(ReturnMessageEncodeError::NotFinite {
                    field,
                    found: value,
                });
            }
            bytes[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
        }
        Ok(bytes)
    }

    /// Decodes one datagram as the GameController checks it. Total: never panics.
    /// A negative ball age means "never seen" (`None`).
    pub fn decode(bytes: &[u8]) -> Result<Self, ReturnMessageDecodeError> {
        let header_length = bytes.len().min(4);
        if bytes[..header_length] != RETURN_HEADER[..header_length] {
            return Err(ReturnMessageDecodeError::Header {
                found: bytes[..header_length].to_vec(),
            });
        }
        match bytes.get(4) {
            None => return Err(ReturnMessageDecodeError::Length { found: bytes.len() }),
            Some(&RETURN_VERSION) => {}
            Some(&found) => return Err(ReturnMessageDecodeError::Version { found }),
        }
        let bytes: &[u8; RETURN_MESSAGE_SIZE] = bytes
            .try_into()
            .map_err(|_| ReturnMessageDecodeError::Length { found: bytes.len() })?;
        if !(1..=20).contains(&bytes[5]) {
            return Err(ReturnMessageDecodeError::PlayerNumber { found: bytes[5] });
        }
        let fallen = match bytes[7] {
            0 => false,
            1 => true,
            found => return Err(ReturnMessageDecodeError::Fallen { found }),
        };
        let mut floats = [0.0_f32; 6];
        for (value, (field, offset)) in floats.iter_mut().zip(FLOAT_FIELDS) {
            let raw = [
                bytes[offset],
                bytes[offset + 1],
                bytes[offset + 2],
                bytes[offset + 3],
            ];
            *value = f32::from_le_bytes(raw);
            if !value.is_finite() {
                return Err(ReturnMessageDecodeError::NotFinite {
                    field,
                    offset,
                    bits: u32::from_le_bytes(raw),
                });
            }
        }
        Ok(Self {
            player_number: bytes[5],
            team_number: bytes[6],
            fallen,
            pose: [floats[0], floats[1], floats[2]],
            ball_age_seconds: (floats[3] >= 0.0).then_some(floats[3]),
            ball_position: [floats[4], floats[5]],
        })
    }
}
