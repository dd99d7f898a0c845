//! The walking engine core of the NAO: an omnidirectional walk in the style of rUNSWift's 2014
//! walk (used by B-Human and HULKs too), its odometry, and a walk-to-target step planner.
//!
//! **What it is.** Pure code: [`WalkingEngine::tick`] takes a [`WalkRequest`] and one tick's
//! [`WalkingSensors`] (foot pressure, gyro, joint positions, cycle time) and returns the 25 joint
//! targets in LoLA's order with stiffnesses and the odometry delta ([`WalkOutput`]). Inside: a
//! step clock whose support foot changes when the foot pressure crosses to the swing foot (with
//! a time fallback), the swing foot on a smooth curve with a sine lift, a sideways sway over the
//! support foot, step sizes within an ellipsoid and acceleration limits, the filtered gyro fed
//! back into the support ankle, and a smooth start from and stop to the stand pose. Joint angles
//! come from the `kinematics` crate's leg inverse kinematics.
//!
//! Kicks are steps of the walk ([`WalkRequest::Kick`]): the kicking foot draws back and shoots
//! forward past its landing point ([`kick_curve`]). Besides: [`kick_foot`], the choice of the
//! kicking foot from the ball's position.
//!
//! **What it is not.** A module of the `motion` process (it will be wrapped by one), a kick
//! motion, a fall detector or a get-up motion, nor proof that the robot stays upright: that is
//! checked against a physics simulation.
//!
//! ```
//! use std::time::Duration;
//! use walking::{WalkRequest, WalkingEngine, WalkingEngineParameters, WalkingSensors, WalkState};
//!
//! let mut engine = WalkingEngine::new(WalkingEngineParameters::default());
//! let request = WalkRequest::Walk {
//!     forward_m_per_s: 0.2,
//!     left_m_per_s: 0.0,
//!     turn_rad_per_s: 0.0,
//! };
//! let sensors = WalkingSensors {
//!     cycle_time: Duration::from_millis(12),
//!     ..WalkingSensors::default()
//! };
//! for _ in 0..200 {
//!     engine.tick(&request, &sensors);
//! }
//! assert_eq!(engine.state(), WalkState::Walking);
//! assert!(engine.odometry().translation.x > 0.1);
//! ```
//!
//! One step (`feet.rs`): the swing foot travels from where it was to half the step ahead of the
//! torso while the support foot slides to half a step behind it:
//!
//! ```text
//!   phase 0            phase ½ (lifted)        phase 1
//!   L ·                 · L                       · · L
//!   R ·  ·              · · R                 R ·
//! ```

mod engine;
mod feet;
mod interface;
pub mod joints;
mod kick;
mod odometry;
mod parameters;
mod planner;
mod step;
pub mod step_adjustment;
mod support;

pub use engine::WalkingEngine;
pub use feet::{kick_curve, smooth, Feet, FootOffset, FootPose, StepPlan, SETTLE_FRACTION};
pub use interface::{WalkOutput, WalkRequest, WalkState, WalkingSensors};
pub use kick::kick_foot;
/// Left or right foot (from `kinematics`).
pub use kinematics::Side;
pub use odometry::OdometryDelta;
pub use parameters::WalkingEngineParameters;
pub use planner::{plan_step, RelativeTarget};
pub use step::{next_step, within_step_limits, Step};
pub use step_adjustment::{StepAdjustment, StepAdjustmentParameters};
pub use support::{lateral_centre_of_pressure, weight_on};
