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
//!
//! The score is the inner square's white + dark share, its dark share up to 30 %, and half the
//! ring's share that is not white or dark; of overlapping spots the better one is kept.
//! [`spot_evidence`] gives the shares of any hypothesis (for tests and diagnostics).

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

/// The class shares a spot hypothesis is judged by (see the module's picture).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SpotEvidence {
    /// White or dark in the inner square.
    pub ball_share: f32,
    pub dark_share: f32,
    pub white_share: f32,
    pub field_share: f32,
    /// White or dark in the ring.
    pub ring_ball_share: f32,
    pub ring_white_share: f32,
}

impl SpotEvidence {
    /// Whether the inner square alone passes (the ring is counted only then).
    fn score_inner(&self) -> bool {
        self.ball_share >= 0.7
            && self.dark_share >= 0.04
            && self.white_share >= 0.25
            && self.field_share <= 0.2
    }

    /// The spot's score, or None when the hypothesis is no ball.
    pub fn score(&self) -> Option<f32> {
        if !self.score_inner() || self.ring_ball_share > 0.9 || self.ring_white_share > 0.6 {
            return None;
        }
        Some(self.ball_share + self.dark_share.min(0.3) + 0.5 * (1.0 - self.ring_ball_share))
    }
}

/// The summed-area tables of one frame's classes.
struct Tables {
    width: usize,
    height: usize,
    ball_colored: Integral,
    dark: Integral,
    field: Integral,
}

impl Tables {
    fn new(classes: &ColorClasses) -> Self {
        Self {
            width: classes.width,
            height: classes.height,
            ball_colored: Integral::new(classes, |class| {
                matches!(class, PixelClass::White | PixelClass::Dark)
            }),
            dark: Integral::new(classes, |class| class == PixelClass::Dark),
            field: Integral::new(classes, |class| class == PixelClass::Field),
        }
    }

    /// The inner square's shares only (None when it is not ball-coloured enough to go on).
    fn inner(&self, x: usize, y: usize, inner_half: usize) -> Option<SpotEvidence> {
        let (x0, y0, x1, y1, area) = clipped_square(x, y, inner_half, self.width, self.height);
        let area = area as f32;
        let ball_share = self.ball_colored.count(x0, y0, x1, y1) as f32 / area;
        if ball_share < 0.7 {
            return None;
        }
        let dark_share = self.dark.count(x0, y0, x1, y1) as f32 / area;
        Some(SpotEvidence {
            ball_share,
            dark_share,
            white_share: ball_share - dark_share,
            field_share: self.field.count(x0, y0, x1, y1) as f32 / area,
            ..SpotEvidence::default()
        })
    }

    /// Adds the ring's shares (None when the ring lies wholly outside the image).
    fn with_ring(
        &self,
        mut evidence: SpotEvidence,
        x: usize,
        y: usize,
        (ring_inner_half, ring_outer_half): (usize, usize),
    ) -> Option<SpotEvidence> {
        let outer = clipped_square(x, y, ring_outer_half, self.width, self.height);
        let inner = clipped_square(x, y, ring_inner_half, self.width, self.height);
        let ring_area = outer.4.saturating_sub(inner.4);
        if ring_area == 0 {
            return None;
        }
        let count = |integral: &Integral| {
            integral.count(outer.0, outer.1, outer.2, outer.3)
                - integral.count(inner.0, inner.1, inner.2, inner.3)
        };
        let ring_ball = count(&self.ball_colored);
        let ring_dark = count(&self.dark);
        evidence.ring_ball_share = ring_ball as f32 / ring_area as f32;
        evidence.ring_white_share = (ring_ball - ring_dark) as f32 / ring_area as f32;
        Some(evidence)
    }
}

/// Squares of a hypothesis of this radius: inner half side, ring's inner and outer half sides.
fn square_sizes(radius: f32) -> (usize, (usize, usize)) {
    (
        (0.7 * radius).round() as usize,
        (
            (1.1 * radius).round() as usize,
            (1.5 * radius).round() as usize,
        ),
    )
}

/// The evidence for a ball of `radius` at (x, y) (half-resolution pixels), whatever it says:
/// for tests and diagnostics.
pub fn spot_evidence(classes: &ColorClasses, x: usize, y: usize, radius: f32) -> SpotEvidence {
    let tables = Tables::new(classes);
    let (inner_half, ring) = square_sizes(radius);
    let (x0, y0, x1, y1, area) = clipped_square(x, y, inner_half, classes.width, classes.height);
    let area = area as f32;
    let ball_share = tables.ball_colored.count(x0, y0, x1, y1) as f32 / area;
    let dark_share = tables.dark.count(x0, y0, x1, y1) as f32 / area;
    let evidence = SpotEvidence {
        ball_share,
        dark_share,
        white_share: ball_share - dark_share,
        field_share: tables.field.count(x0, y0, x1, y1) as f32 / area,
        ..SpotEvidence::default()
    };
    tables.with_ring(evidence, x, y, ring).unwrap_or(evidence)
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
    let tables = Tables::new(classes);
    let (width, height) = (classes.width, classes.height);
    let max_radius = height as f32 / 4.0;
    let mut spots = Vec::new();
    let mut radius = MIN_RADIUS;
    while radius <= max_radius {
        let (inner_half, ring) = square_sizes(radius);
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
                let Some(evidence) = tables
                    .inner(x, y, inner_half)
                    .filter(|evidence| evidence.score_inner())
                    .and_then(|evidence| tables.with_ring(evidence, x, y, ring))
                else {
                    continue;
                };
                if let Some(score) = evidence.score() {
                    spots.push(BallSpot {
                        x: x as f32,
                        y: y as f32,
                        radius,
                        score,
                    });
                }
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
