//! The body the LoLA simulator pretends to be: joints that follow commands, sag when limp,
//! heat with current, and an upright torso on two loaded feet.
//!
//! The model is deliberately simple — enough for a bridge, motion and behaviour to see plausible
//! numbers — and every constant is here, named:
//!
//! - a joint with stiffness `s` above [`LIMP_STIFFNESS`] moves toward its target at most
//!   `max_joint_speed · s` rad/s; a limp joint sags toward the rest (sitting) pose at the sag
//!   speed, as a real NAO folds into a crouch when its motors let go;
//! - current ∝ stiffness and position error; temperature rises with current² and cools toward
//!   [`AMBIENT_CELSIUS`];
//! - the torso stays upright: LoLA's accelerometer reads (0, 0, −9.81), gyroscope and angles 0;
//! - the robot's weight ([`ROBOT_MASS_KG`]) rests on the feet when the knees are straight enough
//!   to stand, and mostly on the bottom when sitting.

use std::time::Duration;

use nalgebra::{Vector2, Vector3};

use lola::codec::Command;
use types::{
    BatteryState, FootPressure, ForceSensitiveResistors, InertialMeasurement, JointId,
    JointTemperatureStatus, Joints, SensorData, SonarReadings, TouchSensors,
};

/// Stiffness below which a joint is treated as limp.
pub const LIMP_STIFFNESS: f32 = 0.05;
/// Motor temperature the body starts at and cools toward, °C.
pub const AMBIENT_CELSIUS: f32 = 30.0;
/// Mass of a NAO v6, kg.
pub const ROBOT_MASS_KG: f32 = 5.3;
/// Standard gravity, m/s².
pub const GRAVITY_M_PER_S2: f32 = 9.81;

/// Temperature rise per second per A² of motor current, °C.
const HEATING_CELSIUS_PER_SECOND_PER_AMPERE_SQUARED: f32 = 0.5;
/// Fraction of the difference to ambient lost per second.
const COOLING_PER_SECOND: f32 = 0.01;

/// A crouched sitting pose (LoLA order), close to what NaoTH's real packet shows for a limp NAO.
pub const SITTING_POSE_RAD: Joints<f32> = Joints::from_lola_order([
    0.0, 0.5, // head
    0.9, 0.1, -1.4, -0.05, 0.0, // left arm
    0.0, 0.0, -1.4, 2.12, -1.2, 0.0, // left leg
    0.0, -1.4, 2.12, -1.2, 0.0, // right leg
    0.9, -0.1, 1.4, 0.05, 0.0, // right arm
    0.0, 0.0, // hands
]);

/// The state of the simulated body.
#[derive(Debug, Clone)]
pub struct SimulatedBody {
    pub positions_rad: Joints<f32>,
    pub temperatures_celsius: Joints<f32>,
    pub currents_ampere: Joints<f32>,
    /// The actuator state: the merge of every command received (LoLA keeps a key's last value).
    pub actuators: Command,
    pub rest_pose_rad: Joints<f32>,
    pub max_joint_speed_rad_per_s: f32,
    pub sag_speed_rad_per_s: f32,
}

impl SimulatedBody {
    /// A limp body sitting in `rest_pose_rad`.
    pub fn new(
        rest_pose_rad: Joints<f32>,
        max_joint_speed_rad_per_s: f32,
        sag_speed_rad_per_s: f32,
    ) -> Self {
        Self {
            positions_rad: rest_pose_rad,
            temperatures_celsius: Joints::filled(AMBIENT_CELSIUS),
            currents_ampere: Joints::filled(0.0),
            actuators: Command::default(),
            rest_pose_rad,
            max_joint_speed_rad_per_s,
            sag_speed_rad_per_s,
        }
    }

    /// Stiffness currently applied (commanded, clamped to 0..1; 0 before any command).
    pub fn stiffnesses(&self) -> Joints<f32> {
        self.actuators
            .stiffnesses
            .unwrap_or_default()
            .map(|stiffness| stiffness.clamp(0.0, 1.0))
    }

    /// Applies one command (only the keys it carries).
    pub fn apply(&mut self, command: &Command) {
        self.actuators = self.actuators.merged_with(command);
    }

    /// Advances the body by `step`.
    pub fn step(&mut self, step: Duration) {
        let seconds = step.as_secs_f32();
        let stiffnesses = self.stiffnesses();
        let targets = self.actuators.positions_rad.unwrap_or(self.rest_pose_rad);
        for joint in JointId::ALL {
            let stiffness = stiffnesses[joint];
            let (target, speed) = if stiffness > LIMP_STIFFNESS {
                let target = match joint {
                    JointId::LeftHand | JointId::RightHand => targets[joint].clamp(0.0, 1.0),
                    _ => targets[joint],
                };
                (target, self.max_joint_speed_rad_per_s * stiffness)
            } else {
                (self.rest_pose_rad[joint], self.sag_speed_rad_per_s)
            };
            let largest_move = speed * seconds;
            let position = &mut self.positions_rad[joint];
            *position += (target - *position).clamp(-largest_move, largest_move);
            let error = (target - *position).abs();
            let current = if stiffness > LIMP_STIFFNESS {
                stiffness * (0.1 + 2.0 * error).min(1.5)
            } else {
                0.0
            };
            self.currents_ampere[joint] = current;
            let temperature = &mut self.temperatures_celsius[joint];
            *temperature += (HEATING_CELSIUS_PER_SECOND_PER_AMPERE_SQUARED * current * current
                - COOLING_PER_SECOND * (*temperature - AMBIENT_CELSIUS))
                * seconds;
        }
    }

    /// Share of the robot's weight on its feet: 1 with knees straighter than 1.2 rad, 0.25 when
    /// sitting (knees beyond 2.0 rad), linear in between.
    fn weight_on_feet_fraction(&self) -> f32 {
        let knees = (self.positions_rad[JointId::LeftKneePitch]
            + self.positions_rad[JointId::RightKneePitch])
            / 2.0;
        let bent = ((knees - 1.2) / 0.8).clamp(0.0, 1.0);
        1.0 - 0.75 * bent
    }

    /// The sensor values of this body (in the representation's conventions: accelerometer up).
    pub fn sensor_data(
        &self,
        touch: TouchSensors,
        battery: BatteryState,
        sonar: SonarReadings,
    ) -> SensorData {
        let per_sensor_kg = ROBOT_MASS_KG * self.weight_on_feet_fraction() / 8.0;
        let foot = FootPressure {
            front_left_kg: per_sensor_kg,
            front_right_kg: per_sensor_kg,
            rear_left_kg: per_sensor_kg,
            rear_right_kg: per_sensor_kg,
        };
        SensorData {
            joint_positions_rad: self.positions_rad,
            joint_stiffnesses: self.stiffnesses(),
            joint_currents_ampere: self.currents_ampere,
            joint_temperatures_celsius: self.temperatures_celsius,
            joint_temperature_statuses: self
                .temperatures_celsius
                .map(|temperature| temperature_status(*temperature)),
            inertial_measurement: InertialMeasurement {
                accelerometer_m_per_s2: Vector3::new(0.0, 0.0, GRAVITY_M_PER_S2),
                gyroscope_rad_per_s: Vector3::zeros(),
                torso_angles_rad: Vector2::zeros(),
            },
            force_sensitive_resistors: ForceSensitiveResistors {
                left_foot: foot.clone(),
                right_foot: foot,
            },
            touch,
            battery,
            sonar,
            pose_epoch: 0,
        }
    }
}

/// The simulator's temperature thresholds for LoLA's `Status`.
fn temperature_status(temperature_celsius: f32) -> JointTemperatureStatus {
    match temperature_celsius {
        t if t >= 95.0 => JointTemperatureStatus::Critical,
        t if t >= 85.0 => JointTemperatureStatus::VeryHot,
        t if t >= 75.0 => JointTemperatureStatus::Hot,
        _ => JointTemperatureStatus::Normal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use types::JointRequest;

    const STEP: Duration = Duration::from_millis(12);

    fn stand_request(stiffness: f32) -> Command {
        Command::joints(&JointRequest {
            positions_rad: Joints::filled(0.0),
            stiffnesses: Joints::filled(stiffness),
            ..Default::default()
        })
    }

    #[test]
    fn stiff_joints_reach_their_target_at_bounded_speed() {
        let mut body = SimulatedBody::new(SITTING_POSE_RAD, 5.0, 1.0);
        body.apply(&stand_request(1.0));
        body.step(STEP);
        // Knee from 2.12 rad, at most 5 rad/s · 12 ms = 0.06 rad per step.
        assert!((body.positions_rad[JointId::LeftKneePitch] - 2.06).abs() < 1e-5);
        for _ in 0..100 {
            body.step(STEP);
        }
        assert!(body
            .positions_rad
            .values
            .iter()
            .all(|position| position.abs() < 1e-5));
        let data = body.sensor_data(
            TouchSensors::default(),
            BatteryState::default(),
            SonarReadings::default(),
        );
        assert!(
            (data.force_sensitive_resistors.left_foot.total_kg() - ROBOT_MASS_KG / 2.0).abs()
                < 1e-4
        );
        assert_eq!(data.joint_stiffnesses[JointId::HeadYaw], 1.0);
    }

    #[test]
    fn half_stiffness_moves_at_half_speed() {
        let mut body = SimulatedBody::new(SITTING_POSE_RAD, 5.0, 1.0);
        body.apply(&stand_request(0.5));
        body.step(STEP);
        assert!((body.positions_rad[JointId::LeftKneePitch] - 2.09).abs() < 1e-5);
    }

    #[test]
    fn limp_joints_sag_to_the_rest_pose_and_heat_only_when_stiff() {
        let mut body = SimulatedBody::new(SITTING_POSE_RAD, 5.0, 1.0);
        body.positions_rad = Joints::filled(0.0);
        body.apply(&stand_request(0.0));
        for _ in 0..300 {
            body.step(STEP);
        }
        assert_eq!(body.positions_rad, SITTING_POSE_RAD);
        assert!(body
            .temperatures_celsius
            .values
            .iter()
            .all(|temperature| *temperature == AMBIENT_CELSIUS));
        let data = body.sensor_data(
            TouchSensors::default(),
            BatteryState::default(),
            SonarReadings::default(),
        );
        assert!(data.force_sensitive_resistors.left_foot.total_kg() < ROBOT_MASS_KG / 4.0);
        body.apply(&stand_request(1.0));
        body.step(STEP);
        assert!(body.temperatures_celsius[JointId::LeftKneePitch] > AMBIENT_CELSIUS);
    }

    #[test]
    fn partial_commands_keep_earlier_keys() {
        let mut body = SimulatedBody::new(SITTING_POSE_RAD, 5.0, 1.0);
        body.apply(&stand_request(0.7));
        body.apply(&Command {
            chest: Some(types::Rgb::RED),
            ..Default::default()
        });
        assert_eq!(body.stiffnesses()[JointId::HeadYaw], 0.7);
        assert_eq!(body.actuators.chest, Some(types::Rgb::RED));
    }

    #[test]
    fn temperature_statuses_follow_thresholds() {
        assert_eq!(temperature_status(40.0), JointTemperatureStatus::Normal);
        assert_eq!(temperature_status(80.0), JointTemperatureStatus::Hot);
        assert_eq!(temperature_status(90.0), JointTemperatureStatus::VeryHot);
        assert_eq!(temperature_status(100.0), JointTemperatureStatus::Critical);
    }
}
