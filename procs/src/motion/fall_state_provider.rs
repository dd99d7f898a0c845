//! The `FallStateProvider` (B-Human's `FallDownStateDetector`): upright, staggering, falling or
//! fallen, and which way, from the IMU.
//!
//! The tilt is the angle between the torso's z axis and the vertical, from the IMU's torso
//! angles (roll, pitch). The phase rises with the tilt (staggering, falling); *fallen* needs
//! the robot to lie still: tilted beyond `fallen_tilt_deg` by the IMU angles **and** by gravity
//! in the accelerometer, turning slower than `lying_still_rad_per_s`, for `fallen_confirm_ms`.
//! Going back towards upright needs the tilt `hysteresis_deg` below the threshold (and, after a
//! fall, for `upright_confirm_ms`), so the phase does not flicker at a threshold. The direction
//! is the larger of pitch (forward > 0) and roll (right > 0). `GettingUp` is not produced
//! until a get-up motion exists.

use crate::framework::Update;
use crate::representations::{FallDirection, FallPhase, FallState, SensorData};
use serde::Deserialize;

/// Parameters (`FallStateProvider.toml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, try_from = "RawParameters")]
pub struct FallStateProviderParameters {
    pub cycle_time_ms: f32,
    pub staggering_tilt_deg: f32,
    pub falling_tilt_deg: f32,
    pub fallen_tilt_deg: f32,
    pub hysteresis_deg: f32,
    pub lying_still_rad_per_s: f32,
    pub fallen_confirm_ms: f32,
    pub upright_confirm_ms: f32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawParameters {
    cycle_time_ms: f32,
    staggering_tilt_deg: f32,
    falling_tilt_deg: f32,
    fallen_tilt_deg: f32,
    hysteresis_deg: f32,
    lying_still_rad_per_s: f32,
    fallen_confirm_ms: f32,
    upright_confirm_ms: f32,
}

impl TryFrom<RawParameters> for FallStateProviderParameters {
    type Error = String;

    fn try_from(raw: RawParameters) -> Result<Self, String> {
        let ordered = 0.0 < raw.staggering_tilt_deg
            && raw.staggering_tilt_deg < raw.falling_tilt_deg
            && raw.falling_tilt_deg <= raw.fallen_tilt_deg
            && raw.fallen_tilt_deg < 90.0;
        if !ordered {
            return Err(format!(
                "expected 0 < staggering_tilt_deg ({}) < falling_tilt_deg ({}) <= fallen_tilt_deg ({}) < 90",
                raw.staggering_tilt_deg, raw.falling_tilt_deg, raw.fallen_tilt_deg
            ));
        }
        let non_negative = [
            ("hysteresis_deg", raw.hysteresis_deg),
            ("lying_still_rad_per_s", raw.lying_still_rad_per_s),
            ("fallen_confirm_ms", raw.fallen_confirm_ms),
            ("upright_confirm_ms", raw.upright_confirm_ms),
        ];
        if let Some((key, value)) = non_negative
            .iter()
            .find(|(_, value)| value.is_nan() || *value < 0.0)
        {
            return Err(format!("{key} = {value}: expected a number >= 0"));
        }
        if raw.cycle_time_ms.is_nan()
            || raw.cycle_time_ms <= 0.0
            || raw.hysteresis_deg >= raw.staggering_tilt_deg
        {
            return Err(format!(
                "expected cycle_time_ms ({}) > 0 and hysteresis_deg ({}) < staggering_tilt_deg",
                raw.cycle_time_ms, raw.hysteresis_deg
            ));
        }
        Ok(FallStateProviderParameters {
            cycle_time_ms: raw.cycle_time_ms,
            staggering_tilt_deg: raw.staggering_tilt_deg,
            falling_tilt_deg: raw.falling_tilt_deg,
            fallen_tilt_deg: raw.fallen_tilt_deg,
            hysteresis_deg: raw.hysteresis_deg,
            lying_still_rad_per_s: raw.lying_still_rad_per_s,
            fallen_confirm_ms: raw.fallen_confirm_ms,
            upright_confirm_ms: raw.upright_confirm_ms,
        })
    }
}

/// Detects falls; see the [module documentation](self).
#[derive(Debug)]
pub struct FallStateProvider {
    parameters: FallStateProviderParameters,
    phase: FallPhase,
    /// How long the robot has been lying still (while falling), ms.
    lying_ms: f32,
    /// How long the robot has been upright again (while fallen), ms.
    upright_ms: f32,
}

crate::module! {
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
        let direction = if pitch.abs() >= roll.abs() {
            if pitch > 0.0 {
                FallDirection::Forward
            } else {
                FallDirection::Backward
            }
        } else if roll > 0.0 {
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
            fall_state.phase_start_monotonic_ns = ipc::health::monotonic_ns();
        }
        self.phase = phase;
        fall_state.phase = phase;
        fall_state.direction = match phase {
            FallPhase::Upright => FallDirection::None,
            _ => tilt.direction,
        };
    }
}
