//! Forward and inverse kinematics checked against each other over the reachable workspace and
//! against poses computed by hand.

use kinematics::limits::{self, JointRange};
use kinematics::{
    head_frames, leg_inverse, leg_inverse_with_yaw_pitch, legs_inverse, sole_in_torso, Camera,
    LegInverseError, LegJoints, Side, FOOT_HEIGHT_M, HIP_OFFSET_Y_M, HIP_OFFSET_Z_M, LEG_LENGTH_M,
    NECK_OFFSET_Z_M, THIGH_LENGTH_M, TIBIA_LENGTH_M,
};
use nalgebra::{Isometry3, Matrix3, Rotation3, UnitQuaternion, Vector3};

const POSITION_TOLERANCE_M: f64 = 1e-4;
const ROTATION_TOLERANCE_RAD: f64 = 1e-4;

/// A small deterministic generator (xorshift64*), so that a failure can be reproduced.
struct Random(u64);

impl Random {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn within(&mut self, range: JointRange) -> f64 {
        range.min_rad + (range.max_rad - range.min_rad) * self.unit()
    }
}

/// Random joint angles inside the limits, knee bent at least 3° (a stretched knee is a
/// singularity where many angle sets give one pose) and at most 115°.
fn random_joints(random: &mut Random, side: Side, yaw_pitch: Option<f64>) -> LegJoints<f64> {
    let limits = limits::leg(side);
    LegJoints {
        hip_yaw_pitch: yaw_pitch.unwrap_or_else(|| random.within(limits.hip_yaw_pitch)),
        hip_roll: random.within(limits.hip_roll),
        hip_pitch: random.within(limits.hip_pitch),
        knee_pitch: random.within(JointRange {
            min_rad: 3f64.to_radians(),
            max_rad: 115f64.to_radians(),
        }),
        ankle_pitch: random.within(limits.ankle_pitch),
        ankle_roll: random.within(limits.ankle_roll),
    }
}

fn position_error(a: &Isometry3<f64>, b: &Isometry3<f64>) -> f64 {
    (a.translation.vector - b.translation.vector).norm()
}

fn rotation_error(a: &Isometry3<f64>, b: &Isometry3<f64>) -> f64 {
    a.rotation.angle_to(&b.rotation)
}

fn mirror(pose: &Isometry3<f64>) -> Isometry3<f64> {
    let flip = Matrix3::from_diagonal(&Vector3::new(1.0, -1.0, 1.0));
    let rotation = flip * pose.rotation.to_rotation_matrix().matrix() * flip;
    let t = pose.translation.vector;
    Isometry3::from_parts(
        Vector3::new(t.x, -t.y, t.z).into(),
        UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(rotation)),
    )
}

#[test]
fn forward_of_inverse_returns_the_target_over_the_reachable_workspace() {
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let mut worst = (0.0f64, 0.0f64);
    for side in [Side::Left, Side::Right] {
        for _ in 0..20_000 {
            let joints = random_joints(&mut random, side, None);
            let target = sole_in_torso(side, &joints);
            let solution = leg_inverse(side, &target).unwrap();
            assert!(
                solution.is_exact(),
                "{side:?} {joints:?} -> {solution:?} is not exact"
            );
            let reached = sole_in_torso(side, &solution.joints);
            let errors = (
                position_error(&reached, &target),
                rotation_error(&reached, &target),
            );
            assert!(
                errors.0 < POSITION_TOLERANCE_M && errors.1 < ROTATION_TOLERANCE_RAD,
                "{side:?} {joints:?}: errors {errors:?}"
            );
            worst = (worst.0.max(errors.0), worst.1.max(errors.1));
        }
    }
    eprintln!("worst round trip: {:.3e} m, {:.3e} rad", worst.0, worst.1);
}

#[test]
fn the_inverse_with_a_given_yaw_pitch_reaches_poses_made_with_that_yaw_pitch() {
    let mut random = Random(0x1234_5678_9abc_def1);
    for _ in 0..20_000 {
        let yaw_pitch = random.within(limits::HIP_YAW_PITCH);
        for side in [Side::Left, Side::Right] {
            let joints = random_joints(&mut random, side, Some(yaw_pitch));
            let target = sole_in_torso(side, &joints);
            let solution = leg_inverse_with_yaw_pitch(side, &target, yaw_pitch).unwrap();
            assert!(solution.is_exact(), "{side:?} {joints:?} -> {solution:?}");
            let reached = sole_in_torso(side, &solution.joints);
            assert!(position_error(&reached, &target) < POSITION_TOLERANCE_M);
            assert!(rotation_error(&reached, &target) < ROTATION_TOLERANCE_RAD);
        }
    }
}

#[test]
fn both_legs_share_the_yaw_pitch_and_reach_mirrored_targets() {
    let mut random = Random(42);
    for _ in 0..5_000 {
        let left_joints = random_joints(&mut random, Side::Left, None);
        // The right leg's pitch limits differ from the left's by tenths of a degree.
        let right_limits = limits::leg(Side::Right).to_array();
        let mirrored = left_joints.mirrored().to_array();
        if !(0..6).all(|index| right_limits[index].contains(mirrored[index])) {
            continue;
        }
        let left_target = sole_in_torso(Side::Left, &left_joints);
        let right_target = mirror(&left_target);
        let solution = legs_inverse(&left_target, &right_target).unwrap();
        assert_eq!(
            solution.left.joints.hip_yaw_pitch,
            solution.right.joints.hip_yaw_pitch
        );
        for (side, leg, target) in [
            (Side::Left, solution.left, left_target),
            (Side::Right, solution.right, right_target),
        ] {
            let reached = sole_in_torso(side, &leg.joints);
            assert!(position_error(&reached, &target) < POSITION_TOLERANCE_M);
            assert!(
                rotation_error(&reached, &target) < ROTATION_TOLERANCE_RAD,
                "{left_joints:?} -> {leg:?}"
            );
        }
    }
}

#[test]
fn with_different_yaw_needs_the_shared_yaw_pitch_still_places_both_ankles() {
    // The left foot turned 10° out, the right foot straight: no single yaw-pitch gives both
    // orientations, but both ankles (and so nearly both soles) land where asked.
    let height = -HIP_OFFSET_Z_M - 0.22;
    let left = Isometry3::new(
        Vector3::new(0.02, HIP_OFFSET_Y_M, height),
        Vector3::z() * 10f64.to_radians(),
    );
    let right = Isometry3::translation(-0.02, -HIP_OFFSET_Y_M, height);
    let solution = legs_inverse(&left, &right).unwrap();
    for (side, leg, target) in [
        (Side::Left, solution.left, left),
        (Side::Right, solution.right, right),
    ] {
        let foot = Isometry3::translation(0.0, 0.0, FOOT_HEIGHT_M);
        let reached = sole_in_torso(side, &leg.joints) * foot;
        assert!(position_error(&reached, &(target * foot)) < 1e-9);
        // The sole stays nearly flat: the yaw difference goes into the yaw-pitch.
        let up = reached.rotation * Vector3::z();
        assert!(up.z > 0.99, "{side:?} sole tilted: {up:?}");
    }
}

#[test]
fn all_zero_angles_put_the_sole_a_leg_length_below_the_hip() {
    for side in [Side::Left, Side::Right] {
        let sole = sole_in_torso(side, &LegJoints::default());
        let expected = Vector3::new(
            0.0,
            side.sign() * HIP_OFFSET_Y_M,
            -HIP_OFFSET_Z_M - THIGH_LENGTH_M - TIBIA_LENGTH_M - FOOT_HEIGHT_M,
        );
        assert!((sole.translation.vector - expected).norm() < 1e-12);
        assert!(sole.rotation.angle() < 1e-12);
        // And the inverse of that pose is all zeros.
        let solution = leg_inverse(side, &sole).unwrap();
        for angle in solution.joints.to_array() {
            assert!(angle.abs() < 1e-6, "{side:?}: {solution:?}");
        }
    }
    assert!((LEG_LENGTH_M - 0.24809).abs() < 1e-12);
}

#[test]
fn a_knee_bend_with_flat_feet_lowers_the_hip_as_computed_by_hand() {
    // hip −25°, knee 50°, ankle −25° (the stand): thigh forward by 25°, tibia back by 25°.
    let bend = 25f64.to_radians();
    let joints = LegJoints {
        hip_pitch: -bend,
        knee_pitch: 2.0 * bend,
        ankle_pitch: -bend,
        ..LegJoints::default()
    };
    let sole = sole_in_torso(Side::Left, &joints);
    // By hand: x = (0.1 − 0.1029) sin 25° = −1.2256 mm; z = −0.085 − 0.2029 cos 25° − 0.04519.
    assert!((sole.translation.x - (-0.001_225_6)).abs() < 1e-6);
    assert!((sole.translation.y - 0.05).abs() < 1e-12);
    assert!((sole.translation.z - (-0.085 - 0.183_891 - 0.045_19)).abs() < 1e-5);
    assert!(sole.rotation.angle() < 1e-12, "the sole stays flat");
    let solution = leg_inverse(Side::Left, &sole).unwrap();
    for (found, expected) in solution.joints.to_array().iter().zip(joints.to_array()) {
        assert!((found - expected).abs() < 1e-9, "{solution:?}");
    }
}

#[test]
fn a_hip_roll_swings_the_straight_leg_sideways_as_computed_by_hand() {
    let roll = 10f64.to_radians();
    let left = sole_in_torso(
        Side::Left,
        &LegJoints {
            hip_roll: roll,
            ..LegJoints::default()
        },
    );
    // By hand: y = 0.05 + 0.24809 sin 10° = 0.093080, z = −0.085 − 0.24809 cos 10° = −0.329321.
    assert!((left.translation.y - 0.093_080).abs() < 1e-6);
    assert!((left.translation.z - (-0.329_321)).abs() < 1e-6);
    assert!((left.rotation.angle() - roll).abs() < 1e-12);
    // The right leg's positive roll moves its foot to the left too, towards the other leg.
    let right = sole_in_torso(
        Side::Right,
        &LegJoints {
            hip_roll: roll,
            ..LegJoints::default()
        },
    );
    assert!((right.translation.y - (-0.05 + 0.043_080)).abs() < 1e-6);
}

#[test]
fn a_positive_yaw_pitch_turns_both_toes_inwards_and_swings_both_legs_back() {
    let joints = LegJoints {
        hip_yaw_pitch: 20f64.to_radians(),
        ..LegJoints::default()
    };
    let left = sole_in_torso(Side::Left, &joints);
    let right = sole_in_torso(Side::Right, &joints);
    let left_toe = left.rotation * Vector3::x();
    let right_toe = right.rotation * Vector3::x();
    assert!(
        left_toe.y < -0.1 && right_toe.y > 0.1,
        "{left_toe:?} {right_toe:?}"
    );
    assert!(left.translation.x < -0.01 && right.translation.x < -0.01);
}

#[test]
fn the_legs_are_mirror_images() {
    let mut random = Random(7);
    for _ in 0..1_000 {
        let joints = random_joints(&mut random, Side::Left, None);
        let left = sole_in_torso(Side::Left, &joints);
        let right = sole_in_torso(Side::Right, &joints.mirrored());
        let mirrored = mirror(&left);
        assert!(position_error(&right, &mirrored) < 1e-12);
        assert!(rotation_error(&right, &mirrored) < 1e-9);
    }
}

#[test]
fn out_of_reach_targets_give_the_nearest_posture_and_say_so() {
    let too_far = Isometry3::translation(0.0, HIP_OFFSET_Y_M, -HIP_OFFSET_Z_M - 0.4);
    let solution = leg_inverse(Side::Left, &too_far).unwrap();
    assert!(!solution.is_exact());
    let expected = 0.4 - LEG_LENGTH_M;
    assert!(
        (solution.out_of_reach_m - expected).abs() < 1e-9,
        "{solution:?}"
    );
    assert!(solution.joints.knee_pitch.abs() < 1e-9);
    let reached = sole_in_torso(Side::Left, &solution.joints);
    assert!((reached.translation.z - (-HIP_OFFSET_Z_M - LEG_LENGTH_M)).abs() < 1e-9);

    // Within reach but turned 80° outwards: more than the yaw-pitch allows.
    let turned = Isometry3::new(
        Vector3::new(0.0, HIP_OFFSET_Y_M, -HIP_OFFSET_Z_M - 0.2),
        Vector3::z() * 80f64.to_radians(),
    );
    let solution = leg_inverse(Side::Left, &turned).unwrap();
    assert_eq!(solution.out_of_reach_m, 0.0);
    assert!(solution.clamped.hip_yaw_pitch, "{solution:?}");
    assert!(!solution.is_exact());
    let limits = limits::leg(Side::Left).to_array();
    for (angle, range) in solution.joints.to_array().iter().zip(limits) {
        assert!(range.contains(*angle));
    }
}

#[test]
fn non_finite_targets_are_refused_with_the_leg_named() {
    let nan = Isometry3::translation(f64::NAN, 0.0, -0.3);
    let error = leg_inverse(Side::Right, &nan).unwrap_err();
    assert!(matches!(
        error,
        LegInverseError::NonFiniteTarget {
            side: Side::Right,
            what: "translation",
            ..
        }
    ));
    assert!(error.to_string().contains("Right leg"), "{error}");
    let good = Isometry3::translation(0.0, 0.05, -0.3);
    let error = leg_inverse_with_yaw_pitch(Side::Left, &good, f64::INFINITY).unwrap_err();
    assert!(error.to_string().contains("yaw-pitch inf"), "{error}");
    assert!(legs_inverse(&good, &nan).is_err());
}

#[test]
fn cameras_sit_where_hand_computation_puts_them() {
    let straight = head_frames(0.0, 0.0);
    let top = straight.camera(Camera::Top).translation.vector;
    assert!((top - Vector3::new(0.05871, 0.0, NECK_OFFSET_Z_M + 0.06364)).norm() < 1e-12);
    // The bottom camera looks 39.7° down.
    let axis = straight.camera(Camera::Bottom).rotation * Vector3::x();
    let down = 39.7f64.to_radians();
    assert!((axis - Vector3::new(down.cos(), 0.0, -down.sin())).norm() < 1e-12);

    // Turned 90° left: the top camera is on the robot's left.
    let left = head_frames(90f64.to_radians(), 0.0)
        .top_camera
        .translation
        .vector;
    assert!((left - Vector3::new(0.0, 0.05871, 0.19014)).norm() < 1e-9);

    // Pitched 20° down: (x cos + z sin, 0, −x sin + z cos) of the bottom camera's offset.
    let pitch = 20f64.to_radians();
    let bottom = head_frames(0.0, pitch).bottom_camera;
    let (x, z) = (0.05071, 0.01774);
    let expected = Vector3::new(
        x * pitch.cos() + z * pitch.sin(),
        0.0,
        NECK_OFFSET_Z_M - x * pitch.sin() + z * pitch.cos(),
    );
    assert!((bottom.translation.vector - expected).norm() < 1e-12);
    let axis = bottom.rotation * Vector3::x();
    let total = pitch + down;
    assert!((axis - Vector3::new(total.cos(), 0.0, -total.sin())).norm() < 1e-12);

    // Yaw then pitch: at yaw 30°, pitch 10° the top camera's axis points 30° left, 11.2° down.
    let frames = head_frames(30f64.to_radians(), 10f64.to_radians());
    let axis = frames.top_camera.rotation * Vector3::x();
    assert!((axis.y.atan2(axis.x) - 30f64.to_radians()).abs() < 1e-12);
    assert!(((-axis.z).asin() - 11.2f64.to_radians()).abs() < 1e-12);
}

#[test]
fn absurd_but_finite_targets_give_angles_within_the_limits() {
    let targets = [
        Isometry3::translation(1e300, -1e300, 1e300),
        Isometry3::translation(0.0, 0.05, -0.085),
        Isometry3::new(Vector3::new(0.0, 0.05, 0.5), Vector3::x() * 3.0),
        Isometry3::translation(-1e-300, 0.0, 0.0),
    ];
    for side in [Side::Left, Side::Right] {
        let limits = limits::leg(side).to_array();
        for target in &targets {
            let solution = leg_inverse(side, target).unwrap();
            assert!(!solution.is_exact(), "{target:?}");
            for (angle, range) in solution.joints.to_array().iter().zip(limits) {
                assert!(range.contains(*angle), "{side:?} {target:?}: {solution:?}");
            }
            let shared = legs_inverse(target, target).unwrap();
            for angle in shared.left.joints.to_array() {
                assert!(angle.is_finite());
            }
        }
    }
}

#[test]
fn looking_at_a_point_puts_it_on_the_cameras_axis() {
    use kinematics::{head_look_at, HeadLookAtError};
    let mut random = Random(99);
    let mut checked = 0;
    for _ in 0..20_000 {
        let distance = 0.3 + 5.0 * random.unit();
        let bearing = (random.unit() - 0.5) * 3.0;
        let target = Vector3::new(
            distance * bearing.cos(),
            distance * bearing.sin(),
            -0.6 + 1.2 * random.unit(),
        );
        for camera in [Camera::Top, Camera::Bottom] {
            let angles = head_look_at(&target, camera).unwrap();
            if angles.clamped {
                continue;
            }
            let frame = head_frames(angles.yaw_rad, angles.pitch_rad).camera(camera);
            let seen = frame.inverse_transform_point(&target.into());
            assert!(seen.x > 0.0, "{camera:?} looks away from {target:?}");
            assert!(
                seen.y.hypot(seen.z) < 1e-9,
                "{camera:?}: {target:?} at {seen:?}"
            );
            checked += 1;
        }
    }
    assert!(checked > 20_000, "{checked}");

    // Where the bottom camera looks with the head straight, 1 m ahead on its axis.
    let straight = head_frames(0.0, 0.0).bottom_camera;
    let on_axis = straight * nalgebra::Point3::new(1.0, 0.0, 0.0);
    let angles = head_look_at(&on_axis.coords, Camera::Bottom).unwrap();
    assert!(
        angles.yaw_rad.abs() < 1e-12 && angles.pitch_rad.abs() < 1e-9,
        "{angles:?}"
    );
    // A point 45° to the left: yaw 45°.
    let left = head_look_at(&Vector3::new(1.0, 1.0, 0.0), Camera::Top).unwrap();
    assert!((left.yaw_rad - 45f64.to_radians()).abs() < 1e-12);
    // Straight behind the robot is beyond the yaw limit; the neck itself is too close.
    assert!(
        head_look_at(&Vector3::new(-1.0, 0.0, 0.0), Camera::Top)
            .unwrap()
            .clamped
    );
    let neck = Vector3::new(0.0, 0.0, NECK_OFFSET_Z_M);
    assert!(matches!(
        head_look_at(&neck, Camera::Bottom),
        Err(HeadLookAtError::TooClose { .. })
    ));
    assert!(head_look_at(&Vector3::new(f64::NAN, 0.0, 0.0), Camera::Top).is_err());
}
