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

/// Why the head cannot look at a point.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HeadLookAtError {
    /// The point contains NaN or infinity.
    #[error("head look-at: the target {target:?} is not finite")]
    NonFiniteTarget { target: [f64; 3] },
    /// The point is so close to the neck that no pitch puts it on the camera's axis.
    #[error(
        "head look-at: the target {target:?} is within {radius_m:.3} m of the neck, too close \
         for the {camera:?} camera"
    )]
    TooClose {
        target: [f64; 3],
        camera: Camera,
        radius_m: f64,
    },
}

/// Head angles that put a point on a camera's optical axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeadAngles {
    pub yaw_rad: f64,
    pub pitch_rad: f64,
    /// An angle was clamped into its joint limits: the point is off the axis.
    pub clamped: bool,
}

/// The head yaw and pitch that make `camera` look straight at `target` (torso frame).
///
/// Both cameras lie in the head's x-z plane, so the yaw turns the head towards the point; the
/// pitch then solves `r·sin(p + m) + h·cos(p + m) = k` in that plane, where `(r, h)` is the
/// point relative to the neck, `m` the camera's mounting pitch and `k` the camera's offset
/// across its own axis. Angles beyond the joint limits are clamped and flagged.
pub fn head_look_at(target: &Vector3<f64>, camera: Camera) -> Result<HeadAngles, HeadLookAtError> {
    let as_array = [target.x, target.y, target.z];
    if !target.iter().all(|value| value.is_finite()) {
        return Err(HeadLookAtError::NonFiniteTarget { target: as_array });
    }
    let (position, mounting) = match camera {
        Camera::Top => (TOP_CAMERA_IN_HEAD_M, TOP_CAMERA_PITCH_RAD),
        Camera::Bottom => (BOTTOM_CAMERA_IN_HEAD_M, BOTTOM_CAMERA_PITCH_RAD),
    };
    let yaw = target.y.atan2(target.x);
    let forward = target.x.hypot(target.y);
    let height = target.z - NECK_OFFSET_Z_M;
    let radius = forward.hypot(height);
    let across = position.x * mounting.sin() + position.z * mounting.cos();
    if radius <= across.abs() {
        return Err(HeadLookAtError::TooClose {
            target: as_array,
            camera,
            radius_m: across.abs(),
        });
    }
    // Of the two pitches, the one with the point in front of the camera.
    let base = forward.atan2(height);
    let spread = (across / radius).acos();
    let in_front = |pitch: f64| {
        let axis = pitch + mounting;
        let (sin, cos) = pitch.sin_cos();
        let camera_x = cos * position.x + sin * position.z;
        let camera_z = -sin * position.x + cos * position.z;
        (forward - camera_x) * axis.cos() - (height - camera_z) * axis.sin()
    };
    let first = base - spread - mounting;
    let second = base + spread - mounting;
    let pitch = if in_front(first) > 0.0 { first } else { second };
    let pitch =
        (pitch + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU) - std::f64::consts::PI;
    let yaw_clamped = crate::limits::HEAD_YAW.clamp(yaw);
    let pitch_clamped = crate::limits::HEAD_PITCH.clamp(pitch);
    Ok(HeadAngles {
        yaw_rad: yaw_clamped,
        pitch_rad: pitch_clamped,
        clamped: yaw_clamped != yaw || pitch_clamped != pitch,
    })
}
