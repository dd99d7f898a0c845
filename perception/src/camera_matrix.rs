//! `CameraMatrix`: where a camera is and where it looks, from the head joints, the torso
//! orientation (IMU) and the camera's mounting, and the projections pixel ↔ ground.
//!
//! Frames (all right-handed, metres, radians):
//! - robot: origin on the ground below the torso, x forward, y left, z up;
//! - torso: at `torso_height_m` above the robot origin, rotated by roll (x) then pitch (y);
//! - head: at the neck, 0.1265 m above the torso origin, rotated by head yaw (z) then pitch (y);
//! - camera: at its mounting point in the head frame, pitched down by its mounting angle;
//!   x along the optical axis, y left, z up.
//!
//! Pixels: origin top-left, u to the right, v down; `u = cx − fx·y/x`, `v = cy − fy·z/x` for a
//! point (x, y, z) in the camera frame.

use nalgebra::{Isometry3, Point2, Point3, Translation3, UnitQuaternion, Vector2, Vector3};

/// Neck (head yaw axis) above the torso origin (Aldebaran documentation).
pub const NECK_OFFSET_Z_M: f32 = 0.1265;
/// The SPL ball's radius (rule book: 0.1 m diameter).
pub const BALL_RADIUS_M: f32 = 0.05;

/// Which of the two head cameras (B-Human's `CameraInfo::Camera`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CameraPosition {
    Upper,
    Lower,
}

/// Where a camera sits in the head and how it is pitched; each robot is calibrated, these are
/// the defaults (HULKs' `robot_dimensions.rs` and `camera_matrix_parameters`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CameraExtrinsics {
    pub translation_in_head_m: Vector3<f32>,
    /// Downward pitch of the optical axis relative to the head, radians.
    pub pitch_rad: f32,
}

impl CameraExtrinsics {
    pub fn nao_v6(camera: CameraPosition) -> Self {
        match camera {
            CameraPosition::Upper => Self {
                translation_in_head_m: Vector3::new(0.05871, 0.0, 0.06364),
                pitch_rad: 1.2_f32.to_radians(),
            },
            CameraPosition::Lower => Self {
                translation_in_head_m: Vector3::new(0.05071, 0.0, 0.01774),
                pitch_rad: 39.7_f32.to_radians(),
            },
        }
    }
}

/// Focal lengths and optical centre in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CameraIntrinsics {
    pub focal_length_px: Vector2<f32>,
    pub optical_center_px: Point2<f32>,
}

impl CameraIntrinsics {
    /// The NAO v6 defaults for an image of `width`×`height`: focal lengths 0.96666·width and
    /// 1.28574·height (about 56.3° × 43.7° field of view), centre in the middle.
    pub fn nao_v6(width: usize, height: usize) -> Self {
        let (width, height) = (width as f32, height as f32);
        Self {
            focal_length_px: Vector2::new(0.96666 * width, 1.28574 * height),
            optical_center_px: Point2::new(0.5 * width, 0.5 * height),
        }
    }
}

/// What the camera matrix is computed from: joint angles, the IMU's torso angles, and the
/// torso's height above the ground (from the legs' forward kinematics).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KinematicState {
    pub head_yaw_rad: f32,
    pub head_pitch_rad: f32,
    pub torso_roll_rad: f32,
    pub torso_pitch_rad: f32,
    pub torso_height_m: f32,
}

impl KinematicState {
    /// Standing upright, head straight: the pose `cortex perceive` assumes.
    pub fn standing() -> Self {
        Self {
            head_yaw_rad: 0.0,
            head_pitch_rad: 0.0,
            torso_roll_rad: 0.0,
            torso_pitch_rad: 0.0,
            torso_height_m: 0.31,
        }
    }
}

/// The pose of a camera relative to the robot and its intrinsics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CameraMatrix {
    pub camera_to_robot: Isometry3<f32>,
    /// The torso's pose in the robot frame the chain starts from (what places the robot's own
    /// body, `crate::body_contour`).
    pub torso_to_robot: Isometry3<f32>,
    pub intrinsics: CameraIntrinsics,
}

impl CameraMatrix {
    /// Chains torso (IMU), neck, head yaw and pitch, and the camera's mounting.
    pub fn from_kinematics(
        state: &KinematicState,
        extrinsics: &CameraExtrinsics,
        intrinsics: CameraIntrinsics,
    ) -> Self {
        let torso_to_robot = Isometry3::from_parts(
            Translation3::new(0.0, 0.0, state.torso_height_m),
            UnitQuaternion::from_axis_angle(&Vector3::x_axis(), state.torso_roll_rad)
                * UnitQuaternion::from_axis_angle(&Vector3::y_axis(), state.torso_pitch_rad),
        );
        let head_to_torso = Isometry3::from_parts(
            Translation3::new(0.0, 0.0, NECK_OFFSET_Z_M),
            UnitQuaternion::from_axis_angle(&Vector3::z_axis(), state.head_yaw_rad)
                * UnitQuaternion::from_axis_angle(&Vector3::y_axis(), state.head_pitch_rad),
        );
        let camera_to_head = Isometry3::from_parts(
            Translation3::from(extrinsics.translation_in_head_m),
            UnitQuaternion::from_axis_angle(&Vector3::y_axis(), extrinsics.pitch_rad),
        );
        Self {
            camera_to_robot: torso_to_robot * head_to_torso * camera_to_head,
            torso_to_robot,
            intrinsics,
        }
    }

    /// The default matrix of a camera for an image size and a kinematic state.
    pub fn nao_v6(
        camera: CameraPosition,
        state: &KinematicState,
        width: usize,
        height: usize,
    ) -> Self {
        Self::from_kinematics(
            state,
            &CameraExtrinsics::nao_v6(camera),
            CameraIntrinsics::nao_v6(width, height),
        )
    }

    /// The camera's position in the robot frame.
    pub fn camera_position(&self) -> Point3<f32> {
        self.camera_to_robot * Point3::origin()
    }

    /// The pixel a point in the robot frame lands on; None if it is behind the camera.
    pub fn robot_to_pixel(&self, point: &Point3<f32>) -> Option<Point2<f32>> {
        let in_camera = self.camera_to_robot.inverse_transform_point(point);
        if in_camera.x <= 1e-6 {
            return None;
        }
        Some(self.camera_to_pixel(&in_camera))
    }

    /// The pixel a point in the camera frame (x along the optical axis, y left, z up) lands
    /// on; the point must lie in front of the camera (x > 0).
    pub fn camera_to_pixel(&self, in_camera: &Point3<f32>) -> Point2<f32> {
        let focal = self.intrinsics.focal_length_px;
        let center = self.intrinsics.optical_center_px;
        Point2::new(
            center.x - focal.x * in_camera.y / in_camera.x,
            center.y - focal.y * in_camera.z / in_camera.x,
        )
    }

    /// The viewing ray through a pixel, as a direction in the robot frame.
    pub fn pixel_to_ray(&self, pixel: &Point2<f32>) -> Vector3<f32> {
        let focal = self.intrinsics.focal_length_px;
        let center = self.intrinsics.optical_center_px;
        let in_camera = Vector3::new(
            1.0,
            (center.x - pixel.x) / focal.x,
            (center.y - pixel.y) / focal.y,
        );
        self.camera_to_robot.rotation * in_camera
    }

    /// Where the ray through a pixel meets the plane `z = height_m` (0 for the ground, the ball
    /// radius for a ball's centre); None if it never does (at or above the horizon).
    pub fn pixel_to_plane(&self, pixel: &Point2<f32>, height_m: f32) -> Option<Point3<f32>> {
        let ray = self.pixel_to_ray(pixel);
        let origin = self.camera_position();
        if ray.z >= -1e-6 {
            return None;
        }
        let scale = (height_m - origin.z) / ray.z;
        if scale <= 0.0 {
            return None;
        }
        Some(origin + ray * scale)
    }

    /// The radius in pixels of a ball whose centre is seen at `pixel`; None above the horizon.
    pub fn ball_radius_at(&self, pixel: &Point2<f32>) -> Option<f32> {
        let center = self.pixel_to_plane(pixel, BALL_RADIUS_M)?;
        let distance = (center - self.camera_position()).norm();
        if distance <= BALL_RADIUS_M {
            return None;
        }
        let angle = (BALL_RADIUS_M / distance).asin();
        Some(self.intrinsics.focal_length_px.x * angle.tan())
    }
}
