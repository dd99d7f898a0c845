//! The range of every NAO v6 joint (Aldebaran's documentation of the V6 joints), so that keyframe
//! files and head requests cannot command a joint against its mechanical stop.

use types::JointId;

/// The smallest and largest value of `joint`: degrees for the angles, the opening 0 (closed)
/// ..= 1 (open) for the hands.
pub const fn range_deg(joint: JointId) -> (f32, f32) {
    match joint {
        JointId::HeadYaw => (-119.5, 119.5),
        JointId::HeadPitch => (-38.5, 29.5),
        JointId::LeftShoulderPitch | JointId::RightShoulderPitch => (-119.5, 119.5),
        JointId::LeftShoulderRoll => (-18.0, 76.0),
        JointId::RightShoulderRoll => (-76.0, 18.0),
        JointId::LeftElbowYaw | JointId::RightElbowYaw => (-119.5, 119.5),
        JointId::LeftElbowRoll => (-88.5, -2.0),
        JointId::RightElbowRoll => (2.0, 88.5),
        JointId::LeftWristYaw | JointId::RightWristYaw => (-104.5, 104.5),
        JointId::LeftHipYawPitch => (-65.62, 42.44),
        JointId::LeftHipRoll => (-21.74, 45.29),
        JointId::RightHipRoll => (-45.29, 21.74),
        JointId::LeftHipPitch | JointId::RightHipPitch => (-88.0, 27.73),
        JointId::LeftKneePitch => (-5.29, 121.04),
        JointId::RightKneePitch => (-5.9, 121.47),
        JointId::LeftAnklePitch => (-68.15, 52.86),
        JointId::RightAnklePitch => (-67.97, 53.4),
        JointId::LeftAnkleRoll => (-22.79, 44.06),
        JointId::RightAnkleRoll => (-44.06, 22.8),
        JointId::LeftHand | JointId::RightHand => (0.0, 1.0),
    }
}

/// Whether `joint` is a hand, whose value is an opening (0 ..= 1), not an angle.
pub const fn is_hand(joint: JointId) -> bool {
    matches!(joint, JointId::LeftHand | JointId::RightHand)
}

/// The range of `joint` in the unit of `JointRequest`: rad, or the opening for the hands.
pub fn range_rad(joint: JointId) -> (f32, f32) {
    let (low, high) = range_deg(joint);
    if is_hand(joint) {
        (low, high)
    } else {
        (low.to_radians(), high.to_radians())
    }
}

/// `value` (rad, or the opening for the hands) limited to the range of `joint`.
pub fn clamp_rad(joint: JointId, value: f32) -> f32 {
    let (low, high) = range_rad(joint);
    value.clamp(low, high)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_range_is_ordered_and_mirrored_joints_mirror() {
        for joint in JointId::ALL {
            let (low, high) = range_deg(joint);
            assert!(low < high, "{joint:?}");
        }
        let (left_low, left_high) = range_deg(JointId::LeftShoulderRoll);
        assert_eq!(
            range_deg(JointId::RightShoulderRoll),
            (-left_high, -left_low)
        );
        let (left_low, left_high) = range_deg(JointId::LeftElbowRoll);
        assert_eq!(range_deg(JointId::RightElbowRoll), (-left_high, -left_low));
    }

    #[test]
    fn clamping_uses_radians_except_for_hands() {
        assert!((clamp_rad(JointId::HeadPitch, 1.0) - 29.5_f32.to_radians()).abs() < 1e-6);
        assert_eq!(clamp_rad(JointId::HeadYaw, 0.5), 0.5);
        assert_eq!(clamp_rad(JointId::LeftHand, 1.5), 1.0);
        assert!(is_hand(JointId::RightHand) && !is_hand(JointId::RightWristYaw));
    }
}
