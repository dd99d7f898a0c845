//! What the cameras see: the images and intermediate results of the perception processes
//! ([`CameraImage`], [`CameraMatrix`], [`ECImage`], [`FieldColors`], [`ColorClassImage`],
//! [`ColorScanLineRegions`], [`FieldBoundary`], [`BodyContour`], [`BallSpots`]), the percept
//! they share ([`BallPercept`], one per camera: `upper.BallPercept`, `lower.BallPercept`), and
//! cognition's [`BallModel`] built from both.
//!
//! The intermediate results are big (a 640 × 480 frame is 600 KB, its colour classes 75 KB) and
//! only the next module of the same process reads them, so each carries its data as a
//! [`ProcessLocal`] value: shared by pointer within the process, never encoded. What `cortex
//! get upper.FieldBoundary` shows is the small summary beside it (sizes, counts, sequence). The
//! pixels of a camera cross processes through a plain-data channel (no encoding; see
//! `perception::image_channel`).
//!
//! Robot frame: x forward, y left, z up, origin on the ground between the feet.

use serde::{Deserialize, Serialize};
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// A value of this process only: shared by pointer between the modules of one perception
/// process, skipped when the representation is encoded for a channel (a reader in another
/// process sees `None`). Equal when it is the same allocation.
#[derive(Clone, Default)]
pub struct ProcessLocal(Option<Arc<dyn Any + Send + Sync>>);

impl ProcessLocal {
    /// Holds `value`.
    pub fn new<T: Any + Send + Sync>(value: T) -> ProcessLocal {
        ProcessLocal(Some(Arc::new(value)))
    }

    /// The value if there is one and it is a `T`.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.0.as_deref().and_then(|value| value.downcast_ref())
    }

    /// Whether a value is held.
    pub fn is_some(&self) -> bool {
        self.0.is_some()
    }
}

impl fmt::Debug for ProcessLocal {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(if self.0.is_some() {
            "ProcessLocal(..)"
        } else {
            "ProcessLocal(None)"
        })
    }
}

impl PartialEq for ProcessLocal {
    fn eq(&self, other: &ProcessLocal) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// Which of the two head cameras.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum CameraName {
    /// The forehead camera (`perception.upper`), looking ahead.
    #[default]
    Upper,
    /// The mouth camera (`perception.lower`), looking at the feet.
    Lower,
}

impl CameraName {
    /// `upper` or `lower`, as in process and channel names.
    pub fn as_str(self) -> &'static str {
        match self {
            CameraName::Upper => "upper",
            CameraName::Lower => "lower",
        }
    }
}

/// The newest frame of a camera (B-Human's `CameraImage`): its description, and the YUYV
/// frame itself as a [`ProcessLocal`] (`cortex_image::Frame`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CameraImage {
    pub camera: CameraName,
    pub width: u32,
    pub height: u32,
    /// Counts this camera's frames since its process started, from 0.
    pub sequence: u64,
    /// When the frame was taken, monotonic ns (`CLOCK_MONOTONIC`, shared by the processes).
    pub captured_ns: u64,
    /// Where it came from (a device, a file, `simulated`).
    pub source: String,
    /// Whether the frame was taken in the posture `SensorData` gives (a camera of this robot,
    /// real or simulated); false for frames played from files, whose camera matrix assumes a
    /// standing robot looking straight ahead, as `cortex perceive` does.
    pub posture_known: bool,
    #[serde(skip)]
    pub frame: ProcessLocal,
}

/// Where a camera is and how it looks (B-Human's `CameraMatrix` with its `CameraInfo`): from
/// the head joints, the torso orientation (IMU) and the camera's mounting.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CameraMatrix {
    pub camera: CameraName,
    /// Whether it was computed (false before the first frame).
    pub valid: bool,
    /// The camera's optical centre in the robot frame, m.
    pub position_m: [f32; 3],
    /// The head angles it was computed from, rad.
    pub head_yaw_rad: f32,
    pub head_pitch_rad: f32,
    /// The torso's roll and pitch it was computed from (IMU), rad.
    pub torso_roll_rad: f32,
    pub torso_pitch_rad: f32,
    /// The full matrix (`perception::camera_matrix::CameraMatrix`).
    #[serde(skip)]
    pub matrix: ProcessLocal,
}

/// The frame at half resolution with luma and chroma planes apart (B-Human's `ECImage`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ECImage {
    pub width: u32,
    pub height: u32,
    pub sequence: u64,
    /// `perception::ec_image::EcImage`.
    #[serde(skip)]
    pub image: ProcessLocal,
}

/// This frame's field green and white (B-Human's `FieldColors`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FieldColors {
    pub sequence: u64,
    /// Luma above which a pixel may be white.
    pub bright_luma: f32,
    /// The field's hue, rad, if the frame shows field.
    pub field_hue_rad: Option<f32>,
    /// `perception::field_color::FieldColor`.
    #[serde(skip)]
    pub colors: ProcessLocal,
}

/// Each pixel of the [`ECImage`] classified as field, white, dark or other.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ColorClassImage {
    pub width: u32,
    pub height: u32,
    pub sequence: u64,
    /// `perception::color_classes::ColorClasses`.
    #[serde(skip)]
    pub classes: ProcessLocal,
}

/// Vertical scan lines cut into regions of one colour class (B-Human's
/// `ColorScanLineRegionsVertical`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ColorScanLineRegions {
    pub sequence: u64,
    pub scan_lines: u32,
    pub regions: u32,
    /// `perception::scan_lines::ScanLineRegions`.
    #[serde(skip)]
    pub lines: ProcessLocal,
}

/// Where the field ends in the image, pixels of the full frame, left to right.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FieldBoundary {
    pub sequence: u64,
    /// (x, y) pixels; empty if the frame shows no field.
    pub points_px: Vec<[f32; 2]>,
    /// `perception::field_boundary::FieldBoundary`.
    #[serde(skip)]
    pub boundary: ProcessLocal,
}

/// The part of the image the robot's own legs cover (B-Human's `BodyContour`): per column the
/// topmost row of the legs, everything below it being the robot itself.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BodyContour {
    pub sequence: u64,
    /// Whether the legs' joints placed it (false for frames whose posture is unknown: files).
    pub valid: bool,
    /// How many image columns show the legs (0: none in view).
    pub columns: u32,
    /// The highest row the legs reach, pixels of the full frame (the image's height when none
    /// are in view).
    pub highest_row_px: f32,
    /// `perception::body_contour::BodyContour`.
    #[serde(skip)]
    pub contour: ProcessLocal,
}

/// Places in the image where a ball may be (B-Human's `BallSpots`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BallSpots {
    pub sequence: u64,
    pub count: u32,
    /// `Vec<perception::ball_spots::BallSpot>`.
    #[serde(skip)]
    pub spots: ProcessLocal,
}

/// One ball in one frame.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SeenBallPercept {
    /// Centre in the frame, pixels from the top-left corner of the full frame.
    pub x: f32,
    pub y: f32,
    /// Radius, pixels.
    pub radius: f32,
    /// 0..1: how sure the classifier is.
    pub confidence: f32,
    /// Where it lies on the ground, robot frame [x, y], m; `None` where the pixel's ray does
    /// not meet the ground.
    pub position_m: Option<[f32; 2]>,
}

/// The balls one camera sees in its newest frame (B-Human's `BallPercept`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BallPercept {
    pub camera: CameraName,
    /// The frame these come from (`CameraImage::sequence`).
    pub sequence: u64,
    /// When that frame was taken, monotonic ns.
    pub captured_ns: u64,
    /// When the perceptor finished with it (the end of the perception tick), monotonic ns.
    pub perceived_ns: u64,
    /// Best first; empty if none.
    pub balls: Vec<SeenBallPercept>,
}

/// Cognition's estimate of the ball (B-Human's `BallModel`), from both cameras' percepts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BallModel {
    /// Robot frame [x, y], m.
    pub position: [f32; 2],
    /// Robot frame [x, y], m/s.
    pub velocity: [f32; 2],
    /// Since a camera last saw it, s (0 while seen; large if never).
    pub seconds_since_seen: f32,
    /// Whether any camera has seen it since cognition started.
    pub ever_seen: bool,
    /// The camera that saw it last.
    pub last_seen_by: Option<CameraName>,
    /// Standard deviation of the position estimate, m (the filter's covariance).
    pub position_deviation_m: f32,
    /// When the newest frame whose percept the model took was captured, monotonic ns (0: none
    /// yet), when its perception process had its percept, and cognition's time when it took
    /// it: the latency from the camera to the ball model, and its two parts.
    pub frame_captured_ns: u64,
    pub frame_perceived_ns: u64,
    pub frame_taken_ns: u64,
}

impl BallModel {
    /// Distance from the robot, m.
    pub fn distance_m(&self) -> f32 {
        self.position[0].hypot(self.position[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn process_local_data_is_not_encoded_and_compares_by_pointer() {
        let image = CameraImage {
            width: 640,
            height: 480,
            sequence: 3,
            frame: ProcessLocal::new(vec![1u8; 16]),
            ..CameraImage::default()
        };
        assert_eq!(image.frame.get::<Vec<u8>>().map(Vec::len), Some(16));
        assert!(image.frame.get::<String>().is_none());
        let bytes = rmp_serde::to_vec_named(&image).unwrap();
        assert!(bytes.len() < 200, "{} bytes", bytes.len());
        let decoded: CameraImage = rmp_serde::from_slice(&bytes).unwrap();
        assert_eq!(decoded.sequence, 3);
        assert!(!decoded.frame.is_some());
        assert_ne!(decoded, image);
        assert_eq!(image.clone(), image);
        assert_ne!(ProcessLocal::new(1u8), ProcessLocal::new(1u8));
    }

    #[test]
    fn ball_percept_and_model_round_trip() {
        let percept = BallPercept {
            camera: CameraName::Lower,
            sequence: 9,
            captured_ns: 5,
            perceived_ns: 6,
            balls: vec![SeenBallPercept {
                x: 1.0,
                y: 2.0,
                radius: 3.0,
                confidence: 0.5,
                position_m: Some([0.4, -0.1]),
            }],
        };
        let bytes = rmp_serde::to_vec_named(&percept).unwrap();
        assert_eq!(
            rmp_serde::from_slice::<BallPercept>(&bytes).unwrap(),
            percept
        );
        let model = BallModel {
            position: [3.0, 4.0],
            ..BallModel::default()
        };
        assert_eq!(model.distance_m(), 5.0);
    }
}
