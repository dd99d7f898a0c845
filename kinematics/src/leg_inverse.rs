//! Analytic inverse kinematics of the legs: joint angles that put a sole at a pose.
//!
//! The left leg is solved in closed form; the right leg is solved as the mirror image of the left
//! (see [`crate::leg`]). Three entry points:
//!
//! - [`leg_inverse`]: one leg, all six joints free. The yaw-pitch it finds is what this leg alone
//!   would need.
//! - [`leg_inverse_with_yaw_pitch`]: one leg with the yaw-pitch given (the other leg already
//!   chose it). The ankle is placed exactly; the sole's orientation is the closest that the five
//!   remaining joints reach (exact when the target is consistent with that yaw-pitch).
//! - [`legs_inverse`]: both legs, sharing the **mean** of the two yaw-pitch angles the legs would
//!   each choose; this is what a walk uses, since LoLA has only `LHipYawPitch`.
//!
//! Targets out of reach or beyond a joint limit are not errors: the answer is the nearest posture
//! (knee stretched, angles clamped into their limits) with [`LegSolution::out_of_reach_m`] and
//! [`LegSolution::clamped`] saying what was given up. Only a non-finite target is an error.

use nalgebra::{Isometry3, Matrix3, Point3, Rotation3, UnitQuaternion, Vector3};

use crate::dimensions::{FOOT_HEIGHT_M, THIGH_LENGTH_M, TIBIA_LENGTH_M};
use crate::leg::{hip_in_torso, hip_yaw_pitch_axis, LegJoints, Side};
use crate::limits;

/// Why no joint angles could be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LegInverseError {
    /// The target pose contains NaN or infinity.
    #[error("{side:?} leg inverse kinematics: the sole target {what} is not finite ({value:?})")]
    NonFiniteTarget {
        side: Side,
        /// `translation` or `rotation`.
        what: &'static str,
        value: [f64; 4],
    },
    /// The given hip yaw-pitch is NaN or infinite.
    #[error("{side:?} leg inverse kinematics: the hip yaw-pitch {value} rad is not finite")]
    NonFiniteYawPitch { side: Side, value: f64 },
}

/// Joint angles for one leg and what of the target they could not reach.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LegSolution {
    /// The angles, inside the joint limits.
    pub joints: LegJoints<f64>,
    /// Which joints were clamped into their limits.
    pub clamped: LegJoints<bool>,
    /// How far the ankle target lies outside the sphere the thigh and tibia reach, m (0 when
    /// inside; the knee is then stretched or folded as far as the lengths allow).
    pub out_of_reach_m: f64,
}

impl LegSolution {
    /// The angles reach the target: within reach and no joint clamped.
    pub fn is_exact(&self) -> bool {
        self.out_of_reach_m == 0.0 && !self.clamped.to_array().iter().any(|clamped| *clamped)
    }
}

/// Both legs' solutions with one shared yaw-pitch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LegsSolution {
    pub left: LegSolution,
    pub right: LegSolution,
}

/// The pose mirrored in the torso's x-z plane (y negated).
fn mirror(pose: &Isometry3<f64>) -> Isometry3<f64> {
    let mirror = Matrix3::from_diagonal(&Vector3::new(1.0, -1.0, 1.0));
    let rotation = mirror * pose.rotation.to_rotation_matrix().matrix() * mirror;
    let translation = pose.translation.vector;
    Isometry3::from_parts(
        Vector3::new(translation.x, -translation.y, translation.z).into(),
        UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(rotation)),
    )
}

fn check_target(side: Side, sole: &Isometry3<f64>) -> Result<(), LegInverseError> {
    let translation = sole.translation.vector;
    if !translation.iter().all(|value| value.is_finite()) {
        return Err(LegInverseError::NonFiniteTarget {
            side,
            what: "translation",
            value: [translation.x, translation.y, translation.z, 0.0],
        });
    }
    let rotation = sole.rotation.coords;
    if !rotation.iter().all(|value| value.is_finite()) {
        return Err(LegInverseError::NonFiniteTarget {
            side,
            what: "rotation",
            value: [rotation.x, rotation.y, rotation.z, rotation.w],
        });
    }
    Ok(())
}

/// The ankle's pose relative to the left hip (torso orientation), for a left-leg sole target.
fn ankle_from_left_hip(sole: &Isometry3<f64>) -> Isometry3<f64> {
    let hip = hip_in_torso(Side::Left);
    Isometry3::translation(-hip.x, -hip.y, -hip.z)
        * sole
        * Isometry3::translation(0.0, 0.0, FOOT_HEIGHT_M)
}

/// The knee angle for a hip-to-ankle distance, and how far out of reach that distance is.
fn knee_for_distance(distance_m: f64) -> (f64, f64) {
    let longest = THIGH_LENGTH_M + TIBIA_LENGTH_M;
    let shortest = (THIGH_LENGTH_M - TIBIA_LENGTH_M).abs();
    let out_of_reach_m = if distance_m > longest {
        distance_m - longest
    } else if distance_m < shortest {
        shortest - distance_m
    } else {
        0.0
    };
    let cosine = (distance_m * distance_m
        - THIGH_LENGTH_M * THIGH_LENGTH_M
        - TIBIA_LENGTH_M * TIBIA_LENGTH_M)
        / (2.0 * THIGH_LENGTH_M * TIBIA_LENGTH_M);
    (cosine.clamp(-1.0, 1.0).acos(), out_of_reach_m)
}

/// Clamps every angle into the limits of `side`'s leg and records which were clamped.
fn clamp_into_limits(side: Side, joints: LegJoints<f64>, out_of_reach_m: f64) -> LegSolution {
    let limits = limits::leg(side).to_array();
    let angles = joints.to_array();
    let mut clamped = [false; 6];
    let mut result = [0.0; 6];
    for index in 0..6 {
        result[index] = limits[index].clamp(angles[index]);
        clamped[index] = result[index] != angles[index];
    }
    LegSolution {
        joints: LegJoints::from_array(result),
        clamped: LegJoints::from_array(clamped),
        out_of_reach_m,
    }
}

/// The unclamped six-joint solution of the left leg.
fn solve_left(sole: &Isometry3<f64>) -> (LegJoints<f64>, f64) {
    let ankle = ankle_from_left_hip(sole);
    // The hip seen from the ankle depends only on knee and ankle angles.
    let hip_from_ankle = ankle.inverse_transform_point(&Point3::origin()).coords;
    let (knee_pitch, out_of_reach_m) = knee_for_distance(hip_from_ankle.norm());
    // Ankle roll brings the hip into the foot's x-z plane. Of the two rolls that do (half a turn
    // apart), take the one within ±90°, the only one inside the joint's limits.
    let upwards = if hip_from_ankle.z < 0.0 { -1.0 } else { 1.0 };
    let ankle_roll = (upwards * hip_from_ankle.y).atan2(upwards * hip_from_ankle.z);
    let in_sagittal_plane = upwards * hip_from_ankle.y.hypot(hip_from_ankle.z);
    let shin = Vector3::new(
        -THIGH_LENGTH_M * knee_pitch.sin(),
        0.0,
        TIBIA_LENGTH_M + THIGH_LENGTH_M * knee_pitch.cos(),
    );
    let ankle_pitch = shin.x.atan2(shin.z) - hip_from_ankle.x.atan2(in_sagittal_plane);
    // What is left for the hip: Rz(-yaw_pitch) Rx(roll - 45°) Ry(hip_pitch).
    let quarter = std::f64::consts::FRAC_PI_4;
    let hip_rotation = Rotation3::from_axis_angle(&Vector3::x_axis(), -quarter)
        * ankle.rotation.to_rotation_matrix()
        * Rotation3::from_axis_angle(&Vector3::x_axis(), -ankle_roll)
        * Rotation3::from_axis_angle(&Vector3::y_axis(), -(knee_pitch + ankle_pitch));
    let matrix = hip_rotation.matrix();
    let tilt = matrix[(2, 1)].clamp(-1.0, 1.0).asin();
    let hip_pitch = (-matrix[(2, 0)]).atan2(matrix[(2, 2)]);
    let yaw = (-matrix[(0, 1)]).atan2(matrix[(1, 1)]);
    (
        LegJoints {
            hip_yaw_pitch: -yaw,
            hip_roll: tilt + quarter,
            hip_pitch,
            knee_pitch,
            ankle_pitch,
            ankle_roll,
        },
        out_of_reach_m,
    )
}

/// The unclamped five-joint solution of the left leg for a given yaw-pitch.
fn solve_left_with_yaw_pitch(sole: &Isometry3<f64>, yaw_pitch: f64) -> (LegJoints<f64>, f64) {
    let ankle = ankle_from_left_hip(sole);
    let yaw_pitch_rotation =
        UnitQuaternion::from_scaled_axis(hip_yaw_pitch_axis(Side::Left) * yaw_pitch);
    // The ankle in the pelvis frame (after the yaw-pitch joint), relative to the hip.
    let ankle_in_pelvis = yaw_pitch_rotation.inverse() * ankle;
    let offset = ankle_in_pelvis.translation.vector;
    let (knee_pitch, out_of_reach_m) = knee_for_distance(offset.norm());
    let hip_roll = offset.y.atan2(-offset.z);
    let in_sagittal_plane = Vector3::new(offset.x, 0.0, -offset.y.hypot(offset.z));
    let shin = Vector3::new(
        -TIBIA_LENGTH_M * knee_pitch.sin(),
        0.0,
        -THIGH_LENGTH_M - TIBIA_LENGTH_M * knee_pitch.cos(),
    );
    let hip_pitch = (in_sagittal_plane.x * shin.z - in_sagittal_plane.z * shin.x)
        .atan2(in_sagittal_plane.z * shin.z + in_sagittal_plane.x * shin.x);
    let rest = (Rotation3::from_axis_angle(&Vector3::x_axis(), hip_roll)
        * Rotation3::from_axis_angle(&Vector3::y_axis(), hip_pitch + knee_pitch))
    .inverse()
        * ankle_in_pelvis.rotation.to_rotation_matrix();
    let matrix = rest.matrix();
    let ankle_roll = (-matrix[(1, 2)]).atan2(matrix[(1, 1)]);
    let ankle_pitch = (-matrix[(2, 0)]).atan2(matrix[(0, 0)]);
    (
        LegJoints {
            hip_yaw_pitch: yaw_pitch,
            hip_roll,
            hip_pitch,
            knee_pitch,
            ankle_pitch,
            ankle_roll,
        },
        out_of_reach_m,
    )
}

/// Joint angles that put `side`'s sole at `sole_in_torso`, all six joints free.
pub fn leg_inverse(
    side: Side,
    sole_in_torso: &Isometry3<f64>,
) -> Result<LegSolution, LegInverseError> {
    check_target(side, sole_in_torso)?;
    let (joints, out_of_reach_m) = match side {
        Side::Left => solve_left(sole_in_torso),
        Side::Right => {
            let (joints, out_of_reach_m) = solve_left(&mirror(sole_in_torso));
            (joints.mirrored(), out_of_reach_m)
        }
    };
    Ok(clamp_into_limits(side, joints, out_of_reach_m))
}

/// Joint angles that put `side`'s ankle where `sole_in_torso` needs it, with the hip yaw-pitch
/// fixed at `hip_yaw_pitch_rad` (which is clamped into its limits first).
pub fn leg_inverse_with_yaw_pitch(
    side: Side,
    sole_in_torso: &Isometry3<f64>,
    hip_yaw_pitch_rad: f64,
) -> Result<LegSolution, LegInverseError> {
    check_target(side, sole_in_torso)?;
    if !hip_yaw_pitch_rad.is_finite() {
        return Err(LegInverseError::NonFiniteYawPitch {
            side,
            value: hip_yaw_pitch_rad,
        });
    }
    let yaw_pitch = limits::HIP_YAW_PITCH.clamp(hip_yaw_pitch_rad);
    let (joints, out_of_reach_m) = match side {
        Side::Left => solve_left_with_yaw_pitch(sole_in_torso, yaw_pitch),
        Side::Right => {
            let (joints, out_of_reach_m) =
                solve_left_with_yaw_pitch(&mirror(sole_in_torso), yaw_pitch);
            (joints.mirrored(), out_of_reach_m)
        }
    };
    let mut solution = clamp_into_limits(side, joints, out_of_reach_m);
    solution.clamped.hip_yaw_pitch = yaw_pitch != hip_yaw_pitch_rad;
    Ok(solution)
}

/// Both legs with one shared yaw-pitch: the mean of what each leg would choose alone.
pub fn legs_inverse(
    left_sole_in_torso: &Isometry3<f64>,
    right_sole_in_torso: &Isometry3<f64>,
) -> Result<LegsSolution, LegInverseError> {
    check_target(Side::Left, left_sole_in_torso)?;
    check_target(Side::Right, right_sole_in_torso)?;
    let (left_alone, _) = solve_left(left_sole_in_torso);
    let (right_alone, _) = solve_left(&mirror(right_sole_in_torso));
    let yaw_pitch = 0.5 * (left_alone.hip_yaw_pitch + right_alone.hip_yaw_pitch);
    Ok(LegsSolution {
        left: leg_inverse_with_yaw_pitch(Side::Left, left_sole_in_torso, yaw_pitch)?,
        right: leg_inverse_with_yaw_pitch(Side::Right, right_sole_in_torso, yaw_pitch)?,
    })
}
