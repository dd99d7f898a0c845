//! What is really where in the simulation: [`GroundTruth`]. Written only by the simulator
//! (`cortex simulator`, started by `cortex run --sim`); read by `cortex get GroundTruth`, by tests
//! that compare what the robot believes with what is, and by the simulated cameras.
//!
//! Field coordinates (SPL convention): metres, origin at the centre spot, x towards the
//! opponent's goal, y to the left when looking along x, angles counter-clockwise from x.

use nalgebra::Vector2;
use serde::{Deserialize, Serialize};

/// A robot's pose on the field: the point on the ground below its torso and the direction its
/// torso faces.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RobotPose {
    /// m, field coordinates.
    pub x: f32,
    /// m, field coordinates.
    pub y: f32,
    /// rad, counter-clockwise from the field's x axis, in (−π, π].
    pub theta: f32,
}

/// The ball in the simulated world.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BallTruth {
    /// Centre of the ball projected onto the ground, m, field coordinates.
    pub position: Vector2<f32>,
    /// m/s, field coordinates.
    pub velocity: Vector2<f32>,
}

/// The state of the simulated world.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GroundTruth {
    /// Seconds of simulated time since the simulator started.
    pub time_s: f64,
    /// Our robot (the one whose body the LoLA simulator is).
    pub robot: RobotPose,
    pub ball: BallTruth,
    /// Other robots placed on the field (they stand still).
    pub other_robots: Vec<RobotPose>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_old_bytes_decode() {
        let truth = GroundTruth {
            time_s: 1.5,
            robot: RobotPose {
                x: -1.0,
                y: 0.5,
                theta: 0.25,
            },
            ball: BallTruth {
                position: Vector2::new(1.0, -2.0),
                velocity: Vector2::new(0.5, 0.0),
            },
            other_robots: vec![RobotPose::default()],
        };
        let bytes = rmp_serde::to_vec_named(&truth).unwrap();
        assert_eq!(rmp_serde::from_slice::<GroundTruth>(&bytes).unwrap(), truth);
        // Bytes written before `other_robots` existed still decode.
        #[derive(Serialize)]
        struct Older {
            time_s: f64,
        }
        let older = rmp_serde::to_vec_named(&Older { time_s: 2.0 }).unwrap();
        let decoded: GroundTruth = rmp_serde::from_slice(&older).unwrap();
        assert_eq!(decoded.time_s, 2.0);
        assert!(decoded.other_robots.is_empty());
    }
}
