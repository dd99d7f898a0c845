//! `FieldColor`: what green, white and dark mean in this frame, estimated from the frame itself
//! so that lighting and colour casts move the thresholds with them.
//!
//! 1. The **bright level** is the 95th percentile of luma; white and dark are fractions of it.
//! 2. The **white point** is the mean chroma of the brightest tenth of the pixels (no darker
//!    than 85 % of the 99th percentile) that are nearly neutral, limited to ±24 around
//!    neutral: a warm or cold cast shifts the chroma of everything, the white point shifts
//!    with it, and saturation is measured from there.
//! 3. The **field hue** is the peak of a hue histogram of the saturated pixels within the
//!    greens (hue −175°…−80° in the (Cb, Cr) plane); if less than 4 % of the frame is such
//!    green, there is no field in view and nothing is classified as field. Otherwise every
//!    green (and hues within 34° of the peak) is field: carpets and turf differ in hue.

use crate::ec_image::EcImage;

/// The class of one pixel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PixelClass {
    Field,
    White,
    Dark,
    Other,
}

/// Colour thresholds of one frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldColor {
    /// 95th percentile of luma.
    pub bright_luma: f32,
    /// Chroma of white under this frame's light.
    pub white_point: (f32, f32),
    /// Hue of the field in radians (atan2(Cr − white Cr, Cb − white Cb)), if a field is seen.
    pub field_hue_rad: Option<f32>,
}

const SAMPLE_STEP: usize = 3;
/// Field colour needs at least this saturation in a frame whose bright level is
/// [`REFERENCE_BRIGHT_LUMA`]; chroma scales with the exposure like luma does, so the threshold
/// scales with the frame's bright level (a dark frame's turf keeps its hue at a lower
/// saturation).
const FIELD_MIN_SATURATION: f32 = 10.0;
const REFERENCE_BRIGHT_LUMA: f32 = 220.0;
/// The scaled threshold never drops under this: chroma noise of a dark sensor.
const FIELD_MIN_SATURATION_FLOOR: f32 = 5.0;
/// Field colour needs at least this saturation per unit of luma.
const FIELD_SATURATION_PER_LUMA: f32 = 0.1;
const FIELD_HUE_TOLERANCE_RAD: f32 = 0.6;
const GREEN_HUE_RANGE_DEG: (f32, f32) = (-175.0, -80.0);
const MIN_FIELD_SHARE: f32 = 0.04;
const MAX_WHITE_POINT_SHIFT: f32 = 24.0;
/// Chroma within this of neutral may be white under a colour cast.
const NEAR_NEUTRAL: i16 = 32;

/// The chroma of white under this frame's light: the mean chroma of the frame's brightest pixels
/// (its brightest tenth, and no darker than 85 % of its 99th percentile) that are nearly neutral
/// (within ±32 of neutral, which a colour cast does not leave), limited to ±24. The neutrality
/// test keeps field green out when lines and ball cover less than a tenth of the frame.
fn white_point(image: &EcImage, luma_threshold: f32) -> (f32, f32) {
    let near_neutral = |cb: u8, cr: u8| {
        (i16::from(cb) - 128).abs() <= NEAR_NEUTRAL && (i16::from(cr) - 128).abs() <= NEAR_NEUTRAL
    };
    let (mut sum_cb, mut sum_cr, mut count) = (0.0, 0.0, 0.0);
    for y in (0..image.height).step_by(SAMPLE_STEP) {
        for x in (0..image.width).step_by(SAMPLE_STEP) {
            let (luma, cb, cr) = image.get(x, y);
            if near_neutral(cb, cr) && f32::from(luma) >= luma_threshold {
                sum_cb += f32::from(cb);
                sum_cr += f32::from(cr);
                count += 1.0;
            }
        }
    }
    if count < 1.0 {
        return (128.0, 128.0);
    }
    let limit =
        |value: f32| value.clamp(128.0 - MAX_WHITE_POINT_SHIFT, 128.0 + MAX_WHITE_POINT_SHIFT);
    (limit(sum_cb / count), limit(sum_cr / count))
}

impl FieldColor {
    /// Estimates the thresholds from a sample of the frame's pixels.
    pub fn estimate(image: &EcImage) -> Self {
        let mut luma_histogram = [0u32; 256];
        let mut samples = 0u32;
        for y in (0..image.height).step_by(SAMPLE_STEP) {
            for x in (0..image.width).step_by(SAMPLE_STEP) {
                luma_histogram[usize::from(image.get(x, y).0)] += 1;
                samples += 1;
            }
        }
        let percentile = |fraction: f32| {
            let target = (samples as f32 * fraction) as u32;
            let mut seen = 0;
            for (luma, count) in luma_histogram.iter().enumerate() {
                seen += count;
                if seen > target {
                    return luma as f32;
                }
            }
            255.0
        };
        let bright_luma = percentile(0.95).max(40.0);
        let white_point = white_point(image, percentile(0.90).max(0.85 * percentile(0.99)));
        let mut estimate = Self {
            bright_luma,
            white_point,
            field_hue_rad: None,
        };
        estimate.field_hue_rad = estimate.find_field_hue(image, samples);
        estimate
    }

    fn find_field_hue(&self, image: &EcImage, samples: u32) -> Option<f32> {
        const BINS: usize = 72;
        let mut histogram = [0u32; BINS];
        for y in (0..image.height).step_by(SAMPLE_STEP) {
            for x in (0..image.width).step_by(SAMPLE_STEP) {
                let (_, cb, cr) = image.get(x, y);
                let (saturation, hue) = self.saturation_and_hue(cb, cr);
                let degrees = hue.to_degrees();
                if saturation >= self.field_min_saturation()
                    && (GREEN_HUE_RANGE_DEG.0..=GREEN_HUE_RANGE_DEG.1).contains(&degrees)
                {
                    let bin = (((degrees + 180.0) / 360.0) * BINS as f32) as usize;
                    histogram[bin.min(BINS - 1)] += 1;
                }
            }
        }
        let total: u32 = histogram.iter().sum();
        if (total as f32) < MIN_FIELD_SHARE * samples as f32 {
            return None;
        }
        // The peak of the histogram smoothed over three bins (15°).
        let smoothed = |bin: usize| {
            histogram[bin]
                + histogram.get(bin + 1).copied().unwrap_or(0)
                + bin.checked_sub(1).map_or(0, |previous| histogram[previous])
        };
        let peak = (0..BINS).max_by_key(|&bin| smoothed(bin))?;
        Some(((peak as f32 + 0.5) / BINS as f32 * 360.0 - 180.0).to_radians())
    }

    /// Saturation (distance from the white point) and hue (radians) of a chroma.
    pub fn saturation_and_hue(&self, cb: u8, cr: u8) -> (f32, f32) {
        let blue = f32::from(cb) - self.white_point.0;
        let red = f32::from(cr) - self.white_point.1;
        ((blue * blue + red * red).sqrt(), red.atan2(blue))
    }

    /// Least saturation of field colour in this frame (see [`FIELD_MIN_SATURATION`]).
    pub fn field_min_saturation(&self) -> f32 {
        (FIELD_MIN_SATURATION * self.bright_luma / REFERENCE_BRIGHT_LUMA)
            .clamp(FIELD_MIN_SATURATION_FLOOR, FIELD_MIN_SATURATION)
    }

    /// Luma at and above which a pixel of low saturation is white.
    pub fn white_luma(&self) -> f32 {
        0.5 * self.bright_luma
    }

    /// Luma at and below which a pixel of low saturation is dark.
    pub fn dark_luma(&self) -> f32 {
        0.4 * self.bright_luma
    }

    /// Whether a chroma is the field's green.
    pub fn is_field(&self, cb: u8, cr: u8) -> bool {
        let Some(field_hue) = self.field_hue_rad else {
            return false;
        };
        let (saturation, hue) = self.saturation_and_hue(cb, cr);
        if saturation < self.field_min_saturation() {
            return false;
        }
        let mut difference = (hue - field_hue).abs();
        if difference > std::f32::consts::PI {
            difference = 2.0 * std::f32::consts::PI - difference;
        }
        // A field may have two greens (carpet and turf, a worn patch): every green counts once
        // the frame shows a field.
        let degrees = hue.to_degrees();
        difference <= FIELD_HUE_TOLERANCE_RAD
            || (GREEN_HUE_RANGE_DEG.0..=GREEN_HUE_RANGE_DEG.1).contains(&degrees)
    }

    /// The class of one pixel.
    pub fn classify(&self, luma: u8, cb: u8, cr: u8) -> PixelClass {
        let (saturation, _) = self.saturation_and_hue(cb, cr);
        let field = self.is_field(cb, cr) && bright_enough_for_field(luma, saturation);
        self.classify_with(luma, saturation, field)
    }

    /// The class of one pixel whose saturation and field test are known.
    pub(crate) fn classify_with(&self, luma: u8, saturation: f32, field: bool) -> PixelClass {
        if field {
            return PixelClass::Field;
        }
        let luma = f32::from(luma);
        if luma >= self.white_luma() && saturation <= 10.0 + 0.15 * luma {
            PixelClass::White
        } else if luma <= self.dark_luma() && saturation <= 10.0 + 0.3 * luma {
            PixelClass::Dark
        } else {
            PixelClass::Other
        }
    }
}

/// Field colour is saturated for its brightness: a white under a colour cast has a little
/// chroma too (relative to a white point that a cream wall may have pulled), but little for its
/// luma.
pub(crate) fn bright_enough_for_field(luma: u8, saturation: f32) -> bool {
    saturation >= FIELD_SATURATION_PER_LUMA * f32::from(luma)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_field_saturation_follows_the_exposure() {
        // A green of saturation 7 (hue −120°): dim turf in a frame exposed at 0.6 of the
        // reference, too grey to be field in a frame exposed normally.
        let hue = (-120f32).to_radians();
        let (cb, cr) = (
            (128.0 + 7.0 * hue.cos()).round() as u8,
            (128.0 + 7.0 * hue.sin()).round() as u8,
        );
        let frame = |bright_luma| FieldColor {
            bright_luma,
            white_point: (128.0, 128.0),
            field_hue_rad: Some(hue),
        };
        assert!(frame(0.6 * REFERENCE_BRIGHT_LUMA).is_field(cb, cr));
        assert!(!frame(REFERENCE_BRIGHT_LUMA).is_field(cb, cr));
        assert_eq!(
            frame(10.0).field_min_saturation(),
            FIELD_MIN_SATURATION_FLOOR
        );
        assert_eq!(frame(255.0).field_min_saturation(), FIELD_MIN_SATURATION);
    }
}
