//! `BallPerceptor`: the balls of this frame (B-Human's module of that name): each spot refined
//! to a circle and classified ([`crate::ball_perceptor`]), kept if it lies on the field and has
//! the size a 10 cm ball has at its pixel for the camera matrix and does not lie on the robot's
//! own legs ([`BodyContour`]), and placed on the ground.
//! It provides the process's [`BallPercept`] (`upper.BallPercept`, `lower.BallPercept`), the
//! input of cognition's ball model.

use crate::ball_perceptor::{ball_percepts, classify_spots, SizeCheck};
use crate::ball_spots::BallSpot;
use crate::body_contour;
use crate::camera_matrix;
use crate::color_classes::ChromaCache;
use crate::field_boundary;
use crate::field_color::FieldColor;
use cortex_image::Frame;
use framework::debug_output::{Color, DebugOutput, Space};
use framework::Update;
use types::{
    BallPercept, BallSpots, BodyContour, CameraImage, CameraMatrix, FieldBoundary, FieldColors,
    SeenBallPercept,
};

/// Provides [`BallPercept`].
#[derive(Debug)]
pub struct BallPerceptor {
    /// The spots looked at and the balls kept, on the camera image (only while subscribed).
    drawing: DebugOutput,
}

framework::module! {
    BallPerceptor {
        inputs: BallPerceptorInputs,
        requires: {
            camera_image: CameraImage,
            camera_matrix: CameraMatrix,
            field_colors: FieldColors,
            field_boundary: FieldBoundary,
            ball_spots: BallSpots,
            body_contour: BodyContour,
        },
        uses: {},
        provides: { BallPercept },
    }
}

impl BallPerceptor {
    fn new(_: framework::NoParameters) -> Self {
        BallPerceptor {
            drawing: DebugOutput::image_drawing("BallPerceptor.balls"),
        }
    }
}

impl Update<BallPercept> for BallPerceptor {
    fn update(&mut self, inputs: &BallPerceptorInputs, output: &mut BallPercept) {
        let image = inputs.camera_image;
        *output = BallPercept {
            camera: image.camera,
            sequence: image.sequence,
            captured_ns: image.captured_ns,
            perceived_ns: 0,
            balls: Vec::new(),
        };
        let (Some(frame), Some(colors), Some(boundary), Some(spots)) = (
            image.frame.get::<Frame>(),
            inputs.field_colors.colors.get::<FieldColor>(),
            inputs
                .field_boundary
                .boundary
                .get::<field_boundary::FieldBoundary>(),
            inputs.ball_spots.spots.get::<Vec<BallSpot>>(),
        ) else {
            output.perceived_ns = ipc::health::monotonic_ns();
            return;
        };
        let matrix = inputs
            .camera_matrix
            .matrix
            .get::<camera_matrix::CameraMatrix>();
        let size_check = if matrix.is_some() {
            SizeCheck::On
        } else {
            SizeCheck::Off
        };
        // The cache is valid for one frame's field colours.
        let mut cache = ChromaCache::default();
        let candidates = classify_spots(&frame.image, colors, &mut cache, spots);
        let body = inputs
            .body_contour
            .contour
            .get::<body_contour::BodyContour>();
        output.balls = ball_percepts(&candidates, boundary, matrix, size_check)
            .into_iter()
            .filter(|ball| body.is_none_or(|body| !body.is_body(ball.x, ball.y)))
            .map(|ball| SeenBallPercept {
                x: ball.x,
                y: ball.y,
                radius: ball.radius,
                confidence: ball.confidence,
                position_m: ball.position_on_ground_m.map(|p| [p.x, p.y]),
            })
            .collect();
        output.perceived_ns = ipc::health::monotonic_ns();
        self.drawing.draw(Space::Image(image.camera), |drawing| {
            for spot in spots {
                drawing.circle([spot.x, spot.y], spot.radius, Color::YELLOW);
            }
            for ball in &output.balls {
                drawing
                    .circle([ball.x, ball.y], ball.radius, Color::RED)
                    .text(
                        [ball.x + ball.radius, ball.y],
                        format!("{:.2}", ball.confidence),
                        Color::RED,
                    );
            }
        });
    }
}
