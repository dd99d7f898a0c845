//! `BallContour`: the circle of a ball spot refined to sub-pixel accuracy on the full-resolution
//! frame.
//!
//! From the spot's centre, 48 rays look for edges between 0.4 r and 2 r: a drop in luma or a
//! rise in saturation (white → field, black patch → field, ball → shadow). Each ray offers its
//! three strongest edges, located to a fraction of a pixel by a parabola through the strength
//! around the peak. A RANSAC over three-point circles picks the circle most rays agree on
//! (inner edges of the black patches do not form one circle; a line or post touching the ball
//! only removes the rays on its side), and a least-squares fit (Kåsa) on its inliers gives the
//! result. The fit runs twice, the second time with rays cast from the first result.

use crate::field_color::FieldColor;
use cortex_image::YuyvImage;

/// A circle in full-resolution pixels with the share of rays that support it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BallContour {
    pub x: f32,
    pub y: f32,
    pub radius: f32,
    /// Rays with an edge on the circle / all rays that stayed inside the image.
    pub edge_support: f32,
}

const RAYS: usize = 48;
const EDGES_PER_RAY: usize = 3;
const MIN_EDGE_STRENGTH: f32 = 24.0;
const RANSAC_ITERATIONS: usize = 200;

struct EdgePoint {
    x: f32,
    y: f32,
    ray: usize,
    /// The outermost of its ray's edges: the ball's outline when the inner ones are patches
    /// or the border of its own shading.
    outermost: bool,
}

fn sample(image: &YuyvImage, field_color: &FieldColor, x: f32, y: f32) -> Option<(f32, f32)> {
    // Pixel i covers [i − 0.5, i + 0.5): coordinates are pixel centres.
    let (x, y) = (x + 0.5, y + 0.5);
    if x < 0.0 || y < 0.0 {
        return None;
    }
    let (x, y) = (x as usize, y as usize);
    if x >= image.width() || y >= image.height() {
        return None;
    }
    let (luma, cb, cr) = image.ycbcr(x, y);
    let (saturation, _) = field_color.saturation_and_hue(cb, cr);
    Some((f32::from(luma), saturation))
}

/// Edges along the rays from (x, y) for a ball of about `radius`; also how many rays had room.
fn edge_points(
    image: &YuyvImage,
    field_color: &FieldColor,
    (x, y, radius): (f32, f32, f32),
) -> (Vec<EdgePoint>, usize) {
    let start = (0.4 * radius).max(2.0) as usize;
    let end = (2.0 * radius).ceil() as usize + 3;
    let mut points = Vec::new();
    let mut rays_inside = 0;
    let mut profile = Vec::with_capacity(end + 1);
    for ray in 0..RAYS {
        let angle = ray as f32 / RAYS as f32 * std::f32::consts::TAU;
        let (dx, dy) = (angle.cos(), angle.sin());
        profile.clear();
        for t in 0..=end {
            match sample(image, field_color, x + dx * t as f32, y + dy * t as f32) {
                Some(value) => profile.push(value),
                None => break,
            }
        }
        if profile.len() > radius as usize {
            rays_inside += 1;
        }
        let strength = |t: usize| -> f32 {
            if t < 2 || t + 2 >= profile.len() {
                return 0.0;
            }
            let (luma_before, saturation_before) = profile[t - 2];
            let (luma_after, saturation_after) = profile[t + 2];
            (luma_before - luma_after).max(0.0)
                + 2.0 * (saturation_after - saturation_before).max(0.0)
        };
        let mut peaks: Vec<(f32, f32)> = Vec::new();
        for t in start.max(3)..profile.len().saturating_sub(3) {
            let (before, here, after) = (strength(t - 1), strength(t), strength(t + 1));
            if here >= MIN_EDGE_STRENGTH && here >= before && here > after {
                let curvature = before - 2.0 * here + after;
                let offset = if curvature < 0.0 {
                    (0.5 * (before - after) / curvature).clamp(-0.5, 0.5)
                } else {
                    0.0
                };
                peaks.push((here, t as f32 + offset));
            }
        }
        peaks.sort_by(|a, b| b.0.total_cmp(&a.0));
        peaks.truncate(EDGES_PER_RAY);
        let outermost = peaks.iter().map(|peak| peak.1).fold(0.0, f32::max);
        for &(_, t) in &peaks {
            points.push(EdgePoint {
                x: x + dx * t,
                y: y + dy * t,
                ray,
                outermost: t == outermost,
            });
        }
    }
    (points, rays_inside)
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

/// Refines a circle given in full-resolution pixels; None if no circle finds support.
pub fn refine(
    image: &YuyvImage,
    field_color: &FieldColor,
    guess: (f32, f32, f32),
) -> Option<BallContour> {
    let mut current = guess;
    let mut support = 0.0;
    for _ in 0..2 {
        let (points, rays_inside) = edge_points(image, field_color, current);
        if points.len() < 3 || rays_inside == 0 {
            return None;
        }
        let (min_radius, max_radius) = (0.5 * current.2, 1.8 * current.2);
        let max_shift = 0.8 * current.2;
        let mut random = 0x2545_f491_u32;
        let mut next = || {
            random ^= random << 13;
            random ^= random >> 17;
            random ^= random << 5;
            random as usize % points.len()
        };
        let mut best: Option<((f32, f32, f32), f32)> = None;
        for _ in 0..RANSAC_ITERATIONS {
            let (a, b, c) = (&points[next()], &points[next()], &points[next()]);
            if a.ray == b.ray || b.ray == c.ray || a.ray == c.ray {
                continue;
            }
            let Some(circle) = circle_through(a, b, c) else {
                continue;
            };
            let shift = ((circle.0 - current.0).powi(2) + (circle.1 - current.1).powi(2)).sqrt();
            if circle.2 < min_radius || circle.2 > max_radius || shift > max_shift {
                continue;
            }
            let supporting = inliers(&points, circle);
            let outer = supporting.iter().filter(|point| point.outermost).count();
            let score = supporting.len() as f32 + 0.5 * outer as f32;
            if best.is_none_or(|(_, best_score)| score > best_score) {
                best = Some((circle, score));
            }
        }
        let (circle, _) = best?;
        let supporting = inliers(&points, circle);
        current = fit_circle(&supporting).unwrap_or(circle);
        support = supporting.len() as f32 / rays_inside as f32;
    }
    Some(BallContour {
        x: current.0,
        y: current.1,
        radius: current.2,
        edge_support: support.min(1.0),
    })
}
