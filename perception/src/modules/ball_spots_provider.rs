//! `BallSpotsProvider`: places in the colour classes where a ball lying on the field may be
//! ([`crate::ball_spots`]; B-Human's module of that name). Like `perception::perceive`, it
//! leaves out what lies above the field boundary before the best spots are chosen, so clutter
//! above the field (walls, people, cables) cannot crowd the ball out of the few spots kept; and
//! it leaves out the robot's own legs ([`BodyContour`]) for the same reason.

use crate::ball_spots::find_ball_spots_on_field_off_body;
use crate::body_contour;
use crate::color_classes::ColorClasses;
use crate::field_boundary;
use framework::Update;
use types::{BallSpots, BodyContour, ColorClassImage, FieldBoundary, ProcessLocal};

/// Provides [`BallSpots`].
#[derive(Debug)]
pub struct BallSpotsProvider;

framework::module! {
    BallSpotsProvider {
        inputs: BallSpotsProviderInputs,
        requires: {
            color_classes: ColorClassImage,
            field_boundary: FieldBoundary,
            body_contour: BodyContour,
        },
        uses: {},
        provides: { BallSpots },
    }
}

impl BallSpotsProvider {
    fn new(_: framework::NoParameters) -> Self {
        BallSpotsProvider
    }
}

impl Update<BallSpots> for BallSpotsProvider {
    fn update(&mut self, inputs: &BallSpotsProviderInputs, output: &mut BallSpots) {
        let (Some(classes), Some(boundary)) = (
            inputs.color_classes.classes.get::<ColorClasses>(),
            (inputs.field_boundary.boundary).get::<field_boundary::FieldBoundary>(),
        ) else {
            *output = BallSpots::default();
            return;
        };
        // A frame without a contour (none provided yet) leaves nothing out.
        let body = inputs
            .body_contour
            .contour
            .get::<body_contour::BodyContour>();
        let spots = find_ball_spots_on_field_off_body(classes, boundary, body);
        *output = BallSpots {
            sequence: inputs.color_classes.sequence,
            count: spots.len() as u32,
            spots: ProcessLocal::new(spots),
        };
    }
}
