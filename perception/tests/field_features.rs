//! Line, centre-circle and penalty-mark percepts from the perception modules (`LinePerceptor`,
//! `PenaltyMarkPerceptor`), run on a blackboard as the process runs them:
//! - on frames the simulator's cameras render for known robot poses and head angles, every
//!   segment lies on a true field line (the error printed per frame; asserted within
//!   5 cm + 3 % of the distance and 5°), the centre circle's centre and the penalty mark within
//!   10 cm of where they are;
//! - on the real NAO frames (`$CORTEX_DATA_DIR/vision`; SKIPPED without them): lines on the lab
//!   frames, none on the white wall, no penalty mark on any;
//! - hostile input: uniform white and green frames, noise, one-pixel stripes, a head pitched at
//!   the sky or to infinity, a torso angle of NaN, a camera matrix of NaNs.
//!
//! ```sh
//! cargo test --release -p perception --test field_features -- --nocapture
//! ```

mod support;

use cortex_image::{read_png, ColorRange, Frame, Resolution, RgbImage, YuyvImage};
use framework::{Blackboard, Module, NoParameters};
use nalgebra::{Point2, Vector2};
use perception::camera_matrix::KinematicState;
use perception::modules::*;
use simulator::field::{
    FIELD_LENGTH_M, FIELD_WIDTH_M, GOAL_AREA_LENGTH_M, GOAL_AREA_WIDTH_M, PENALTY_AREA_LENGTH_M,
    PENALTY_AREA_WIDTH_M, PENALTY_MARK_DISTANCE_M,
};
use simulator::scene::{CameraPosition, SimulatedScene};
use simulator::simulated_camera::SimulatedCamera;
use std::time::Instant;
use types::{
    CameraImage, CameraName, GroundTruth, JointId, LinesPercept, PenaltyMarkPercept, ProcessLocal,
    RobotPose, SensorData,
};

/// Runs the modules from the camera image to the field features.
fn perceive(
    image: &YuyvImage,
    camera: CameraName,
    sensor_data: SensorData,
    posture_known: bool,
) -> (LinesPercept, PenaltyMarkPercept) {
    let mut blackboard = support::blackboard_with_defaults();
    blackboard.insert(sensor_data);
    blackboard.insert(CameraImage {
        camera,
        width: image.width() as u32,
        height: image.height() as u32,
        sequence: 3,
        captured_ns: 5,
        posture_known,
        frame: ProcessLocal::new(Frame {
            image: image.clone(),
            sequence: 3,
            captured_at: Instant::now(),
            source: "test".into(),
        }),
        ..CameraImage::default()
    });
    let mut matrix = CameraMatrixProvider::construct(CameraMatrixProviderParameters {
        torso_height_m: KinematicState::standing().torso_height_m,
    });
    assert!(matrix
        .update_named("CameraMatrix", &mut blackboard)
        .unwrap());
    fn stage<M: Module<Parameters = NoParameters>>(name: &str, blackboard: &mut Blackboard) {
        let mut module = M::construct(NoParameters {});
        assert!(module.update_named(name, blackboard).unwrap(), "{name}");
    }
    stage::<ECImageProvider>("ECImage", &mut blackboard);
    stage::<FieldColorProvider>("FieldColors", &mut blackboard);
    stage::<ColorClassifier>("ColorClassImage", &mut blackboard);
    stage::<ScanLineRegionizer>("ColorScanLineRegions", &mut blackboard);
    stage::<FieldBoundaryProvider>("FieldBoundary", &mut blackboard);
    stage::<LinePerceptor>("LinesPercept", &mut blackboard);
    stage::<PenaltyMarkPerceptor>("PenaltyMarkPercept", &mut blackboard);
    (
        blackboard.get::<LinesPercept>().unwrap().clone(),
        blackboard.get::<PenaltyMarkPercept>().unwrap().clone(),
    )
}

/// Renders what a camera of a robot at `pose` with its head at `yaw`, `pitch` sees, and
/// perceives it.
fn perceive_rendered(
    pose: RobotPose,
    camera: CameraPosition,
    head_yaw_rad: f32,
    head_pitch_rad: f32,
    seed: u64,
) -> (LinesPercept, PenaltyMarkPercept) {
    let mut truth = GroundTruth {
        robot: pose,
        ..GroundTruth::default()
    };
    // The ball far away behind the robot.
    truth.ball.position = Vector2::new(
        pose.x - 3.0 * pose.theta.cos(),
        pose.y - 3.0 * pose.theta.sin(),
    );
    let mut scene = SimulatedScene::standing(truth);
    scene.head_yaw_rad = head_yaw_rad;
    scene.head_pitch_rad = head_pitch_rad;
    let mut simulated = SimulatedCamera::new(camera, Resolution::Vga, seed);
    let image = simulated.render(&scene);
    let mut sensor_data = SensorData::default();
    sensor_data.joint_positions_rad[JointId::HeadYaw] = head_yaw_rad;
    sensor_data.joint_positions_rad[JointId::HeadPitch] = head_pitch_rad;
    let name = match camera {
        CameraPosition::Upper => CameraName::Upper,
        CameraPosition::Lower => CameraName::Lower,
    };
    perceive(&image, name, sensor_data, true)
}

/// The field's straight lines, field coordinates (start, end).
fn field_lines() -> Vec<(Point2<f32>, Point2<f32>)> {
    let (half_length, half_width) = (FIELD_LENGTH_M / 2.0, FIELD_WIDTH_M / 2.0);
    let penalty_x = half_length - PENALTY_AREA_LENGTH_M;
    let goal_area_x = half_length - GOAL_AREA_LENGTH_M;
    let mut lines = vec![(Point2::new(0.0, -half_width), Point2::new(0.0, half_width))];
    for side in [-1.0f32, 1.0] {
        let p = |x: f32, y: f32| Point2::new(side * x, y);
        lines.push((
            Point2::new(-half_length, side * half_width),
            Point2::new(half_length, side * half_width),
        ));
        lines.push((p(half_length, -half_width), p(half_length, half_width)));
        for (x, width) in [
            (penalty_x, PENALTY_AREA_WIDTH_M),
            (goal_area_x, GOAL_AREA_WIDTH_M),
        ] {
            let half = width / 2.0;
            lines.push((p(x, -half), p(x, half)));
            lines.push((p(x, half), p(half_length, half)));
            lines.push((p(x, -half), p(half_length, -half)));
        }
    }
    lines
}

fn to_field(pose: &RobotPose, point: [f32; 2]) -> Point2<f32> {
    let (sin, cos) = pose.theta.sin_cos();
    Point2::new(
        pose.x + cos * point[0] - sin * point[1],
        pose.y + sin * point[0] + cos * point[1],
    )
}

fn distance_to_segment(point: &Point2<f32>, (a, b): &(Point2<f32>, Point2<f32>)) -> f32 {
    let along = b - a;
    let t = ((point - a).dot(&along) / along.norm_squared()).clamp(0.0, 1.0);
    (point - (a + along * t)).norm()
}

/// (endpoint error m, angle error rad) of a detected segment against the true line it fits
/// best.
fn segment_error(pose: &RobotPose, start_m: [f32; 2], end_m: [f32; 2]) -> (f32, f32) {
    let (start, end) = (to_field(pose, start_m), to_field(pose, end_m));
    field_lines()
        .iter()
        .map(|line| {
            let error = distance_to_segment(&start, line).max(distance_to_segment(&end, line));
            let (found, truth) = ((end - start).normalize(), (line.1 - line.0).normalize());
            let angle = found.dot(&truth).abs().min(1.0).acos();
            (error, angle)
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .unwrap()
}

#[test]
fn rendered_lines_lie_on_the_true_lines_and_the_circle_and_mark_are_placed() {
    use std::f32::consts::{FRAC_PI_2, PI};
    // (robot pose, camera, head yaw, head pitch).
    let views = [
        (
            RobotPose {
                x: 2.0,
                y: -2.5,
                theta: 0.0,
            },
            CameraPosition::Upper,
            0.0,
            0.25,
        ),
        (
            RobotPose {
                x: 2.0,
                y: -2.5,
                theta: 0.0,
            },
            CameraPosition::Lower,
            -0.3,
            0.0,
        ),
        (
            RobotPose {
                x: -1.5,
                y: 2.0,
                theta: PI,
            },
            CameraPosition::Upper,
            0.3,
            0.3,
        ),
        (
            RobotPose {
                x: 3.0,
                y: -0.6,
                theta: 0.2,
            },
            CameraPosition::Upper,
            0.0,
            0.2,
        ),
        (
            RobotPose {
                x: 3.6,
                y: 1.6,
                theta: FRAC_PI_2,
            },
            CameraPosition::Upper,
            -0.4,
            0.3,
        ),
        (
            RobotPose {
                x: -3.3,
                y: -1.5,
                theta: -2.5,
            },
            CameraPosition::Lower,
            0.2,
            0.1,
        ),
        (
            RobotPose {
                x: 0.0,
                y: -1.8,
                theta: FRAC_PI_2,
            },
            CameraPosition::Upper,
            0.0,
            0.3,
        ),
        (
            RobotPose {
                x: 1.2,
                y: 0.4,
                theta: PI,
            },
            CameraPosition::Upper,
            0.0,
            0.25,
        ),
    ];
    let mut failures = Vec::new();
    let (mut segments, mut worst_error, mut worst_angle) = (0, 0.0f32, 0.0f32);
    eprintln!("| pose | camera | segments | worst end error cm | worst angle ° | circle |");
    eprintln!("|---|---|---|---|---|---|");
    for (index, (pose, camera, yaw, pitch)) in views.into_iter().enumerate() {
        let (lines, _) = perceive_rendered(pose, camera, yaw, pitch, index as u64 + 1);
        if lines.lines.is_empty() {
            failures.push(format!(
                "{pose:?} {camera:?}: no line found ({} spots)",
                lines.spots
            ));
        }
        let (mut frame_error, mut frame_angle) = (0.0f32, 0.0f32);
        for segment in &lines.lines {
            let (error, angle) = segment_error(&pose, segment.start_m, segment.end_m);
            let range = Point2::from(segment.start_m)
                .coords
                .norm()
                .max(Point2::from(segment.end_m).coords.norm());
            if error > 0.05 + 0.03 * range || angle > 5f32.to_radians() {
                failures.push(format!(
                    "{pose:?} {camera:?}: {segment:?} is {error:.3} m and {:.1}° off any line",
                    angle.to_degrees()
                ));
            }
            frame_error = frame_error.max(error);
            frame_angle = frame_angle.max(angle);
        }
        segments += lines.lines.len();
        worst_error = worst_error.max(frame_error);
        worst_angle = worst_angle.max(frame_angle);
        let circle = lines
            .center_circle
            .as_ref()
            .map(|circle| (to_field(&pose, circle.center_m).coords.norm(), circle.spots));
        eprintln!(
            "| ({:.1}, {:.1}, {:.2}) | {camera:?} | {} | {:.1} | {:.1} | {circle:?} |",
            pose.x,
            pose.y,
            pose.theta,
            lines.lines.len(),
            100.0 * frame_error,
            frame_angle.to_degrees()
        );
        // The circle is at the centre, if seen; it is in view from (0, −1.8) looking at it.
        if let Some((off_centre, _)) = circle {
            if off_centre > 0.1 {
                failures.push(format!(
                    "{pose:?}: a circle {off_centre:.2} m from the centre"
                ));
            }
        } else if pose.x == 0.0 {
            failures.push(format!("{pose:?}: the centre circle in view was not found"));
        }
    }
    eprintln!(
        "{segments} segments, worst end error {:.1} cm, worst angle {:.1}°",
        100.0 * worst_error,
        worst_angle.to_degrees()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_penalty_mark_is_found_where_it_is_and_not_where_it_is_not() {
    let mark_x = FIELD_LENGTH_M / 2.0 - PENALTY_MARK_DISTANCE_M;
    let mut failures = Vec::new();
    // The mark ahead at 0.5 to 2 m, both cameras; then views without it.
    let with_mark = [
        (
            RobotPose {
                x: mark_x - 0.7,
                y: 0.1,
                theta: 0.0,
            },
            CameraPosition::Lower,
            0.0,
            0.0,
        ),
        (
            RobotPose {
                x: mark_x - 1.0,
                y: -0.3,
                theta: 0.3,
            },
            CameraPosition::Lower,
            0.0,
            0.0,
        ),
        (
            RobotPose {
                x: mark_x - 1.5,
                y: 0.2,
                theta: -0.1,
            },
            CameraPosition::Upper,
            0.0,
            0.3,
        ),
        (
            RobotPose {
                x: -mark_x + 1.2,
                y: 0.0,
                theta: std::f32::consts::PI,
            },
            CameraPosition::Upper,
            0.1,
            0.35,
        ),
    ];
    for (index, (pose, camera, yaw, pitch)) in with_mark.into_iter().enumerate() {
        let (_, mark) = perceive_rendered(pose, camera, yaw, pitch, 20 + index as u64);
        if !mark.seen {
            failures.push(format!("{pose:?} {camera:?}: the mark was not found"));
            continue;
        }
        let found = to_field(&pose, mark.position_m);
        let error = (found - Point2::new(mark_x.copysign(found.x), 0.0)).norm();
        eprintln!("{pose:?} {camera:?}: mark {:.1} cm off", 100.0 * error);
        if error > 0.1 {
            failures.push(format!(
                "{pose:?} {camera:?}: the mark {error:.3} m off ({mark:?})"
            ));
        }
    }
    let without_mark = [
        // The centre mark on the halfway line, a line corner, the goal area.
        (
            RobotPose {
                x: -0.8,
                y: 0.1,
                theta: 0.0,
            },
            CameraPosition::Lower,
            0.0,
            0.1,
        ),
        (
            RobotPose {
                x: -0.9,
                y: 0.0,
                theta: 0.0,
            },
            CameraPosition::Upper,
            0.0,
            0.3,
        ),
        (
            RobotPose {
                x: 2.3,
                y: 1.5,
                theta: 0.3,
            },
            CameraPosition::Upper,
            0.0,
            0.3,
        ),
        (
            RobotPose {
                x: 3.4,
                y: -0.8,
                theta: 0.0,
            },
            CameraPosition::Lower,
            0.0,
            0.0,
        ),
    ];
    for (index, (pose, camera, yaw, pitch)) in without_mark.into_iter().enumerate() {
        let (_, mark) = perceive_rendered(pose, camera, yaw, pitch, 40 + index as u64);
        if mark.seen {
            failures.push(format!(
                "{pose:?} {camera:?}: a mark where there is none: {mark:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn real_frames_lines_on_the_lab_floor_and_none_on_the_white_wall() {
    let Some(vision) =
        support::vision_dir("real_frames_lines_on_the_lab_floor_and_none_on_the_white_wall")
    else {
        return;
    };
    let frame = |path: &std::path::Path| support::to_yuyv(&read_png(path).unwrap());
    // Frames from files: the camera matrix of a standing robot looking ahead.
    let wall = frame(&vision.join("white_wall_with_a_little_desk_in_front.png"));
    // As if from the lower camera, whose every pixel looks at the ground: the lab frames' lines
    // (their camera's posture is unknown) stay straight under any projection to the ground.
    let (lines, mark) = perceive(&wall, CameraName::Lower, SensorData::default(), false);
    assert!(lines.lines.is_empty(), "{:?}", lines.lines);
    assert!(
        lines.center_circle.is_none() && !mark.seen,
        "{lines:?} {mark:?}"
    );
    let mut with_lines = 0;
    let names = [
        "log_40230.png",
        "log_41242.png",
        "log_43063.png",
        "log_47516.png",
    ];
    for name in names {
        let (lines, _) = perceive(
            &frame(&vision.join("detectball").join(name)),
            CameraName::Lower,
            SensorData::default(),
            false,
        );
        eprintln!("{name}: {} spots, {} lines", lines.spots, lines.lines.len());
        with_lines += usize::from(!lines.lines.is_empty());
    }
    // None of the real frames shows a penalty mark (a ball beside a line, a lab floor).
    let mut marks = Vec::new();
    for frame in support::labelled_frames(&vision) {
        let (_, mark) = perceive(
            &support::to_yuyv(&frame.image),
            CameraName::Lower,
            SensorData::default(),
            false,
        );
        if mark.seen {
            marks.push(format!("{}: {mark:?}", frame.name));
        }
    }
    assert!(marks.is_empty(), "{}", marks.join("\n"));
    assert!(
        with_lines >= 3,
        "lines on {with_lines} of {} lab frames",
        names.len()
    );
}

#[test]
fn hostile_frames_give_empty_percepts_without_panicking() {
    let mut frames = vec![
        YuyvImage::from_rgb(
            &RgbImage::filled(320, 240, [255, 255, 255]),
            ColorRange::Full,
        )
        .unwrap(),
        YuyvImage::from_rgb(&RgbImage::filled(320, 240, [40, 140, 60]), ColorRange::Full).unwrap(),
        YuyvImage::from_rgb(
            &RgbImage::filled(640, 480, [250, 250, 250]),
            ColorRange::Full,
        )
        .unwrap(),
    ];
    // Noise, and green and white stripes one pixel wide (a line every other column).
    let mut noise = RgbImage::filled(640, 480, [0, 0, 0]);
    let mut stripes = RgbImage::filled(640, 480, [0, 0, 0]);
    let mut state = 12345u32;
    for y in 0..480 {
        for x in 0..640 {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let bytes = state.to_le_bytes();
            noise.set(x, y, [bytes[1], bytes[2], bytes[3]]);
            stripes.set(
                x,
                y,
                if (x + y) % 2 == 0 {
                    [40, 140, 60]
                } else {
                    [240, 240, 240]
                },
            );
        }
    }
    frames.push(YuyvImage::from_rgb(&noise, ColorRange::Full).unwrap());
    frames.push(YuyvImage::from_rgb(&stripes, ColorRange::Full).unwrap());
    for image in &frames {
        for (pitch, torso) in [
            (0.0, 0.0),
            (-0.6, 0.0),
            (0.5, f32::NAN),
            (f32::INFINITY, 0.0),
        ] {
            let mut sensor_data = SensorData::default();
            sensor_data.joint_positions_rad[JointId::HeadPitch] = pitch;
            sensor_data.inertial_measurement.torso_angles_rad.y = torso;
            let (lines, mark) = perceive(image, CameraName::Lower, sensor_data, true);
            assert!(lines.lines.len() <= perception::lines::MAX_LINES);
            assert_eq!(lines.sequence, 3);
            if image.width() <= 320 {
                // Uniform: nothing to see.
                assert!(lines.lines.is_empty() && !mark.seen, "{lines:?} {mark:?}");
            }
        }
    }
    // The library functions with a matrix of NaNs.
    let classes = perception::color_classes::ColorClasses {
        width: 320,
        height: 240,
        classes: vec![perception::field_color::PixelClass::Field; 320 * 240],
    };
    let mut matrix = perception::camera_matrix::CameraMatrix::nao_v6(
        perception::camera_matrix::CameraPosition::Upper,
        &KinematicState::standing(),
        640,
        480,
    );
    matrix.intrinsics.focal_length_px = Vector2::new(f32::NAN, f32::NAN);
    let spots = perception::line_spots::find_line_spots(&classes, &Default::default(), &matrix);
    let detection = perception::lines::fit(spots);
    assert!(detection.lines.is_empty());
    assert!(perception::penalty_mark::find_penalty_mark(
        &detection.spots,
        &detection.lines,
        None,
        &classes,
        &matrix
    )
    .is_none());
}
