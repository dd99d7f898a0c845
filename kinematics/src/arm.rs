//! The arms: their five joints and forward kinematics from the torso to the hand.
//!
//! Chain of the left arm (the right is its mirror image in the x-z plane):
//!
//! ```text
//! torso ─ T(0, +0.098, +0.1) ─ shoulder pitch about y ─ shoulder roll about z   = upper arm
//!       ─ T(0.105, +0.015, 0) ─ elbow yaw about x ─ elbow roll about z           = lower arm
//!       ─ T(0.05595, 0, 0) ─ wrist yaw about x                                    = hand
//! ```
//!
//! With all joints at zero the arm points straight forward; a positive shoulder pitch swings it
//! down (π/2: hanging beside the torso), a positive shoulder roll moves it to the robot's left
//! (outward for the left arm, inward for the right), and the elbow roll bends the lower arm
//! toward the body (negative on the left arm, positive on the right): the NAO's conventions,
//! the angles LoLA reports.

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};

use crate::dimensions::{
    ELBOW_OFFSET_Y_M, LOWER_ARM_LENGTH_M, SHOULDER_OFFSET_Y_M, SHOULDER_OFFSET_Z_M,
    UPPER_ARM_LENGTH_M,
};
use crate::leg::Side;

/// One value per arm joint, from the shoulder to the wrist.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ArmJoints<T> {
    pub shoulder_pitch: T,
    pub shoulder_roll: T,
    pub elbow_yaw: T,
    pub elbow_roll: T,
    pub wrist_yaw: T,
}

impl<T: Copy> ArmJoints<T> {
    /// The values in chain order: shoulder pitch, shoulder roll, elbow yaw, elbow roll, wrist
    /// yaw.
    pub fn to_array(&self) -> [T; 5] {
        [
            self.shoulder_pitch,
            self.shoulder_roll,
            self.elbow_yaw,
            self.elbow_roll,
            self.wrist_yaw,
        ]
    }

    /// The inverse of [`ArmJoints::to_array`].
    pub fn from_array(values: [T; 5]) -> ArmJoints<T> {
        let [shoulder_pitch, shoulder_roll, elbow_yaw, elbow_roll, wrist_yaw] = values;
        ArmJoints {
            shoulder_pitch,
            shoulder_roll,
            elbow_yaw,
            elbow_roll,
            wrist_yaw,
        }
    }
}

/// The poses of an arm's links in the torso frame (link coordinates → torso coordinates); each
/// link's x axis runs along it from its joint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArmFrames {
    /// Origin at the shoulder joint, x toward the elbow.
    pub upper_arm: Isometry3<f64>,
    /// Origin at the elbow joint, x toward the wrist.
    pub lower_arm: Isometry3<f64>,
    /// Origin at the wrist joint, x toward the finger tips.
    pub hand: Isometry3<f64>,
}

/// The arm's links at these joint angles.
pub fn arm_frames(side: Side, joints: &ArmJoints<f64>) -> ArmFrames {
    let sign = side.sign();
    let rotation = |axis: Vector3<f64>, angle: f64| {
        UnitQuaternion::from_axis_angle(&nalgebra::Unit::new_normalize(axis), angle)
    };
    let shoulder = Isometry3::from_parts(
        Translation3::new(0.0, sign * SHOULDER_OFFSET_Y_M, SHOULDER_OFFSET_Z_M),
        rotation(Vector3::y(), joints.shoulder_pitch)
            * rotation(Vector3::z(), joints.shoulder_roll),
    );
    let elbow = shoulder
        * Isometry3::from_parts(
            Translation3::new(UPPER_ARM_LENGTH_M, sign * ELBOW_OFFSET_Y_M, 0.0),
            rotation(Vector3::x(), joints.elbow_yaw) * rotation(Vector3::z(), joints.elbow_roll),
        );
    let wrist = elbow
        * Isometry3::from_parts(
            Translation3::new(LOWER_ARM_LENGTH_M, 0.0, 0.0),
            rotation(Vector3::x(), joints.wrist_yaw),
        );
    ArmFrames {
        upper_arm: shoulder,
        lower_arm: elbow,
        hand: wrist,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::FRAC_PI_2;

    #[test]
    fn at_zero_the_arm_points_forward_from_the_shoulder() {
        for side in [Side::Left, Side::Right] {
            let frames = arm_frames(side, &ArmJoints::default());
            let wrist = frames.hand.translation.vector;
            let expected = Vector3::new(
                UPPER_ARM_LENGTH_M + LOWER_ARM_LENGTH_M,
                side.sign() * (SHOULDER_OFFSET_Y_M + ELBOW_OFFSET_Y_M),
                SHOULDER_OFFSET_Z_M,
            );
            assert!((wrist - expected).norm() < 1e-12, "{side:?}: {wrist:?}");
        }
    }

    #[test]
    fn a_shoulder_pitch_of_a_right_angle_lets_the_arm_hang() {
        let joints = ArmJoints {
            shoulder_pitch: FRAC_PI_2,
            ..ArmJoints::default()
        };
        let frames = arm_frames(Side::Left, &joints);
        let elbow = frames.lower_arm.translation.vector;
        // Straight below the shoulder, an upper arm's length down.
        assert!(elbow.x.abs() < 1e-12, "{elbow:?}");
        assert!((elbow.z - (SHOULDER_OFFSET_Z_M - UPPER_ARM_LENGTH_M)).abs() < 1e-12);
        // The upper arm's x axis points down.
        let along = frames.upper_arm.rotation * Vector3::x();
        assert!(
            (along - Vector3::new(0.0, 0.0, -1.0)).norm() < 1e-12,
            "{along:?}"
        );
    }

    #[test]
    fn positive_shoulder_roll_moves_either_arm_to_the_left_and_elbow_roll_bends_inward() {
        for side in [Side::Left, Side::Right] {
            let rolled = arm_frames(
                side,
                &ArmJoints {
                    shoulder_roll: 0.5,
                    ..ArmJoints::default()
                },
            );
            let straight = arm_frames(side, &ArmJoints::default());
            assert!(
                rolled.hand.translation.y > straight.hand.translation.y,
                "{side:?}"
            );
            // The NAO's elbow roll bends toward the body: negative on the left, positive on
            // the right; the wrist comes nearer the torso's middle.
            let bent = arm_frames(
                side,
                &ArmJoints {
                    elbow_roll: -side.sign() * 1.0,
                    ..ArmJoints::default()
                },
            );
            assert!(
                bent.hand.translation.y.abs() < straight.hand.translation.y.abs(),
                "{side:?}: {:?}",
                bent.hand.translation
            );
        }
    }

    #[test]
    fn the_right_arm_mirrors_the_left() {
        let joints = ArmJoints {
            shoulder_pitch: 1.2,
            shoulder_roll: 0.3,
            elbow_yaw: -0.7,
            elbow_roll: -0.9,
            wrist_yaw: 0.4,
        };
        let mirrored = ArmJoints {
            shoulder_roll: -joints.shoulder_roll,
            elbow_yaw: -joints.elbow_yaw,
            elbow_roll: -joints.elbow_roll,
            wrist_yaw: -joints.wrist_yaw,
            ..joints
        };
        let left = arm_frames(Side::Left, &joints);
        let right = arm_frames(Side::Right, &mirrored);
        for (l, r) in [
            (left.upper_arm, right.upper_arm),
            (left.lower_arm, right.lower_arm),
            (left.hand, right.hand),
        ] {
            let (a, b) = (l.translation.vector, r.translation.vector);
            assert!((a.x - b.x).abs() < 1e-12 && (a.y + b.y).abs() < 1e-12);
            assert!((a.z - b.z).abs() < 1e-12);
        }
    }
}
