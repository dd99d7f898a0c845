//! `BallPerceptor`: turns ball spots into `BallPercept`s — refine each spot's circle, classify
//! it, keep the balls, drop a ball that overlaps a more confident one, and place each on the
//! ground with the camera matrix when there is one.

use crate::ball_classifier::{BallFeatures, BALL_THRESHOLD};
use crate::ball_contour::refine;
use crate::ball_spots::BallSpot;
use crate::camera_matrix::{CameraMatrix, BALL_RADIUS_M};
use crate::field_color::FieldColor;
use cortex_image::YuyvImage;
use nalgebra::{Point2, Vector2};

/// Smallest radius classified, in pixels.
pub const MIN_RADIUS_PX: f32 = 6.0;

/// A ball seen in one image (B-Human's `BallPercept`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BallPercept {
    /// Centre in pixels of the full-resolution image, origin top-left.
    pub x: f32,
    pub y: f32,
    /// Radius in pixels.
    pub radius: f32,
    /// Classifier confidence in [0, 1].
    pub confidence: f32,
    /// Centre on the ground relative to the robot (metres, x forward, y left); None without a
    /// camera matrix or above the horizon.
    pub position_on_ground_m: Option<Vector2<f32>>,
}

/// A candidate with what the classifier saw (for debugging and the tests' reports).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BallCandidate {
    pub spot: BallSpot,
    pub x: f32,
    pub y: f32,
    pub radius: f32,
    pub features: BallFeatures,
    pub confidence: f32,
}

/// Refines and classifies every spot (spots in half-resolution pixels).
pub fn classify_spots(
    image: &YuyvImage,
    field_color: &FieldColor,
    spots: &[BallSpot],
) -> Vec<BallCandidate> {
    spots
        .iter()
        .filter_map(|spot| {
            let guess = (2.0 * spot.x + 0.5, 2.0 * spot.y + 0.5, 2.0 * spot.radius);
            let contour = refine(image, field_color, guess)?;
            // A ball nearer than the feet (radius over a fifth of the height) or too far to
            // show its pattern (under 6 px) is not classified.
            let max_radius = 0.21 * image.height() as f32;
            if !(MIN_RADIUS_PX..=max_radius).contains(&contour.radius) {
                return None;
            }
            let features = BallFeatures::measure(image, field_color, &contour);
            Some(BallCandidate {
                spot: *spot,
                x: contour.x,
                y: contour.y,
                radius: contour.radius,
                features,
                confidence: features.confidence(),
            })
        })
        .collect()
}

/// The balls among the candidates, most confident first, none inside another.
pub fn ball_percepts(
    candidates: &[BallCandidate],
    camera_matrix: Option<&CameraMatrix>,
) -> Vec<BallPercept> {
    let mut balls: Vec<&BallCandidate> = candidates
        .iter()
        .filter(|candidate| candidate.confidence >= BALL_THRESHOLD)
        .collect();
    balls.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
    let mut kept: Vec<BallPercept> = Vec::new();
    for ball in balls {
        let overlaps = kept.iter().any(|better| {
            let distance = ((better.x - ball.x).powi(2) + (better.y - ball.y).powi(2)).sqrt();
            distance < better.radius.max(ball.radius)
        });
        if overlaps {
            continue;
        }
        let position_on_ground_m = camera_matrix.and_then(|matrix| {
            matrix
                .pixel_to_plane(&Point2::new(ball.x, ball.y), BALL_RADIUS_M)
                .map(|point| Vector2::new(point.x, point.y))
        });
        kept.push(BallPercept {
            x: ball.x,
            y: ball.y,
            radius: ball.radius,
            confidence: ball.confidence,
            position_on_ground_m,
        });
    }
    kept
}
