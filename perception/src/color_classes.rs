//! `ColorClasses`: every pixel of the half-resolution image classified as field, white, dark or
//! other with the frame's `FieldColor`, and the `ChromaCache` that makes it cheap.

use crate::ec_image::EcImage;
use crate::field_color::{
    bright_enough_for_field, key_with_shift, FieldColor, KeyJudge, PixelClass,
};

/// Saturation and field test per chroma, computed on first use: a frame holds a few thousand
/// distinct chromas among its hundreds of thousands of pixels, so each `sqrt` and `atan2` runs
/// once per chroma instead of once per pixel. Indexed by [`FieldColor::chroma_key`]: the chroma
/// itself, or under a strong colour cast the chroma with the cast at the pixel's luma taken
/// out (two multiply-adds per pixel). Valid for one `FieldColor` (one frame).
///
/// A lookup is the hot path of the contour and the classification (a million per tick): one
/// `u32` load and two compares, inlined into the caller; filling an entry is out of line.
#[derive(Clone)]
pub struct ChromaCache {
    /// Per (Cb, Cr) (`Cb << 8 | Cr`, so an index is always in range): [`UNKNOWN`], or the
    /// saturation's bits with [`FIELD_BIT`] (the sign bit, free since a saturation is never
    /// negative) set for field colour.
    table: Box<[u32; 1 << 16]>,
    /// The cast shift per luma ([`FieldColor::cast_shift`]), filled on first use; `None`
    /// under a weak cast, where the key is the chroma itself.
    shifts: Option<Box<[(f32, f32); 256]>>,
    /// The frame's constants for filling an entry; `None` until the first lookup.
    judge: Option<KeyJudge>,
}

/// An entry not computed yet (a NaN with the sign bit set: no saturation has these bits).
const UNKNOWN: u32 = u32::MAX;
/// The entry's flag for field colour.
const FIELD_BIT: u32 = 1 << 31;

impl std::fmt::Debug for ChromaCache {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("ChromaCache")
    }
}

impl Default for ChromaCache {
    fn default() -> Self {
        Self {
            table: vec![UNKNOWN; 1 << 16]
                .into_boxed_slice()
                .try_into()
                .expect("a table of 1 << 16 entries"),
            shifts: None,
            judge: None,
        }
    }
}

impl ChromaCache {
    /// (saturation, is field colour) of a pixel.
    #[inline]
    pub fn get(&mut self, field_color: &FieldColor, luma: u8, cb: u8, cr: u8) -> (f32, bool) {
        if self.judge.is_none() {
            self.prepare(field_color);
        }
        let key = match &self.shifts {
            Some(shifts) => key_with_shift(shifts[usize::from(luma)], cb, cr),
            None => (cb, cr),
        };
        let index = usize::from(key.0) << 8 | usize::from(key.1);
        let mut entry = self.table[index];
        if entry == UNKNOWN {
            entry = self.fill(field_color, key);
        }
        let saturation = f32::from_bits(entry & !FIELD_BIT);
        (
            saturation,
            entry & FIELD_BIT != 0 && bright_enough_for_field(luma, saturation),
        )
    }

    /// The key's cast shift per luma and the constants of filling an entry, once per frame
    /// instead of once per pixel or chroma.
    #[cold]
    #[inline(never)]
    fn prepare(&mut self, field_color: &FieldColor) {
        if field_color.cast_scaling() > 0.0 {
            self.shifts = Some(Box::new(std::array::from_fn(|luma| {
                field_color.cast_shift(luma as u8)
            })));
        }
        self.judge = Some(field_color.key_judge());
    }

    /// Computes a chroma key's entry (see `table`) and stores it.
    #[cold]
    #[inline(never)]
    fn fill(&mut self, field_color: &FieldColor, key: (u8, u8)) -> u32 {
        let judge = self.judge.unwrap_or_else(|| field_color.key_judge());
        let (saturation, field) = judge.saturation_and_field(key);
        let entry = if field {
            // The value the first cache gave back for field colour (it stored −2 − saturation),
            // which the detector's thresholds were set with: the saturation rounded to the
            // precision of 2 + saturation (its last bit or two).
            (-2.0 - (-2.0 - saturation)).to_bits() | FIELD_BIT
        } else {
            saturation.to_bits()
        };
        self.table[usize::from(key.0) << 8 | usize::from(key.1)] = entry;
        entry
    }
}

/// Every pixel of an `EcImage`, classified.
#[derive(Debug, Clone)]
pub struct ColorClasses {
    pub width: usize,
    pub height: usize,
    pub classes: Vec<PixelClass>,
}

impl ColorClasses {
    /// Classifies every pixel, looking saturation and the field test up in `cache` (see
    /// [`ChromaCache`]; the benchmark compares it with [`classify_direct`]).
    ///
    /// [`classify_direct`]: Self::classify_direct
    pub fn classify(image: &EcImage, field_color: &FieldColor, cache: &mut ChromaCache) -> Self {
        let classes = image
            .luma
            .iter()
            .zip(&image.cb)
            .zip(&image.cr)
            .map(|((&luma, &cb), &cr)| {
                let (saturation, field) = cache.get(field_color, luma, cb, cr);
                field_color.classify_with(luma, saturation, field)
            })
            .collect();
        Self {
            width: image.width,
            height: image.height,
            classes,
        }
    }

    /// Classifies every pixel, computing saturation and hue per pixel.
    pub fn classify_direct(image: &EcImage, field_color: &FieldColor) -> Self {
        let classes = image
            .luma
            .iter()
            .zip(&image.cb)
            .zip(&image.cr)
            .map(|((&luma, &cb), &cr)| field_color.classify(luma, cb, cr))
            .collect();
        Self {
            width: image.width,
            height: image.height,
            classes,
        }
    }

    pub fn get(&self, x: usize, y: usize) -> PixelClass {
        self.classes[y * self.width + x]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cortex_image::{ColorRange, RgbImage, YuyvImage};

    fn scene() -> EcImage {
        scene_with_gains([1.0, 1.0, 1.0])
    }

    fn scene_with_gains(gains: [f32; 3]) -> EcImage {
        // A field with a white line, a black blob and an orange stripe, with a little texture.
        let mut rgb = RgbImage::filled(320, 240, [40, 140, 60]);
        for y in 0..240 {
            for x in 0..320 {
                let texture = ((x * 7 + y * 13) % 11) as u8;
                let pixel = match (x, y) {
                    (_, 100..=110) => [235 - texture, 235, 230],
                    (150..=170, 150..=170) => [20 + texture, 20, 25],
                    (0..=40, _) => [220, 120 + texture, 40],
                    _ => [40 + texture, 140 - texture, 60],
                };
                let pixel: [u8; 3] = std::array::from_fn(|channel| {
                    (f32::from(pixel[channel]) * gains[channel])
                        .round()
                        .clamp(0.0, 255.0) as u8
                });
                rgb.set(x, y, pixel);
            }
        }
        EcImage::from_yuyv(&YuyvImage::from_rgb(&rgb, ColorRange::Full).unwrap())
    }

    #[test]
    fn the_cache_gives_the_classes_of_the_direct_computation() {
        let image = scene();
        let field_color = FieldColor::estimate(&image);
        assert!(field_color.field_hue_rad.is_some(), "{field_color:?}");
        let cached = ColorClasses::classify(&image, &field_color, &mut ChromaCache::default());
        let direct = ColorClasses::classify_direct(&image, &field_color);
        assert_eq!(cached.classes, direct.classes);
        assert_eq!(cached.get(100, 20), PixelClass::Field);
        assert_eq!(cached.get(100, 52), PixelClass::White);
        assert_eq!(cached.get(80, 80), PixelClass::Dark);
        assert_eq!(cached.get(5, 20), PixelClass::Other);
    }

    #[test]
    fn under_a_strong_cast_the_cache_still_gives_the_direct_classes() {
        let image = scene_with_gains([1.25, 1.0, 0.75]);
        // The white point of a strong warm cast (the estimate may read this frame, nearly all
        // field, either way).
        let field_color = FieldColor {
            white_point: (100.0, 142.0),
            ..FieldColor::estimate(&image)
        };
        assert_eq!(field_color.cast_scaling(), 1.0);
        let cached = ColorClasses::classify(&image, &field_color, &mut ChromaCache::default());
        let direct = ColorClasses::classify_direct(&image, &field_color);
        assert_eq!(cached.classes, direct.classes);
        assert_eq!(cached.get(100, 20), PixelClass::Field);
        assert_eq!(cached.get(100, 52), PixelClass::White);
    }

    #[test]
    fn every_chroma_and_luma_gets_the_direct_saturation_and_field_test() {
        // Under no cast, a weak one and a strong one: every (Cb, Cr) at a spread of lumas.
        let estimate = FieldColor::estimate(&scene());
        for white_point in [(128.0, 128.0), (120.5, 131.25), (100.0, 142.0)] {
            let field_color = FieldColor {
                white_point,
                ..estimate
            };
            let mut cache = ChromaCache::default();
            for luma in (0..=255).step_by(17) {
                for cb in 0..=255 {
                    for cr in 0..=255 {
                        let key = field_color.chroma_key(luma, cb, cr);
                        let (saturation, _) = field_color.key_saturation_and_hue(key);
                        let field_key = field_color.is_field_key(key);
                        // Field colour's saturation as the first cache gave it back.
                        let expected = if field_key {
                            -2.0 - (-2.0 - saturation)
                        } else {
                            saturation
                        };
                        let (cached, field) = cache.get(&field_color, luma, cb, cr);
                        assert_eq!(cached.to_bits(), expected.to_bits(), "{luma} {cb} {cr}");
                        assert_eq!(
                            field,
                            field_key && bright_enough_for_field(luma, saturation),
                            "{white_point:?}: {luma} {cb} {cr}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_frame_without_green_has_no_field() {
        let rgb = RgbImage::filled(320, 240, [200, 200, 190]);
        let image = EcImage::from_yuyv(&YuyvImage::from_rgb(&rgb, ColorRange::Full).unwrap());
        let field_color = FieldColor::estimate(&image);
        assert_eq!(field_color.field_hue_rad, None);
        let classes = ColorClasses::classify(&image, &field_color, &mut ChromaCache::default());
        assert!(classes
            .classes
            .iter()
            .all(|&class| class != PixelClass::Field));
    }
}
