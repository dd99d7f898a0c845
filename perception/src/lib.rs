//! Perception of the NAO: from one camera frame to percepts. Pure functions and structs, one
//! file per stage with B-Human's names; the framework wraps them as modules later.
//!
//! What it is not: no process, no shared memory, no configuration (those come with the
//! framework). One stage is learned: `ball_network`, a small perceptron that vetoes ball
//! candidates, trained on scenes the project renders itself (`perception/training/`); every
//! other stage is hand-designed and documented in its file.
//!
//! ```text
//! YuyvImage ─► EcImage ─► FieldColor ─► ColorClasses ─┬─► ScanLineRegions ─► FieldBoundary ──┐
//!  (camera)    (half res)  (thresholds    (field/white/ │                                     │
//!                           of this frame) dark/other)  └─► BallSpots ─► BallContour ─► BallClassifier ─► BallPercept
//!                                                           (scale       (sub-pixel     (features)    (on the field,
//!                                                            search)      circles)                     on the ground)
//! ```
//!
//! The field's markings come from the same colour classes: `line_spots` (white gaps between
//! field runs, as wide on the ground as a line) → `lines` and `center_circle` (RANSAC on the
//! ground) → `penalty_mark` (a white cross alone on the field).
//!
//! `CameraMatrix` places what is seen on the ground: pixel ↔ robot frame for known head
//! angles, torso orientation and camera mounting. [`perceive`] takes an assumed matrix (ground
//! positions only); [`perceive_with_camera_matrix`] takes the robot's measured one and also
//! drops balls of the wrong size for their place in the image.
//!
//! ```no_run
//! let image = cortex_image::read_image_file(
//!     std::path::Path::new("frame.png"),
//!     cortex_image::ColorRange::Full,
//! ).unwrap();
//! for ball in perception::perceive(&image, None).balls {
//!     println!("ball at ({}, {}) radius {}", ball.x, ball.y, ball.radius);
//! }
//! ```

pub mod ball_blur;
pub mod ball_classifier;
pub mod ball_contour;
pub mod ball_network;
pub mod ball_patch;
pub mod ball_perceptor;
pub mod ball_spots;
pub mod ball_streak;
pub mod ball_vertical_streak;
pub mod body_contour;
pub mod camera_matrix;
pub mod center_circle;
pub mod color_classes;
pub mod ec_image;
pub mod field_boundary;
pub mod field_color;
pub mod image_channel;
pub mod line_spots;
pub mod lines;
pub mod modules;
pub mod penalty_mark;
pub mod pipeline;
pub mod scan_lines;
#[cfg(test)]
mod test_scenes;

pub use ball_perceptor::BallPercept;
pub use pipeline::{perceive, perceive_with_camera_matrix, Percepts};
