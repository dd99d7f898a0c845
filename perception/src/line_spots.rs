//! `LineSpot`s: where a scan line crosses a white field line, placed on the ground (B-Human's
//! line spots from `ColorScanLineRegions`).
//!
//! The colour classes are scanned along columns and rows (every [`SCAN_SPACING`] half-resolution
//! pixels: vertical scans cross lines that run across the image, horizontal ones lines that run
//! away from the robot). A spot is a gap in the field colour — field on both sides, mostly white
//! in between, nothing dark (a ball's patches) — whose two edges, projected to the ground with
//! the camera matrix, are no further apart than a 5 cm line crossed at a slant
//! ([`MAX_CROSSING_M`]), allowing the ground footprint of the pixels at either edge. A robot's
//! white leg, a goal post or a wall fail this test: they are much wider on the ground than any
//! line, or do not lie on it at all (above the field boundary).

use crate::camera_matrix::CameraMatrix;
use crate::color_classes::ColorClasses;
use crate::field_boundary::FieldBoundary;
use crate::field_color::PixelClass;
use nalgebra::{Point2, Point3};

/// Distance between scan lines, half-resolution pixels (8 camera pixels).
pub const SCAN_SPACING: usize = 4;
/// A field run must be this long on both sides of a gap (half-resolution pixels).
pub const MIN_FIELD_RUN: usize = 2;
/// At least this share of a gap's pixels is white.
pub const MIN_WHITE_SHARE: f32 = 0.6;
/// The most ground a scan may cross on a 5 cm line: crossed at 15° to its direction.
pub const MAX_CROSSING_M: f32 = 0.2;
/// Spots further away than this are too coarse to place (a half-resolution pixel there covers
/// more than the line's width).
pub const MAX_SPOT_DISTANCE_M: f32 = 6.0;
/// A spot may lie this far above the field boundary (camera pixels): the boundary is found on
/// coarser scan lines.
const BOUNDARY_MARGIN_PX: f32 = 8.0;

/// One crossing of a scan line with a white line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineSpot {
    /// The middle of the white gap, camera pixels.
    pub pixel: Point2<f32>,
    /// The same on the ground, robot frame, m.
    pub ground: Point2<f32>,
    /// Ground distance between the gap's two edges, m.
    pub crossing_m: f32,
    /// Ground one classified pixel covers there along the scan, m (the crossing's resolution).
    pub footprint_m: f32,
}

/// The spots of one frame.
pub fn find_line_spots(
    classes: &ColorClasses,
    boundary: &FieldBoundary,
    matrix: &CameraMatrix,
) -> Vec<LineSpot> {
    let mut spots = Vec::new();
    let mut column = Vec::with_capacity(classes.height);
    for x in (SCAN_SPACING / 2..classes.width).step_by(SCAN_SPACING) {
        column.clear();
        column.extend((0..classes.height).map(|y| classes.get(x, y)));
        for (start, end) in white_gaps(&column) {
            let across = 2.0 * x as f32 + 1.0;
            let edge = |row: usize| Point2::new(across, 2.0 * row as f32);
            if let Some(spot) = spot(edge(start), edge(end), boundary, matrix) {
                spots.push(spot);
            }
        }
    }
    for y in (SCAN_SPACING / 2..classes.height).step_by(SCAN_SPACING) {
        let row = &classes.classes[y * classes.width..(y + 1) * classes.width];
        for (start, end) in white_gaps(row) {
            let across = 2.0 * y as f32 + 1.0;
            let edge = |column: usize| Point2::new(2.0 * column as f32, across);
            if let Some(spot) = spot(edge(start), edge(end), boundary, matrix) {
                spots.push(spot);
            }
        }
    }
    spots
}

/// The gaps `start..end` in the field colour along one scan that may be a line: field runs of
/// at least [`MIN_FIELD_RUN`] on both sides, white for the most part, nothing dark.
pub fn white_gaps(scan: &[PixelClass]) -> Vec<(usize, usize)> {
    let mut gaps = Vec::new();
    let mut field_run = 0;
    let mut gap_start: Option<usize> = None;
    let (mut white, mut dark) = (0usize, 0usize);
    let mut index = 0;
    while index < scan.len() {
        let class = scan[index];
        if class == PixelClass::Field {
            // The field run after a gap must be long enough before the gap counts.
            let run_start = index;
            while index < scan.len() && scan[index] == PixelClass::Field {
                index += 1;
            }
            let run = index - run_start;
            if let Some(start) = gap_start.take() {
                let length = run_start - start;
                if run >= MIN_FIELD_RUN
                    && dark == 0
                    && white as f32 >= MIN_WHITE_SHARE * length as f32
                {
                    gaps.push((start, run_start));
                }
            }
            field_run = run;
            continue;
        }
        if gap_start.is_none() {
            if field_run < MIN_FIELD_RUN {
                // No field before this gap (the image's edge, or a short run): not a line.
                index += 1;
                field_run = 0;
                continue;
            }
            gap_start = Some(index);
            white = 0;
            dark = 0;
        }
        match class {
            PixelClass::White => white += 1,
            PixelClass::Dark => dark += 1,
            _ => {}
        }
        index += 1;
    }
    gaps
}

/// The spot of a gap between the camera pixels `first` and `last` (its two edges), if it is
/// on the field and as wide on the ground as a line.
fn spot(
    first: Point2<f32>,
    last: Point2<f32>,
    boundary: &FieldBoundary,
    matrix: &CameraMatrix,
) -> Option<LineSpot> {
    let middle = Point2::from((first.coords + last.coords) * 0.5);
    if boundary
        .y_at(middle.x)
        .is_some_and(|top| middle.y < top - BOUNDARY_MARGIN_PX)
    {
        return None;
    }
    let ground = |pixel: &Point2<f32>| {
        matrix
            .pixel_to_plane(pixel, 0.0)
            .map(|point: Point3<f32>| Point2::new(point.x, point.y))
    };
    let (start, end, center) = (ground(&first)?, ground(&last)?, ground(&middle)?);
    if center.coords.norm() > MAX_SPOT_DISTANCE_M {
        return None;
    }
    // The ground two camera pixels (one classified pixel) cover at each edge, along the scan.
    let step = (last - first).try_normalize(1e-6)? * 2.0;
    let footprint = |pixel: &Point2<f32>, ground_point: &Point2<f32>| {
        ground(&(pixel + step)).map_or(f32::INFINITY, |next| (next - ground_point).norm())
    };
    let slack = footprint(&first, &start) + footprint(&last, &end);
    let crossing_m = (end - start).norm();
    (crossing_m <= MAX_CROSSING_M + slack).then_some(LineSpot {
        pixel: middle,
        ground: center,
        crossing_m,
        footprint_m: slack / 2.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use PixelClass::{Dark, Field, Other, White};

    #[test]
    fn a_white_gap_between_field_runs_is_a_line_candidate() {
        let scan = [
            Other, Field, Field, Field, Other, White, White, White, Field, Field, White, White,
            Dark, Field, Field, White, White, Field, Other, White, White,
        ];
        // 4..8: white with a blended edge; 10..13 has a dark pixel (a ball); 15..17 is followed
        // by a one-pixel field run; the white at the end has no field after it.
        assert_eq!(white_gaps(&scan), vec![(4, 8)]);
        // Not mostly white: a gap of other colours.
        assert!(white_gaps(&[Field, Field, Other, Other, White, Field, Field]).is_empty());
        assert!(white_gaps(&[]).is_empty());
        assert!(white_gaps(&[White; 9]).is_empty());
    }
}
