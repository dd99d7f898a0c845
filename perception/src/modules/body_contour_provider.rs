//! `BodyContourProvider`: where this frame shows the robot's own legs and arms (B-Human's
//! `BodyContourProvider`; [`crate::body_contour`]): the joints from `SensorData` place the
//! links' boxes (`kinematics::body_shape`), the frame's camera matrix projects them. The ball
//! spots and the balls leave that part of the image out.
//!
//! A frame whose posture is unknown (`CameraImage::posture_known` false: frames played from
//! files) or a sensor reading that is not a number gets an empty contour: nothing is left out,
//! rather than a part of the image on a guess.

use crate::body_contour;
use crate::camera_matrix;
use framework::debug_output::{Color, DebugOutput, Space};
use framework::Update;
use kinematics::{ArmJoints, LegJoints, Side};
use types::{BodyContour, CameraImage, CameraMatrix, JointId, Joints, ProcessLocal, SensorData};

/// Provides [`BodyContour`].
#[derive(Debug)]
pub struct BodyContourProvider {
    /// The body's outline on the camera image: per column, the top and bottom of the rows it
    /// covers (only while subscribed).
    drawing: DebugOutput,
}

/// Columns between two lines of the drawn contour.
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

/// One arm's joints in LoLA's joint array, in `ArmJoints` order.
pub fn arm_joint_ids(side: Side) -> [JointId; 5] {
    match side {
        Side::Left => JointId::LEFT_ARM,
        Side::Right => JointId::RIGHT_ARM,
    }
}

/// One arm's joints from LoLA's joint array; `None` if a reading is not a finite number.
pub fn arm_joints(joints: &Joints<f32>, side: Side) -> Option<ArmJoints<f64>> {
    let values = arm_joint_ids(side).map(|id| joints[id]);
    values
        .iter()
        .all(|value| value.is_finite())
        .then(|| ArmJoints::from_array(values.map(f64::from)))
}

/// Both legs' and arms' joints; `None` if a reading is not a finite number.
pub fn body_posture(joints: &Joints<f32>) -> Option<body_contour::BodyPosture> {
    Some(body_contour::BodyPosture {
        legs: [
            leg_joints(joints, Side::Left)?,
            leg_joints(joints, Side::Right)?,
        ],
        arms: [
            arm_joints(joints, Side::Left)?,
            arm_joints(joints, Side::Right)?,
        ],
    })
}

impl Update<BodyContour> for BodyContourProvider {
    fn update(&mut self, inputs: &BodyContourProviderInputs, output: &mut BodyContour) {
        let image = inputs.camera_image;
        let (width, height) = (image.width as usize, image.height as usize);
        let joints = &inputs.sensor_data.joint_positions_rad;
        let posture = body_posture(joints);
        let matrix = inputs
            .camera_matrix
            .matrix
            .get::<camera_matrix::CameraMatrix>();
        let contour = match (image.posture_known, matrix, &posture) {
            (true, Some(matrix), Some(posture)) => {
                body_contour::BodyContour::of_body(matrix, posture, width, height)
            }
            _ => body_contour::BodyContour::empty(width, height),
        };
        // Hatched: every few columns, a line over each of the column's spans in the image.
        self.drawing.draw(Space::Image(image.camera), |drawing| {
            let bottom = height as f32 - 1.0;
            for column in (0..width).step_by(DRAWING_STEP_PX) {
                let x = column as f32;
                for &(top, end) in contour.spans_at(x) {
                    if top <= bottom && end >= 0.0 {
                        drawing.line([x, top.max(0.0)], [x, end.min(bottom)], 2.0, Color::ORANGE);
                    }
                }
            }
        });
        *output = BodyContour {
            sequence: image.sequence,
            valid: image.posture_known && matrix.is_some() && posture.is_some(),
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
    use simulator::scene::{arms_standing, legs_standing, STANDING_TORSO_HEIGHT_M};

    /// The sensor data of a robot standing (the simulator's standing legs and hanging arms),
    /// the head pitched by `head_pitch_rad`.
    fn standing(head_pitch_rad: f32) -> SensorData {
        let mut sensor_data = SensorData::default();
        let joints = &mut sensor_data.joint_positions_rad;
        let sides = [Side::Left, Side::Right];
        for (side, leg) in sides
            .into_iter()
            .zip(legs_standing(STANDING_TORSO_HEIGHT_M))
        {
            for (id, value) in leg_joint_ids(side).into_iter().zip(leg.to_array()) {
                joints[id] = value as f32;
            }
        }
        for (side, arm) in sides.into_iter().zip(arms_standing()) {
            for (id, value) in arm_joint_ids(side).into_iter().zip(arm.to_array()) {
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
    fn an_arm_swung_forward_adds_to_the_contour() {
        let hanging = contour(standing(0.5), true);
        let mut swung = standing(0.5);
        // 21° forward of hanging, as in a step of the walk: the fingers reach into the image.
        swung.joint_positions_rad[JointId::LeftShoulderPitch] = 1.2;
        let swung = contour(swung, true);
        assert!(swung.valid, "{swung:?}");
        // The legs already cover most columns; the arm reaches far higher up the image.
        assert!(
            swung.highest_row_px + 100.0 < hanging.highest_row_px,
            "{hanging:?} {swung:?}"
        );
    }

    #[test]
    fn absurd_but_finite_joint_readings_give_a_contour_without_panicking() {
        for value in [1e30f32, -1e30, 1e6, f32::MAX, f32::MIN_POSITIVE] {
            let mut sensor_data = standing(0.5);
            let limbs = [
                JointId::LEFT_LEG.as_slice(),
                &JointId::RIGHT_LEG,
                &JointId::LEFT_ARM,
                &JointId::RIGHT_ARM,
            ];
            for &id in limbs.into_iter().flatten() {
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
        for joint in [JointId::RightKneePitch, JointId::LeftElbowRoll] {
            let mut broken = standing(0.5);
            broken.joint_positions_rad[joint] = f32::NAN;
            let broken = contour(broken, true);
            assert!(
                !broken.valid && broken.columns == 0,
                "{joint:?}: {broken:?}"
            );
        }
    }
}
