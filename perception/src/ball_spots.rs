//! `BallSpots`: places that might hold a ball, found by a search over position and scale on
//! the classified half-resolution image (B-Human's `BallSpots`; the scale search is what
//! rUNSWift's candidate generation does without a camera matrix).
//!
//! A ball is a disc of white with dark patches and hardly any field colour inside, and it is
//! not part of a larger white or dark area. With summed-area tables of the white, dark and
//! field pixels, each (centre, radius) hypothesis costs a few lookups:
//!
//! ```text
//!   ┌──────────────┐  ring: square of half side 1.5 r minus the one of half side 1.1 r;
//!   │   ┌──────┐   │        at most 60 % white and 90 % white + dark (dark around
//!   │   │      │   │        a ball is shadow or dark turf; white means a larger white area)
//!   │   │ ┌──┐ │   │  inner: square of half side 0.7 r, inside the disc;
//!   │   │ └──┘ │   │        white + dark ≥ 70 %, dark ≥ 4 %, white ≥ 25 %, field ≤ 20 %
//!   │   └──────┘   │
//!   └──────────────┘
//! ```
//!
//! Radii run from 4 to a quarter of the image height (half resolution) in steps of 15 %, and
//! the grid step is a third of the radius (at least 2; 1 under a radius of 5, where a grid
//! point one pixel off the centre of a small ball puts a column of field into its inner
//! square). Spots above the field boundary are left out before the best [`MAX_SPOTS`] are
//! kept ([`find_ball_spots_on_field`]).

use crate::color_classes::ColorClasses;
use crate::field_boundary::FieldBoundary;
use crate::field_color::PixelClass;

/// A place that might hold a ball, in half-resolution pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BallSpot {
    pub x: f32,
    pub y: f32,
    pub radius: f32,
    pub score: f32,
}

/// At most this many spots go on to the classifier (20: with balls of 8 camera pixels searched
/// at every pixel, 16 let small spots crowd larger balls out of cluttered frames).
pub const MAX_SPOTS: usize = 20;
const MIN_RADIUS: f32 = 4.0;
const SCALE_STEP: f32 = 1.15;
/// Radii under this are searched at every pixel (see `find_spots`).
const SMALL_RADIUS: f32 = 5.0;

/// A summed-area table with a zero row and column in front.
struct Integral {
    width: usize,
    sums: Vec<u32>,
}

impl Integral {
    fn new(classes: &ColorClasses, wanted: impl Fn(PixelClass) -> bool) -> Self {
        let width = classes.width + 1;
        let mut sums = vec![0u32; width * (classes.height + 1)];
        for y in 0..classes.height {
            let mut row_sum = 0;
            for x in 0..classes.width {
                row_sum += u32::from(wanted(classes.get(x, y)));
                sums[(y + 1) * width + x + 1] = sums[y * width + x + 1] + row_sum;
            }
        }
        Self { width, sums }
    }

    /// The count in [x0, x1) × [y0, y1).
    fn count(&self, x0: usize, y0: usize, x1: usize, y1: usize) -> u32 {
        let at = |x: usize, y: usize| self.sums[y * self.width + x];
        at(x1, y1) + at(x0, y0) - at(x1, y0) - at(x0, y1)
    }
}

/// A square of half side `half` around (x, y), clipped to the image: (x0, y0, x1, y1, area).
fn clipped_square(
    x: usize,
    y: usize,
    half: usize,
    width: usize,
    height: usize,
) -> (usize, usize, usize, usize, u32) {
    let x0 = x.saturating_sub(half);
    let y0 = y.saturating_sub(half);
    let x1 = (x + half + 1).min(width);
    let y1 = (y + half + 1).min(height);
    (x0, y0, x1, y1, ((x1 - x0) * (y1 - y0)) as u32)
}

/// Finds up to [`MAX_SPOTS`] spots, best first, none overlapping a better one.
pub fn find_ball_spots(classes: &ColorClasses) -> Vec<BallSpot> {
    find_spots(classes, None)
}

/// Like [`find_ball_spots`], but only spots a ball lying on the field could make: a spot whose
/// centre is more than half its radius above the field boundary is left out *before* the best
/// [`MAX_SPOTS`] are chosen (the ball perceptor would drop it anyway), so that clutter above
/// the field (walls, cables, people) cannot crowd a ball out.
pub fn find_ball_spots_on_field(
    classes: &ColorClasses,
    field_boundary: &FieldBoundary,
) -> Vec<BallSpot> {
    find_spots(classes, Some(field_boundary))
}

fn find_spots(classes: &ColorClasses, field_boundary: Option<&FieldBoundary>) -> Vec<BallSpot> {
    let below_boundary = |x: usize, y: usize, radius: f32| {
        field_boundary.is_none_or(|boundary| {
            // Full-resolution pixels, as the boundary's.
            let (x, y) = (2.0 * x as f32 + 0.5, 2.0 * y as f32 + 0.5);
            boundary
                .y_at(x)
                .is_none_or(|field_start| y >= field_start - radius)
        })
    };
    let ball_colored = Integral::new(classes, |class| {
        matches!(class, PixelClass::White | PixelClass::Dark)
    });
    let dark = Integral::new(classes, |class| class == PixelClass::Dark);
    let field = Integral::new(classes, |class| class == PixelClass::Field);
    let (width, height) = (classes.width, classes.height);
    let max_radius = height as f32 / 4.0;
    let mut spots = Vec::new();
    let mut radius = MIN_RADIUS;
    while radius <= max_radius {
        let inner_half = (0.7 * radius).round() as usize;
        let ring_inner_half = (1.1 * radius).round() as usize;
        let ring_outer_half = (1.5 * radius).round() as usize;
        // A grid point off the centre of a ball of 4 to 5 pixels (8 to 10 in the camera image:
        // 4 m away in the upper camera) by one pixel puts a column of field into its inner
        // square; the smallest scales are searched at every pixel.
        let step = if radius < SMALL_RADIUS {
            1
        } else {
            ((radius / 3.0).round() as usize).max(2)
        };
        for y in (inner_half..height.saturating_sub(inner_half)).step_by(step) {
            for x in (inner_half..width.saturating_sub(inner_half)).step_by(step) {
                if !below_boundary(x, y, radius) {
                    continue;
                }
                let (x0, y0, x1, y1, area) = clipped_square(x, y, inner_half, width, height);
                let area = area as f32;
                let ball_share = ball_colored.count(x0, y0, x1, y1) as f32 / area;
                if ball_share < 0.7 {
                    continue;
                }
                let dark_share = dark.count(x0, y0, x1, y1) as f32 / area;
                let white_share = ball_share - dark_share;
                let field_share = field.count(x0, y0, x1, y1) as f32 / area;
                if dark_share < 0.04 || white_share < 0.25 || field_share > 0.2 {
                    continue;
                }
                let outer = clipped_square(x, y, ring_outer_half, width, height);
                let inner = clipped_square(x, y, ring_inner_half, width, height);
                let ring_area = outer.4.saturating_sub(inner.4);
                if ring_area == 0 {
                    continue;
                }
                let ring_ball = ball_colored.count(outer.0, outer.1, outer.2, outer.3)
                    - ball_colored.count(inner.0, inner.1, inner.2, inner.3);
                let ring_ball_share = ring_ball as f32 / ring_area as f32;
                let ring_dark = dark.count(outer.0, outer.1, outer.2, outer.3)
                    - dark.count(inner.0, inner.1, inner.2, inner.3);
                let ring_white_share = (ring_ball - ring_dark) as f32 / ring_area as f32;
                if ring_ball_share > 0.9 || ring_white_share > 0.6 {
                    continue;
                }
                let score = ball_share + dark_share.min(0.3) + 0.5 * (1.0 - ring_ball_share);
                spots.push(BallSpot {
                    x: x as f32,
                    y: y as f32,
                    radius,
                    score,
                });
            }
        }
        radius *= SCALE_STEP;
    }
    suppress_overlapping(spots)
}

fn suppress_overlapping(mut spots: Vec<BallSpot>) -> Vec<BallSpot> {
    spots.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut kept: Vec<BallSpot> = Vec::new();
    for spot in spots {
        let overlaps = kept.iter().any(|better| {
            let distance = ((better.x - spot.x).powi(2) + (better.y - spot.y).powi(2)).sqrt();
            distance < better.radius.max(spot.radius)
        });
        if !overlaps {
            kept.push(spot);
            if kept.len() == MAX_SPOTS {
                break;
            }
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Field below row 40 (half resolution), "other" above, with ball-like blobs (white discs
    /// with a dark centre) at the given centres, radius 6.
    fn scene(blobs: &[(usize, usize)]) -> ColorClasses {
        let (width, height) = (320, 120);
        let mut classes = vec![PixelClass::Other; width * height];
        for y in 40..height {
            for x in 0..width {
                classes[y * width + x] = PixelClass::Field;
            }
        }
        for &(centre_x, centre_y) in blobs {
            for y in centre_y - 6..=centre_y + 6 {
                for x in centre_x - 6..=centre_x + 6 {
                    let distance_squared =
                        (x as i32 - centre_x as i32).pow(2) + (y as i32 - centre_y as i32).pow(2);
                    if distance_squared <= 36 {
                        classes[y * width + x] = if distance_squared <= 4 {
                            PixelClass::Dark
                        } else {
                            PixelClass::White
                        };
                    }
                }
            }
        }
        ColorClasses {
            width,
            height,
            classes,
        }
    }

    fn boundary_at_row_40() -> FieldBoundary {
        FieldBoundary {
            points: vec![(0.0, 80.0), (639.0, 80.0)],
        }
    }

    #[test]
    fn clutter_above_the_field_cannot_crowd_out_a_ball_on_it() {
        // Twenty blobs above the field, one on it (row 90).
        let mut blobs: Vec<(usize, usize)> = (0..20).map(|i| (10 + 15 * i, 15)).collect();
        blobs.push((160, 90));
        let classes = scene(&blobs);
        let near_ball =
            |spot: &BallSpot| (spot.x - 160.0).abs() <= 3.0 && (spot.y - 90.0).abs() <= 3.0;
        let everywhere = find_ball_spots(&classes);
        assert_eq!(everywhere.len(), MAX_SPOTS);
        let on_field = find_ball_spots_on_field(&classes, &boundary_at_row_40());
        assert!(on_field.iter().any(near_ball), "{on_field:?}");
        assert!(
            on_field
                .iter()
                .all(|spot| 2.0 * spot.y + 0.5 >= 80.0 - 2.0 * spot.radius),
            "{on_field:?}"
        );
    }
}
