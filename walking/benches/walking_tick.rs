//! Time of one walking engine tick and of the leg inverse kinematics, side by side.
//!
//! `cargo bench -p walking --bench walking_tick`
//!
//! Prints median and 99th percentile of single calls. The engine walks omnidirectionally (forward,
//! sideways and turning, with the pressure switch and the gyro active); the inverse kinematics
//! rows compare the walk's solution with the shared yaw-pitch (`legs_inverse`: two six-joint
//! and two five-joint solutions) against two independent six-joint solutions and against the
//! forward kinematics of both legs.

use std::hint::black_box;
use std::time::{Duration, Instant};

use kinematics::{leg_inverse, legs_inverse, sole_in_torso, LegJoints, Side};
use nalgebra::{Isometry3, Vector3};
use walking::{WalkRequest, WalkState, WalkingEngine, WalkingEngineParameters, WalkingSensors};

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * fraction).round() as usize]
}

fn report(name: &str, mut samples: Vec<Duration>, reference: Option<Duration>) -> Duration {
    samples.sort();
    let median = percentile(&samples, 0.5);
    let p99 = percentile(&samples, 0.99);
    let ratio = reference
        .map(|reference| format!("{:.2}", median.as_secs_f64() / reference.as_secs_f64()))
        .unwrap_or_else(|| "1.00".into());
    println!(
        "| {name:<46} | {:>9.2} | {:>9.2} | {ratio:>8} |",
        median.as_secs_f64() * 1e6,
        p99.as_secs_f64() * 1e6
    );
    median
}

/// Times `batch` calls of `work` per sample; returns the time per call of each sample. One call
/// per sample keeps a preemption of the loaded machine to one sample (the clock's own cost,
/// about 20 ns, is in every row).
fn sample(samples: usize, batch: usize, mut work: impl FnMut(usize)) -> Vec<Duration> {
    (0..samples)
        .map(|index| {
            let start = Instant::now();
            for call in 0..batch {
                work(index * batch + call);
            }
            start.elapsed() / batch as u32
        })
        .collect()
}

/// 50 000 single ticks of a walking engine, each timed; the feet's pressure switches at each
/// step's end as the support foot changes.
fn walking_ticks(
    engine: &mut WalkingEngine,
    request: &WalkRequest,
    sensors: &mut WalkingSensors,
) -> Vec<Duration> {
    let mut ticks = Vec::with_capacity(50_000);
    for _ in 0..50_000 {
        let start = Instant::now();
        let output = engine.tick(black_box(request), black_box(sensors));
        ticks.push(start.elapsed());
        sensors.force_sensitive_resistors_kg = if output.step_phase >= 1.0 {
            [0.0; 8]
        } else {
            [1.0; 8]
        };
        black_box(output);
    }
    ticks
}

fn main() {
    println!(
        "| what                                           | median µs |    p99 µs | ×median  |"
    );
    println!(
        "|------------------------------------------------|-----------|-----------|----------|"
    );

    // The engine: single ticks, as the motion process calls it.
    let mut engine = WalkingEngine::new(WalkingEngineParameters::default());
    let mut sensors = WalkingSensors {
        gyroscope_rad_per_s: [0.05, -0.1, 0.0],
        ..WalkingSensors::default()
    };
    let request = WalkRequest::Walk {
        forward_m_per_s: 0.2,
        left_m_per_s: 0.05,
        turn_rad_per_s: 0.4,
    };
    for _ in 0..200 {
        engine.tick(&request, &sensors);
    }
    assert_eq!(engine.state(), WalkState::Walking);
    let tick = report(
        "WalkingEngine::tick (walking, one call)",
        walking_ticks(&mut engine, &request, &mut sensors),
        None,
    );

    // The step adjustment's share: the same walk with it switched off, and pushed (the torso
    // tilted and rolling, so that the swing foot is shifted at every tick).
    let engine_ticks = |enabled: bool, tilt: [f32; 2], rate: [f32; 2]| {
        let mut parameters = WalkingEngineParameters::default();
        parameters.step_adjustment.enabled = enabled;
        let request = WalkRequest::Walk {
            forward_m_per_s: 0.2,
            left_m_per_s: 0.0,
            turn_rad_per_s: 0.0,
        };
        let mut engine = WalkingEngine::new(parameters);
        let mut sensors = WalkingSensors::default();
        for _ in 0..200 {
            engine.tick(&request, &sensors);
        }
        sensors.torso_angles_rad = tilt;
        sensors.gyroscope_rad_per_s = [rate[0], rate[1], 0.0];
        walking_ticks(&mut engine, &request, &mut sensors)
    };
    report(
        "tick, straight, step adjustment off",
        engine_ticks(false, [0.0; 2], [0.0; 2]),
        Some(tick),
    );
    report(
        "tick, straight, step adjustment on, quiet",
        engine_ticks(true, [0.0; 2], [0.0; 2]),
        Some(tick),
    );
    report(
        "tick, straight, step adjustment on, pushed",
        engine_ticks(true, [-0.2, 0.2], [-1.0, 1.0]),
        Some(tick),
    );

    // Inverse kinematics over the poses of a walk.
    let targets: Vec<(Isometry3<f64>, Isometry3<f64>)> = (0..1000)
        .map(|index| {
            let phase = index as f64 / 1000.0 * std::f64::consts::TAU;
            let height = -0.085 - 0.215;
            (
                Isometry3::new(
                    Vector3::new(
                        0.03 * phase.sin(),
                        0.05,
                        height + 0.01 * phase.cos().max(0.0),
                    ),
                    Vector3::z() * 0.2 * phase.sin(),
                ),
                Isometry3::new(
                    Vector3::new(-0.03 * phase.sin(), -0.05, height),
                    Vector3::z() * -0.2 * phase.sin(),
                ),
            )
        })
        .collect();
    let shared = sample(200_000, 1, |index| {
        let (left, right) = &targets[index % targets.len()];
        black_box(legs_inverse(black_box(left), black_box(right)).unwrap());
    });
    let shared = report(
        "legs_inverse (both legs, shared yaw-pitch)",
        shared,
        Some(tick),
    );
    let independent = sample(200_000, 1, |index| {
        let (left, right) = &targets[index % targets.len()];
        black_box(leg_inverse(Side::Left, black_box(left)).unwrap());
        black_box(leg_inverse(Side::Right, black_box(right)).unwrap());
    });
    report(
        "2 × leg_inverse (independent yaw-pitch)",
        independent,
        Some(shared),
    );
    let joints = LegJoints {
        hip_pitch: -0.4,
        knee_pitch: 0.8,
        ankle_pitch: -0.4,
        ..LegJoints::default()
    };
    let forward = sample(200_000, 1, |_| {
        black_box(sole_in_torso(Side::Left, black_box(&joints)));
        black_box(sole_in_torso(Side::Right, black_box(&joints)));
    });
    report(
        "2 × sole_in_torso (forward kinematics)",
        forward,
        Some(shared),
    );
    println!();
    println!(
        "×median: the tick rows and legs_inverse are relative to the first engine tick, the rows \
         below legs_inverse to it."
    );
}
