//! `CameraMatrixProvider`: where this process's camera is and how it looks, for the newest
//! frame (B-Human's `CameraMatrixProvider`): the head joints and the torso's roll and pitch
//! (IMU) from `SensorData`, the camera's mounting and intrinsics from
//! [`crate::camera_matrix`].
//!
//! The torso's height is the standing robot's (`torso_height_m`): the legs' forward kinematics
//! would follow a crouch, which the robot does not do while it looks for the ball yet. Frames
//! played from files (`CameraImage::posture_known` false) get the matrix of a standing robot
//! looking straight ahead, whatever the head does, as `cortex perceive` assumes.

use super::camera_position;
use crate::camera_matrix::{self, KinematicState};
use framework::Update;
use serde::Deserialize;
use types::{CameraImage, CameraMatrix, JointId, ProcessLocal, SensorData};

/// Parameters (`CameraMatrixProvider.toml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CameraMatrixProviderParameters {
    /// Height of the torso origin above the ground, m.
    pub torso_height_m: f32,
}

impl config::Validate for CameraMatrixProviderParameters {
    fn validate(&self) -> Result<(), config::Invalid> {
        config::in_range("torso_height_m", self.torso_height_m, 0.05..=0.6)
    }
}

/// Provides [`CameraMatrix`].
#[derive(Debug)]
pub struct CameraMatrixProvider {
    parameters: CameraMatrixProviderParameters,
}

framework::module! {
    CameraMatrixProvider {
        inputs: CameraMatrixProviderInputs,
        parameters: CameraMatrixProviderParameters,
        requires: { camera_image: CameraImage, sensor_data: SensorData },
        uses: {},
        provides: { CameraMatrix },
    }
}

impl CameraMatrixProvider {
    fn new(parameters: CameraMatrixProviderParameters) -> Self {
        CameraMatrixProvider { parameters }
    }
}

/// The kinematic state in `sensor_data` (non-finite readings count as zero).
pub fn kinematic_state(sensor_data: &SensorData, torso_height_m: f32) -> KinematicState {
    let finite = |value: f32| if value.is_finite() { value } else { 0.0 };
    let joints = &sensor_data.joint_positions_rad;
    let torso = sensor_data.inertial_measurement.torso_angles_rad;
    KinematicState {
        head_yaw_rad: finite(joints[JointId::HeadYaw]),
        head_pitch_rad: finite(joints[JointId::HeadPitch]),
        torso_roll_rad: finite(torso.x),
        torso_pitch_rad: finite(torso.y),
        torso_height_m,
    }
}

impl Update<CameraMatrix> for CameraMatrixProvider {
    fn update(&mut self, inputs: &CameraMatrixProviderInputs, output: &mut CameraMatrix) {
        let image = inputs.camera_image;
        if image.width == 0 {
            return;
        }
        let state = if image.posture_known {
            kinematic_state(inputs.sensor_data, self.parameters.torso_height_m)
        } else {
            KinematicState {
                torso_height_m: self.parameters.torso_height_m,
                ..KinematicState::standing()
            }
        };
        let matrix = camera_matrix::CameraMatrix::nao_v6(
            camera_position(image.camera),
            &state,
            image.width as usize,
            image.height as usize,
        );
        let position = matrix.camera_position();
        *output = CameraMatrix {
            camera: image.camera,
            valid: true,
            position_m: [position.x, position.y, position.z],
            head_yaw_rad: state.head_yaw_rad,
            head_pitch_rad: state.head_pitch_rad,
            torso_roll_rad: state.torso_roll_rad,
            torso_pitch_rad: state.torso_pitch_rad,
            matrix: ProcessLocal::new(matrix),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use framework::{Blackboard, Module};

    #[test]
    fn a_ground_point_ahead_projects_below_the_centre_and_head_yaw_moves_it() {
        let mut blackboard = Blackboard::new();
        let mut sensor_data = SensorData::default();
        blackboard.insert(CameraImage {
            width: 640,
            height: 480,
            posture_known: true,
            ..CameraImage::default()
        });
        blackboard.insert(sensor_data.clone());
        blackboard.insert(CameraMatrix::default());
        let mut provider = CameraMatrixProvider::new(CameraMatrixProviderParameters {
            torso_height_m: 0.31,
        });
        provider
            .update_named("CameraMatrix", &mut blackboard)
            .unwrap();
        let straight = blackboard.get::<CameraMatrix>().unwrap().clone();
        assert!(straight.valid);
        let matrix = straight
            .matrix
            .get::<camera_matrix::CameraMatrix>()
            .unwrap();
        let pixel = matrix
            .robot_to_pixel(&nalgebra::Point3::new(2.0, 0.0, 0.0))
            .unwrap();
        assert!((pixel.x - 320.0).abs() < 1.0, "{pixel}");
        assert!(pixel.y > 240.0, "{pixel}");

        // Head turned left: the same point appears right of the centre.
        sensor_data.joint_positions_rad[JointId::HeadYaw] = 0.3;
        blackboard.insert(sensor_data);
        provider
            .update_named("CameraMatrix", &mut blackboard)
            .unwrap();
        let turned = blackboard.get::<CameraMatrix>().unwrap();
        let matrix = turned.matrix.get::<camera_matrix::CameraMatrix>().unwrap();
        let pixel = matrix
            .robot_to_pixel(&nalgebra::Point3::new(2.0, 0.0, 0.0))
            .unwrap();
        assert!(pixel.x > 400.0, "{pixel}");
        assert_eq!(turned.head_yaw_rad, 0.3);

        // A frame from a file: the matrix of a robot looking straight ahead, whatever the head.
        blackboard.insert(CameraImage {
            width: 640,
            height: 480,
            posture_known: false,
            ..CameraImage::default()
        });
        provider
            .update_named("CameraMatrix", &mut blackboard)
            .unwrap();
        let file = blackboard.get::<CameraMatrix>().unwrap();
        let matrix = file.matrix.get::<camera_matrix::CameraMatrix>().unwrap();
        let pixel = matrix
            .robot_to_pixel(&nalgebra::Point3::new(2.0, 0.0, 0.0))
            .unwrap();
        assert!((pixel.x - 320.0).abs() < 1.0, "{pixel}");
        assert_eq!(file.head_yaw_rad, 0.0);
    }
}
