//! The simulated world: the SPL field ([`crate::field`]), the ball rolling on it, our robot's
//! pose moved by its legs, and other robots standing where they were placed. It is what the
//! simulated cameras render and what [`GroundTruth`] reports.
//!
//! ```
//! use simulator::world::World;
//! let mut world = World::new();
//! world.place_ball(1.0, 0.5, [1.0, 0.0]).unwrap();
//! world.step(0.5, None);
//! let truth = world.ground_truth();
//! assert!(truth.ball.position.x > 1.3 && truth.ball.velocity.x < 1.0);
//! assert!(world.place_ball(9.0, 0.0, [0.0, 0.0]).is_err()); // beyond the carpet
//! ```
//!
//! - **The ball** rolls with a constant deceleration ([`BALL_DECELERATION_M_PER_S2`], rolling
//!   friction on the carpet) and stops at the carpet's edge; it passes through robots and posts.
//! - **Our robot** moves only through its legs ([`KinematicWalker`]) or when placed.
//! - **Other robots** stand still where they were placed (at most [`MAX_OTHER_ROBOTS`]).

use nalgebra::Vector2;
use thiserror::Error;
use types::{BallTruth, GroundTruth, Joints, RobotPose};

use crate::field::{BALL_RADIUS_M, CARPET_HALF_SIZE_M};
use crate::kinematic_walker::KinematicWalker;

/// Rolling friction of the ball on the carpet.
pub const BALL_DECELERATION_M_PER_S2: f32 = 0.4;
/// The fastest ball that may be placed (a strong kick is about 5 m/s).
pub const MAX_BALL_SPEED_M_PER_S: f32 = 10.0;
/// How many other robots the world holds (two teams of seven, minus us).
pub const MAX_OTHER_ROBOTS: usize = 13;
/// Where our robot starts: in its own half, facing the opponent's goal, the ball (at the
/// centre spot) 1.5 m ahead.
pub const START_POSE: RobotPose = RobotPose {
    x: -1.5,
    y: 0.0,
    theta: 0.0,
};

/// Why something could not be placed.
#[derive(Debug, Error, PartialEq)]
pub enum PlaceError {
    #[error("{what} {value} is not a finite number")]
    NotFinite { what: &'static str, value: f32 },
    #[error(
        "{what} {value} m is off the carpet: it must be within ±{limit:.2} m (the 9 × 6 m field \
         and its 0.7 m border)"
    )]
    OffCarpet {
        what: &'static str,
        value: f32,
        limit: f32,
    },
    #[error("theta {value} rad is out of range: it must be within ±2π (about ±6.283)")]
    Angle { value: f32 },
    #[error("the ball's speed {speed} m/s is above the most a ball is placed with, {MAX_BALL_SPEED_M_PER_S} m/s")]
    TooFast { speed: f32 },
    #[error("the world already holds {MAX_OTHER_ROBOTS} other robots")]
    TooManyRobots,
}

/// The simulated world.
#[derive(Debug, Clone)]
pub struct World {
    time_s: f64,
    robot: RobotPose,
    ball: BallTruth,
    other_robots: Vec<RobotPose>,
    walker: KinematicWalker,
}

impl Default for World {
    fn default() -> Self {
        Self::new()
    }
}

impl World {
    /// The ball resting at the centre spot, our robot at [`START_POSE`], nobody else.
    pub fn new() -> Self {
        Self {
            time_s: 0.0,
            robot: START_POSE,
            ball: BallTruth::default(),
            other_robots: Vec::new(),
            walker: KinematicWalker::default(),
        }
    }

    /// Puts the ball at (x, y) with a velocity (m/s, field coordinates).
    pub fn place_ball(&mut self, x: f32, y: f32, velocity: [f32; 2]) -> Result<(), PlaceError> {
        self.ball = checked_ball(x, y, velocity)?;
        Ok(())
    }

    /// Puts our robot at (x, y) facing `theta` (normalised into (−π, π]); its feet stay where
    /// they are relative to it.
    pub fn place_robot(&mut self, x: f32, y: f32, theta: f32) -> Result<(), PlaceError> {
        self.robot = checked_pose(x, y, theta)?;
        self.walker.forget_support();
        Ok(())
    }

    /// Adds another robot standing at (x, y) facing `theta`.
    pub fn add_other_robot(&mut self, x: f32, y: f32, theta: f32) -> Result<(), PlaceError> {
        let pose = checked_pose(x, y, theta)?;
        if self.other_robots.len() >= MAX_OTHER_ROBOTS {
            return Err(PlaceError::TooManyRobots);
        }
        self.other_robots.push(pose);
        Ok(())
    }

    /// Removes every other robot.
    pub fn clear_other_robots(&mut self) {
        self.other_robots.clear();
    }

    /// Advances the world by `seconds`: the ball rolls; with the body's joint angles, our robot
    /// moves as its legs carry it.
    pub fn step(&mut self, seconds: f64, joint_positions_rad: Option<&Joints<f32>>) {
        self.time_s += seconds;
        self.roll_ball(seconds as f32);
        if let Some(joints) = joint_positions_rad {
            self.walker.update(&mut self.robot, joints);
            self.robot.x = self
                .robot
                .x
                .clamp(-CARPET_HALF_SIZE_M[0], CARPET_HALF_SIZE_M[0]);
            self.robot.y = self
                .robot
                .y
                .clamp(-CARPET_HALF_SIZE_M[1], CARPET_HALF_SIZE_M[1]);
        }
    }

    fn roll_ball(&mut self, seconds: f32) {
        let ball = &mut self.ball;
        let speed = ball.velocity.norm();
        if speed <= 0.0 {
            return;
        }
        // Constant deceleration until it stops (within this step, if it does).
        let rolling = seconds.min(speed / BALL_DECELERATION_M_PER_S2);
        let new_speed = speed - BALL_DECELERATION_M_PER_S2 * rolling;
        let direction = ball.velocity / speed;
        ball.position += direction * (0.5 * (speed + new_speed) * rolling);
        ball.velocity = direction * new_speed;
        for (axis, half_size) in CARPET_HALF_SIZE_M.iter().enumerate() {
            let limit = half_size - BALL_RADIUS_M;
            if ball.position[axis].abs() > limit {
                ball.position[axis] = ball.position[axis].clamp(-limit, limit);
                ball.velocity = Vector2::zeros();
            }
        }
    }

    pub fn robot(&self) -> RobotPose {
        self.robot
    }

    /// Everything as [`GroundTruth`].
    pub fn ground_truth(&self) -> GroundTruth {
        GroundTruth {
            time_s: self.time_s,
            robot: self.robot,
            ball: self.ball,
            other_robots: self.other_robots.clone(),
        }
    }
}

fn finite(what: &'static str, value: f32) -> Result<(), PlaceError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(PlaceError::NotFinite { what, value })
    }
}

fn check_on_carpet(what: &'static str, value: f32, limit: f32) -> Result<(), PlaceError> {
    finite(what, value)?;
    if value.abs() > limit {
        return Err(PlaceError::OffCarpet { what, value, limit });
    }
    Ok(())
}

/// The ball at (x, y) rolling with `velocity`, if it may be placed so: on the carpet, finite,
/// no faster than [`MAX_BALL_SPEED_M_PER_S`].
pub fn checked_ball(x: f32, y: f32, velocity: [f32; 2]) -> Result<BallTruth, PlaceError> {
    check_on_carpet("x", x, CARPET_HALF_SIZE_M[0] - BALL_RADIUS_M)?;
    check_on_carpet("y", y, CARPET_HALF_SIZE_M[1] - BALL_RADIUS_M)?;
    finite("vx", velocity[0])?;
    finite("vy", velocity[1])?;
    let velocity = Vector2::from(velocity);
    let speed = velocity.norm();
    if speed > MAX_BALL_SPEED_M_PER_S {
        return Err(PlaceError::TooFast { speed });
    }
    Ok(BallTruth {
        position: Vector2::new(x, y),
        velocity,
    })
}

/// A robot's pose at (x, y) facing `theta`, if it may be placed so: on the carpet, finite,
/// |theta| ≤ 2π (normalised into (−π, π]).
pub fn checked_pose(x: f32, y: f32, theta: f32) -> Result<RobotPose, PlaceError> {
    check_on_carpet("x", x, CARPET_HALF_SIZE_M[0])?;
    check_on_carpet("y", y, CARPET_HALF_SIZE_M[1])?;
    finite("theta", theta)?;
    if theta.abs() > std::f32::consts::TAU + 1e-4 {
        return Err(PlaceError::Angle { value: theta });
    }
    Ok(RobotPose {
        x,
        y,
        theta: normalized_angle(theta),
    })
}

/// The angle in (−π, π].
pub fn normalized_angle(angle: f32) -> f32 {
    use std::f32::consts::{PI, TAU};
    let wrapped = (angle + PI).rem_euclid(TAU) - PI;
    if wrapped <= -PI {
        wrapped + TAU
    } else {
        wrapped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rolling_ball_slows_down_and_stops() {
        let mut world = World::new();
        world.place_ball(0.0, 0.0, [2.0, 0.0]).unwrap();
        for _ in 0..100 {
            world.step(0.01, None);
        }
        let after_one_second = world.ground_truth().ball;
        // v = 2 − 0.4·1, x = 2·1 − 0.2·1².
        assert!((after_one_second.velocity.x - 1.6).abs() < 1e-4);
        assert!((after_one_second.position.x - 1.8).abs() < 1e-3);
        world.step(10.0, None);
        let stopped = world.ground_truth().ball;
        assert_eq!(stopped.velocity, Vector2::zeros());
        // v²/2a = 5 m in all.
        assert!((stopped.position.x - 5.0).abs() < 1e-3);
        assert!((world.ground_truth().time_s - 11.0).abs() < 1e-9);
    }

    #[test]
    fn the_ball_stops_at_the_carpet_edge() {
        let mut world = World::new();
        world.place_ball(4.0, 3.0, [0.0, 9.0]).unwrap();
        world.step(2.0, None);
        let ball = world.ground_truth().ball;
        assert!((ball.position.y - (3.7 - 0.05)).abs() < 1e-5);
        assert_eq!(ball.velocity, Vector2::zeros());
    }

    #[test]
    fn placements_off_the_carpet_or_not_finite_are_refused_and_change_nothing() {
        let mut world = World::new();
        let before = world.ground_truth();
        let refused = [
            world.place_ball(5.2, 0.0, [0.0, 0.0]),
            world.place_ball(0.0, -3.7, [0.0, 0.0]),
            world.place_ball(f32::NAN, 0.0, [0.0, 0.0]),
            world.place_ball(0.0, 0.0, [8.0, 8.0]),
            world.place_ball(0.0, 0.0, [f32::INFINITY, 0.0]),
            world.place_robot(6.0, 0.0, 0.0),
            world.place_robot(0.0, 0.0, 7.0),
            world.place_robot(0.0, 0.0, f32::NAN),
        ];
        assert!(refused.iter().all(Result::is_err), "{refused:?}");
        assert_eq!(world.ground_truth(), before);
        let message = world.place_robot(6.0, 0.0, 0.0).unwrap_err().to_string();
        assert!(message.contains("x 6 m is off the carpet"), "{message}");
        for _ in 0..MAX_OTHER_ROBOTS {
            world.add_other_robot(1.0, 1.0, 0.0).unwrap();
        }
        assert_eq!(
            world.add_other_robot(1.0, 1.0, 0.0),
            Err(PlaceError::TooManyRobots)
        );
        world.clear_other_robots();
        assert!(world.ground_truth().other_robots.is_empty());
    }

    #[test]
    fn angles_are_normalised() {
        use std::f32::consts::PI;
        assert!((normalized_angle(3.0 * PI / 2.0) + PI / 2.0).abs() < 1e-5);
        assert!((normalized_angle(-PI) - PI).abs() < 1e-5);
        assert!((normalized_angle(0.5) - 0.5).abs() < 1e-6);
        let mut world = World::new();
        world.place_robot(1.0, 2.0, -6.0).unwrap();
        assert!((world.robot().theta - (-6.0 + 2.0 * PI)).abs() < 1e-5);
    }
}
