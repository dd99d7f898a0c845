//! The simulated robot of Cortex: a LoLA simulator that serves the same bytes as the NAO's LoLA
//! on a Unix socket ([`lola_simulator`]), and the simple body behind it ([`simulated_body`]).
//! It uses the `lola` crate's codec, so a bridge cannot tell it from the robot. It is not a
//! physics simulation: the MuJoCo simulator (Python) lives beside this crate in `physics/`.
//!
//! ```text
//!   bridge ──command map──► LolaSimulator ──Command──► SimulatedBody::step
//!   bridge ◄──896-byte frame── LolaSimulator ◄──SensorData── SimulatedBody
//! ```
//!
//! A simulated world, camera and microphones come later.

pub mod lola_simulator;
pub mod simulated_body;
