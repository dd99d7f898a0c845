//! The simulated robot of Cortex: a LoLA simulator that serves the same bytes as the NAO's LoLA
//! on a Unix socket ([`lola_simulator`]), the simple body behind it ([`simulated_body`]), the
//! world it stands in ([`world`]: the SPL field, the ball, other robots) and its two head
//! cameras ([`simulated_camera`], rendered by ray casting in [`render`]). It uses the `lola`
//! crate's codec, so a bridge cannot tell it from the robot, and implements `cortex_image`'s
//! `Camera`, so perception cannot tell the cameras apart either. It is not a physics
//! simulation: the MuJoCo simulator (Python) lives beside this crate in `physics/`.
//!
//! ```text
//!   bridge ──command map──► LolaSimulator ──Command──► SimulatedBody::step
//!   bridge ◄──896-byte frame── LolaSimulator ◄──SensorData── SimulatedBody
//!                                  joint angles ──► World (the support foot stays put)
//!   perception ◄──YUYV── SimulatedCamera ◄── SimulatedScene (GroundTruth + head, torso, limbs)
//! ```
//!
//! Simulated microphones are in the `audio` crate.

pub mod ball_pattern;
pub mod body_paint;
pub mod field;
pub mod kinematic_walker;
pub mod lola_simulator;
pub mod render;
pub mod scene;
pub mod simulated_body;
pub mod simulated_camera;
pub mod world;
pub mod world_commands;
