//! The field's markings one camera sees in its newest frame: the white lines and the centre
//! circle ([`LinesPercept`]) and the penalty mark ([`PenaltyMarkPercept`]), one of each per
//! camera (`upper.LinesPercept`, `lower.PenaltyMarkPercept`…), for localisation.
//!
//! Ground positions are in the robot frame (x forward, y left, origin on the ground between the
//! feet, metres) at the time the frame was taken; pixels are in the full frame, origin top-left.

use crate::perception::ProcessLocal;
use serde::{Deserialize, Serialize};

/// One straight piece of a field line (B-Human's `LinesPercept::Line`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LineSegment {
    /// Its two ends on the ground, robot frame [x, y], m.
    pub start_m: [f32; 2],
    pub end_m: [f32; 2],
    /// The same ends in the image, pixels.
    pub start_px: [f32; 2],
    pub end_px: [f32; 2],
    /// How many line spots it was fitted to.
    pub spots: u32,
    /// Root mean square distance of those spots from it on the ground, m.
    pub deviation_m: f32,
}

impl LineSegment {
    /// Its length on the ground, m.
    pub fn length_m(&self) -> f32 {
        (self.end_m[0] - self.start_m[0]).hypot(self.end_m[1] - self.start_m[1])
    }
}

/// The centre circle (radius 0.75 m), found by its centre.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CenterCircle {
    /// Its centre on the ground, robot frame [x, y], m.
    pub center_m: [f32; 2],
    /// Where the centre is in the image, pixels (`None`: behind the camera).
    pub center_px: Option<[f32; 2]>,
    /// How many line spots lie on it.
    pub spots: u32,
    /// Root mean square distance of those spots from the circle, m.
    pub deviation_m: f32,
}

/// The lines and the centre circle one camera sees (B-Human's `LinesPercept` and
/// `CirclePercept`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LinesPercept {
    /// The frame these come from (`CameraImage::sequence`).
    pub sequence: u64,
    /// When that frame was taken, monotonic ns.
    pub captured_ns: u64,
    /// Line spots found on the scan lines (before fitting).
    pub spots: u32,
    /// Longest first.
    pub lines: Vec<LineSegment>,
    pub center_circle: Option<CenterCircle>,
    /// The spots and fits (`perception::lines::LineDetection`), for the penalty mark perceptor.
    #[serde(skip)]
    pub detection: ProcessLocal,
}

/// The penalty mark one camera sees, if it does (B-Human's `PenaltyMarkPercept`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PenaltyMarkPercept {
    /// The frame it comes from (`CameraImage::sequence`).
    pub sequence: u64,
    /// When that frame was taken, monotonic ns.
    pub captured_ns: u64,
    /// Whether a penalty mark was seen in this frame (the positions are meaningful only then).
    pub seen: bool,
    /// Its centre in the image, pixels.
    pub position_px: [f32; 2],
    /// Its centre on the ground, robot frame [x, y], m.
    pub position_m: [f32; 2],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percepts_round_trip_and_a_segment_knows_its_length() {
        let percept = LinesPercept {
            sequence: 4,
            captured_ns: 9,
            spots: 12,
            lines: vec![LineSegment {
                start_m: [1.0, 0.0],
                end_m: [1.0, 2.0],
                spots: 7,
                ..LineSegment::default()
            }],
            center_circle: Some(CenterCircle {
                center_m: [2.0, 0.5],
                center_px: None,
                spots: 9,
                deviation_m: 0.02,
            }),
            detection: ProcessLocal::default(),
        };
        let bytes = rmp_serde::to_vec_named(&percept).unwrap();
        assert_eq!(
            rmp_serde::from_slice::<LinesPercept>(&bytes).unwrap(),
            percept
        );
        assert_eq!(percept.lines[0].length_m(), 2.0);
        let mark = PenaltyMarkPercept {
            seen: true,
            position_m: [1.5, -0.2],
            ..PenaltyMarkPercept::default()
        };
        let bytes = rmp_serde::to_vec_named(&mark).unwrap();
        assert_eq!(
            rmp_serde::from_slice::<PenaltyMarkPercept>(&bytes).unwrap(),
            mark
        );
    }
}
