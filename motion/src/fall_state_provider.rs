//! The `FallStateProvider` (B-Human's `FallDownStateDetector`): upright, staggering, falling or
//! fallen, and which way, from the IMU.
//!
//! The tilt is the angle between the torso's z axis and the vertical, from the IMU's torso
//! angles (roll, pitch). The phase rises with the tilt (staggering, falling); *fallen* needs
//! the robot to lie still: tilted beyond `fallen_tilt_deg` by the IMU angles **and** by gravity
//! in the accelerometer, turning slower than `lying_still_rad_per_s`, for `fallen_confirm_ms`.
//! Going back towards upright needs the tilt `hysteresis_deg` below the threshold (and, after a
//! fall, for `upright_confirm_ms`), so the phase does not flicker at a threshold. The direction
//! is the larger of pitch (forward > 0) and roll (right > 0), taken from where gravity points in
//! the torso frame so that it survives the angles' flip past 90° (on its back an IMU reports
//! roll ±180°). Getting up (`motion/src/get_up.rs`) keeps the phase *fallen* until the robot
//! is upright again; `GettingUp` is not produced (`MotionInfo` says `GetUp` instead).

use framework::Update;
use serde::Deserialize;
use types::{FallDirection, FallPhase, FallState, SensorData};

/// Parameters (`FallStateProvider.toml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FallStateProviderParameters {
    /// Time between two ticks (LoLA frames), ms; 1 ..= 100.
    pub cycle_time_ms: f32,
    /// Tilt beyond which the robot staggers, degrees; above `hysteresis_deg`.
    pub staggering_tilt_deg: f32,
    /// Tilt beyond which it falls, degrees; above `staggering_tilt_deg`.
    pub falling_tilt_deg: f32,
    /// Tilt beyond which it may have fallen, degrees; from `falling_tilt_deg` to 90.
    pub fallen_tilt_deg: f32,
    /// How far below a threshold the tilt must be to go back towards upright, degrees; 0 ..= 45.
    pub hysteresis_deg: f32,
    /// Turning slower than this counts as lying still, rad/s; 0 ..= 100.
    pub lying_still_rad_per_s: f32,
    /// Lying still this long is fallen, ms; 0 ..= 10 000.
    pub fallen_confirm_ms: f32,
    /// Upright this long after a fall is upright again, ms; 0 ..= 10 000.
    pub upright_confirm_ms: f32,
}

impl config::Validate for FallStateProviderParameters {
    fn validate(&self) -> Result<(), config::Invalid> {
        use config::{in_range, ordered};
        in_range("cycle_time_ms", self.cycle_time_ms, 1.0..=100.0)?;
        in_range("hysteresis_deg", self.hysteresis_deg, 0.0..=45.0)?;
        in_range("staggering_tilt_deg", self.staggering_tilt_deg, 0.0..=90.0)?;
        in_range("falling_tilt_deg", self.falling_tilt_deg, 0.0..=90.0)?;
        in_range("fallen_tilt_deg", self.fallen_tilt_deg, 0.0..=90.0)?;
        ordered(
            ("hysteresis_deg", self.hysteresis_deg),
            ("staggering_tilt_deg", self.staggering_tilt_deg),
        )?;
        ordered(
            ("staggering_tilt_deg", self.staggering_tilt_deg),
            ("falling_tilt_deg", self.falling_tilt_deg),
        )?;
        if self.fallen_tilt_deg < self.falling_tilt_deg {
            return Err(config::Invalid::new(
                "fallen_tilt_deg",
                format!(
                    "expected at least `falling_tilt_deg` ({}), found {}",
                    self.falling_tilt_deg, self.fallen_tilt_deg
                ),
            ));
        }
        in_range(
            "lying_still_rad_per_s",
            self.lying_still_rad_per_s,
            0.0..=100.0,
        )?;
        in_range("fallen_confirm_ms", self.fallen_confirm_ms, 0.0..=10_000.0)?;
        in_range(
            "upright_confirm_ms",
            self.upright_confirm_ms,
            0.0..=10_000.0,
        )
    }
}

/// Detects falls; see the `fall_state_provider` module's documentation.
#[derive(Debug)]
pub struct FallStateProvider {
    parameters: FallStateProviderParameters,
    phase: FallPhase,
    /// How long the robot has been lying still (while falling), ms.
    lying_ms: f32,
    /// How long the robot has been upright again (while fallen), ms.
    upright_ms: f32,
}

framework::module! {
    FallStateProvider {
        inputs: FallStateProviderInputs,
        parameters: FallStateProviderParameters,
        requires: { sensor_data: SensorData },
        uses: {},
        provides: { FallState },
    }
}

/// What the IMU says in one tick.
#[derive(Debug, Clone, Copy)]
struct Tilt {
    /// From the IMU's torso angles, degrees.
    angles_deg: f32,
    /// From gravity in the accelerometer, degrees (0 when the accelerometer reads nothing).
    gravity_deg: f32,
    direction: FallDirection,
    turning_rad_per_s: f32,
}

impl Tilt {
    fn of(sensor_data: &SensorData) -> Tilt {
        let imu = &sensor_data.inertial_measurement;
        let (roll, pitch) = (imu.torso_angles_rad.x, imu.torso_angles_rad.y);
        let angles_deg = (roll.cos() * pitch.cos())
            .clamp(-1.0, 1.0)
            .acos()
            .to_degrees();
        let gravity = imu.accelerometer_m_per_s2;
        let gravity_deg = if gravity.norm() > 1.0 {
            gravity.xy().norm().atan2(gravity.z).to_degrees()
        } else {
            0.0
        };
        // Which way gravity pulls in the torso frame (x forward, y left): unlike the angles
        // themselves this does not flip when the torso pitches past 90° (lying on the back, an
        // IMU reports roll ±180° with pitch just short of -90°).
        let (gravity_forward, gravity_left) = (-pitch.sin(), roll.sin() * pitch.cos());
        let direction = if gravity_forward.abs() >= gravity_left.abs() {
            if gravity_forward < 0.0 {
                FallDirection::Forward
            } else {
                FallDirection::Backward
            }
        } else if gravity_left > 0.0 {
            FallDirection::Right
        } else {
            FallDirection::Left
        };
        Tilt {
            angles_deg: if angles_deg.is_nan() { 0.0 } else { angles_deg },
            gravity_deg,
            direction,
            turning_rad_per_s: imu.gyroscope_rad_per_s.norm(),
        }
    }
}

impl FallStateProvider {
    fn new(parameters: FallStateProviderParameters) -> Self {
        FallStateProvider {
            parameters,
            phase: FallPhase::Upright,
            lying_ms: 0.0,
            upright_ms: 0.0,
        }
    }

    /// The phase after a tick with `tilt`.
    fn next_phase(&mut self, tilt: Tilt) -> FallPhase {
        let p = &self.parameters;
        let below = |threshold: f32| tilt.angles_deg < threshold - p.hysteresis_deg;
        let lying = tilt.angles_deg >= p.fallen_tilt_deg
            && tilt.gravity_deg >= p.fallen_tilt_deg
            && tilt.turning_rad_per_s < p.lying_still_rad_per_s;
        self.lying_ms = if lying {
            self.lying_ms + p.cycle_time_ms
        } else {
            0.0
        };
        self.upright_ms = if below(p.staggering_tilt_deg) {
            self.upright_ms + p.cycle_time_ms
        } else {
            0.0
        };
        let rising = if tilt.angles_deg >= p.falling_tilt_deg {
            FallPhase::Falling
        } else if tilt.angles_deg >= p.staggering_tilt_deg {
            FallPhase::Staggering
        } else {
            FallPhase::Upright
        };
        match self.phase {
            FallPhase::Upright => rising,
            FallPhase::Staggering if rising == FallPhase::Falling => FallPhase::Falling,
            FallPhase::Staggering if below(p.staggering_tilt_deg) => FallPhase::Upright,
            FallPhase::Staggering => FallPhase::Staggering,
            FallPhase::Falling if lying && self.lying_ms >= p.fallen_confirm_ms => {
                FallPhase::Fallen
            }
            FallPhase::Falling if below(p.staggering_tilt_deg) => FallPhase::Upright,
            FallPhase::Falling if below(p.falling_tilt_deg) => FallPhase::Staggering,
            FallPhase::Falling => FallPhase::Falling,
            FallPhase::Fallen | FallPhase::GettingUp if self.upright_ms >= p.upright_confirm_ms => {
                FallPhase::Upright
            }
            FallPhase::Fallen | FallPhase::GettingUp => FallPhase::Fallen,
        }
    }
}

impl Update<FallState> for FallStateProvider {
    fn update(&mut self, inputs: &FallStateProviderInputs<'_>, fall_state: &mut FallState) {
        let tilt = Tilt::of(inputs.sensor_data);
        let phase = self.next_phase(tilt);
        if phase != self.phase || fall_state.phase_start_monotonic_ns == 0 {
            fall_state.phase_start_monotonic_ns = framework::clock::now_ns();
        }
        self.phase = phase;
        fall_state.phase = phase;
        fall_state.direction = match phase {
            FallPhase::Upright => FallDirection::None,
            _ => tilt.direction,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Vector2, Vector3};

    fn parameters() -> FallStateProviderParameters {
        toml::from_str(
            "cycle_time_ms = 12.0\nstaggering_tilt_deg = 20.0\nfalling_tilt_deg = 40.0\nfallen_tilt_deg = 60.0\n\
             hysteresis_deg = 5.0\nlying_still_rad_per_s = 0.5\nfallen_confirm_ms = 240.0\nupright_confirm_ms = 480.0\n",
        )
        .unwrap()
    }

    /// The IMU of a torso tilted by `roll_deg` (right > 0) or `pitch_deg` (forward > 0), with
    /// gravity in the accelerometer agreeing unless `gravity_agrees` is false.
    fn sensor(roll_deg: f32, pitch_deg: f32, turning: f32, gravity_agrees: bool) -> SensorData {
        let (roll, pitch) = (roll_deg.to_radians(), pitch_deg.to_radians());
        let mut sensor_data = SensorData::default();
        let imu = &mut sensor_data.inertial_measurement;
        imu.torso_angles_rad = Vector2::new(roll, pitch);
        imu.gyroscope_rad_per_s = Vector3::new(turning, 0.0, 0.0);
        imu.accelerometer_m_per_s2 = if gravity_agrees {
            Vector3::new(-pitch.sin(), roll.sin(), pitch.cos() * roll.cos()) * 9.81
        } else {
            Vector3::new(0.0, 0.0, 9.81)
        };
        sensor_data
    }

    /// Runs `ticks` ticks with `sensor_data` and returns the last state.
    fn run(
        provider: &mut FallStateProvider,
        state: &mut FallState,
        sensor_data: &SensorData,
        ticks: usize,
    ) {
        for _ in 0..ticks {
            let inputs = FallStateProviderInputs {
                sensor_data,
                _lifetime: std::marker::PhantomData,
            };
            provider.update(&inputs, state);
        }
    }

    #[test]
    fn a_forward_fall_staggers_falls_and_lies_after_the_confirmation_time() {
        let mut provider = FallStateProvider::new(parameters());
        let mut state = FallState::default();
        run(&mut provider, &mut state, &sensor(0.0, 3.0, 0.0, true), 5);
        assert_eq!(
            (state.phase, state.direction),
            (FallPhase::Upright, FallDirection::None)
        );
        assert_ne!(state.phase_start_monotonic_ns, 0);
        run(&mut provider, &mut state, &sensor(0.0, 25.0, 2.0, true), 1);
        assert_eq!(
            (state.phase, state.direction),
            (FallPhase::Staggering, FallDirection::Forward)
        );
        let staggering_since = state.phase_start_monotonic_ns;
        run(&mut provider, &mut state, &sensor(0.0, 50.0, 3.0, true), 1);
        assert_eq!(state.phase, FallPhase::Falling);
        assert!(state.phase_start_monotonic_ns >= staggering_since);
        // Lying still: fallen after 240 ms = 20 ticks, not before.
        run(&mut provider, &mut state, &sensor(0.0, 85.0, 0.1, true), 19);
        assert_eq!(state.phase, FallPhase::Falling);
        run(&mut provider, &mut state, &sensor(0.0, 85.0, 0.1, true), 1);
        assert_eq!(
            (state.phase, state.direction),
            (FallPhase::Fallen, FallDirection::Forward)
        );
        // Picked up: upright after 480 ms = 40 ticks below 15°.
        run(&mut provider, &mut state, &sensor(0.0, 5.0, 0.0, true), 39);
        assert_eq!(state.phase, FallPhase::Fallen);
        run(&mut provider, &mut state, &sensor(0.0, 5.0, 0.0, true), 1);
        assert_eq!(
            (state.phase, state.direction),
            (FallPhase::Upright, FallDirection::None)
        );
    }

    #[test]
    fn hysteresis_keeps_the_phase_near_a_threshold() {
        let mut provider = FallStateProvider::new(parameters());
        let mut state = FallState::default();
        run(&mut provider, &mut state, &sensor(21.0, 0.0, 0.0, true), 1);
        assert_eq!(
            (state.phase, state.direction),
            (FallPhase::Staggering, FallDirection::Right)
        );
        run(&mut provider, &mut state, &sensor(18.0, 0.0, 0.0, true), 10);
        assert_eq!(state.phase, FallPhase::Staggering);
        run(&mut provider, &mut state, &sensor(14.0, 0.0, 0.0, true), 1);
        assert_eq!(state.phase, FallPhase::Upright);
        run(&mut provider, &mut state, &sensor(-30.0, 0.0, 0.0, true), 1);
        assert_eq!(state.direction, FallDirection::Left);
        run(&mut provider, &mut state, &sensor(0.0, -45.0, 0.0, true), 1);
        assert_eq!(
            (state.phase, state.direction),
            (FallPhase::Falling, FallDirection::Backward)
        );
        run(&mut provider, &mut state, &sensor(0.0, -37.0, 0.0, true), 1);
        assert_eq!(state.phase, FallPhase::Falling);
        run(&mut provider, &mut state, &sensor(0.0, -30.0, 0.0, true), 1);
        assert_eq!(state.phase, FallPhase::Staggering);
    }

    #[test]
    fn fallen_needs_gravity_to_agree_and_the_robot_to_lie_still() {
        let mut provider = FallStateProvider::new(parameters());
        let mut state = FallState::default();
        run(
            &mut provider,
            &mut state,
            &sensor(0.0, -80.0, 0.0, false),
            100,
        );
        assert_eq!(state.phase, FallPhase::Falling);
        run(
            &mut provider,
            &mut state,
            &sensor(0.0, -80.0, 2.0, true),
            100,
        );
        assert_eq!(state.phase, FallPhase::Falling);
        run(
            &mut provider,
            &mut state,
            &sensor(0.0, -80.0, 0.0, true),
            20,
        );
        assert_eq!(
            (state.phase, state.direction),
            (FallPhase::Fallen, FallDirection::Backward)
        );
    }

    #[test]
    fn lying_on_the_back_is_backward_also_when_the_imu_reports_roll_180() {
        for (roll_deg, pitch_deg, expected) in [
            (180.0, -88.0, FallDirection::Backward),
            (-180.0, -85.0, FallDirection::Backward),
            (0.0, -88.0, FallDirection::Backward),
            (180.0, 88.0, FallDirection::Forward),
            (0.0, 85.0, FallDirection::Forward),
            (-85.0, 5.0, FallDirection::Left),
            (95.0, -5.0, FallDirection::Right),
        ] {
            let mut provider = FallStateProvider::new(parameters());
            let mut state = FallState::default();
            run(
                &mut provider,
                &mut state,
                &sensor(roll_deg, pitch_deg, 0.0, true),
                30,
            );
            assert_eq!(
                (state.phase, state.direction),
                (FallPhase::Fallen, expected),
                "roll {roll_deg}°, pitch {pitch_deg}°"
            );
        }
    }

    #[test]
    fn thresholds_out_of_order_and_values_out_of_range_are_rejected() {
        use config::Validate;
        let mut bad = parameters();
        bad.staggering_tilt_deg = 50.0;
        let error = bad.validate().unwrap_err();
        assert_eq!(error.key, "falling_tilt_deg");
        assert!(
            error.message.contains("`staggering_tilt_deg` (50)"),
            "{error}"
        );
        let mut bad = parameters();
        bad.lying_still_rad_per_s = f32::NAN;
        assert_eq!(bad.validate().unwrap_err().key, "lying_still_rad_per_s");
        let mut bad = parameters();
        bad.cycle_time_ms = 0.0;
        assert_eq!(bad.validate().unwrap_err().key, "cycle_time_ms");
        assert!(parameters().validate().is_ok());
    }
}
