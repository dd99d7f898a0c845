//! How far the robot moved during one tick, from the support foot's motion under the torso.

use nalgebra::{Isometry2, Vector2};

/// A motion of the robot in the robot frame of the previous tick: forward, left, turn.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct OdometryDelta {
    pub forward_m: f64,
    pub left_m: f64,
    pub turn_rad: f64,
}

impl OdometryDelta {
    /// The torso's motion while the support foot stays on the ground: the foot was at
    /// `support_before` and is at `support_after` (both relative to the torso).
    pub fn from_support(
        support_before: &Isometry2<f64>,
        support_after: &Isometry2<f64>,
    ) -> OdometryDelta {
        OdometryDelta::from_isometry(&(support_before * support_after.inverse()))
    }

    pub fn from_isometry(motion: &Isometry2<f64>) -> OdometryDelta {
        OdometryDelta {
            forward_m: motion.translation.x,
            left_m: motion.translation.y,
            turn_rad: motion.rotation.angle(),
        }
    }

    pub fn to_isometry(&self) -> Isometry2<f64> {
        Isometry2::new(Vector2::new(self.forward_m, self.left_m), self.turn_rad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_support_foot_sliding_back_moves_the_robot_forward() {
        let before = Isometry2::new(Vector2::new(0.03, -0.05), 0.1);
        let after = Isometry2::new(Vector2::new(-0.03, -0.05), 0.1);
        let delta = OdometryDelta::from_support(&before, &after);
        assert!((delta.forward_m - 0.06).abs() < 1e-12 && delta.left_m.abs() < 1e-12);
        assert!(delta.turn_rad.abs() < 1e-12);
        let turned = Isometry2::new(Vector2::new(0.03, -0.05), -0.1);
        let turn = OdometryDelta::from_support(&before, &turned);
        assert!((turn.turn_rad - 0.2).abs() < 1e-12);
    }
}
