//! Step sizes and their limits: the ellipsoid of possible steps and the acceleration limits.

use crate::parameters::WalkingEngineParameters;

/// How far one step moves the robot: forward and left in the robot frame, turn counter-clockwise.
///
/// A walk of steps `s₁ … sₙ` from the stand back to the stand moves the robot by their sum
/// (when it does not turn): each step's displacement is half of the previous step plus half of
/// its own.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Step {
    pub forward_m: f64,
    pub left_m: f64,
    pub turn_rad: f64,
}

impl Step {
    pub const ZERO: Step = Step {
        forward_m: 0.0,
        left_m: 0.0,
        turn_rad: 0.0,
    };

    /// Every component finite.
    pub fn is_finite(&self) -> bool {
        self.forward_m.is_finite() && self.left_m.is_finite() && self.turn_rad.is_finite()
    }

    /// All components (nearly) zero.
    pub fn is_zero(&self) -> bool {
        self.forward_m.abs() < 1e-9 && self.left_m.abs() < 1e-9 && self.turn_rad.abs() < 1e-9
    }

    fn scaled(&self, factor: f64) -> Step {
        Step {
            forward_m: self.forward_m * factor,
            left_m: self.left_m * factor,
            turn_rad: self.turn_rad * factor,
        }
    }
}

/// `step` scaled down (all components by one factor, keeping its direction) into the ellipsoid
/// whose half axes are the largest step sizes. A non-finite step becomes zero.
pub fn within_step_limits(step: Step, parameters: &WalkingEngineParameters) -> Step {
    if !step.is_finite() {
        return Step::ZERO;
    }
    let max_forward = if step.forward_m >= 0.0 {
        parameters.max_forward_step_m
    } else {
        parameters.max_backward_step_m
    };
    let size = (step.forward_m / max_forward).powi(2)
        + (step.left_m / parameters.max_left_step_m).powi(2)
        + (step.turn_rad / parameters.max_turn_step_rad).powi(2);
    if size > 1.0 {
        step.scaled(1.0 / size.sqrt())
    } else {
        step
    }
}

fn towards(previous: f64, target: f64, max_change: f64) -> f64 {
    previous + (target - previous).clamp(-max_change, max_change)
}

/// The next step: `target` moved into the step limits, reached from `previous` no faster than
/// the acceleration limits allow, and then within the step limits again.
pub fn next_step(previous: Step, target: Step, parameters: &WalkingEngineParameters) -> Step {
    let target = within_step_limits(target, parameters);
    let accelerated = Step {
        forward_m: towards(
            previous.forward_m,
            target.forward_m,
            parameters.max_forward_change_m,
        ),
        left_m: towards(previous.left_m, target.left_m, parameters.max_left_change_m),
        turn_rad: towards(
            previous.turn_rad,
            target.turn_rad,
            parameters.max_turn_change_rad,
        ),
    };
    within_step_limits(accelerated, parameters)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_scaled_into_the_ellipsoid_keeping_their_direction() {
        let parameters = WalkingEngineParameters::default();
        let huge = Step {
            forward_m: 1.0,
            left_m: 1.0,
            turn_rad: 1.0,
        };
        let limited = within_step_limits(huge, &parameters);
        let size = (limited.forward_m / parameters.max_forward_step_m).powi(2)
            + (limited.left_m / parameters.max_left_step_m).powi(2)
            + (limited.turn_rad / parameters.max_turn_step_rad).powi(2);
        assert!((size - 1.0).abs() < 1e-9);
        assert!((limited.forward_m - limited.left_m).abs() < 1e-12);
        let backwards = within_step_limits(
            Step {
                forward_m: -1.0,
                ..Step::ZERO
            },
            &parameters,
        );
        assert!((backwards.forward_m + parameters.max_backward_step_m).abs() < 1e-12);
        let nan = Step {
            turn_rad: f64::NAN,
            ..Step::ZERO
        };
        assert_eq!(within_step_limits(nan, &parameters), Step::ZERO);
    }
}
