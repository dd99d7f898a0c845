//! `FieldColor`: what green, white and dark mean in this frame, estimated from the frame itself
//! so that lighting and colour casts move the thresholds with them.
//!
//! 1. The **bright level** is the 95th percentile of luma; white and dark are fractions of it.
//! 2. The **white point** is the mean chroma of the brightest tenth of the pixels (no darker
//!    than 85 % of the 99th percentile) that are nearly neutral, limited to ±24 around
//!    neutral, and saturation is measured from there. Within 12 chroma steps of neutral it is
//!    one offset for every luma (a cream wall pulls the estimate that far in a frame with no
//!    cast; the detector's features were set with this). A **strong cast** (20 steps and more,
//!    blended in between) is a gain per colour channel, a white-balance error: a grey's chroma
//!    offset grows with its luma, so a white line at luma 230 is pushed four times as far as
//!    dark turf at luma 60. It is measured again as the mean chroma offset per unit of luma of
//!    the same bright pixels (nearly neutral now meaning within 0.2 per unit of luma, at most
//!    0.16), and every chroma is read relative to the neutral chroma *at its own luma*
//!    ([`neutral_at`]). One offset for every pixel over-corrected the dim field under strong
//!    casts: under R × 1.2, B × 0.8 the lab's teal carpet turned blue and no field was found.
//! 3. The **field hue** is the peak of a hue histogram of the saturated pixels within the
//!    greens (hue −175°…−80° in the (Cb, Cr) plane); if less than 4 % of the frame is such
//!    green, there is no field in view and nothing is classified as field. Otherwise every
//!    green (and hues within 34° of the peak) is field: carpets and turf differ in hue.
//!
//! [`neutral_at`]: FieldColor::neutral_at

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
    /// Chroma of white under this frame's light, at luma `bright_luma`; under a strong cast a
    /// grey of luma Y has the chroma `128 + (white_point − 128) · Y / bright_luma`, under a
    /// weak one the white point's ([`FieldColor::neutral_at`]).
    pub white_point: (f32, f32),
    /// Hue of the field in radians (atan2 of Cr and Cb relative to the neutral chroma of the
    /// pixel's luma, [`FieldColor::neutral_at`]), if a field is seen.
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
/// A white point within this many chroma steps of neutral is one offset for every luma
/// ([`FieldColor::cast_scaling`]) ...
const WEAK_CAST: f32 = 12.0;
/// ... and from this on a cast that grows with luma; in between the two are blended.
const STRONG_CAST: f32 = 20.0;
/// The cast, in chroma steps per unit of luma, is limited to this: a white balance off by a
/// fifth in red and blue (R × 1.2, B × 0.8) gives about 0.14.
const MAX_CAST_PER_LUMA: f32 = 0.16;
/// A bright pixel whose chroma is within this many steps per unit of luma of neutral may be
/// white under a colour cast.
const NEAR_NEUTRAL_PER_LUMA: f32 = 0.2;
/// Chroma within this of neutral may be white under a colour cast ([`white_point`]).
const NEAR_NEUTRAL: i16 = 32;
const MAX_WHITE_POINT_SHIFT: f32 = 24.0;

/// The colour cast of this frame: the mean chroma offset per unit of luma of its brightest
/// pixels (luma at or above `luma_threshold`) that are nearly neutral (within
/// [`NEAR_NEUTRAL_PER_LUMA`] of neutral, which a colour cast does not leave), limited to
/// [`MAX_CAST_PER_LUMA`]. The neutrality test keeps field green out when lines and ball cover
/// less than a tenth of the frame.
fn cast_per_luma(image: &EcImage, luma_threshold: f32) -> (f32, f32) {
    let (mut sum_cb, mut sum_cr, mut count) = (0.0, 0.0, 0.0);
    for y in (0..image.height).step_by(SAMPLE_STEP) {
        for x in (0..image.width).step_by(SAMPLE_STEP) {
            let (luma, cb, cr) = image.get(x, y);
            let luma = f32::from(luma);
            if luma < luma_threshold || luma < 1.0 {
                continue;
            }
            let (blue, red) = (f32::from(cb) - 128.0, f32::from(cr) - 128.0);
            let near = NEAR_NEUTRAL_PER_LUMA * luma;
            if blue.abs() <= near && red.abs() <= near {
                sum_cb += blue / luma;
                sum_cr += red / luma;
                count += 1.0;
            }
        }
    }
    if count < 1.0 {
        return (0.0, 0.0);
    }
    let limit = |value: f32| value.clamp(-MAX_CAST_PER_LUMA, MAX_CAST_PER_LUMA);
    (limit(sum_cb / count), limit(sum_cr / count))
}

/// The chroma of white under this frame's light: the mean chroma of the frame's brightest pixels
/// (its brightest tenth, and no darker than 85 % of its 99th percentile) that are nearly neutral
/// (within ±32 of neutral), limited to ±24. The neutrality test keeps field green out when
/// lines and ball cover less than a tenth of the frame. A white point further than
/// [`WEAK_CAST`] from neutral is measured again per unit of luma ([`cast_per_luma`]).
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
        let bright_pixels = percentile(0.90).max(0.85 * percentile(0.99));
        let mut estimate = Self {
            bright_luma,
            white_point: white_point(image, bright_pixels),
            field_hue_rad: None,
        };
        let cast = cast_per_luma(image, bright_pixels);
        let per_luma = (128.0 + cast.0 * bright_luma, 128.0 + cast.1 * bright_luma);
        let strong = Self {
            white_point: per_luma,
            ..estimate
        };
        if estimate.cast_scaling() == 0.0 && strong.cast_scaling() == 0.0 {
            estimate.field_hue_rad = estimate.find_field_hue(image, samples).map(|(hue, _)| hue);
            return estimate;
        }
        // A white point this far off (as measured, or per unit of luma: a strong warm cast
        // pushes white lines out of the ±32 the first measure accepts) is a colour cast or a
        // coloured wall (a cream wall, a yellow lamp on white lines). Three readings of it: as measured (a cast partly
        // growing with luma, `cast_scaling`), the cast measured per unit of luma (a
        // white-balance gain), and the same direction shortened to a weak cast (one offset for
        // every luma, as a coloured wall would pull the estimate); the one under which the
        // frame shows the most field is taken, since the field is what a robot's camera sees
        // most of.
        let offset = (estimate.white_point.0 - 128.0).hypot(estimate.white_point.1 - 128.0);
        let shortened = (WEAK_CAST / offset).min(1.0);
        let candidates = [
            estimate.white_point,
            per_luma,
            (
                128.0 + (estimate.white_point.0 - 128.0) * shortened,
                128.0 + (estimate.white_point.1 - 128.0) * shortened,
            ),
        ];
        let mut best = estimate;
        let mut best_count = 0;
        for white_point in candidates {
            let candidate = Self {
                white_point,
                ..estimate
            };
            if let Some((hue, count)) = candidate.find_field_hue(image, samples) {
                if count > best_count {
                    best = Self {
                        field_hue_rad: Some(hue),
                        ..candidate
                    };
                    best_count = count;
                }
            }
        }
        best
    }

    /// The field's hue and how many sampled pixels are green, if at least [`MIN_FIELD_SHARE`]
    /// of them are.
    fn find_field_hue(&self, image: &EcImage, samples: u32) -> Option<(f32, u32)> {
        const BINS: usize = 72;
        /// A key's bin not computed yet, and a key that is no saturated green.
        const UNSEEN: u8 = u8::MAX;
        const NOT_GREEN: u8 = u8::MAX - 1;
        let mut histogram = [0u32; BINS];
        // What `saturation_and_hue` computes per pixel, with what depends on the frame only
        // (the cast's shift per luma, the neutral chroma) computed once, and each chroma key's
        // bin once (a frame's samples hold a few distinct keys each, most of them green).
        let shifts: Option<Vec<(f32, f32)>> = (self.cast_scaling() != 0.0)
            .then(|| (0..=255).map(|luma| self.cast_shift(luma)).collect());
        let neutral = self.key_neutral();
        let min_saturation = self.field_min_saturation();
        let green_bin = |key: (u8, u8)| {
            let (saturation, (blue, red)) = key_saturation(neutral, key);
            if saturation < min_saturation {
                return NOT_GREEN;
            }
            let degrees = red.atan2(blue).to_degrees();
            if !(GREEN_HUE_RANGE_DEG.0..=GREEN_HUE_RANGE_DEG.1).contains(&degrees) {
                return NOT_GREEN;
            }
            let bin = (((degrees + 180.0) / 360.0) * BINS as f32) as usize;
            bin.min(BINS - 1) as u8
        };
        let mut bins = vec![UNSEEN; 1 << 16];
        for y in (0..image.height).step_by(SAMPLE_STEP) {
            for x in (0..image.width).step_by(SAMPLE_STEP) {
                let (luma, cb, cr) = image.get(x, y);
                let key = match &shifts {
                    Some(shifts) => key_with_shift(shifts[usize::from(luma)], cb, cr),
                    None => (cb, cr),
                };
                let bin = &mut bins[usize::from(key.0) << 8 | usize::from(key.1)];
                if *bin == UNSEEN {
                    *bin = green_bin(key);
                }
                if *bin != NOT_GREEN {
                    histogram[usize::from(*bin)] += 1;
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
        Some((
            ((peak as f32 + 0.5) / BINS as f32 * 360.0 - 180.0).to_radians(),
            total,
        ))
    }

    /// How much of the white point's offset grows with luma: 0 for a weak cast (one offset
    /// for every luma, as a cream wall's pull on the estimate), 1 for a strong one (a chroma
    /// offset proportional to luma, as a white-balance gain makes), blended in between.
    pub fn cast_scaling(&self) -> f32 {
        let offset = (self.white_point.0 - 128.0).hypot(self.white_point.1 - 128.0);
        ((offset - WEAK_CAST) / (STRONG_CAST - WEAK_CAST)).clamp(0.0, 1.0)
    }

    /// The chroma of a grey of this luma under this frame's light.
    pub fn neutral_at(&self, luma: u8) -> (f32, f32) {
        let scaling = self.cast_scaling();
        let scale = (1.0 - scaling) + scaling * f32::from(luma) / self.bright_luma;
        (
            128.0 + (self.white_point.0 - 128.0) * scale,
            128.0 + (self.white_point.1 - 128.0) * scale,
        )
    }

    /// The key a pixel's chroma is judged by: under a weak cast the chroma itself (judged
    /// against the white point, whatever the luma); under a stronger one the chroma with the
    /// cast at this luma taken out, rounded to whole steps (judged against neutral, 128). The
    /// [`ChromaCache`](crate::color_classes::ChromaCache) is indexed by it.
    pub fn chroma_key(&self, luma: u8, cb: u8, cr: u8) -> (u8, u8) {
        if self.cast_scaling() == 0.0 {
            return (cb, cr);
        }
        key_with_shift(self.cast_shift(luma), cb, cr)
    }

    /// The cast at this luma (`neutral_at` − 128), which [`chroma_key`](Self::chroma_key)
    /// takes out.
    pub(crate) fn cast_shift(&self, luma: u8) -> (f32, f32) {
        let (neutral_cb, neutral_cr) = self.neutral_at(luma);
        (neutral_cb - 128.0, neutral_cr - 128.0)
    }

    /// The chroma a key's saturation is measured from: under a weak cast the white point,
    /// under a stronger one neutral (the key has the cast taken out).
    fn key_neutral(&self) -> (f32, f32) {
        if self.cast_scaling() == 0.0 {
            self.white_point
        } else {
            (128.0, 128.0)
        }
    }

    /// Saturation and hue (radians) of a chroma key ([`chroma_key`](Self::chroma_key)).
    pub(crate) fn key_saturation_and_hue(&self, key: (u8, u8)) -> (f32, f32) {
        let (saturation, (blue, red)) = key_saturation(self.key_neutral(), key);
        (saturation, red.atan2(blue))
    }

    /// What judging chroma keys needs of this frame's thresholds, computed once.
    pub(crate) fn key_judge(&self) -> KeyJudge {
        KeyJudge {
            neutral: self.key_neutral(),
            min_saturation: self.field_min_saturation(),
            field_hue_rad: self.field_hue_rad,
        }
    }

    /// Saturation (distance from the neutral chroma at this luma) and hue (radians) of a
    /// pixel.
    pub fn saturation_and_hue(&self, luma: u8, cb: u8, cr: u8) -> (f32, f32) {
        self.key_saturation_and_hue(self.chroma_key(luma, cb, cr))
    }

    /// Least saturation of field colour in this frame (see `FIELD_MIN_SATURATION`).
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

    /// Whether a pixel's chroma is the field's green.
    pub fn is_field(&self, luma: u8, cb: u8, cr: u8) -> bool {
        self.is_field_key(self.chroma_key(luma, cb, cr))
    }

    /// Whether a chroma key ([`chroma_key`](Self::chroma_key)) is the field's green.
    pub(crate) fn is_field_key(&self, key: (u8, u8)) -> bool {
        let Some(field_hue) = self.field_hue_rad else {
            return false;
        };
        let (saturation, hue) = self.key_saturation_and_hue(key);
        saturation >= self.field_min_saturation() && is_field_hue(field_hue, hue)
    }

    /// The class of one pixel.
    pub fn classify(&self, luma: u8, cb: u8, cr: u8) -> PixelClass {
        let key = self.chroma_key(luma, cb, cr);
        let (saturation, _) = self.key_saturation_and_hue(key);
        let field = self.is_field_key(key) && bright_enough_for_field(luma, saturation);
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

/// What judging a chroma key needs of a frame's [`FieldColor`], computed once per frame (the
/// chroma cache judges a few thousand keys a frame).
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeyJudge {
    neutral: (f32, f32),
    min_saturation: f32,
    field_hue_rad: Option<f32>,
}

impl KeyJudge {
    /// Saturation of a chroma key and whether it is the field's green: what
    /// [`FieldColor::key_saturation_and_hue`] and [`FieldColor::is_field_key`] give, computed
    /// once, the hue only where the field test needs it.
    pub(crate) fn saturation_and_field(&self, key: (u8, u8)) -> (f32, bool) {
        let (saturation, (blue, red)) = key_saturation(self.neutral, key);
        let field = match self.field_hue_rad {
            Some(field_hue) if saturation >= self.min_saturation => {
                is_field_hue(field_hue, red.atan2(blue))
            }
            _ => false,
        };
        (saturation, field)
    }
}

/// The saturation of a chroma key measured from `neutral`, and the key's (Cb, Cr) offsets from
/// it (whose `atan2` is the hue).
fn key_saturation(neutral: (f32, f32), (cb, cr): (u8, u8)) -> (f32, (f32, f32)) {
    let blue = f32::from(cb) - neutral.0;
    let red = f32::from(cr) - neutral.1;
    ((blue * blue + red * red).sqrt(), (blue, red))
}

/// Whether a saturated enough hue (radians) is the field's, `field_hue`.
fn is_field_hue(field_hue: f32, hue: f32) -> bool {
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

/// A chroma with a cast shift taken out, rounded to whole steps.
pub(crate) fn key_with_shift((shift_cb, shift_cr): (f32, f32), cb: u8, cr: u8) -> (u8, u8) {
    let balance =
        |value: u8, shift: f32| (f32::from(value) - shift).round().clamp(0.0, 255.0) as u8;
    (balance(cb, shift_cb), balance(cr, shift_cr))
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
    use cortex_image::{ColorRange, RgbImage, YuyvImage};

    const CARPET: (f32, f32, f32) = (70.0, 160.0, 110.0);

    /// A lab: a cream wall above a teal carpet (the shared frames' colours) with two white
    /// lines and a dim strip of turf at the bottom, under channel gains (R, G, B).
    fn floor(gains: [f32; 3]) -> EcImage {
        let mut rgb = RgbImage::filled(640, 480, [0, 0, 0]);
        for y in 0..480 {
            for x in 0..640 {
                let base = match (x, y) {
                    (_, ..120) => [225.0, 220.0, 185.0],
                    (_, 200..=215) | (300..=315, _) => [235.0, 235.0, 228.0],
                    (_, 400..) => [40.0, 70.0, 45.0],
                    _ => [CARPET.0, CARPET.1, CARPET.2],
                };
                let texture = ((x * 7 + y * 13) % 9) as f32 - 4.0;
                let pixel: [u8; 3] = std::array::from_fn(|channel| {
                    ((base[channel] + texture) * gains[channel])
                        .round()
                        .clamp(0.0, 255.0) as u8
                });
                rgb.set(x, y, pixel);
            }
        }
        EcImage::from_yuyv(&YuyvImage::from_rgb(&rgb, ColorRange::Full).unwrap())
    }

    fn field_share(image: &EcImage) -> f32 {
        let colors = FieldColor::estimate(image);
        let field = (0..image.height)
            .flat_map(|y| (0..image.width).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                let (luma, cb, cr) = image.get(x, y);
                colors.classify(luma, cb, cr) == PixelClass::Field
            })
            .count();
        field as f32 / (image.width * image.height) as f32
    }

    #[test]
    fn the_field_survives_white_balance_errors() {
        // Carpet and turf are 64 % of the frame. With one white-point offset for every luma
        // (the first rounds), the cold cast lost 7 % of it and the green one 16 %.
        let neutral = field_share(&floor([1.0, 1.0, 1.0]));
        assert!(neutral > 0.6, "{neutral}");
        for gains in [
            [1.2, 1.0, 0.8],
            [0.85, 1.0, 1.2],
            [1.0, 1.15, 1.0],
            [0.7, 0.7, 0.7],
            [1.3, 1.3, 1.3],
        ] {
            let share = field_share(&floor(gains));
            assert!(
                share >= neutral - 0.03,
                "{gains:?}: {share} (no cast: {neutral})"
            );
        }
    }

    #[test]
    fn a_strong_cast_grows_with_luma_and_a_weak_one_does_not() {
        let frame = |white_point| FieldColor {
            bright_luma: 200.0,
            white_point,
            field_hue_rad: None,
        };
        let strong = frame((100.0, 140.0));
        assert_eq!(strong.cast_scaling(), 1.0);
        assert_eq!(strong.neutral_at(200), (100.0, 140.0));
        assert_eq!(strong.neutral_at(50), (121.0, 131.0));
        // A white point 8 steps off (a cream wall's pull): the same offset at every luma, and
        // chroma keys are the chroma itself.
        let weak = frame((120.0, 128.0));
        assert_eq!(weak.cast_scaling(), 0.0);
        assert_eq!(weak.neutral_at(50), (120.0, 128.0));
        assert_eq!(weak.chroma_key(50, 90, 200), (90, 200));
        // In between, the two are blended.
        let between = frame((112.0, 128.0));
        assert_eq!(between.cast_scaling(), 0.5);
        assert_eq!(between.neutral_at(100), (116.0, 128.0));
    }

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
        assert!(frame(0.6 * REFERENCE_BRIGHT_LUMA).is_field(80, cb, cr));
        assert!(!frame(REFERENCE_BRIGHT_LUMA).is_field(80, cb, cr));
        assert_eq!(
            frame(10.0).field_min_saturation(),
            FIELD_MIN_SATURATION_FLOOR
        );
        assert_eq!(frame(255.0).field_min_saturation(), FIELD_MIN_SATURATION);
    }
}
