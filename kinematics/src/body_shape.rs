//! The outer shape of the NAO v6's legs and arms as boxes, one per link, for what the robot sees
//! of its own body: the simulator renders them into its own cameras, and perception's body
//! contour projects them to leave out the pixels they cover (B-Human's `BodyContour` does this
//! with hand-measured polylines of the shells).
//!
//! Each box is given in the frame of its link ([`crate::LegFrames`], [`crate::ArmFrames`]) and
//! encloses the shell: measured from Aldebaran's published outline drawings (foot 16 × 9 cm
//! around the ankle, shin and thigh shells 8–10 cm deep, upper arm and forearm shells 7–8 cm
//! across, the hand 10 cm from wrist to finger tips), rounded outward so that a box is never
//! smaller than the shell it stands for. With the arms hanging as in the stand (elbows bent),
//! the hands come into the lower camera's bottom corners once the head looks down at a ball at
//! the feet; an arm swung forward in a step, held out by a goalkeeper or raised to get up comes
//! further into view.

use crate::arm::{arm_frames, ArmJoints};
use crate::leg::{leg_frames, LegJoints, Side};
use nalgebra::{Isometry3, Point3, Vector3};

/// An axis-aligned box in a link's frame, m.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkBox {
    pub min: Vector3<f64>,
    pub max: Vector3<f64>,
}

impl LinkBox {
    /// The eight corners, in the link's frame.
    pub fn corners(&self) -> [Point3<f64>; 8] {
        std::array::from_fn(|index| {
            Point3::new(
                if index & 1 == 0 {
                    self.min.x
                } else {
                    self.max.x
                },
                if index & 2 == 0 {
                    self.min.y
                } else {
                    self.max.y
                },
                if index & 4 == 0 {
                    self.min.z
                } else {
                    self.max.z
                },
            )
        })
    }

    /// The twelve edges as pairs of corner indices into [`LinkBox::corners`].
    pub const EDGES: [(usize, usize); 12] = [
        (0, 1),
        (2, 3),
        (4, 5),
        (6, 7),
        (0, 2),
        (1, 3),
        (4, 6),
        (5, 7),
        (0, 4),
        (1, 5),
        (2, 6),
        (3, 7),
    ];

    /// The left leg's box mirrored to the right leg (y negated).
    fn mirrored(self, side: Side) -> Self {
        match side {
            Side::Left => self,
            Side::Right => LinkBox {
                min: Vector3::new(self.min.x, -self.max.y, self.min.z),
                max: Vector3::new(self.max.x, -self.min.y, self.max.z),
            },
        }
    }
}

/// Which link a box belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LegLink {
    /// Hip to knee (frame: `LegFrames::thigh`, origin at the hip, the knee 0.1 m down z).
    Thigh,
    /// Knee to ankle (frame: `LegFrames::tibia`, origin at the knee).
    Tibia,
    /// The foot (frame: `LegFrames::sole`, origin on the sole below the ankle).
    Foot,
}

/// The left thigh's shell in the thigh frame.
pub const LEFT_THIGH_BOX: LinkBox = LinkBox {
    min: Vector3::new(-0.045, -0.045, -0.105),
    max: Vector3::new(0.055, 0.045, 0.0),
};
/// The left shin's shell in the tibia frame (the shin plate stands out in front), down into the
/// foot's shell.
pub const LEFT_TIBIA_BOX: LinkBox = LinkBox {
    min: Vector3::new(-0.04, -0.04, -0.11),
    max: Vector3::new(0.05, 0.04, 0.02),
};
/// The left foot in the sole frame: 16 cm from heel to toe, 9 cm wide (wider outward), its
/// shell up to 5 cm above the sole around the ankle.
pub const LEFT_FOOT_BOX: LinkBox = LinkBox {
    min: Vector3::new(-0.055, -0.04, 0.0),
    max: Vector3::new(0.105, 0.05, 0.05),
};

/// Which arm link a box belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArmLink {
    /// Shoulder to elbow (frame: `ArmFrames::upper_arm`, origin at the shoulder, the elbow
    /// 0.105 m along x), the shoulder's shell around the joint included.
    UpperArm,
    /// Elbow to wrist (frame: `ArmFrames::lower_arm`, origin at the elbow).
    LowerArm,
    /// Wrist to finger tips (frame: `ArmFrames::hand`, origin at the wrist).
    Hand,
}

/// The left upper arm's shell in its frame, the shoulder's cap around the joint included.
pub const LEFT_UPPER_ARM_BOX: LinkBox = LinkBox {
    min: Vector3::new(-0.04, -0.04, -0.045),
    max: Vector3::new(0.125, 0.045, 0.045),
};
/// The left forearm's shell in the lower arm's frame, from behind the elbow to the wrist.
pub const LEFT_LOWER_ARM_BOX: LinkBox = LinkBox {
    min: Vector3::new(-0.025, -0.04, -0.04),
    max: Vector3::new(0.065, 0.04, 0.04),
};
/// The left hand in the hand's frame, open fingers included.
pub const LEFT_HAND_BOX: LinkBox = LinkBox {
    min: Vector3::new(-0.01, -0.035, -0.04),
    max: Vector3::new(0.1, 0.035, 0.04),
};

/// The boxes of one arm, each with its link.
pub fn arm_boxes(side: Side) -> [(ArmLink, LinkBox); 3] {
    [
        (ArmLink::UpperArm, LEFT_UPPER_ARM_BOX.mirrored(side)),
        (ArmLink::LowerArm, LEFT_LOWER_ARM_BOX.mirrored(side)),
        (ArmLink::Hand, LEFT_HAND_BOX.mirrored(side)),
    ]
}

/// The boxes of one arm at these joint angles: each box with the pose of its link in the torso
/// frame (box coordinates → torso coordinates).
pub fn arm_boxes_in_torso(side: Side, joints: &ArmJoints<f64>) -> [(Isometry3<f64>, LinkBox); 3] {
    let frames = arm_frames(side, joints);
    arm_boxes(side).map(|(link, link_box)| {
        let pose = match link {
            ArmLink::UpperArm => frames.upper_arm,
            ArmLink::LowerArm => frames.lower_arm,
            ArmLink::Hand => frames.hand,
        };
        (pose, link_box)
    })
}

/// The boxes of one leg, each with its link.
pub fn leg_boxes(side: Side) -> [(LegLink, LinkBox); 3] {
    [
        (LegLink::Thigh, LEFT_THIGH_BOX.mirrored(side)),
        (LegLink::Tibia, LEFT_TIBIA_BOX.mirrored(side)),
        (LegLink::Foot, LEFT_FOOT_BOX.mirrored(side)),
    ]
}

/// The boxes of one leg at these joint angles: each box with the pose of its link in the torso
/// frame (box coordinates → torso coordinates).
pub fn leg_boxes_in_torso(side: Side, joints: &LegJoints<f64>) -> [(Isometry3<f64>, LinkBox); 3] {
    let frames = leg_frames(side, joints);
    leg_boxes(side).map(|(link, link_box)| {
        let pose = match link {
            LegLink::Thigh => frames.thigh,
            LegLink::Tibia => frames.tibia,
            LegLink::Foot => frames.sole,
        };
        (pose, link_box)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dimensions::{HIP_OFFSET_Z_M, LEG_LENGTH_M};

    fn in_torso(pose: &Isometry3<f64>, link_box: &LinkBox) -> Vec<Point3<f64>> {
        link_box
            .corners()
            .iter()
            .map(|corner| pose * corner)
            .collect()
    }

    #[test]
    fn with_straight_legs_the_feet_lie_on_the_ground_below_the_hips() {
        for side in [Side::Left, Side::Right] {
            let [_, _, (pose, foot)] = leg_boxes_in_torso(side, &LegJoints::default());
            let corners = in_torso(&pose, &foot);
            let sole = -(HIP_OFFSET_Z_M + LEG_LENGTH_M);
            let lowest = corners.iter().map(|c| c.z).fold(f64::INFINITY, f64::min);
            let toe = corners
                .iter()
                .map(|c| c.x)
                .fold(f64::NEG_INFINITY, f64::max);
            assert!((lowest - sole).abs() < 1e-9, "{side:?}: sole at {lowest}");
            assert!((toe - 0.105).abs() < 1e-9);
            // Each foot's outer edge is the wider one.
            let outer = corners
                .iter()
                .map(|c| side.sign() * c.y)
                .fold(f64::NEG_INFINITY, f64::max);
            assert!((outer - 0.1).abs() < 1e-9, "{side:?}: outer edge {outer}");
        }
    }

    #[test]
    fn the_links_boxes_join_up_from_hip_to_sole() {
        // Straight legs: thigh from the hip down to the knee, shin to above the ankle, foot
        // from the sole up past the ankle's height: no gap a camera could see through.
        let [(thigh_pose, thigh), (tibia_pose, tibia), (foot_pose, foot)] =
            leg_boxes_in_torso(Side::Left, &LegJoints::default());
        let z_range = |pose: &Isometry3<f64>, link_box: &LinkBox| {
            let zs: Vec<f64> = in_torso(pose, link_box).iter().map(|c| c.z).collect();
            (
                zs.iter().copied().fold(f64::INFINITY, f64::min),
                zs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            )
        };
        let (thigh_low, _) = z_range(&thigh_pose, &thigh);
        let (tibia_low, tibia_high) = z_range(&tibia_pose, &tibia);
        let (_, foot_high) = z_range(&foot_pose, &foot);
        assert!(
            tibia_high > thigh_low,
            "shin {tibia_high} below thigh {thigh_low}"
        );
        assert!(
            foot_high > tibia_low,
            "foot {foot_high} below shin {tibia_low}"
        );
    }

    #[test]
    fn hanging_arms_reach_from_the_shoulders_to_the_hips_beside_the_torso() {
        for side in [Side::Left, Side::Right] {
            let joints = ArmJoints {
                shoulder_pitch: std::f64::consts::FRAC_PI_2,
                ..ArmJoints::default()
            };
            let boxes = arm_boxes_in_torso(side, &joints);
            let corners: Vec<Point3<f64>> = boxes
                .iter()
                .flat_map(|(pose, link_box)| in_torso(pose, link_box))
                .collect();
            let lowest = corners.iter().map(|c| c.z).fold(f64::INFINITY, f64::min);
            let highest = corners
                .iter()
                .map(|c| c.z)
                .fold(f64::NEG_INFINITY, f64::max);
            // The shoulder cap 4 cm above the shoulder joint (0.1 m above the torso origin), the
            // finger tips 0.26 m below it: past the hips (0.085 m below the origin) to the
            // middle of the thighs.
            assert!((highest - 0.14).abs() < 1e-9, "{side:?}: top {highest}");
            assert!(
                lowest < -0.15 && lowest > -0.17,
                "{side:?}: bottom {lowest}"
            );
            // Beside the torso: every corner on the arm's own side.
            assert!(
                corners.iter().all(|c| side.sign() * c.y > 0.04),
                "{side:?}: {corners:?}"
            );
        }
    }

    #[test]
    fn the_arms_boxes_join_up_from_shoulder_to_hand() {
        // Straight arm forward: each box reaches past the next joint, no gap to see through.
        let [(upper_pose, upper), (lower_pose, lower), (hand_pose, hand)] =
            arm_boxes_in_torso(Side::Left, &ArmJoints::default());
        let x_range = |pose: &Isometry3<f64>, link_box: &LinkBox| {
            let xs: Vec<f64> = in_torso(pose, link_box).iter().map(|c| c.x).collect();
            (
                xs.iter().copied().fold(f64::INFINITY, f64::min),
                xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            )
        };
        let (_, upper_end) = x_range(&upper_pose, &upper);
        let (lower_start, lower_end) = x_range(&lower_pose, &lower);
        let (hand_start, hand_end) = x_range(&hand_pose, &hand);
        assert!(upper_end > lower_start && lower_end > hand_start);
        // Finger tips 0.26 m or more ahead of the shoulder.
        assert!(hand_end > 0.26, "{hand_end}");
    }

    #[test]
    fn a_bent_knee_moves_the_shin_and_foot_but_not_the_thigh() {
        let straight = leg_boxes_in_torso(Side::Right, &LegJoints::default());
        let bent = leg_boxes_in_torso(
            Side::Right,
            &LegJoints {
                knee_pitch: 0.8,
                ..LegJoints::default()
            },
        );
        assert_eq!(straight[0], bent[0]);
        assert_ne!(straight[1].0, bent[1].0);
        assert_ne!(straight[2].0, bent[2].0);
    }
}
