//! `PenaltyMarkPerceptor`: the penalty mark of this frame, if one is in view (B-Human's module
//! of that name; [`crate::penalty_mark`]): a white cross alone on the field, found among the
//! line spots that no line took and checked in the colour classes. It provides the process's
//! [`PenaltyMarkPercept`] (`upper.PenaltyMarkPercept`, `lower.PenaltyMarkPercept`).

use crate::camera_matrix;
use crate::color_classes::ColorClasses;
use crate::lines::LineDetection;
use crate::penalty_mark::find_penalty_mark;
use framework::Update;
use types::{CameraImage, CameraMatrix, ColorClassImage, LinesPercept, PenaltyMarkPercept};

/// Provides [`PenaltyMarkPercept`].
#[derive(Debug)]
pub struct PenaltyMarkPerceptor;

framework::module! {
    PenaltyMarkPerceptor {
        inputs: PenaltyMarkPerceptorInputs,
        requires: {
            camera_image: CameraImage,
            camera_matrix: CameraMatrix,
            color_classes: ColorClassImage,
            lines_percept: LinesPercept,
        },
        uses: {},
        provides: { PenaltyMarkPercept },
    }
}

impl PenaltyMarkPerceptor {
    fn new(_: framework::NoParameters) -> Self {
        PenaltyMarkPerceptor
    }
}

impl Update<PenaltyMarkPercept> for PenaltyMarkPerceptor {
    fn update(&mut self, inputs: &PenaltyMarkPerceptorInputs, output: &mut PenaltyMarkPercept) {
        let image = inputs.camera_image;
        *output = PenaltyMarkPercept {
            sequence: image.sequence,
            captured_ns: image.captured_ns,
            ..PenaltyMarkPercept::default()
        };
        let (Some(classes), Some(matrix), Some(detection)) = (
            inputs.color_classes.classes.get::<ColorClasses>(),
            inputs
                .camera_matrix
                .matrix
                .get::<camera_matrix::CameraMatrix>(),
            inputs.lines_percept.detection.get::<LineDetection>(),
        ) else {
            return;
        };
        if let Some(mark) = find_penalty_mark(
            &detection.spots,
            &detection.lines,
            detection.circle.as_ref(),
            classes,
            matrix,
        ) {
            output.seen = true;
            output.position_m = [mark.ground.x, mark.ground.y];
            output.position_px = [mark.pixel.x, mark.pixel.y];
        }
    }
}
