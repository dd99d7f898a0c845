//! LoLA's joint order (25 joints; `docs/protocols.md`) and the walk's arm pose.

use kinematics::LegJoints;

/// Number of joints in LoLA's `Position` and `Stiffness` arrays.
pub const JOINT_COUNT: usize = 25;

pub const HEAD_YAW: usize = 0;
pub const HEAD_PITCH: usize = 1;
pub const LEFT_SHOULDER_PITCH: usize = 2;
pub const LEFT_SHOULDER_ROLL: usize = 3;
pub const LEFT_ELBOW_YAW: usize = 4;
pub const LEFT_ELBOW_ROLL: usize = 5;
pub const LEFT_WRIST_YAW: usize = 6;
pub const LEFT_HIP_YAW_PITCH: usize = 7;
pub const LEFT_HIP_ROLL: usize = 8;
pub const LEFT_HIP_PITCH: usize = 9;
pub const LEFT_KNEE_PITCH: usize = 10;
pub const LEFT_ANKLE_PITCH: usize = 11;
pub const LEFT_ANKLE_ROLL: usize = 12;
pub const RIGHT_HIP_ROLL: usize = 13;
pub const RIGHT_HIP_PITCH: usize = 14;
pub const RIGHT_KNEE_PITCH: usize = 15;
pub const RIGHT_ANKLE_PITCH: usize = 16;
pub const RIGHT_ANKLE_ROLL: usize = 17;
pub const RIGHT_SHOULDER_PITCH: usize = 18;
pub const RIGHT_SHOULDER_ROLL: usize = 19;
pub const RIGHT_ELBOW_YAW: usize = 20;
pub const RIGHT_ELBOW_ROLL: usize = 21;
pub const RIGHT_WRIST_YAW: usize = 22;
pub const LEFT_HAND: usize = 23;
pub const RIGHT_HAND: usize = 24;

/// The indices of the joints of each leg (LoLA has no right hip yaw-pitch: the right leg's
/// entry repeats the left's).
pub const LEFT_LEG: [usize; 6] = [
    LEFT_HIP_YAW_PITCH,
    LEFT_HIP_ROLL,
    LEFT_HIP_PITCH,
    LEFT_KNEE_PITCH,
    LEFT_ANKLE_PITCH,
    LEFT_ANKLE_ROLL,
];
pub const RIGHT_LEG: [usize; 6] = [
    LEFT_HIP_YAW_PITCH,
    RIGHT_HIP_ROLL,
    RIGHT_HIP_PITCH,
    RIGHT_KNEE_PITCH,
    RIGHT_ANKLE_PITCH,
    RIGHT_ANKLE_ROLL,
];

/// The leg joints of one side read out of a LoLA array.
pub fn leg_from_lola(positions_rad: &[f32; JOINT_COUNT], indices: [usize; 6]) -> LegJoints<f64> {
    LegJoints::from_array(indices.map(|index| f64::from(positions_rad[index])))
}

/// The arms hanging at the sides as in the stand motion (shoulder roll 10°, elbow yaw 70°,
/// elbow roll 30°), swung forward and back by `left_swing_rad` and `right_swing_rad` around
/// the shoulder pitch of 90°.
pub fn set_arms(positions_rad: &mut [f32; JOINT_COUNT], left_swing_rad: f64, right_swing_rad: f64) {
    let hanging = std::f64::consts::FRAC_PI_2;
    positions_rad[LEFT_SHOULDER_PITCH] = (hanging + left_swing_rad) as f32;
    positions_rad[RIGHT_SHOULDER_PITCH] = (hanging + right_swing_rad) as f32;
    positions_rad[LEFT_SHOULDER_ROLL] = 10f32.to_radians();
    positions_rad[RIGHT_SHOULDER_ROLL] = -10f32.to_radians();
    positions_rad[LEFT_ELBOW_YAW] = -70f32.to_radians();
    positions_rad[RIGHT_ELBOW_YAW] = 70f32.to_radians();
    positions_rad[LEFT_ELBOW_ROLL] = -30f32.to_radians();
    positions_rad[RIGHT_ELBOW_ROLL] = 30f32.to_radians();
    positions_rad[LEFT_WRIST_YAW] = 0.0;
    positions_rad[RIGHT_WRIST_YAW] = 0.0;
    positions_rad[LEFT_HAND] = 0.0;
    positions_rad[RIGHT_HAND] = 0.0;
}
