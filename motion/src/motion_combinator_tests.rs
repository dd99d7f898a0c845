//! Tests of the MotionCombinator with small motions built in code.

use super::*;
use crate::keyframes::{JointTarget, Keyframe, Motion};
use types::{BodyMotion, FallDirection, HeadMotionRequest};

/// A motion of `frames` keyframes of 100 ms, all joints at `position` but the head kept.
fn motion(name: &str, frames: usize, position: f32, head: JointTarget) -> Motion {
    let mut positions = Joints::filled(JointTarget::Position(position));
    positions[JointId::HeadYaw] = head;
    positions[JointId::HeadPitch] = head;
    Motion {
        name: name.to_owned(),
        file: format!("{name}.toml").into(),
        description: None,
        keyframes: vec![
            Keyframe {
                duration_ms: 100.0,
                positions,
                stiffnesses: Joints::filled(0.8),
            };
            frames
        ],
    }
}

fn combinator() -> MotionCombinator {
    MotionCombinator::new(MotionCombinatorParameters {
        cycle_time_ms: 10.0,
        holding_stiffness: 0.25,
        sitting_knee_pitch_deg: 90.0,
        head_speed_limit_rad_per_s: 8.0,
        motions: MotionLibrary::from_motions([
            motion(STAND, 1, 0.1, JointTarget::Keep),
            motion(SIT, 1, 2.0, JointTarget::Keep),
            motion(STAND_UP_FROM_SIT, 1, 1.0, JointTarget::Keep),
            motion("nod", 2, 0.3, JointTarget::Position(0.2)),
            Motion {
                keyframes: vec![Keyframe {
                    stiffnesses: Joints::filled(0.9),
                    ..motion("stand_up_back", 1, 0.7, JointTarget::Keep).keyframes[0].clone()
                }],
                ..motion("stand_up_back", 1, 0.7, JointTarget::Keep)
            },
            Motion {
                keyframes: vec![Keyframe {
                    stiffnesses: Joints::filled(0.2),
                    ..motion(FALL_PROTECTION, 1, 0.2, JointTarget::Keep).keyframes[0].clone()
                }],
                ..motion(FALL_PROTECTION, 1, 0.2, JointTarget::Keep)
            },
        ]),
        walking: walking::WalkingEngineParameters::default(),
        get_up: crate::get_up::GetUpParameters::default(),
    })
}

/// Runs `ticks` ticks with `body` requested; the measured pose follows the command.
fn run(
    combinator: &mut MotionCombinator,
    sensor_data: &mut SensorData,
    body: BodyMotion,
    fall_state: &FallState,
    ticks: usize,
) -> (JointRequest, MotionInfo) {
    let motion_request = MotionRequest {
        body,
        head: HeadMotionRequest {
            yaw_rad: 0.4,
            pitch_rad: 0.0,
            max_speed_rad_per_s: 1.0,
        },
    };
    let (mut command, mut info) = (JointRequest::default(), MotionInfo::default());
    for tick in 0..ticks {
        // Every frame differs a little, as a real accelerometer's does.
        sensor_data.inertial_measurement.accelerometer_m_per_s2.x = (tick % 7) as f32 * 1e-3;
        let inputs = MotionCombinatorInputs {
            sensor_data,
            motion_request: &motion_request,
            fall_state,
            _lifetime: std::marker::PhantomData,
        };
        Update::<JointRequest>::update(combinator, &inputs, &mut command);
        Update::<MotionInfo>::update(combinator, &inputs, &mut info);
        sensor_data.joint_positions_rad = command.positions_rad;
    }
    (command, info)
}

fn sitting() -> SensorData {
    let mut positions = Joints::filled(2.0);
    positions[JointId::HeadYaw] = 0.0;
    positions[JointId::HeadPitch] = 0.0;
    SensorData {
        joint_positions_rad: positions,
        ..SensorData::default()
    }
}

#[test]
fn stand_from_sitting_stands_up_first_and_the_head_follows_the_request() {
    let (mut combinator, mut sensor_data, upright) =
        (combinator(), sitting(), FallState::default());
    let (command, info) = run(
        &mut combinator,
        &mut sensor_data,
        BodyMotion::Stand,
        &upright,
        1,
    );
    assert!(
        command.positions_rad[JointId::LeftKneePitch] > 1.9,
        "starts from the measured pose"
    );
    assert_eq!(
        combinator
            .active
            .as_ref()
            .unwrap()
            .player
            .as_ref()
            .unwrap()
            .motion()
            .unwrap()
            .name,
        STAND_UP_FROM_SIT
    );
    assert!(info.can_be_left && !info.is_stable);
    let (command, info) = run(
        &mut combinator,
        &mut sensor_data,
        BodyMotion::Stand,
        &upright,
        29,
    );
    assert!((command.positions_rad[JointId::LeftKneePitch] - 0.1).abs() < 1e-6);
    assert_eq!(command.stiffnesses[JointId::LeftKneePitch], 0.8);
    // 30 ticks of 10 ms at 1 rad/s: the head turned 0.3 rad towards 0.4.
    assert!((command.positions_rad[JointId::HeadYaw] - 0.3).abs() < 1e-5);
    assert_eq!(
        (info.current_motion, info.is_stable, info.note.as_ref()),
        (MotionKind::Stand, true, None)
    );
    let fallen = FallState {
        phase: FallPhase::Fallen,
        ..FallState::default()
    };
    assert!(
        !run(
            &mut combinator,
            &mut sensor_data,
            BodyMotion::Stand,
            &fallen,
            1
        )
        .1
        .is_stable
    );
}

#[test]
fn a_special_action_plays_to_its_end_unless_unstiff_is_requested() {
    let (mut combinator, mut sensor_data, upright) =
        (combinator(), sitting(), FallState::default());
    let nod = BodyMotion::SpecialAction { name: "nod".into() };
    run(&mut combinator, &mut sensor_data, nod.clone(), &upright, 5);
    let (command, info) = run(
        &mut combinator,
        &mut sensor_data,
        BodyMotion::Sit,
        &upright,
        5,
    );
    assert_eq!(info.current_motion, MotionKind::SpecialAction);
    assert_eq!(info.executed_request.body, nod);
    assert!(!info.can_be_left);
    assert!(info.note.unwrap().contains("plays to its end"));
    // The special action moves the head itself.
    assert!(command.positions_rad[JointId::HeadYaw] < 0.2 + 1e-6);
    let (_, info) = run(&mut combinator, &mut sensor_data, nod.clone(), &upright, 10);
    assert!(info.can_be_left && !info.is_stable);
    assert!((sensor_data.joint_positions_rad[JointId::HeadYaw] - 0.2).abs() < 1e-6);
    let (_, info) = run(
        &mut combinator,
        &mut sensor_data,
        BodyMotion::Sit,
        &upright,
        1,
    );
    assert_eq!(info.current_motion, MotionKind::Sit);

    run(&mut combinator, &mut sensor_data, nod, &upright, 3);
    sensor_data.joint_positions_rad[JointId::LeftKneePitch] = 0.7;
    let (command, info) = run(
        &mut combinator,
        &mut sensor_data,
        BodyMotion::Unstiff,
        &upright,
        1,
    );
    assert_eq!(info.current_motion, MotionKind::Unstiff);
    assert_eq!(command.stiffnesses, Joints::filled(0.0));
    assert_eq!(command.positions_rad[JointId::LeftKneePitch], 0.7);
}

#[test]
fn a_walk_walks_stops_in_its_stand_pose_before_a_stand_and_counts_odometry() {
    let (mut combinator, mut sensor_data, upright) =
        (combinator(), SensorData::default(), FallState::default());
    for foot in [
        &mut sensor_data.force_sensitive_resistors.left_foot,
        &mut sensor_data.force_sensitive_resistors.right_foot,
    ] {
        foot.front_left_kg = 0.7;
        foot.front_right_kg = 0.7;
        foot.rear_left_kg = 0.7;
        foot.rear_right_kg = 0.7;
    }
    let walk = BodyMotion::Walk {
        forward_m_per_s: 0.2,
        left_m_per_s: 0.0,
        turn_rad_per_s: 0.0,
    };
    let (command, info) = run(
        &mut combinator,
        &mut sensor_data,
        walk.clone(),
        &upright,
        200,
    );
    assert_eq!(info.current_motion, MotionKind::Walk);
    assert_eq!(info.executed_request.body, walk);
    assert_eq!(info.note, None);
    assert!(info.is_stable && !info.can_be_left, "{info:?}");
    assert!(
        command.positions_rad[JointId::RightKneePitch] > 0.5,
        "knees bent"
    );
    let mut odometry = OdometryData::default();
    let request = MotionRequest::default();
    let inputs = MotionCombinatorInputs {
        sensor_data: &sensor_data,
        motion_request: &request,
        fall_state: &upright,
        _lifetime: std::marker::PhantomData,
    };
    Update::<OdometryData>::update(&mut combinator, &inputs, &mut odometry);
    assert!(odometry.translation_m.x > 0.1, "{odometry:?}");
    // Stand: the walk stops first and says so, then the stand motion takes over.
    let (_, info) = run(
        &mut combinator,
        &mut sensor_data,
        BodyMotion::Stand,
        &upright,
        1,
    );
    assert_eq!(info.current_motion, MotionKind::Walk);
    assert!(info.note.unwrap().contains("the walk stops"));
    let (_, info) = run(
        &mut combinator,
        &mut sensor_data,
        BodyMotion::Stand,
        &upright,
        200,
    );
    assert_eq!(info.current_motion, MotionKind::Stand);
    let unknown = BodyMotion::SpecialAction {
        name: "moonwalk".into(),
    };
    let (_, info) = run(&mut combinator, &mut sensor_data, unknown, &upright, 1);
    assert_eq!(info.current_motion, MotionKind::Stand);
    assert!(info.note.unwrap().contains("`moonwalk` is not known"));
    let (_, info) = run(
        &mut combinator,
        &mut sensor_data,
        BodyMotion::Stand,
        &upright,
        1,
    );
    assert_eq!(info.note, None);
}

#[test]
fn a_new_pose_epoch_replans_from_the_measured_pose_and_is_echoed() {
    let (mut combinator, mut sensor_data, upright) =
        (combinator(), sitting(), FallState::default());
    sensor_data.pose_epoch = 7;
    let (command, _) = run(
        &mut combinator,
        &mut sensor_data,
        BodyMotion::Stand,
        &upright,
        40,
    );
    assert_eq!(command.pose_epoch, 7, "the epoch it planned for");
    assert!((command.positions_rad[JointId::LeftKneePitch] - 0.1).abs() < 1e-6);
    assert_eq!(command.stiffnesses[JointId::LeftKneePitch], 0.8);

    // Behind motion's back the bridge sat the robot down and let it go limp.
    sensor_data = sitting();
    sensor_data.pose_epoch = 9;
    let (command, info) = run(
        &mut combinator,
        &mut sensor_data,
        BodyMotion::Stand,
        &upright,
        1,
    );
    assert_eq!(command.pose_epoch, 9);
    let knee = command.positions_rad[JointId::LeftKneePitch];
    assert!(
        knee > 1.9,
        "starts from the measured crouch, not the stand it had planned: knee {knee}"
    );
    assert!(
        command.stiffnesses[JointId::LeftKneePitch] < 0.1,
        "from the measured stiffness (limp): {}",
        command.stiffnesses[JointId::LeftKneePitch]
    );
    assert_eq!(info.current_motion, MotionKind::Stand);
    assert!(!info.is_stable, "stands up again first");

    // Without a new epoch, the same measured crouch does not restart the plan.
    let (command, _) = run(
        &mut combinator,
        &mut sensor_data,
        BodyMotion::Stand,
        &upright,
        1,
    );
    assert!(command.stiffnesses[JointId::LeftKneePitch] > 0.0);
    assert_eq!(command.pose_epoch, 9);
}

#[test]
fn new_parameters_do_not_interrupt_the_special_action_being_played() {
    let (mut combinator, mut sensor_data, upright) =
        (combinator(), sitting(), FallState::default());
    let nod = BodyMotion::SpecialAction { name: "nod".into() };
    run(&mut combinator, &mut sensor_data, nod.clone(), &upright, 5);
    let new = MotionCombinatorParameters {
        holding_stiffness: 0.5,
        ..combinator.parameters.clone()
    };
    framework::Module::set_parameters(&mut combinator, new);
    assert_eq!(combinator.parameters.holding_stiffness, 0.5);
    // Still mid-nod: a request to sit waits for its end, as without new parameters.
    let (_, info) = run(
        &mut combinator,
        &mut sensor_data,
        BodyMotion::Sit,
        &upright,
        1,
    );
    assert_eq!(info.current_motion, MotionKind::SpecialAction);
    assert_eq!(info.executed_request.body, nod);
    assert!(!info.can_be_left);
}

#[test]
fn a_fall_interrupts_the_walk_with_the_protection_then_gets_up_and_walks_again() {
    let (mut combinator, mut sensor_data, upright) =
        (combinator(), SensorData::default(), FallState::default());
    let walk = BodyMotion::Walk {
        forward_m_per_s: 0.2,
        left_m_per_s: 0.0,
        turn_rad_per_s: 0.0,
    };
    let (_, info) = run(
        &mut combinator,
        &mut sensor_data,
        walk.clone(),
        &upright,
        100,
    );
    assert_eq!(info.current_motion, MotionKind::Walk);
    let falling = FallState {
        phase: FallPhase::Falling,
        direction: FallDirection::Backward,
        ..FallState::default()
    };
    let (_, info) = run(&mut combinator, &mut sensor_data, walk.clone(), &falling, 1);
    assert_eq!(info.current_motion, MotionKind::FallProtection, "{info:?}");
    assert!(!info.is_stable);
    let fallen = FallState {
        phase: FallPhase::Fallen,
        ..falling
    };
    // Lying still for less than GetUp's settle_ms (300 ms = 30 ticks): protected.
    let (_, info) = run(&mut combinator, &mut sensor_data, walk.clone(), &fallen, 29);
    assert_eq!(info.current_motion, MotionKind::FallProtection);
    // Then the stand-up for the back, whatever the request.
    let (command, info) = run(&mut combinator, &mut sensor_data, walk.clone(), &fallen, 11);
    assert_eq!(info.current_motion, MotionKind::GetUp, "{info:?}");
    let note = info.note.unwrap_or_default();
    assert!(
        note.contains("stand_up_back, attempt 1 of 5") && note.contains("Walk"),
        "{note}"
    );
    assert!(!info.can_be_left && !info.is_stable);
    // stand_up_back (all joints 0.7, stiffness 0.9) is on its way.
    assert!(command.positions_rad[JointId::LeftKneePitch] > 0.0);
    assert!((command.stiffnesses[JointId::LeftKneePitch] - 0.9).abs() < 0.2);
    // Upright again: the request runs again, the walk starting anew.
    let (_, info) = run(&mut combinator, &mut sensor_data, walk, &upright, 20);
    assert_eq!(info.current_motion, MotionKind::Walk);
}

#[test]
fn failed_attempts_are_retried_then_the_robot_stays_down_soft_and_says_so() {
    let (mut combinator, mut sensor_data) = (combinator(), SensorData::default());
    let fallen = FallState {
        phase: FallPhase::Fallen,
        direction: FallDirection::Forward,
        ..FallState::default()
    };
    // Unstiff goes first: no attempt while it is requested.
    let (command, info) = run(
        &mut combinator,
        &mut sensor_data,
        BodyMotion::Unstiff,
        &fallen,
        100,
    );
    assert_eq!(info.current_motion, MotionKind::Unstiff);
    assert_eq!(command.stiffnesses[JointId::LeftKneePitch], 0.0);
    // There is no stand_up_front here: each attempt ends at once and fails after check_ms.
    let (_, info) = run(
        &mut combinator,
        &mut sensor_data,
        BodyMotion::Stand,
        &fallen,
        31,
    );
    assert_eq!(info.current_motion, MotionKind::GetUp);
    let note = info.note.unwrap_or_default();
    assert!(
        note.contains("no motions/stand_up_front.toml") && note.contains("attempt 1 of 5"),
        "{note}"
    );
    // 5 attempts of (stand 100 ms + check 1500 ms + settle 300 ms) at most.
    let (command, info) = run(
        &mut combinator,
        &mut sensor_data,
        BodyMotion::Stand,
        &fallen,
        1000,
    );
    assert_eq!(info.current_motion, MotionKind::FallProtection);
    let note = info.note.unwrap_or_default();
    assert!(
        note.contains("getting up failed 5 times") && note.contains("lying soft"),
        "{note}"
    );
    assert!(command.stiffnesses[JointId::LeftKneePitch] < 0.25);
    // Put upright by a person: the request runs.
    let (_, info) = run(
        &mut combinator,
        &mut sensor_data,
        BodyMotion::Stand,
        &FallState::default(),
        20,
    );
    assert_eq!(info.current_motion, MotionKind::Stand);
}

#[test]
fn a_new_pose_epoch_mid_walk_walks_on_only_while_the_legs_are_where_the_walk_left_them() {
    let (mut combinator, mut sensor_data, upright) =
        (combinator(), SensorData::default(), FallState::default());
    sensor_data.joint_stiffnesses = Joints::filled(0.9);
    let walk = BodyMotion::Walk {
        forward_m_per_s: 0.2,
        left_m_per_s: 0.0,
        turn_rad_per_s: 0.0,
    };
    let (_, info) = run(
        &mut combinator,
        &mut sensor_data,
        walk.clone(),
        &upright,
        150,
    );
    assert!(!info.can_be_left, "walking: {info:?}");
    let odometry = |combinator: &mut MotionCombinator, sensor_data: &SensorData| {
        let mut odometry = OdometryData::default();
        let request = MotionRequest::default();
        let inputs = MotionCombinatorInputs {
            sensor_data,
            motion_request: &request,
            fall_state: &upright,
            _lifetime: std::marker::PhantomData,
        };
        Update::<OdometryData>::update(combinator, &inputs, &mut odometry);
        odometry.translation_m.x
    };
    // LoLA away for a moment, the legs held where the walk put them: the walk goes on (its
    // odometry grows at once; a walk started anew would first lower itself for 0.3 s).
    let before = odometry(&mut combinator, &sensor_data);
    sensor_data.pose_epoch += 1;
    let (command, info) = run(
        &mut combinator,
        &mut sensor_data,
        walk.clone(),
        &upright,
        10,
    );
    assert!(!info.can_be_left, "still walking: {info:?}");
    assert_eq!(command.pose_epoch, sensor_data.pose_epoch);
    let after = odometry(&mut combinator, &sensor_data);
    assert!(after > before + 0.002, "{before} -> {after}");
    // Sat down by the bridge (the knees moved): the walk starts anew from the measured pose.
    sensor_data.pose_epoch += 1;
    sensor_data.joint_positions_rad[JointId::LeftKneePitch] += 0.5;
    let moved_knee = sensor_data.joint_positions_rad[JointId::LeftKneePitch];
    let (command, _) = run(&mut combinator, &mut sensor_data, walk, &upright, 1);
    assert!(
        (command.positions_rad[JointId::LeftKneePitch] - moved_knee).abs() < 0.05,
        "the walk starts anew from the measured knee {moved_knee}: {:?}",
        command.positions_rad[JointId::LeftKneePitch]
    );
    assert_eq!(command.pose_epoch, sensor_data.pose_epoch);
}
