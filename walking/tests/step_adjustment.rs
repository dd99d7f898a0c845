//! The step adjustment inside the engine: a push (a tilt and a tilt rate fed in mid-walk) moves
//! the swing foot's joint targets the way the robot falls, within the limits; a quiet walk walks
//! exactly as with the adjustment off.

mod support;

use kinematics::Side;
use support::{pressure_after, soles, walk, CYCLE};
use walking::{
    StepAdjustmentParameters, WalkOutput, WalkState, WalkingEngine, WalkingEngineParameters,
    WalkingSensors,
};

/// Walks forward; from `push_tick` on the torso reports `tilt` (roll, pitch) and `rate` (gyro
/// x, y). Returns every output.
fn walk_pushed(
    enabled: bool,
    push_tick: usize,
    tilt: [f32; 2],
    rate: [f32; 2],
    ticks: usize,
) -> Vec<WalkOutput> {
    let parameters = WalkingEngineParameters {
        step_adjustment: StepAdjustmentParameters {
            enabled,
            ..StepAdjustmentParameters::default()
        },
        ..WalkingEngineParameters::default()
    };
    let mut engine = WalkingEngine::new(parameters);
    let mut sensors = WalkingSensors {
        cycle_time: CYCLE,
        ..WalkingSensors::default()
    };
    let request = walk(0.2, 0.0, 0.0);
    (0..ticks)
        .map(|tick| {
            if tick >= push_tick {
                sensors.torso_angles_rad = tilt;
                sensors.gyroscope_rad_per_s = [rate[0], rate[1], 0.0];
            }
            let output = engine.tick(&request, &sensors);
            sensors.force_sensitive_resistors_kg = pressure_after(&output);
            sensors.joint_positions_rad = output.positions_rad;
            output
        })
        .collect()
}

/// The swing sole's position in the torso frame (x, y) at the last tick of the first step that
/// begins after `from_tick` (the step under way may be landing already).
fn swing_sole_before_landing(outputs: &[WalkOutput], from_tick: usize) -> (Side, [f64; 2]) {
    let step_ends = |from: usize| {
        (from..outputs.len() - 1)
            .find(|&index| {
                outputs[index].state == WalkState::Walking
                    && outputs[index + 1].support != outputs[index].support
            })
            .expect("a step ends")
    };
    let index = step_ends(step_ends(from_tick) + 1);
    let output = &outputs[index];
    let swing = output.support.opposite();
    let (left, right) = soles(output);
    let sole = if swing == Side::Left { left } else { right };
    (swing, [sole.translation.x, sole.translation.y])
}

#[test]
fn a_quiet_walk_is_the_same_with_the_adjustment_on_and_off() {
    let on = walk_pushed(true, usize::MAX, [0.0; 2], [0.0; 2], 600);
    let off = walk_pushed(false, usize::MAX, [0.0; 2], [0.0; 2], 600);
    assert!(on.iter().any(|output| output.state == WalkState::Walking));
    assert_eq!(on, off);
}

#[test]
fn a_push_from_behind_moves_the_next_landing_forward_and_one_from_the_front_back() {
    // Ticks 200..: walking steadily; the push tilts the torso 0.2 rad at 1 rad/s.
    let push_tick = 200;
    let quiet = walk_pushed(false, push_tick, [0.0, 0.2], [0.0, 1.0], 400);
    let forward = walk_pushed(true, push_tick, [0.0, 0.2], [0.0, 1.0], 400);
    let backward = walk_pushed(true, push_tick, [0.0, -0.2], [0.0, -1.0], 400);
    let (side, planned) = swing_sole_before_landing(&quiet, push_tick);
    let (side_forward, moved_forward) = swing_sole_before_landing(&forward, push_tick);
    let (side_backward, moved_backward) = swing_sole_before_landing(&backward, push_tick);
    assert_eq!((side, side), (side_forward, side_backward));
    let largest = StepAdjustmentParameters::default();
    let ahead = moved_forward[0] - planned[0];
    let behind = planned[0] - moved_backward[0];
    assert!(
        ahead > 0.01 && ahead <= largest.max_forward_m + 1e-4,
        "{ahead}"
    );
    assert!(
        behind > 0.01 && behind <= largest.max_backward_m + 1e-4,
        "{behind}"
    );
    assert!((moved_forward[1] - planned[1]).abs() < 1e-4);
    // No joint jumps for it.
    for outputs in [&forward, &backward] {
        for pair in outputs.windows(2) {
            for (before, after) in pair[0].positions_rad.iter().zip(&pair[1].positions_rad) {
                assert!((after - before).abs() < 0.15, "{before} → {after}");
            }
        }
    }
}

#[test]
fn a_push_to_the_side_steps_out_with_the_outer_foot_and_never_crosses_the_feet() {
    let push_tick = 200;
    // Pushed to the left: roll negative (the torso's top goes left) and rolling on.
    let pushed = walk_pushed(true, push_tick, [-0.2, 0.0], [-1.0, 0.0], 500);
    let quiet = walk_pushed(false, push_tick, [-0.2, 0.0], [-1.0, 0.0], 500);
    let mut stepped_out = false;
    for (output, reference) in pushed.iter().zip(&quiet).skip(push_tick) {
        let (left, right) = soles(output);
        let separation = left.translation.y - right.translation.y;
        assert!(separation >= 0.094, "the feet came to {separation} m apart");
        let (quiet_left, _) = soles(reference);
        stepped_out |= left.translation.y - quiet_left.translation.y > 0.01;
    }
    assert!(stepped_out, "the left foot never stepped out to the left");
}

#[test]
fn a_push_over_the_support_foot_hurries_the_step_under_way() {
    // The first tick of a step on the left foot after 200 ticks of walking.
    let quiet = walk_pushed(false, usize::MAX, [0.0; 2], [0.0; 2], 400);
    let start = (200..399)
        .find(|&tick| quiet[tick].support == Side::Left && quiet[tick - 1].support == Side::Right)
        .expect("a step on the left foot");
    let step_ticks = |outputs: &[WalkOutput]| {
        (start + 1..outputs.len())
            .find(|&tick| outputs[tick].support != Side::Left)
            .expect("the step ends")
            - start
    };
    // Pushed to the left while the right foot swings: the capture point is beyond the left
    // (support) foot, where the right foot may not go.
    let (tilt, rate) = ([-0.2, 0.0], [-1.0, 0.0]);
    let hurried = walk_pushed(true, start + 2, tilt, rate, 400);
    let unhurried = walk_pushed(false, start + 2, tilt, rate, 400);
    let speedup = StepAdjustmentParameters::default().blocked_step_speedup;
    assert!(speedup > 1.0);
    let (normal, short) = (step_ticks(&unhurried), step_ticks(&hurried));
    assert!(
        (short as f64) < 0.8 * normal as f64,
        "the step took {short} ticks pushed, {normal} without adjustment"
    );
}

/// A kick swings the torso on purpose: from the kick request on, the steps are walked as
/// planned however the torso moves, and the engine stops after the kick (with the adjustment
/// reading the kick's swing as a push, the feet never came home and the walk stepped on the
/// spot for good in the physics simulator).
#[test]
fn the_kick_and_the_steps_after_it_are_not_adjusted_and_the_walk_stops() {
    let mut engine = WalkingEngine::new(WalkingEngineParameters::default());
    let mut sensors = WalkingSensors {
        cycle_time: CYCLE,
        ..WalkingSensors::default()
    };
    let request = walking::WalkRequest::Kick {
        foot: Side::Left,
        direction_rad: 0.0,
        strength: 1.0,
    };
    let mut stopped = false;
    for tick in 0..2000 {
        // The torso swinging forward and back as a kick makes it, well beyond the dead band.
        let swing = (tick as f32 * 0.05).sin();
        sensors.torso_angles_rad = [0.0, 0.15 * swing];
        sensors.gyroscope_rad_per_s = [0.0, 0.8 * swing, 0.0];
        let output = engine.tick(&request, &sensors);
        assert_eq!(
            engine.step_adjustment().shift,
            walking::FootOffset::default(),
            "tick {tick}: the kick's steps were adjusted"
        );
        sensors.force_sensitive_resistors_kg = pressure_after(&output);
        sensors.joint_positions_rad = output.positions_rad;
        if tick > 10 && output.state == WalkState::Standing {
            stopped = true;
            break;
        }
    }
    assert!(stopped, "the walk did not stop after the kick");
}
