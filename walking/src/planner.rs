//! Walk-to-target: the next step towards a target pose given relative to the robot.
//!
//! Far from the target (beyond `planner_far_distance_m`) the robot turns towards it and walks
//! straight, starting to walk only once the target lies within `planner_walk_heading_rad` of its
//! heading; near the target it walks omnidirectionally and turns to the target's orientation.
//! Each component is limited so that the robot can still stop in time under the acceleration
//! limits: decelerating by `a` per step from a step of `s` covers `s²/2a + s/2`.

use crate::parameters::WalkingEngineParameters;
use crate::step::{within_step_limits, Step};

/// A pose relative to the robot: forward, left, and the orientation relative to the robot's.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RelativeTarget {
    pub forward_m: f64,
    pub left_m: f64,
    pub turn_rad: f64,
}

fn normalized_angle(angle_rad: f64) -> f64 {
    let wrapped = (angle_rad + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU);
    wrapped - std::f64::consts::PI
}

/// The largest step `s` towards `remaining` from which the robot can still stop within it when
/// it decelerates by `max_change` per step.
fn stoppable(remaining: f64, max_change: f64) -> f64 {
    let distance = remaining.abs();
    let largest = ((2.0 * max_change * distance + max_change * max_change / 4.0).sqrt()
        - max_change / 2.0)
        .min(distance);
    largest.copysign(remaining)
}

/// The step to take now towards `target`, which is what remains after the motion already
/// committed by the current step. Zero once the target is reached.
pub fn plan_step(target: RelativeTarget, parameters: &WalkingEngineParameters) -> Step {
    if !(target.forward_m.is_finite() && target.left_m.is_finite() && target.turn_rad.is_finite()) {
        return Step::ZERO;
    }
    let distance = target.forward_m.hypot(target.left_m);
    let orientation = normalized_angle(target.turn_rad);
    if distance < parameters.planner_reached_distance_m
        && orientation.abs() < parameters.planner_reached_angle_rad
    {
        return Step::ZERO;
    }
    let wanted = if distance > parameters.planner_far_distance_m {
        let heading = target.left_m.atan2(target.forward_m);
        let forward = if heading.abs() < parameters.planner_walk_heading_rad {
            distance * heading.cos()
        } else {
            0.0
        };
        Step {
            forward_m: forward,
            left_m: 0.0,
            turn_rad: heading,
        }
    } else {
        Step {
            forward_m: target.forward_m,
            left_m: target.left_m,
            turn_rad: orientation,
        }
    };
    within_step_limits(
        Step {
            forward_m: stoppable(wanted.forward_m, parameters.max_forward_change_m),
            left_m: stoppable(wanted.left_m, parameters.max_left_change_m),
            turn_rad: stoppable(wanted.turn_rad, parameters.max_turn_change_rad),
        },
        parameters,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_far_target_behind_is_turned_to_first_and_a_near_one_is_walked_to_sideways() {
        let parameters = WalkingEngineParameters::default();
        let behind = plan_step(
            RelativeTarget {
                forward_m: -2.0,
                left_m: -0.1,
                turn_rad: 0.0,
            },
            &parameters,
        );
        assert_eq!(behind.forward_m, 0.0);
        assert!(
            behind.turn_rad < 0.0,
            "turns the short way round: {behind:?}"
        );
        let beside = plan_step(
            RelativeTarget {
                forward_m: 0.0,
                left_m: 0.2,
                turn_rad: 0.0,
            },
            &parameters,
        );
        assert!(beside.left_m > 0.0 && beside.forward_m == 0.0 && beside.turn_rad == 0.0);
        let reached = plan_step(
            RelativeTarget {
                forward_m: 0.005,
                left_m: 0.0,
                turn_rad: 0.01 + std::f64::consts::TAU,
            },
            &parameters,
        );
        assert_eq!(reached, Step::ZERO);
        let nan = RelativeTarget {
            forward_m: f64::NAN,
            ..RelativeTarget::default()
        };
        assert_eq!(plan_step(nan, &parameters), Step::ZERO);
    }

    #[test]
    fn steps_shrink_so_that_the_robot_can_stop_in_time() {
        // Decelerating by 2 cm per step from 6 cm covers 6 + 4 + 2 = 12 cm.
        let step = stoppable(0.12, 0.02);
        assert!((step - 0.06).abs() < 1e-9, "{step}");
        assert!((stoppable(-0.01, 0.02) + 0.01).abs() < 1e-12);
    }
}
