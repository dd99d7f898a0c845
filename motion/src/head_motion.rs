//! Head motion: the head yaw and pitch move in a straight line (in joint space) towards the
//! requested angles, no faster than the requested speed, so that both arrive together.

use super::joint_limits::clamp_rad;
use types::{HeadMotionRequest, JointId};

/// Head yaw and pitch, rad.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeadAngles {
    pub yaw_rad: f32,
    pub pitch_rad: f32,
}

/// Whether `joint` is moved by the head motion (when the keyframe leaves it `"*"`).
pub fn is_head(joint: JointId) -> bool {
    matches!(joint, JointId::HeadYaw | JointId::HeadPitch)
}

/// The head one tick of `cycle_ms` closer to `request`: the target limited to the joints'
/// ranges, the speed to 0 ..= `speed_limit_rad_per_s`. A target that is not a number keeps the
/// joint where it is.
pub fn step_head(
    current: HeadAngles,
    request: &HeadMotionRequest,
    cycle_ms: f32,
    speed_limit_rad_per_s: f32,
) -> HeadAngles {
    let target = |value: f32, joint: JointId, current: f32| {
        if value.is_finite() {
            clamp_rad(joint, value)
        } else {
            current
        }
    };
    let target_yaw = target(request.yaw_rad, JointId::HeadYaw, current.yaw_rad);
    let target_pitch = target(request.pitch_rad, JointId::HeadPitch, current.pitch_rad);
    let speed = if request.max_speed_rad_per_s.is_nan() {
        0.0
    } else {
        request
            .max_speed_rad_per_s
            .clamp(0.0, speed_limit_rad_per_s.max(0.0))
    };
    let max_step = speed * cycle_ms.max(0.0) / 1000.0;
    let (delta_yaw, delta_pitch) = (
        target_yaw - current.yaw_rad,
        target_pitch - current.pitch_rad,
    );
    let distance = delta_yaw.hypot(delta_pitch);
    if distance <= max_step {
        return HeadAngles {
            yaw_rad: target_yaw,
            pitch_rad: target_pitch,
        };
    }
    let scale = max_step / distance;
    HeadAngles {
        yaw_rad: current.yaw_rad + delta_yaw * scale,
        pitch_rad: current.pitch_rad + delta_pitch * scale,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(yaw_rad: f32, pitch_rad: f32, max_speed_rad_per_s: f32) -> HeadMotionRequest {
        HeadMotionRequest {
            yaw_rad,
            pitch_rad,
            max_speed_rad_per_s,
        }
    }

    const ZERO: HeadAngles = HeadAngles {
        yaw_rad: 0.0,
        pitch_rad: 0.0,
    };

    #[test]
    fn moves_at_the_requested_speed_and_both_joints_arrive_together() {
        let request = request(0.8, 0.3, 1.0);
        let mut head = ZERO;
        let mut ticks = 0;
        while head != step_head(head, &request, 12.0, 8.0) {
            let next = step_head(head, &request, 12.0, 8.0);
            let step = (next.yaw_rad - head.yaw_rad).hypot(next.pitch_rad - head.pitch_rad);
            assert!(step <= 0.012 + 1e-6, "step {step}");
            // On the straight line to the target.
            assert!((next.pitch_rad * 0.8 - next.yaw_rad * 0.3).abs() < 1e-5);
            head = next;
            ticks += 1;
            assert!(ticks < 1000);
        }
        assert_eq!(
            head,
            HeadAngles {
                yaw_rad: 0.8,
                pitch_rad: 0.3
            }
        );
        // 0.854 rad at 1 rad/s in 12 ms ticks: 72 ticks.
        assert_eq!(ticks, 72);
    }

    #[test]
    fn targets_are_limited_to_the_joint_ranges_and_speed_to_the_limit() {
        let head = step_head(ZERO, &request(0.0, 2.0, 100.0), 1000.0, 8.0);
        assert!((head.pitch_rad - 29.5_f32.to_radians()).abs() < 1e-6);
        let head = step_head(ZERO, &request(3.0, 0.0, 100.0), 12.0, 8.0);
        assert!((head.yaw_rad - 0.096).abs() < 1e-6, "{head:?}");
    }

    #[test]
    fn bad_requests_do_not_move_the_head() {
        let start = HeadAngles {
            yaw_rad: 0.2,
            pitch_rad: -0.1,
        };
        assert_eq!(
            step_head(start, &request(f32::NAN, f32::INFINITY, 1.0), 12.0, 8.0),
            start
        );
        assert_eq!(
            step_head(start, &request(1.0, 0.0, f32::NAN), 12.0, 8.0),
            start
        );
        assert_eq!(step_head(start, &request(1.0, 0.0, -2.0), 12.0, 8.0), start);
    }
}
