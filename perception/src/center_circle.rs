//! The centre circle among the line spots on the ground ([`crate::lines`] runs it first):
//! RANSAC with the known radius (0.75 m): two spots give two candidate centres; the candidate
//! with the most spots within the tolerance wins, is refined by Gauss–Newton on those spots, and
//! is kept if its spots cover at least [`MIN_CIRCLE_ARC_RAD`] of the circle without a hole wider
//! than [`MAX_CIRCLE_HOLE_RAD`], and if straight lines do not explain them better (two lines
//! meeting at a corner lie within the tolerance of a circle touching both).

use crate::lines::{find_line, retain_flagged, tolerance_m, Random, MIN_LINE_SPOTS};
use nalgebra::{Point2, Vector2};

/// The centre circle's radius (rule book: 1.5 m diameter, to the middle of the line).
pub const CENTER_CIRCLE_RADIUS_M: f32 = 0.75;
pub const MIN_CIRCLE_SPOTS: usize = 10;
pub const MIN_CIRCLE_ARC_RAD: f32 = std::f32::consts::FRAC_PI_2;
pub const MAX_CIRCLE_HOLE_RAD: f32 = 0.7;
const CIRCLE_ITERATIONS: usize = 120;

/// The centre circle on the ground.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FittedCircle {
    pub center: Point2<f32>,
    pub spots: usize,
    pub deviation_m: f32,
}

/// Whether a spot lies on the circle around `center`, within the tolerance of its distance.
pub(crate) fn on_circle(center: &Point2<f32>, point: &Point2<f32>) -> bool {
    ((point - center).norm() - CENTER_CIRCLE_RADIUS_M).abs() <= tolerance_m(point.coords.norm())
}

/// The two centres of circles of the centre circle's radius through `a` and `b`.
fn centers_through(a: &Point2<f32>, b: &Point2<f32>) -> Option<[Point2<f32>; 2]> {
    let chord = b - a;
    let half = chord.norm() / 2.0;
    if !(0.1..CENTER_CIRCLE_RADIUS_M).contains(&half) {
        return None;
    }
    let middle = a + chord / 2.0;
    let height = (CENTER_CIRCLE_RADIUS_M.powi(2) - half * half).sqrt();
    let normal = Vector2::new(-chord.y, chord.x) / (2.0 * half);
    Some([middle + normal * height, middle - normal * height])
}

pub(crate) fn find_circle(pool: &[Point2<f32>], random: &mut Random) -> Option<FittedCircle> {
    if pool.len() < MIN_CIRCLE_SPOTS {
        return None;
    }
    let count_on = |center: &Point2<f32>| pool.iter().filter(|p| on_circle(center, p)).count();
    let mut best: Option<(usize, Point2<f32>)> = None;
    for _ in 0..CIRCLE_ITERATIONS {
        let (i, j) = random.pair(pool.len());
        for center in centers_through(&pool[i], &pool[j]).into_iter().flatten() {
            let count = count_on(&center);
            if best.is_none_or(|(best_count, _)| count > best_count) {
                best = Some((count, center));
            }
        }
    }
    let (count, mut center) = best?;
    if count < MIN_CIRCLE_SPOTS {
        return None;
    }
    // Gauss–Newton on the centre: residual |p − c| − r, gradient −(p − c)/|p − c|.
    for _ in 0..5 {
        let members: Vec<&Point2<f32>> = pool.iter().filter(|p| on_circle(&center, p)).collect();
        let (mut jtj, mut jtr) = (nalgebra::Matrix2::<f32>::zeros(), Vector2::zeros());
        for point in members {
            let offset = *point - center;
            let distance = offset.norm().max(1e-6);
            let gradient = -offset / distance;
            jtj += gradient * gradient.transpose();
            jtr += gradient * (distance - CENTER_CIRCLE_RADIUS_M);
        }
        let Some(inverse) = jtj.try_inverse() else {
            break;
        };
        center -= inverse * jtr;
    }
    let members: Vec<Point2<f32>> = pool
        .iter()
        .filter(|p| on_circle(&center, p))
        .copied()
        .collect();
    if members.len() < MIN_CIRCLE_SPOTS {
        return None;
    }
    let mut angles: Vec<f32> = members
        .iter()
        .map(|p| (p.y - center.y).atan2(p.x - center.x))
        .collect();
    angles.sort_by(f32::total_cmp);
    let mut holes: Vec<f32> = angles.windows(2).map(|pair| pair[1] - pair[0]).collect();
    holes.push(angles[0] + std::f32::consts::TAU - angles[angles.len() - 1]);
    holes.sort_by(|a, b| b.total_cmp(a));
    let arc = std::f32::consts::TAU - holes[0];
    if arc < MIN_CIRCLE_ARC_RAD || holes[1] > MAX_CIRCLE_HOLE_RAD {
        return None;
    }
    let squares: f32 = members
        .iter()
        .map(|p| ((p - center).norm() - CENTER_CIRCLE_RADIUS_M).powi(2))
        .sum();
    let deviation_m = (squares / members.len() as f32).sqrt();
    // Two lines meeting at a corner (or one line) lie within the tolerance of a circle that
    // touches them: the circle is kept only if straight lines explain its spots worse.
    if let Some(line_deviation_m) = explained_by_lines(&members, random) {
        if line_deviation_m <= deviation_m {
            return None;
        }
    }
    Some(FittedCircle {
        center,
        spots: members.len(),
        deviation_m,
    })
}

/// The root mean square distance of `points` from at most two fitted lines, if those lines
/// take nine in ten of them.
fn explained_by_lines(points: &[Point2<f32>], random: &mut Random) -> Option<f32> {
    let mut pool = points.to_vec();
    let (mut explained, mut squares) = (0usize, 0.0f32);
    for _ in 0..2 {
        if pool.len() < MIN_LINE_SPOTS {
            break;
        }
        let Some((pieces, used)) = find_line(&pool, random) else {
            break;
        };
        for piece in pieces {
            explained += piece.line.spots;
            squares += piece.line.spots as f32 * piece.line.deviation_m.powi(2);
        }
        let keep: Vec<bool> = used.iter().map(|used| !used).collect();
        retain_flagged(&mut pool, &keep);
    }
    (explained as f32 >= 0.9 * points.len() as f32 && explained > 0)
        .then(|| (squares / explained as f32).sqrt())
}
