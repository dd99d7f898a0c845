//! The commands that change the simulated world, as `cortex sim` sends them to the simulator's
//! control socket (one line each) and as the simulator checks them again before it obeys:
//!
//! | line | effect |
//! |---|---|
//! | `ball X Y [VX VY]` | the ball to (X, Y) m, rolling at (VX, VY) m/s (default at rest) |
//! | `robot X Y THETA` | our robot to (X, Y) m facing THETA rad |
//! | `other-robot X Y THETA` | another robot standing at (X, Y) facing THETA |
//! | `clear-other-robots` | no other robots |
//!
//! Field coordinates: metres, origin the centre spot, x towards the opponent's goal, y left.
//! Every value is checked ([`crate::world::checked_ball`], [`crate::world::checked_pose`]):
//! a refused command changes nothing.

use thiserror::Error;

use crate::world::{checked_ball, checked_pose, PlaceError, World};

/// A checked command.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WorldCommand {
    Ball { x: f32, y: f32, velocity: [f32; 2] },
    Robot { x: f32, y: f32, theta: f32 },
    OtherRobot { x: f32, y: f32, theta: f32 },
    ClearOtherRobots,
}

/// Why a command line was refused.
#[derive(Debug, Error, PartialEq)]
pub enum WorldCommandError {
    #[error(
        "unknown world command `{0}`; expected ball, robot, other-robot or clear-other-robots"
    )]
    Unknown(String),
    #[error("`{command}` takes {expected}; got {found} value(s)")]
    Arity {
        command: &'static str,
        expected: &'static str,
        found: usize,
    },
    #[error("{name} `{text}` is not a number")]
    NotANumber { name: &'static str, text: String },
    #[error(transparent)]
    Place(#[from] PlaceError),
}

fn number(name: &'static str, text: &str) -> Result<f32, WorldCommandError> {
    text.parse().map_err(|_| WorldCommandError::NotANumber {
        name,
        text: text.chars().take(40).collect(),
    })
}

impl WorldCommand {
    /// The command of `words` (a control line split at whitespace), if it is one and its values
    /// may be applied. `Ok(None)`: not a world command (another part of the simulator may know it).
    pub fn parse(words: &[&str]) -> Result<Option<WorldCommand>, WorldCommandError> {
        let Some((&name, values)) = words.split_first() else {
            return Ok(None);
        };
        let pose = |command: &'static str| -> Result<[f32; 3], WorldCommandError> {
            let [x, y, theta] = values else {
                return Err(WorldCommandError::Arity {
                    command,
                    expected: "X Y THETA (metres, metres, radians)",
                    found: values.len(),
                });
            };
            let pose = [number("x", x)?, number("y", y)?, number("theta", theta)?];
            checked_pose(pose[0], pose[1], pose[2])?;
            Ok(pose)
        };
        let command = match name {
            "ball" => {
                let (x, y, velocity) = match values {
                    [x, y] => (x, y, None),
                    [x, y, vx, vy] => (x, y, Some((vx, vy))),
                    _ => {
                        return Err(WorldCommandError::Arity {
                            command: "ball",
                            expected: "X Y or X Y VX VY (metres, metres per second)",
                            found: values.len(),
                        })
                    }
                };
                let (x, y) = (number("x", x)?, number("y", y)?);
                let velocity = match velocity {
                    Some((vx, vy)) => [number("vx", vx)?, number("vy", vy)?],
                    None => [0.0, 0.0],
                };
                checked_ball(x, y, velocity)?;
                WorldCommand::Ball { x, y, velocity }
            }
            "robot" => {
                let [x, y, theta] = pose("robot")?;
                WorldCommand::Robot { x, y, theta }
            }
            "other-robot" => {
                let [x, y, theta] = pose("other-robot")?;
                WorldCommand::OtherRobot { x, y, theta }
            }
            "clear-other-robots" if values.is_empty() => WorldCommand::ClearOtherRobots,
            "clear-other-robots" => {
                return Err(WorldCommandError::Arity {
                    command: "clear-other-robots",
                    expected: "no values",
                    found: values.len(),
                })
            }
            _ => return Ok(None),
        };
        Ok(Some(command))
    }

    /// Applies the command; the reply line says what the world is now.
    pub fn apply(&self, world: &mut World) -> Result<String, WorldCommandError> {
        match *self {
            WorldCommand::Ball { x, y, velocity } => {
                world.place_ball(x, y, velocity)?;
                Ok(format!(
                    "ball at ({x}, {y}) m, velocity ({}, {}) m/s",
                    velocity[0], velocity[1]
                ))
            }
            WorldCommand::Robot { x, y, theta } => {
                world.place_robot(x, y, theta)?;
                let pose = world.robot();
                Ok(format!(
                    "robot at ({}, {}) m facing {} rad",
                    pose.x, pose.y, pose.theta
                ))
            }
            WorldCommand::OtherRobot { x, y, theta } => {
                world.add_other_robot(x, y, theta)?;
                Ok(format!(
                    "another robot at ({x}, {y}) m; {} other robot(s)",
                    world.ground_truth().other_robots.len()
                ))
            }
            WorldCommand::ClearOtherRobots => {
                world.clear_other_robots();
                Ok("no other robots".to_owned())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Option<WorldCommand>, WorldCommandError> {
        WorldCommand::parse(&line.split_whitespace().collect::<Vec<_>>())
    }

    #[test]
    fn good_lines_place_things() {
        let mut world = World::new();
        let reply = parse("ball 1.5 -0.5 0.5 0")
            .unwrap()
            .unwrap()
            .apply(&mut world)
            .unwrap();
        assert_eq!(reply, "ball at (1.5, -0.5) m, velocity (0.5, 0) m/s");
        parse("robot -2 1 3.14159265")
            .unwrap()
            .unwrap()
            .apply(&mut world)
            .unwrap();
        parse("other-robot 0 0 0")
            .unwrap()
            .unwrap()
            .apply(&mut world)
            .unwrap();
        let truth = world.ground_truth();
        assert_eq!(truth.ball.position.x, 1.5);
        assert_eq!((truth.robot.x, truth.robot.y), (-2.0, 1.0));
        assert_eq!(truth.other_robots.len(), 1);
        parse("clear-other-robots")
            .unwrap()
            .unwrap()
            .apply(&mut world)
            .unwrap();
        assert!(world.ground_truth().other_robots.is_empty());
        assert_eq!(parse("press chest 100"), Ok(None));
        assert_eq!(parse(""), Ok(None));
    }

    #[test]
    fn bad_lines_are_refused_naming_what_is_wrong() {
        let cases = [
            ("ball 1", "`ball` takes X Y or X Y VX VY"),
            ("ball 1 2 3", "got 3 value(s)"),
            ("ball one 2", "x `one` is not a number"),
            ("ball 1 2 0 fast", "vy `fast` is not a number"),
            (
                "ball 6 0",
                "x 6 m is off the carpet: it must be within ±5.15 m",
            ),
            ("ball 0 -3.9", "y -3.9 m is off the carpet"),
            ("ball nan 0", "x NaN is not a finite number"),
            ("ball 0 0 20 0", "speed 20 m/s is above"),
            ("robot 1 2", "`robot` takes X Y THETA"),
            ("robot 1 2 inf", "theta inf is not a finite number"),
            ("robot 1 2 9", "theta 9 rad is out of range"),
            (
                "robot 99 0 0",
                "x 99 m is off the carpet: it must be within ±5.20 m",
            ),
            ("other-robot 0 0 x", "theta `x` is not a number"),
            ("clear-other-robots now", "takes no values"),
        ];
        for (line, expected) in cases {
            let message = parse(line).expect_err(line).to_string();
            assert!(message.contains(expected), "{line}: {message}");
        }
    }
}
