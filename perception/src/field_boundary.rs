//! `FieldBoundary`: where the field begins, per image column, from the scan lines: the top of
//! the first field run at least [`MIN_FIELD_RUN`] long on each line, then the convex envelope
//! from above of those points (B-Human's upper convex hull): a ball, robot or post standing in
//! front of the boundary makes a dip in the raw points, which the envelope bridges.
//! A ball lies on the field, so the ball perceptor rejects candidates whose centre is clearly
//! above it (B-Human searches for balls below the field boundary only).

use crate::scan_lines::ScanLineRegions;

/// A field run must be this long (half-resolution pixels, 16 camera pixels) to count.
pub const MIN_FIELD_RUN: usize = 8;

/// Field start per scan line, in full-resolution pixels.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FieldBoundary {
    /// (x, y) in camera pixels, sorted by x; lines without field are left out.
    pub points: Vec<(f32, f32)>,
}

impl FieldBoundary {
    pub fn from_scan_lines(scan_lines: &ScanLineRegions) -> Self {
        let points = scan_lines
            .lines
            .iter()
            .filter_map(|line| {
                line.field_start(MIN_FIELD_RUN)
                    .map(|start| (2.0 * line.x as f32 + 0.5, 2.0 * start as f32))
            })
            .collect();
        Self {
            points: envelope_from_above(points),
        }
    }

    /// The row where the field begins at column `x`; None when no scan line saw field.
    pub fn y_at(&self, x: f32) -> Option<f32> {
        let first = self.points.first()?;
        let last = self.points.last()?;
        if x <= first.0 {
            return Some(first.1);
        }
        if x >= last.0 {
            return Some(last.1);
        }
        let right = self.points.iter().position(|point| point.0 >= x)?;
        let (x0, y0) = self.points[right - 1];
        let (x1, y1) = self.points[right];
        Some(y0 + (y1 - y0) * (x - x0) / (x1 - x0).max(1e-3))
    }
}

/// The largest convex function (rows grow downwards) at or above every point: a point that
/// lies below the segment between its neighbours on the envelope is dropped.
fn envelope_from_above(points: Vec<(f32, f32)>) -> Vec<(f32, f32)> {
    let mut hull: Vec<(f32, f32)> = Vec::with_capacity(points.len());
    for point in points {
        while hull.len() >= 2 {
            let (a, middle) = (hull[hull.len() - 2], hull[hull.len() - 1]);
            let on_segment = a.1 + (point.1 - a.1) * (middle.0 - a.0) / (point.0 - a.0).max(1e-3);
            if middle.1 >= on_segment {
                hull.pop();
            } else {
                break;
            }
        }
        hull.push(point);
    }
    hull
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundary_is_interpolated_between_lines_and_held_beyond_them() {
        let boundary = FieldBoundary {
            points: vec![(10.0, 100.0), (30.0, 140.0)],
        };
        assert_eq!(boundary.y_at(0.0), Some(100.0));
        assert_eq!(boundary.y_at(20.0), Some(120.0));
        assert_eq!(boundary.y_at(50.0), Some(140.0));
        assert_eq!(FieldBoundary::default().y_at(5.0), None);
    }

    #[test]
    fn dips_from_objects_in_front_of_the_boundary_are_bridged() {
        // A field corner seen from inside (highest at x = 10..30) with a ball at x = 20.
        let points = vec![
            (0.0, 100.0),
            (10.0, 90.0),
            (20.0, 180.0),
            (30.0, 90.0),
            (40.0, 100.0),
        ];
        let hull = envelope_from_above(points);
        assert_eq!(
            hull,
            vec![(0.0, 100.0), (10.0, 90.0), (30.0, 90.0), (40.0, 100.0)]
        );
        // A point below the straight boundary is a dip as well.
        let hull = envelope_from_above(vec![(0.0, 100.0), (10.0, 104.0), (20.0, 100.0)]);
        assert_eq!(hull, vec![(0.0, 100.0), (20.0, 100.0)]);
    }
}
