//! What the walking tests share: a kinematic robot that feels its weight where the engine put
//! it, and forward kinematics of the produced joint angles.

#![allow(dead_code)]

use std::time::Duration;

use kinematics::{sole_in_torso, Side};
use nalgebra::Isometry3;
use walking::joints::{leg_from_lola, LEFT_LEG, RIGHT_LEG};
use walking::{
    Step, WalkOutput, WalkRequest, WalkState, WalkingEngine, WalkingEngineParameters,
    WalkingSensors,
};

pub const CYCLE: Duration = Duration::from_millis(12);

/// Foot pressure as a rigid robot would feel it: all weight on the support foot until the
/// swing foot has come down at the end of its step, then on the swing foot.
pub fn pressure_after(output: &WalkOutput) -> [f32; 8] {
    let loaded = if output.state == WalkState::Walking && output.step_phase >= 1.0 {
        output.support.opposite()
    } else {
        output.support
    };
    match (output.state, loaded) {
        (WalkState::Walking, Side::Left) => [1.2, 1.2, 1.2, 1.2, 0.0, 0.0, 0.0, 0.0],
        (WalkState::Walking, Side::Right) => [0.0, 0.0, 0.0, 0.0, 1.2, 1.2, 1.2, 1.2],
        _ => [0.6; 8],
    }
}

/// Runs the engine for `ticks` with a request per tick, feeding back the pressure of a rigid
/// robot; returns every output.
pub fn run(
    engine: &mut WalkingEngine,
    ticks: usize,
    mut request: impl FnMut(usize, &WalkingEngine) -> WalkRequest,
) -> Vec<WalkOutput> {
    let mut sensors = WalkingSensors {
        cycle_time: CYCLE,
        ..WalkingSensors::default()
    };
    let mut outputs = Vec::with_capacity(ticks);
    for tick in 0..ticks {
        let output = engine.tick(&request(tick, engine), &sensors);
        sensors.force_sensitive_resistors_kg = pressure_after(&output);
        sensors.joint_positions_rad = output.positions_rad;
        outputs.push(output);
    }
    outputs
}

/// The soles in the torso frame for the produced joint angles.
pub fn soles(output: &WalkOutput) -> (Isometry3<f64>, Isometry3<f64>) {
    (
        sole_in_torso(Side::Left, &leg_from_lola(&output.positions_rad, LEFT_LEG)),
        sole_in_torso(
            Side::Right,
            &leg_from_lola(&output.positions_rad, RIGHT_LEG),
        ),
    )
}

pub fn walk(forward_m_per_s: f64, left_m_per_s: f64, turn_rad_per_s: f64) -> WalkRequest {
    WalkRequest::Walk {
        forward_m_per_s,
        left_m_per_s,
        turn_rad_per_s,
    }
}

/// The default parameters without gyro feedback (the kinematic robot does not tilt).
pub fn quiet_parameters() -> WalkingEngineParameters {
    WalkingEngineParameters {
        gyro_pitch_gain: 0.0,
        gyro_roll_gain: 0.0,
        // The planned motion: no calibration for slipping feet.
        odometry_scale_forward: 1.0,
        odometry_scale_left: 1.0,
        odometry_scale_turn: 1.0,
        ..WalkingEngineParameters::default()
    }
}

/// Walk with `request` for `walk_ticks`, then ask to stand until the engine stands.
pub fn walk_and_stop(
    parameters: WalkingEngineParameters,
    request: WalkRequest,
    walk_ticks: usize,
) -> (WalkingEngine, Vec<WalkOutput>) {
    let mut engine = WalkingEngine::new(parameters);
    // Stand for a few ticks first, so that the first output is the stand pose.
    let outputs = run(&mut engine, walk_ticks + 1000, |tick, _| {
        if (10..walk_ticks).contains(&tick) {
            request
        } else {
            WalkRequest::Stand
        }
    });
    assert_eq!(engine.state(), WalkState::Standing, "the walk stopped");
    (engine, outputs)
}

/// The executed steps, one entry per step (taken when a new step begins).
pub fn steps(outputs: &[WalkOutput]) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut previous_phase = f64::INFINITY;
    for output in outputs
        .iter()
        .filter(|output| output.state == WalkState::Walking)
    {
        if output.step_phase < previous_phase {
            steps.push(output.step);
        }
        previous_phase = output.step_phase;
    }
    steps
}
