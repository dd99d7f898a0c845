//! What the body should do and what it is doing: [`MotionRequest`], [`JointRequest`],
//! [`MotionInfo`], [`OdometryData`], [`FallState`].
//!
//! Frames: the **robot frame** has its origin on the ground between the feet, x forward, y to the
//! robot's left, z up; rotations are counter-clockwise seen from above.

use nalgebra::Vector2;
use serde::{Deserialize, Serialize};

use super::joints::Joints;

/// Joint targets sent to LoLA: one position and one stiffness per joint.
///
/// The default has **zero stiffness** everywhere: a default request never moves the robot.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct JointRequest {
    /// Target angles, rad (hands: 0 closed .. 1 open).
    pub positions_rad: Joints<f32>,
    /// Stiffness per joint, 0 (limp) .. 1 (full power).
    pub stiffnesses: Joints<f32>,
    /// The `SensorData::pose_epoch` this request was planned for: the `lola` bridge applies a
    /// request only while the epoch is current.
    pub pose_epoch: u64,
}

/// Which foot kicks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Side {
    #[default]
    Left,
    Right,
}

/// What the legs, arms and torso should do.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub enum BodyMotion {
    /// All joints limp (stiffness 0), except what safety needs.
    Unstiff,
    /// Sit down (crouch) and stay there. The default: it is safe from any pose.
    #[default]
    Sit,
    /// Stand up and stand still.
    Stand,
    /// Walk with these speeds in the robot frame.
    Walk {
        forward_m_per_s: f32,
        left_m_per_s: f32,
        turn_rad_per_s: f32,
    },
    /// Walk to a pose relative to the robot now (robot frame: forward, left, turn) and stop
    /// there; sent again every tick with the target as it looks then.
    WalkTo {
        forward_m: f32,
        left_m: f32,
        turn_rad: f32,
    },
    /// Play a recorded motion (a key-frame file) by its name, e.g. `"stand_up_back"`.
    SpecialAction { name: String },
    /// Kick the ball with one foot towards `direction_rad` (robot frame, 0 = straight ahead).
    Kick {
        foot: Side,
        direction_rad: f32,
        /// 0 (soft) .. 1 (hardest).
        strength: f32,
    },
}

/// Where the head should look: yaw and pitch joint targets and how fast to get there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HeadMotionRequest {
    /// Head yaw target, rad, positive to the robot's left.
    pub yaw_rad: f32,
    /// Head pitch target, rad, positive looking down.
    pub pitch_rad: f32,
    /// Largest joint speed the head may use, rad/s.
    pub max_speed_rad_per_s: f32,
}

impl Default for HeadMotionRequest {
    /// Look straight ahead at a moderate speed.
    fn default() -> Self {
        Self {
            yaw_rad: 0.0,
            pitch_rad: 0.0,
            max_speed_rad_per_s: 2.0,
        }
    }
}

/// The motion the behaviour asks for (B-Human's `MotionRequest`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MotionRequest {
    pub body: BodyMotion,
    pub head: HeadMotionRequest,
}

/// The kind of motion being executed, without its parameters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MotionKind {
    Unstiff,
    #[default]
    Sit,
    Stand,
    Walk,
    SpecialAction,
    Kick,
    /// Protecting the body during a fall (arms in, stiffness down).
    FallProtection,
    /// Getting up after a fall.
    GetUp,
}

/// What the motion process is doing now.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MotionInfo {
    /// The motion being executed.
    pub current_motion: MotionKind,
    /// The request that is being executed (may differ from the newest request while a motion
    /// cannot be left).
    pub executed_request: MotionRequest,
    /// The current motion may be interrupted now by a different request.
    pub can_be_left: bool,
    /// The robot is balanced (standing, sitting or walking without risk of falling).
    pub is_stable: bool,
    /// A remark for people, e.g. `"walk is not implemented yet; standing instead"`.
    pub note: Option<String>,
}

/// Where the robot has moved since motion started, integrated from its steps.
///
/// The pose is in the **odometry frame**: the robot frame at the moment motion started. It drifts
/// and is only meaningful as a difference between two readings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OdometryData {
    /// Position of the robot frame's origin in the odometry frame, m.
    pub translation_m: Vector2<f32>,
    /// Heading of the robot in the odometry frame, rad, counter-clockwise.
    pub rotation_rad: f32,
}

/// Phase of a fall.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FallPhase {
    #[default]
    Upright,
    /// Tilting beyond the normal range but recoverable.
    Staggering,
    /// Falling: protection must start now.
    Falling,
    /// Lying on the ground.
    Fallen,
    /// Standing up again.
    GettingUp,
}

/// Direction the robot is falling or lying (robot frame).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FallDirection {
    #[default]
    None,
    /// Onto its front.
    Forward,
    /// Onto its back.
    Backward,
    Left,
    Right,
}

/// Whether the robot is falling or lying, and which way.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FallState {
    pub phase: FallPhase,
    pub direction: FallDirection,
    /// `CLOCK_MONOTONIC` time at which `phase` began, ns.
    pub phase_start_monotonic_ns: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::JointId;

    #[test]
    fn default_joint_request_is_limp() {
        let request = JointRequest::default();
        assert!(request
            .stiffnesses
            .values
            .iter()
            .all(|stiffness| *stiffness == 0.0));
    }

    #[test]
    fn default_motion_request_sits_and_looks_ahead() {
        let request = MotionRequest::default();
        assert_eq!(request.body, BodyMotion::Sit);
        assert_eq!(request.head.yaw_rad, 0.0);
        assert!(request.head.max_speed_rad_per_s > 0.0);
    }

    #[test]
    fn motion_representations_round_trip() {
        let mut joint_request = JointRequest::default();
        joint_request.positions_rad[JointId::HeadPitch] = 0.3;
        joint_request.stiffnesses[JointId::HeadPitch] = 0.8;
        let bytes = rmp_serde::to_vec_named(&joint_request).unwrap();
        assert_eq!(
            rmp_serde::from_slice::<JointRequest>(&bytes).unwrap(),
            joint_request
        );

        for body in [
            BodyMotion::Unstiff,
            BodyMotion::Stand,
            BodyMotion::Walk {
                forward_m_per_s: 0.2,
                left_m_per_s: -0.1,
                turn_rad_per_s: 0.5,
            },
            BodyMotion::SpecialAction {
                name: "stand_up_back".into(),
            },
            BodyMotion::Kick {
                foot: Side::Right,
                direction_rad: 0.1,
                strength: 0.7,
            },
        ] {
            let request = MotionRequest {
                body,
                head: HeadMotionRequest {
                    yaw_rad: 0.5,
                    pitch_rad: 0.1,
                    max_speed_rad_per_s: 1.0,
                },
            };
            let bytes = rmp_serde::to_vec_named(&request).unwrap();
            assert_eq!(
                rmp_serde::from_slice::<MotionRequest>(&bytes).unwrap(),
                request
            );
        }

        let info = MotionInfo {
            current_motion: MotionKind::Stand,
            executed_request: MotionRequest::default(),
            can_be_left: true,
            is_stable: true,
            note: Some("walk is not implemented yet; standing instead".into()),
        };
        let bytes = rmp_serde::to_vec_named(&info).unwrap();
        assert_eq!(rmp_serde::from_slice::<MotionInfo>(&bytes).unwrap(), info);

        let odometry = OdometryData {
            translation_m: Vector2::new(1.0, -0.5),
            rotation_rad: 0.25,
        };
        let bytes = rmp_serde::to_vec_named(&odometry).unwrap();
        assert_eq!(
            rmp_serde::from_slice::<OdometryData>(&bytes).unwrap(),
            odometry
        );

        let fall = FallState {
            phase: FallPhase::Fallen,
            direction: FallDirection::Backward,
            phase_start_monotonic_ns: 7,
        };
        let bytes = rmp_serde::to_vec_named(&fall).unwrap();
        assert_eq!(rmp_serde::from_slice::<FallState>(&bytes).unwrap(), fall);
    }
}
