//! `ECImageProvider`: the frame at half resolution with luma and chroma apart (B-Human's
//! `ECImageProvider`; [`crate::ec_image`]), what every later stage reads.

use crate::ec_image::EcImage;
use cortex_image::Frame;
use framework::Update;
use types::{CameraImage, ECImage, ProcessLocal};

/// Provides [`ECImage`].
#[derive(Debug)]
pub struct ECImageProvider;

framework::module! {
    ECImageProvider {
        inputs: ECImageProviderInputs,
        requires: { camera_image: CameraImage },
        uses: {},
        provides: { ECImage },
    }
}

impl ECImageProvider {
    fn new(_: framework::NoParameters) -> Self {
        ECImageProvider
    }
}

impl Update<ECImage> for ECImageProvider {
    fn update(&mut self, inputs: &ECImageProviderInputs, output: &mut ECImage) {
        let Some(frame) = inputs.camera_image.frame.get::<Frame>() else {
            *output = ECImage::default();
            return;
        };
        let image = EcImage::from_yuyv(&frame.image);
        *output = ECImage {
            width: image.width as u32,
            height: image.height as u32,
            sequence: inputs.camera_image.sequence,
            image: ProcessLocal::new(image),
        };
    }
}
