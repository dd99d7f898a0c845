//! `BodyContour`: the part of a camera image the robot's own legs cover (B-Human's
//! `BodyContour`). The lower camera of a robot that looks down at a ball near its feet sees its
//! own feet, shins and thighs along the bottom of the image: white and grey shells with dark
//! joints, which the ball search would otherwise take for balls or let crowd the real ball out.
//!
//! The legs' shape is `kinematics::body_shape` (one box per link), placed by the legs' forward
//! kinematics from the joint angles and projected with the frame's camera matrix. The contour
//! keeps, per image column, the topmost row the legs cover: everything at and below it in that
//! column counts as the robot itself (the legs are the nearest thing the camera sees there, so
//! what lies below their top in the image is either leg or hidden by it). A projected box is a
//! convex polygon whose outline is the projection of some of its edges, so the top per column
//! is the highest of the projected edges there; edges are clipped where they pass behind the
//! camera.
//!
//! Frames without a known posture (`cortex perceive`, files) have no contour: nothing is left
//! out.

use crate::camera_matrix::CameraMatrix;
use kinematics::body_shape::{leg_boxes_in_torso, LinkBox};
use kinematics::{LegJoints, Side};
use nalgebra::{Isometry3, Point2, Point3};

/// Points this close to the camera's plane (m, along its optical axis) or behind it are not
/// projected: the edge is cut there.
const NEAR_M: f32 = 0.01;

/// The robot's own legs in one frame: per column, the topmost row they cover.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BodyContour {
    /// Per column of the full-resolution image, the topmost row (pixel coordinates, may be
    /// above the image's top) the legs cover; `None` where they cover nothing.
    tops: Vec<Option<f32>>,
    height: usize,
}

impl BodyContour {
    /// No body in view (frames without a known posture).
    pub fn empty(width: usize, height: usize) -> Self {
        Self {
            tops: vec![None; width],
            height,
        }
    }

    /// The legs at these joint angles (`[left, right]`) seen through `matrix`, for an image of
    /// `width` × `height` pixels.
    pub fn of_legs(
        matrix: &CameraMatrix,
        legs: &[LegJoints<f64>; 2],
        width: usize,
        height: usize,
    ) -> Self {
        let mut contour = Self::empty(width, height);
        for (side, joints) in [Side::Left, Side::Right].into_iter().zip(legs) {
            for (pose, link_box) in leg_boxes_in_torso(side, joints) {
                contour.add_box(matrix, &pose.cast::<f32>(), &link_box);
            }
        }
        contour
    }

    /// Adds one box (its pose: box coordinates → torso).
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
        for (start, end) in LinkBox::EDGES {
            let Some((start, end)) = clipped_to_front(corners[start], corners[end]) else {
                continue;
            };
            let (start, end) = (matrix.camera_to_pixel(&start), matrix.camera_to_pixel(&end));
            self.add_segment(start, end);
        }
    }

    /// Raises the columns' tops to a projected edge from `a` to `b` (a straight line in the
    /// image: the projection of a straight edge).
    fn add_segment(&mut self, a: Point2<f32>, b: Point2<f32>) {
        let (left, right) = if a.x <= b.x { (a, b) } else { (b, a) };
        let width = self.tops.len();
        if width == 0 || right.x < -0.5 || left.x > width as f32 - 0.5 {
            return;
        }
        // The columns whose centre lies within the segment's extent (a segment shorter than a
        // column still marks the column it lies in).
        let first = (left.x.max(0.0).round() as usize).min(width - 1);
        let last = (right.x.min(width as f32 - 1.0).round() as usize).min(width - 1);
        let slope = if right.x - left.x > 1e-6 {
            (right.y - left.y) / (right.x - left.x)
        } else {
            0.0
        };
        for column in first..=last {
            let x = (column as f32).clamp(left.x, right.x);
            let y = if right.x - left.x > 1e-6 {
                left.y + slope * (x - left.x)
            } else {
                left.y.min(right.y)
            };
            let top = &mut self.tops[column];
            *top = Some(top.map_or(y, |top| top.min(y)));
        }
    }

    /// Whether the pixel (x, y) shows the robot's own legs (at or below their top in its
    /// column). Pixels outside the image's columns are not.
    pub fn is_body(&self, x: f32, y: f32) -> bool {
        self.top_at(x).is_some_and(|top| y >= top)
    }

    /// The topmost row the legs cover in the column of `x`; `None` where they cover nothing
    /// in view.
    pub fn top_at(&self, x: f32) -> Option<f32> {
        if x < -0.5 {
            return None;
        }
        let column = (x + 0.5) as usize;
        self.tops
            .get(column)
            .copied()
            .flatten()
            .filter(|&top| top < self.height as f32)
    }

    /// The highest row the legs reach in the image (`None`: none in view).
    pub fn highest_row(&self) -> Option<f32> {
        (0..self.tops.len())
            .filter_map(|column| self.top_at(column as f32))
            .reduce(f32::min)
    }

    /// How many columns show the legs.
    pub fn columns(&self) -> usize {
        (0..self.tops.len())
            .filter(|&column| self.top_at(column as f32).is_some())
            .count()
    }

    /// Whether nothing of the legs is in view.
    pub fn is_empty(&self) -> bool {
        self.columns() == 0
    }
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
    use simulator::scene::{legs_standing, STANDING_TORSO_HEIGHT_M};

    /// Both soles flat on the ground below the hips, the torso at the standing height (what
    /// the simulator renders).
    fn standing_legs() -> [LegJoints<f64>; 2] {
        legs_standing(STANDING_TORSO_HEIGHT_M)
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
        let legs = standing_legs();
        let contour = BodyContour::of_legs(&matrix(CameraPosition::Lower, 0.5), &legs, 640, 480);
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
        let legs = standing_legs();
        for camera in [CameraPosition::Upper, CameraPosition::Lower] {
            let contour = BodyContour::of_legs(&matrix(camera, 0.0), &legs, 640, 480);
            assert!(
                contour.is_empty(),
                "{camera:?}: {:?}",
                contour.highest_row()
            );
        }
    }

    #[test]
    fn a_column_is_body_from_the_legs_top_down() {
        let legs = standing_legs();
        let contour = BodyContour::of_legs(&matrix(CameraPosition::Lower, 0.5), &legs, 640, 480);
        let column = (0..640)
            .find(|&column| contour.top_at(column as f32).is_some())
            .unwrap() as f32;
        let top = contour.top_at(column).unwrap();
        assert!(contour.is_body(column, top.max(0.0) + 1.0));
        assert!(contour.is_body(column, 479.0));
        assert!(!contour.is_body(column, top - 1.0));
        // Outside the image's columns nothing is body.
        assert!(!contour.is_body(-5.0, 479.0) && !contour.is_body(700.0, 479.0));
    }

    #[test]
    fn an_edge_behind_the_camera_is_cut_at_the_near_plane() {
        let (a, b) = (Point3::new(-1.0, 0.0, 0.0), Point3::new(1.0, 2.0, 0.0));
        let (front_a, front_b) = clipped_to_front(a, b).unwrap();
        assert!((front_a.x - NEAR_M).abs() < 1e-6 && front_b == b);
        assert!(clipped_to_front(a, Point3::new(-0.5, 1.0, 0.0)).is_none());
    }
}
