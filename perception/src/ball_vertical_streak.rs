//! `VerticalStreak`: the circle of a ball blurred over its own height (rolling toward or away
//! from the camera), placed by its sides and its top.
//!
//! A ball rolling toward or away from the camera is smeared down the image. Its lower end runs
//! into the ball's shadow (as colourless as the ball), and its upper end is the lit top smeared
//! into the ball's own shading, so neither the streak's moments ([`BallBlur`]'s estimate) nor
//! its two crossings along the roll ([`recentre`](crate::ball_streak::recentre)) hold there.
//! What does hold:
//!
//! - the sides are sharp: the share of ball falls through one half across the streak where the
//!   ball's edge was half the exposure, √(r² − h²/4) from the centre when its centre swept ±h;
//! - the top's crossing lies one radius above the centre at mid-exposure (the top edge passes
//!   it half-way through the exposure), whatever the blur;
//! - over the top's ramp the share falls from 3/4 to 1/4 in h: the blur's half-length.
//!
//! ```text
//!        ╭──╮   ← top crossing T (ramp 3/4 → 1/4 over h)
//!       │    │
//!       │ ·  │  ← centre at T + r, r from the sides' crossings
//!       │    │
//!        ╰──╯
//!        ▒▒▒▒   ← shadow: never read
//! ```
//!
//! The share of ball is read from a pixel's colour, as for the blur: one less its saturation
//! over the turf's. The width is read on a few rows, each side against its own turf (the field
//! 1.3–1.6 radii out on that row: the turf below a ball is often darker and less saturated
//! than above it), and a row whose side runs into something colourless (a line, a robot)
//! gives no crossing within reach and is skipped.

use crate::ball_blur::BallBlur;
use crate::ball_classifier::MAX_BLUR_HALF_LENGTH;
use crate::ball_contour::BallContour;
use crate::color_classes::ChromaCache;
use crate::field_color::FieldColor;
use cortex_image::YuyvImage;

/// A ball blurred over its height, placed at its streak's centre (see the module's picture).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VerticalStreak {
    /// The circle at the streak's centre, with the radius the sides give.
    pub circle: BallContour,
    /// The blur: down the image, its half-length from the top's ramp (the share of ball falls
    /// from 3/4 to 1/4 over h), the turf's saturation as measured.
    pub blur: BallBlur,
}

/// Rows of the width, in radii below the top crossing (of the guess's radius).
const WIDTH_ROWS: [f32; 5] = [0.6, 0.8, 1.0, 1.2, 1.4];
/// A side's turf is read 1.28–1.6 radii out from the centre's column on its row (0.8–1.0 of
/// this reach), and its crossing looked for within 1.28 radii.
pub const SIDE_REACH: f32 = 1.6;
/// Columns of the top's profile, in radii from the centre's column.
const TOP_COLUMNS: [f32; 3] = [-0.1, 0.0, 0.1];
/// The top's crossing is looked for this many radii up from the centre (a streak of half-length
/// up to 0.8 radii, the classifier's cap on a blur).
const TOP_REACH: f32 = 2.6;
/// Rows of the width's second reading, in radii from the centre the first gave (within the
/// blur's ±0.3 radii, where the sides are full width).
const CENTRE_ROWS: [f32; 5] = [-0.3, -0.15, 0.0, 0.15, 0.3];
/// At least this many of the rows must show both sides.
const MIN_WIDTH_ROWS: usize = 3;

/// The share of ball in a pixel's colour: one less its saturation over the turf's.
struct ShareOfBall<'a> {
    image: &'a YuyvImage,
    field_color: &'a FieldColor,
    cache: &'a mut ChromaCache,
    turf_saturation: f32,
}

impl ShareOfBall<'_> {
    fn at(&mut self, x: f32, y: f32) -> Option<f32> {
        let (width, height) = (self.image.width() as f32, self.image.height() as f32);
        if x < 0.0 || y < 0.0 || x >= width - 0.5 || y >= height - 0.5 {
            return None;
        }
        let (luma, cb, cr) = self.image.ycbcr((x + 0.5) as usize, (y + 0.5) as usize);
        let (saturation, _) = self.cache.get(self.field_color, luma, cb, cr);
        Some((1.0 - saturation / self.turf_saturation).clamp(0.0, 1.0))
    }

    /// From each of `starts` in unit steps along `step`, the mean share; the first fall of it
    /// through `level` within `reach` pixels, interpolated (pixels from the starts). None when
    /// there is none, or a sample leaves the image first.
    fn crossing(
        &mut self,
        starts: &[(f32, f32)],
        step: (f32, f32),
        reach: f32,
        level: f32,
    ) -> Option<f32> {
        let mut mean = |t: f32| -> Option<f32> {
            let mut sum = 0.0;
            for &(x, y) in starts {
                sum += self.at(x + step.0 * t, y + step.1 * t)?;
            }
            Some(sum / starts.len() as f32)
        };
        let mut previous = mean(0.0)?;
        let mut t = 1.0;
        while t <= reach {
            let here = mean(t)?;
            if here < level && previous >= level {
                return Some(t - 1.0 + (previous - level) / (previous - here));
            }
            previous = here;
            t += 1.0;
        }
        None
    }

    /// The half-crossing of one side of the row `y` from the column `x` (`direction` −1: left),
    /// the share read against that side's own turf: the median saturation of the field samples
    /// 0.8–1.0 of `reach` out (None with fewer than three).
    fn side_crossing(&mut self, x: f32, y: f32, direction: f32, reach: f32) -> Option<f32> {
        let (width, height) = (self.image.width() as f32, self.image.height() as f32);
        let mut turf = [0.0f32; 8];
        let mut count = 0;
        for index in 0..turf.len() {
            let sample_x = x + direction * reach * (0.8 + 0.2 * index as f32 / 7.0);
            if sample_x < 0.0 || y < 0.0 || sample_x >= width - 0.5 || y >= height - 0.5 {
                continue;
            }
            let (luma, cb, cr) = self
                .image
                .ycbcr((sample_x + 0.5) as usize, (y + 0.5) as usize);
            let (saturation, is_field) = self.cache.get(self.field_color, luma, cb, cr);
            if is_field {
                turf[count] = saturation;
                count += 1;
            }
        }
        if count < 3 {
            return None;
        }
        turf[..count].sort_by(f32::total_cmp);
        let frame_turf = self.turf_saturation;
        self.turf_saturation = turf[count / 2];
        let crossing = self.crossing(&[(x, y)], (direction, 0.0), 0.8 * reach, 0.5);
        self.turf_saturation = frame_turf;
        crossing
    }

    /// Where the share of ball falls through `level` up the columns around `x` from `y`
    /// ([`TOP_COLUMNS`] of `radius`, within [`TOP_REACH`] radii).
    fn top(&mut self, x: f32, y: f32, radius: f32, level: f32) -> Option<f32> {
        let columns = TOP_COLUMNS.map(|offset| (x + offset * radius, y));
        let reach = TOP_REACH * radius;
        Some(y - self.crossing(&columns, (0.0, -1.0), reach, level)?)
    }

    /// The median width between the sides' half-crossings on those of `rows` where both lie
    /// within `reach` of the column `x`, and the middle of that row's sides; None with fewer
    /// than [`MIN_WIDTH_ROWS`] such rows.
    fn width(&mut self, x: f32, rows: &[f32], reach: f32) -> Option<(f32, f32)> {
        let mut widths = Vec::with_capacity(rows.len());
        for &y in rows {
            let (Some(left), Some(right)) = (
                self.side_crossing(x, y, -1.0, reach),
                self.side_crossing(x, y, 1.0, reach),
            ) else {
                continue;
            };
            widths.push((left + right, x + 0.5 * (right - left)));
        }
        if widths.len() < MIN_WIDTH_ROWS {
            return None;
        }
        widths.sort_by(|a, b| a.0.total_cmp(&b.0));
        Some(widths[widths.len() / 2])
    }

    /// The blur's half-length, the centre's row and the radius of a vertical streak whose
    /// sides' crossings lie `width` apart around the column `x`: the top's ramp and crossing
    /// on that column, looked for from `y` up (`radius`: the guess's).
    fn circle(&mut self, x: f32, y: f32, width: f32, radius: f32) -> Option<(f32, f32, f32)> {
        let top = self.top(x, y, radius, 0.5)?;
        let ramp = self.top(x, y, radius, 0.75)? - self.top(x, y, radius, 0.25)?;
        let half_length = ramp.clamp(0.0, MAX_BLUR_HALF_LENGTH * 0.5 * width);
        // A side's half-crossing lies at √(r² − h²/4) from the centre.
        let side_radius = (0.5 * width).hypot(0.5 * half_length);
        Some((half_length, top + side_radius, side_radius))
    }
}

/// The vertical streak around `contour`: its top crossing and its sides' width (see
/// [`VerticalStreak`]); None when the top or too few rows' sides do not fall through one half
/// within reach (the ball against a line, a robot or the frame's edge).
pub fn vertical_streak(
    image: &YuyvImage,
    field_color: &FieldColor,
    cache: &mut ChromaCache,
    contour: &BallContour,
    turf_saturation: f32,
) -> Option<VerticalStreak> {
    if turf_saturation <= f32::EPSILON {
        return None;
    }
    let mut share = ShareOfBall {
        image,
        field_color,
        cache,
        turf_saturation,
    };
    let radius = contour.radius;
    // The sides' width on rows 0.6–1.4 radii (of the guess) below the top, then again on rows
    // around the centre that gives.
    let top = share.top(contour.x, contour.y, radius, 0.5)?;
    let rows = WIDTH_ROWS.map(|row| top + row * radius);
    let (width, center_x) = share.width(contour.x, &rows, SIDE_REACH * radius)?;
    let (_, center_y, side_radius) = share.circle(center_x, contour.y, width, radius)?;
    let rows = CENTRE_ROWS.map(|row| center_y + row * side_radius);
    let (width, center_x) = share.width(center_x, &rows, SIDE_REACH * side_radius)?;
    let (half_length, center_y, side_radius) = share.circle(center_x, contour.y, width, radius)?;
    Some(VerticalStreak {
        circle: BallContour {
            x: center_x,
            y: center_y,
            radius: side_radius,
            ..*contour
        },
        blur: BallBlur {
            direction: (0.0, 1.0),
            half_length,
            turf_saturation,
        },
    })
}

/// The median saturation of the field colour on a ring 1.3–1.6 radii around the circle (past
/// the ball and its blur's sides); 0 with fewer than 8 field samples.
pub fn turf_saturation_around(
    image: &YuyvImage,
    field_color: &FieldColor,
    cache: &mut ChromaCache,
    (center_x, center_y, radius): (f32, f32, f32),
) -> f32 {
    const ANGLES: usize = 24;
    let (width, height) = (image.width() as f32, image.height() as f32);
    let mut turf = Vec::with_capacity(2 * ANGLES);
    for ring in [1.3f32, 1.6] {
        for index in 0..ANGLES {
            let angle = index as f32 * std::f32::consts::TAU / ANGLES as f32;
            let x = center_x + ring * radius * angle.cos();
            let y = center_y + ring * radius * angle.sin();
            if x < 0.0 || y < 0.0 || x >= width - 0.5 || y >= height - 0.5 {
                continue;
            }
            let (luma, cb, cr) = image.ycbcr((x + 0.5) as usize, (y + 0.5) as usize);
            let (saturation, is_field) = cache.get(field_color, luma, cb, cr);
            if is_field {
                turf.push(saturation);
            }
        }
    }
    if turf.len() < 8 {
        return 0.0;
    }
    let middle = turf.len() / 2;
    *turf.select_nth_unstable_by(middle, f32::total_cmp).1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_scenes::{painted_streak, turf_saturation};

    #[test]
    fn a_vertical_streak_is_placed_by_its_sides_and_its_top_whatever_its_shadow() {
        let mut cache = ChromaCache::default();
        for (half_length, shadow) in [(8.0f32, true), (12.0, true), (12.0, false)] {
            let (image, field_color) =
                painted_streak((160.0, 110.0), 20.0, (0.0, 1.0), half_length, shadow);
            let turf = turf_saturation(&image, &field_color);
            // What the contour finds on a vertical streak: a circle on its sides anywhere along
            // it, or one through its ends (the shadow's included).
            for (x, y, radius) in [
                (161.0f32, 118.0f32, 20.5f32),
                (159.0, 104.0, 21.0),
                (160.0, 116.0, 29.0),
            ] {
                let contour = BallContour {
                    x,
                    y,
                    radius,
                    edge_support: 0.7,
                    fit_error: 0.05,
                };
                let streak = vertical_streak(&image, &field_color, &mut cache, &contour, turf)
                    .expect("a streak on turf");
                let placed = streak.circle;
                let context = format!(
                    "h {half_length}, shadow {shadow}, from ({x}, {y}, r {radius}): {streak:?}"
                );

                // Within a pixel and a half (a mix's saturation is not quite linear in its share
                // of turf: the top reads half a pixel high, the sides as much inward).
                assert!(
                    (placed.x - 160.0).abs() < 1.0 && (placed.y - 110.0).abs() < 1.5,
                    "{context}"
                );
                assert!((placed.radius - 20.0).abs() < 1.0, "{context}");
                // The blur's half-length from the top's ramp, within a quarter.
                assert!(
                    (streak.blur.half_length - half_length).abs() < 0.25 * half_length,
                    "{context}"
                );
                assert_eq!(streak.blur.direction, (0.0, 1.0));
                assert_eq!(placed.edge_support, contour.edge_support);
            }
        }
        // A sharp ball: placed where it is, with next to no blur.
        let (image, field_color) = painted_streak((160.0, 110.0), 20.0, (0.0, 1.0), 0.0, true);
        let turf = turf_saturation(&image, &field_color);
        let contour = BallContour {
            x: 160.5,
            y: 110.5,
            radius: 20.0,
            edge_support: 0.9,
            fit_error: 0.03,
        };
        let sharp =
            vertical_streak(&image, &field_color, &mut cache, &contour, turf).expect("a ball");
        assert!(sharp.blur.half_length < 2.0, "{sharp:?}");
        assert!((sharp.circle.y - 110.0).abs() < 1.0, "{sharp:?}");
        // No turf above it (the frame's top edge): no top, no streak.
        let (image, field_color) = painted_streak((160.0, 15.0), 20.0, (0.0, 1.0), 12.0, true);
        let turf = turf_saturation(&image, &field_color);
        let at_edge = BallContour { y: 18.0, ..contour };
        assert_eq!(
            vertical_streak(&image, &field_color, &mut cache, &at_edge, turf),
            None
        );
    }
}
