//! `FieldColorProvider`: this frame's field green and white ([`crate::field_color`]; B-Human's
//! `FieldColorsProvider`), estimated from the frame itself so that lighting changes need no
//! calibration.

use crate::ec_image::EcImage;
use crate::field_color::FieldColor;
use framework::Update;
use types::{ECImage, FieldColors, ProcessLocal};

/// Provides [`FieldColors`].
#[derive(Debug)]
pub struct FieldColorProvider;

framework::module! {
    FieldColorProvider {
        inputs: FieldColorProviderInputs,
        requires: { ec_image: ECImage },
        uses: {},
        provides: { FieldColors },
    }
}

impl FieldColorProvider {
    fn new(_: framework::NoParameters) -> Self {
        FieldColorProvider
    }
}

impl Update<FieldColors> for FieldColorProvider {
    fn update(&mut self, inputs: &FieldColorProviderInputs, output: &mut FieldColors) {
        let Some(image) = inputs.ec_image.image.get::<EcImage>() else {
            *output = FieldColors::default();
            return;
        };
        let colors = FieldColor::estimate(image);
        *output = FieldColors {
            sequence: inputs.ec_image.sequence,
            bright_luma: colors.bright_luma,
            field_hue_rad: colors.field_hue_rad,
            colors: ProcessLocal::new(colors),
        };
    }
}
