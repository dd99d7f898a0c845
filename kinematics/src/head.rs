//! The head: torso → neck (yaw about z, then pitch about y) → the two cameras.
//!
//! A camera frame has its origin at the camera, x along the optical axis, y to the image's left,
//! z up in the image (the robotics convention); it is the head frame pitched down by the
//! camera's mounting angle.

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};

use crate::dimensions::{
    BOTTOM_CAMERA_IN_HEAD_M, BOTTOM_CAMERA_PITCH_RAD, NECK_OFFSET_Z_M, TOP_CAMERA_IN_HEAD_M,
    TOP_CAMERA_PITCH_RAD,
};

/// Which camera.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Camera {
    Top,
    Bottom,
}

/// Every frame of the head, in the torso frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeadFrames {
    /// The head frame: origin at the neck joint, turned by yaw and pitch.
    pub head: Isometry3<f64>,
    pub top_camera: Isometry3<f64>,
    pub bottom_camera: Isometry3<f64>,
}

impl HeadFrames {
    /// The frame of one camera.
    pub fn camera(&self, camera: Camera) -> Isometry3<f64> {
        match camera {
            Camera::Top => self.top_camera,
            Camera::Bottom => self.bottom_camera,
        }
    }
}

fn camera_in_head(position: Vector3<f64>, pitch_rad: f64) -> Isometry3<f64> {
    Isometry3::from_parts(
        Translation3::from(position),
        UnitQuaternion::from_axis_angle(&Vector3::y_axis(), pitch_rad),
    )
}

/// Forward kinematics of the head for the joint angles `yaw_rad` (positive: look left) and
/// `pitch_rad` (positive: look down).
pub fn head_frames(yaw_rad: f64, pitch_rad: f64) -> HeadFrames {
    let head = Isometry3::translation(0.0, 0.0, NECK_OFFSET_Z_M)
        * Isometry3::rotation(Vector3::z() * yaw_rad)
        * Isometry3::rotation(Vector3::y() * pitch_rad);
    HeadFrames {
        head,
        top_camera: head * camera_in_head(TOP_CAMERA_IN_HEAD_M, TOP_CAMERA_PITCH_RAD),
        bottom_camera: head * camera_in_head(BOTTOM_CAMERA_IN_HEAD_M, BOTTOM_CAMERA_PITCH_RAD),
    }
}
