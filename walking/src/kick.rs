//! Which foot kicks: chosen from where the ball lies and where it should go.
//!
//! A kick straight ahead uses the foot on the ball's side, so that the robot has the shorter way
//! to line up; within `hysteresis_m` of the middle the previous choice stays (a ball rolling
//! across the middle does not make the robot shuffle between feet). A kick more than 45° to one
//! side is a side kick with the inside of the *other* foot (the right foot kicks to the left).

use kinematics::Side;

/// The kicking foot for a ball at `ball_left_m` (robot frame, left positive) kicked towards
/// `direction_rad` (robot frame, 0 ahead, positive left). A non-finite input keeps `previous`
/// (or the left foot).
pub fn kick_foot(
    ball_left_m: f64,
    direction_rad: f64,
    previous: Option<Side>,
    hysteresis_m: f64,
) -> Side {
    let fallback = previous.unwrap_or(Side::Left);
    if !ball_left_m.is_finite() || !direction_rad.is_finite() {
        return fallback;
    }
    let direction = (direction_rad + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU)
        - std::f64::consts::PI;
    let side_kick = std::f64::consts::FRAC_PI_4;
    if direction > side_kick {
        return Side::Right;
    }
    if direction < -side_kick {
        return Side::Left;
    }
    if ball_left_m > hysteresis_m {
        Side::Left
    } else if ball_left_m < -hysteresis_m {
        Side::Right
    } else {
        previous.unwrap_or(if ball_left_m >= 0.0 {
            Side::Left
        } else {
            Side::Right
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_foot_on_the_balls_side_kicks_ahead_with_hysteresis_in_the_middle() {
        assert_eq!(kick_foot(0.05, 0.0, None, 0.02), Side::Left);
        assert_eq!(kick_foot(-0.05, 0.1, Some(Side::Left), 0.02), Side::Right);
        // Near the middle the previous foot stays, whichever side the ball is on.
        assert_eq!(kick_foot(0.01, 0.0, Some(Side::Right), 0.02), Side::Right);
        assert_eq!(kick_foot(-0.01, 0.0, Some(Side::Left), 0.02), Side::Left);
        assert_eq!(kick_foot(-0.01, 0.0, None, 0.02), Side::Right);
    }

    #[test]
    fn side_kicks_use_the_inside_of_the_other_foot() {
        assert_eq!(kick_foot(0.05, 1.2, Some(Side::Left), 0.02), Side::Right);
        assert_eq!(kick_foot(-0.05, -1.2, Some(Side::Right), 0.02), Side::Left);
        // Directions wrap: 2π + 1.2 is still to the left.
        assert_eq!(
            kick_foot(0.05, std::f64::consts::TAU + 1.2, None, 0.02),
            Side::Right
        );
        assert_eq!(
            kick_foot(f64::NAN, 0.0, Some(Side::Right), 0.02),
            Side::Right
        );
        assert_eq!(kick_foot(0.05, f64::INFINITY, None, 0.02), Side::Left);
    }
}
