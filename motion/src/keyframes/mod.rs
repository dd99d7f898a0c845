//! Keyframe motions ("special actions", B-Human's `.mof` files) and their TOML format.
//!
//! A motion is a file `motions/<name>.toml` along the configuration search path; the whole file
//! is taken from the most specific layer that has it (a robot's `wave.toml` replaces the
//! default one). It is a list of keyframes; each keyframe gives the pose to reach, how long the
//! way there takes, and the stiffness on the way:
//!
//! ```toml
//! description = "Wave with the right arm"
//!
//! [[keyframe]]
//! duration_ms = 600        # interpolation time from the previous pose (> 0)
//! stiffness = 0.8          # every joint; or a table per joint: { "*" = 0.8, HeadYaw = 0.4 }
//! [keyframe.positions_deg] # degrees; the hands LeftHand, RightHand: opening 0 (closed) ..= 1
//! RightShoulderPitch = -60
//! RightElbowRoll = 60
//! HeadYaw = "*"            # "*": this keyframe does not move the joint
//! "*" = "*"                # every joint not listed: "*"
//! ```
//!
//! - Joints are named as in [`JointId`](types::JointId) (`HeadYaw`, `LeftShoulderPitch` …
//!   `RightHand`), LoLA's 25 joints. A keyframe lists every joint, or ends the list with
//!   `"*" = "*"`.
//! - `"*"` keeps the joint where it is; the head joints left `"*"` follow the head motion
//!   request (as B-Human's `*` leaves a joint to the head motion control).
//! - Angles must lie in the joint's range ([`joint_limits`](super::joint_limits)); stiffness in
//!   0 ..= 1. Every bad file is a [`config::ConfigError`] naming the file, the line and the key.
//! - Motion from keyframe to keyframe is interpolated smoothly (see
//!   [`interpolation`](super::interpolation)); the first keyframe starts from wherever the
//!   joints are.

mod parse;
#[cfg(test)]
mod tests;

pub use parse::{joint_named, parse_motion};

use std::path::{Path, PathBuf};
use types::Joints;

/// What a keyframe asks of one joint.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum JointTarget {
    /// `"*"`: the keyframe does not move the joint (the head joints follow the head request).
    #[default]
    Keep,
    /// Move to this value: rad, or the opening 0 ..= 1 for the hands.
    Position(f32),
}

/// One keyframe: the pose to reach within `duration_ms`, and the stiffness on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct Keyframe {
    /// Interpolation time from the previous pose, ms (> 0).
    pub duration_ms: f32,
    /// Target per joint.
    pub positions: Joints<JointTarget>,
    /// Stiffness per joint at the end of the keyframe, 0 ..= 1.
    pub stiffnesses: Joints<f32>,
}

/// A keyframe motion loaded from a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Motion {
    /// Its name: the file name without `.toml`.
    pub name: String,
    /// The file it was read from.
    pub file: PathBuf,
    /// What it does, for people.
    pub description: Option<String>,
    /// At least one keyframe.
    pub keyframes: Vec<Keyframe>,
}

impl Motion {
    /// Reads and checks the motion file `path`, named `name`.
    pub fn load(name: &str, path: &Path) -> Result<Motion, config::ConfigError> {
        parse_motion(name, path, &config::read_text(path)?)
    }

    /// How long the whole motion takes, ms.
    pub fn duration_ms(&self) -> f32 {
        self.keyframes.iter().map(|frame| frame.duration_ms).sum()
    }

    /// The pose the motion ends in: per joint the last position a keyframe gives it, `None` for
    /// joints that no keyframe moves.
    pub fn final_positions(&self) -> Joints<Option<f32>> {
        let mut positions = Joints::filled(None);
        for frame in &self.keyframes {
            for (joint, target) in frame.positions.iter() {
                if let JointTarget::Position(value) = target {
                    positions[joint] = Some(*value);
                }
            }
        }
        positions
    }
}
