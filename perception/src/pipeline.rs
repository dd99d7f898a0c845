//! One perception tick on one frame: every stage in order, each timed.
//!
//! ```text
//! YuyvImage ─► EcImage ─► FieldColor ─► ColorClasses ─┬─► ScanLineRegions ─► FieldBoundary ─┐
//!                                                     └─► BallSpots ─► BallPerceptor ◄──────┘
//!                                                                          └─► BallPercept
//! ```

use crate::ball_perceptor::{
    ball_percepts, contour_candidates, judge_surroundings, judge_with_network, BallCandidate,
    BallPercept, SizeCheck,
};
use crate::ball_spots::find_ball_spots_on_field_off_body;
use crate::body_contour::BodyContour;
use crate::camera_matrix::CameraMatrix;
use crate::color_classes::{ChromaCache, ColorClasses};
use crate::ec_image::EcImage;
use crate::field_boundary::FieldBoundary;
use crate::field_color::FieldColor;
use crate::scan_lines::ScanLineRegions;
use cortex_image::YuyvImage;
use std::time::{Duration, Instant};

/// The stages of a tick, in order (names for the benchmark's table).
pub const STAGES: [&str; 7] = [
    "ec_image",
    "field_color",
    "color_classes",
    "scan_lines_and_field_boundary",
    "ball_spots",
    "ball_contours_and_features",
    "ball_network_and_percepts",
];

/// What one tick produced.
#[derive(Debug, Clone)]
pub struct Percepts {
    pub field_color: FieldColor,
    pub scan_lines: ScanLineRegions,
    pub field_boundary: FieldBoundary,
    pub ball_candidates: Vec<BallCandidate>,
    pub balls: Vec<BallPercept>,
    /// Time per stage, in the order of [`STAGES`].
    pub stage_times: [Duration; 7],
}

impl Percepts {
    pub fn total_time(&self) -> Duration {
        self.stage_times.iter().sum()
    }
}

/// Runs every stage on one frame. A camera matrix, if given, places the balls on the ground
/// but does not judge them (`cortex perceive` only assumes one).
pub fn perceive(image: &YuyvImage, camera_matrix: Option<&CameraMatrix>) -> Percepts {
    run(image, camera_matrix, SizeCheck::Off, None)
}

/// Runs every stage on one frame with the robot's measured camera matrix: besides placing the
/// balls on the ground, it drops a ball whose radius is not the one a 10 cm ball has at that
/// pixel (off by more than [`MAX_RADIUS_RATIO`](crate::ball_perceptor::MAX_RADIUS_RATIO)).
pub fn perceive_with_camera_matrix(image: &YuyvImage, camera_matrix: &CameraMatrix) -> Percepts {
    run(image, Some(camera_matrix), SizeCheck::On, None)
}

/// Like [`perceive_with_camera_matrix`], for a robot that may see its own legs: no spot is
/// searched and no ball kept where the body contour says the legs are (what the perception
/// processes do, `crate::modules`).
pub fn perceive_with_body_contour(
    image: &YuyvImage,
    camera_matrix: &CameraMatrix,
    body_contour: &BodyContour,
) -> Percepts {
    run(
        image,
        Some(camera_matrix),
        SizeCheck::On,
        Some(body_contour),
    )
}

fn run(
    image: &YuyvImage,
    camera_matrix: Option<&CameraMatrix>,
    size_check: SizeCheck,
    body_contour: Option<&BodyContour>,
) -> Percepts {
    let mut stage_times = [Duration::ZERO; 7];
    let mut clock = Instant::now();
    let mut lap = |stage: usize| {
        let now = Instant::now();
        stage_times[stage] = now - clock;
        clock = now;
    };
    let ec_image = EcImage::from_yuyv(image);
    lap(0);
    let field_color = FieldColor::estimate(&ec_image);
    lap(1);
    let mut chroma_cache = ChromaCache::default();
    let classes = ColorClasses::classify(&ec_image, &field_color, &mut chroma_cache);
    lap(2);
    let scan_lines = ScanLineRegions::segment(&classes);
    let field_boundary = FieldBoundary::from_scan_lines(&scan_lines);
    lap(3);
    let spots = find_ball_spots_on_field_off_body(&classes, &field_boundary, body_contour);
    lap(4);
    let mut ball_candidates = contour_candidates(image, &field_color, &mut chroma_cache, &spots);
    lap(5);
    judge_with_network(image, &field_color, &mut chroma_cache, &mut ball_candidates);
    judge_surroundings(image, &field_color, &mut chroma_cache, &mut ball_candidates);
    let mut balls = ball_percepts(&ball_candidates, &field_boundary, camera_matrix, size_check);
    if let Some(body) = body_contour {
        balls.retain(|ball| !body.is_body(ball.x, ball.y));
    }
    lap(6);
    Percepts {
        field_color,
        scan_lines,
        field_boundary,
        ball_candidates,
        balls,
        stage_times,
    }
}
