//! The modules of the perception processes (`perception.upper`, `perception.lower`), run by
//! `framework`: one frame in, percepts out, each stage a module of its own so that
//! `cortex status --modules` times each one. B-Human's names.
//!
//! | module | provides | from |
//! |---|---|---|
//! | [`CameraProvider`] | `CameraImage` | the camera (files, simulated, V4L2); the pixels also on the image channel while watched |
//! | [`CameraMatrixProvider`] | `CameraMatrix` | `SensorData` (head joints, IMU), the frame's size |
//! | [`BodyContourProvider`] | `BodyContour` | `CameraImage`, `CameraMatrix`, `SensorData` (leg joints) |
//! | [`ECImageProvider`] | `ECImage` | `CameraImage` |
//! | [`FieldColorProvider`] | `FieldColors` | `ECImage` |
//! | [`ColorClassifier`] | `ColorClassImage` | `ECImage`, `FieldColors` |
//! | [`ScanLineRegionizer`] | `ColorScanLineRegions` | `ColorClassImage` |
//! | [`FieldBoundaryProvider`] | `FieldBoundary` | `ColorScanLineRegions` |
//! | [`BallSpotsProvider`] | `BallSpots` | `ColorClassImage`, `FieldBoundary`, `BodyContour` |
//! | [`BallPerceptor`] | `BallPercept` | `CameraImage`, `FieldColors`, `BallSpots`, `FieldBoundary`, `CameraMatrix`, `BodyContour` |
//! | [`LinePerceptor`] | `LinesPercept` | `ColorClassImage`, `FieldBoundary`, `CameraMatrix`, `BodyContour` |
//! | [`PenaltyMarkPerceptor`] | `PenaltyMarkPercept` | `LinesPercept` (its spots), `ColorClassImage`, `CameraMatrix` |
//!
//! The process ticks when its camera has a frame (the `CameraProvider` waits for it), so every
//! tick is a new frame and each stage works on it at once.

mod ball_perceptor;
mod ball_spots_provider;
mod body_contour_provider;
mod camera_matrix_provider;
mod camera_provider;
mod color_classifier;
mod ec_image_provider;
mod field_boundary_provider;
mod field_color_provider;
mod line_perceptor;
mod penalty_mark_perceptor;
mod scan_line_regionizer;

pub use ball_perceptor::BallPerceptor;
pub use ball_spots_provider::BallSpotsProvider;
pub use body_contour_provider::{leg_joint_ids, leg_joints, BodyContourProvider};
pub use camera_matrix_provider::{
    kinematic_state, CameraMatrixProvider, CameraMatrixProviderParameters,
};
pub use camera_provider::{
    CameraOpenError, CameraProvider, CameraProviderParameters, CameraSettings, CameraSource,
    EXIT_CAMERA_FAILED, EXIT_CAMERA_UNAVAILABLE,
};
pub use color_classifier::ColorClassifier;
pub use ec_image_provider::ECImageProvider;
pub use field_boundary_provider::FieldBoundaryProvider;
pub use field_color_provider::FieldColorProvider;
pub use line_perceptor::{lines_percept, LinePerceptor};
pub use penalty_mark_perceptor::PenaltyMarkPerceptor;
pub use scan_line_regionizer::ScanLineRegionizer;

use framework::ModuleRegistry;
use types::CameraName;

/// Every module of the perception processes.
pub fn modules() -> ModuleRegistry {
    ModuleRegistry::default()
        .with::<CameraProvider>()
        .with::<CameraMatrixProvider>()
        .with::<BodyContourProvider>()
        .with::<ECImageProvider>()
        .with::<FieldColorProvider>()
        .with::<ColorClassifier>()
        .with::<ScanLineRegionizer>()
        .with::<FieldBoundaryProvider>()
        .with::<BallSpotsProvider>()
        .with::<BallPerceptor>()
        .with::<LinePerceptor>()
        .with::<PenaltyMarkPerceptor>()
}

/// The camera of this process: `lower` when it runs as `cortex proc perception.lower`, else
/// `upper` (tests and tools that build the modules by hand get the upper camera).
pub fn this_camera() -> CameraName {
    let mut arguments = std::env::args().skip(1);
    match (arguments.next().as_deref(), arguments.next()) {
        (Some("proc"), Some(name)) if name.ends_with(".lower") => CameraName::Lower,
        _ => CameraName::Upper,
    }
}

/// The perception crate's camera position for a camera.
pub fn camera_position(camera: CameraName) -> crate::camera_matrix::CameraPosition {
    match camera {
        CameraName::Upper => crate::camera_matrix::CameraPosition::Upper,
        CameraName::Lower => crate::camera_matrix::CameraPosition::Lower,
    }
}
