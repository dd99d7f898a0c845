//! `BallStreak`: the circle of a ball blurred by its roll, placed at the streak's centre.
//!
//! The contour's RANSAC fits a circle of about the ball's radius to a streak, but the streak's
//! upper and lower edges support a circle anywhere along it, and its ends are ramps of turf
//! mixed with ball whose outermost edge the contour prefers: a ball rolling at 4 m/s across
//! the view is found 6–12 px toward one end. Along the roll, the share of the exposure the
//! ball covers a point ([`BallBlur::coverage`]) falls through one half exactly one radius from
//! the centre, whatever the blur (for a blur shorter than the ball):
//!
//! ```text
//!   coverage along the roll   1 ┤      ┌──────┐
//!                           0.5 ┤─ ─ ─/─ ─ ─ ─ \─ ─ ─     crossings at centre ± r
//!                             0 ┤────/          \────
//! ```
//!
//! so the two crossings of one half along the roll give the ball's centre and radius. The
//! coverage of a pixel is read from its colour, as for the blur itself: one less its
//! saturation over the turf's. The profile is averaged over a few lines just above the
//! roll's axis (below it lies the ball's shadow, as colourless as the ball).

use crate::ball_blur::BallBlur;
use crate::ball_contour::BallContour;
use crate::color_classes::ChromaCache;
use crate::field_color::FieldColor;
use cortex_image::YuyvImage;

/// Offsets of the profile's lines from the roll's axis, in radii, on the side away from the
/// ground (at 0.2 r the crossings lie at 0.98 r).
const PROFILE_LINES: [f32; 3] = [0.0, 0.1, 0.2];

/// The circle at the centre of the streak the contour lies on, with the radius the two
/// crossings give; None when the profile does not fall through one half on both sides within
/// the streak's reach (no turf there: the ball against a line, a robot or the frame's edge).
pub fn recentre(
    image: &YuyvImage,
    field_color: &FieldColor,
    cache: &mut ChromaCache,
    contour: &BallContour,
    blur: &BallBlur,
) -> Option<BallContour> {
    if blur.turf_saturation <= f32::EPSILON {
        return None;
    }
    let (along_x, along_y) = blur.direction;
    // The normal pointing up in the image (away from the shadow).
    let (normal_x, normal_y) = if along_x >= 0.0 {
        (along_y, -along_x)
    } else {
        (-along_y, along_x)
    };
    let (width, height) = (image.width() as f32, image.height() as f32);
    let mut coverage_at = |t: f32| -> Option<f32> {
        let mut sum = 0.0;
        for offset in PROFILE_LINES {
            let across = offset * contour.radius;
            let x = contour.x + along_x * t + normal_x * across;
            let y = contour.y + along_y * t + normal_y * across;
            if x < 0.0 || y < 0.0 || x >= width - 0.5 || y >= height - 0.5 {
                return None;
            }
            let (luma, cb, cr) = image.ycbcr((x + 0.5) as usize, (y + 0.5) as usize);
            let (saturation, _) = cache.get(field_color, luma, cb, cr);
            sum += (1.0 - saturation / blur.turf_saturation).clamp(0.0, 1.0);
        }
        Some(sum / PROFILE_LINES.len() as f32)
    };
    let reach = contour.radius + 2.0 * blur.half_length + 2.0;
    // From the centre outward on each side, the first fall through one half (interpolated
    // between the two samples around it).
    let mut crossing = |side: f32| -> Option<f32> {
        let mut previous = coverage_at(0.0)?;
        let mut t = 1.0;
        while t <= reach {
            let here = coverage_at(side * t)?;
            if here < 0.5 && previous >= 0.5 {
                return Some(side * (t - 1.0 + (previous - 0.5) / (previous - here)));
            }
            previous = here;
            t += 1.0;
        }
        None
    };
    let (ahead, behind) = (crossing(1.0)?, crossing(-1.0)?);
    let middle = 0.5 * (ahead + behind);
    Some(BallContour {
        x: contour.x + along_x * middle,
        y: contour.y + along_y * middle,
        radius: 0.5 * (ahead - behind),
        ..*contour
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_scenes::{painted_streak, turf_saturation};

    /// Turf with a white ball of `radius` at `centre` smeared ±`half_length` along the row, as
    /// the simulated camera renders a roll.
    fn streak(centre: (f32, f32), radius: f32, half_length: f32) -> (YuyvImage, FieldColor) {
        painted_streak(centre, radius, (1.0, 0.0), half_length, false)
    }

    #[test]
    fn a_circle_toward_one_end_of_a_streak_moves_to_its_centre() {
        let (image, field_color) = streak((160.0, 120.0), 20.0, 12.0);
        let blur = BallBlur {
            direction: (1.0, 0.0),
            half_length: 12.0,
            turf_saturation: turf_saturation(&image, &field_color),
        };
        let mut cache = ChromaCache::default();
        // What the contour finds: a circle through one end's outer ramp.
        for (offset, radius) in [(9.0f32, 22.0f32), (-7.0, 21.0), (0.0, 20.0)] {
            let contour = BallContour {
                x: 160.0 + offset,
                y: 120.0,
                radius,
                edge_support: 0.8,
                fit_error: 0.05,
            };
            let placed = recentre(&image, &field_color, &mut cache, &contour, &blur)
                .expect("a streak on turf");
            assert!(
                (placed.x - 160.0).abs() < 1.0 && (placed.y - 120.0).abs() < 1e-3,
                "{offset}: {placed:?}"
            );
            // The radius within 12 % (a mix's saturation is not quite linear in its share of
            // turf; the rendered rolling balls come out within 0.6 px).
            assert!((placed.radius - 20.0).abs() < 2.5, "{offset}: {placed:?}");
            assert_eq!(placed.edge_support, contour.edge_support);
        }
    }

    #[test]
    fn without_turf_around_it_a_streak_is_not_placed() {
        let (image, field_color) = streak((160.0, 120.0), 20.0, 12.0);
        let contour = BallContour {
            x: 165.0,
            y: 120.0,
            radius: 21.0,
            edge_support: 0.8,
            fit_error: 0.05,
        };
        let mut cache = ChromaCache::default();
        // The turf's saturation unknown: nothing to read coverage by.
        let unmeasured = BallBlur {
            direction: (1.0, 0.0),
            half_length: 12.0,
            turf_saturation: 0.0,
        };
        assert_eq!(
            recentre(&image, &field_color, &mut cache, &contour, &unmeasured),
            None
        );
        // A streak running out of the frame: one end is not in it.
        let (image, field_color) = streak((20.0, 120.0), 20.0, 12.0);
        let blur = BallBlur {
            turf_saturation: turf_saturation(&image, &field_color),
            ..unmeasured
        };
        let at_edge = BallContour { x: 25.0, ..contour };
        assert_eq!(
            recentre(&image, &field_color, &mut cache, &at_edge, &blur),
            None
        );
    }
}
