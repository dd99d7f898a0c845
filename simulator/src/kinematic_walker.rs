//! [`KinematicWalker`]: moves the robot on the field by its legs, the way a walk does — the
//! support foot stays where it is on the ground and the torso moves over it.
//!
//! Each step the legs' forward kinematics (`kinematics::sole_in_torso`, from the simulated
//! joint angles) give both soles in the torso frame. The support foot is the lower one; it is
//! fixed on the field, so the robot's pose is the support foot's field pose composed with the
//! inverse of where that foot is relative to the torso (in the ground plane: x, y and yaw). When
//! the other foot becomes lower by more than [`SWITCH_HEIGHT_M`], it takes over where it stands.
//! No dynamics: the robot never slips, falls or tips; the torso is taken as upright.

use kinematics::{sole_in_torso, Side};
use nalgebra::{Isometry2, Vector2};
use types::{Joints, RobotPose};

use crate::scene::leg_joints;
use crate::world::normalized_angle;

/// How much lower the other foot must be to become the support foot (hysteresis against
/// flickering while both stand).
pub const SWITCH_HEIGHT_M: f64 = 0.002;

/// The foot that carries the robot and where it stands on the field.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Support {
    side: Side,
    sole_in_field: Isometry2<f64>,
}

/// The support foot between updates, and both soles relative to the torso at the last one.
#[derive(Debug, Clone, Default)]
pub struct KinematicWalker {
    support: Option<Support>,
    last_soles: Option<[Isometry2<f64>; 2]>,
}

/// A sole in the torso frame, projected onto the ground plane, and its height.
fn planar_sole(joints: &Joints<f32>, side: Side) -> (Isometry2<f64>, f64) {
    let sole = sole_in_torso(side, &leg_joints(joints, side));
    let (_, _, yaw) = sole.rotation.euler_angles();
    let translation = sole.translation.vector;
    (
        Isometry2::new(Vector2::new(translation.x, translation.y), yaw),
        translation.z,
    )
}

fn pose_to_isometry(pose: &RobotPose) -> Isometry2<f64> {
    Isometry2::new(
        Vector2::new(f64::from(pose.x), f64::from(pose.y)),
        f64::from(pose.theta),
    )
}

fn index(side: Side) -> usize {
    match side {
        Side::Left => 0,
        Side::Right => 1,
    }
}

impl KinematicWalker {
    /// Moves `robot` as the legs, now at `joints`, carried it since the last update.
    ///
    /// Which foot carried the robot through this update is decided by the new heights: if the
    /// other foot is now lower, it was put down and the old support foot lifted, so the new
    /// support foot stands where it was relative to the robot at the last update. The robot
    /// then moves as the support foot, fixed on the field, demands.
    pub fn update(&mut self, robot: &mut RobotPose, joints: &Joints<f32>) {
        let (left, left_height) = planar_sole(joints, Side::Left);
        let (right, right_height) = planar_sole(joints, Side::Right);
        let soles = [left, right];
        let heights = [left_height, right_height];
        let last_soles = self.last_soles.replace(soles);
        let (Some(mut support), Some(last_soles)) = (self.support, last_soles) else {
            let side = if left_height <= right_height {
                Side::Left
            } else {
                Side::Right
            };
            self.support = Some(Support {
                side,
                sole_in_field: pose_to_isometry(robot) * soles[index(side)],
            });
            return;
        };
        let other = support.side.opposite();
        if heights[index(other)] < heights[index(support.side)] - SWITCH_HEIGHT_M {
            support = Support {
                side: other,
                sole_in_field: pose_to_isometry(robot) * last_soles[index(other)],
            };
        }
        self.support = Some(support);
        let torso_in_field = support.sole_in_field * soles[index(support.side)].inverse();
        robot.x = torso_in_field.translation.x as f32;
        robot.y = torso_in_field.translation.y as f32;
        robot.theta = normalized_angle(torso_in_field.rotation.angle() as f32);
    }

    /// After the robot was placed by hand: the next update puts the support foot down anew.
    pub fn forget_support(&mut self) {
        self.support = None;
        self.last_soles = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kinematics::{legs_inverse, LegJoints};
    use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
    use types::JointId;

    const TORSO_HEIGHT_M: f64 = 0.3;

    /// Joint angles that put each sole at (x, y, lift, yaw) relative to the torso's ground
    /// projection.
    fn legs(left: [f64; 4], right: [f64; 4]) -> Joints<f32> {
        let target = |[x, y, lift, yaw]: [f64; 4]| {
            Isometry3::from_parts(
                Translation3::new(x, y, -TORSO_HEIGHT_M + lift),
                UnitQuaternion::from_axis_angle(&Vector3::z_axis(), yaw),
            )
        };
        // Both legs at once: they share the hip yaw-pitch joint.
        let solution = legs_inverse(&target(left), &target(right)).expect("reachable");
        let (left, right): (LegJoints<f64>, LegJoints<f64>) =
            (solution.left.joints, solution.right.joints);
        let mut joints = Joints::filled(0.0);
        let ids = [
            [JointId::LeftHipRoll, JointId::RightHipRoll],
            [JointId::LeftHipPitch, JointId::RightHipPitch],
            [JointId::LeftKneePitch, JointId::RightKneePitch],
            [JointId::LeftAnklePitch, JointId::RightAnklePitch],
            [JointId::LeftAnkleRoll, JointId::RightAnkleRoll],
        ];
        let (left_values, right_values) = (left.to_array(), right.to_array());
        joints[JointId::LeftHipYawPitch] = left_values[0] as f32;
        for (index, [left_id, right_id]) in ids.into_iter().enumerate() {
            joints[left_id] = left_values[index + 1] as f32;
            joints[right_id] = right_values[index + 1] as f32;
        }
        joints
    }

    /// A walk-like pattern: per step the support sole slides back by `step_m` under the torso
    /// while the swing sole, lifted 2 cm at mid-swing, moves forward by as much.
    fn walk(walker: &mut KinematicWalker, robot: &mut RobotPose, steps: usize, step_m: f64) {
        let phases = 40;
        for step in 0..steps {
            let swing_left = step % 2 == 0;
            for phase in 0..=phases {
                let progress = phase as f64 / phases as f64;
                let support_x = step_m / 2.0 - step_m * progress;
                let swing_x = -step_m / 2.0 + step_m * progress;
                let lift = 0.02 * (std::f64::consts::PI * progress).sin();
                let swing = [swing_x, 0.0, lift, 0.0];
                let support = [support_x, 0.0, 0.0, 0.0];
                let (mut left, mut right) = if swing_left {
                    (swing, support)
                } else {
                    (support, swing)
                };
                left[1] = 0.05;
                right[1] = -0.05;
                walker.update(robot, &legs(left, right));
            }
        }
    }

    #[test]
    fn walking_legs_advance_the_pose_along_the_heading() {
        let start = RobotPose {
            x: -1.0,
            y: 0.5,
            theta: std::f32::consts::FRAC_PI_2,
        };
        let mut robot = start;
        let mut walker = KinematicWalker::default();
        walk(&mut walker, &mut robot, 10, 0.05);
        // Facing +y: ten steps of 5 cm carry the torso about 0.5 m along y.
        let advanced = robot.y - start.y;
        assert!(
            (advanced - 0.5).abs() < 0.05,
            "advanced {advanced} m: {robot:?}"
        );
        assert!((robot.x - start.x).abs() < 0.01, "{robot:?}");
        assert!((robot.theta - start.theta).abs() < 0.01, "{robot:?}");
    }

    #[test]
    fn stepping_on_the_spot_and_standing_do_not_move_the_robot() {
        let start = RobotPose {
            x: 2.0,
            y: -1.0,
            theta: -0.5,
        };
        let mut robot = start;
        let mut walker = KinematicWalker::default();
        walk(&mut walker, &mut robot, 6, 0.0);
        for _ in 0..50 {
            walker.update(
                &mut robot,
                &legs([0.0, 0.05, 0.0, 0.0], [0.0, -0.05, 0.0, 0.0]),
            );
        }
        assert!((robot.x - start.x).abs() < 1e-3 && (robot.y - start.y).abs() < 1e-3);
        assert!((robot.theta - start.theta).abs() < 1e-3);
    }

    #[test]
    fn turning_the_swing_foot_turns_the_robot() {
        let mut robot = RobotPose::default();
        let mut walker = KinematicWalker::default();
        let stand = legs([0.0, 0.05, 0.0, 0.0], [0.0, -0.05, 0.0, 0.0]);
        walker.update(&mut robot, &stand);
        // The left foot swings out turned (the shared hip yaw-pitch joint turns the carrying
        // right foot the other way: the torso turns over it) and lands; then the right foot
        // lifts, the left carries, and the torso turns back square to it.
        let swinging = legs([0.0, 0.05, 0.02, 0.2], [0.0, -0.05, 0.0, 0.0]);
        walker.update(&mut robot, &swinging);
        let landed = legs([0.0, 0.05, 0.0, 0.2], [0.0, -0.05, 0.0, 0.0]);
        walker.update(&mut robot, &landed);
        let carrying = legs([0.0, 0.05, 0.0, 0.2], [0.0, -0.05, 0.02, 0.0]);
        walker.update(&mut robot, &carrying);
        let turned_back = legs([0.0, 0.05, 0.0, 0.0], [0.0, -0.05, 0.02, 0.0]);
        walker.update(&mut robot, &turned_back);
        let yaw = |joints, side| planar_sole(joints, side).0.rotation.angle();
        let over_right = yaw(&stand, Side::Right) - yaw(&swinging, Side::Right);
        let over_left = yaw(&carrying, Side::Left) - yaw(&turned_back, Side::Left);
        assert!(
            over_right > 0.05 && over_left > 0.05,
            "{over_right} {over_left}"
        );
        let expected = over_right + over_left;
        assert!(
            (f64::from(robot.theta) - expected).abs() < 1e-3,
            "{robot:?}, {expected}"
        );
    }
}
