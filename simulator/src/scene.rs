//! [`SimulatedScene`]: what a simulated camera needs to know to render a frame — the world
//! ([`GroundTruth`]) and the robot's posture (head joints, torso orientation and height) — and
//! the camera's pose on the field that follows from it.
//!
//! The chain is perception's camera matrix (`perception::camera_matrix`) with the robot placed
//! on the field: field → robot (pose x, y, θ) → torso (height, roll about x then pitch about y)
//! → head (neck offset, yaw then pitch; `kinematics::head_frames`) → camera (its mounting).

use kinematics::{head_frames, sole_in_torso, Camera, LegJoints, Side};
use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use types::{GroundTruth, JointId, Joints, SensorData};

/// Which of the two head cameras.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CameraPosition {
    Upper,
    Lower,
}

impl CameraPosition {
    /// The name used in messages and frame sources (`upper`, `lower`).
    pub fn name(self) -> &'static str {
        match self {
            CameraPosition::Upper => "upper",
            CameraPosition::Lower => "lower",
        }
    }
}

/// The height of the torso origin above the ground when standing (knees slightly bent): the
/// value perception's `KinematicState::standing` assumes.
pub const STANDING_TORSO_HEIGHT_M: f32 = 0.31;

/// The world and the robot's posture at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulatedScene {
    pub ground_truth: GroundTruth,
    /// Positive: looking left.
    pub head_yaw_rad: f32,
    /// Positive: looking down.
    pub head_pitch_rad: f32,
    pub torso_roll_rad: f32,
    pub torso_pitch_rad: f32,
    /// Torso origin above the ground.
    pub torso_height_m: f32,
}

impl Default for SimulatedScene {
    fn default() -> Self {
        Self::standing(GroundTruth::default())
    }
}

impl SimulatedScene {
    /// Standing upright with the head straight.
    pub fn standing(ground_truth: GroundTruth) -> Self {
        Self {
            ground_truth,
            head_yaw_rad: 0.0,
            head_pitch_rad: 0.0,
            torso_roll_rad: 0.0,
            torso_pitch_rad: 0.0,
            torso_height_m: STANDING_TORSO_HEIGHT_M,
        }
    }

    /// The scene as the robot's sensors describe its posture: head joints, the IMU's torso
    /// angles, and the torso's height above the lower sole (leg forward kinematics).
    pub fn from_sensor_data(ground_truth: GroundTruth, sensor_data: &SensorData) -> Self {
        let joints = &sensor_data.joint_positions_rad;
        let angles = sensor_data.inertial_measurement.torso_angles_rad;
        Self {
            ground_truth,
            head_yaw_rad: joints[JointId::HeadYaw],
            head_pitch_rad: joints[JointId::HeadPitch],
            torso_roll_rad: angles.x,
            torso_pitch_rad: angles.y,
            torso_height_m: torso_height_m(joints),
        }
    }

    /// The camera's pose in field coordinates (camera frame: x along the optical axis, y left,
    /// z up in the image).
    pub fn camera_to_field(&self, camera: CameraPosition) -> Isometry3<f32> {
        let pose = &self.ground_truth.robot;
        let robot_to_field = Isometry3::from_parts(
            Translation3::new(f64::from(pose.x), f64::from(pose.y), 0.0),
            UnitQuaternion::from_axis_angle(&Vector3::z_axis(), f64::from(pose.theta)),
        );
        let torso_to_robot = Isometry3::from_parts(
            Translation3::new(0.0, 0.0, f64::from(self.torso_height_m)),
            UnitQuaternion::from_axis_angle(&Vector3::x_axis(), f64::from(self.torso_roll_rad))
                * UnitQuaternion::from_axis_angle(
                    &Vector3::y_axis(),
                    f64::from(self.torso_pitch_rad),
                ),
        );
        let frames = head_frames(f64::from(self.head_yaw_rad), f64::from(self.head_pitch_rad));
        let camera_to_torso = frames.camera(match camera {
            CameraPosition::Upper => Camera::Top,
            CameraPosition::Lower => Camera::Bottom,
        });
        (robot_to_field * torso_to_robot * camera_to_torso).cast::<f32>()
    }
}

/// The legs' joints of LoLA's joint array (the right leg shares the left hip yaw-pitch).
pub fn leg_joints(joints: &Joints<f32>, side: Side) -> LegJoints<f64> {
    let ids = match side {
        Side::Left => [
            JointId::LeftHipYawPitch,
            JointId::LeftHipRoll,
            JointId::LeftHipPitch,
            JointId::LeftKneePitch,
            JointId::LeftAnklePitch,
            JointId::LeftAnkleRoll,
        ],
        Side::Right => [
            JointId::LeftHipYawPitch,
            JointId::RightHipRoll,
            JointId::RightHipPitch,
            JointId::RightKneePitch,
            JointId::RightAnklePitch,
            JointId::RightAnkleRoll,
        ],
    };
    LegJoints::from_array(ids.map(|id| f64::from(joints[id])))
}

/// The torso origin's height above the lower of the two soles, m.
pub fn torso_height_m(joints: &Joints<f32>) -> f32 {
    let left = sole_in_torso(Side::Left, &leg_joints(joints, Side::Left));
    let right = sole_in_torso(Side::Right, &leg_joints(joints, Side::Right));
    (-left.translation.z.min(right.translation.z)) as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use types::RobotPose;

    #[test]
    fn the_upper_camera_sits_above_the_robot_looking_along_its_heading() {
        let truth = GroundTruth {
            robot: RobotPose {
                x: 1.0,
                y: -2.0,
                theta: std::f32::consts::FRAC_PI_2,
            },
            ..GroundTruth::default()
        };
        let scene = SimulatedScene::standing(truth);
        let camera = scene.camera_to_field(CameraPosition::Upper);
        let position = camera.translation.vector;
        // Torso 0.31 + neck 0.1265 + camera 0.06364 above the ground; 0.05871 ahead (along +y).
        assert!((position.z - (0.31 + 0.1265 + 0.06364)).abs() < 1e-5);
        assert!((position.x - 1.0).abs() < 1e-5);
        assert!((position.y - (-2.0 + 0.05871)).abs() < 1e-5);
        let axis = camera.rotation * Vector3::x();
        assert!(axis.y > 0.99, "looks along the heading: {axis:?}");
    }

    #[test]
    fn the_posture_comes_from_the_sensor_data() {
        let mut sensor_data = SensorData::default();
        sensor_data.joint_positions_rad[JointId::HeadYaw] = 0.3;
        sensor_data.joint_positions_rad[JointId::HeadPitch] = -0.2;
        // Knees bent: the torso lower than with straight legs.
        for (joint, angle) in [
            (JointId::LeftHipPitch, -0.4),
            (JointId::LeftKneePitch, 0.8),
            (JointId::LeftAnklePitch, -0.4),
            (JointId::RightHipPitch, -0.4),
            (JointId::RightKneePitch, 0.8),
            (JointId::RightAnklePitch, -0.4),
        ] {
            sensor_data.joint_positions_rad[joint] = angle;
        }
        sensor_data.inertial_measurement.torso_angles_rad = nalgebra::Vector2::new(0.05, -0.1);
        let scene = SimulatedScene::from_sensor_data(GroundTruth::default(), &sensor_data);
        assert_eq!((scene.head_yaw_rad, scene.head_pitch_rad), (0.3, -0.2));
        assert_eq!((scene.torso_roll_rad, scene.torso_pitch_rad), (0.05, -0.1));
        let straight = kinematics::HIP_OFFSET_Z_M + kinematics::LEG_LENGTH_M;
        let bent = f64::from(scene.torso_height_m);
        assert!(bent < straight - 0.01 && bent > 0.25, "{bent}");
    }

    #[test]
    fn straight_legs_put_the_torso_a_leg_length_and_hip_offset_high() {
        let height = torso_height_m(&Joints::filled(0.0));
        let expected = kinematics::HIP_OFFSET_Z_M + kinematics::LEG_LENGTH_M;
        assert!((f64::from(height) - expected).abs() < 1e-6);
    }
}
