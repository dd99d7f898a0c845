//! `BallSpotsProvider`: places in the colour classes where a ball may be
//! ([`crate::ball_spots`]; B-Human's module of that name).

use crate::ball_spots::find_ball_spots;
use crate::color_classes::ColorClasses;
use framework::Update;
use types::{BallSpots, ColorClassImage, ProcessLocal};

/// Provides [`BallSpots`].
#[derive(Debug)]
pub struct BallSpotsProvider;

framework::module! {
    BallSpotsProvider {
        inputs: BallSpotsProviderInputs,
        requires: { color_classes: ColorClassImage },
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
        let Some(classes) = inputs.color_classes.classes.get::<ColorClasses>() else {
            *output = BallSpots::default();
            return;
        };
        let spots = find_ball_spots(classes);
        *output = BallSpots {
            sequence: inputs.color_classes.sequence,
            count: spots.len() as u32,
            spots: ProcessLocal::new(spots),
        };
    }
}
