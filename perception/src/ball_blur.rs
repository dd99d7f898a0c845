//! `BallBlur`: the motion blur of a rolling ball, estimated around a candidate circle.
//!
//! Over the exposure a rolling ball sweeps its disc along a segment: the image shows a streak,
//! a disc of radius r convolved with a segment of length 2h along the roll's direction d.
//! Pixels near the streak's ends are covered by the ball for only part of the exposure and mix
//! turf into its colour. The streak's second moments tell d and h: the disc's part is the same
//! in every direction (r²/4), the segment adds h²/3 along d only, so
//!
//! ```text
//!   h = √(3 · (λ_major − λ_minor))      (λ: eigenvalues of the blob's covariance)
//! ```
//!
//! The streak's weight at a pixel is the share of the exposure the ball covered it, which the
//! pixel's colour tells: a mix of the ball (colourless, white and black) and the turf, its
//! saturation the turf's times the share of turf. The moments are taken about the streak's
//! centre (the circle's row, the upper half's mean column) over the upper half of the window
//! only: a streak is symmetric about its centre, and
//! below the ball lie its shadow and the turf's tint on its underside, both as colourless as
//! the ball (the shadow would stretch every ball downwards). [`BallBlur::coverage`] then says
//! for how much of the exposure the ball
//! covers a point: the classifier's "fills its circle" feature counts field only where the
//! ball covered the rim all the time.

/// The blur of one candidate: its direction (a unit vector) and the half-length of the
/// segment the ball's centre swept, in pixels (0: sharp).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BallBlur {
    pub direction: (f32, f32),
    pub half_length: f32,
    /// The saturation of the turf around the ball (what a sample's saturation is compared
    /// with to tell how much of the ball it holds; 0 when not measured).
    pub turf_saturation: f32,
}

/// How much a sample `dy` pixels below the centre counts in the upper half's moments: 1 above
/// the centre, 0 below, and half on the centre's own row, half of whose cell lies in the upper
/// half. (Left out, the row makes a sharp disc's moments read as a blur down the image: on a
/// grid of r/8, 0.25 r; counted in full, as a blur along the row, 0.3 r.) The window's rows are
/// laid out from its top in float steps, so the centre row lies a rounding error above or below
/// 0: it counted in full or not at all by that error's sign until it was named here
/// (`docs/performance.md`, seventeenth round).
fn upper_half(dy: f32) -> f32 {
    if dy < -CENTRE_ROW_TOLERANCE_PX {
        1.0
    } else if dy <= CENTRE_ROW_TOLERANCE_PX {
        0.5
    } else {
        0.0
    }
}

/// How far from 0 a row may lie and still be the centre's (rounding errors are far smaller,
/// the rows far farther apart).
const CENTRE_ROW_TOLERANCE_PX: f32 = 1e-3;

/// The streak needs this much weight (samples fully covered) for its moments to mean anything.
const MIN_BLOB_WEIGHT: f32 = 12.0;

impl BallBlur {
    /// The blur of the streak whose samples these are: (dx, dy) from the circle's centre and
    /// the share of the exposure the ball covered the sample (0–1). Sharp when the samples
    /// weigh too little; the half-length is capped at `max_half_length` (a line or a robot
    /// beside the ball stretches the blob further than any roll).
    pub fn from_samples(samples: &[(f32, f32, f32)], max_half_length: f32) -> Self {
        // The centre's column: the upper half's own mean. A circle off the streak's centre
        // along the row would otherwise tilt the upper half's moments. (Exact for a roll
        // across the view or toward the camera; a diagonal streak's upper half leans to one
        // side, and its length is underestimated. The mean of all samples, the lower half's
        // shadow included, found 2 fewer rolling balls: `docs/performance.md`, fourteenth
        // round.)
        let (mut weight, mut sum_x) = (0.0f32, 0.0f32);
        for &(dx, dy, w) in samples {
            let w = w * upper_half(dy);
            weight += w;
            sum_x += w * dx;
        }
        if weight < MIN_BLOB_WEIGHT {
            return Self::default();
        }
        let center_x = sum_x / weight;
        let (mut upper, mut xx, mut yy, mut xy) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
        for &(dx, dy, w) in samples {
            let w = w * upper_half(dy);
            let dx = dx - center_x;
            upper += w;
            xx += w * dx * dx;
            yy += w * dy * dy;
            xy += w * dx * dy;
        }
        let (xx, yy, xy) = (xx / upper, yy / upper, xy / upper);
        // Eigenvalues of [[xx, xy], [xy, yy]].
        let half_trace = 0.5 * (xx + yy);
        let root = (0.25 * (xx - yy).powi(2) + xy * xy).sqrt();
        let (major, minor) = (half_trace + root, half_trace - root);
        let angle = 0.5 * (2.0 * xy).atan2(xx - yy);
        Self {
            direction: (angle.cos(), angle.sin()),
            half_length: (3.0 * (major - minor).max(0.0)).sqrt().min(max_half_length),
            turf_saturation: 0.0,
        }
    }

    /// The share of the exposure during which a ball of `radius` covers the point (dx, dy)
    /// from the streak's centre.
    pub fn coverage(&self, (dx, dy): (f32, f32), radius: f32) -> f32 {
        let along = dx * self.direction.0 + dy * self.direction.1;
        let across_squared = (dx * dx + dy * dy - along * along).max(0.0);
        if across_squared >= radius * radius {
            return 0.0;
        }
        // The ball's centre t along the segment [−h, h] covers the point while
        // |t − along| ≤ reach.
        let reach = (radius * radius - across_squared).sqrt();
        let h = self.half_length;
        if h <= f32::EPSILON {
            return if along.abs() <= reach { 1.0 } else { 0.0 };
        }
        let covered = ((along + reach).min(h) - (along - reach).max(-h)).max(0.0);
        covered / (2.0 * h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The moments of a streak drawn on a grid: a disc of `radius` swept ±`half_length` along
    /// the direction `angle`.
    fn streak(radius: f32, half_length: f32, angle: f32) -> Vec<(f32, f32, f32)> {
        let blur = BallBlur {
            direction: (angle.cos(), angle.sin()),
            half_length,
            ..BallBlur::default()
        };
        let mut samples = Vec::new();
        let reach = (radius + half_length + 2.0) as i32;
        for y in -reach..=reach {
            for x in -reach..=reach {
                // The circle 3 px off the streak's centre along the row, and a shadow below it
                // that the estimate must ignore.
                let shadow = if y > radius as i32 && x.abs() < radius as i32 {
                    1.0
                } else {
                    0.0
                };
                let coverage = blur.coverage((x as f32, y as f32), radius);
                samples.push(((x + 3) as f32, y as f32, coverage.max(shadow)));
            }
        }
        samples
    }

    #[test]
    fn a_streaks_moments_give_its_direction_and_length() {
        // Across the view and toward the camera: the length within 10 %.
        let quarter_turn = std::f32::consts::FRAC_PI_2;
        for (half_length, angle) in [(8.0f32, 0.0f32), (12.0, 0.0), (10.0, quarter_turn)] {
            let blur = BallBlur::from_samples(&streak(20.0, half_length, angle), 100.0);
            assert!(
                (blur.half_length - half_length).abs() < 0.1 * half_length + 1.0,
                "{half_length} at {angle}: {blur:?}"
            );
            let alignment = (blur.direction.0 * angle.cos() + blur.direction.1 * angle.sin()).abs();
            assert!(alignment > 0.99, "{angle}: {blur:?}");
        }
        // A diagonal streak: the direction within 15°, its length underestimated (the upper
        // half's mean column leans toward its upper end), but not by half.
        for (half_length, angle) in [(12.0f32, 0.6f32), (10.0, -1.2)] {
            let blur = BallBlur::from_samples(&streak(20.0, half_length, angle), 100.0);
            assert!(
                blur.half_length <= half_length + 1.0 && blur.half_length > 0.5 * half_length,
                "{half_length} at {angle}: {blur:?}"
            );
            let alignment = (blur.direction.0 * angle.cos() + blur.direction.1 * angle.sin()).abs();
            assert!(alignment > 0.965, "{angle}: {blur:?}");
        }
        // A sharp disc has no blur to speak of; the cap holds.
        let sharp = BallBlur::from_samples(&streak(20.0, 0.0, 0.0), 100.0);
        assert!(sharp.half_length < 4.0, "{sharp:?}");
        let capped = BallBlur::from_samples(&streak(20.0, 30.0, 0.0), 10.0);
        assert_eq!(capped.half_length, 10.0);
        // Too few samples: sharp.
        let few: Vec<(f32, f32, f32)> = (0..5).map(|x| (x as f32 * 10.0, -1.0, 1.0)).collect();
        assert_eq!(BallBlur::from_samples(&few, 100.0), BallBlur::default());
    }

    /// A streak's coverage sampled as the classifier's window does, rows and columns every r/8
    /// from −1.5 r, with the centre row `centre_row_error` off 0 (the window lays its rows out
    /// by adding the step, which puts the centre row a rounding error above or below 0).
    fn window_grid(radius: f32, half_length: f32, centre_row_error: f32) -> Vec<(f32, f32, f32)> {
        let blur = BallBlur {
            direction: (1.0, 0.0),
            half_length,
            ..BallBlur::default()
        };
        let step = radius / 8.0;
        let mut samples = Vec::new();
        for row in 0..=24 {
            let dy = (row as f32 - 12.0) * step + if row == 12 { centre_row_error } else { 0.0 };
            for column in 0..=24 {
                let dx = (column as f32 - 12.0) * step;
                // (The disc a hair smaller than the grid's radius: the points exactly one
                // radius out along a row and down a column would fall on either side of its
                // edge by rounding.)
                samples.push((dx, dy, blur.coverage((dx, dy), 0.999 * radius)));
            }
        }
        samples
    }

    #[test]
    fn on_the_windows_grid_a_sharp_disc_has_no_blur_and_a_streak_its_own() {
        // The centre row counts half, whichever side of 0 rounding puts it: left out, a sharp
        // disc read as a blur of a quarter radius down the image; counted in full, 0.3 radii
        // along the row; and which of the two by the rounding error's sign.
        for radius in [10.0f32, 17.3, 24.0, 33.7] {
            for error in [0.0f32, -1e-5, 1e-5] {
                let sharp = BallBlur::from_samples(&window_grid(radius, 0.0, error), radius);
                assert!(
                    sharp.half_length < 0.05 * radius,
                    "{radius}, {error}: {sharp:?}"
                );
                let rolling =
                    BallBlur::from_samples(&window_grid(radius, 0.4 * radius, error), radius);
                assert!(
                    (rolling.half_length - 0.4 * radius).abs() < 0.06 * radius,
                    "{radius}, {error}: {rolling:?}"
                );
                assert!(rolling.direction.0.abs() > 0.99, "{radius}: {rolling:?}");
            }
        }
    }

    #[test]
    fn the_ends_of_a_streak_are_covered_part_of_the_time() {
        let blur = BallBlur {
            direction: (1.0, 0.0),
            half_length: 6.0,
            ..BallBlur::default()
        };
        // The centre and a point across the roll, inside the disc: always covered.
        assert_eq!(blur.coverage((0.0, 0.0), 20.0), 1.0);
        assert_eq!(blur.coverage((0.0, 18.0), 20.0), 1.0);
        // At 0.9 r along the roll, covered while the centre is within 20 px: 2/3 of the time.
        let end = blur.coverage((18.0, 0.0), 20.0);
        assert!((end - 2.0 / 3.0).abs() < 1e-4, "{end}");
        // Beyond the streak: never.
        assert_eq!(blur.coverage((27.0, 0.0), 20.0), 0.0);
        assert_eq!(blur.coverage((0.0, 21.0), 20.0), 0.0);
        // Without blur, the disc.
        let sharp = BallBlur::default();
        assert_eq!(sharp.coverage((14.0, 14.0), 20.0), 1.0);
        assert_eq!(sharp.coverage((15.0, 15.0), 20.0), 0.0);
    }
}
