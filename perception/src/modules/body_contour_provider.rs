//! `BodyContourProvider`: where this frame shows the robot's own legs (B-Human's
//! `BodyContourProvider`; [`crate::body_contour`]): the legs' joints from `SensorData` place
//! their boxes (`kinematics::body_shape`), the frame's camera matrix projects them. The ball
//! spots and the balls leave that part of the image out.
//!
//! A frame whose posture is unknown (`CameraImage::posture_known` false: frames played from
//! files) or a sensor reading that is not a number gets an empty contour: nothing is left out,
//! rather than a part of the image on a guess.

use crate::body_contour;
use crate::camera_matrix;
use framework::debug_output::{Color, DebugOutput, Space};
use framework::Update;
use kinematics::{LegJoints, Side};
use types::{BodyContour, CameraImage, CameraMatrix, JointId, Joints, ProcessLocal, SensorData};

/// Provides [`BodyContour`].
#[derive(Debug)]
pub struct BodyContourProvider {
    /// The legs' top on the camera image (only while subscribed).
    drawing: DebugOutput,
}

/// Columns between two points of the drawn contour.
const DRAWING_STEP_PX: usize = 8;

framework::module! {
    BodyContourProvider {
        inputs: BodyContourProviderInputs,
        requires: {
            camera_image: CameraImage,
            camera_matrix: CameraMatrix,
            sensor_data: SensorData,
        },
        uses: {},
        provides: { BodyContour },
    }
}

impl BodyContourProvider {
    fn new(_: framework::NoParameters) -> Self {
        BodyContourProvider {
            drawing: DebugOutput::image_drawing("BodyContourProvider.contour"),
        }
    }
}

/// One leg's joints in LoLA's joint array, in `LegJoints` order.
pub fn leg_joint_ids(side: Side) -> [JointId; 6] {
    match side {
        Side::Left => JointId::LEFT_LEG,
        Side::Right => JointId::RIGHT_LEG,
    }
}

/// One leg's joints from LoLA's joint array; `None` if a reading is not a finite number.
pub fn leg_joints(joints: &Joints<f32>, side: Side) -> Option<LegJoints<f64>> {
    let values = leg_joint_ids(side).map(|id| joints[id]);
    values
        .iter()
        .all(|value| value.is_finite())
        .then(|| LegJoints::from_array(values.map(f64::from)))
}

impl Update<BodyContour> for BodyContourProvider {
    fn update(&mut self, inputs: &BodyContourProviderInputs, output: &mut BodyContour) {
        let image = inputs.camera_image;
        let (width, height) = (image.width as usize, image.height as usize);
        let joints = &inputs.sensor_data.joint_positions_rad;
        let legs = leg_joints(joints, Side::Left).zip(leg_joints(joints, Side::Right));
        let matrix = inputs
            .camera_matrix
            .matrix
            .get::<camera_matrix::CameraMatrix>();
        let contour = match (image.posture_known, matrix, legs) {
            (true, Some(matrix), Some((left, right))) => {
                body_contour::BodyContour::of_legs(matrix, &[left, right], width, height)
            }
            _ => body_contour::BodyContour::empty(width, height),
        };
        self.drawing.draw(Space::Image(image.camera), |drawing| {
            let mut previous: Option<[f32; 2]> = None;
            for column in (0..width).step_by(DRAWING_STEP_PX) {
                let point = contour
                    .top_at(column as f32)
                    .map(|top| [column as f32, top.max(0.0)]);
                if let (Some(from), Some(to)) = (previous, point) {
                    drawing.line(from, to, 2.0, Color::ORANGE);
                }
                previous = point;
            }
        });
        *output = BodyContour {
            sequence: image.sequence,
            valid: image.posture_known && matrix.is_some() && legs.is_some(),
            columns: contour.columns() as u32,
            highest_row_px: contour.highest_row().unwrap_or(height as f32),
            contour: ProcessLocal::new(contour),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modules::{CameraMatrixProvider, CameraMatrixProviderParameters};
    use framework::{Blackboard, Module};
    use simulator::scene::{legs_standing, STANDING_TORSO_HEIGHT_M};

    /// The sensor data of a robot standing (the simulator's standing legs), the head pitched
    /// by `head_pitch_rad`.
    fn standing(head_pitch_rad: f32) -> SensorData {
        let legs = legs_standing(STANDING_TORSO_HEIGHT_M);
        let mut sensor_data = SensorData::default();
        let joints = &mut sensor_data.joint_positions_rad;
        for (side, leg) in [Side::Left, Side::Right].into_iter().zip(legs) {
            for (id, value) in leg_joint_ids(side).into_iter().zip(leg.to_array()) {
                joints[id] = value as f32;
            }
        }
        joints[JointId::HeadPitch] = head_pitch_rad;
        sensor_data
    }

    /// The contour of one lower-camera frame for this sensor data.
    fn contour(sensor_data: SensorData, posture_known: bool) -> BodyContour {
        let mut blackboard = Blackboard::new();
        blackboard.insert(CameraImage {
            width: 640,
            height: 480,
            posture_known,
            camera: types::CameraName::Lower,
            ..CameraImage::default()
        });
        blackboard.insert(sensor_data);
        blackboard.insert(CameraMatrix::default());
        blackboard.insert(BodyContour::default());
        CameraMatrixProvider::construct(CameraMatrixProviderParameters {
            torso_height_m: 0.31,
        })
        .update_named("CameraMatrix", &mut blackboard)
        .unwrap();
        BodyContourProvider::construct(framework::NoParameters {})
            .update_named("BodyContour", &mut blackboard)
            .unwrap();
        blackboard.get::<BodyContour>().unwrap().clone()
    }

    #[test]
    fn the_legs_are_in_view_only_while_the_head_looks_down() {
        let down = contour(standing(0.5), true);
        assert!(down.valid && down.columns > 100, "{down:?}");
        assert!((240.0..480.0).contains(&down.highest_row_px), "{down:?}");
        let ahead = contour(standing(0.0), true);
        assert!(ahead.valid && ahead.columns == 0, "{ahead:?}");
        assert_eq!(ahead.highest_row_px, 480.0);
    }

    #[test]
    fn absurd_but_finite_joint_readings_give_a_contour_without_panicking() {
        for value in [1e30f32, -1e30, 1e6, f32::MAX, f32::MIN_POSITIVE] {
            let mut sensor_data = standing(0.5);
            for id in JointId::LEFT_LEG.into_iter().chain(JointId::RIGHT_LEG) {
                sensor_data.joint_positions_rad[id] = value;
            }
            let contour = contour(sensor_data, true);
            assert!(contour.valid, "{value}: {contour:?}");
            assert!(contour.columns <= 640, "{value}: {contour:?}");
            assert!(contour.highest_row_px.is_finite(), "{value}: {contour:?}");
        }
    }

    #[test]
    fn frames_from_files_and_broken_readings_leave_nothing_out() {
        let from_file = contour(standing(0.5), false);
        assert!(!from_file.valid && from_file.columns == 0, "{from_file:?}");
        let mut broken = standing(0.5);
        broken.joint_positions_rad[JointId::RightKneePitch] = f32::NAN;
        let broken = contour(broken, true);
        assert!(!broken.valid && broken.columns == 0, "{broken:?}");
    }
}
