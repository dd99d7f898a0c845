//! `BallContour`: the circle of a ball spot refined to sub-pixel accuracy on the full-resolution
//! frame.
//!
//! From the spot's centre, 48 rays look for edges between 0.4 r and 2 r: a drop in luma or a
//! rise in saturation (white → field, black patch → field, ball → shadow), measured across a
//! span that grows with the radius (2 px, or r/12 for large, often blurred balls); an edge must
//! exceed a share of the frame's bright level and the sensor noise measured on the field
//! around the spot (a dark, noisy frame's noise is above that share). Where that noise is
//! more than about half the share, each sample of a ray is the mean of its pixel and the two
//! beside it across the ray: the noise falls by √3 and the edge stays as sharp along the ray.
//! Each ray offers its
//! three strongest edges, located to a fraction of a pixel by a parabola through the strength
//! around the peak; an edge on a downward ray that runs into the ball's shadow is moved out
//! to the foot of its ramp (the shaded underside ends there, not where the light turns away).
//! A RANSAC over three-point circles picks the circle most rays agree on, counting double the
//! edges with field beyond them and half again a ray's outermost edge (inner edges of the
//! black patches do not form one circle; a line or post touching the ball only removes the
//! rays on its side), and a least-squares fit (Kåsa) on its inliers gives the result. A ray
//! whose outermost edge ends a bright stretch with field beyond (a line, shoe or bar that
//! merges with the ball) gives no edge that bonus: either edge may be the outline. When
//! some edges on upward rays look like a line's far edge (white goes on along their tangent
//! on both sides, where a ball's outline would have curved away), a fourth hypothesis is
//! fitted without them: the classifier picks between the circle through the line and the
//! one through the ball's sides and bottom; in every contour's edge support such an edge
//! counts half. The best three distinct circles are each fitted again with rays cast from
//! them, and the classifier picks among them.

use crate::color_classes::ChromaCache;
use crate::field_color::FieldColor;
use cortex_image::YuyvImage;
use std::sync::OnceLock;

/// A circle in full-resolution pixels with the share of rays that support it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BallContour {
    pub x: f32,
    pub y: f32,
    pub radius: f32,
    /// Rays with an edge on the circle / all rays that stayed inside the image (an edge that
    /// looks like a line's far edge counts half).
    pub edge_support: f32,
    /// Root-mean-square distance of the supporting edges from the circle, in radii.
    pub fit_error: f32,
}

const RAYS: usize = 48;

/// (cos, sin) of `count` directions evenly spread over the full turn, direction i at
/// i / count · 2π: the same floats as computing them where they are used.
fn directions<const COUNT: usize>() -> [(f32, f32); COUNT] {
    std::array::from_fn(|index| {
        let angle = index as f32 / COUNT as f32 * std::f32::consts::TAU;
        (angle.cos(), angle.sin())
    })
}

/// The rays' directions, computed once per process instead of once per ray of every contour
/// (five contours per spot).
fn ray_directions() -> &'static [(f32, f32); RAYS] {
    static DIRECTIONS: OnceLock<[(f32, f32); RAYS]> = OnceLock::new();
    DIRECTIONS.get_or_init(directions::<RAYS>)
}
const EDGES_PER_RAY: usize = 5;
/// Weakest edge, as a share of the frame's bright level (24 of 220 in a well-lit frame).
const MIN_EDGE_STRENGTH: f32 = 0.11;
/// Weakest edge, as a multiple of the sensor noise around the spot ([`field_noise`]). In a
/// dark, noisy frame the bright level's share is below the noise and the contour fits it;
/// there the edges must rise above the noise and the profile is smoothed over five samples
/// instead of three. 0.8–1.0 gave the same results; 1.2 lost a ball of the ±20 noise variant.
const NOISE_FACTOR: f32 = 1.0;
/// Noise (as [`field_noise`] measures it) above this share of the weakest edge's floor
/// ([`MIN_EDGE_STRENGTH`] of the bright level): each sample of a ray is averaged with the two
/// pixels beside it across the ray. The shared frames and their clean variants measure at most
/// 0.3–0.4 of the floor, the ±20 noise variant 0.5–1.0. 0.45 and 0.6 gave the same balls (the
/// noise set 9 → 11 of 13, 4 → 0 false balls: they were balls found 5–8 px off); 0.3 one false
/// ball more on the brighter set; averaging on every frame (0) lost balls on six clean sets.
const ACROSS_NOISE_SHARE: f32 = 0.45;
const RANSAC_ITERATIONS: usize = 120;
/// The second fit starts from a good circle: fewer draws find it again.
const SECOND_PASS_ITERATIONS: usize = 50;
/// Contours offered per spot.
pub const HYPOTHESES: usize = 3;
/// What an edge that looks like a line's far edge ([`line_beside`]) counts in a contour's
/// edge support: as likely the line as the ball's outline (a ball's top above a line looks
/// the same), so half. Without it, a circle grown over the line's far edge outscored the
/// ball's own circle (log_44345 in most variants); 0.3 and 0.7 gave fewer balls.
const LINE_EDGE_WEIGHT: f32 = 0.5;

struct EdgePoint {
    x: f32,
    y: f32,
    ray: usize,
    /// The outermost of its ray's edges: the ball's outline when the inner ones are patches
    /// or the border of its own shading.
    outermost: bool,
    /// The field lies beyond the edge: the outline of something lying on the field, the most
    /// trustworthy kind of edge (above a ball there may be a line, a post or a wall).
    field_outside: bool,
    /// Dark and colourless beyond the edge: as likely a black patch of the ball itself as its
    /// outline, so such an edge counts less.
    dark_outside: bool,
    /// On an upward ray, with white going on along the edge's tangent on both sides where a
    /// ball's own outline would have curved away: likely the far edge of a line behind it.
    line: bool,
}

/// The pixel at (x, y), None outside the image. Pixel i covers [i − 0.5, i + 0.5): coordinates
/// are pixel centres.
fn pixel_at(image: &YuyvImage, x: f32, y: f32) -> Option<(usize, usize)> {
    let (x, y) = (x + 0.5, y + 0.5);
    // (A float below an integer bound truncates below it: the bounds are tested before the
    // conversion, which then never saturates. Through `u32`: the same integer as converting
    // to `usize` directly, in fewer instructions.)
    let inside = x >= 0.0 && y >= 0.0 && x < image.width() as f32 && y < image.height() as f32;
    inside.then_some((x as u32 as usize, y as u32 as usize))
}

/// The luma, saturation and field flag of the pixel at (x, y), None outside the image. Inlined:
/// called once per sample of every ray, the call and its result passed through memory cost
/// about a tenth of the contour stage.
#[inline(always)]
fn sample(
    image: &YuyvImage,
    field_color: &FieldColor,
    cache: &mut ChromaCache,
    x: f32,
    y: f32,
) -> Option<(f32, f32, bool)> {
    let (x, y) = pixel_at(image, x, y)?;
    let (luma, cb, cr) = image.ycbcr(x, y);
    let (saturation, field) = cache.get(field_color, luma, cb, cr);
    Some((f32::from(luma), saturation, field))
}

/// Edges along the rays from (x, y) for a ball of about `radius`; also how many rays had room.
fn edge_points(
    image: &YuyvImage,
    field_color: &FieldColor,
    cache: &mut ChromaCache,
    (x, y, radius): (f32, f32, f32),
    (min_strength, smoothing, across): (f32, usize, bool),
    flag_lines: bool,
) -> (Vec<EdgePoint>, usize) {
    // At most about 64 samples per ray: large balls are sampled every few pixels.
    let stride = ((2.0 * radius) / 64.0).ceil().max(1.0);
    let start = ((0.4 * radius).max(2.0) / stride) as usize;
    // The edge operator compares the samples `span` before and after.
    let span = 2;
    let end = (2.0 * radius / stride).ceil() as usize + span + 1;
    let mut points = Vec::with_capacity(RAYS * EDGES_PER_RAY);
    let mut rays_inside = 0;
    let mut profile = Vec::with_capacity(end + 1);
    let mut smoothed: Vec<(f32, f32)> = Vec::with_capacity(end + 1);
    let mut strengths: Vec<f32> = Vec::with_capacity(end + 1);
    let mut peaks: Vec<(f32, f32)> = Vec::with_capacity(end + 1);
    // The first sample the edge search reads (through the smoothing of the strength just
    // below `start`): the samples before it are not read from the image.
    let first_read = (start.max(span + 1) - 1).saturating_sub(span + smoothing);
    for (ray, &(dx, dy)) in ray_directions().iter().enumerate() {
        profile.clear();
        for t in 0..=end {
            let distance = t as f32 * stride;
            let (sample_x, sample_y) = (x + dx * distance, y + dy * distance);
            if t < first_read {
                // Inside the ball, before anything the edge search reads: only whether the
                // ray is still in the image counts here.
                if pixel_at(image, sample_x, sample_y).is_none() {
                    break;
                }
                profile.push((0.0, 0.0, false));
                continue;
            }
            let Some(value) = sample(image, field_color, cache, sample_x, sample_y) else {
                break;
            };
            if across {
                // In a noisy frame the samples beside the ray are averaged in too: the noise
                // falls by √3 and the edge's position along the ray stays sharp.
                // (One sample step to either side: `stride` is at least a pixel.)
                let mut sums = (value.0, value.1, 1.0f32);
                for side in [-1.0f32, 1.0] {
                    let (ax, ay) = (sample_x - dy * stride * side, sample_y + dx * stride * side);
                    if let Some((luma, saturation, _)) = sample(image, field_color, cache, ax, ay) {
                        sums = (sums.0 + luma, sums.1 + saturation, sums.2 + 1.0);
                    }
                }
                profile.push((sums.0 / sums.2, sums.1 / sums.2, value.2));
            } else {
                profile.push(value);
            }
        }
        if profile.len() as f32 * stride > radius {
            rays_inside += 1;
        }
        // Sensor noise would make edges of its own: luma and saturation are averaged over
        // three samples along the ray first (five in a noisy frame).
        match smoothing {
            1 => smooth::<3>(&profile, &mut smoothed),
            2 => smooth::<5>(&profile, &mut smoothed),
            _ => smooth_any(&profile, smoothing, &mut smoothed),
        }
        strengths.clear();
        strengths.extend((0..profile.len()).map(|t| {
            if t < span || t + span >= profile.len() {
                return 0.0;
            }
            let (luma_before, saturation_before) = smoothed[t - span];
            let (luma_after, saturation_after) = smoothed[t + span];
            (luma_before - luma_after).max(0.0)
                + 2.0 * (saturation_after - saturation_before).max(0.0)
        }));
        let strength = |t: usize| -> f32 { strengths.get(t).copied().unwrap_or(0.0) };
        peaks.clear();
        for t in start.max(span + 1)..profile.len().saturating_sub(span + 1) {
            let (before, here, after) = (strength(t - 1), strength(t), strength(t + 1));
            if here >= min_strength && here >= before && here > after {
                let curvature = before - 2.0 * here + after;
                let offset = if curvature < 0.0 {
                    (0.5 * (before - after) / curvature).clamp(-0.5, 0.5)
                } else {
                    0.0
                };
                // The shaded underside of a ball falls off into its shadow in a ramp: the
                // ball ends where the ramp does. The shadow lies under the ball (light comes
                // from above): only a ray that points down can run from the ball into it.
                let foot = ramp_foot(
                    &strength,
                    (t, here),
                    span,
                    profile.len(),
                    0.5 * radius / stride,
                );
                let into_shadow = dy > SHADOW_RAY_MIN_DOWN
                    && profile
                        .get(t + foot as usize + span + 1)
                        .is_some_and(|sample| is_shadow(field_color, sample));
                peaks.push((
                    here,
                    t as f32 + offset + if into_shadow { foot } else { 0.0 },
                ));
            }
        }
        peaks.sort_by(|a, b| b.0.total_cmp(&a.0));
        peaks.truncate(EDGES_PER_RAY);
        let outermost = peaks.iter().map(|peak| peak.1).fold(0.0, f32::max);
        let merged = merged_with_neighbour(&profile, &peaks, outermost, span, field_color);
        for &(_, t) in &peaks {
            points.push(EdgePoint {
                x: x + dx * t * stride,
                y: y + dy * t * stride,
                ray,
                outermost: t == outermost && !merged,
                field_outside: profile
                    .get(t as usize + span + 1)
                    .is_some_and(|sample| sample.2),
                dark_outside: profile
                    .get(t as usize + span + 1)
                    .is_some_and(|sample| is_shadow(field_color, sample)),
                line: false,
            });
            if flag_lines {
                let point = points.last_mut().expect("just pushed");
                point.line = is_line_edge(image, field_color, cache, point, radius);
            }
        }
    }
    (points, rays_inside)
}

/// The mean luma and saturation of a window of samples (one pass, summing both in the
/// window's order).
#[inline(always)]
fn window_mean(window: &[(f32, f32, bool)]) -> (f32, f32) {
    let (luma, saturation) = window
        .iter()
        .fold((0.0f32, 0.0f32), |(luma, saturation), sample| {
            (luma + sample.0, saturation + sample.1)
        });
    let count = window.len() as f32;
    (luma / count, saturation / count)
}

/// Each sample's mean over the `smoothing` samples either side of it (fewer at the ends),
/// into `smoothed`.
fn smooth_any(profile: &[(f32, f32, bool)], smoothing: usize, smoothed: &mut Vec<(f32, f32)>) {
    smoothed.clear();
    smoothed.extend((0..profile.len()).map(|t| {
        window_mean(&profile[t.saturating_sub(smoothing)..(t + smoothing + 1).min(profile.len())])
    }));
}

/// [`smooth_any`] over windows of `WIDTH` samples (`smoothing` = `WIDTH` / 2): the full windows
/// in the middle have a length the compiler knows, so their sums are unrolled (the same
/// additions in the same order).
fn smooth<const WIDTH: usize>(profile: &[(f32, f32, bool)], smoothed: &mut Vec<(f32, f32)>) {
    let half = WIDTH / 2;
    let len = profile.len();
    if len < WIDTH {
        smooth_any(profile, half, smoothed);
        return;
    }
    smoothed.clear();
    smoothed.extend((0..half).map(|t| window_mean(&profile[..t + half + 1])));
    smoothed.extend(profile.windows(WIDTH).map(|window| {
        let window: &[(f32, f32, bool); WIDTH] = window.try_into().expect("windows of WIDTH");
        window_mean(window)
    }));
    smoothed.extend((len - half..len).map(|t| window_mean(&profile[t - half..])));
}

/// Luma of a bright neighbour, as a share of the frame's bright level: as bright as a ball's
/// white or its lit grey (0.6 and 0.7 gave the same balls; 0.5 lost a shared ball).
const NEIGHBOUR_BRIGHT_SHARE: f32 = 0.6;
/// Share of the stretch between a ray's two outer edges that must be bright for them to be
/// the ball's outline and a neighbour's far edge.
const NEIGHBOUR_BRIGHT_STRETCH: f32 = 0.7;

/// Whether a ray's outermost edge is likely the far edge of a bright neighbour that merges
/// with the ball (a line behind it, a shoe or a bar over it): field lies beyond it, and the
/// stretch between it and the next edge inside is bright and not field. On such a ray either
/// edge may be the ball's outline, so neither gets the outermost edge's bonus in the RANSAC
/// score: the circle is then chosen by the rays that end in turf or shadow. (Turf or shadow
/// does not go on bright past a ball's edge; a neighbour as bright as the ball does.)
fn merged_with_neighbour(
    profile: &[(f32, f32, bool)],
    peaks: &[(f32, f32)],
    outermost: f32,
    span: usize,
    field_color: &FieldColor,
) -> bool {
    let inner = peaks
        .iter()
        .map(|peak| peak.1)
        .filter(|&t| t < outermost)
        .fold(f32::NAN, f32::max);
    let field_beyond = profile
        .get(outermost as usize + span + 1)
        .is_some_and(|sample| sample.2);
    if !inner.is_finite() || !field_beyond {
        return false;
    }
    // Between the two edges, clear of the edge operator's reach on either side.
    let from = inner.round() as usize + span + 1;
    let to = (outermost.round() as usize)
        .saturating_sub(span + 1)
        .min(profile.len().saturating_sub(1));
    if to <= from {
        return false;
    }
    let stretch = &profile[from..=to];
    let bright = stretch
        .iter()
        .filter(|&&(luma, _, field)| {
            !field && luma >= NEIGHBOUR_BRIGHT_SHARE * field_color.bright_luma
        })
        .count();
    bright as f32 >= NEIGHBOUR_BRIGHT_STRETCH * stretch.len() as f32
}

/// Samples on the ring [`field_noise`] reads.
const NOISE_SAMPLES: usize = 96;

/// The directions of [`field_noise`]'s samples, computed once per process.
fn noise_directions() -> &'static [(f32, f32); NOISE_SAMPLES] {
    static DIRECTIONS: OnceLock<[(f32, f32); NOISE_SAMPLES]> = OnceLock::new();
    DIRECTIONS.get_or_init(directions::<NOISE_SAMPLES>)
}

/// The sensor noise around a spot, in the edge strength's units: the median luma step plus
/// twice the median saturation step (the edge strength's weights) between a field pixel and
/// its neighbours two pixels right (its own chroma) and one below, on rings 2.5–3.5 radii
/// around the guess (beyond a ball, its shadow and a line touching it). Turf has little
/// texture at that scale, so the steps are mostly noise. 0 when fewer than a quarter of the
/// samples are field.
fn field_noise(
    image: &YuyvImage,
    field_color: &FieldColor,
    cache: &mut ChromaCache,
    (x, y, radius): (f32, f32, f32),
) -> f32 {
    let mut luma_steps = Vec::with_capacity(2 * NOISE_SAMPLES);
    let mut saturation_steps = Vec::with_capacity(2 * NOISE_SAMPLES);
    for (sample, &(cos, sin)) in noise_directions().iter().enumerate() {
        let distance = 2.5 * radius * (1.0 + 0.2 * (sample % 3) as f32);
        let (px, py) = (x + cos * distance, y + sin * distance);
        if px < 0.0 || py < 0.0 {
            continue;
        }
        let (px, py) = (px as usize, py as usize);
        if px + 2 >= image.width() || py + 1 >= image.height() {
            continue;
        }
        let (luma, cb, cr) = image.ycbcr(px, py);
        let (saturation, field) = cache.get(field_color, luma, cb, cr);
        if !field {
            continue;
        }
        // Chroma is shared by a pixel pair: the neighbour two pixels on has its own.
        for (nx, ny) in [(px + 2, py), (px, py + 1)] {
            let (other_luma, other_cb, other_cr) = image.ycbcr(nx, ny);
            let (other_saturation, _) = cache.get(field_color, other_luma, other_cb, other_cr);
            luma_steps.push((f32::from(luma) - f32::from(other_luma)).abs());
            saturation_steps.push((saturation - other_saturation).abs());
        }
    }
    if luma_steps.len() < NOISE_SAMPLES / 2 {
        return 0.0;
    }
    let middle = luma_steps.len() / 2;
    let luma = *luma_steps.select_nth_unstable_by(middle, f32::total_cmp).1;
    let saturation = *saturation_steps
        .select_nth_unstable_by(middle, f32::total_cmp)
        .1;
    luma + 2.0 * saturation
}

/// Whether an edge found on rays cast for a ball of about `radius` looks like a line's far
/// edge: on an upward ray, with white beside it ([`line_beside`]).
fn is_line_edge(
    image: &YuyvImage,
    field_color: &FieldColor,
    cache: &mut ChromaCache,
    point: &EdgePoint,
    radius: f32,
) -> bool {
    let (dx, dy) = ray_directions()[point.ray];
    dy < -0.5
        && line_beside(
            image,
            field_color,
            cache,
            (point.x, point.y),
            (dx, dy),
            radius,
        )
}

/// White (bright, colourless, not field) at one radius along the tangent on both sides of an
/// edge, 0.1–0.5 r inside it.
fn line_beside(
    image: &YuyvImage,
    field_color: &FieldColor,
    cache: &mut ChromaCache,
    (ex, ey): (f32, f32),
    (dx, dy): (f32, f32),
    radius: f32,
) -> bool {
    let mut white = |px: f32, py: f32| {
        sample(image, field_color, cache, px, py).is_some_and(|(luma, saturation, field)| {
            !field && luma >= 0.7 * field_color.bright_luma && saturation < 10.0 + 0.3 * luma
        })
    };
    [1.0f32, -1.0].into_iter().all(|side| {
        (1..=5).any(|step| {
            let depth = 0.1 * step as f32 * radius;
            white(
                ex - dy * side * radius - dx * depth,
                ey + dx * side * radius - dy * depth,
            )
        })
    })
}

/// Dark, colourless and not field: a black patch of the ball or its shadow.
fn is_shadow(field_color: &FieldColor, &(luma, saturation, field): &(f32, f32, bool)) -> bool {
    !field && luma < field_color.dark_luma() && saturation < 10.0 + 0.3 * luma
}

/// A ray reaches the ball's shadow only if it points down by at least this much (sine of the
/// angle below the horizontal, 0.3 ≈ 17°): sideways and up, a dark neighbour is something
/// else (a robot's leg, a goal post), not a shadow the ball casts.
const SHADOW_RAY_MIN_DOWN: f32 = 0.3;

/// While the edge strength stays above this share of the peak's, the ramp goes on.
const RAMP_SHARE: f32 = 1.0 / 3.0;

/// How far (in samples) the outline lies beyond the strongest point of its edge.
///
/// A sharp outline makes a peak as wide as the edge operator (the strength stays up for
/// `span` samples either side of the step). A ball's shaded underside, blurred when it rolls,
/// falls off into its own shadow in a ramp that is strongest where the light turns away,
/// well inside the ball (10–15 px on a 40 px ball in the real frames). The outline is where
/// the ramp ends on the outside, less the operator's own reach: the step of a sharp edge
/// stays where its peak is, a ramp's edge moves out to its foot (at most `max_samples`).
fn ramp_foot(
    strength: &impl Fn(usize) -> f32,
    (peak, peak_strength): (usize, f32),
    span: usize,
    len: usize,
    max_samples: f32,
) -> f32 {
    let mut foot = peak;
    while foot + 1 < len && ((foot + 1 - peak) as f32) <= max_samples + span as f32 {
        if strength(foot + 1) < RAMP_SHARE * peak_strength {
            break;
        }
        foot += 1;
    }
    ((foot - peak).saturating_sub(span) as f32).min(max_samples)
}

fn circle_through(a: &EdgePoint, b: &EdgePoint, c: &EdgePoint) -> Option<(f32, f32, f32)> {
    let determinant = 2.0 * (a.x * (b.y - c.y) + b.x * (c.y - a.y) + c.x * (a.y - b.y));
    if determinant.abs() < 1e-3 {
        return None;
    }
    let (a2, b2, c2) = (
        a.x * a.x + a.y * a.y,
        b.x * b.x + b.y * b.y,
        c.x * c.x + c.y * c.y,
    );
    let x = (a2 * (b.y - c.y) + b2 * (c.y - a.y) + c2 * (a.y - b.y)) / determinant;
    let y = (a2 * (c.x - b.x) + b2 * (a.x - c.x) + c2 * (b.x - a.x)) / determinant;
    Some((x, y, ((a.x - x).powi(2) + (a.y - y).powi(2)).sqrt()))
}

/// Least-squares circle (Kåsa): minimises Σ (x² + y² + D x + E y + F)².
fn fit_circle(points: &[&EdgePoint]) -> Option<(f32, f32, f32)> {
    let count = points.len() as f64;
    if count < 3.0 {
        return None;
    }
    let (mean_x, mean_y) = (
        points.iter().map(|p| f64::from(p.x)).sum::<f64>() / count,
        points.iter().map(|p| f64::from(p.y)).sum::<f64>() / count,
    );
    let (mut suu, mut svv, mut suv, mut suuu, mut svvv, mut suvv, mut svuu) =
        (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    for point in points {
        let (u, v) = (f64::from(point.x) - mean_x, f64::from(point.y) - mean_y);
        suu += u * u;
        svv += v * v;
        suv += u * v;
        suuu += u * u * u;
        svvv += v * v * v;
        suvv += u * v * v;
        svuu += v * u * u;
    }
    let determinant = suu * svv - suv * suv;
    if determinant.abs() < 1e-9 {
        return None;
    }
    let right_u = 0.5 * (suuu + suvv);
    let right_v = 0.5 * (svvv + svuu);
    let center_u = (right_u * svv - right_v * suv) / determinant;
    let center_v = (suu * right_v - suv * right_u) / determinant;
    let radius = (center_u * center_u + center_v * center_v + (suu + svv) / count).sqrt();
    Some((
        (center_u + mean_x) as f32,
        (center_v + mean_y) as f32,
        radius as f32,
    ))
}

fn inliers(points: &[EdgePoint], (x, y, radius): (f32, f32, f32)) -> Vec<&EdgePoint> {
    let tolerance = 1.5 + 0.06 * radius;
    let mut best_per_ray: Vec<Option<(&EdgePoint, f32)>> = (0..RAYS).map(|_| None).collect();
    for point in points {
        let error = (((point.x - x).powi(2) + (point.y - y).powi(2)).sqrt() - radius).abs();
        if error <= tolerance && best_per_ray[point.ray].is_none_or(|(_, best)| error < best) {
            best_per_ray[point.ray] = Some((point, error));
        }
    }
    best_per_ray
        .into_iter()
        .flatten()
        .map(|(point, _)| point)
        .collect()
}

/// The RANSAC score of a circle: per ray its closest edge within the tolerance counts 1, half
/// again if it is the ray's outermost edge, once more if field lies beyond it. (The same
/// choice as [`inliers`], without collecting the points.) `xs` and `ys` are the points'
/// coordinates, `squared` room for their squared distances from the centre.
fn support_score(
    points: &[EdgePoint],
    (xs, ys, squared): (&[f32], &[f32], &mut [f32]),
    (x, y, radius): (f32, f32, f32),
) -> f32 {
    let tolerance = 1.5 + 0.06 * radius;
    // Points far off the ring are passed over without the square root: the band is widened a
    // little so that every point the exact test below could keep reaches it. The squared
    // distances are taken in one pass over plain arrays, which the compiler vectorises.
    let inner = (radius - tolerance).max(0.0) * 0.999;
    let outer = (radius + tolerance) * 1.001;
    let (inner_squared, outer_squared) = (inner * inner, outer * outer);
    for ((distance, &px), &py) in squared.iter_mut().zip(xs).zip(ys) {
        *distance = (px - x).powi(2) + (py - y).powi(2);
    }
    let mut best = [(f32::INFINITY, 0.0f32); RAYS];
    for (point, &distance) in points.iter().zip(squared.iter()) {
        if distance < inner_squared || distance > outer_squared {
            continue;
        }
        let error = (distance.sqrt() - radius).abs();
        if error <= tolerance && error < best[point.ray].0 {
            let weight = if point.dark_outside { 0.5 } else { 1.0 }
                + if point.outermost { 1.0 } else { 0.0 }
                + if point.field_outside { 1.0 } else { 0.0 };
            best[point.ray] = (error, weight);
        }
    }
    best.iter().map(|(_, weight)| weight).sum()
}

/// The `count` best circles (RANSAC score) near `around` that are not the same circle; each
/// refined by least squares on its inliers, with its share of supporting rays.
fn best_circles(
    points: &[EdgePoint],
    rays_inside: usize,
    around: (f32, f32, f32),
    count: usize,
    iterations: usize,
) -> Vec<((f32, f32, f32), f32)> {
    let (min_radius, max_radius) = (0.5 * around.2, 1.8 * around.2);
    let max_shift = 0.8 * around.2;
    let mut random = 0x2545_f491_u32;
    let mut next = || {
        random ^= random << 13;
        random ^= random >> 17;
        random ^= random << 5;
        random as usize % points.len()
    };
    let xs: Vec<f32> = points.iter().map(|point| point.x).collect();
    let ys: Vec<f32> = points.iter().map(|point| point.y).collect();
    let mut squared = vec![0.0f32; points.len()];
    let mut scored: Vec<((f32, f32, f32), f32)> = Vec::new();
    for _ in 0..iterations {
        let (a, b, c) = (&points[next()], &points[next()], &points[next()]);
        if a.ray == b.ray || b.ray == c.ray || a.ray == c.ray {
            continue;
        }
        let Some(circle) = circle_through(a, b, c) else {
            continue;
        };
        let shift = ((circle.0 - around.0).powi(2) + (circle.1 - around.1).powi(2)).sqrt();
        if circle.2 < min_radius || circle.2 > max_radius || shift > max_shift {
            continue;
        }
        scored.push((
            circle,
            support_score(points, (&xs, &ys, &mut squared), circle),
        ));
    }
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut chosen: Vec<((f32, f32, f32), f32)> = Vec::new();
    for (circle, _) in scored {
        let same = chosen.iter().any(|(other, _)| {
            let shift = ((circle.0 - other.0).powi(2) + (circle.1 - other.1).powi(2)).sqrt();
            shift < 0.25 * other.2 && (circle.2 - other.2).abs() < 0.25 * other.2
        });
        if same {
            continue;
        }
        let supporting = inliers(points, circle);
        let fitted = fit_circle(&supporting).unwrap_or(circle);
        // A circle mostly outside the image cannot show enough outline to be trusted: the
        // share counts at least three quarters of all rays.
        let rays = rays_inside.max(RAYS * 3 / 4);
        chosen.push((fitted, supporting.len() as f32 / rays as f32));
        if chosen.len() == count {
            break;
        }
    }
    chosen
}

/// Refines a circle given in full-resolution pixels into up to [`HYPOTHESES`] contours: the
/// best distinct circles of a first fit around the guess, each fitted again with rays cast
/// from it. The classifier decides which (if any) is the ball: a ball touching a line or
/// post offers a circle on the line's edge too.
pub fn refine(
    image: &YuyvImage,
    field_color: &FieldColor,
    cache: &mut ChromaCache,
    guess: (f32, f32, f32),
) -> Vec<BallContour> {
    let base = MIN_EDGE_STRENGTH * field_color.bright_luma;
    let noisy = NOISE_FACTOR * field_noise(image, field_color, cache, guess);
    let (min_strength, smoothing) = if noisy > base { (noisy, 2) } else { (base, 1) };
    let threshold = (min_strength, smoothing, noisy > ACROSS_NOISE_SHARE * base);
    let (points, rays_inside) = edge_points(image, field_color, cache, guess, threshold, true);
    if points.len() < 3 || rays_inside == 0 {
        return Vec::new();
    }
    let mut contours: Vec<BallContour> = Vec::new();
    let mut hypotheses: Vec<((f32, f32, f32), bool)> =
        best_circles(&points, rays_inside, guess, HYPOTHESES, RANSAC_ITERATIONS)
            .into_iter()
            .map(|(circle, _)| (circle, false))
            .collect();
    if points.iter().any(|point| point.line) {
        let kept: Vec<EdgePoint> = points.into_iter().filter(|point| !point.line).collect();
        if kept.len() >= 3 {
            hypotheses.extend(
                best_circles(&kept, rays_inside, guess, 1, RANSAC_ITERATIONS)
                    .into_iter()
                    .map(|(circle, _)| (circle, true)),
            );
        }
    }
    for (first, without_lines) in hypotheses {
        // Rays cast again from the hypothesis see its outline square on; its inliers among
        // the new edges give the final least-squares circle. Line edges count less in its
        // edge support: on a hypothesis fitted without them every edge is flagged (they are
        // left out again), on the others only the supporting edges, which are the only ones
        // that count (the same test as flagging every edge).
        let (mut points, rays_inside) =
            edge_points(image, field_color, cache, first, threshold, without_lines);
        if without_lines {
            points.retain(|point| !point.line);
        }
        if points.len() < 3 || rays_inside == 0 {
            continue;
        }
        let Some(&((x, y, radius), _)) =
            best_circles(&points, rays_inside, first, 1, SECOND_PASS_ITERATIONS).first()
        else {
            continue;
        };
        let supporting = inliers(&points, (x, y, radius));
        let rays = rays_inside.max(RAYS * 3 / 4);
        let squared_error = supporting
            .iter()
            .map(|point| (((point.x - x).powi(2) + (point.y - y).powi(2)).sqrt() - radius).powi(2))
            .sum::<f32>()
            / supporting.len().max(1) as f32;
        contours.push(BallContour {
            x,
            y,
            radius,
            edge_support: (supporting
                .iter()
                .map(|point| {
                    let line = point.line
                        || (!without_lines
                            && is_line_edge(image, field_color, cache, point, first.2));
                    if line {
                        LINE_EDGE_WEIGHT
                    } else {
                        1.0
                    }
                })
                .sum::<f32>()
                / rays as f32)
                .min(1.0),
            fit_error: squared_error.sqrt() / radius,
        });
    }
    contours
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables hold bit for bit what computing each direction where it is used gives
    /// (`black_box`: the angle as a runtime value, as it is in the loops, not folded at compile
    /// time).
    #[test]
    fn the_direction_tables_are_the_directions_computed_in_place() {
        fn check<const COUNT: usize>(table: &[(f32, f32); COUNT]) {
            for (index, &(cos, sin)) in table.iter().enumerate() {
                let angle =
                    std::hint::black_box(index) as f32 / COUNT as f32 * std::f32::consts::TAU;
                let angle = std::hint::black_box(angle);
                assert_eq!(
                    cos.to_bits(),
                    angle.cos().to_bits(),
                    "cos of direction {index}"
                );
                assert_eq!(
                    sin.to_bits(),
                    angle.sin().to_bits(),
                    "sin of direction {index}"
                );
            }
        }
        check(ray_directions());
        check(noise_directions());
    }

    /// The pixel is the one converting the coordinates to `usize` directly gives, and None
    /// exactly outside the image, on and around its borders.
    #[test]
    fn the_pixel_of_a_point_is_the_direct_conversion() {
        let image = YuyvImage::new(640, 480, vec![0; 640 * 480 * 2]).expect("a VGA frame");
        for step in 0..=(660 * 4) {
            let coordinate = step as f32 * 0.25 - 10.0;
            for (x, y) in [
                (coordinate, 10.0),
                (10.0, coordinate),
                (coordinate, coordinate),
            ] {
                let (shifted_x, shifted_y) = (x + 0.5, y + 0.5);
                let inside =
                    shifted_x >= 0.0 && shifted_y >= 0.0 && shifted_x < 640.0 && shifted_y < 480.0;
                let expected = inside.then_some((shifted_x as usize, shifted_y as usize));
                assert_eq!(pixel_at(&image, x, y), expected, "({x}, {y})");
            }
        }
    }

    /// The fixed-width smoothing gives bit for bit the windowed means of the general one, on
    /// profiles shorter and longer than a window.
    #[test]
    fn the_fixed_width_smoothing_is_the_general_one() {
        let mut state = 0x1234_5678_u32;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (state % 25_600) as f32 / 100.0
        };
        for len in 0..16 {
            let profile: Vec<(f32, f32, bool)> =
                (0..len).map(|_| (next(), next(), false)).collect();
            let (mut fixed, mut general) = (Vec::new(), Vec::new());
            smooth::<3>(&profile, &mut fixed);
            smooth_any(&profile, 1, &mut general);
            assert_eq!(fixed.len(), len);
            let bits = |means: &[(f32, f32)]| -> Vec<(u32, u32)> {
                means
                    .iter()
                    .map(|m| (m.0.to_bits(), m.1.to_bits()))
                    .collect()
            };
            assert_eq!(bits(&fixed), bits(&general), "3 wide, {len} samples");
            smooth::<5>(&profile, &mut fixed);
            smooth_any(&profile, 2, &mut general);
            assert_eq!(fixed.len(), len);
            assert_eq!(bits(&fixed), bits(&general), "5 wide, {len} samples");
        }
    }
}
