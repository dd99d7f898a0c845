//! `ColorClassifier`: every pixel of the half-resolution frame as field, white, dark or other
//! ([`crate::color_classes`]), with this frame's field colours.

use crate::color_classes::{ChromaCache, ColorClasses};
use crate::ec_image::EcImage;
use crate::field_color::FieldColor;
use framework::Update;
use types::{ColorClassImage, ECImage, FieldColors, ProcessLocal};

/// Provides [`ColorClassImage`].
#[derive(Debug)]
pub struct ColorClassifier;

framework::module! {
    ColorClassifier {
        inputs: ColorClassifierInputs,
        requires: { ec_image: ECImage, field_colors: FieldColors },
        uses: {},
        provides: { ColorClassImage },
    }
}

impl ColorClassifier {
    fn new(_: framework::NoParameters) -> Self {
        ColorClassifier
    }
}

impl Update<ColorClassImage> for ColorClassifier {
    fn update(&mut self, inputs: &ColorClassifierInputs, output: &mut ColorClassImage) {
        let (Some(image), Some(colors)) = (
            inputs.ec_image.image.get::<EcImage>(),
            inputs.field_colors.colors.get::<FieldColor>(),
        ) else {
            *output = ColorClassImage::default();
            return;
        };
        // The cache is valid for one frame's field colours.
        let mut cache = ChromaCache::default();
        let classes = ColorClasses::classify(image, colors, &mut cache);
        *output = ColorClassImage {
            width: classes.width as u32,
            height: classes.height as u32,
            sequence: inputs.ec_image.sequence,
            classes: ProcessLocal::new(classes),
        };
    }
}
