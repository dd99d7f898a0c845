//! The 25 joints LoLA knows, and an array indexed by them.
//!
//! The order is LoLA's (protocols.md §1, "Joint order"): it is used for `Position`, `Stiffness`,
//! `Current`, `Temperature` and `Status` in both directions. There is no `RHipYawPitch`: it is
//! driven by the same motor as [`JointId::LeftHipYawPitch`].

use std::ops::{Index, IndexMut};

use serde::{Deserialize, Serialize};

/// Number of joints in LoLA's arrays.
pub const JOINT_COUNT: usize = 25;

/// One joint of the NAO v6, numbered in LoLA's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum JointId {
    HeadYaw = 0,
    HeadPitch = 1,
    LeftShoulderPitch = 2,
    LeftShoulderRoll = 3,
    LeftElbowYaw = 4,
    LeftElbowRoll = 5,
    LeftWristYaw = 6,
    /// Also moves the right hip: the NAO has one motor for both hip yaw-pitch joints.
    LeftHipYawPitch = 7,
    LeftHipRoll = 8,
    LeftHipPitch = 9,
    LeftKneePitch = 10,
    LeftAnklePitch = 11,
    LeftAnkleRoll = 12,
    RightHipRoll = 13,
    RightHipPitch = 14,
    RightKneePitch = 15,
    RightAnklePitch = 16,
    RightAnkleRoll = 17,
    RightShoulderPitch = 18,
    RightShoulderRoll = 19,
    RightElbowYaw = 20,
    RightElbowRoll = 21,
    RightWristYaw = 22,
    /// Hand opening, 0 (closed) .. 1 (open), not an angle.
    LeftHand = 23,
    /// Hand opening, 0 (closed) .. 1 (open), not an angle.
    RightHand = 24,
}

impl JointId {
    /// Every joint, in LoLA's order (`JointId::ALL[i] as usize == i`).
    pub const ALL: [JointId; JOINT_COUNT] = [
        JointId::HeadYaw,
        JointId::HeadPitch,
        JointId::LeftShoulderPitch,
        JointId::LeftShoulderRoll,
        JointId::LeftElbowYaw,
        JointId::LeftElbowRoll,
        JointId::LeftWristYaw,
        JointId::LeftHipYawPitch,
        JointId::LeftHipRoll,
        JointId::LeftHipPitch,
        JointId::LeftKneePitch,
        JointId::LeftAnklePitch,
        JointId::LeftAnkleRoll,
        JointId::RightHipRoll,
        JointId::RightHipPitch,
        JointId::RightKneePitch,
        JointId::RightAnklePitch,
        JointId::RightAnkleRoll,
        JointId::RightShoulderPitch,
        JointId::RightShoulderRoll,
        JointId::RightElbowYaw,
        JointId::RightElbowRoll,
        JointId::RightWristYaw,
        JointId::LeftHand,
        JointId::RightHand,
    ];

    /// The left leg's joints, hip to ankle, in the order of `kinematics::LegJoints` (hip
    /// yaw-pitch, hip roll, hip pitch, knee pitch, ankle pitch, ankle roll).
    pub const LEFT_LEG: [JointId; 6] = [
        JointId::LeftHipYawPitch,
        JointId::LeftHipRoll,
        JointId::LeftHipPitch,
        JointId::LeftKneePitch,
        JointId::LeftAnklePitch,
        JointId::LeftAnkleRoll,
    ];

    /// The right leg's joints in the same order; its hip yaw-pitch is the left one's (one motor
    /// drives both, and LoLA reports it once).
    pub const RIGHT_LEG: [JointId; 6] = [
        JointId::LeftHipYawPitch,
        JointId::RightHipRoll,
        JointId::RightHipPitch,
        JointId::RightKneePitch,
        JointId::RightAnklePitch,
        JointId::RightAnkleRoll,
    ];

    /// The left arm's joints, shoulder to wrist, in the order of `kinematics::ArmJoints`
    /// (shoulder pitch, shoulder roll, elbow yaw, elbow roll, wrist yaw; the hand's opening is
    /// not an angle).
    pub const LEFT_ARM: [JointId; 5] = [
        JointId::LeftShoulderPitch,
        JointId::LeftShoulderRoll,
        JointId::LeftElbowYaw,
        JointId::LeftElbowRoll,
        JointId::LeftWristYaw,
    ];

    /// The right arm's joints in the same order.
    pub const RIGHT_ARM: [JointId; 5] = [
        JointId::RightShoulderPitch,
        JointId::RightShoulderRoll,
        JointId::RightElbowYaw,
        JointId::RightElbowRoll,
        JointId::RightWristYaw,
    ];

    /// Position of this joint in LoLA's arrays.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The name Aldebaran uses (`"LShoulderPitch"`), as in logs of other teams.
    pub const fn aldebaran_name(self) -> &'static str {
        match self {
            JointId::HeadYaw => "HeadYaw",
            JointId::HeadPitch => "HeadPitch",
            JointId::LeftShoulderPitch => "LShoulderPitch",
            JointId::LeftShoulderRoll => "LShoulderRoll",
            JointId::LeftElbowYaw => "LElbowYaw",
            JointId::LeftElbowRoll => "LElbowRoll",
            JointId::LeftWristYaw => "LWristYaw",
            JointId::LeftHipYawPitch => "LHipYawPitch",
            JointId::LeftHipRoll => "LHipRoll",
            JointId::LeftHipPitch => "LHipPitch",
            JointId::LeftKneePitch => "LKneePitch",
            JointId::LeftAnklePitch => "LAnklePitch",
            JointId::LeftAnkleRoll => "LAnkleRoll",
            JointId::RightHipRoll => "RHipRoll",
            JointId::RightHipPitch => "RHipPitch",
            JointId::RightKneePitch => "RKneePitch",
            JointId::RightAnklePitch => "RAnklePitch",
            JointId::RightAnkleRoll => "RAnkleRoll",
            JointId::RightShoulderPitch => "RShoulderPitch",
            JointId::RightShoulderRoll => "RShoulderRoll",
            JointId::RightElbowYaw => "RElbowYaw",
            JointId::RightElbowRoll => "RElbowRoll",
            JointId::RightWristYaw => "RWristYaw",
            JointId::LeftHand => "LHand",
            JointId::RightHand => "RHand",
        }
    }
}

/// One value per joint, stored in LoLA's order and indexed by [`JointId`].
///
/// Serialised as a plain array of 25 values, in LoLA's order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Joints<T> {
    /// The values, `values[JointId::X as usize]` belonging to joint `X`.
    pub values: [T; JOINT_COUNT],
}

impl<T> Joints<T> {
    /// Wraps an array that is already in LoLA's order.
    pub const fn from_lola_order(values: [T; JOINT_COUNT]) -> Self {
        Self { values }
    }

    /// The same value for every joint.
    pub fn filled(value: T) -> Self
    where
        T: Copy,
    {
        Self {
            values: [value; JOINT_COUNT],
        }
    }

    /// A value computed from each joint.
    pub fn from_fn(mut value_of: impl FnMut(JointId) -> T) -> Self {
        Self {
            values: std::array::from_fn(|index| value_of(JointId::ALL[index])),
        }
    }

    /// `(joint, value)` pairs in LoLA's order.
    pub fn iter(&self) -> impl Iterator<Item = (JointId, &T)> {
        JointId::ALL.into_iter().zip(self.values.iter())
    }

    /// A new array with `map` applied to each value.
    pub fn map<U>(&self, mut map: impl FnMut(&T) -> U) -> Joints<U> {
        Joints {
            values: std::array::from_fn(|index| map(&self.values[index])),
        }
    }
}

impl<T> Index<JointId> for Joints<T> {
    type Output = T;

    fn index(&self, joint: JointId) -> &T {
        &self.values[joint.index()]
    }
}

impl<T> IndexMut<JointId> for Joints<T> {
    fn index_mut(&mut self, joint: JointId) -> &mut T {
        &mut self.values[joint.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_is_in_lola_order() {
        for (index, joint) in JointId::ALL.iter().enumerate() {
            assert_eq!(joint.index(), index, "{joint:?}");
        }
        assert_eq!(JointId::LeftAnkleRoll.index(), 12);
        assert_eq!(JointId::RightHipRoll.index(), 13);
        assert_eq!(JointId::RightShoulderPitch.index(), 18);
        assert_eq!(JointId::RightHand.aldebaran_name(), "RHand");
    }

    #[test]
    fn index_by_joint_reaches_the_lola_slot() {
        let mut joints = Joints::filled(0.0_f32);
        joints[JointId::RightKneePitch] = 2.0;
        assert_eq!(joints.values[15], 2.0);
        let doubled = joints.map(|value| value * 2.0);
        assert_eq!(doubled[JointId::RightKneePitch], 4.0);
        let from_fn = Joints::from_fn(|joint| joint.index() as u8);
        assert_eq!(from_fn.values[24], 24);
    }
}
