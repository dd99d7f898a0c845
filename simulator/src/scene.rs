//! [`SimulatedScene`]: what a simulated camera needs to know to render a frame — the world
//! ([`GroundTruth`]) and the robot's posture (head joints, leg and arm joints, torso orientation
//! and height) — and what follows from it on the field: the camera's pose and the boxes of the
//! robot's own legs and arms, which its cameras see when it looks down at its feet or holds an
//! arm in front of them.
//!
//! The chain is perception's camera matrix (`perception::camera_matrix`) with the robot placed
//! on the field: field → robot (pose x, y, θ) → torso (height, roll about x then pitch about y)
//! → head (neck offset, yaw then pitch; `kinematics::head_frames`) → camera (its mounting). The
//! legs and arms hang from the same torso pose: torso → link
//! (`kinematics::body_shape::leg_boxes_in_torso`, `arm_boxes_in_torso`), each link painted as
//! on the NAO ([`crate::body_paint`]).

use kinematics::body_shape::{
    arm_boxes, arm_boxes_in_torso, leg_boxes, leg_boxes_in_torso, LinkBox,
};
use kinematics::{
    head_frames, legs_inverse, sole_in_torso, ArmJoints, Camera, LegJoints, Side, HIP_OFFSET_Y_M,
};
use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use types::{GroundTruth, JointId, Joints, SensorData};

use crate::body_paint::{arm_paint, leg_paint, ShellPaint};
use crate::render::OrientedBox;

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
    /// The left leg's joint angles: where the robot's own left leg appears in its cameras.
    pub left_leg: LegJoints<f64>,
    /// The right leg's joint angles (its hip yaw-pitch is the left one's: one motor drives both).
    pub right_leg: LegJoints<f64>,
    /// The left arm's joint angles: hanging beside the torso (the elbow bent as in the stand),
    /// only its hand shows, in a lower corner of the lower camera's image when the head looks
    /// down at the feet; swung forward or raised, the lower camera sees more of it.
    pub left_arm: ArmJoints<f64>,
    pub right_arm: ArmJoints<f64>,
}

impl Default for SimulatedScene {
    fn default() -> Self {
        Self::standing(GroundTruth::default())
    }
}

impl SimulatedScene {
    /// Standing upright with the head straight, the torso [`STANDING_TORSO_HEIGHT_M`] high,
    /// the soles flat on the ground below the hips ([`legs_standing`]) and the arms hanging at
    /// the sides ([`arms_standing`]).
    pub fn standing(ground_truth: GroundTruth) -> Self {
        let [left_leg, right_leg] = legs_standing(STANDING_TORSO_HEIGHT_M);
        let [left_arm, right_arm] = arms_standing();
        Self {
            ground_truth,
            head_yaw_rad: 0.0,
            head_pitch_rad: 0.0,
            torso_roll_rad: 0.0,
            torso_pitch_rad: 0.0,
            torso_height_m: STANDING_TORSO_HEIGHT_M,
            left_leg,
            right_leg,
            left_arm,
            right_arm,
        }
    }

    /// The scene as the robot's sensors describe its posture: head, leg and arm joints, the
    /// IMU's torso angles, and the torso's height above the lower sole (leg forward kinematics).
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
            left_leg: leg_joints(joints, Side::Left),
            right_leg: leg_joints(joints, Side::Right),
            left_arm: arm_joints(joints, Side::Left),
            right_arm: arm_joints(joints, Side::Right),
        }
    }

    /// The torso's pose in field coordinates: the robot's pose on the ground, then the torso
    /// `torso_height_m` above it, rolled about x and then pitched about y. The cameras and the
    /// own legs and arms all hang from it.
    pub fn torso_to_field(&self) -> Isometry3<f64> {
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
        robot_to_field * torso_to_robot
    }

    /// The camera's pose in field coordinates (camera frame: x along the optical axis, y left,
    /// z up in the image).
    pub fn camera_to_field(&self, camera: CameraPosition) -> Isometry3<f32> {
        let frames = head_frames(f64::from(self.head_yaw_rad), f64::from(self.head_pitch_rad));
        let camera_to_torso = frames.camera(match camera {
            CameraPosition::Upper => Camera::Top,
            CameraPosition::Lower => Camera::Bottom,
        });
        (self.torso_to_field() * camera_to_torso).cast::<f32>()
    }

    /// The robot's own body on the field: one box per link in the shape of
    /// `kinematics::body_shape` — thigh, shin and foot of the left leg, then of the right; upper
    /// arm, forearm and hand of the left arm, then of the right — placed by the joint angles
    /// under the torso's pose and painted as the NAO's links are ([`crate::body_paint`]).
    pub fn own_body_boxes(&self) -> [OrientedBox; 12] {
        let torso_to_field = self.torso_to_field();
        let place =
            |(box_to_torso, link_box): (Isometry3<f64>, LinkBox), paint: ShellPaint| OrientedBox {
                box_to_field: (torso_to_field * box_to_torso).cast::<f32>(),
                min: link_box.min.cast::<f32>(),
                max: link_box.max.cast::<f32>(),
                paint,
            };
        let leg = |side: Side, joints: &LegJoints<f64>| -> [OrientedBox; 3] {
            let (links, placed) = (leg_boxes(side), leg_boxes_in_torso(side, joints));
            std::array::from_fn(|index| place(placed[index], leg_paint(links[index].0)))
        };
        let arm = |side: Side, joints: &ArmJoints<f64>| -> [OrientedBox; 3] {
            let (links, placed) = (arm_boxes(side), arm_boxes_in_torso(side, joints));
            std::array::from_fn(|index| place(placed[index], arm_paint(links[index].0)))
        };
        let limbs = [
            leg(Side::Left, &self.left_leg),
            leg(Side::Right, &self.right_leg),
            arm(Side::Left, &self.left_arm),
            arm(Side::Right, &self.right_arm),
        ];
        std::array::from_fn(|index| limbs[index / 3][index % 3])
    }
}

/// Both legs' joint angles (left, right) for an upright torso `torso_height_m` above the ground
/// with each sole flat on the ground straight below its hip: the legs' inverse kinematics
/// (`kinematics::legs_inverse`). A height out of reach gets the nearest posture the legs reach
/// (stretched or folded); a height that is not finite gets straight legs.
pub fn legs_standing(torso_height_m: f32) -> [LegJoints<f64>; 2] {
    let sole = |side: Side| {
        Isometry3::translation(
            0.0,
            side.sign() * HIP_OFFSET_Y_M,
            -f64::from(torso_height_m),
        )
    };
    match legs_inverse(&sole(Side::Left), &sole(Side::Right)) {
        Ok(solution) => [solution.left.joints, solution.right.joints],
        Err(_) => [LegJoints::default(); 2],
    }
}

/// Both arms' joint angles (left, right) hanging at the sides as in the stand and the walk
/// (`walking::joints::set_arms` without swing): shoulder pitch 90° (hanging), shoulder roll 10°
/// outward, the elbow yawed 70° and bent 30° inward, wrist yaw 0; the right arm the left's
/// mirror image.
pub fn arms_standing() -> [ArmJoints<f64>; 2] {
    let left = ArmJoints {
        shoulder_pitch: std::f64::consts::FRAC_PI_2,
        shoulder_roll: 10f64.to_radians(),
        elbow_yaw: -70f64.to_radians(),
        elbow_roll: -30f64.to_radians(),
        wrist_yaw: 0.0,
    };
    let right = ArmJoints {
        shoulder_roll: -left.shoulder_roll,
        elbow_yaw: -left.elbow_yaw,
        elbow_roll: -left.elbow_roll,
        wrist_yaw: -left.wrist_yaw,
        ..left
    };
    [left, right]
}

/// The arms' joints of LoLA's joint array (the hands' opening is no angle and not read).
pub fn arm_joints(joints: &Joints<f32>, side: Side) -> ArmJoints<f64> {
    let ids = match side {
        Side::Left => JointId::LEFT_ARM,
        Side::Right => JointId::RIGHT_ARM,
    };
    ArmJoints::from_array(ids.map(|id| f64::from(joints[id])))
}

/// The legs' joints of LoLA's joint array (the right leg shares the left hip yaw-pitch).
pub fn leg_joints(joints: &Joints<f32>, side: Side) -> LegJoints<f64> {
    let ids = match side {
        Side::Left => JointId::LEFT_LEG,
        Side::Right => JointId::RIGHT_LEG,
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
        // The left arm raised forward, the right one hanging out to the side.
        let arm_angles = [(JointId::LEFT_ARM, 0.1), (JointId::RIGHT_ARM, -0.2)];
        for (ids, first) in arm_angles {
            for (step, id) in ids.into_iter().enumerate() {
                sensor_data.joint_positions_rad[id] = first + 0.25 * step as f32;
            }
        }
        sensor_data.inertial_measurement.torso_angles_rad = nalgebra::Vector2::new(0.05, -0.1);
        let scene = SimulatedScene::from_sensor_data(GroundTruth::default(), &sensor_data);
        assert_eq!((scene.head_yaw_rad, scene.head_pitch_rad), (0.3, -0.2));
        // Shoulder pitch, shoulder roll, elbow yaw, elbow roll, wrist yaw: each 0.25 rad more.
        let expected = |first: f32| {
            ArmJoints::from_array(std::array::from_fn(|step| {
                f64::from(first + 0.25 * step as f32)
            }))
        };
        assert_eq!(scene.left_arm, expected(0.1));
        assert_eq!(scene.right_arm, expected(-0.2));
        assert_eq!((scene.torso_roll_rad, scene.torso_pitch_rad), (0.05, -0.1));
        let straight = kinematics::HIP_OFFSET_Z_M + kinematics::LEG_LENGTH_M;
        let bent = f64::from(scene.torso_height_m);
        assert!(bent < straight - 0.01 && bent > 0.25, "{bent}");
    }

    #[test]
    fn standing_puts_the_soles_flat_on_the_ground_below_the_hips() {
        let scene = SimulatedScene::standing(GroundTruth::default());
        for (side, joints) in [(Side::Left, scene.left_leg), (Side::Right, scene.right_leg)] {
            assert!(
                joints.knee_pitch > 0.1,
                "{side:?}: the knee is bent: {joints:?}"
            );
            let sole = sole_in_torso(side, &joints);
            let expected = Vector3::new(
                0.0,
                side.sign() * HIP_OFFSET_Y_M,
                -f64::from(STANDING_TORSO_HEIGHT_M),
            );
            assert!(
                (sole.translation.vector - expected).norm() < 1e-6,
                "{side:?}: {sole:?}"
            );
            assert!(sole.rotation.angle() < 1e-6, "{side:?}: the sole is tilted");
        }
    }

    #[test]
    fn the_standing_arms_are_the_walks_hanging_arms() {
        let mut positions = [0.0_f32; walking::joints::JOINT_COUNT];
        walking::joints::set_arms(&mut positions, 0.0, 0.0);
        let joints = Joints::from_fn(|id| positions[id as usize]);
        let [left, right] = arms_standing();
        for (side, standing) in [(Side::Left, left), (Side::Right, right)] {
            let walking = arm_joints(&joints, side).to_array();
            for (ours, theirs) in standing.to_array().into_iter().zip(walking) {
                assert!((ours - theirs).abs() < 1e-6, "{side:?}: {standing:?}");
            }
        }
    }

    #[test]
    fn standing_the_feet_lie_on_the_ground_and_the_hands_hang_beside_the_thighs() {
        let scene = SimulatedScene::standing(GroundTruth::default());
        let boxes = scene.own_body_boxes();
        // Field corners of each box: legs first (thigh, shin, foot), then arms.
        let corners = |link: &OrientedBox| -> Vec<Vector3<f32>> {
            (0..8)
                .map(|corner| {
                    let pick = |bit: usize, axis: usize| {
                        if corner & bit == 0 {
                            link.min[axis]
                        } else {
                            link.max[axis]
                        }
                    };
                    let point = nalgebra::Point3::new(pick(1, 0), pick(2, 1), pick(4, 2));
                    (link.box_to_field * point).coords
                })
                .collect()
        };
        let lowest = |link: &OrientedBox| {
            corners(link)
                .iter()
                .map(|c| c.z)
                .fold(f32::INFINITY, f32::min)
        };
        for foot in [&boxes[2], &boxes[5]] {
            assert!(lowest(foot).abs() < 1e-5, "a sole at {}", lowest(foot));
        }
        for (hand, sign) in [(&boxes[8], 1.0), (&boxes[11], -1.0)] {
            // The finger tips between the knees' (about 0.18 m) and the hips' height, the hand's
            // middle outside the thighs (which reach 0.095 m out from the torso's middle).
            let height = lowest(hand);
            assert!(height > 0.1 && height < 0.23, "a hand down to {height}");
            let middle = corners(hand).iter().sum::<Vector3<f32>>() / 8.0;
            assert!(sign * middle.y > 0.1, "a hand's middle at {middle:?}");
        }
    }

    #[test]
    fn straight_legs_put_the_torso_a_leg_length_and_hip_offset_high() {
        let height = torso_height_m(&Joints::filled(0.0));
        let expected = kinematics::HIP_OFFSET_Z_M + kinematics::LEG_LENGTH_M;
        assert!((f64::from(height) - expected).abs() < 1e-6);
    }
}
