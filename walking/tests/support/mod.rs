//! What the walking tests share: a kinematic robot that feels its weight where the engine put
//! it, and forward kinematics of the produced joint angles.

#![allow(dead_code)]

use std::time::Duration;

use kinematics::{sole_in_torso, Side};
use nalgebra::Isometry3;
use walking::joints::{leg_from_lola, LEFT_LEG, RIGHT_LEG};
use walking::{WalkOutput, WalkRequest, WalkState, WalkingEngine, WalkingSensors};

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
