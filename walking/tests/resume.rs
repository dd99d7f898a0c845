//! A walk resumed from measured legs (the motion process restarted, or its standby took over,
//! mid-walk): it goes on from where the feet are, with no jump of a joint, the foot in the air
//! finishing its step, and the same progress as the walk that was not interrupted; a stand pose,
//! a crouch and broken joint values are not resumed.

mod support;

use kinematics::{legs_inverse, Side};
use nalgebra::{Isometry3, Vector3};
use support::{pressure_after, quiet_parameters, run, soles, walk, CYCLE};
use walking::joints::{leg_from_lola, LEFT_LEG, RIGHT_LEG};
use walking::{WalkOutput, WalkRequest, WalkState, WalkingEngine, WalkingSensors};

/// The engine resumed from the legs of `output` (its joint targets taken as measured).
fn resumed_from(output: &WalkOutput) -> Option<WalkingEngine> {
    let left = leg_from_lola(&output.positions_rad, LEFT_LEG);
    let right = leg_from_lola(&output.positions_rad, RIGHT_LEG);
    WalkingEngine::resume(quiet_parameters(), [&left, &right])
}

/// The largest difference of a leg joint between two outputs.
fn leg_difference(a: &WalkOutput, b: &WalkOutput) -> f32 {
    LEFT_LEG
        .iter()
        .chain(&RIGHT_LEG)
        .map(|&index| (a.positions_rad[index] - b.positions_rad[index]).abs())
        .fold(0.0, f32::max)
}

/// The largest change of a leg joint from one output to the next.
fn largest_leg_change(first: &WalkOutput, outputs: &[WalkOutput]) -> f32 {
    std::iter::once(first)
        .chain(outputs)
        .collect::<Vec<_>>()
        .windows(2)
        .map(|pair| leg_difference(pair[0], pair[1]))
        .fold(0.0, f32::max)
}

/// Walks with `request` for 4 s and resumes a copy at every third tick of the steady walk;
/// checks each copy's first tick against the uninterrupted walk and its next 1.5 s.
fn resume_everywhere(request: WalkRequest) {
    let mut engine = WalkingEngine::new(quiet_parameters());
    let outputs = run(&mut engine, 330, |_, _| request);
    // The most the uninterrupted walk moves a leg joint in one tick.
    let own = largest_leg_change(&outputs[79], &outputs[80..200]);
    let mut lifted = 0;
    for index in (80..200).step_by(3) {
        let interrupted = &outputs[index];
        assert_eq!(interrupted.state, WalkState::Walking);
        let Some(mut resumed) = resumed_from(interrupted) else {
            panic!("tick {index}: legs in a step were not resumed");
        };
        let (left, right) = soles(interrupted);
        let lift = (left.translation.z - right.translation.z).abs();
        if lift > 0.005 {
            lifted += 1;
        }
        let sensors = WalkingSensors {
            cycle_time: CYCLE,
            force_sensitive_resistors_kg: pressure_after(interrupted),
            joint_positions_rad: interrupted.positions_rad,
            ..WalkingSensors::default()
        };
        let first = resumed.tick(&request, &sensors);
        // No more than the walk itself moves a leg in a tick (about 0.05 rad), with a margin.
        let jump = leg_difference(&first, interrupted);
        assert!(
            jump < 1.3 * own,
            "tick {index} (lift {lift:.3} m): the resumed walk's first targets are {jump} rad \
             from the measured legs"
        );
        if lift > 0.005 {
            assert_eq!(
                first.support, interrupted.support,
                "tick {index}: the foot in the air finishes its step"
            );
        }
        let rest = run(&mut resumed, 125, |_, _| request);
        let change = largest_leg_change(&first, &rest);
        assert!(
            change < 1.5 * own,
            "tick {index}: the resumed walk moved a leg joint by {change} rad in one tick"
        );
        assert!(rest.iter().all(|output| output.state == WalkState::Walking));
        // The same progress as the walk that went on.
        let progress = |outputs: &[WalkOutput]| {
            outputs.iter().fold([0.0; 3], |sum, output| {
                [
                    sum[0] + output.odometry_delta.forward_m,
                    sum[1] + output.odometry_delta.left_m,
                    sum[2] + output.odometry_delta.turn_rad,
                ]
            })
        };
        let went_on = progress(&outputs[index + 1..index + 1 + rest.len()]);
        let after_resume = progress(&rest);
        for (axis, (a, b)) in ["forward", "left", "turn"]
            .iter()
            .zip(went_on.iter().zip(&after_resume))
        {
            assert!(
                (a - b).abs() < 0.2 * a.abs().max(0.05),
                "tick {index}: {axis} {b:.3} after the resume, {a:.3} without"
            );
        }
    }
    assert!(lifted > 10, "only {lifted} resumes with a foot in the air");
}

#[test]
fn a_forward_walk_resumed_at_any_moment_goes_on_without_a_jump() {
    resume_everywhere(walk(0.25, 0.0, 0.0));
}

#[test]
fn a_turning_walk_resumed_at_any_moment_goes_on_without_a_jump() {
    resume_everywhere(walk(0.15, 0.0, 0.6));
}

#[test]
fn a_foot_in_the_air_comes_down_within_the_rest_of_its_step() {
    let request = walk(0.25, 0.0, 0.0);
    let mut engine = WalkingEngine::new(quiet_parameters());
    let outputs = run(&mut engine, 200, |_, _| request);
    // The swing foot at a third of its step, on its way up.
    let interrupted = outputs
        .iter()
        .skip(100)
        .find(|output| (0.3..0.4).contains(&output.step_phase))
        .unwrap();
    let mut resumed = resumed_from(interrupted).unwrap();
    let rest = run(&mut resumed, 40, |_, _| request);
    let swing = interrupted.support.opposite();
    let landed = rest
        .iter()
        .position(|output| {
            let (left, right) = soles(output);
            let height = match swing {
                Side::Left => left.translation.z - right.translation.z,
                Side::Right => right.translation.z - left.translation.z,
            };
            height.abs() < 1e-4
        })
        .expect("the foot came down");
    // The rest of the step (a tick's rounding more), not a stall and not a hurried landing.
    let rest_of_step =
        (1.0 - interrupted.step_phase) * quiet_parameters().step_period_s / CYCLE.as_secs_f64();
    assert!(
        (landed as f64 - rest_of_step).abs() <= 1.5,
        "the foot came down after {landed} ticks, {rest_of_step:.1} ticks before the end of its step"
    );
}

/// `output` with the legs that put the soles at `forward` (left foot; the right one at its
/// negative) and 5 cm to each side, `hip_height_m` below the hips.
fn with_feet_apart(output: &WalkOutput, forward: f64, hip_height_m: f64) -> WalkOutput {
    let sole = |y: f64, forward: f64| {
        Isometry3::new(
            Vector3::new(forward, y, -kinematics::HIP_OFFSET_Z_M - hip_height_m),
            Vector3::zeros(),
        )
    };
    let legs = legs_inverse(&sole(0.05, forward), &sole(-0.05, -forward)).unwrap();
    let mut posed = output.clone();
    for (index, angle) in LEFT_LEG.iter().zip(legs.left.joints.to_array()) {
        posed.positions_rad[*index] = angle as f32;
    }
    for (index, angle) in RIGHT_LEG.iter().zip(legs.right.joints.to_array()).skip(1) {
        posed.positions_rad[*index] = angle as f32;
    }
    posed
}

#[test]
fn a_stand_pose_a_crouch_and_broken_joints_are_not_resumed() {
    let parameters = quiet_parameters();
    let mut engine = WalkingEngine::new(parameters.clone());
    let stand = run(&mut engine, 5, |_, _| WalkRequest::Stand);
    assert!(resumed_from(&stand[4]).is_none(), "the stand pose");
    let apart = with_feet_apart(&stand[4], 0.03, parameters.walk_hip_height_m);
    assert!(
        resumed_from(&apart).is_some(),
        "feet apart at the walk's height"
    );
    // The same feet with the hips 8 cm lower than the walk's: no walking pose.
    let crouch = with_feet_apart(&stand[4], 0.03, parameters.walk_hip_height_m - 0.08);
    assert!(resumed_from(&crouch).is_none(), "a crouch");
    let mut broken = apart.clone();
    broken.positions_rad[LEFT_LEG[3]] = f32::NAN;
    assert!(resumed_from(&broken).is_none(), "a NaN knee");
}

#[test]
fn a_sideways_walk_resumed_at_any_moment_goes_on_without_a_jump() {
    resume_everywhere(walk(0.0, -0.12, 0.0));
}
