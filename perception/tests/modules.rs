//! The perception modules, run one after another on a blackboard as the process runs them,
//! give the pipeline's balls on a real NAO frame: wrapping the stages changed nothing.

mod support;

use cortex_image::{read_png, ColorRange, Frame, YuyvImage};
use framework::{Blackboard, Module, NoParameters};
use perception::camera_matrix::{CameraMatrix as Matrix, CameraPosition, KinematicState};
use perception::modules::*;
use std::time::Instant;
use types::{
    BallPercept, BallTruth, CameraImage, CameraName, GroundTruth, JointId, ProcessLocal, SensorData,
};

fn run_modules(image: &YuyvImage) -> BallPercept {
    let frame = Frame {
        image: image.clone(),
        sequence: 7,
        captured_at: Instant::now(),
        source: "test".into(),
    };
    run_stages(frame, CameraName::Lower, SensorData::default())
}

fn run_stages(frame: Frame, camera: CameraName, sensor_data: SensorData) -> BallPercept {
    let image = &frame.image;
    let mut blackboard = support::blackboard_with_defaults();
    blackboard.insert(sensor_data);
    blackboard.insert(CameraImage {
        camera,
        width: image.width() as u32,
        height: image.height() as u32,
        sequence: frame.sequence,
        posture_known: true,
        frame: ProcessLocal::new(frame),
        ..CameraImage::default()
    });
    let mut matrix = CameraMatrixProvider::construct(CameraMatrixProviderParameters {
        torso_height_m: KinematicState::standing().torso_height_m,
    });
    matrix
        .update_named("CameraMatrix", &mut blackboard)
        .unwrap();
    let mut stages = [
        stage::<BodyContourProvider>("BodyContour"),
        stage::<ECImageProvider>("ECImage"),
        stage::<FieldColorProvider>("FieldColors"),
        stage::<ColorClassifier>("ColorClassImage"),
        stage::<ScanLineRegionizer>("ColorScanLineRegions"),
        stage::<FieldBoundaryProvider>("FieldBoundary"),
        stage::<BallSpotsProvider>("BallSpots"),
        stage::<BallPerceptor>("BallPercept"),
    ];
    for run in &mut stages {
        run(&mut blackboard);
    }
    blackboard.get::<BallPercept>().unwrap().clone()
}

fn stage<M: Module<Parameters = NoParameters> + 'static>(
    representation: &'static str,
) -> Box<dyn FnMut(&mut Blackboard)> {
    let mut module = M::construct(NoParameters {});
    Box::new(move |blackboard| {
        assert!(module.update_named(representation, blackboard).unwrap());
    })
}

#[test]
fn the_modules_find_the_pipelines_balls_on_a_real_frame() {
    let Some(vision) = support::vision_dir("the_modules_find_the_pipelines_balls_on_a_real_frame")
    else {
        return;
    };
    for (file, expected_balls) in [
        ("rome_bottom_ball.png", 1),
        ("white_wall_with_a_little_desk_in_front.png", 0),
    ] {
        let rgb = read_png(&vision.join(file)).unwrap();
        let image = YuyvImage::from_rgb(&rgb, ColorRange::Full).unwrap();
        let percept = run_modules(&image);
        let matrix = Matrix::nao_v6(CameraPosition::Lower, &KinematicState::standing(), 640, 480);
        let pipeline = perception::perceive_with_camera_matrix(&image, &matrix);
        assert_eq!(percept.balls.len(), pipeline.balls.len(), "{file}");
        assert_eq!(percept.balls.len(), expected_balls, "{file}: {percept:?}");
        for (module_ball, pipeline_ball) in percept.balls.iter().zip(&pipeline.balls) {
            assert_eq!(module_ball.x, pipeline_ball.x, "{file}");
            assert_eq!(module_ball.y, pipeline_ball.y, "{file}");
            assert_eq!(module_ball.radius, pipeline_ball.radius, "{file}");
            let ground = pipeline_ball.position_on_ground_m.unwrap();
            assert_eq!(module_ball.position_m, Some([ground.x, ground.y]), "{file}");
        }
        assert_eq!(percept.sequence, 7);
        assert_eq!(percept.camera, CameraName::Lower);
    }
    // The lab frames, whose walls and people above the field would take spots from the ball if
    // the modules chose spots without the field boundary: the same balls as the pipeline.
    let mut lab: Vec<_> = std::fs::read_dir(vision.join("detectball"))
        .map(|entries| entries.flatten().map(|entry| entry.path()).collect())
        .unwrap_or_default();
    lab.retain(|path| path.extension().is_some_and(|extension| extension == "png"));
    lab.sort();
    // Each frame as recorded and darker (x 0.6), where more of the clutter competes for spots.
    let frames = lab.iter().flat_map(|path| {
        let rgb = read_png(path).unwrap();
        let mut darker = rgb.clone();
        for value in darker.data_mut() {
            *value = (f32::from(*value) * 0.6).round() as u8;
        }
        [(path, rgb), (path, darker)]
    });
    for (path, rgb) in frames {
        let image = YuyvImage::from_rgb(&rgb, ColorRange::Full).unwrap();
        let percept = run_modules(&image);
        let matrix = Matrix::nao_v6(CameraPosition::Lower, &KinematicState::standing(), 640, 480);
        let pipeline = perception::perceive_with_camera_matrix(&image, &matrix);
        let module_balls: Vec<_> = (percept.balls.iter())
            .map(|ball| (ball.x, ball.y, ball.radius))
            .collect();
        let pipeline_balls: Vec<_> = (pipeline.balls.iter())
            .map(|ball| (ball.x, ball.y, ball.radius))
            .collect();
        assert_eq!(module_balls, pipeline_balls, "{}", path.display());
    }
}

/// The simulated camera of a `CameraProvider` renders the ball where the simulated world has
/// it, and the stages place it on the ground there: what `cortex run --sim` relies on.
#[test]
fn the_simulated_camera_shows_the_ball_where_the_world_has_it() {
    let settings = CameraSettings {
        source: CameraSource::Simulated,
        folder: String::new(),
        loop_files: false,
        v4l2: None,
    };
    let parameters = CameraProviderParameters {
        max_consecutive_errors: 1,
        upper: settings.clone(),
        lower: settings,
    };
    for (camera, head_pitch_rad, ball) in [
        (CameraName::Upper, 0.2, [1.5f32, 0.3f32]),
        (CameraName::Upper, 0.05, [3.0, -0.5]),
        (CameraName::Lower, 0.0, [0.6, 0.1]),
    ] {
        let mut provider = CameraProvider::open(parameters.clone(), camera);
        let mut sensor_data = SensorData::default();
        sensor_data.joint_positions_rad[JointId::HeadPitch] = head_pitch_rad;
        let truth = GroundTruth {
            ball: BallTruth {
                position: nalgebra::Vector2::new(ball[0], ball[1]),
                ..BallTruth::default()
            },
            ..GroundTruth::default()
        };
        let frame = provider.next_frame(&sensor_data, &truth).unwrap().unwrap();
        let percept = run_stages(frame, camera, sensor_data);
        let seen = percept
            .balls
            .first()
            .unwrap_or_else(|| panic!("{camera:?}: no ball at {ball:?}: {percept:?}"));
        let position = seen.position_m.unwrap();
        let distance = ball[0].hypot(ball[1]);
        let error = (position[0] - ball[0]).hypot(position[1] - ball[1]);
        assert!(
            error < 0.1 * distance,
            "{camera:?}: ball at {ball:?} seen at {position:?}"
        );
    }
}
