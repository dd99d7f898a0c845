//! NAO v6 joint limits (Aldebaran's "NAO - Joints" documentation, H25 V6), radians.
//!
//! The right leg's roll limits are the mirror of the left's; the pitch limits differ by a few
//! tenths of a degree between the sides, as documented.

use crate::leg::{LegJoints, Side};

/// A closed interval of joint angles, rad.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointRange {
    pub min_rad: f64,
    pub max_rad: f64,
}

impl JointRange {
    const fn degrees(min_deg: f64, max_deg: f64) -> JointRange {
        JointRange {
            min_rad: min_deg * std::f64::consts::PI / 180.0,
            max_rad: max_deg * std::f64::consts::PI / 180.0,
        }
    }

    /// Whether `angle_rad` lies inside (NaN does not).
    pub fn contains(&self, angle_rad: f64) -> bool {
        (self.min_rad..=self.max_rad).contains(&angle_rad)
    }

    /// `angle_rad` moved into the range.
    pub fn clamp(&self, angle_rad: f64) -> f64 {
        angle_rad.clamp(self.min_rad, self.max_rad)
    }
}

/// Head yaw.
pub const HEAD_YAW: JointRange = JointRange::degrees(-119.52, 119.52);
/// Head pitch (the documented range at zero yaw; the head's range shrinks at large yaw).
pub const HEAD_PITCH: JointRange = JointRange::degrees(-38.5, 29.5);

/// The shared hip yaw-pitch joint.
pub const HIP_YAW_PITCH: JointRange = JointRange::degrees(-65.62, 42.44);

/// The limits of one leg's six joints, in [`LegJoints`] order.
pub fn leg(side: Side) -> LegJoints<JointRange> {
    match side {
        Side::Left => LegJoints {
            hip_yaw_pitch: HIP_YAW_PITCH,
            hip_roll: JointRange::degrees(-21.74, 45.29),
            hip_pitch: JointRange::degrees(-88.0, 27.73),
            knee_pitch: JointRange::degrees(-5.29, 121.04),
            ankle_pitch: JointRange::degrees(-68.15, 52.86),
            ankle_roll: JointRange::degrees(-22.79, 44.06),
        },
        Side::Right => LegJoints {
            hip_yaw_pitch: HIP_YAW_PITCH,
            hip_roll: JointRange::degrees(-45.29, 21.74),
            hip_pitch: JointRange::degrees(-88.0, 27.73),
            knee_pitch: JointRange::degrees(-5.90, 121.47),
            ankle_pitch: JointRange::degrees(-67.97, 53.40),
            ankle_roll: JointRange::degrees(-44.06, 22.80),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roll_limits_are_mirrored_and_pitch_limits_contain_the_stand() {
        let left = leg(Side::Left);
        let right = leg(Side::Right);
        assert!((left.hip_roll.min_rad + right.hip_roll.max_rad).abs() < 1e-12);
        assert!((left.ankle_roll.max_rad + right.ankle_roll.min_rad).abs() < 1e-3);
        for limits in [left, right] {
            assert!(limits.knee_pitch.contains(50f64.to_radians()));
            assert!(limits.hip_pitch.contains(-25f64.to_radians()));
            assert!(!limits.knee_pitch.contains(f64::NAN));
        }
        assert_eq!(HEAD_YAW.clamp(3.0), HEAD_YAW.max_rad);
    }
}
