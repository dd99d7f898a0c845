//! BT.601 conversion between RGB and YCbCr, in full range (JPEG: Y, Cb, Cr in 0..=255) or
//! limited range (studio swing: Y in 16..=235, Cb and Cr in 16..=240).
//!
//! The NAO's OV5640 delivers full-range YUYV, so [`ColorRange::Full`] is what the cameras and
//! the shared test frames use; limited range is there for files written by other tools.

/// Which range the 8-bit YCbCr values use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorRange {
    /// Y, Cb, Cr all span 0..=255 (JPEG, the NAO cameras).
    #[default]
    Full,
    /// Y spans 16..=235, Cb and Cr 16..=240 (studio swing, BT.601 video).
    Limited,
}

fn clamp_to_byte(value: f32) -> u8 {
    value.round().clamp(0.0, 255.0) as u8
}

/// Converts one RGB pixel to (Y, Cb, Cr).
pub fn rgb_to_ycbcr(rgb: [u8; 3], range: ColorRange) -> (u8, u8, u8) {
    let [r, g, b] = rgb.map(f32::from);
    let luma = 0.299 * r + 0.587 * g + 0.114 * b;
    let blue_difference = (b - luma) / 1.772;
    let red_difference = (r - luma) / 1.402;
    match range {
        ColorRange::Full => (
            clamp_to_byte(luma),
            clamp_to_byte(128.0 + blue_difference),
            clamp_to_byte(128.0 + red_difference),
        ),
        ColorRange::Limited => (
            clamp_to_byte(16.0 + luma * 219.0 / 255.0),
            clamp_to_byte(128.0 + blue_difference * 224.0 / 255.0),
            clamp_to_byte(128.0 + red_difference * 224.0 / 255.0),
        ),
    }
}

/// Converts one (Y, Cb, Cr) pixel to RGB.
pub fn ycbcr_to_rgb(y: u8, cb: u8, cr: u8, range: ColorRange) -> [u8; 3] {
    let (luma, blue_difference, red_difference) = match range {
        ColorRange::Full => (f32::from(y), f32::from(cb) - 128.0, f32::from(cr) - 128.0),
        ColorRange::Limited => (
            (f32::from(y) - 16.0) * 255.0 / 219.0,
            (f32::from(cb) - 128.0) * 255.0 / 224.0,
            (f32::from(cr) - 128.0) * 255.0 / 224.0,
        ),
    };
    let red = luma + 1.402 * red_difference;
    let green = luma - 0.344_136 * blue_difference - 0.714_136 * red_difference;
    let blue = luma + 1.772 * blue_difference;
    [
        clamp_to_byte(red),
        clamp_to_byte(green),
        clamp_to_byte(blue),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primaries_have_the_bt601_values() {
        assert_eq!(
            rgb_to_ycbcr([255, 255, 255], ColorRange::Full),
            (255, 128, 128)
        );
        assert_eq!(rgb_to_ycbcr([0, 0, 0], ColorRange::Full), (0, 128, 128));
        // Red: Y = 0.299 * 255 = 76.2, Cr = 128 + (255 - 76.2) / 1.402 = 255.5 -> 255.
        assert_eq!(rgb_to_ycbcr([255, 0, 0], ColorRange::Full), (76, 85, 255));
        assert_eq!(
            rgb_to_ycbcr([255, 255, 255], ColorRange::Limited),
            (235, 128, 128)
        );
        assert_eq!(rgb_to_ycbcr([0, 0, 0], ColorRange::Limited), (16, 128, 128));
    }

    #[test]
    fn round_trip_stays_within_one_step() {
        for range in [ColorRange::Full, ColorRange::Limited] {
            for rgb in [[10, 200, 30], [250, 250, 250], [128, 64, 32], [0, 0, 255]] {
                let (y, cb, cr) = rgb_to_ycbcr(rgb, range);
                let back = ycbcr_to_rgb(y, cb, cr, range);
                for channel in 0..3 {
                    let difference = i32::from(back[channel]) - i32::from(rgb[channel]);
                    assert!(difference.abs() <= 3, "{rgb:?} -> {back:?} in {range:?}");
                }
            }
        }
    }
}
