//! Pure interpolation functions of the keyframe engine.
//!
//! Positions follow a cosine ramp, `s(f) = (1 − cos πf) / 2`: it starts and ends with zero speed
//! (no jerk at a keyframe) and never overshoots, so a joint moves monotonically from where it
//! is to its target. Stiffness changes linearly. A transition always starts from the current
//! pose, so switching motions never makes a joint jump.

use super::keyframes::JointTarget;
use std::f32::consts::PI;
use types::Joints;

/// The smooth progress `s(f) = (1 − cos πf) / 2` for a time fraction `f`, limited to 0 ..= 1
/// (NaN counts as 0: stay at the start).
pub fn smooth_progress(fraction: f32) -> f32 {
    let fraction = if fraction.is_nan() {
        0.0
    } else {
        fraction.clamp(0.0, 1.0)
    };
    0.5 - 0.5 * (PI * fraction).cos()
}

/// The positions a keyframe ends in when it starts at `start`: its targets, with `start` for
/// the joints it keeps (`"*"`).
pub fn resolve_targets(start: &Joints<f32>, targets: &Joints<JointTarget>) -> Joints<f32> {
    Joints::from_fn(|joint| match targets[joint] {
        JointTarget::Keep => start[joint],
        JointTarget::Position(position) => position,
    })
}

/// The positions at time fraction `fraction` (0 ..= 1) of the way from `start` to `end`, on the
/// smooth ramp.
pub fn interpolate_positions(start: &Joints<f32>, end: &Joints<f32>, fraction: f32) -> Joints<f32> {
    let progress = smooth_progress(fraction);
    Joints::from_fn(|joint| start[joint] + (end[joint] - start[joint]) * progress)
}

/// The stiffnesses at time fraction `fraction` (0 ..= 1) of the way from `start` to `end`,
/// linearly.
pub fn interpolate_stiffnesses(
    start: &Joints<f32>,
    end: &Joints<f32>,
    fraction: f32,
) -> Joints<f32> {
    let fraction = if fraction.is_nan() {
        0.0
    } else {
        fraction.clamp(0.0, 1.0)
    };
    Joints::from_fn(|joint| start[joint] + (end[joint] - start[joint]) * fraction)
}

/// `current` moved towards `target` by at most `max_step` (≥ 0).
pub fn step_towards(current: f32, target: f32, max_step: f32) -> f32 {
    let max_step = max_step.max(0.0);
    current + (target - current).clamp(-max_step, max_step)
}

#[cfg(test)]
mod tests {
    use super::*;
    use types::JointId;

    fn poses() -> (Joints<f32>, Joints<f32>) {
        let start = Joints::from_fn(|joint| joint.index() as f32 * 0.1 - 1.0);
        let end = Joints::from_fn(|joint| 1.5 - joint.index() as f32 * 0.07);
        (start, end)
    }

    #[test]
    fn starts_at_the_current_pose_and_ends_at_the_target() {
        let (start, end) = poses();
        assert_eq!(interpolate_positions(&start, &end, 0.0), start);
        let at_end = interpolate_positions(&start, &end, 1.0);
        for joint in JointId::ALL {
            assert!((at_end[joint] - end[joint]).abs() < 1e-6, "{joint:?}");
        }
        // Beyond the ends it stays there.
        assert_eq!(interpolate_positions(&start, &end, -0.5), start);
        assert_eq!(interpolate_positions(&start, &end, 1.5), at_end);
        assert_eq!(interpolate_positions(&start, &end, f32::NAN), start);
    }

    #[test]
    fn every_joint_moves_monotonically_and_slowly_at_the_ends() {
        let (start, end) = poses();
        let mut previous = start;
        let steps = 100;
        for step in 1..=steps {
            let now = interpolate_positions(&start, &end, step as f32 / steps as f32);
            for joint in JointId::ALL {
                let direction = (end[joint] - start[joint]).signum();
                assert!(
                    (now[joint] - previous[joint]) * direction >= 0.0,
                    "{joint:?} turned back at step {step}"
                );
            }
            previous = now;
        }
        // Zero speed at both ends: the first and last step are far smaller than the middle one.
        let delta = |from: f32, to: f32| {
            (interpolate_positions(&start, &end, to)[JointId::HeadYaw]
                - interpolate_positions(&start, &end, from)[JointId::HeadYaw])
                .abs()
        };
        assert!(delta(0.0, 0.01) < delta(0.5, 0.51) / 20.0);
        assert!(delta(0.99, 1.0) < delta(0.5, 0.51) / 20.0);
    }

    #[test]
    fn kept_joints_stay_where_they_are() {
        let (start, _) = poses();
        let mut targets = Joints::filled(JointTarget::Keep);
        targets[JointId::LeftKneePitch] = JointTarget::Position(1.2);
        let end = resolve_targets(&start, &targets);
        assert_eq!(end[JointId::LeftKneePitch], 1.2);
        for fraction in [0.0, 0.3, 0.7, 1.0] {
            let now = interpolate_positions(&start, &end, fraction);
            for joint in JointId::ALL {
                if joint != JointId::LeftKneePitch {
                    assert_eq!(now[joint], start[joint], "{joint:?} at {fraction}");
                }
            }
        }
    }

    #[test]
    fn stiffness_changes_linearly() {
        let start = Joints::filled(0.0);
        let end = Joints::filled(0.8);
        assert_eq!(interpolate_stiffnesses(&start, &end, 0.0), start);
        assert!((interpolate_stiffnesses(&start, &end, 0.5)[JointId::HeadYaw] - 0.4).abs() < 1e-6);
        assert_eq!(interpolate_stiffnesses(&start, &end, 2.0), end);
    }

    #[test]
    fn steps_towards_a_target_without_passing_it() {
        assert_eq!(step_towards(0.0, 1.0, 0.25), 0.25);
        assert_eq!(step_towards(0.0, -1.0, 0.25), -0.25);
        assert_eq!(step_towards(0.9, 1.0, 0.25), 1.0);
        assert_eq!(step_towards(0.5, 1.0, -3.0), 0.5);
    }
}
