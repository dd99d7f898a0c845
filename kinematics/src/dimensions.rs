//! NAO v6 link lengths and camera mounting, in metres and radians.
//!
//! The link lengths are Aldebaran's (SoftBank's) published NAO v6 values, the ones every SPL team
//! uses; the camera mounting is HULKs' default calibration. The **torso frame** has its origin at
//! the torso joint centre (between the hips, 0.085 m above them), x forward, y to the robot's left,
//! z up.

use nalgebra::Vector3;

/// Height of the neck (head yaw) joint above the torso origin.
pub const NECK_OFFSET_Z_M: f64 = 0.1265;
/// Lateral distance of each hip joint from the torso origin (left +, right −).
pub const HIP_OFFSET_Y_M: f64 = 0.05;
/// Depth of the hip joints below the torso origin.
pub const HIP_OFFSET_Z_M: f64 = 0.085;
/// Hip pitch axis to knee axis.
pub const THIGH_LENGTH_M: f64 = 0.1;
/// Knee axis to ankle pitch axis.
pub const TIBIA_LENGTH_M: f64 = 0.1029;
/// Ankle axes to the sole of the foot.
pub const FOOT_HEIGHT_M: f64 = 0.04519;
/// Lateral distance of each shoulder joint from the torso origin.
pub const SHOULDER_OFFSET_Y_M: f64 = 0.098;
/// Height of the shoulder joints above the torso origin.
pub const SHOULDER_OFFSET_Z_M: f64 = 0.1;
/// Shoulder to elbow.
pub const UPPER_ARM_LENGTH_M: f64 = 0.105;
/// Lateral offset of the elbow from the upper arm axis.
pub const ELBOW_OFFSET_Y_M: f64 = 0.015;
/// Elbow to wrist.
pub const LOWER_ARM_LENGTH_M: f64 = 0.05595;

/// Hip joint (sole straight below it at zero angles) to the sole with straight legs.
pub const LEG_LENGTH_M: f64 = THIGH_LENGTH_M + TIBIA_LENGTH_M + FOOT_HEIGHT_M;

/// The hip yaw-pitch axes lie in the y-z plane at this angle from the y axis (45°).
pub const HIP_YAW_PITCH_AXIS_ANGLE_RAD: f64 = std::f64::consts::FRAC_PI_4;

/// Position of the top camera in the head frame (the head frame turns with head yaw and pitch,
/// origin at the neck joint).
pub const TOP_CAMERA_IN_HEAD_M: Vector3<f64> = Vector3::new(0.05871, 0.0, 0.06364);
/// Position of the bottom camera in the head frame.
pub const BOTTOM_CAMERA_IN_HEAD_M: Vector3<f64> = Vector3::new(0.05071, 0.0, 0.01774);
/// Downward pitch of the top camera's optical axis in the head frame (default calibration).
pub const TOP_CAMERA_PITCH_RAD: f64 = 1.2 * std::f64::consts::PI / 180.0;
/// Downward pitch of the bottom camera's optical axis in the head frame (default calibration).
pub const BOTTOM_CAMERA_PITCH_RAD: f64 = 39.7 * std::f64::consts::PI / 180.0;

/// Positions of the four force sensitive resistors under the **left** sole, in the foot frame
/// (ankle projected onto the sole; x forward, y left), metres, in LoLA's order: front left,
/// front right, rear left, rear right (NAO v6 documentation, "FSR"). The right foot is the mirror
/// image (y negated, left and right exchanged).
pub const LEFT_FOOT_FORCE_SENSITIVE_RESISTORS_M: [[f64; 2]; 4] = [
    [0.07025, 0.0299],
    [0.07025, -0.0231],
    [-0.03025, 0.0299],
    [-0.02965, -0.0191],
];

/// Positions of the four force sensitive resistors under the right sole, LoLA's order.
pub const RIGHT_FOOT_FORCE_SENSITIVE_RESISTORS_M: [[f64; 2]; 4] = [
    [0.07025, 0.0231],
    [0.07025, -0.0299],
    [-0.03025, 0.0191],
    [-0.02965, -0.0299],
];
