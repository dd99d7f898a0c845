//! `BallClassifier`: decides ball / not ball for a refined circle from hand-designed features,
//! each turned into a score in [0, 1] by a ramp, combined as the square root of their product
//! (a failing feature rejects, none can make up for another).
//!
//! | feature | why | ramp (0 → 1) |
//! |---|---|---|
//! | edge support | a ball has a round outline | 0.40 → 0.65 of the rays |
//! | white level | the ball is white: its bright pixels are bright for this frame | 0.50 → 0.75 of the frame's bright level |
//! | dark share | black patches: dark (below 0.6) relative to the ball's own white, on an over-exposed ball (40 % of its inside clipped) to its true white, taken as 1.25 times the clip level | 0.06 → 0.15, back to 0 from 0.45 → 0.60 |
//! | patches spread | patches sit all over the ball, not in one half | dark in 1.5 → 3.5 quadrants (a ball of 6 px or less, whose patches blur: 1 → 2.5, blended up to 10 px) |
//! | no field inside | green inside means a hole, not a ball | field share 0.25 → 0.10 |
//! | stands out | not part of a larger white area | ring like the ball's white 0.85 → 0.60 |
//! | neutral | white and black have no colour | mean saturation 0.30 → 0.18 of the white level |
//! | on the ground | a ball lies on the field: field colour 1.3–2 radii below it, past its shadow | 0.02 → 0.15 scaled to 0.4 → 1; 0.5 when no field is in view |
//! | fills its circle | a circle too big for the ball (through a line's edge or the field beside it) has field in its rim | field share 0.8–0.95 r (≥ 1.5 px inside), less the inside's, 0.25 → 0.10; on an over-exposed ball only field saturated like turf (twice the frame's least field saturation) counts, not the turf's tint on its shaded underside; on a rolling ball only where it covered the rim all the exposure ([`FULL_COVERAGE`], blur from [`BallBlur`]) |
//! | grey on average | white and black average to grey, whatever the noise | saturation of the mean colour 0.15 → 0.08 of the white level |
//!
//! The ramps were set from what the features mean (a ball's black patches cover about a third
//! of its visible face; half of the outline can be hidden by a line, post or foot), not fitted
//! to the sample frames; `docs/decisions.md` records them.

use crate::ball_blur::BallBlur;
use crate::ball_contour::BallContour;
use crate::color_classes::ChromaCache;
use crate::field_color::FieldColor;
use cortex_image::YuyvImage;

/// The features of one candidate (kept for debugging and tests).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BallFeatures {
    /// The circle's radius in pixels (a small ball's patches blur: [`SMALL_BALL_RADIUS_PX`]).
    pub radius: f32,
    pub edge_support: f32,
    pub white_level: f32,
    pub dark_share: f32,
    pub dark_quadrants: u32,
    pub field_share: f32,
    pub ring_like_ball: f32,
    pub saturation: f32,
    /// Share of field colour below the ball (None: below is mostly outside the image).
    pub field_below: Option<f32>,
    /// Whether the frame shows a field at all.
    pub field_in_view: bool,
    /// Saturation of the inside's mean colour (each sample's chroma less the neutral one at
    /// its luma, averaged), relative to the white level.
    pub mean_color_saturation: f32,
    /// The share of field colour in the rim (0.8–0.95 radii from the centre, and at least
    /// 1.5 px inside the outline) less the inside's; on a clipped ball (see
    /// [`CLIPPED_BALL_SHARE`]) only field saturated like turf counts
    /// ([`CLIPPED_TURF_SATURATION_FACTOR`]).
    pub rim_field_excess: f32,
    /// Share of the inside's samples at or above [`CLIPPED_LUMA`].
    pub clipped_share: f32,
    /// The motion blur estimated from the streak around the circle (see [`BallBlur`]), only
    /// when the whole rim has more field than [`RIM_FIELD_EXCESS_SURE`] (sharp otherwise): the
    /// rim then counts field only where the ball covered it for [`FULL_COVERAGE`] of the
    /// exposure.
    pub blur: BallBlur,
}

/// A rim sample counts in "fills its circle" only if a ball blurred as estimated covers it for
/// at least this share of the exposure: nearer the streak's ends the rolling ball mixes turf
/// into the rim, which is no sign of a circle too big. (Rolling balls: 0.95 finds 25 of 30,
/// 0.9 24, 0.85 23, 1.0 23; every other set the same: `docs/performance.md`, fourteenth
/// round.)
pub const FULL_COVERAGE: f32 = 0.95;
/// On a circle placed at a streak's centre ([`BallFeatures::measure_streak`]), inside and rim
/// count where the ball covered them for this share of the exposure: a fast roll covers
/// hardly any of its circle all the time (4 m/s: 0.7 finds 27 of 30 rolling balls with a
/// false one, 0.8 27 with none, 0.9 25; `docs/performance.md`, fourteenth round).
pub const STREAK_COVERAGE: f32 = 0.8;
/// A placed streak circle's rim is judged on its covered samples when there are at least this
/// many (the old rule, a third of the rim, fell back to the whole rim on fast rolls: 39 → 43 of
/// 50 in the second rolling test, every other set unchanged; `docs/performance.md`, fourteenth
/// round).
pub const MIN_STREAK_RIM_SAMPLES: usize = 4;
/// A rim with no more field than this over the inside's fills its circle for sure ("fills its
/// circle" scores 1); above it the blur is estimated ([`FULL_COVERAGE`]).
pub const RIM_FIELD_EXCESS_SURE: f32 = 0.10;
/// The blur's half-length is taken at most this many radii (a roll at 4 m/s, 15 ms exposure,
/// sweeps 0.6 radii either way; a line beside the ball stretches the blob further).
pub const MAX_BLUR_HALF_LENGTH: f32 = 0.8;
/// The spacing of the features' grid over a circle of `radius` (and of the blur's window, which
/// is the same grid): an eighth of the radius, at least a pixel.
fn grid_step(radius: f32) -> f32 {
    (radius / 8.0).max(1.0)
}

/// The samples of the window 1.5 radii around the circle (the features' grid) for the blur's
/// moments: offset from the centre, saturation, and whether it is field outside the ball. Read
/// again only for the few candidates whose blur is estimated.
fn window_samples(
    image: &YuyvImage,
    field_color: &FieldColor,
    cache: &mut ChromaCache,
    contour: &BallContour,
) -> Vec<(f32, f32, f32, bool)> {
    let (width, height) = (image.width() as f32, image.height() as f32);
    let step = grid_step(contour.radius);
    let reach = 1.5 * contour.radius;
    let mut samples = Vec::new();
    let mut dy = -reach;
    while dy <= reach {
        let mut dx = -reach;
        while dx <= reach {
            let (x, y) = (contour.x + dx, contour.y + dy);
            if x >= 0.0 && y >= 0.0 && x < width - 0.5 && y < height - 0.5 {
                let (luma, cb, cr) = image.ycbcr((x + 0.5) as usize, (y + 0.5) as usize);
                let (saturation, is_field) = cache.get(field_color, luma, cb, cr);
                let outside = (dx * dx + dy * dy).sqrt() > 1.2 * contour.radius;
                samples.push((dx, dy, saturation, is_field && outside));
            }
            dx += step;
        }
        dy += step;
    }
    samples
}

/// The blur from the window's samples (offset, saturation, field outside the ball): each
/// sample weighs the share of the ball in its colour, 1 less its saturation over the turf's
/// (the median of the field around the ball); sharp when no field is around it.
fn estimate_blur(samples: &[(f32, f32, f32, bool)], radius: f32, max_half_length: f32) -> BallBlur {
    let mut turf: Vec<f32> = samples
        .iter()
        .filter(|sample| sample.3)
        .map(|sample| sample.2)
        .collect();
    if turf.len() < 4 {
        return BallBlur::default();
    }
    let middle = turf.len() / 2;
    let turf_saturation = *turf.select_nth_unstable_by(middle, f32::total_cmp).1;
    if turf_saturation <= f32::EPSILON {
        return BallBlur::default();
    }
    let mut weighted: Vec<(f32, f32, f32)> = samples
        .iter()
        .map(|&(dx, dy, saturation, _)| {
            (dx, dy, (1.0 - saturation / turf_saturation).clamp(0.0, 1.0))
        })
        .collect();
    leave_out_lines(&mut weighted, radius);
    BallBlur {
        turf_saturation,
        ..BallBlur::from_samples(&weighted, max_half_length)
    }
}

/// A sample holds "ball or line" when its weight (the share of colourless in it) is at least this.
const LINE_WEIGHT: f32 = 0.5;
/// A band this many radii wide at most is taken for a line (a line 5 cm wide is one radius).
const MAX_LINE_HALF_WIDTH: f32 = 0.75;

/// Takes a white band that crosses the window from one side to another out of the blur's
/// samples: a field line under or beside the ball, as colourless as the ball and so read as
/// part of its streak (a ball rolling across a line along the view got the line's direction for
/// its blur). A streak never reaches the window's border at half cover (its ends lie one radius
/// past a centre that swept at most 0.8 radii, the window reaches 1.5); a line runs on through
/// it. Each border side's runs of samples at half cover or more are paired with the runs on the
/// other sides; a pair whose straight path is at half cover all the way is a line. The samples
/// within its half-width (the narrower run's) of that path are set to what a sharp ball gives
/// there: 1 inside its circle, 0 beyond. (Setting them all to 0 left two halves of a ball lying
/// on a line, which read as a blur across the line: `docs/performance.md`, seventeenth round.)
fn leave_out_lines(weighted: &mut [(f32, f32, f32)], radius: f32) {
    /// A point of the window, as an offset from the circle's centre.
    type Offset = (f32, f32);
    let step = grid_step(radius);
    let reach = weighted
        .iter()
        .map(|sample| sample.0.abs().max(sample.1.abs()))
        .fold(0.0f32, f32::max);
    if reach <= 2.0 * step {
        return;
    }
    let cells = (2.0 * reach / step).round() as usize + 1;
    let index = |dx: f32, dy: f32| -> Option<usize> {
        let (column, row) = (((dx + reach) / step).round(), ((dy + reach) / step).round());
        (column >= 0.0 && row >= 0.0 && (column as usize) < cells && (row as usize) < cells)
            .then(|| row as usize * cells + column as usize)
    };
    let mut grid = vec![-1.0f32; cells * cells];
    for &(dx, dy, weight) in weighted.iter() {
        if let Some(cell) = index(dx, dy) {
            grid[cell] = weight;
        }
    }
    // The border's runs: per side, (side, midpoint, half-width).
    let mut runs: Vec<(usize, Offset, f32)> = Vec::new();
    for side in 0..4 {
        let mut run: Vec<Offset> = Vec::new();
        for k in 0..=cells {
            let t = -reach + k as f32 * step;
            let point = match side {
                0 => (t, -reach),
                1 => (reach, t),
                2 => (t, reach),
                _ => (-reach, t),
            };
            let covered =
                k < cells && index(point.0, point.1).is_some_and(|cell| grid[cell] >= LINE_WEIGHT);
            if covered {
                run.push(point);
            } else if !run.is_empty() {
                let (first, last) = (run[0], run[run.len() - 1]);
                let half_width = 0.5 * (run.len() as f32 * step);
                runs.push((
                    side,
                    (0.5 * (first.0 + last.0), 0.5 * (first.1 + last.1)),
                    half_width,
                ));
                run.clear();
            }
        }
    }
    let mut lines: Vec<(Offset, Offset, f32)> = Vec::new();
    for (i, &(side_a, a, width_a)) in runs.iter().enumerate() {
        for &(side_b, b, width_b) in &runs[i + 1..] {
            let half_width = width_a.min(width_b);
            if side_a == side_b || half_width > MAX_LINE_HALF_WIDTH * radius {
                continue;
            }
            let length = (b.0 - a.0).hypot(b.1 - a.1);
            let steps = (length / step).ceil() as usize;
            let white_all_along = (0..=steps).all(|k| {
                let f = k as f32 / steps.max(1) as f32;
                let (x, y) = (a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f);
                index(x, y).is_some_and(|cell| grid[cell] >= LINE_WEIGHT)
            });
            if white_all_along {
                lines.push((a, b, half_width));
            }
        }
    }
    for sample in weighted.iter_mut() {
        let on_a_line = lines.iter().any(|&(a, b, half_width)| {
            let (ux, uy) = (b.0 - a.0, b.1 - a.1);
            let length = ux.hypot(uy).max(f32::EPSILON);
            let distance = ((sample.0 - a.0) * uy - (sample.1 - a.1) * ux).abs() / length;
            distance <= half_width + 0.5 * step
        });
        if on_a_line {
            sample.2 = if sample.0 * sample.0 + sample.1 * sample.1 <= radius * radius {
                1.0
            } else {
                0.0
            };
        }
    }
}

/// A luma at or above this is clipped (the sensor's full scale, less its noise).
pub const CLIPPED_LUMA: f32 = 250.0;
/// A ball is over-exposed when this share of its inside clips: its white panels (about two
/// thirds of its face) clip over more than their lit half.
pub const CLIPPED_BALL_SHARE: f32 = 0.4;
/// An over-exposed ball's true white is taken as this many times the clip level: its black
/// patches are dark below 0.6 of that (0.75 of the clip level), not of the clipped white.
pub const CLIPPED_WHITE_EXCESS: f32 = 1.25;
/// In an over-exposed ball's rim, field counts only at this many times the frame's least field
/// saturation: the exposure that clips the white also brightens the turf's tint bounced onto
/// the ball's shaded underside past the field test, while turf itself is well above it.
pub const CLIPPED_TURF_SATURATION_FACTOR: f32 = 2.0;

/// A ball of this radius or less (6 px: 5 m from the upper camera) shows its black patches as
/// a few blurred pixels, dark only at the cores of the larger ones: its patches are expected
/// in 1 → 2.5 quadrants instead of 1.5 → 3.5, blended linearly up to [`LARGE_BALL_RADIUS_PX`]
/// (`docs/performance.md`, thirteenth round).
pub const SMALL_BALL_RADIUS_PX: f32 = 6.0;
/// From this radius on (10 px) the patches are resolved and the usual ramp holds.
pub const LARGE_BALL_RADIUS_PX: f32 = 10.0;

/// Features below this confidence are not balls.
pub const BALL_THRESHOLD: f32 = 0.5;

/// The band beside a ball where turf is looked for: from this many radii out (past the
/// ball's shadow and blur) ...
pub const FIELD_BESIDE_INNER: f32 = 1.3;
/// ... to this many, left and right of the centre (the samples nearer the horizontal through
/// the centre than the vertical).
pub const FIELD_BESIDE_OUTER: f32 = 2.2;
/// A side is judged when at least this many of its samples lie in the image.
const FIELD_BESIDE_MIN_SAMPLES: f32 = 4.0;

/// The larger share of field colour beside the circle, left or right of it ([`FIELD_BESIDE_INNER`]
/// to [`FIELD_BESIDE_OUTER`] radii from the centre); None when neither side lies in the image, or
/// when the frame shows no field colour at all (then nothing is field, and a ball is judged by its
/// other features alone). A ball lies on the field: a robot's foot or another ball may stand on one
/// side of it (two robots in a duel on both: the ball perceptor then looks below it), while a
/// robot's hand, a shoe seen against the hall or a blob on a wall has no turf on either side.
pub fn field_beside(
    image: &YuyvImage,
    field_color: &FieldColor,
    cache: &mut ChromaCache,
    (center_x, center_y, radius): (f32, f32, f32),
) -> Option<f32> {
    field_color.field_hue_rad?;
    let (width, height) = (image.width() as f32, image.height() as f32);
    let step = (radius / 6.0).max(1.0);
    let reach = FIELD_BESIDE_OUTER * radius;
    // Per side (left, right): samples in the image, and those of field colour.
    let mut samples = [0.0f32; 2];
    let mut field = [0.0f32; 2];
    let mut dy = -reach;
    while dy <= reach {
        let mut dx = -reach;
        while dx <= reach {
            let (x, y) = (center_x + dx, center_y + dy);
            let distance = dx.hypot(dy) / radius;
            if dx.abs() >= dy.abs()
                && (FIELD_BESIDE_INNER..=FIELD_BESIDE_OUTER).contains(&distance)
                && x >= 0.0
                && y >= 0.0
                && x < width - 0.5
                && y < height - 0.5
            {
                let side = usize::from(dx >= 0.0);
                let (luma, cb, cr) = image.ycbcr((x + 0.5) as usize, (y + 0.5) as usize);
                samples[side] += 1.0;
                if cache.get(field_color, luma, cb, cr).1 {
                    field[side] += 1.0;
                }
            }
            dx += step;
        }
        dy += step;
    }
    (0..2)
        .filter(|&side| samples[side] >= FIELD_BESIDE_MIN_SAMPLES)
        .map(|side| field[side] / samples[side])
        .max_by(f32::total_cmp)
}

fn ramp(value: f32, zero: f32, one: f32) -> f32 {
    ((value - zero) / (one - zero)).clamp(0.0, 1.0)
}

impl BallFeatures {
    /// Measures the features of a circle on the full-resolution frame.
    pub fn measure(
        image: &YuyvImage,
        field_color: &FieldColor,
        cache: &mut ChromaCache,
        contour: &BallContour,
    ) -> Self {
        Self::measure_with_blur(image, field_color, cache, contour, None)
    }

    /// Measures the features of a rolling ball's circle whose blur is known: inside and rim
    /// count only where the ball covered them for [`STREAK_COVERAGE`] of the exposure, the
    /// ring around it only where the ball never was (the streak's ends are turf mixed with
    /// ball).
    pub fn measure_streak(
        image: &YuyvImage,
        field_color: &FieldColor,
        cache: &mut ChromaCache,
        contour: &BallContour,
        blur: BallBlur,
    ) -> Self {
        Self::measure_with_blur(image, field_color, cache, contour, Some(blur))
    }

    fn measure_with_blur(
        image: &YuyvImage,
        field_color: &FieldColor,
        cache: &mut ChromaCache,
        contour: &BallContour,
        known_blur: Option<BallBlur>,
    ) -> Self {
        let (width, height) = (image.width() as f32, image.height() as f32);
        let step = grid_step(contour.radius);
        let mut inside: Vec<(f32, f32, f32, usize)> = Vec::new();
        let (mut blue_sum, mut red_sum) = (0.0f32, 0.0f32);
        let mut ring: Vec<(f32, f32)> = Vec::new();
        // Rim samples: offset from the centre, field, turf-saturated field (for a clipped ball,
        // below).
        let mut rim: Vec<(f32, f32, f32, f32)> = Vec::new();
        let mut inside_turf = 0.0f32;
        let turf_saturation = CLIPPED_TURF_SATURATION_FACTOR * field_color.field_min_saturation();
        // The rim ends 0.95 radii out, and at least 1.5 px inside the outline, which the
        // optics and the sensor blur by about that much (a 7.8 px ball at 4 m has no rim).
        let rim_outer = 0.95f32.min(1.0 - 1.5 / contour.radius);
        let (mut below, mut below_field, mut below_wanted) = (0.0f32, 0.0f32, 0.0f32);
        let reach = 1.5 * contour.radius;
        let mut dy = -reach;
        while dy <= reach {
            let mut dx = -reach;
            while dx <= reach {
                let (x, y) = (contour.x + dx, contour.y + dy);
                let distance = (dx * dx + dy * dy).sqrt() / contour.radius;
                if x >= 0.0 && y >= 0.0 && x < width - 0.5 && y < height - 0.5 {
                    let (luma, cb, cr) = image.ycbcr((x + 0.5) as usize, (y + 0.5) as usize);
                    let (saturation, is_field) = cache.get(field_color, luma, cb, cr);
                    let field = if is_field { 1.0 } else { 0.0 };
                    let turf = if is_field && saturation >= turf_saturation {
                        1.0
                    } else {
                        0.0
                    };
                    let coverage =
                        known_blur.map_or(1.0, |blur| blur.coverage((dx, dy), contour.radius));
                    if distance <= 0.8 {
                        if coverage < STREAK_COVERAGE {
                            dx += step;
                            continue;
                        }
                        let quadrant = usize::from(dx >= 0.0) + 2 * usize::from(dy >= 0.0);
                        inside.push((f32::from(luma), saturation, field, quadrant));
                        inside_turf += turf;
                        let (neutral_blue, neutral_red) = field_color.neutral_at(luma);
                        blue_sum += f32::from(cb) - neutral_blue;
                        red_sum += f32::from(cr) - neutral_red;
                    } else if distance <= rim_outer {
                        rim.push((dx, dy, field, turf));
                    }
                    if (1.2..=1.5).contains(&distance) && (known_blur.is_none() || coverage == 0.0)
                    {
                        ring.push((f32::from(luma), saturation));
                    }
                }
                dx += step;
            }
            dy += step;
        }
        if inside.len() < 8 {
            return Self::default();
        }
        // Below the ball, past its shadow: 1.3 to 2 radii down, 1.5 radii to either side.
        let mut dy = 1.3 * contour.radius;
        while dy <= 2.0 * contour.radius {
            let mut dx = -1.5 * contour.radius;
            while dx <= 1.5 * contour.radius {
                let (x, y) = (contour.x + dx, contour.y + dy);
                below_wanted += 1.0;
                if x >= 0.0 && y >= 0.0 && x < width - 0.5 && y < height - 0.5 {
                    let (luma, cb, cr) = image.ycbcr((x + 0.5) as usize, (y + 0.5) as usize);
                    below += 1.0;
                    below_field += if cache.get(field_color, luma, cb, cr).1 {
                        1.0
                    } else {
                        0.0
                    };
                }
                dx += step;
            }
            dy += step;
        }
        let mut lumas: Vec<f32> = inside.iter().map(|sample| sample.0).collect();
        lumas.sort_by(f32::total_cmp);
        let white = lumas[(lumas.len() * 85 / 100).min(lumas.len() - 1)].max(1.0);
        // A ball whose white clips reads its white at the clip level, below the true one: its
        // patches are dark relative to the true white, taken as CLIPPED_WHITE_EXCESS times
        // the clip level.
        let clipped_share =
            lumas.iter().filter(|&&luma| luma >= CLIPPED_LUMA).count() as f32 / lumas.len() as f32;
        let clipped = clipped_share >= CLIPPED_BALL_SHARE;
        let true_white = if clipped {
            CLIPPED_WHITE_EXCESS * white
        } else {
            white
        };
        let dark_luma = 0.6 * true_white;
        let count = inside.len() as f32;
        let mut quadrant_dark = [0.0f32; 4];
        let mut quadrant_count = [0.0f32; 4];
        for &(luma, _, _, quadrant) in &inside {
            quadrant_count[quadrant] += 1.0;
            if luma < dark_luma {
                quadrant_dark[quadrant] += 1.0;
            }
        }
        let dark_quadrants = (0..4)
            .filter(|&q| quadrant_count[q] > 0.0 && quadrant_dark[q] / quadrant_count[q] >= 0.03)
            .count() as u32;
        let field_share = inside.iter().map(|sample| sample.2).sum::<f32>() / count;
        // Field in the rim less the inside's (on a clipped ball, turf-saturated field only).
        let rim_excess = |rim: &mut dyn Iterator<Item = &(f32, f32, f32, f32)>| {
            let (mut samples, mut field, mut turf) = (0.0f32, 0.0f32, 0.0f32);
            for sample in rim {
                samples += 1.0;
                field += sample.2;
                turf += sample.3;
            }
            let samples = samples.max(1.0);
            if clipped {
                turf / samples - inside_turf / count
            } else {
                field / samples - field_share
            }
        };
        let rim_field_excess = rim_excess(&mut rim.iter());
        let ring_like_ball = if ring.is_empty() {
            0.0
        } else {
            ring.iter()
                .filter(|&&(luma, saturation)| {
                    luma >= 0.75 * white && saturation <= 10.0 + 0.15 * luma
                })
                .count() as f32
                / ring.len() as f32
        };
        let mut features = Self {
            radius: contour.radius,
            edge_support: contour.edge_support,
            white_level: white / field_color.bright_luma,
            dark_share: quadrant_dark.iter().sum::<f32>() / count,
            dark_quadrants,
            field_share,
            ring_like_ball,
            saturation: inside.iter().map(|sample| sample.1).sum::<f32>() / count / white,
            // Judged only when most of the region is in the image: a ball at the lower border
            // shows nothing below it but its own shadow.
            field_below: (below >= 8.0 && below >= 0.5 * below_wanted).then(|| below_field / below),
            field_in_view: field_color.field_hue_rad.is_some(),
            rim_field_excess,
            blur: BallBlur::default(),
            clipped_share,
            mean_color_saturation: (blue_sum / count).hypot(red_sum / count) / white,
        };
        // Only when the rim's field would count against the circle, and the features the blur
        // leaves alone look like a ball, is the blur estimated: the rim then counts where the
        // ball covered it all the exposure, or all of it when too little of it is left (a
        // streak longer than the ball is wide).
        let full_coverage = if known_blur.is_some() {
            STREAK_COVERAGE
        } else {
            FULL_COVERAGE
        };
        let blur = match known_blur {
            Some(blur) => blur,
            None if features.rim_field_excess > RIM_FIELD_EXCESS_SURE
                && features.blur_free_confidence() >= BALL_THRESHOLD =>
            {
                let samples = window_samples(image, field_color, cache, contour);
                estimate_blur(
                    &samples,
                    contour.radius,
                    MAX_BLUR_HALF_LENGTH * contour.radius,
                )
            }
            None => return features,
        };
        let covered = |sample: &&(f32, f32, f32, f32)| {
            blur.coverage((sample.0, sample.1), contour.radius) >= full_coverage
        };
        // An ordinary circle's rim is judged where covered when at least a third of it is; a
        // circle placed at a streak's centre by its own crossings wherever a few samples are
        // (its ends are turf mixed with ball by construction).
        let covered_count = rim.iter().filter(covered).count();
        let enough = if known_blur.is_some() {
            covered_count >= MIN_STREAK_RIM_SAMPLES
        } else {
            covered_count * 3 >= rim.len()
        };
        if enough {
            features.rim_field_excess = rim_excess(&mut rim.iter().filter(covered));
        }
        features.blur = blur;
        features
    }

    /// The confidence of the features a rolling ball's blur leaves alone (its outline, white
    /// level, surroundings and colour; not its patches, the field inside it or its rim):
    /// the blur is estimated only for a candidate that passes on them.
    pub(crate) fn blur_free_confidence(&self) -> f32 {
        let scores = self.scores();
        [0, 1, 5, 6, 9]
            .iter()
            .map(|&index| scores[index])
            .product::<f32>()
            .sqrt()
    }

    /// The feature scores, in the order of the table above.
    pub fn scores(&self) -> [f32; 10] {
        [
            ramp(self.edge_support, 0.40, 0.65),
            ramp(self.white_level, 0.50, 0.75),
            ramp(self.dark_share, 0.06, 0.15).min(ramp(self.dark_share, 0.60, 0.45)),
            self.patches_spread_score(),
            ramp(self.field_share, 0.25, 0.10),
            ramp(self.ring_like_ball, 0.85, 0.60),
            ramp(self.saturation, 0.30, 0.18),
            match (self.field_in_view, self.field_below) {
                // No field anywhere: a ball off the field is possible but unlikely.
                (false, _) => 0.5,
                (true, None) => 1.0,
                // Below a ball there may be the robot's own feet, another robot or the ball's
                // shadow on dark turf: no field there counts against a ball, but cannot veto it.
                (true, Some(share)) => 0.4 + 0.6 * ramp(share, 0.02, 0.15),
            },
            // Field that reads as such inside too (a dark frame's noise) is not the circle's
            // fault: only the rim's excess over the inside counts.
            ramp(self.rim_field_excess, 0.25, RIM_FIELD_EXCESS_SURE),
            // Sensor noise scatters each pixel's chroma but not the mean's: a dark, noisy
            // frame's white ball stays grey on average, a yellow desk or a shoe does not.
            ramp(self.mean_color_saturation, 0.15, 0.08),
        ]
    }

    /// The patches' spread: dark in 1.5 → 3.5 quadrants, and for a small ball 1 → 2.5
    /// ([`SMALL_BALL_RADIUS_PX`]).
    fn patches_spread_score(&self) -> f32 {
        let small = ramp(self.radius, LARGE_BALL_RADIUS_PX, SMALL_BALL_RADIUS_PX);
        let blend = |large: f32, small_ball: f32| large + (small_ball - large) * small;
        ramp(self.dark_quadrants as f32, blend(1.5, 1.0), blend(3.5, 2.5))
    }

    /// Square root of the product of the scores: one half-met feature costs 30 %, two cost
    /// half, a failed one rejects.
    pub fn confidence(&self) -> f32 {
        self.scores().iter().product::<f32>().sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ec_image::EcImage;
    use cortex_image::{ColorRange, RgbImage};

    /// The window's samples (as [`window_samples`] spaces them) of a ball of `radius` blurred
    /// ±`half_length` along x, lying on a vertical white band `band_half_width` wide through
    /// its centre (none when 0), with the turf's saturation 30 and colourless ball and band.
    fn streak_on_a_band(
        radius: f32,
        half_length: f32,
        band_half_width: f32,
    ) -> Vec<(f32, f32, f32, bool)> {
        let blur = BallBlur {
            direction: (1.0, 0.0),
            half_length,
            ..BallBlur::default()
        };
        let step = radius / 8.0;
        let reach = 1.5 * radius;
        let mut samples = Vec::new();
        for row in 0..=24 {
            for column in 0..=24 {
                let (dx, dy) = (-reach + column as f32 * step, -reach + row as f32 * step);
                let ball = blur.coverage((dx, dy), radius);
                let band = if dx.abs() <= band_half_width {
                    1.0
                } else {
                    0.0
                };
                let share = f32::max(ball, band);
                let outside = dx.hypot(dy) > 1.2 * radius;
                samples.push((dx, dy, 30.0 * (1.0 - share), share == 0.0 && outside));
            }
        }
        samples
    }

    #[test]
    fn a_line_under_a_rolling_ball_is_no_part_of_its_streak() {
        let radius = 24.0;
        let max_half_length = MAX_BLUR_HALF_LENGTH * radius;
        // On turf: the roll's direction and its length (9.4 px for 9 on the window's grid).
        let on_turf = estimate_blur(&streak_on_a_band(radius, 9.0, 0.0), radius, max_half_length);
        assert!(on_turf.direction.0.abs() > 0.99, "{on_turf:?}");
        assert!((on_turf.half_length - 9.0).abs() < 1.0, "{on_turf:?}");
        // On a line along the view (a vertical band a quarter radius wide either side): the
        // roll's direction, where the line's samples counted would have turned the blur along
        // the line, and about its length (the band filled as a sharp ball's is a little
        // shorter: 8.6 px).
        let on_line = estimate_blur(&streak_on_a_band(radius, 9.0, 6.0), radius, max_half_length);
        assert!(on_line.direction.0.abs() > 0.99, "{on_line:?}");
        assert!((on_line.half_length - 9.0).abs() < 1.5, "{on_line:?}");
        let mut weighted: Vec<(f32, f32, f32)> = streak_on_a_band(radius, 9.0, 6.0)
            .iter()
            .map(|&(dx, dy, saturation, _)| (dx, dy, 1.0 - saturation / 30.0))
            .collect();
        let with_the_line = BallBlur::from_samples(&weighted, max_half_length);
        assert!(with_the_line.direction.1.abs() > 0.9, "{with_the_line:?}");
        // The band beyond the ball is left out; a sharp ball lying on a line keeps its circle.
        leave_out_lines(&mut weighted, radius);
        assert!(
            weighted
                .iter()
                .all(|&(dx, dy, weight)| dx.abs() > 6.0
                    || (dx.hypot(dy) <= radius) == (weight == 1.0))
        );
        let sharp_on_line =
            estimate_blur(&streak_on_a_band(radius, 0.0, 6.0), radius, max_half_length);
        assert!(sharp_on_line.half_length < 1.0, "{sharp_on_line:?}");
        let sharp_with_the_line: Vec<(f32, f32, f32)> = streak_on_a_band(radius, 0.0, 6.0)
            .iter()
            .map(|&(dx, dy, saturation, _)| (dx, dy, 1.0 - saturation / 30.0))
            .collect();
        let sharp_with_the_line = BallBlur::from_samples(&sharp_with_the_line, max_half_length);
        assert!(
            sharp_with_the_line.half_length > sharp_on_line.half_length + 5.0,
            "{sharp_with_the_line:?}"
        );
        // A band wider than a line (a robot's leg beside the ball) is not taken for one.
        let mut wide: Vec<(f32, f32, f32)> = streak_on_a_band(radius, 0.0, 20.0)
            .iter()
            .map(|&(dx, dy, saturation, _)| (dx, dy, 1.0 - saturation / 30.0))
            .collect();
        let before = wide.clone();
        leave_out_lines(&mut wide, radius);
        assert_eq!(wide, before);
    }

    /// Turf below row 200, a grey hall above; a white disc of radius 20 at each centre.
    fn scene(discs: &[(f32, f32)]) -> (YuyvImage, FieldColor) {
        let (width, height) = (640, 480);
        let mut rgb = RgbImage::new(width, height, vec![0; width * height * 3]).unwrap();
        for y in 0..height {
            for x in 0..width {
                let on_disc = discs
                    .iter()
                    .any(|&(cx, cy)| (x as f32 - cx).hypot(y as f32 - cy) <= 20.0);
                let color = match (on_disc, y >= 200) {
                    (true, _) => [230, 230, 230],
                    (false, true) => [40, 140, 50],
                    (false, false) => [120, 118, 125],
                };
                rgb.set(x, y, color);
            }
        }
        let image = YuyvImage::from_rgb(&rgb, ColorRange::Full).unwrap();
        let field_color = FieldColor::estimate(&EcImage::from_yuyv(&image));
        (image, field_color)
    }

    #[test]
    fn a_ball_on_turf_has_field_beside_it_and_a_blob_in_the_hall_has_none() {
        let (image, field_color) = scene(&[(320.0, 350.0), (320.0, 100.0)]);
        let mut cache = ChromaCache::default();
        let on_turf = field_beside(&image, &field_color, &mut cache, (320.0, 350.0, 20.0));
        assert!(on_turf.is_some_and(|share| share > 0.9), "{on_turf:?}");
        let in_hall = field_beside(&image, &field_color, &mut cache, (320.0, 100.0, 20.0));
        assert!(in_hall.is_some_and(|share| share < 0.1), "{in_hall:?}");
        // One side out of the image: the other side counts.
        let at_border = field_beside(&image, &field_color, &mut cache, (10.0, 350.0, 20.0));
        assert!(at_border.is_some_and(|share| share > 0.9), "{at_border:?}");
        // A circle wider than the image has no side in it to judge.
        let too_wide = field_beside(&image, &field_color, &mut cache, (320.0, 350.0, 400.0));
        assert_eq!(too_wide, None);
    }

    #[test]
    fn without_field_colour_in_the_frame_nothing_is_judged() {
        // A grey hall and a white disc, no turf anywhere: the field colour finds no hue.
        let (width, height) = (640, 480);
        let mut rgb = RgbImage::new(width, height, vec![0; width * height * 3]).unwrap();
        for y in 0..height {
            for x in 0..width {
                let on_disc = (x as f32 - 320.0).hypot(y as f32 - 350.0) <= 20.0;
                rgb.set(x, y, if on_disc { [230; 3] } else { [120, 118, 125] });
            }
        }
        let image = YuyvImage::from_rgb(&rgb, ColorRange::Full).unwrap();
        let field_color = FieldColor::estimate(&EcImage::from_yuyv(&image));
        assert_eq!(field_color.field_hue_rad, None);
        let mut cache = ChromaCache::default();
        let share = field_beside(&image, &field_color, &mut cache, (320.0, 350.0, 20.0));
        assert_eq!(share, None);
    }

    #[test]
    fn a_small_balls_blurred_patches_need_not_spread_as_far() {
        // Dark in two quadrants: half-met for a large ball, whose patches are resolved; most
        // of what a 5 px ball's blurred patches can show.
        let features = |radius: f32| BallFeatures {
            radius,
            dark_quadrants: 2,
            ..BallFeatures::default()
        };
        let large = features(20.0).patches_spread_score();
        let between = features(8.0).patches_spread_score();
        let small = features(5.0).patches_spread_score();
        assert!((large - 0.25).abs() < 1e-6, "{large}");
        assert!(small > 0.6, "{small}");
        assert!(
            large < between && between < small,
            "{large} {between} {small}"
        );
        // Dark in one quadrant only is no ball at any size.
        let one = BallFeatures {
            radius: 5.0,
            dark_quadrants: 1,
            ..BallFeatures::default()
        };
        assert_eq!(one.patches_spread_score(), 0.0);
    }
}
