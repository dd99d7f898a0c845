//! The simulated cameras against perception's own geometry and detector: a rendered ball is
//! where `perception::camera_matrix` projects it (centre within 2 px, radius within 10 %) for
//! both cameras and several head angles, and `perception::perceive` finds rendered balls 1–3 m
//! ahead near their true pixel. The robot's own legs appear at the bottom of the lower camera's
//! image when the head looks down, where the camera matrix puts them, white with dark joint
//! covers, and nowhere else; its arms appear only when one is swung forward into view.
//!
//! `CORTEX_SAVE_FRAMES=<folder>` also writes every rendered frame there as PNG, to look at.

use cortex_image::{ColorRange, Resolution, YuyvImage};
use kinematics::body_shape::{arm_boxes_in_torso, leg_boxes_in_torso, LinkBox};
use kinematics::{limits, ArmJoints, LegJoints, Side};
use nalgebra::{Point2, Point3, Rotation2, Vector2};
use perception::camera_matrix::{CameraMatrix, CameraPosition as PerceptionCamera, KinematicState};
use simulator::field::BALL_RADIUS_M;
use simulator::render::{
    palette, ChromaSampling, FrameGeometry, Intrinsics, Lighting, NoNoise, OrientedBox,
};
use simulator::scene::{arms_standing, legs_standing, CameraPosition, SimulatedScene};
use simulator::simulated_camera::{SensorModel, SimulatedCamera};
use types::{GroundTruth, JointId, RobotPose, SensorData};

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

/// The head pitched down as far as it goes: the lower camera sees the robot's feet.
fn head_down() -> f32 {
    limits::HEAD_PITCH.max_rad as f32
}

/// `scene` from `camera` at 640×480 through the ideal sensor, with the robot's whole own body
/// or without it (the renderer called directly, to see what the body changes).
fn render_ideal(scene: &SimulatedScene, camera: CameraPosition, with_body: bool) -> YuyvImage {
    let body = scene.own_body_boxes();
    render_with_body(scene, camera, if with_body { &body } else { &[] })
}

/// `scene` from `camera` at 640×480 through the ideal sensor, with `own_body` as the robot's own
/// links.
fn render_with_body(
    scene: &SimulatedScene,
    camera: CameraPosition,
    own_body: &[OrientedBox],
) -> YuyvImage {
    let (width, height) = Resolution::Vga.size();
    let geometry = FrameGeometry::new(
        &scene.camera_to_field(camera),
        &scene.ground_truth,
        own_body,
        Intrinsics::nao_v6(width, height),
        Lighting::NEUTRAL,
        0.0,
    );
    let mut bytes = vec![0; Resolution::Vga.yuyv_bytes()];
    geometry.render(&mut NoNoise, ChromaSampling::PairMean, &mut bytes);
    YuyvImage::new(width, height, bytes).expect("the buffer has the resolution's size")
}

/// The pixels (column, row) where two images differ.
fn changed_pixels(image: &YuyvImage, other: &YuyvImage) -> Vec<(usize, usize)> {
    let mut pixels = Vec::new();
    for y in 0..image.height() {
        for x in 0..image.width() {
            if image.ycbcr(x, y) != other.ycbcr(x, y) {
                pixels.push((x, y));
            }
        }
    }
    pixels
}

/// The pixels (column, row) where the own body changes the image: what the camera sees of
/// itself. Also checks that the simulated camera renders the body: its ideal frame is the one
/// with it.
fn own_body_pixels(scene: &SimulatedScene, camera: CameraPosition) -> Vec<(usize, usize)> {
    let with_body = render_ideal(scene, camera, true);
    let without = render_ideal(scene, camera, false);
    let mut simulated =
        SimulatedCamera::with_sensor_model(camera, Resolution::Vga, 1, SensorModel::ideal());
    assert!(
        simulated.render(scene) == with_body,
        "the simulated camera shows the own body"
    );
    changed_pixels(&with_body, &without)
}

/// The pixels (column, row) where the legs change the image: the legs alone against no body.
fn own_leg_pixels(scene: &SimulatedScene, camera: CameraPosition) -> Vec<(usize, usize)> {
    let body = scene.own_body_boxes();
    changed_pixels(
        &render_with_body(scene, camera, &body[..6]),
        &render_with_body(scene, camera, &[]),
    )
}

/// The pixels (column, row) where the arms change the image: the whole body against the legs
/// alone.
fn own_arm_pixels(scene: &SimulatedScene, camera: CameraPosition) -> Vec<(usize, usize)> {
    let body = scene.own_body_boxes();
    changed_pixels(
        &render_with_body(scene, camera, &body),
        &render_with_body(scene, camera, &body[..6]),
    )
}

/// The two colours of the own body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BodyColour {
    /// The white shells.
    Shell,
    /// The dark grey joint covers, sole rims and fingers.
    Trim,
}

/// Which of the body's colours a pixel has under neutral light, if any: the colour's chroma
/// (within a step and a half) and its luma as lit on any face (0.6 facing down to 1 facing up,
/// and the white shells' sheen above that, up to full white).
fn body_colour(image: &YuyvImage, x: usize, y: usize) -> Option<BodyColour> {
    let (luma, cb, cr) = image.ycbcr(x, y);
    let has = |colour: simulator::render::Ycbcr, brightest: f32| {
        (f32::from(cb) - colour.cb).abs() <= 1.5
            && (f32::from(cr) - colour.cr).abs() <= 1.5
            && (0.6 * colour.y - 1.0..=brightest).contains(&f32::from(luma))
    };
    let (shell, trim) = (palette::BODY_SHELL, palette::BODY_TRIM);
    if has(shell, 255.0) {
        Some(BodyColour::Shell)
    } else if has(trim, trim.y + 1.0) {
        Some(BodyColour::Trim)
    } else {
        None
    }
}

/// How many of `pixels` show the white shells and how many the dark grey trim.
fn body_colours(image: &YuyvImage, pixels: &[(usize, usize)]) -> (usize, usize) {
    let count = |colour: BodyColour| {
        pixels
            .iter()
            .filter(|&&(x, y)| body_colour(image, x, y) == Some(colour))
            .count()
    };
    (count(BodyColour::Shell), count(BodyColour::Trim))
}

#[test]
fn looking_down_the_lower_camera_sees_the_own_legs_along_the_bottom_of_the_image() {
    let scene = scene(truth(-2.0, 0.0), 0.0, head_down());
    let image = render_ideal(&scene, CameraPosition::Lower, true);
    save("own-legs-looking-down", &image);
    let pixels = own_leg_pixels(&scene, CameraPosition::Lower);
    let (width, height) = (image.width(), image.height());
    // The legs fill most of the bottom tenth of the image (carpet shows between and beside
    // them); nothing of them reaches the upper half.
    let bottom_rows = height / 10;
    let in_bottom = pixels
        .iter()
        .filter(|&&(_, y)| y >= height - bottom_rows)
        .count();
    let share = in_bottom as f32 / (bottom_rows * width) as f32;
    let highest = pixels.iter().map(|&(_, y)| y).min().expect("leg pixels");
    eprintln!(
        "looking down: the legs cover {share:.2} of the bottom {bottom_rows} rows, up to row \
         {highest}"
    );
    assert!(share > 0.5, "the legs cover {share} of the bottom rows");
    assert!(highest >= height / 2, "leg pixels up to row {highest}");
    // What the body (the legs, and the hanging hands at the lower corners) changes has the
    // body's colours (but at its outline, where a YUYV pair shares the carpet's chroma).
    let pixels = own_body_pixels(&scene, CameraPosition::Lower);
    let coloured = pixels
        .iter()
        .filter(|&&(x, y)| body_colour(&image, x, y).is_some())
        .count();
    assert!(
        coloured as f32 >= 0.9 * pixels.len() as f32,
        "{coloured} of {} body pixels have the shells' or the joint covers' colour",
        pixels.len()
    );
}

#[test]
fn at_the_feet_the_legs_show_white_shells_and_dark_joint_covers() {
    let scene = scene(truth(-2.0, 0.0), 0.0, 0.45);
    let camera = CameraPosition::Lower;
    save("own-body-at-the-feet", &render_ideal(&scene, camera, true));
    // The legs alone (the hanging hands show at the image's lower corners too).
    let body = scene.own_body_boxes();
    let image = render_with_body(&scene, camera, &body[..6]);
    let pixels = own_leg_pixels(&scene, camera);
    let (shell, trim) = body_colours(&image, &pixels);
    eprintln!(
        "at the feet: {} leg pixels, {shell} white shell, {trim} dark grey",
        pixels.len()
    );
    // Mostly white, and dark parts a detector has to cope with: more than a few stray pixels
    // at the outline.
    assert!(
        shell > pixels.len() / 2,
        "{shell} of {} white",
        pixels.len()
    );
    assert!(trim >= 1000, "{trim} of {} dark grey", pixels.len());
}

#[test]
fn looking_straight_ahead_neither_camera_sees_the_own_body() {
    for camera in [CameraPosition::Upper, CameraPosition::Lower] {
        let scene = scene(truth(0.5, 0.0), 0.0, 0.0);
        let pixels = own_body_pixels(&scene, camera);
        assert!(
            pixels.is_empty(),
            "{camera:?}: {} body pixels",
            pixels.len()
        );
    }
}

#[test]
fn a_ball_in_front_of_the_toes_is_seen_in_front_of_the_legs() {
    // 5 cm between the left foot's toe and the ball, in front of the middle of the foot.
    let standing = SimulatedScene::standing(GroundTruth::default());
    let [_, _, (foot_to_torso, foot)] = leg_boxes_in_torso(Side::Left, &standing.left_leg);
    let corners = foot.corners().map(|corner| foot_to_torso * corner);
    let toe = corners
        .iter()
        .map(|c| c.x)
        .fold(f64::NEG_INFINITY, f64::max) as f32;
    let middle = (corners.iter().map(|c| c.y).sum::<f64>() / 8.0) as f32;
    let ahead = toe + 0.05 + BALL_RADIUS_M;
    let with_ball = scene(truth(ahead, middle), 0.0, head_down());
    let without_ball = scene(truth(-2.0, 0.0), 0.0, head_down());
    let camera = CameraPosition::Lower;
    let image = render_ideal(&with_ball, camera, true);
    save("own-legs-and-ball", &image);
    let empty = render_ideal(&without_ball, camera, true);
    let ball_without_legs = render_ideal(&with_ball, camera, false);
    // The legs are in this image too.
    assert!(!own_body_pixels(&with_ball, camera).is_empty());
    // The whole ball is seen, where and as large as the camera matrix projects it.
    let matrix = camera_matrix(camera, &with_ball, &image);
    let (expected, expected_radius) = expected_ball(&matrix, ahead, middle).expect("in view");
    let (found, radius) = ball_pixels(&image, &empty).expect("ball pixels");
    assert!((found - expected).norm() <= 2.0, "{found:?} {expected:?}");
    assert!(
        (radius / expected_radius - 1.0).abs() <= 0.1,
        "radius {radius}, expected {expected_radius}"
    );
    // Inside its outline the legs change nothing: the ball keeps its colours.
    let mut inside = 0;
    for y in 0..image.height() {
        for x in 0..image.width() {
            let offset = Point2::new(x as f32 + 0.5, y as f32 + 0.5) - expected;
            if offset.norm() < expected_radius - 1.5 {
                inside += 1;
                assert_eq!(
                    image.ycbcr(x, y),
                    ball_without_legs.ycbcr(x, y),
                    "pixel ({x}, {y})"
                );
            }
        }
    }
    assert!(inside > 100, "{inside} pixels inside the ball");
}

/// The pixels the corners of `boxes` (each with its link's pose in the torso frame) project to
/// in the lower camera's `image`, through perception's camera matrix for the scene's posture;
/// the corners behind the camera are left out.
fn projected_corners(
    scene: &SimulatedScene,
    image: &YuyvImage,
    boxes: &[(nalgebra::Isometry3<f64>, LinkBox)],
) -> Vec<Point2<f32>> {
    let matrix = camera_matrix(CameraPosition::Lower, scene, image);
    let mut pixels = Vec::new();
    for (box_to_torso, link_box) in boxes {
        for corner in link_box.corners() {
            let in_torso = (box_to_torso * corner).cast::<f32>();
            let in_robot = in_torso + nalgebra::Vector3::z() * scene.torso_height_m;
            pixels.extend(matrix.robot_to_pixel(&in_robot));
        }
    }
    pixels
}

/// The topmost row of the image that one of the own legs' box corners projects to, through
/// perception's camera matrix for the scene's posture.
fn highest_projected_leg_corner(scene: &SimulatedScene, image: &YuyvImage) -> f32 {
    let mut boxes = leg_boxes_in_torso(Side::Left, &scene.left_leg).to_vec();
    boxes.extend(leg_boxes_in_torso(Side::Right, &scene.right_leg));
    projected_corners(scene, image, &boxes)
        .iter()
        .map(|pixel| pixel.y)
        .fold(f32::INFINITY, f32::min)
}

/// The convex hull of `points` (Andrew's monotone chain), its corners in turn.
fn convex_hull(mut points: Vec<Point2<f32>>) -> Vec<Point2<f32>> {
    points.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    let turn = |o: &Point2<f32>, a: &Point2<f32>, b: &Point2<f32>| (a - o).perp(&(b - o));
    let mut hull: Vec<Point2<f32>> = Vec::new();
    for chain in [points.clone(), points.into_iter().rev().collect()] {
        let start = hull.len();
        for point in chain {
            while hull.len() >= start + 2
                && turn(&hull[hull.len() - 2], &hull[hull.len() - 1], &point) <= 0.0
            {
                hull.pop();
            }
            hull.push(point);
        }
        hull.pop();
    }
    hull
}

/// Whether `point` lies inside the convex `hull` or at most `slack` pixels outside it.
fn within_hull(hull: &[Point2<f32>], point: &Point2<f32>, slack: f32) -> bool {
    (0..hull.len()).all(|index| {
        let (a, b) = (hull[index], hull[(index + 1) % hull.len()]);
        (b - a).perp(&(point - a)) / (b - a).norm() >= -slack
    })
}

/// The left arm swung forward from the standing pose until the lower camera, with the head
/// pitched `head_pitch_rad` down, sees its hand: the shoulder pitched up from hanging (90°) in
/// steps of 0.05 rad, and where the hand stays beside the image however far it swings, the
/// shoulder rolled inward in steps of 5° (down to the NAO's limit of −18°). The first pose in
/// which all of the hand's box lies before the camera and its middle projects into the upper
/// half of the image, 60 px or more from its edges: held out ahead of the feet, not only in
/// front of the thighs.
fn arm_swung_into_view(head_pitch_rad: f32, image: &YuyvImage) -> SimulatedScene {
    let hanging = scene(truth(-2.0, 0.0), 0.0, head_pitch_rad);
    let (width, height) = (image.width() as f32, image.height() as f32);
    let well_inside = |pixel: &Point2<f32>| {
        (60.0..width - 60.0).contains(&pixel.x) && (60.0..height / 2.0).contains(&pixel.y)
    };
    let [standing_left, _] = arms_standing();
    let rolls = (0..)
        .map(|step| standing_left.shoulder_roll - f64::from(step) * 5f64.to_radians())
        .take_while(|roll| *roll >= -18f64.to_radians());
    rolls
        .flat_map(|shoulder_roll| {
            (1..=31).map(move |step| {
                let shoulder_pitch = std::f64::consts::FRAC_PI_2 - 0.05 * f64::from(step);
                ArmJoints {
                    shoulder_pitch,
                    shoulder_roll,
                    ..standing_left
                }
            })
        })
        .find_map(|left_arm| {
            let scene = SimulatedScene {
                left_arm,
                ..hanging.clone()
            };
            let [_, _, (hand_to_torso, hand)] = arm_boxes_in_torso(Side::Left, &left_arm);
            let corners = projected_corners(&scene, image, &[(hand_to_torso, hand)]);
            let middle = LinkBox {
                min: (hand.min + hand.max) / 2.0,
                max: (hand.min + hand.max) / 2.0,
            };
            let centre = projected_corners(&scene, image, &[(hand_to_torso, middle)]);
            (corners.len() == 8 && centre.first().is_some_and(well_inside)).then_some(scene)
        })
        .expect("a pose that brings the hand into the lower camera's view")
}

#[test]
fn an_arm_swung_forward_appears_in_the_lower_image_where_its_boxes_project() {
    let camera = CameraPosition::Lower;
    let head_pitch_rad = 0.45;
    let hanging = scene(truth(-2.0, 0.0), 0.0, head_pitch_rad);
    let swung = arm_swung_into_view(head_pitch_rad, &render_ideal(&hanging, camera, true));
    let arm = swung.left_arm;
    eprintln!(
        "the hand is in view with the shoulder pitched to {:.2} rad and rolled to {:.2} rad",
        arm.shoulder_pitch, arm.shoulder_roll
    );
    assert!(arm.shoulder_pitch < 1.2, "well forward of hanging: {arm:?}");
    let image = render_ideal(&swung, camera, true);
    save("own-arm-swung-forward", &image);
    let pixels = own_arm_pixels(&swung, camera);
    // Beside the hands that show at the image's edges when they hang, the swung arm shows too.
    let hanging_pixels = own_arm_pixels(&hanging, camera);
    eprintln!(
        "arm pixels: {} swung forward, {} hanging",
        pixels.len(),
        hanging_pixels.len()
    );
    assert!(
        pixels.len() >= hanging_pixels.len() + 5000,
        "{} arm pixels swung, {} hanging",
        pixels.len(),
        hanging_pixels.len()
    );
    // Every arm pixel lies on the projection of one of the arms' boxes (each box before the
    let mut hulls = Vec::new();
    // camera projects to the convex hull of its corners; a pixel's slack at the outline). Boxes
    // reaching behind the camera (the upper arms, from the shoulders beside the head) cannot be
    // projected so: they are out of view.
    for (side, joints) in [
        (Side::Left, &swung.left_arm),
        (Side::Right, &swung.right_arm),
    ] {
        for link in arm_boxes_in_torso(side, joints) {
            let corners = projected_corners(&swung, &image, &[link]);
            if corners.len() == 8 {
                hulls.push(convex_hull(corners));
            }
        }
    }
    let outside: Vec<_> = pixels
        .iter()
        .filter(|&&(x, y)| {
            let pixel = Point2::new(x as f32 + 0.5, y as f32 + 0.5);
            !hulls.iter().any(|hull| within_hull(hull, &pixel, 1.5))
        })
        .collect();
    assert!(
        outside.is_empty(),
        "{} of {} arm pixels off the boxes' projections, e.g. {:?}",
        outside.len(),
        pixels.len(),
        outside.first()
    );
    // The hand's middle shows the arm, and the arm has the body's two colours: the white
    // shells, the grey fingers and elbow.
    let [_, _, (hand_to_torso, hand)] = arm_boxes_in_torso(Side::Left, &arm);
    let middle = LinkBox {
        min: (hand.min + hand.max) / 2.0,
        max: (hand.min + hand.max) / 2.0,
    };
    let centre = projected_corners(&swung, &image, &[(hand_to_torso, middle)])[0];
    let centre = (centre.x as usize, centre.y as usize);
    assert!(pixels.contains(&centre), "the hand's middle {centre:?}");
    let (shell, trim) = body_colours(&image, &pixels);
    eprintln!(
        "{} arm pixels: {shell} white, {trim} dark grey",
        pixels.len()
    );
    assert!(
        shell >= 1000 && trim >= 1000,
        "{shell} white, {trim} dark grey"
    );
}

#[test]
fn bent_knees_in_the_sensor_data_move_the_legs_in_the_image_where_the_camera_matrix_puts_them() {
    // A crouch: the soles 5 cm closer to the torso than standing, from the inverse kinematics.
    let crouch_height_m = simulator::scene::STANDING_TORSO_HEIGHT_M - 0.05;
    let [left, right] = legs_standing(crouch_height_m);
    assert_ne!(left, LegJoints::default(), "the knees are bent");
    let mut sensor_data = SensorData::default();
    let joints = &mut sensor_data.joint_positions_rad;
    joints[JointId::HeadPitch] = head_down();
    for (ids, leg) in [(JointId::LEFT_LEG, left), (JointId::RIGHT_LEG, right)] {
        for (id, angle) in ids.into_iter().zip(leg.to_array()) {
            joints[id] = angle as f32;
        }
    }
    for (ids, arm) in [JointId::LEFT_ARM, JointId::RIGHT_ARM]
        .into_iter()
        .zip(arms_standing())
    {
        for (id, angle) in ids.into_iter().zip(arm.to_array()) {
            joints[id] = angle as f32;
        }
    }
    let crouching = SimulatedScene::from_sensor_data(truth(-2.0, 0.0), &sensor_data);
    assert!((crouching.torso_height_m - crouch_height_m).abs() < 1e-4);
    let standing = scene(truth(-2.0, 0.0), 0.0, head_down());
    let mut highest_rows = Vec::new();
    for (name, scene) in [("standing", &standing), ("crouching", &crouching)] {
        let image = render_ideal(scene, CameraPosition::Lower, true);
        save(&format!("own-legs-{name}"), &image);
        let highest = own_leg_pixels(scene, CameraPosition::Lower)
            .iter()
            .map(|&(_, y)| y)
            .min()
            .expect("leg pixels");
        let projected = highest_projected_leg_corner(scene, &image);
        eprintln!("{name}: legs up to row {highest}, projected up to {projected:.1}");
        assert!(
            (highest as f32 - projected).abs() <= 2.0,
            "{name}: legs up to row {highest}, projected up to {projected}"
        );
        highest_rows.push(highest);
    }
    // Lower and with the knees forward, the legs reach higher up the image.
    assert!(
        highest_rows[1] + 5 < highest_rows[0],
        "highest leg rows standing, crouching: {highest_rows:?}"
    );
}
