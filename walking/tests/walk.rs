//! The walk checked through the joint angles it produces: forward kinematics of the legs, the
//! support switch on foot pressure and on time, a smooth start and stop, gyro feedback, and
//! hostile inputs.

mod support;

use kinematics::{Side, HIP_OFFSET_Z_M};
use support::{quiet_parameters, run, soles, walk, walk_and_stop, CYCLE};
use walking::{
    WalkOutput, WalkRequest, WalkState, WalkingEngine, WalkingEngineParameters, WalkingSensors,
};

#[test]
fn the_swing_foot_peaks_at_the_foot_lift_and_the_support_foot_stays_below_the_hip() {
    let parameters = quiet_parameters();
    let (_, outputs) = walk_and_stop(parameters.clone(), walk(0.2, 0.0, 0.3), 400);
    let mut step_peak = 0.0f64;
    let mut peaks = Vec::new();
    let mut previous_support = None;
    for output in outputs
        .iter()
        .filter(|output| output.state == WalkState::Walking)
    {
        let (left, right) = soles(output);
        let (support, swing) = match output.support {
            Side::Left => (left, right),
            Side::Right => (right, left),
        };
        let below_hip = -(support.translation.z + HIP_OFFSET_Z_M);
        assert!(
            (below_hip - parameters.walk_hip_height_m).abs() < 1e-4,
            "support sole {below_hip} m below the hip"
        );
        let tilt = (support.rotation * nalgebra::Vector3::z()).z.acos();
        assert!(tilt < 1e-3, "support sole tilted by {tilt} rad");
        if previous_support.is_some_and(|side| side != output.support) {
            peaks.push(step_peak);
            step_peak = 0.0;
        }
        previous_support = Some(output.support);
        let height = swing.translation.z - support.translation.z;
        assert!(height > -1e-4, "swing foot below the ground: {height}");
        step_peak = step_peak.max(height);
    }
    assert!(peaks.len() > 10, "{} steps", peaks.len());
    for peak in &peaks[1..] {
        assert!(
            (peak - parameters.foot_lift_m).abs() < 3e-4,
            "swing peak {peak} m, foot lift {} m",
            parameters.foot_lift_m
        );
    }
}

/// Runs one step with a hand-made pressure signal and returns the phase at which the support
/// foot changed.
fn switch_phase(pressure: impl Fn(f64, Side) -> [f32; 8]) -> f64 {
    let mut engine = WalkingEngine::new(quiet_parameters());
    let mut sensors = WalkingSensors {
        cycle_time: CYCLE,
        ..WalkingSensors::default()
    };
    let request = walk(0.1, 0.0, 0.0);
    let mut previous: Option<WalkOutput> = None;
    for _ in 0..1000 {
        let output = engine.tick(&request, &sensors);
        if let Some(previous) = previous.filter(|previous| previous.state == WalkState::Walking) {
            if output.support != previous.support {
                return previous.step_phase + CYCLE.as_secs_f64() / 0.25;
            }
        }
        sensors.force_sensitive_resistors_kg = pressure(output.step_phase, output.support);
        previous = Some(output);
    }
    panic!("the support foot never changed");
}

fn on(side: Side) -> [f32; 8] {
    match side {
        Side::Left => [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        Side::Right => [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0],
    }
}

#[test]
fn the_support_foot_changes_when_the_pressure_crosses_and_otherwise_on_time() {
    let parameters = quiet_parameters();
    let tick_phase = CYCLE.as_secs_f64() / parameters.step_period_s;
    // The weight crosses at 80 % of the step: the switch follows within a tick.
    let crossing = switch_phase(|phase, support| {
        if phase >= 0.8 {
            on(support.opposite())
        } else {
            on(support)
        }
    });
    assert!(
        (0.8..0.8 + 2.0 * tick_phase).contains(&crossing),
        "switched at {crossing}"
    );
    // A crossing too early (30 %) is ignored until the minimum step fraction.
    let early = switch_phase(|phase, support| {
        if phase >= 0.3 {
            on(support.opposite())
        } else {
            on(support)
        }
    });
    let minimum = parameters.min_step_fraction;
    assert!(
        (minimum..minimum + 2.0 * tick_phase).contains(&early),
        "switched at {early}"
    );
    // The weight never crosses: the time fallback.
    let maximum = parameters.max_step_fraction;
    let stuck = switch_phase(|_, support| on(support));
    assert!(
        (maximum..maximum + 2.0 * tick_phase).contains(&stuck),
        "switched at {stuck}"
    );
    // The robot is lifted (no weight at all): the time fallback too.
    let lifted = switch_phase(|_, _| [0.01; 8]);
    assert!((maximum..maximum + 2.0 * tick_phase).contains(&lifted));
}

#[test]
fn start_and_stop_are_continuous_and_end_in_the_stand_pose() {
    let parameters = quiet_parameters();
    let (_, outputs) = walk_and_stop(parameters.clone(), walk(0.25, 0.0, 0.5), 300);
    let first = &outputs[0];
    assert_eq!(first.state, WalkState::Standing);
    let mut largest = 0.0f32;
    for pair in outputs.windows(2) {
        for (before, after) in pair[0].positions_rad.iter().zip(&pair[1].positions_rad) {
            largest = largest.max((after - before).abs());
        }
    }
    eprintln!("largest joint change per 12 ms: {largest} rad");
    assert!(largest < 0.08, "a joint jumped by {largest} rad in 12 ms");
    let last = outputs.last().unwrap();
    for (start, end) in first.positions_rad.iter().zip(&last.positions_rad) {
        assert!(
            (start - end).abs() < 1e-5,
            "the stand pose differs after the walk"
        );
    }
    // The stand pose has the soles at the stand height, flat, below the hips.
    let (left, right) = soles(first);
    for sole in [left, right] {
        let below_hip = -(sole.translation.z + HIP_OFFSET_Z_M);
        assert!((below_hip - parameters.stand_hip_height_m).abs() < 1e-5);
        assert!(sole.translation.x.abs() < 1e-5);
    }
    // It went through every state.
    for state in [WalkState::Starting, WalkState::Walking, WalkState::Stopping] {
        assert!(
            outputs.iter().any(|output| output.state == state),
            "{state:?}"
        );
    }
}

#[test]
fn the_filtered_gyro_turns_the_support_ankle() {
    let parameters = WalkingEngineParameters {
        gyro_pitch_gain: 0.1,
        gyro_roll_gain: 0.05,
        ..WalkingEngineParameters::default()
    };
    let mut still = WalkingEngine::new(parameters.clone());
    let mut shaken = WalkingEngine::new(parameters);
    let calm = WalkingSensors::default();
    let tilting = WalkingSensors {
        gyroscope_rad_per_s: [0.5, 1.0, 0.0],
        ..WalkingSensors::default()
    };
    let (mut a, mut b) = (None, None);
    for _ in 0..100 {
        a = Some(still.tick(&WalkRequest::Stand, &calm));
        b = Some(shaken.tick(&WalkRequest::Stand, &tilting));
    }
    let (a, b) = (a.unwrap(), b.unwrap());
    let pitch = b.positions_rad[walking::joints::LEFT_ANKLE_PITCH]
        - a.positions_rad[walking::joints::LEFT_ANKLE_PITCH];
    let roll = b.positions_rad[walking::joints::RIGHT_ANKLE_ROLL]
        - a.positions_rad[walking::joints::RIGHT_ANKLE_ROLL];
    assert!((pitch - 0.1).abs() < 1e-4, "{pitch}");
    assert!((roll - 0.025).abs() < 1e-4, "{roll}");
}

#[test]
fn hostile_sensor_values_and_requests_give_finite_targets() {
    let mut engine = WalkingEngine::new(WalkingEngineParameters::default());
    let broken = WalkingSensors {
        force_sensitive_resistors_kg: [
            f32::NAN,
            f32::INFINITY,
            -1e30,
            1e30,
            0.0,
            f32::NAN,
            3.0,
            0.0,
        ],
        gyroscope_rad_per_s: [f32::NAN, f32::INFINITY, f32::NEG_INFINITY],
        torso_angles_rad: [f32::NAN; 2],
        joint_positions_rad: [f32::NAN; 25],
        cycle_time: std::time::Duration::from_secs(3600),
    };
    let requests = [
        walk(f64::NAN, 0.0, 0.0),
        walk(1e300, -1e300, f64::INFINITY),
        WalkRequest::WalkTo {
            target: walking::RelativeTarget {
                forward_m: f64::NAN,
                left_m: 1.0,
                turn_rad: f64::INFINITY,
            },
        },
        walk(0.3, 0.0, 0.0),
    ];
    for tick in 0..400 {
        let output = engine.tick(&requests[tick % requests.len()], &broken);
        assert!(output.positions_rad.iter().all(|angle| angle.is_finite()));
        assert!(output
            .stiffnesses
            .iter()
            .all(|stiffness| (0.0..=1.0).contains(stiffness)));
        let delta = output.odometry_delta;
        assert!(
            delta.forward_m.is_finite() && delta.left_m.is_finite() && delta.turn_rad.is_finite()
        );
    }
}

/// The largest change of any joint between two consecutive outputs.
fn largest_joint_change(outputs: &[WalkOutput]) -> f32 {
    outputs
        .windows(2)
        .flat_map(|pair| {
            pair[0]
                .positions_rad
                .iter()
                .zip(pair[1].positions_rad)
                .map(|(before, after)| (after - before).abs())
        })
        .fold(0.0, f32::max)
}

#[test]
fn early_touch_downs_and_erratic_requests_move_no_joint_by_more_than_a_bound() {
    // The weight crosses at 78 % of every step, while the swing foot is still 5 mm up.
    let mut engine = WalkingEngine::new(quiet_parameters());
    let mut sensors = WalkingSensors {
        cycle_time: CYCLE,
        ..WalkingSensors::default()
    };
    let mut outputs = Vec::new();
    let mut early_switches = 0;
    for tick in 0..1500 {
        let request = if tick < 1000 {
            walk(0.3, 0.0, 0.5)
        } else {
            WalkRequest::Stand
        };
        let output = engine.tick(&request, &sensors);
        if let Some(previous) = outputs.last() {
            let previous: &WalkOutput = previous;
            if previous.state == WalkState::Walking
                && output.state == WalkState::Walking
                && output.support != previous.support
                && previous.step_phase < 0.9
            {
                early_switches += 1;
            }
        }
        let loaded = if output.step_phase >= 0.78 {
            output.support.opposite()
        } else {
            output.support
        };
        sensors.force_sensitive_resistors_kg = if output.state == WalkState::Walking {
            match loaded {
                Side::Left => [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0],
                Side::Right => [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0],
            }
        } else {
            [0.6; 8]
        };
        outputs.push(output);
    }
    assert!(early_switches > 20, "{early_switches} early switches");
    assert_eq!(engine.state(), WalkState::Standing);
    // A foot that came down early settles instead of dropping its remaining lift at once.
    let mut largest_drop = 0.0f64;
    for pair in outputs.windows(2) {
        let (before, after) = (soles(&pair[0]), soles(&pair[1]));
        for (a, b) in [(before.0, after.0), (before.1, after.1)] {
            largest_drop = largest_drop.max((a.translation.z - b.translation.z).abs());
        }
    }
    // (Dropping the whole 20 mm lift at once would be 0.02 m.)
    assert!(
        largest_drop < 0.004,
        "a sole moved by {largest_drop} m in 12 ms"
    );
    let largest = largest_joint_change(&outputs);
    assert!(largest < 0.08, "a joint jumped by {largest} rad in 12 ms");

    // Requests that change every few ticks: start, stand, walk elsewhere, walk to a target.
    let mut engine = WalkingEngine::new(quiet_parameters());
    let outputs = run(&mut engine, 3000, |tick, _| match (tick / 7) % 5 {
        0 => walk(0.3, 0.1, -1.0),
        1 => WalkRequest::Stand,
        2 => walk(-0.2, -0.1, 1.0),
        3 => WalkRequest::WalkTo {
            target: walking::RelativeTarget {
                forward_m: 0.5,
                left_m: -0.5,
                turn_rad: 2.0,
            },
        },
        _ => WalkRequest::Stand,
    });
    let largest = largest_joint_change(&outputs);
    assert!(largest < 0.08, "a joint jumped by {largest} rad in 12 ms");
}

#[test]
fn a_pose_out_of_reach_is_reported_as_clamped() {
    let (_, outputs) = walk_and_stop(quiet_parameters(), walk(0.3, 0.1, 1.0), 300);
    assert!(outputs.iter().all(|output| !output.clamped));
    // Nearly stretched legs cannot take long steps.
    let stretched = WalkingEngineParameters {
        walk_hip_height_m: 0.245,
        stand_hip_height_m: 0.245,
        max_forward_step_m: 0.12,
        ..quiet_parameters()
    };
    let (_, outputs) = walk_and_stop(stretched, walk(0.5, 0.0, 0.0), 300);
    assert!(outputs.iter().any(|output| output.clamped));
    assert!(outputs
        .iter()
        .all(|output| output.positions_rad.iter().all(|angle| angle.is_finite())));
}

#[test]
fn a_kick_is_one_long_step_of_the_kicking_foot_once_per_request() {
    let parameters = quiet_parameters();
    let kick = WalkRequest::Kick {
        foot: Side::Right,
        direction_rad: 0.0,
        strength: 1.0,
    };
    let mut engine = WalkingEngine::new(parameters.clone());
    // Kick, keep asking (no second kick), stand, kick again.
    let outputs = run(&mut engine, 1200, |tick, _| match tick {
        0..500 => kick,
        500..600 => WalkRequest::Stand,
        _ => kick,
    });
    let kicks: Vec<(usize, &walking::WalkOutput)> = outputs
        .iter()
        .enumerate()
        .filter(|(_, output)| {
            output.state == WalkState::Walking
                && (output.step.forward_m - parameters.kick_step_m).abs() < 1e-9
        })
        .collect();
    assert!(!kicks.is_empty(), "no kick step");
    assert!(kicks.iter().all(|(_, output)| output.support == Side::Left));
    let first_kick: Vec<usize> = kicks
        .iter()
        .map(|(tick, _)| *tick)
        .filter(|tick| *tick < 500)
        .collect();
    let second_kick: Vec<usize> = kicks
        .iter()
        .map(|(tick, _)| *tick)
        .filter(|tick| *tick >= 600)
        .collect();
    assert!(
        !first_kick.is_empty() && !second_kick.is_empty(),
        "{kicks:?}"
    );
    // One kick step each: its ticks are contiguous and last the kick period.
    for ticks in [&first_kick, &second_kick] {
        assert_eq!(ticks.last().unwrap() - ticks[0] + 1, ticks.len());
        let duration = ticks.len() as f64 * CYCLE.as_secs_f64();
        assert!(
            duration <= parameters.kick_period_s * parameters.max_step_fraction + 0.02,
            "{duration} s"
        );
    }
    assert_eq!(
        outputs[499].state,
        WalkState::Standing,
        "stands after the kick"
    );
    assert_eq!(engine.state(), WalkState::Standing);
    // The kicking foot swings back before it shoots forward.
    let right_forward: Vec<f64> = first_kick
        .iter()
        .map(|tick| soles(&outputs[*tick]).1.translation.x)
        .collect();
    let lowest = right_forward.iter().cloned().fold(f64::INFINITY, f64::min);
    let highest = right_forward
        .iter()
        .cloned()
        .fold(f64::NEG_INFINITY, f64::max);
    // (It travels half the step from the stand position, 20 % back first, 30 % beyond.)
    assert!(
        lowest < right_forward[0] - 0.005 && highest > lowest + 0.7 * parameters.kick_step_m,
        "{right_forward:?}"
    );
}
