//! The simulated cameras against perception's own geometry and detector: a rendered ball is
//! where `perception::camera_matrix` projects it (centre within 2 px, radius within 10 %) for
//! both cameras and several head angles, and `perception::perceive` finds rendered balls 1–3 m
//! ahead near their true pixel.
//!
//! `CORTEX_SAVE_FRAMES=<folder>` also writes every rendered frame there as PNG, to look at.

use cortex_image::{ColorRange, Resolution, YuyvImage};
use nalgebra::{Point2, Point3, Rotation2, Vector2};
use perception::camera_matrix::{CameraMatrix, CameraPosition as PerceptionCamera, KinematicState};
use simulator::scene::{CameraPosition, SimulatedScene};
use simulator::simulated_camera::{SensorModel, SimulatedCamera};
use types::{GroundTruth, RobotPose};

/// Ahead of this pose, over 2.5 m along its heading and ±0.6 m across, there is no line: a
/// rendered line cannot be mistaken for the ball.
const ROBOT: RobotPose = RobotPose {
    x: 1.6,
    y: -2.6,
    theta: std::f32::consts::FRAC_PI_2,
};

/// The ball at `ahead_m` forward and `left_m` left of [`ROBOT`].
fn truth(ahead_m: f32, left_m: f32) -> GroundTruth {
    let mut truth = GroundTruth {
        robot: ROBOT,
        ..GroundTruth::default()
    };
    let offset = Rotation2::new(ROBOT.theta) * Vector2::new(ahead_m, left_m);
    truth.ball.position = Vector2::new(ROBOT.x, ROBOT.y) + offset;
    truth
}

fn scene(truth: GroundTruth, head_yaw_rad: f32, head_pitch_rad: f32) -> SimulatedScene {
    SimulatedScene {
        head_yaw_rad,
        head_pitch_rad,
        ..SimulatedScene::standing(truth)
    }
}

/// Perception's camera matrix for the same posture.
fn camera_matrix(
    camera: CameraPosition,
    scene: &SimulatedScene,
    image: &YuyvImage,
) -> CameraMatrix {
    let state = KinematicState {
        head_yaw_rad: scene.head_yaw_rad,
        head_pitch_rad: scene.head_pitch_rad,
        torso_roll_rad: scene.torso_roll_rad,
        torso_pitch_rad: scene.torso_pitch_rad,
        torso_height_m: scene.torso_height_m,
    };
    let camera = match camera {
        CameraPosition::Upper => PerceptionCamera::Upper,
        CameraPosition::Lower => PerceptionCamera::Lower,
    };
    CameraMatrix::nao_v6(camera, &state, image.width(), image.height())
}

/// Where perception projects the ball's centre, and the radius it expects there.
fn expected_ball(matrix: &CameraMatrix, ahead_m: f32, left_m: f32) -> Option<(Point2<f32>, f32)> {
    let pixel = matrix.robot_to_pixel(&Point3::new(ahead_m, left_m, 0.05))?;
    let radius = matrix.ball_radius_at(&pixel)?;
    Some((pixel, radius))
}

fn save(name: &str, image: &YuyvImage) {
    if let Some(folder) = std::env::var_os("CORTEX_SAVE_FRAMES") {
        let path = std::path::Path::new(&folder).join(format!("{name}.png"));
        cortex_image::write_png(&path, &image.to_rgb(ColorRange::Full)).expect("writing a PNG");
    }
}

/// The centroid and area-equivalent radius of the pixels that differ between the two frames
/// and are neutral (the ball is black and white; its shadow on the carpet stays green).
fn ball_pixels(with_ball: &YuyvImage, without: &YuyvImage) -> Option<(Point2<f32>, f32)> {
    let (mut sum_x, mut sum_y, mut count) = (0.0_f64, 0.0_f64, 0.0_f64);
    for y in 0..with_ball.height() {
        for x in 0..with_ball.width() {
            let (luma, cb, cr) = with_ball.ycbcr(x, y);
            let neutral = (i16::from(cb) - 128).abs() <= 6 && (i16::from(cr) - 128).abs() <= 6;
            if neutral && (luma, cb, cr) != without.ycbcr(x, y) {
                sum_x += x as f64 + 0.5;
                sum_y += y as f64 + 0.5;
                count += 1.0;
            }
        }
    }
    (count > 0.0).then(|| {
        (
            Point2::new((sum_x / count) as f32, (sum_y / count) as f32),
            (count / std::f64::consts::PI).sqrt() as f32,
        )
    })
}

#[test]
fn a_rendered_ball_lands_where_the_camera_matrix_projects_it() {
    // (camera, head yaw, head pitch, ball ahead, ball left)
    let cases = [
        (CameraPosition::Upper, 0.0, 0.0, 2.0, 0.0),
        (CameraPosition::Upper, 0.0, 0.2, 1.2, 0.3),
        (CameraPosition::Upper, 0.3, 0.1, 2.0, 0.5),
        (CameraPosition::Upper, -0.25, 0.3, 1.0, -0.35),
        (CameraPosition::Upper, 0.0, -0.1, 2.4, -0.5),
        (CameraPosition::Lower, 0.0, 0.0, 0.5, 0.0),
        (CameraPosition::Lower, 0.4, 0.1, 0.35, 0.2),
        (CameraPosition::Lower, -0.3, -0.1, 0.6, -0.3),
        (CameraPosition::Lower, 0.0, 0.3, 0.25, 0.05),
    ];
    let mut checked = 0;
    for (index, &(camera, yaw, pitch, ahead, left)) in cases.iter().enumerate() {
        for resolution in [Resolution::Vga, Resolution::Quad] {
            let mut renderer =
                SimulatedCamera::with_sensor_model(camera, resolution, 1, SensorModel::ideal());
            let with_ball = scene(truth(ahead, left), yaw, pitch);
            let without_ball = scene(truth(-2.0, 0.0), yaw, pitch);
            let image = renderer.render(&with_ball);
            let empty = renderer.render(&without_ball);
            save(&format!("projection-{index}-{}", image.width()), &image);
            let matrix = camera_matrix(camera, &with_ball, &image);
            let (expected, expected_radius) =
                expected_ball(&matrix, ahead, left).expect("the ball is in front of the camera");
            let inside = |value: f32, limit: usize| {
                value - expected_radius > 1.0 && value + expected_radius < limit as f32 - 1.0
            };
            assert!(
                inside(expected.x, image.width()) && inside(expected.y, image.height()),
                "case {index}: the ball should be wholly in view, at {expected:?} r {expected_radius}"
            );
            let (found, radius) = ball_pixels(&image, &empty)
                .unwrap_or_else(|| panic!("case {index}: no ball pixels at all"));
            let scale = image.width() as f32 / 640.0;
            assert!(
                (found - expected).norm() <= 2.0 * scale,
                "case {index} ({camera:?}, {}): ball at {found:?}, projected at {expected:?}",
                image.width()
            );
            assert!(
                (radius / expected_radius - 1.0).abs() <= 0.1,
                "case {index}: radius {radius}, expected {expected_radius}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 2 * cases.len());
}

#[test]
fn perception_finds_rendered_balls_one_to_three_metres_ahead() {
    let mut camera = SimulatedCamera::new(CameraPosition::Upper, Resolution::Vga, 42);
    let mut found = 0;
    let mut report = Vec::new();
    let placements = [
        (1.0, 0.0),
        (1.3, 0.3),
        (1.6, -0.3),
        (2.0, 0.0),
        (2.2, 0.4),
        (2.5, -0.2),
        (2.8, 0.1),
        (3.0, 0.0),
    ];
    for (index, &(ahead, left)) in placements.iter().enumerate() {
        // Look down a little at near balls, as the head-tracking behaviour would.
        let pitch = if ahead < 1.5 { 0.25 } else { 0.1 };
        let scene = scene(truth(ahead, left), 0.0, pitch);
        let image = camera.render(&scene);
        save(&format!("detect-{index}"), &image);
        let matrix = camera_matrix(CameraPosition::Upper, &scene, &image);
        let (expected, expected_radius) = expected_ball(&matrix, ahead, left).expect("in view");
        let percepts = perception::pipeline::perceive(&image, Some(&matrix));
        let nearest = percepts
            .balls
            .iter()
            .map(|ball| (Point2::new(ball.x, ball.y) - expected).norm())
            .min_by(f32::total_cmp);
        let tolerance = (0.5 * expected_radius).max(3.0);
        let hit = nearest.is_some_and(|distance| distance <= tolerance);
        found += usize::from(hit);
        report.push(format!(
            "ball {ahead:.1} m ahead, {left:+.1} m left: expected ({:.1}, {:.1}) r {expected_radius:.1}; \
             {} ball(s), nearest {nearest:?} px",
            expected.x,
            expected.y,
            percepts.balls.len(),
        ));
    }
    eprintln!("{}", report.join("\n"));
    assert_eq!(
        found,
        placements.len(),
        "rendered balls missed:\n{}",
        report.join("\n")
    );
}

/// Luma and chroma distance from neutral at a pixel.
fn pixel(image: &YuyvImage, point: &Point2<f32>) -> (u8, i16) {
    assert!(
        (0.0..image.width() as f32).contains(&point.x)
            && (0.0..image.height() as f32).contains(&point.y),
        "{point:?} is outside the image"
    );
    let (luma, cb, cr) = image.ycbcr(point.x as usize, point.y as usize);
    (
        luma,
        (i16::from(cb) - 128).abs().max((i16::from(cr) - 128).abs()),
    )
}

#[test]
fn goal_posts_other_robots_and_lines_appear_where_they_are() {
    // At the halfway line's centre, facing the opponent's goal; another robot 1.5 m ahead.
    let truth = GroundTruth {
        robot: RobotPose {
            x: 1.5,
            y: 0.0,
            theta: 0.0,
        },
        other_robots: vec![RobotPose {
            x: 3.0,
            y: -0.5,
            theta: 3.0,
        }],
        ..GroundTruth::default()
    };
    let scene = scene(truth, 0.0, 0.05);
    let mut camera = SimulatedCamera::with_sensor_model(
        CameraPosition::Upper,
        Resolution::Vga,
        5,
        SensorModel::ideal(),
    );
    let image = camera.render(&scene);
    save("goal-and-robot", &image);
    let matrix = camera_matrix(CameraPosition::Upper, &scene, &image);
    // Robot frame: the field minus 1.5 m in x.
    let project = |x: f32, y: f32, z: f32| {
        matrix
            .robot_to_pixel(&Point3::new(x - 1.5, y, z))
            .expect("in front")
    };
    // Both posts of the goal at x = 4.55, y = ±0.8, halfway up: white.
    for y in [-0.8, 0.8] {
        let (luma, chroma) = pixel(&image, &project(4.55, y, 0.4));
        assert!(
            luma > 150 && chroma < 8,
            "post at y {y}: luma {luma} chroma {chroma}"
        );
    }
    // Between the posts, below the crossbar: no post (the floor or wall behind).
    let (luma, _) = pixel(&image, &project(4.55, 0.0, 0.4));
    assert!(luma < 150, "between the posts: {luma}");
    // The other robot's body: light and neutral; the penalty mark (3.2, 0): white on green.
    let (luma, chroma) = pixel(&image, &project(3.0, -0.5, 0.25));
    assert!(
        luma > 150 && chroma < 8,
        "robot body: luma {luma} chroma {chroma}"
    );
    let (luma, chroma) = pixel(&image, &project(3.2, 0.0, 0.0));
    assert!(
        luma > 150 && chroma < 8,
        "penalty mark: luma {luma} chroma {chroma}"
    );
    let (luma, chroma) = pixel(&image, &project(3.2, 0.3, 0.0));
    assert!(
        luma < 150 && chroma > 15,
        "carpet beside the mark: luma {luma} chroma {chroma}"
    );
}

#[test]
fn perception_finds_rendered_balls_close_to_the_lower_camera() {
    let mut camera = SimulatedCamera::new(CameraPosition::Lower, Resolution::Vga, 9);
    let mut report = Vec::new();
    let mut found = 0;
    let placements = [(0.3, 0.0), (0.4, 0.15), (0.5, -0.1), (0.6, 0.2)];
    for (index, &(ahead, left)) in placements.iter().enumerate() {
        let scene = scene(truth(ahead, left), 0.0, 0.0);
        let image = camera.render(&scene);
        save(&format!("detect-lower-{index}"), &image);
        let matrix = camera_matrix(CameraPosition::Lower, &scene, &image);
        let (expected, expected_radius) = expected_ball(&matrix, ahead, left).expect("in view");
        let percepts = perception::pipeline::perceive(&image, Some(&matrix));
        let nearest = percepts
            .balls
            .iter()
            .map(|ball| (Point2::new(ball.x, ball.y) - expected).norm())
            .min_by(f32::total_cmp);
        let hit = nearest.is_some_and(|distance| distance <= (0.5 * expected_radius).max(3.0));
        found += usize::from(hit);
        report.push(format!(
            "lower: ball {ahead:.1} m ahead, {left:+.2} m left: expected ({:.1}, {:.1}) r \
             {expected_radius:.1}; {} ball(s), nearest {nearest:?} px",
            expected.x,
            expected.y,
            percepts.balls.len(),
        ));
    }
    eprintln!("{}", report.join("\n"));
    assert_eq!(
        found,
        placements.len(),
        "rendered balls missed:\n{}",
        report.join("\n")
    );
}

#[test]
fn far_lines_stay_whole() {
    // Looking across the field at the far touch line, 6 m away: a pixel there spans more ground
    // along the view than the line is wide; the line is still seen in every column.
    let truth = GroundTruth {
        robot: RobotPose {
            x: 0.5,
            y: -3.0,
            theta: std::f32::consts::FRAC_PI_2,
        },
        ..GroundTruth::default()
    };
    let scene = scene(truth, 0.0, 0.0);
    let mut camera = SimulatedCamera::with_sensor_model(
        CameraPosition::Upper,
        Resolution::Vga,
        5,
        SensorModel::ideal(),
    );
    let image = camera.render(&scene);
    save("far-line", &image);
    let matrix = camera_matrix(CameraPosition::Upper, &scene, &image);
    // Field (x, y) → robot frame: the robot faces +y from (0.5, -3).
    let project = |x: f32, y: f32| {
        matrix
            .robot_to_pixel(&Point3::new(y + 3.0, -(x - 0.5), 0.0))
            .expect("in front")
    };
    // Green between the halfway line and the penalty area.
    let (carpet, _) = pixel(&image, &project(1.2, 2.6));
    // The touch line's image is straight: from its projection at x = −1 (left in the image) to
    // that at x = 2.
    let (left, right) = (project(-1.0, 3.0), project(2.0, 3.0));
    let mut gaps = Vec::new();
    for column in left.x.ceil() as usize..right.x.floor() as usize {
        let along = (column as f32 - left.x) / (right.x - left.x);
        let row = left.y + along * (right.y - left.y);
        let brightest = (-1..=1)
            .map(|dv| pixel(&image, &Point2::new(column as f32, row + dv as f32)).0)
            .max()
            .unwrap();
        if brightest <= carpet.saturating_add(20) {
            gaps.push(column);
        }
    }
    assert!(
        right.x - left.x > 200.0,
        "the line spans the image: {left:?} {right:?}"
    );
    assert!(
        gaps.is_empty(),
        "the line is broken at columns {gaps:?} (carpet {carpet})"
    );
}

#[test]
fn a_rolling_ball_is_smeared_along_its_path() {
    // 1 m ahead, rolling to the robot's left at 3 m/s: 4.5 cm during a 15 ms exposure.
    let model = SensorModel {
        exposure_s: 0.015,
        ..SensorModel::ideal()
    };
    let mut camera =
        SimulatedCamera::with_sensor_model(CameraPosition::Upper, Resolution::Vga, 3, model);
    let still = scene(truth(1.0, 0.0), 0.0, 0.25);
    let mut rolling = still.clone();
    rolling.ground_truth.ball.velocity = Rotation2::new(ROBOT.theta) * Vector2::new(0.0, 3.0);
    let empty = camera.render(&scene(truth(-2.0, 0.0), 0.0, 0.25));
    let sharp = camera.render(&still);
    let smeared = camera.render(&rolling);
    save("rolling", &smeared);
    let matrix = camera_matrix(CameraPosition::Upper, &still, &sharp);
    let (center, radius) = expected_ball(&matrix, 1.0, 0.0).expect("in view");
    // The sweep in pixels: the ball's centre 2.25 cm to either side.
    let sweep_px = (matrix
        .robot_to_pixel(&Point3::new(1.0, -0.0225, 0.05))
        .unwrap()
        - matrix
            .robot_to_pixel(&Point3::new(1.0, 0.0225, 0.05))
            .unwrap())
    .norm();
    // Width of what differs from the empty frame along the row through the centre.
    let width = |image: &YuyvImage| {
        let row = center.y as usize;
        let columns: Vec<usize> = (0..image.width())
            .filter(|&x| image.ycbcr(x, row) != empty.ycbcr(x, row))
            .collect();
        (columns.last().unwrap() - columns.first().unwrap() + 1) as f32
    };
    let (sharp_width, smeared_width) = (width(&sharp), width(&smeared));
    assert!(
        (sharp_width / (2.0 * radius) - 1.0).abs() <= 0.1,
        "sharp {sharp_width}, r {radius}"
    );
    assert!(
        (smeared_width - sharp_width - sweep_px).abs() <= 0.25 * sweep_px,
        "smeared {smeared_width}, sharp {sharp_width}, sweep {sweep_px} px"
    );
    // Its middle stays where the ground truth has it.
    let (found, _) = ball_pixels(&smeared, &empty).expect("ball pixels");
    assert!((found - center).norm() <= 2.0, "{found:?} {center:?}");
}
