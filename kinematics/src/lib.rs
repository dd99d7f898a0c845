//! NAO v6 kinematics: the robot's dimensions and joint limits, forward kinematics of the legs
//! (torso → sole), the arms (torso → hand) and the head (torso → neck → cameras), analytic inverse kinematics of the legs
//! with the coupled hip yaw-pitch joint, and the head angles that look at a point.
//!
//! **What it is.** Pure geometry in `f64` on [`nalgebra`] isometries in the **torso frame**
//! (origin at the torso joint centre, x forward, y left, z up). No state, no I/O, no allocation.
//!
//! The legs' and arms' outer shape as boxes per link ([`body_shape`]) is here too, for what the
//! robot sees of itself.
//!
//! **What it is not.** Dynamics, masses or centre of mass, the arms' inverse kinematics, or a walk (the `walking`
//! crate uses this one). Angles are LoLA's raw joint angles; there is no per-robot calibration.
//!
//! ```
//! use kinematics::{leg_inverse, sole_in_torso, LegJoints, Side, LEG_LENGTH_M, HIP_OFFSET_Z_M};
//!
//! // All joints at zero: the sole is straight below the hip, a leg's length down.
//! let sole = sole_in_torso(Side::Left, &LegJoints::default());
//! assert!((sole.translation.z + HIP_OFFSET_Z_M + LEG_LENGTH_M).abs() < 1e-12);
//!
//! // Ask for the sole 3 cm further forward and 2 cm higher: the inverse finds the angles.
//! let target = nalgebra::Isometry3::translation(0.03, 0.05, sole.translation.z + 0.02);
//! let solution = leg_inverse(Side::Left, &target).unwrap();
//! assert!(solution.is_exact());
//! let reached = sole_in_torso(Side::Left, &solution.joints);
//! assert!((reached.translation.vector - target.translation.vector).norm() < 1e-9);
//! ```

mod arm;
pub mod body_shape;
pub mod dimensions;
mod head;
mod leg;
mod leg_inverse;
pub mod limits;

pub use arm::{arm_frames, ArmFrames, ArmJoints};
pub use dimensions::*;
pub use head::{head_frames, head_look_at, Camera, HeadAngles, HeadFrames, HeadLookAtError};
pub use leg::{
    hip_in_torso, hip_yaw_pitch_axis, leg_frames, sole_in_torso, LegFrames, LegJoints, Side,
    LEG_JOINT_NAMES,
};
pub use leg_inverse::{
    leg_inverse, leg_inverse_with_yaw_pitch, legs_inverse, LegInverseError, LegSolution,
    LegsSolution,
};
