//! The penalty mark: a white cross of 10 cm on the field, alone (B-Human's
//! `PenaltyMarkPerceptor`).
//!
//! 1. **Candidates:** the line spots ([`crate::line_spots`]) gathered into clusters of
//!    [`CLUSTER_RADIUS_M`] on the ground, nearest first; a cluster is a candidate if it lies
//!    within [`MAX_DISTANCE_M`] and off every fitted line segment and the centre circle (the
//!    centre mark sits on the halfway line, junctions are on lines).
//! 2. **Centre:** the mean ground position of the white pixels within [`CLUSTER_RADIUS_M`] of
//!    the cluster (the spots of one scan direction would pull it sideways).
//! 3. **Check in the image,** by projecting ground points with the camera matrix: the mark's
//!    middle is mostly white and has nothing dark (a ball's patches); a ring of
//!    [`RING_RADIUS_M`] around it is field colour all round ([`MIN_RING_FIELD`] of
//!    [`RING_POINTS`]): a line leaving the blob, a ball hiding the ground behind it, or a robot's
//!    foot break the ring.

use crate::camera_matrix::CameraMatrix;
use crate::center_circle::{FittedCircle, CENTER_CIRCLE_RADIUS_M};
use crate::color_classes::ColorClasses;
use crate::field_color::PixelClass;
use crate::line_spots::LineSpot;
use crate::lines::FittedLine;
use nalgebra::{Point2, Point3};

pub const CLUSTER_RADIUS_M: f32 = 0.1;
pub const MAX_DISTANCE_M: f32 = 4.0;
/// A candidate this close to a fitted line is part of it.
pub const MIN_LINE_DISTANCE_M: f32 = 0.2;
pub const RING_RADIUS_M: f32 = 0.16;
/// Points on the ring, 1.6 cm apart: a 5 cm line leaving the mark covers at least three.
pub const RING_POINTS: usize = 64;
/// Field points the ring needs: a line leaving the mark takes at least six (two crossings),
/// sensor noise a few.
pub const MIN_RING_FIELD: usize = 59;
/// Share of the sample points of the mark's middle (a 5 × 5 grid over ±4 cm) that are white.
pub const MIN_MIDDLE_WHITE: f32 = 0.5;
/// Candidates checked per frame at most.
const MAX_CANDIDATES: usize = 8;

/// A penalty mark found in a frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PenaltyMark {
    /// Its centre on the ground, robot frame, m.
    pub ground: Point2<f32>,
    /// The same in the image, camera pixels.
    pub pixel: Point2<f32>,
}

/// The class of the half-resolution pixel that a ground point lands on; None outside the image.
fn class_at(
    classes: &ColorClasses,
    matrix: &CameraMatrix,
    ground: &Point2<f32>,
) -> Option<PixelClass> {
    let pixel = matrix.robot_to_pixel(&Point3::new(ground.x, ground.y, 0.0))?;
    let (x, y) = (pixel.x / 2.0, pixel.y / 2.0);
    if !(x >= 0.0 && y >= 0.0 && x < classes.width as f32 && y < classes.height as f32) {
        return None;
    }
    Some(classes.get(x as usize, y as usize))
}

/// The penalty mark of a frame, the nearest if several pass.
pub fn find_penalty_mark(
    spots: &[LineSpot],
    lines: &[FittedLine],
    circle: Option<&FittedCircle>,
    classes: &ColorClasses,
    matrix: &CameraMatrix,
) -> Option<PenaltyMark> {
    let mut nearest_first: Vec<Point2<f32>> = spots
        .iter()
        .map(|spot| spot.ground)
        .filter(|point| point.coords.norm() <= MAX_DISTANCE_M)
        .collect();
    nearest_first.sort_by(|a, b| a.coords.norm().total_cmp(&b.coords.norm()));
    let mut clusters: Vec<(Point2<f32>, usize)> = Vec::new();
    for point in nearest_first {
        match clusters
            .iter_mut()
            .find(|(seed, _)| (point - *seed).norm() <= CLUSTER_RADIUS_M)
        {
            Some((_, members)) => *members += 1,
            None => clusters.push((point, 1)),
        }
    }
    clusters
        .into_iter()
        .map(|(seed, _)| seed)
        .filter(|seed| {
            lines
                .iter()
                .all(|line| line.distance_to(seed) > MIN_LINE_DISTANCE_M)
                && circle.is_none_or(|circle| {
                    ((seed - circle.center).norm() - CENTER_CIRCLE_RADIUS_M).abs()
                        > MIN_LINE_DISTANCE_M
                })
        })
        .take(MAX_CANDIDATES)
        .find_map(|seed| check(seed, classes, matrix))
}

/// The mark at `seed` if the image shows one there.
fn check(seed: Point2<f32>, classes: &ColorClasses, matrix: &CameraMatrix) -> Option<PenaltyMark> {
    let center = white_center(seed, classes, matrix)?;
    let mut middle_white = 0;
    for row in -2..=2 {
        for column in -2..=2 {
            let point = center + nalgebra::Vector2::new(row as f32, column as f32) * 0.02;
            match class_at(classes, matrix, &point)? {
                PixelClass::White => middle_white += 1,
                PixelClass::Dark => return None,
                _ => {}
            }
        }
    }
    if (middle_white as f32) < MIN_MIDDLE_WHITE * 25.0 {
        return None;
    }
    let ring_field = (0..RING_POINTS)
        .filter(|&index| {
            let angle = index as f32 * std::f32::consts::TAU / RING_POINTS as f32;
            let point = center + nalgebra::Vector2::new(angle.cos(), angle.sin()) * RING_RADIUS_M;
            class_at(classes, matrix, &point) == Some(PixelClass::Field)
        })
        .count();
    if ring_field < MIN_RING_FIELD {
        return None;
    }
    let pixel = matrix.robot_to_pixel(&Point3::new(center.x, center.y, 0.0))?;
    Some(PenaltyMark {
        ground: center,
        pixel,
    })
}

/// The mean ground position of the white pixels within [`CLUSTER_RADIUS_M`] of `seed`.
fn white_center(
    seed: Point2<f32>,
    classes: &ColorClasses,
    matrix: &CameraMatrix,
) -> Option<Point2<f32>> {
    // The rectangle of half-resolution pixels that the ground square around the seed covers.
    let corners = [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0)].map(|(dx, dy)| {
        matrix.robot_to_pixel(&Point3::new(
            seed.x + dx * CLUSTER_RADIUS_M,
            seed.y + dy * CLUSTER_RADIUS_M,
            0.0,
        ))
    });
    let (mut left, mut top, mut right, mut bottom) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
    for corner in corners {
        let corner = corner?;
        left = left.min(corner.x / 2.0);
        right = right.max(corner.x / 2.0);
        top = top.min(corner.y / 2.0);
        bottom = bottom.max(corner.y / 2.0);
    }
    let clamp = |value: f32, size: usize| value.clamp(0.0, size as f32) as usize;
    let (left, right) = (
        clamp(left, classes.width),
        clamp(right + 1.0, classes.width),
    );
    let (top, bottom) = (
        clamp(top, classes.height),
        clamp(bottom + 1.0, classes.height),
    );
    let (mut sum, mut count) = (nalgebra::Vector2::zeros(), 0usize);
    for y in top..bottom {
        for x in left..right {
            if classes.get(x, y) != PixelClass::White {
                continue;
            }
            let pixel = Point2::new(2.0 * x as f32 + 1.0, 2.0 * y as f32 + 1.0);
            let Some(ground) = matrix.pixel_to_plane(&pixel, 0.0) else {
                continue;
            };
            let ground = Point2::new(ground.x, ground.y);
            if (ground - seed).norm() <= CLUSTER_RADIUS_M {
                sum += ground.coords;
                count += 1;
            }
        }
    }
    (count > 0).then(|| Point2::from(sum / count as f32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::camera_matrix::{CameraPosition, KinematicState};

    /// The classes a standing robot's lower camera sees: field, with white where `white` says
    /// (ground coordinates).
    fn scene(white: impl Fn(f32, f32) -> bool) -> (ColorClasses, CameraMatrix) {
        let matrix =
            CameraMatrix::nao_v6(CameraPosition::Lower, &KinematicState::standing(), 640, 480);
        let (width, height) = (320, 240);
        let mut classes = vec![PixelClass::Field; width * height];
        for y in 0..height {
            for x in 0..width {
                let pixel = Point2::new(2.0 * x as f32 + 1.0, 2.0 * y as f32 + 1.0);
                if let Some(ground) = matrix.pixel_to_plane(&pixel, 0.0) {
                    if white(ground.x, ground.y) {
                        classes[y * width + x] = PixelClass::White;
                    }
                }
            }
        }
        (
            ColorClasses {
                width,
                height,
                classes,
            },
            matrix,
        )
    }

    fn cross(x: f32, y: f32) -> impl Fn(f32, f32) -> bool {
        move |px, py| {
            let (dx, dy) = ((px - x).abs(), (py - y).abs());
            (dx <= 0.05 && dy <= 0.025) || (dx <= 0.025 && dy <= 0.05)
        }
    }

    fn seed_spot(x: f32, y: f32) -> LineSpot {
        LineSpot {
            pixel: Point2::origin(),
            ground: Point2::new(x, y),
            crossing_m: 0.1,
            footprint_m: 0.01,
        }
    }

    #[test]
    fn a_cross_alone_is_the_mark_and_a_cross_on_a_line_is_not() {
        let (classes, matrix) = scene(cross(0.65, 0.05));
        let mark = find_penalty_mark(&[seed_spot(0.67, 0.06)], &[], None, &classes, &matrix)
            .expect("the mark");
        assert!(
            (mark.ground - Point2::new(0.65, 0.05)).norm() < 0.02,
            "{mark:?}"
        );
        let back = matrix.pixel_to_plane(&mark.pixel, 0.0).unwrap();
        assert!((back.x - 0.65).abs() < 0.01, "{mark:?}");

        // The same cross on a line running away from the robot (the centre mark).
        let on_line = cross(0.65, 0.05);
        let (classes, matrix) = scene(move |x, y| on_line(x, y) || (y - 0.05).abs() < 0.025);
        assert_eq!(
            find_penalty_mark(&[seed_spot(0.67, 0.06)], &[], None, &classes, &matrix),
            None
        );
        // No white at all where the spot says.
        let (classes, matrix) = scene(|_, _| false);
        assert_eq!(
            find_penalty_mark(&[seed_spot(0.67, 0.06)], &[], None, &classes, &matrix),
            None
        );
    }
}
