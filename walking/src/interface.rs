//! What goes into the walking engine and what comes out of one tick: [`WalkRequest`],
//! [`WalkingSensors`], [`WalkOutput`], [`WalkState`].

use std::time::Duration;

use kinematics::Side;

use crate::joints::JOINT_COUNT;
use crate::odometry::OdometryDelta;
use crate::planner::RelativeTarget;
use crate::step::Step;

/// What the walk should do (`MotionRequest::Walk` and `WalkTo`, or stand still).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum WalkRequest {
    /// Come to a stop in the stand pose.
    #[default]
    Stand,
    /// Walk with these speeds (robot frame); all zero walks on the spot.
    Walk {
        forward_m_per_s: f64,
        left_m_per_s: f64,
        turn_rad_per_s: f64,
    },
    /// Walk to a pose relative to the robot now, and stop there.
    WalkTo { target: RelativeTarget },
    /// One kick step with `foot` towards `direction_rad` (robot frame, 0 ahead) and `strength`
    /// 0..1 (from walking or standing: a step of the other foot first shifts the weight), then
    /// stop. The kick is done once per request: asked again, the engine stands.
    Kick {
        foot: Side,
        direction_rad: f64,
        strength: f64,
    },
}

/// One tick's sensor values (LoLA's units and orders).
#[derive(Debug, Clone, PartialEq)]
pub struct WalkingSensors {
    /// LoLA's `FSR`: left foot FL, FR, RL, RR, then the right foot, kg.
    pub force_sensitive_resistors_kg: [f32; 8],
    /// LoLA's `Gyroscope`: x (roll rate), y (pitch rate), z, rad/s.
    pub gyroscope_rad_per_s: [f32; 3],
    /// LoLA's `Angles`: torso roll and pitch, rad. Not used by the walk yet: the balance feeds
    /// back the gyro only, as rUNSWift's does; kept so that a tilt feedback tuned in the
    /// physics simulation needs no change of the interface.
    pub torso_angles_rad: [f32; 2],
    /// LoLA's `Position`, rad.
    pub joint_positions_rad: [f32; JOINT_COUNT],
    /// Time since the previous tick (nominally 12 ms).
    pub cycle_time: Duration,
}

impl Default for WalkingSensors {
    /// A robot standing evenly on both feet at rest, ticking every 12 ms.
    fn default() -> Self {
        Self {
            force_sensitive_resistors_kg: [0.7; 8],
            gyroscope_rad_per_s: [0.0; 3],
            torso_angles_rad: [0.0; 2],
            joint_positions_rad: [0.0; JOINT_COUNT],
            cycle_time: Duration::from_millis(12),
        }
    }
}

/// What the engine is doing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum WalkState {
    /// In the stand pose.
    #[default]
    Standing,
    /// Lowering from the stand to the walk height.
    Starting,
    /// Stepping.
    Walking,
    /// Rising from the walk height to the stand.
    Stopping,
}

/// One tick's result.
#[derive(Debug, Clone, PartialEq)]
pub struct WalkOutput {
    /// Joint targets in LoLA's order, rad.
    pub positions_rad: [f32; JOINT_COUNT],
    pub stiffnesses: [f32; JOINT_COUNT],
    /// The robot's motion since the previous tick.
    pub odometry_delta: OdometryDelta,
    pub state: WalkState,
    /// The foot carrying the robot (the left one while standing).
    pub support: Side,
    /// Time in the current step over the step period (0 while not walking).
    pub step_phase: f64,
    /// The step being executed.
    pub step: Step,
    /// A target was out of the legs' reach or beyond a joint limit and was clamped.
    pub clamped: bool,
}
