//! The legs: their six joints and forward kinematics from the torso to the sole.
//!
//! Chain of the left leg (the right is its mirror image in the x-z plane):
//!
//! ```text
//! torso ─ T(0, +0.05, −0.085) ─ yaw-pitch about (0, 1, −1)/√2 ─ roll about x ─ pitch about y
//!       ─ T(0, 0, −thigh) ─ knee about y ─ T(0, 0, −tibia) ─ ankle pitch about y
//!       ─ ankle roll about x ─ T(0, 0, −foot height) = sole
//! ```
//!
//! The right leg's yaw-pitch axis is (0, 1, 1)/√2; with LoLA's raw angles a positive yaw-pitch
//! turns both toes inwards and swings both legs back, a positive roll moves either foot to the
//! robot's left, and positive pitches move the feet backwards (the NAO's conventions).

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};

use crate::dimensions::{
    FOOT_HEIGHT_M, HIP_OFFSET_Y_M, HIP_OFFSET_Z_M, HIP_YAW_PITCH_AXIS_ANGLE_RAD, THIGH_LENGTH_M,
    TIBIA_LENGTH_M,
};

/// Which leg (or foot).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    Left,
    Right,
}

impl Side {
    /// +1 for the left side, −1 for the right: the sign of the side's y coordinates.
    pub fn sign(self) -> f64 {
        match self {
            Side::Left => 1.0,
            Side::Right => -1.0,
        }
    }

    /// The other side.
    pub fn opposite(self) -> Side {
        match self {
            Side::Left => Side::Right,
            Side::Right => Side::Left,
        }
    }
}

/// One value per leg joint, from the hip to the ankle.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LegJoints<T> {
    /// The hip yaw-pitch joint (one motor drives both legs' joints).
    pub hip_yaw_pitch: T,
    pub hip_roll: T,
    pub hip_pitch: T,
    pub knee_pitch: T,
    pub ankle_pitch: T,
    pub ankle_roll: T,
}

impl<T: Copy> LegJoints<T> {
    /// The values in chain order: yaw-pitch, hip roll, hip pitch, knee, ankle pitch, ankle roll.
    pub fn to_array(&self) -> [T; 6] {
        [
            self.hip_yaw_pitch,
            self.hip_roll,
            self.hip_pitch,
            self.knee_pitch,
            self.ankle_pitch,
            self.ankle_roll,
        ]
    }

    /// The inverse of [`LegJoints::to_array`].
    pub fn from_array(values: [T; 6]) -> LegJoints<T> {
        let [hip_yaw_pitch, hip_roll, hip_pitch, knee_pitch, ankle_pitch, ankle_roll] = values;
        LegJoints {
            hip_yaw_pitch,
            hip_roll,
            hip_pitch,
            knee_pitch,
            ankle_pitch,
            ankle_roll,
        }
    }
}

/// The names of the six joints, in [`LegJoints::to_array`] order (for messages).
pub const LEG_JOINT_NAMES: [&str; 6] = [
    "hip_yaw_pitch",
    "hip_roll",
    "hip_pitch",
    "knee_pitch",
    "ankle_pitch",
    "ankle_roll",
];

impl LegJoints<f64> {
    /// The same leg posture on the other side: roll angles negate, the rest stay.
    pub fn mirrored(&self) -> LegJoints<f64> {
        LegJoints {
            hip_roll: -self.hip_roll,
            ankle_roll: -self.ankle_roll,
            ..*self
        }
    }
}

/// The hip joint's position in the torso frame.
pub fn hip_in_torso(side: Side) -> Vector3<f64> {
    Vector3::new(0.0, side.sign() * HIP_OFFSET_Y_M, -HIP_OFFSET_Z_M)
}

/// The unit axis of the hip yaw-pitch joint of `side`, in the torso frame.
pub fn hip_yaw_pitch_axis(side: Side) -> Vector3<f64> {
    let (sin, cos) = HIP_YAW_PITCH_AXIS_ANGLE_RAD.sin_cos();
    Vector3::new(0.0, cos, -side.sign() * sin)
}

/// Every frame along one leg, in the torso frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LegFrames {
    /// After the yaw-pitch joint, at the hip.
    pub pelvis: Isometry3<f64>,
    /// After hip roll and hip pitch, at the hip.
    pub thigh: Isometry3<f64>,
    /// After the knee.
    pub tibia: Isometry3<f64>,
    /// After both ankle joints, at the ankle.
    pub ankle: Isometry3<f64>,
    /// The sole, below the ankle.
    pub sole: Isometry3<f64>,
}

fn rotation(axis: Vector3<f64>, angle_rad: f64) -> Isometry3<f64> {
    Isometry3::from_parts(
        Translation3::identity(),
        UnitQuaternion::from_scaled_axis(axis * angle_rad),
    )
}

fn translation(x: f64, y: f64, z: f64) -> Isometry3<f64> {
    Isometry3::translation(x, y, z)
}

/// Forward kinematics of one leg: every frame from the pelvis to the sole.
pub fn leg_frames(side: Side, joints: &LegJoints<f64>) -> LegFrames {
    let hip = hip_in_torso(side);
    let pelvis = Isometry3::translation(hip.x, hip.y, hip.z)
        * rotation(hip_yaw_pitch_axis(side), joints.hip_yaw_pitch);
    let thigh =
        pelvis * rotation(Vector3::x(), joints.hip_roll) * rotation(Vector3::y(), joints.hip_pitch);
    let tibia =
        thigh * translation(0.0, 0.0, -THIGH_LENGTH_M) * rotation(Vector3::y(), joints.knee_pitch);
    let ankle = tibia
        * translation(0.0, 0.0, -TIBIA_LENGTH_M)
        * rotation(Vector3::y(), joints.ankle_pitch)
        * rotation(Vector3::x(), joints.ankle_roll);
    let sole = ankle * translation(0.0, 0.0, -FOOT_HEIGHT_M);
    LegFrames {
        pelvis,
        thigh,
        tibia,
        ankle,
        sole,
    }
}

/// Forward kinematics of one leg: the sole's pose in the torso frame.
pub fn sole_in_torso(side: Side, joints: &LegJoints<f64>) -> Isometry3<f64> {
    leg_frames(side, joints).sole
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_yaw_pitch_axes_are_mirror_images_at_45_degrees() {
        let left = hip_yaw_pitch_axis(Side::Left);
        let right = hip_yaw_pitch_axis(Side::Right);
        assert!((left.norm() - 1.0).abs() < 1e-12);
        assert!((left.y - right.y).abs() < 1e-12 && (left.z + right.z).abs() < 1e-12);
        assert!((left.y.atan2(-left.z) - std::f64::consts::FRAC_PI_4).abs() < 1e-12);
    }
}
