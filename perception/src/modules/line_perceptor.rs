//! `LinePerceptor`: the field lines and the centre circle of this frame (B-Human's module of
//! that name): line spots on the scan lines ([`crate::line_spots`]), fitted on the ground
//! ([`crate::lines`]). It provides the process's [`LinesPercept`] (`upper.LinesPercept`,
//! `lower.LinesPercept`) for localisation, and keeps the spots in it for the
//! `PenaltyMarkPerceptor`. Spots on the robot's own legs ([`BodyContour`]: white shells with
//! straight edges) are left out before the fit.

use crate::body_contour;
use crate::camera_matrix;
use crate::color_classes::ColorClasses;
use crate::field_boundary;
use crate::line_spots::find_line_spots;
use crate::lines::{fit, LineDetection};
use framework::Update;
use nalgebra::Point3;
use types::{
    BodyContour, CameraImage, CameraMatrix, CenterCircle, ColorClassImage, FieldBoundary,
    LineSegment, LinesPercept, ProcessLocal,
};

/// Provides [`LinesPercept`].
#[derive(Debug)]
pub struct LinePerceptor;

framework::module! {
    LinePerceptor {
        inputs: LinePerceptorInputs,
        requires: {
            camera_image: CameraImage,
            camera_matrix: CameraMatrix,
            color_classes: ColorClassImage,
            field_boundary: FieldBoundary,
            body_contour: BodyContour,
        },
        uses: {},
        provides: { LinesPercept },
    }
}

impl LinePerceptor {
    fn new(_: framework::NoParameters) -> Self {
        LinePerceptor
    }
}

/// The percept of a detection: ground positions as fitted, pixels where the matrix projects
/// them.
pub fn lines_percept(
    detection: &LineDetection,
    matrix: &camera_matrix::CameraMatrix,
) -> LinesPercept {
    let pixel = |point: &nalgebra::Point2<f32>| {
        matrix
            .robot_to_pixel(&Point3::new(point.x, point.y, 0.0))
            .map(|pixel| [pixel.x, pixel.y])
    };
    LinesPercept {
        spots: detection.spots.len() as u32,
        lines: detection
            .lines
            .iter()
            .map(|line| LineSegment {
                start_m: [line.start.x, line.start.y],
                end_m: [line.end.x, line.end.y],
                start_px: pixel(&line.start).unwrap_or_default(),
                end_px: pixel(&line.end).unwrap_or_default(),
                spots: line.spots as u32,
                deviation_m: line.deviation_m,
            })
            .collect(),
        center_circle: detection.circle.map(|circle| CenterCircle {
            center_m: [circle.center.x, circle.center.y],
            center_px: pixel(&circle.center),
            spots: circle.spots as u32,
            deviation_m: circle.deviation_m,
        }),
        ..LinesPercept::default()
    }
}

impl Update<LinesPercept> for LinePerceptor {
    fn update(&mut self, inputs: &LinePerceptorInputs, output: &mut LinesPercept) {
        let image = inputs.camera_image;
        let (Some(classes), Some(boundary), Some(matrix)) = (
            inputs.color_classes.classes.get::<ColorClasses>(),
            inputs
                .field_boundary
                .boundary
                .get::<field_boundary::FieldBoundary>(),
            inputs
                .camera_matrix
                .matrix
                .get::<camera_matrix::CameraMatrix>(),
        ) else {
            *output = LinesPercept {
                sequence: image.sequence,
                captured_ns: image.captured_ns,
                ..LinesPercept::default()
            };
            return;
        };
        let body = inputs
            .body_contour
            .contour
            .get::<body_contour::BodyContour>();
        let mut spots = find_line_spots(classes, boundary, matrix);
        if let Some(body) = body {
            spots.retain(|spot| !body.is_body(spot.pixel.x, spot.pixel.y));
        }
        let detection = fit(spots);
        *output = LinesPercept {
            sequence: image.sequence,
            captured_ns: image.captured_ns,
            ..lines_percept(&detection, matrix)
        };
        output.detection = ProcessLocal::new(detection);
    }
}
