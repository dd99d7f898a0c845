//! Field lines and the centre circle from the line spots of one frame ([`crate::line_spots`]),
//! fitted on the ground (robot frame), where lines are straight and the circle is round.
//!
//! 1. **Centre circle first** (its spots would otherwise be cut into short chords), by RANSAC
//!    with its known radius ([`crate::center_circle`]); its spots leave the pool.
//! 2. **Lines:** RANSAC on the remaining spots: the line through two spots with the most spots
//!    within the tolerance, refitted by least squares (principal axis), cut where its spots
//!    leave a gap of more than [`MAX_LINE_GAP_M`] (a ball or robot on the line does not); each
//!    piece with [`MIN_LINE_SPOTS`] spots and [`MIN_LINE_LENGTH_M`] is a segment. Its spots
//!    leave the pool and the next line is searched, up to [`MAX_LINES`].
//!
//! The tolerance grows with the distance ([`tolerance_m`]): a pixel covers more ground further
//! away. The random choices come from a fixed-seed generator, so a frame always gives the same
//! lines. `docs/decisions.md` says why RANSAC and not a Hough transform.

use crate::center_circle::{find_circle, on_circle, FittedCircle};
use crate::line_spots::LineSpot;
use nalgebra::{Point2, Vector2};

pub const MIN_LINE_SPOTS: usize = 5;
pub const MIN_LINE_LENGTH_M: f32 = 0.3;
pub const MAX_LINE_GAP_M: f32 = 0.6;
pub const MAX_LINES: usize = 10;
/// A segment's spots scatter at most this share of the tolerance (root mean square): spots
/// of several things that happen to lie in one band scatter across all of it.
pub const MAX_RELATIVE_DEVIATION: f32 = 0.45;
const LINE_ITERATIONS: usize = 80;

/// How far a spot at `distance_m` from the robot may lie from the line or circle it belongs to.
pub fn tolerance_m(distance_m: f32) -> f32 {
    0.04 + 0.02 * distance_m
}

/// A straight piece of line on the ground.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FittedLine {
    pub start: Point2<f32>,
    pub end: Point2<f32>,
    pub spots: usize,
    /// Root mean square distance of its spots, m.
    pub deviation_m: f32,
}

impl FittedLine {
    /// Distance of a point from this segment, m.
    pub fn distance_to(&self, point: &Point2<f32>) -> f32 {
        let along = self.end - self.start;
        let length_squared = along.norm_squared().max(1e-9);
        let t = ((point - self.start).dot(&along) / length_squared).clamp(0.0, 1.0);
        (point - (self.start + along * t)).norm()
    }
}

/// The spots of a frame and what was fitted to them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineDetection {
    pub spots: Vec<LineSpot>,
    /// Longest first.
    pub lines: Vec<FittedLine>,
    pub circle: Option<FittedCircle>,
}

/// Keeps the elements whose flag is set.
pub(crate) fn retain_flagged<T>(values: &mut Vec<T>, keep: &[bool]) {
    let mut index = 0;
    values.retain(|_| {
        index += 1;
        keep[index - 1]
    });
}

/// A small fixed-seed generator (xorshift): the same frame gives the same fit.
pub(crate) struct Random(u64);

impl Random {
    fn below(&mut self, bound: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % bound as u64) as usize
    }

    pub(crate) fn pair(&mut self, bound: usize) -> (usize, usize) {
        let first = self.below(bound);
        let second = (first + 1 + self.below(bound - 1)) % bound;
        (first, second)
    }
}

/// Fits the circle and the lines to `spots`.
pub fn fit(spots: Vec<LineSpot>) -> LineDetection {
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let usable: Vec<&LineSpot> = spots
        .iter()
        .filter(|spot| spot.ground.x.is_finite() && spot.ground.y.is_finite())
        .collect();
    let mut pool: Vec<Point2<f32>> = usable.iter().map(|spot| spot.ground).collect();
    let mut widths: Vec<f32> = usable
        .iter()
        .map(|spot| (spot.crossing_m - spot.footprint_m).max(0.0))
        .collect();
    let circle = find_circle(&pool, &mut random);
    if let Some(circle) = &circle {
        let keep: Vec<bool> = pool.iter().map(|p| !on_circle(&circle.center, p)).collect();
        retain_flagged(&mut pool, &keep);
        retain_flagged(&mut widths, &keep);
    }
    let mut lines = Vec::new();
    while lines.len() < MAX_LINES && pool.len() >= MIN_LINE_SPOTS {
        let Some((pieces, used)) = find_line(&pool, &mut random) else {
            break;
        };
        lines.extend(
            pieces
                .into_iter()
                .filter(|piece| !is_upright(&pool, &widths, &piece.members))
                .map(|piece| piece.line),
        );
        let keep: Vec<bool> = used.iter().map(|used| !used).collect();
        retain_flagged(&mut pool, &keep);
        retain_flagged(&mut widths, &keep);
    }
    lines.truncate(MAX_LINES);
    lines.sort_by(|a, b| {
        let length = |line: &FittedLine| (line.end - line.start).norm();
        length(b).total_cmp(&length(a))
    });
    LineDetection {
        spots,
        lines,
        circle,
    }
}

/// The best line through the pool: its pieces, and which spots of the pool it took (all of
/// its inliers, also those of pieces too short to keep); None when no line has enough spots.
pub(crate) fn find_line(
    pool: &[Point2<f32>],
    random: &mut Random,
) -> Option<(Vec<Piece>, Vec<bool>)> {
    let inliers_of = |normal: &Vector2<f32>, offset: f32| -> Vec<bool> {
        pool.iter()
            .map(|p| (p.coords.dot(normal) - offset).abs() <= tolerance_m(p.coords.norm()))
            .collect()
    };
    let mut best: Option<(usize, Vector2<f32>, f32)> = None;
    for _ in 0..LINE_ITERATIONS {
        let (i, j) = random.pair(pool.len());
        let direction = pool[j] - pool[i];
        if direction.norm() < 0.05 {
            continue;
        }
        let normal = Vector2::new(-direction.y, direction.x).normalize();
        let offset = pool[i].coords.dot(&normal);
        let count = pool
            .iter()
            .filter(|p| (p.coords.dot(&normal) - offset).abs() <= tolerance_m(p.coords.norm()))
            .count();
        if best.is_none_or(|(best_count, _, _)| count > best_count) {
            best = Some((count, normal, offset));
        }
    }
    let (count, normal, offset) = best?;
    if count < MIN_LINE_SPOTS {
        return None;
    }
    // Least squares on the inliers (their principal axis), then the inliers of that line.
    let first = inliers_of(&normal, offset);
    let members: Vec<Point2<f32>> = pool
        .iter()
        .zip(&first)
        .filter(|(_, &inside)| inside)
        .map(|(point, _)| *point)
        .collect();
    let (centroid, direction) = principal_axis(&members)?;
    let normal = Vector2::new(-direction.y, direction.x);
    let offset = centroid.coords.dot(&normal);
    let mut used = inliers_of(&normal, offset);
    for (flag, was) in used.iter_mut().zip(&first) {
        *flag |= *was;
    }
    // (position along the line, distance from it, index in the pool), along the line.
    let mut along: Vec<(f32, f32, usize)> = pool
        .iter()
        .enumerate()
        .filter(|(index, _)| used[*index])
        .map(|(index, point)| {
            (
                (point - centroid).dot(&direction),
                point.coords.dot(&normal) - offset,
                index,
            )
        })
        .collect();
    along.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut pieces = Vec::new();
    let mut start = 0;
    for index in 1..=along.len() {
        if index < along.len() && along[index].0 - along[index - 1].0 <= MAX_LINE_GAP_M {
            continue;
        }
        let piece = trim_ends(&along[start..index]);
        start = index;
        if piece.len() < MIN_LINE_SPOTS || piece[piece.len() - 1].0 - piece[0].0 < MIN_LINE_LENGTH_M
        {
            continue;
        }
        let squares: f32 = piece
            .iter()
            .map(|(_, distance, _)| distance * distance)
            .sum();
        let deviation_m = (squares / piece.len() as f32).sqrt();
        let middle = centroid + direction * (0.5 * (piece[0].0 + piece[piece.len() - 1].0));
        if deviation_m > MAX_RELATIVE_DEVIATION * tolerance_m(middle.coords.norm()) {
            continue;
        }
        pieces.push(Piece {
            line: FittedLine {
                start: centroid + direction * piece[0].0,
                end: centroid + direction * piece[piece.len() - 1].0,
                spots: piece.len(),
                deviation_m,
            },
            members: piece.iter().map(|&(_, _, index)| index).collect(),
        });
    }
    Some((pieces, used))
}

/// A fitted segment and the indices of its spots in the pool.
pub(crate) struct Piece {
    pub(crate) line: FittedLine,
    pub(crate) members: Vec<usize>,
}

/// Drops a spot at either end that is much further from its neighbour than the spots of the
/// piece are from theirs (more than three times the median gap and 10 cm): a spot of a line
/// crossing this one, which would stretch the segment beyond its end.
fn trim_ends(piece: &[(f32, f32, usize)]) -> &[(f32, f32, usize)] {
    if piece.len() < 4 {
        return piece;
    }
    let mut gaps: Vec<f32> = piece.windows(2).map(|pair| pair[1].0 - pair[0].0).collect();
    let (first, last) = (gaps[0], gaps[gaps.len() - 1]);
    gaps.sort_by(f32::total_cmp);
    let limit = (3.0 * gaps[gaps.len() / 2]).max(0.1);
    let start = usize::from(first > limit);
    let end = piece.len() - usize::from(last > limit);
    &piece[start..end]
}

/// Whether the spots of a segment widen with their distance as an upright object does (a goal
/// post, a robot's leg: constant width in pixels, so wider on the ground further away), where a
/// line on the ground keeps its width. `widths` are the spots' crossings less the ground one
/// pixel covers there.
fn is_upright(pool: &[Point2<f32>], widths: &[f32], members: &[usize]) -> bool {
    let mut by_distance: Vec<(f32, f32)> = members
        .iter()
        .map(|&index| (pool[index].coords.norm(), widths[index]))
        .collect();
    by_distance.sort_by(|a, b| a.0.total_cmp(&b.0));
    let third = by_distance.len() / 3;
    if third == 0 {
        return false;
    }
    let mean = |part: &[(f32, f32)]| {
        let count = part.len() as f32;
        (
            part.iter().map(|p| p.0).sum::<f32>() / count,
            part.iter().map(|p| p.1).sum::<f32>() / count,
        )
    };
    let (near_distance, near_width) = mean(&by_distance[..third]);
    let (far_distance, far_width) = mean(&by_distance[by_distance.len() - third..]);
    far_distance > 1.1 * near_distance
        && far_width > 0.08
        && far_width > near_width * (far_distance / near_distance).sqrt()
}

/// Centroid and unit direction of the principal axis of `points`; None for fewer than two.
fn principal_axis(points: &[Point2<f32>]) -> Option<(Point2<f32>, Vector2<f32>)> {
    if points.len() < 2 {
        return None;
    }
    let count = points.len() as f32;
    let centroid = Point2::from(points.iter().map(|p| p.coords).sum::<Vector2<f32>>() / count);
    let (mut xx, mut xy, mut yy) = (0.0, 0.0, 0.0);
    for point in points {
        let d = point - centroid;
        xx += d.x * d.x;
        xy += d.x * d.y;
        yy += d.y * d.y;
    }
    let angle = 0.5 * (2.0 * xy).atan2(xx - yy);
    Some((centroid, Vector2::new(angle.cos(), angle.sin())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::center_circle::CENTER_CIRCLE_RADIUS_M;

    fn spot(x: f32, y: f32) -> LineSpot {
        LineSpot {
            pixel: Point2::origin(),
            ground: Point2::new(x, y),
            crossing_m: 0.05,
            footprint_m: 0.01,
        }
    }

    #[test]
    fn two_crossing_lines_and_noise_give_two_segments() {
        let mut spots = Vec::new();
        for step in 0..20 {
            let t = step as f32 * 0.1;
            // Across the view at 1.5 m, with ±1 cm wiggle; and one running away at y = −0.5.
            spots.push(spot(1.5 + 0.01 * (step % 3) as f32 - 0.01, -1.0 + t));
            spots.push(spot(0.5 + t, -0.5));
        }
        spots.push(spot(0.8, 0.7));
        spots.push(spot(2.9, -1.9));
        let detection = fit(spots);
        assert!(detection.circle.is_none(), "{:?}", detection.circle);
        assert_eq!(detection.lines.len(), 2, "{:?}", detection.lines);
        for line in &detection.lines {
            let direction = (line.end - line.start).normalize();
            let across = direction.x.abs() < 0.05 && (line.start.x - 1.5).abs() < 0.02;
            let away = direction.y.abs() < 0.05 && (line.start.y + 0.5).abs() < 0.02;
            assert!(across || away, "{line:?}");
            assert!((line.end - line.start).norm() > 1.8, "{line:?}");
        }
    }

    #[test]
    fn a_half_circle_is_the_centre_circle_and_a_corner_is_not() {
        let center = Point2::new(1.5, 0.3);
        let spots: Vec<LineSpot> = (0..30)
            .map(|step| {
                let angle = std::f32::consts::PI * (0.5 + step as f32 / 29.0);
                spot(
                    center.x + CENTER_CIRCLE_RADIUS_M * angle.cos(),
                    center.y + CENTER_CIRCLE_RADIUS_M * angle.sin(),
                )
            })
            .collect();
        let detection = fit(spots);
        let circle = detection.circle.expect("a circle");
        assert!((circle.center - center).norm() < 0.01, "{circle:?}");
        assert!(detection.lines.is_empty(), "{:?}", detection.lines);

        // Two lines meeting at a right angle: lines, not a circle.
        let mut corner = Vec::new();
        for step in 0..25 {
            let t = step as f32 * 0.08;
            corner.push(spot(1.0 + t, 1.0));
            corner.push(spot(1.0, 1.0 - t));
        }
        let detection = fit(corner);
        assert!(detection.circle.is_none(), "{:?}", detection.circle);
        assert_eq!(detection.lines.len(), 2, "{:?}", detection.lines);
    }

    #[test]
    fn too_few_or_nonsense_spots_give_nothing() {
        assert_eq!(fit(Vec::new()), LineDetection::default());
        let few = vec![spot(1.0, 0.0), spot(1.0, 0.1), spot(1.0, 0.2)];
        assert!(fit(few).lines.is_empty());
        let nonsense = vec![spot(f32::NAN, 0.0); 20];
        assert!(fit(nonsense).lines.is_empty());
    }
}
