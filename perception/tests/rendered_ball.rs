//! Closing the loop between the camera matrix and the detector: a ball is ray-traced into a
//! camera image with the same `CameraMatrix` (a green field, a white line, a white sphere with
//! twelve black patches, shaded), and the perception tick must find it at the centre of its
//! silhouette (the visible centre, which off the optical axis lies a few pixels outward of
//! where the matrix projects the sphere's centre) and place it on the ground where it was put.

use cortex_image::{ColorRange, RgbImage, YuyvImage};
use nalgebra::{Point2, Point3, Vector3};
use perception::camera_matrix::{CameraMatrix, CameraPosition, KinematicState, BALL_RADIUS_M};

/// The twelve vertices of an icosahedron: the centres of a football's black pentagons.
fn patch_centres() -> Vec<Vector3<f32>> {
    let golden = (1.0 + 5f32.sqrt()) / 2.0;
    let mut centres = Vec::new();
    for (a, b) in [
        (1.0, golden),
        (-1.0, golden),
        (1.0, -golden),
        (-1.0, -golden),
    ] {
        centres.push(Vector3::new(0.0, a, b).normalize());
        centres.push(Vector3::new(a, b, 0.0).normalize());
        centres.push(Vector3::new(b, 0.0, a).normalize());
    }
    centres
}

/// Where the ray from `origin` along the unit `direction` first meets the sphere, if it does.
fn sphere_hit(
    origin: Point3<f32>,
    direction: Vector3<f32>,
    ball: Point3<f32>,
    sphere_radius_m: f32,
) -> Option<f32> {
    // |origin + t d − ball|² = r².
    let to_origin = origin - ball;
    let b = direction.dot(&to_origin);
    let c = to_origin.norm_squared() - sphere_radius_m * sphere_radius_m;
    let discriminant = b * b - c;
    let t = -b - discriminant.max(0.0).sqrt();
    (discriminant >= 0.0 && t > 0.0).then_some(t)
}

/// Pixels the silhouette may reach beyond the image's border (the tests' balls have centres at
/// least 60 px inside and radii up to 90 px; their ellipses stretch outwards).
const SILHOUETTE_MARGIN_PX: i32 = 160;

/// The centre of the sphere's silhouette: the centroid of the pixels whose rays hit it,
/// counted on an image plane that extends [`SILHOUETTE_MARGIN_PX`] past every border so that
/// a ball cut by the border keeps its whole outline. A sphere off the optical axis images as
/// an ellipse whose centre lies outward of the projected centre (by a few pixels for a near
/// ball at the border); the centroid of an ellipse is its centre, the visible centre a
/// detector finds and a person labels.
fn silhouette_centre(
    matrix: &CameraMatrix,
    ball: Point3<f32>,
    sphere_radius_m: f32,
    width: usize,
    height: usize,
) -> Point2<f32> {
    let origin = matrix.camera_position();
    let (mut sum_u, mut sum_v, mut count) = (0.0f64, 0.0f64, 0usize);
    let margin = SILHOUETTE_MARGIN_PX;
    for v in -margin..height as i32 + margin {
        for u in -margin..width as i32 + margin {
            let direction = matrix
                .pixel_to_ray(&Point2::new(u as f32, v as f32))
                .normalize();
            if sphere_hit(origin, direction, ball, sphere_radius_m).is_some() {
                sum_u += f64::from(u);
                sum_v += f64::from(v);
                count += 1;
            }
        }
    }
    assert!(count > 0, "the sphere at {ball:?} is not in view");
    Point2::new((sum_u / count as f64) as f32, (sum_v / count as f64) as f32)
}

fn render_sphere(
    matrix: &CameraMatrix,
    ball: Point3<f32>,
    sphere_radius_m: f32,
    width: usize,
    height: usize,
) -> RgbImage {
    let patches = patch_centres();
    let origin = matrix.camera_position();
    let light = Vector3::new(0.3, 0.2, 1.0).normalize();
    let mut image = RgbImage::filled(width, height, [0, 0, 0]);
    for v in 0..height {
        for u in 0..width {
            let direction = matrix
                .pixel_to_ray(&Point2::new(u as f32, v as f32))
                .normalize();
            let colour = if let Some(t) = sphere_hit(origin, direction, ball, sphere_radius_m) {
                let normal = ((origin + direction * t) - ball).normalize();
                let dark = patches.iter().any(|centre| centre.dot(&normal) > 0.93);
                let shade = 0.55 + 0.45 * normal.dot(&light).max(0.0);
                let base = if dark { 30.0 } else { 245.0 };
                [(base * shade) as u8; 3]
            } else if direction.z < -1e-4 {
                let t = -origin.z / direction.z;
                let ground = origin + direction * t;
                if (ground.x - 1.8).abs() < 0.025 {
                    [230, 230, 230]
                } else {
                    [40, 140, 60]
                }
            } else {
                [200, 200, 190]
            };
            image.set(u, v, colour);
        }
    }
    image
}

fn render(matrix: &CameraMatrix, ball: Point3<f32>, width: usize, height: usize) -> RgbImage {
    render_sphere(matrix, ball, BALL_RADIUS_M, width, height)
}

/// How far a detection may lie from the silhouette's centre: 3 px, or 5 % of the radius for
/// near balls (the contour is fitted as a circle to an ellipse's edges).
fn centre_tolerance(radius_px: f32) -> f32 {
    (0.05 * radius_px).max(3.0)
}

#[test]
fn rendered_balls_are_found_where_the_camera_matrix_puts_them() {
    let cases = [
        (
            CameraPosition::Lower,
            0.0,
            0.0,
            Point3::new(0.8, 0.1, BALL_RADIUS_M),
        ),
        (
            CameraPosition::Lower,
            0.3,
            0.2,
            Point3::new(0.6, 0.25, BALL_RADIUS_M),
        ),
        (
            CameraPosition::Upper,
            0.0,
            0.25,
            Point3::new(1.5, -0.2, BALL_RADIUS_M),
        ),
        (
            CameraPosition::Upper,
            -0.4,
            0.1,
            Point3::new(2.2, -0.9, BALL_RADIUS_M),
        ),
        // Far away: about 9 px radius.
        (
            CameraPosition::Upper,
            0.1,
            0.0,
            Point3::new(3.4, 0.5, BALL_RADIUS_M),
        ),
        // Lying on the white line.
        (
            CameraPosition::Upper,
            0.0,
            0.3,
            Point3::new(1.8, 0.3, BALL_RADIUS_M),
        ),
    ];
    for (camera, yaw, pitch, ball) in cases {
        let state = KinematicState {
            head_yaw_rad: yaw,
            head_pitch_rad: pitch,
            ..KinematicState::standing()
        };
        let matrix = CameraMatrix::nao_v6(camera, &state, 640, 480);
        let projected = matrix.robot_to_pixel(&ball).expect("the ball is in front");
        let expected_radius = matrix.ball_radius_at(&projected).unwrap();
        let expected = silhouette_centre(&matrix, ball, BALL_RADIUS_M, 640, 480);
        let rgb = render(&matrix, ball, 640, 480);
        let image = YuyvImage::from_rgb(&rgb, ColorRange::Full).unwrap();
        let balls = perception::perceive(&image, Some(&matrix)).balls;
        let checked = perception::perceive_with_camera_matrix(&image, &matrix).balls;
        assert_eq!(
            balls, checked,
            "a ball of the right size passes the size check"
        );
        let context = format!(
            "{camera:?} yaw {yaw} pitch {pitch} ball {ball:?}: expected ({:.1}, {:.1}) r {:.1} \
             (projected centre ({:.1}, {:.1})), got {balls:?}",
            expected.x, expected.y, expected_radius, projected.x, projected.y
        );
        assert_eq!(balls.len(), 1, "{context}");
        let found = balls[0];
        let error = ((found.x - expected.x).powi(2) + (found.y - expected.y).powi(2)).sqrt();
        assert!(
            error <= centre_tolerance(expected_radius),
            "{error:.1} px off: {context}"
        );
        assert!(
            (found.radius - expected_radius).abs() <= 0.15 * expected_radius,
            "radius: {context}"
        );
        let ground = found.position_on_ground_m.expect("below the horizon");
        let distance = (ball.x * ball.x + ball.y * ball.y).sqrt();
        let ground_error = ((ground.x - ball.x).powi(2) + (ground.y - ball.y).powi(2)).sqrt();
        assert!(
            ground_error <= 0.05 * distance,
            "on the ground at {ground:?}, {ground_error:.3} m off: {context}"
        );
    }
}

#[test]
fn the_silhouette_centre_lies_outward_of_the_projected_centre_off_axis() {
    // The reference the detector is compared with: a sphere near the optical axis images as a
    // circle around its projected centre; a near sphere at the image's border as an ellipse
    // stretched away from the optical centre, whose centre lies outward of the projection.
    let state = KinematicState {
        head_pitch_rad: 0.2,
        ..KinematicState::standing()
    };
    let matrix = CameraMatrix::nao_v6(CameraPosition::Lower, &state, 640, 480);
    let optical_centre = matrix.intrinsics.optical_center_px;
    let offset = |pixel: Point2<f32>| {
        let ball = matrix.pixel_to_plane(&pixel, BALL_RADIUS_M).unwrap();
        let projected = matrix.robot_to_pixel(&ball).unwrap();
        silhouette_centre(&matrix, ball, BALL_RADIUS_M, 640, 480) - projected
    };
    let on_axis = offset(optical_centre);
    assert!(on_axis.norm() <= 0.3, "on the axis: {on_axis:?}");
    let corner = Point2::new(580.0, 420.0);
    let off_axis = offset(corner);
    eprintln!("silhouette centre − projected centre: on the axis {on_axis:?}, near the corner {off_axis:?}");
    let outward = (corner - optical_centre).normalize();
    assert!(
        off_axis.dot(&outward) >= 1.0,
        "at the corner {off_axis:?} is not outward along {outward:?}"
    );
    assert!(
        off_axis.dot(&outward) >= 0.9 * off_axis.norm(),
        "at the corner {off_axis:?} is not along {outward:?}"
    );
}

#[test]
fn a_ball_of_the_wrong_size_fails_the_size_check() {
    // A patterned sphere three times the ball's size, lying on the ground 1.5 m ahead: its image
    // is three times the radius a ball there would have.
    let state = KinematicState {
        head_pitch_rad: 0.25,
        ..KinematicState::standing()
    };
    let matrix = CameraMatrix::nao_v6(CameraPosition::Upper, &state, 640, 480);
    let big = 3.0 * BALL_RADIUS_M;
    let rgb = render_sphere(&matrix, Point3::new(1.5, 0.0, big), big, 640, 480);
    let image = YuyvImage::from_rgb(&rgb, ColorRange::Full).unwrap();
    let unchecked = perception::perceive(&image, Some(&matrix)).balls;
    assert_eq!(
        unchecked.len(),
        1,
        "without the check it looks like a ball: {unchecked:?}"
    );
    let checked = perception::perceive_with_camera_matrix(&image, &matrix).balls;
    assert!(checked.is_empty(), "{checked:?}");
}

#[test]
fn rendered_balls_all_over_the_view_are_found() {
    // 40 poses and ball positions from a fixed pseudo-random sequence (centres at least 60 px
    // inside the image); balls under 8 px or over 90 px are skipped.
    let mut state = 0x1234_5678_u32;
    let mut random = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        (state % 10_000) as f32 / 10_000.0
    };
    let (mut tried, mut found, mut false_balls) = (0, 0, 0);
    // The largest distance of a found ball from the silhouette's centre and from the projected
    // centre (for the report).
    let (mut worst_to_silhouette, mut worst_to_projection) = (0.0f32, 0.0f32);
    for _ in 0..40 {
        let camera = if random() < 0.5 {
            CameraPosition::Upper
        } else {
            CameraPosition::Lower
        };
        let kinematics = KinematicState {
            head_yaw_rad: random() - 0.5,
            head_pitch_rad: 0.4 * random() - 0.1,
            ..KinematicState::standing()
        };
        let matrix = CameraMatrix::nao_v6(camera, &kinematics, 640, 480);
        let projected = Point2::new(60.0 + 520.0 * random(), 60.0 + 380.0 * random());
        let Some(ball) = matrix.pixel_to_plane(&projected, BALL_RADIUS_M) else {
            continue;
        };
        let radius = matrix.ball_radius_at(&projected).unwrap();
        if !(8.0..=90.0).contains(&radius) {
            continue;
        }
        tried += 1;
        let pixel = silhouette_centre(&matrix, ball, BALL_RADIUS_M, 640, 480);
        let rgb = render(&matrix, ball, 640, 480);
        let image = YuyvImage::from_rgb(&rgb, ColorRange::Full).unwrap();
        let balls = perception::perceive_with_camera_matrix(&image, &matrix).balls;
        let tolerance = centre_tolerance(radius);
        let near = |ball: &perception::BallPercept| {
            ((ball.x - pixel.x).powi(2) + (ball.y - pixel.y).powi(2)).sqrt() <= tolerance
        };
        if let Some(ball) = balls.iter().find(|ball| near(ball)) {
            worst_to_silhouette = worst_to_silhouette
                .max(((ball.x - pixel.x).powi(2) + (ball.y - pixel.y).powi(2)).sqrt());
            worst_to_projection = worst_to_projection
                .max(((ball.x - projected.x).powi(2) + (ball.y - projected.y).powi(2)).sqrt());
        }
        found += usize::from(balls.iter().any(near));
        false_balls += balls.iter().filter(|ball| !near(ball)).count();
        if !balls.iter().all(near) || balls.is_empty() {
            eprintln!(
                "{camera:?} {kinematics:?}, ball at ({:.1}, {:.1}) r {radius:.1} (projected \
                 centre ({:.1}, {:.1})): {balls:?}",
                pixel.x, pixel.y, projected.x, projected.y
            );
        }
    }
    eprintln!(
        "rendered: {found} of {tried} found, {false_balls} false balls; found balls at most \
         {worst_to_silhouette:.2} px from the silhouette's centre ({worst_to_projection:.2} px \
         from the projected centre)"
    );
    assert!(tried >= 20, "only {tried} usable poses");
    assert!(found * 10 >= tried * 9, "{found} of {tried} found");
    assert_eq!(false_balls, 0);
}
