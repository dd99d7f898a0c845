//! Scenes the blur and streak tests paint: a white ball smeared along its roll on turf, as the
//! simulated camera renders it.

use crate::ball_blur::BallBlur;
use crate::color_classes::ChromaCache;
use crate::ec_image::EcImage;
use crate::field_color::FieldColor;
use cortex_image::{ColorRange, RgbImage, YuyvImage};

pub const TURF: [f32; 3] = [40.0, 140.0, 50.0];
pub const WHITE: [f32; 3] = [230.0, 230.0, 230.0];

/// A dark grey shadow on the turf.
pub const SHADOW: [f32; 3] = [45.0, 55.0, 48.0];

/// Turf with a white ball of `radius` at `centre` smeared ±`half_length` along `direction`,
/// as the simulated camera renders a roll (each pixel the mix of ball and turf its coverage
/// says), and with `shadow` a dark, colourless shadow under the streak (an ellipse 1.6 radii
/// wide and 0.8 high whose centre lies at the streak's lower end).
pub fn painted_streak(
    centre: (f32, f32),
    radius: f32,
    direction: (f32, f32),
    half_length: f32,
    shadow: bool,
) -> (YuyvImage, FieldColor) {
    let blur = BallBlur {
        direction,
        half_length,
        ..BallBlur::default()
    };
    let (width, height) = (320, 240);
    let mut rgb = RgbImage::new(width, height, vec![0; width * height * 3]).unwrap();
    let shadow_y = centre.1 + radius + half_length * direction.1.abs();
    for y in 0..height {
        for x in 0..width {
            let offset = (x as f32 - centre.0, y as f32 - centre.1);
            let share = blur.coverage(offset, radius);
            let in_shadow = shadow
                && ((x as f32 - centre.0) / (0.8 * radius)).powi(2)
                    + ((y as f32 - shadow_y) / (0.4 * radius)).powi(2)
                    <= 1.0;
            let ground = if in_shadow { SHADOW } else { TURF };
            let mix = |channel: usize| {
                (share * WHITE[channel] + (1.0 - share) * ground[channel]).round() as u8
            };
            rgb.set(x, y, [mix(0), mix(1), mix(2)]);
        }
    }
    let image = YuyvImage::from_rgb(&rgb, ColorRange::Full).unwrap();
    let field_color = FieldColor::estimate(&EcImage::from_yuyv(&image));
    (image, field_color)
}

/// The saturation of the scene's turf (a pixel in its top left corner).
pub fn turf_saturation(image: &YuyvImage, field_color: &FieldColor) -> f32 {
    let (luma, cb, cr) = image.ycbcr(10, 10);
    ChromaCache::default().get(field_color, luma, cb, cr).0
}
