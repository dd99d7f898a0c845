//! The walk of the motion process: the `walking` crate's engine as the `MotionCombinator` runs
//! it (B-Human's `WalkingEngine` behind its `MotionSelector`).
//!
//! - `MotionRequest::Walk` (speeds), `WalkTo` (a pose relative to the robot, through the
//!   engine's step planner) and `Kick` (one kick step of the walk) become a [`WalkRequest`];
//!   anything else asks the engine to stop.
//! - The walk starts from the pose the robot is in (the last command, or the measured pose
//!   after a restart of motion or a new pose epoch): for the engine's start duration its
//!   targets are blended in from that pose, so no joint jumps.
//! - [`Walk::odometry`] accumulates the engine's odometry deltas for the `OdometryData`
//!   representation, with the turn from the gyroscope while walking (feet slip; a perturbed
//!   robot drifts off its heading); it survives a restart of the walk (not of the process).
//!
//! Parameters: `WalkingEngine.toml` ([`WalkingEngineParameters`], range-checked), loaded with the
//! combinator's parameters.

use std::time::Duration;

use nalgebra::{Isometry2, Vector2};
use types::{BodyMotion, JointId, Joints, OdometryData, SensorData};
use walking::{RelativeTarget, WalkRequest, WalkState, WalkingEngine, WalkingSensors};

pub use walking::WalkingEngineParameters;

/// The walk request for `body`: stand (stop) for anything that is not a walk.
pub fn walk_request(body: &BodyMotion) -> WalkRequest {
    let finite = |value: f32| {
        if value.is_finite() {
            f64::from(value)
        } else {
            0.0
        }
    };
    match body {
        BodyMotion::Walk {
            forward_m_per_s,
            left_m_per_s,
            turn_rad_per_s,
        } => WalkRequest::Walk {
            forward_m_per_s: finite(*forward_m_per_s),
            left_m_per_s: finite(*left_m_per_s),
            turn_rad_per_s: finite(*turn_rad_per_s),
        },
        BodyMotion::WalkTo {
            forward_m,
            left_m,
            turn_rad,
        } => WalkRequest::WalkTo {
            target: RelativeTarget {
                forward_m: finite(*forward_m),
                left_m: finite(*left_m),
                turn_rad: finite(*turn_rad),
            },
        },
        BodyMotion::Kick {
            foot,
            direction_rad,
            strength,
        } => WalkRequest::Kick {
            foot: match foot {
                types::Side::Left => walking::Side::Left,
                types::Side::Right => walking::Side::Right,
            },
            direction_rad: finite(*direction_rad),
            strength: finite(*strength),
        },
        _ => WalkRequest::Stand,
    }
}

/// One tick's sensor values in the engine's form (LoLA's orders).
pub fn walking_sensors(sensor_data: &SensorData, cycle_time: Duration) -> WalkingSensors {
    let fsr = &sensor_data.force_sensitive_resistors;
    let imu = &sensor_data.inertial_measurement;
    WalkingSensors {
        force_sensitive_resistors_kg: [
            fsr.left_foot.front_left_kg,
            fsr.left_foot.front_right_kg,
            fsr.left_foot.rear_left_kg,
            fsr.left_foot.rear_right_kg,
            fsr.right_foot.front_left_kg,
            fsr.right_foot.front_right_kg,
            fsr.right_foot.rear_left_kg,
            fsr.right_foot.rear_right_kg,
        ],
        gyroscope_rad_per_s: [
            imu.gyroscope_rad_per_s.x,
            imu.gyroscope_rad_per_s.y,
            imu.gyroscope_rad_per_s.z,
        ],
        torso_angles_rad: [imu.torso_angles_rad.x, imu.torso_angles_rad.y],
        joint_positions_rad: sensor_data.joint_positions_rad.values,
        cycle_time,
    }
}

/// The blend into a walk resumed from measured feet, s (three ticks): the engine's first targets
/// are the measured legs but for the hip height, the sway and the arms, so the blend only has
/// those to smooth. A longer one mixes a pose that stands still (the one the bridge held while
/// motion was frozen) with a walk that moves on: the swing foot lags its step, then catches up
/// low over the ground and fast, and scuffs or lands sliding, which turns the robot
/// (docs/performance.md, "Warm standby failover": with 0.1 s the robot turned 0.048 rad in the
/// median of 25 freezes, with 0.25 s 0.100 rad and twice about 0.5; with 36 ms 0.027 in 35).
const RESUME_BLEND_S: f64 = 0.036;

/// A resumed walk's blend is longer when the engine's first targets are far from the measured
/// legs (a foot higher than the walk lifts one, hips lower than its own): no leg joint is led
/// to them faster than this on average, rad/s. After a freeze they were 0.02–0.11 rad away:
/// three ticks (at 2 rad/s the blend took up to 53 ms there, and turned the robot more).
const RESUME_BLEND_RAD_PER_S: f64 = 4.0;

/// The blend into a walk started from a stand pose, s: the engine's start.
fn start_blend_s(parameters: &WalkingEngineParameters) -> f64 {
    parameters.start_duration_s.max(0.1)
}

/// A joint of the legs (the hip yaw-pitch to the right ankle roll, LoLA's order).
pub(crate) fn is_leg(joint: JointId) -> bool {
    (JointId::LeftHipYawPitch.index()..=JointId::RightAnkleRoll.index()).contains(&joint.index())
}

/// One tick of the walk.
#[derive(Debug, Clone, PartialEq)]
pub struct WalkCommand {
    pub positions: Joints<f32>,
    pub stiffnesses: Joints<f32>,
    pub state: WalkState,
}

/// The walking engine with its start blend and odometry; see the [module documentation](self).
#[derive(Debug, Clone)]
pub struct Walk {
    engine: WalkingEngine,
    /// The pose the walk started from and the time since.
    blend_from: Option<(Joints<f32>, Joints<f32>)>,
    blend_elapsed_s: f64,
    /// How long the blend from the start pose takes.
    blend_duration_s: f64,
    /// A resumed walk: the blend's duration is set at its first tick, from how far the engine's
    /// first targets are from the legs.
    blend_from_resume: bool,
    odometry: Isometry2<f64>,
    /// Torso tilt and gyroscope as the engine sees them, the step adjustment's capture point and
    /// shift, plotted only while subscribed.
    plot: framework::debug_output::DebugOutput,
}

impl Walk {
    /// A walk standing still. `parameters` must have passed `config::Validate`.
    pub fn new(parameters: WalkingEngineParameters) -> Walk {
        Walk {
            blend_duration_s: start_blend_s(&parameters),
            engine: WalkingEngine::new(parameters),
            blend_from: None,
            blend_elapsed_s: 0.0,
            blend_from_resume: false,
            odometry: Isometry2::identity(),
            plot: framework::debug_output::DebugOutput::plot("WalkingEngine.balance"),
        }
    }

    pub fn parameters(&self) -> &WalkingEngineParameters {
        self.engine.parameters()
    }

    /// New parameters while the robot runs: the step being walked goes on with them.
    pub fn retune(&mut self, parameters: WalkingEngineParameters) {
        self.engine.set_parameters(parameters);
    }

    /// Starts the walk from `positions` with `stiffnesses`, the engine's targets blended in from
    /// there: anew (standing) from a stand pose, or, from legs in a step (a motion restarted or
    /// taken over mid-walk), walking on from the feet those legs put down
    /// ([`WalkingEngine::resume`]).
    pub fn begin(&mut self, positions: Joints<f32>, stiffnesses: Joints<f32>) {
        let parameters = self.engine.parameters().clone();
        let lola = positions.values;
        let left = walking::joints::leg_from_lola(&lola, walking::joints::LEFT_LEG);
        let right = walking::joints::leg_from_lola(&lola, walking::joints::RIGHT_LEG);
        match WalkingEngine::resume(parameters.clone(), [&left, &right]) {
            Some(engine) => {
                tracing::info!("the legs are in a step: the walk goes on from the measured feet");
                self.engine = engine;
                self.blend_duration_s = RESUME_BLEND_S;
                self.blend_from_resume = true;
            }
            None => {
                self.blend_duration_s = start_blend_s(&parameters);
                self.blend_from_resume = false;
                self.engine = WalkingEngine::new(parameters);
            }
        }
        self.blend_from = Some((positions, stiffnesses));
        self.blend_elapsed_s = 0.0;
    }

    pub fn state(&self) -> WalkState {
        self.engine.state()
    }

    /// The engine inside (its step adjustment, for tests and plots).
    pub fn engine(&self) -> &WalkingEngine {
        &self.engine
    }

    /// Where the robot has walked since the process started.
    pub fn odometry(&self) -> OdometryData {
        OdometryData {
            translation_m: Vector2::new(
                self.odometry.translation.x as f32,
                self.odometry.translation.y as f32,
            ),
            rotation_rad: self.odometry.rotation.angle() as f32,
        }
    }

    /// One tick: the engine advanced by `sensors.cycle_time`, blended from the start pose.
    pub fn step(&mut self, request: &WalkRequest, sensors: &WalkingSensors) -> WalkCommand {
        let output = self.engine.tick(request, sensors);
        let adjustment = self.engine.step_adjustment();
        self.plot.plot_values(&[
            ("torso_roll_rad", f64::from(sensors.torso_angles_rad[0])),
            ("torso_pitch_rad", f64::from(sensors.torso_angles_rad[1])),
            (
                "gyro_x_rad_per_s",
                f64::from(sensors.gyroscope_rad_per_s[0]),
            ),
            (
                "gyro_y_rad_per_s",
                f64::from(sensors.gyroscope_rad_per_s[1]),
            ),
            ("capture_point_forward_m", adjustment.capture.forward_m),
            ("capture_point_left_m", adjustment.capture.left_m),
            ("step_shift_forward_m", adjustment.shift.forward_m),
            ("step_shift_left_m", adjustment.shift.left_m),
        ]);
        let mut delta = output.odometry_delta;
        let yaw_rate = f64::from(sensors.gyroscope_rad_per_s[2]);
        if output.state != WalkState::Standing && yaw_rate.is_finite() {
            // The turn from the gyroscope: a foot that slips or a robot pushed round turns the
            // torso, not the plan (a standing robot adds no gyro drift).
            delta.turn_rad = yaw_rate * sensors.cycle_time.as_secs_f64();
        }
        self.odometry *= delta.to_isometry();
        let mut positions = Joints::from_lola_order(output.positions_rad);
        let mut stiffnesses = Joints::from_lola_order(output.stiffnesses);
        if let Some((from_positions, from_stiffnesses)) = &self.blend_from {
            if std::mem::take(&mut self.blend_from_resume) {
                let farthest_rad = JointId::ALL
                    .into_iter()
                    .filter(|joint| is_leg(*joint) && from_positions[*joint].is_finite())
                    .map(|joint| f64::from((positions[joint] - from_positions[joint]).abs()))
                    .fold(0.0, f64::max);
                self.blend_duration_s = RESUME_BLEND_S.max(farthest_rad / RESUME_BLEND_RAD_PER_S);
            }
            self.blend_elapsed_s += sensors.cycle_time.as_secs_f64();
            let fraction =
                walking::smooth((self.blend_elapsed_s / self.blend_duration_s).clamp(0.0, 1.0))
                    as f32;
            for joint in JointId::ALL {
                let from = from_positions[joint];
                if from.is_finite() {
                    positions[joint] = from + (positions[joint] - from) * fraction;
                }
                let from = from_stiffnesses[joint].clamp(0.0, 1.0);
                if from.is_finite() {
                    stiffnesses[joint] = from + (stiffnesses[joint] - from) * fraction;
                }
            }
            if fraction >= 1.0 {
                self.blend_from = None;
            }
        }
        WalkCommand {
            positions,
            stiffnesses,
            state: output.state,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forward() -> BodyMotion {
        BodyMotion::Walk {
            forward_m_per_s: 0.2,
            left_m_per_s: 0.0,
            turn_rad_per_s: 0.0,
        }
    }

    #[test]
    fn requests_become_walk_requests_and_nan_speeds_are_zero() {
        assert_eq!(walk_request(&BodyMotion::Stand), WalkRequest::Stand);
        assert_eq!(
            walk_request(&BodyMotion::Walk {
                forward_m_per_s: f32::NAN,
                left_m_per_s: 0.1,
                turn_rad_per_s: f32::INFINITY,
            }),
            WalkRequest::Walk {
                forward_m_per_s: 0.0,
                left_m_per_s: f64::from(0.1f32),
                turn_rad_per_s: 0.0,
            }
        );
        assert!(matches!(
            walk_request(&BodyMotion::WalkTo {
                forward_m: 1.0,
                left_m: 0.0,
                turn_rad: 0.0
            }),
            WalkRequest::WalkTo { target } if target.forward_m == 1.0
        ));
    }

    #[test]
    fn the_walk_starts_from_the_given_pose_without_a_jump_and_counts_odometry() {
        let mut walk = Walk::new(WalkingEngineParameters::default());
        let start = Joints::filled(0.3f32);
        walk.begin(start, Joints::filled(0.5));
        let mut sensor_data = SensorData::default();
        for foot in [
            &mut sensor_data.force_sensitive_resistors.left_foot,
            &mut sensor_data.force_sensitive_resistors.right_foot,
        ] {
            foot.front_left_kg = 0.7;
            foot.front_right_kg = 0.7;
            foot.rear_left_kg = 0.7;
            foot.rear_right_kg = 0.7;
        }
        let sensors = walking_sensors(&sensor_data, Duration::from_millis(12));
        let request = walk_request(&forward());
        let first = walk.step(&request, &sensors);
        let mut previous = first.positions;
        for joint in JointId::ALL {
            assert!(
                (first.positions[joint] - 0.3).abs() < 0.05,
                "{joint:?} jumped to {}",
                first.positions[joint]
            );
        }
        for _ in 0..400 {
            let command = walk.step(&request, &sensors);
            for joint in JointId::ALL {
                assert!(
                    (command.positions[joint] - previous[joint]).abs() < 0.15,
                    "{joint:?} jumped from {} to {}",
                    previous[joint],
                    command.positions[joint]
                );
            }
            previous = command.positions;
        }
        assert_eq!(walk.state(), WalkState::Walking);
        let odometry = walk.odometry();
        assert!(odometry.translation_m.x > 0.3, "{odometry:?}");
        // A new start from the legs mid-walk (a restarted process) walks on and keeps the
        // odometry.
        walk.begin(previous, Joints::filled(0.5));
        assert_eq!(walk.state(), WalkState::Walking);
        assert_eq!(walk.odometry(), odometry);
        let first = walk.step(&request, &sensors);
        for joint in JointId::ALL {
            assert!(
                (first.positions[joint] - previous[joint]).abs() < 0.05,
                "{joint:?} jumped from {} to {} on the resume",
                previous[joint],
                first.positions[joint]
            );
        }
    }
}
