//! `BodyContour`: the part of a camera image the robot's own legs and arms cover (B-Human's
//! `BodyContour`). The lower camera of a robot that looks down at a ball near its feet sees its
//! own feet, shins and thighs along the bottom of the image, and an arm swung forward in a step
//! or held out by a goalkeeper comes into a corner: white and grey shells with dark joints,
//! which the ball search would otherwise take for balls or let crowd the real ball out.
//!
//! The body's shape is `kinematics::body_shape` (one box per link), placed by the legs' and
//! arms' forward kinematics from the joint angles and projected with the frame's camera matrix.
//! A box in front of the camera projects to a convex polygon: the hull of its corners and of the
//! points where its edges pass the camera's near plane (a box reaching behind the camera is cut
//! there). The contour keeps, per image column, the rows those polygons cover, as spans: a foot
//! covers its columns down to the image's bottom, a hand in a corner only its own rows, and the
//! turf below a hand or between the feet stays searchable. (B-Human counts everything below the
//! body's top in a column as body; with the arms that would hide the ground below a hand.)
//!
//! Frames without a known posture (`cortex perceive`, files) have no contour: nothing is left
//! out.

use crate::camera_matrix::CameraMatrix;
use kinematics::body_shape::{arm_boxes_in_torso, leg_boxes_in_torso, LinkBox};
use kinematics::{ArmJoints, LegJoints, Side};
use nalgebra::{Isometry3, Point2, Point3};

/// Points this close to the camera's plane (m, along its optical axis) or behind it are not
/// projected: the edge is cut there.
const NEAR_M: f32 = 0.01;

/// The joint angles that place the robot's own body: both legs and both arms, `[left, right]`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BodyPosture {
    pub legs: [LegJoints<f64>; 2],
    pub arms: [ArmJoints<f64>; 2],
}

/// The robot's own body in one frame: per column, the rows it covers.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BodyContour {
    /// Per column of the full-resolution image, the rows (pixel coordinates, top ≤ bottom, may
    /// reach beyond the image) the body covers, sorted and not overlapping; empty where it
    /// covers nothing.
    spans: Vec<Vec<(f32, f32)>>,
    height: usize,
}

impl BodyContour {
    /// No body in view (frames without a known posture).
    pub fn empty(width: usize, height: usize) -> Self {
        Self {
            spans: vec![Vec::new(); width],
            height,
        }
    }

    /// The legs and arms at these joint angles seen through `matrix`, for an image of
    /// `width` × `height` pixels.
    pub fn of_body(
        matrix: &CameraMatrix,
        posture: &BodyPosture,
        width: usize,
        height: usize,
    ) -> Self {
        let links: Vec<(Isometry3<f64>, LinkBox)> = [Side::Left, Side::Right]
            .into_iter()
            .enumerate()
            .flat_map(|(index, side)| {
                let legs = leg_boxes_in_torso(side, &posture.legs[index]);
                let arms = arm_boxes_in_torso(side, &posture.arms[index]);
                legs.into_iter().chain(arms)
            })
            .collect();
        Self::of_links(matrix, &links, width, height)
    }

    /// Any link boxes (each with its pose: box coordinates → torso) seen through `matrix`:
    /// [`BodyContour::of_body`]'s projection for a part of the body.
    pub fn of_links(
        matrix: &CameraMatrix,
        links: &[(Isometry3<f64>, LinkBox)],
        width: usize,
        height: usize,
    ) -> Self {
        let mut contour = Self::empty(width, height);
        for (pose, link_box) in links {
            contour.add_box(matrix, &pose.cast::<f32>(), link_box);
        }
        contour
    }

    /// Adds one box (its pose: box coordinates → torso): the columns and rows of its
    /// projection.
    fn add_box(
        &mut self,
        matrix: &CameraMatrix,
        box_to_torso: &Isometry3<f32>,
        link_box: &LinkBox,
    ) {
        let to_camera = matrix.camera_to_robot.inverse() * matrix.torso_to_robot * box_to_torso;
        let corners = link_box
            .corners()
            .map(|corner| to_camera * corner.cast::<f32>());
        let mut points: Vec<Point2<f32>> = Vec::with_capacity(2 * LinkBox::EDGES.len());
        for (start, end) in LinkBox::EDGES {
            if let Some((start, end)) = clipped_to_front(corners[start], corners[end]) {
                points.push(matrix.camera_to_pixel(&start));
                points.push(matrix.camera_to_pixel(&end));
            }
        }
        let hull = convex_hull(points);
        self.add_polygon(&hull);
    }

    /// Adds the rows a convex polygon (its corners in order) covers in each column whose centre
    /// it reaches; a polygon narrower than a column marks the column it lies in.
    fn add_polygon(&mut self, hull: &[Point2<f32>]) {
        let width = self.spans.len();
        let Some((left, right, top, bottom)) = bounds(hull) else {
            return;
        };
        // Wholly beside, above or below the image (a leg below the lower image's bottom edge
        // while the head looks ahead): nothing to add, and no column to walk.
        if width == 0
            || right < -0.5
            || left > width as f32 - 0.5
            || bottom < -0.5
            || top > self.height as f32 - 0.5
        {
            return;
        }
        let first = (left.max(0.0).round() as usize).min(width - 1);
        let last = (right.min(width as f32 - 1.0).round() as usize).min(width - 1);
        for column in first..=last {
            let x = (column as f32).clamp(left, right);
            if let Some(span) = vertical_span(hull, x) {
                insert_span(&mut self.spans[column], span);
            }
        }
    }

    /// Whether the pixel (x, y) shows the robot's own body. Pixels outside the image's
    /// columns do not.
    pub fn is_body(&self, x: f32, y: f32) -> bool {
        self.spans_at(x)
            .iter()
            .any(|&(top, bottom)| (top..=bottom).contains(&y))
    }

    /// The rows the body covers in the column of `x` (top ≤ bottom, sorted, not overlapping;
    /// pixel coordinates that may reach beyond the image).
    pub fn spans_at(&self, x: f32) -> &[(f32, f32)] {
        if x.is_nan() || x < -0.5 {
            return &[];
        }
        self.spans
            .get((x + 0.5) as usize)
            .map_or(&[], |spans| spans.as_slice())
    }

    /// The topmost row the body covers in the column of `x` within the image; `None` where
    /// it covers nothing in view.
    pub fn top_at(&self, x: f32) -> Option<f32> {
        let height = self.height as f32;
        self.spans_at(x)
            .iter()
            .find(|&&(top, bottom)| top < height && bottom >= 0.0)
            .map(|&(top, _)| top)
    }

    /// The highest row the body reaches in the image (`None`: none in view).
    pub fn highest_row(&self) -> Option<f32> {
        (0..self.spans.len())
            .filter_map(|column| self.top_at(column as f32))
            .reduce(f32::min)
    }

    /// How many columns show the body.
    pub fn columns(&self) -> usize {
        (0..self.spans.len())
            .filter(|&column| self.top_at(column as f32).is_some())
            .count()
    }

    /// Whether nothing of the body is in view.
    pub fn is_empty(&self) -> bool {
        self.columns() == 0
    }
}

/// The smallest and largest x and y of `points` (left, right, top, bottom); `None` without
/// points.
fn bounds(points: &[Point2<f32>]) -> Option<(f32, f32, f32, f32)> {
    points.iter().fold(None, |bounds, point| {
        Some(bounds.map_or(
            (point.x, point.x, point.y, point.y),
            |(left, right, top, bottom): (f32, f32, f32, f32)| {
                (
                    left.min(point.x),
                    right.max(point.x),
                    top.min(point.y),
                    bottom.max(point.y),
                )
            },
        ))
    })
}

/// Adds `span` to a column's sorted, disjoint spans, merging what it overlaps or touches.
fn insert_span(spans: &mut Vec<(f32, f32)>, (mut top, mut bottom): (f32, f32)) {
    spans.retain(|&(other_top, other_bottom)| {
        let overlaps = other_top <= bottom + 1.0 && top <= other_bottom + 1.0;
        if overlaps {
            top = top.min(other_top);
            bottom = bottom.max(other_bottom);
        }
        !overlaps
    });
    let index = spans.partition_point(|&(other_top, _)| other_top < top);
    spans.insert(index, (top, bottom));
}

/// The rows a convex polygon covers at column `x`: the lowest and highest crossing of its
/// edges with that vertical line (`None` when it does not reach it).
fn vertical_span(hull: &[Point2<f32>], x: f32) -> Option<(f32, f32)> {
    let mut span: Option<(f32, f32)> = None;
    let mut add = |y: f32| {
        span = Some(span.map_or((y, y), |(top, bottom)| (top.min(y), bottom.max(y))));
    };
    for (index, &a) in hull.iter().enumerate() {
        let b = hull[(index + 1) % hull.len()];
        let (low, high) = if a.x <= b.x { (a, b) } else { (b, a) };
        if x < low.x || x > high.x {
            continue;
        }
        if high.x - low.x > 1e-6 {
            add(low.y + (high.y - low.y) * (x - low.x) / (high.x - low.x));
        } else {
            add(low.y);
            add(high.y);
        }
    }
    span
}

/// The convex hull of `points` in order (Andrew's monotone chain); points that are not finite
/// are dropped.
fn convex_hull(mut points: Vec<Point2<f32>>) -> Vec<Point2<f32>> {
    points.retain(|point| point.x.is_finite() && point.y.is_finite());
    points.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    points.dedup();
    if points.len() < 3 {
        return points;
    }
    let cross = |o: Point2<f32>, a: Point2<f32>, b: Point2<f32>| {
        (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
    };
    let chain = |ordered: &mut dyn Iterator<Item = &Point2<f32>>| {
        let mut chain: Vec<Point2<f32>> = Vec::new();
        for &point in ordered {
            while chain.len() >= 2
                && cross(chain[chain.len() - 2], chain[chain.len() - 1], point) <= 0.0
            {
                chain.pop();
            }
            chain.push(point);
        }
        // Its last point is the first of the other chain.
        chain.pop();
        chain
    };
    let mut hull = chain(&mut points.iter());
    hull.extend(chain(&mut points.iter().rev()));
    hull
}

/// The part of the segment from `a` to `b` (camera coordinates, x along the optical axis) in
/// front of the camera ([`NEAR_M`]); `None` if all of it is behind.
fn clipped_to_front(a: Point3<f32>, b: Point3<f32>) -> Option<(Point3<f32>, Point3<f32>)> {
    match (a.x >= NEAR_M, b.x >= NEAR_M) {
        (true, true) => Some((a, b)),
        (false, false) => None,
        (a_in_front, _) => {
            let share = (NEAR_M - a.x) / (b.x - a.x);
            let cut = a + (b - a) * share;
            Some(if a_in_front { (a, cut) } else { (cut, b) })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::camera_matrix::{CameraPosition, KinematicState};
    use simulator::scene::{arms_standing, legs_standing, STANDING_TORSO_HEIGHT_M};

    /// Both soles flat on the ground below the hips, the torso at the standing height, the arms
    /// hanging at the sides as in the stand and the walk (what the simulator renders).
    fn standing() -> BodyPosture {
        BodyPosture {
            legs: legs_standing(STANDING_TORSO_HEIGHT_M),
            arms: arms_standing(),
        }
    }

    fn matrix(camera: CameraPosition, head_pitch_rad: f32) -> CameraMatrix {
        CameraMatrix::nao_v6(
            camera,
            &KinematicState {
                head_pitch_rad,
                ..KinematicState::standing()
            },
            640,
            480,
        )
    }

    #[test]
    fn looking_down_the_lower_camera_sees_the_feet_along_its_bottom() {
        let contour =
            BodyContour::of_body(&matrix(CameraPosition::Lower, 0.5), &standing(), 640, 480);
        assert!(!contour.is_empty());
        // The toes: each foot's front edge, on the ground, projects into the image; its pixel
        // is body, and a point 5 cm beyond the toes (where a ball would lie) is not.
        let camera = matrix(CameraPosition::Lower, 0.5);
        for side in [Side::Left, Side::Right] {
            let toe = Point3::new(0.105, side.sign() as f32 * 0.05, 0.01);
            let pixel = camera.robot_to_pixel(&toe).unwrap();
            assert!(
                (0.0..640.0).contains(&pixel.x) && (0.0..480.0).contains(&pixel.y),
                "{side:?} toe at {pixel}"
            );
            assert!(
                contour.is_body(pixel.x, pixel.y + 2.0),
                "{side:?} toe at {pixel}"
            );
            let ahead = camera
                .robot_to_pixel(&Point3::new(0.2, side.sign() as f32 * 0.05, 0.05))
                .unwrap();
            assert!(!contour.is_body(ahead.x, ahead.y), "ahead at {ahead}");
        }
        // The legs stay in the lower part of the image; the top rows are free.
        assert!(
            contour.highest_row().unwrap() > 200.0,
            "{:?}",
            contour.highest_row()
        );
        assert!(!contour.is_body(320.0, 100.0));
    }

    #[test]
    fn looking_ahead_neither_camera_sees_the_legs() {
        for camera in [CameraPosition::Upper, CameraPosition::Lower] {
            let contour = BodyContour::of_body(&matrix(camera, 0.0), &standing(), 640, 480);
            assert!(
                contour.is_empty(),
                "{camera:?}: {:?}",
                contour.highest_row()
            );
        }
    }

    #[test]
    fn a_column_below_a_foot_is_body_down_to_the_bottom_and_between_the_feet_is_turf() {
        let camera = matrix(CameraPosition::Lower, 0.5);
        let contour = BodyContour::of_body(&camera, &standing(), 640, 480);
        // Each foot's middle column: from the foot's top down to the image's bottom.
        for side in [Side::Left, Side::Right] {
            let foot = camera
                .robot_to_pixel(&Point3::new(0.05, side.sign() as f32 * 0.055, 0.0))
                .unwrap();
            let top = contour.top_at(foot.x).unwrap();
            assert!(contour.is_body(foot.x, top.max(0.0) + 1.0), "{side:?}");
            assert!(contour.is_body(foot.x, 479.0), "{side:?}");
            assert!(!contour.is_body(foot.x, top - 1.0), "{side:?}");
        }
        // The ground between the toes, 5 cm ahead of the ankles, in the middle: no foot there.
        let between = camera.robot_to_pixel(&Point3::new(0.08, 0.0, 0.0)).unwrap();
        assert!(!contour.is_body(between.x, between.y), "{between}");
        // Outside the image's columns nothing is body, nor at a coordinate that is no number.
        assert!(!contour.is_body(-5.0, 479.0) && !contour.is_body(700.0, 479.0));
        let left_foot = camera
            .robot_to_pixel(&Point3::new(0.05, 0.055, 0.0))
            .unwrap();
        assert!(contour.is_body(left_foot.x, 479.0));
        assert!(!contour.is_body(f32::NAN, 479.0) && !contour.is_body(left_foot.x, f32::NAN));
    }

    #[test]
    fn an_arm_swung_forward_comes_into_the_lower_image() {
        let camera = matrix(CameraPosition::Lower, 0.5);
        let mut posture = standing();
        // Swung forward by 21° from hanging (as in a step of the walk): the fingers come into
        // the image's left edge.
        posture.arms[0].shoulder_pitch = 1.2;
        posture.arms[0].shoulder_roll = 0.0;
        let contour = BodyContour::of_body(&camera, &posture, 640, 480);
        let hanging = BodyContour::of_body(&camera, &standing(), 640, 480);
        let hand = kinematics::arm_frames(Side::Left, &posture.arms[0]).hand;
        let fingers = hand * nalgebra::Point3::new(0.08, 0.0, 0.0);
        let in_robot = camera.torso_to_robot * fingers.cast::<f32>();
        let pixel = camera.robot_to_pixel(&in_robot).unwrap();
        assert!(
            (0.0..640.0).contains(&pixel.x) && (0.0..480.0).contains(&pixel.y),
            "fingers at {pixel}"
        );
        assert!(contour.is_body(pixel.x, pixel.y), "fingers at {pixel}");
        assert!(!hanging.is_body(pixel.x, pixel.y), "fingers at {pixel}");
    }

    #[test]
    fn the_hull_of_a_square_and_its_spans() {
        let square = [
            Point2::new(10.0, 10.0),
            Point2::new(20.0, 10.0),
            Point2::new(20.0, 20.0),
            Point2::new(10.0, 20.0),
            Point2::new(15.0, 15.0),
        ];
        let hull = convex_hull(square.to_vec());
        assert_eq!(hull.len(), 4, "{hull:?}");
        assert_eq!(vertical_span(&hull, 15.0), Some((10.0, 20.0)));
        assert_eq!(vertical_span(&hull, 25.0), None);
        let mut contour = BodyContour::empty(40, 30);
        contour.add_polygon(&hull);
        assert!(contour.is_body(15.0, 12.0) && !contour.is_body(15.0, 22.0));
        assert!(!contour.is_body(25.0, 15.0));
        // Two spans in a column merge when they overlap, and stay apart when they do not.
        let mut spans = vec![(0.0, 5.0)];
        insert_span(&mut spans, (20.0, 30.0));
        insert_span(&mut spans, (4.0, 10.0));
        assert_eq!(spans, vec![(0.0, 10.0), (20.0, 30.0)]);
    }

    #[test]
    fn an_edge_behind_the_camera_is_cut_at_the_near_plane() {
        let (a, b) = (Point3::new(-1.0, 0.0, 0.0), Point3::new(1.0, 2.0, 0.0));
        let (front_a, front_b) = clipped_to_front(a, b).unwrap();
        assert!((front_a.x - NEAR_M).abs() < 1e-6 && front_b == b);
        assert!(clipped_to_front(a, Point3::new(-0.5, 1.0, 0.0)).is_none());
    }
}
