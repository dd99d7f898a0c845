//! The camera matrix against projections computed by hand (pen, paper and a calculator; the
//! intermediate numbers are in the comments), for both cameras and several head angles.
//!
//! Common setup: torso 0.30 m above the ground, upright; 640×480 image, so
//! fx = 0.96666·640 = 618.662 px, fy = 1.28574·480 = 617.155 px, centre (320, 240).

use nalgebra::{Point2, Point3};
use perception::camera_matrix::{CameraMatrix, CameraPosition, KinematicState};

fn state(head_yaw_rad: f32, head_pitch_rad: f32) -> KinematicState {
    KinematicState {
        head_yaw_rad,
        head_pitch_rad,
        torso_roll_rad: 0.0,
        torso_pitch_rad: 0.0,
        torso_height_m: 0.30,
    }
}

fn assert_pixel(matrix: &CameraMatrix, ground: (f32, f32), expected: (f32, f32)) {
    let pixel = matrix
        .robot_to_pixel(&Point3::new(ground.0, ground.1, 0.0))
        .expect("in front of the camera");
    assert!(
        (pixel.x - expected.0).abs() < 0.1 && (pixel.y - expected.1).abs() < 0.1,
        "ground {ground:?} landed on {pixel:?}, expected {expected:?}"
    );
    // And back: the pixel's ray meets the ground where the point was.
    let back = matrix
        .pixel_to_plane(&Point2::new(expected.0, expected.1), 0.0)
        .expect("below the horizon");
    assert!(
        (back.x - ground.0).abs() < 2e-3 && (back.y - ground.1).abs() < 2e-3,
        "pixel {expected:?} projected to {back:?}, expected {ground:?}"
    );
}

#[test]
fn lower_camera_head_straight() {
    // Camera at x = 0.05071, z = 0.30 + 0.1265 + 0.01774 = 0.44424, pitched down 39.7°.
    // Ground at x = 1.0: depression atan(0.44424 / 0.94929) = 25.077°, 14.623° above the axis:
    // v = 240 + 617.155 · tan(−14.623°) = 78.993.
    // Ground at x = 0.5: depression atan(0.44424 / 0.44929) = 44.676°, v = 293.736.
    // Ground at (0.8, 0.2): in camera coordinates x' = 0.74929·cos 39.7° + 0.44424·sin 39.7°
    // = 0.86029, z' = 0.74929·sin 39.7° − 0.44424·cos 39.7° = 0.13678, so
    // u = 320 − 618.662 · 0.2 / 0.86029 = 176.170, v = 240 − 617.155 · 0.13678 / 0.86029 = 141.843.
    let matrix = CameraMatrix::nao_v6(CameraPosition::Lower, &state(0.0, 0.0), 640, 480);
    assert_pixel(&matrix, (1.0, 0.0), (320.0, 78.993));
    assert_pixel(&matrix, (0.5, 0.0), (320.0, 293.736));
    assert_pixel(&matrix, (0.8, 0.2), (176.170, 141.843));
}

#[test]
fn upper_camera_head_straight() {
    // Camera at x = 0.05871, z = 0.30 + 0.1265 + 0.06364 = 0.49014, pitched down 1.2°.
    // Ground at x = 2.0: depression atan(0.49014 / 1.94129) = 14.170°, 12.970° below the axis:
    // v = 240 + 617.155 · tan 12.970° = 382.141. At x = 3.0: v = 329.603.
    // Ground at (2.5, −0.5): u = 446.205, v = 350.514 (same rotation as the lower camera test).
    let matrix = CameraMatrix::nao_v6(CameraPosition::Upper, &state(0.0, 0.0), 640, 480);
    assert_pixel(&matrix, (2.0, 0.0), (320.0, 382.141));
    assert_pixel(&matrix, (3.0, 0.0), (320.0, 329.603));
    assert_pixel(&matrix, (2.5, -0.5), (446.205, 350.514));
}

#[test]
fn head_pitch_moves_the_optical_axis_to_a_known_ground_point() {
    // Head pitched down 0.3 rad: the lower camera sits at x = 0.05071·cos 0.3 + 0.01774·sin 0.3
    // = 0.053688, z = 0.4265 − 0.05071·sin 0.3 + 0.01774·cos 0.3 = 0.428462, and looks down
    // 0.3 rad + 39.7° = 57.189°; the optical axis meets the ground at
    // x = 0.053688 + 0.428462 / tan 57.189° = 0.333118, which is the image centre.
    let matrix = CameraMatrix::nao_v6(CameraPosition::Lower, &state(0.0, 0.3), 640, 480);
    assert_pixel(&matrix, (0.333118, 0.0), (320.0, 240.0));
}

#[test]
fn head_yaw_turns_the_image_centre_column() {
    // Yawed by 0.5 rad, any ground point straight along the yaw direction lies in the vertical
    // plane of the optical axis, so it lands on column u = 320; its row is the one the same
    // distance from the neck gives with the head straight (the rotation is about the neck,
    // which is above the robot origin): 1.0 m → v = 78.993 (lower), 2.0 m → v = 382.141 (upper).
    let yaw: f32 = 0.5;
    let lower = CameraMatrix::nao_v6(CameraPosition::Lower, &state(yaw, 0.0), 640, 480);
    assert_pixel(&lower, (yaw.cos(), yaw.sin()), (320.0, 78.993));
    let upper = CameraMatrix::nao_v6(CameraPosition::Upper, &state(-yaw, 0.0), 640, 480);
    assert_pixel(
        &upper,
        (2.0 * yaw.cos(), -2.0 * yaw.sin()),
        (320.0, 382.141),
    );
}

#[test]
fn torso_pitch_tilts_the_whole_head() {
    // Leaning forward by 0.3 rad with the head straight: the neck, 0.1265 m above the torso
    // origin, moves to x = 0.1265·sin 0.3 = 0.037384, z = 0.30 + 0.1265·cos 0.3 = 0.420852; the
    // camera sits (0.053688, 0.001962) from it (as in the head-pitch test), so at
    // x = 0.091072, z = 0.422814, looking down 57.189°: the axis meets the ground at
    // x = 0.091072 + 0.422814 / tan 57.189° = 0.366819.
    let leaning = KinematicState {
        torso_pitch_rad: 0.3,
        ..state(0.0, 0.0)
    };
    let matrix = CameraMatrix::nao_v6(CameraPosition::Lower, &leaning, 640, 480);
    assert_pixel(&matrix, (0.366819, 0.0), (320.0, 240.0));
}

#[test]
fn points_above_the_horizon_and_behind_have_no_projection() {
    let matrix = CameraMatrix::nao_v6(CameraPosition::Upper, &state(0.0, 0.0), 640, 480);
    assert!(matrix
        .pixel_to_plane(&Point2::new(320.0, 0.0), 0.0)
        .is_none());
    assert!(matrix
        .robot_to_pixel(&Point3::new(-1.0, 0.0, 0.0))
        .is_none());
}

#[test]
fn ball_radius_shrinks_with_distance() {
    // Lower camera, ball centre 1.0 m ahead on the ground plane z = 0.05: the camera is
    // sqrt(0.94929² + 0.39424²) = 1.02790 m away, so r = 618.662 · tan(asin(0.05 / 1.0279))
    // = 30.13 px.
    let matrix = CameraMatrix::nao_v6(CameraPosition::Lower, &state(0.0, 0.0), 640, 480);
    let center = matrix.robot_to_pixel(&Point3::new(1.0, 0.0, 0.05)).unwrap();
    let radius = matrix.ball_radius_at(&center).unwrap();
    assert!((radius - 30.13).abs() < 0.05, "radius {radius}");
}
