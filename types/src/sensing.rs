//! What the body reports every LoLA frame: [`SensorData`], and who the body is: [`RobotIdentity`].
//!
//! Frames: vectors are in the **torso frame** — x forward, y to the robot's left, z up — unless a
//! field says otherwise.

use nalgebra::{Vector2, Vector3};
use serde::{Deserialize, Serialize};

use super::joints::Joints;

/// The body and head of this robot, as LoLA's `RobotConfig` names them in every frame.
///
/// The body serial selects the robot's configuration ("binding").
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RobotIdentity {
    /// Body serial number, 20 characters, e.g. `P0000073A07S94700012`.
    pub body_id: String,
    /// Body version, e.g. `6.0.0`.
    pub body_version: String,
    /// Full head serial number, 20 characters.
    pub head_id: String,
    /// Head version, e.g. `6.0.0`.
    pub head_version: String,
}

/// Temperature state LoLA reports per joint (`Status`, 0..3).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum JointTemperatureStatus {
    /// 0: the motor is at a normal temperature.
    #[default]
    Normal,
    /// 1: hot; the motor's power is being limited.
    Hot,
    /// 2: very hot; stiffness is reduced a lot.
    VeryHot,
    /// 3: critical; the motor is switched off.
    Critical,
}

impl JointTemperatureStatus {
    /// The status for LoLA's integer, or `None` outside 0..=3.
    pub const fn from_lola(value: i64) -> Option<Self> {
        match value {
            0 => Some(Self::Normal),
            1 => Some(Self::Hot),
            2 => Some(Self::VeryHot),
            3 => Some(Self::Critical),
            _ => None,
        }
    }

    /// LoLA's integer for this status.
    pub const fn to_lola(self) -> u8 {
        self as u8
    }
}

/// Inertial measurement unit in the torso.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct InertialMeasurement {
    /// Linear acceleration in m/s², torso frame, **upright robot ≈ (0, 0, +9.81)**.
    ///
    /// LoLA sends the opposite sign (upright ≈ (0, 0, −9.81)); the codec negates it, as B-Human
    /// (`acc *= -1`) and HULKs do, so that this vector points away from the ground.
    pub accelerometer_m_per_s2: Vector3<f32>,
    /// Angular velocity about the torso's x, y, z axes, rad/s.
    pub gyroscope_rad_per_s: Vector3<f32>,
    /// Torso orientation estimated by the IMU board: x = roll, y = pitch, rad.
    pub torso_angles_rad: Vector2<f32>,
}

/// The four force sensitive resistors under one foot, in kilograms.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FootPressure {
    pub front_left_kg: f32,
    pub front_right_kg: f32,
    pub rear_left_kg: f32,
    pub rear_right_kg: f32,
}

impl FootPressure {
    /// Sum of the four sensors, kg.
    pub fn total_kg(&self) -> f32 {
        self.front_left_kg + self.front_right_kg + self.rear_left_kg + self.rear_right_kg
    }
}

/// LoLA's `FSR`: 8 values, left foot then right foot.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ForceSensitiveResistors {
    pub left_foot: FootPressure,
    pub right_foot: FootPressure,
}

/// LoLA's `Touch`: every button and touch sensor, pressed = `true`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TouchSensors {
    pub chest_button: bool,
    pub head_front: bool,
    pub head_middle: bool,
    pub head_rear: bool,
    pub left_foot_bumper_left: bool,
    pub left_foot_bumper_right: bool,
    pub left_hand_back: bool,
    pub left_hand_left: bool,
    pub left_hand_right: bool,
    pub right_foot_bumper_left: bool,
    pub right_foot_bumper_right: bool,
    pub right_hand_back: bool,
    pub right_hand_left: bool,
    pub right_hand_right: bool,
}

/// LoLA's `Battery`, whose wire order is Charge, Status, Current, Temperature.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BatteryState {
    /// State of charge, 0 (empty) .. 1 (full).
    pub charge_fraction: f32,
    /// The battery board's status bits (LoLA sends them as a float, e.g. −32552).
    pub status_bits: i16,
    /// Whether the battery is being charged: bit 0x80 of `status_bits`.
    pub charging: bool,
    /// Battery current in A; negative while discharging.
    pub current_ampere: f32,
    /// Battery temperature, °C.
    pub temperature_celsius: f32,
}

impl BatteryState {
    /// Bit of `status_bits` that is set while charging (B-Human `NaoProvider.cpp`).
    pub const CHARGING_BIT: i16 = 0x80;

    /// Battery state with `charging` derived from `status_bits`.
    pub fn new(
        charge_fraction: f32,
        status_bits: i16,
        current_ampere: f32,
        temperature_celsius: f32,
    ) -> Self {
        Self {
            charge_fraction,
            status_bits,
            charging: status_bits & Self::CHARGING_BIT != 0,
            current_ampere,
            temperature_celsius,
        }
    }
}

/// LoLA's `Sonar`: distance to the nearest echo, metres.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SonarReadings {
    pub left_m: f32,
    pub right_m: f32,
}

/// Everything LoLA measures in one frame.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SensorData {
    /// Measured joint angles, rad (hands: 0 closed .. 1 open).
    pub joint_positions_rad: Joints<f32>,
    /// Stiffness currently applied by each motor, 0..1.
    pub joint_stiffnesses: Joints<f32>,
    /// Motor currents, A.
    pub joint_currents_ampere: Joints<f32>,
    /// Motor temperatures, °C.
    pub joint_temperatures_celsius: Joints<f32>,
    /// Motor temperature states.
    pub joint_temperature_statuses: Joints<JointTemperatureStatus>,
    pub inertial_measurement: InertialMeasurement,
    pub force_sensitive_resistors: ForceSensitiveResistors,
    pub touch: TouchSensors,
    pub battery: BatteryState,
    pub sonar: SonarReadings,
    /// The pose epoch: changed by the `lola` bridge whenever the robot's pose may have changed
    /// behind motion's back (the bridge sat the robot down or let it go limp, a new bridge
    /// started, LoLA was silent or reconnected). Motion re-plans from the measured pose when it
    /// sees a new epoch and echoes the epoch it planned for in `JointRequest::pose_epoch`; the
    /// bridge applies only requests planned for the current epoch. `CLOCK_MONOTONIC` ns at the
    /// change, so it grows across bridge restarts; 0 from a source without a bridge.
    pub pose_epoch: u64,
}

impl SensorData {
    /// Every measured number with its name (`joint_positions_rad[LeftKneePitch]` …), in a fixed
    /// order: for checks that treat all values alike (the bridge replaces non-finite ones).
    pub fn values_mut(&mut self) -> Vec<(SensorValue, &mut f32)> {
        let mut values = Vec::with_capacity(SENSOR_VALUE_COUNT);
        for (field, joints) in [
            ("joint_positions_rad", &mut self.joint_positions_rad),
            ("joint_stiffnesses", &mut self.joint_stiffnesses),
            ("joint_currents_ampere", &mut self.joint_currents_ampere),
            (
                "joint_temperatures_celsius",
                &mut self.joint_temperatures_celsius,
            ),
        ] {
            for (index, value) in joints.values.iter_mut().enumerate() {
                values.push((SensorValue { field, index }, value));
            }
        }
        let imu = &mut self.inertial_measurement;
        let vectors: [(&'static str, &mut [f32]); 3] = [
            (
                "accelerometer_m_per_s2",
                imu.accelerometer_m_per_s2.as_mut_slice(),
            ),
            (
                "gyroscope_rad_per_s",
                imu.gyroscope_rad_per_s.as_mut_slice(),
            ),
            ("torso_angles_rad", imu.torso_angles_rad.as_mut_slice()),
        ];
        for (field, slice) in vectors {
            for (index, value) in slice.iter_mut().enumerate() {
                values.push((SensorValue { field, index }, value));
            }
        }
        let resistors = &mut self.force_sensitive_resistors;
        for (field, foot) in [
            (
                "force_sensitive_resistors.left_foot",
                &mut resistors.left_foot,
            ),
            (
                "force_sensitive_resistors.right_foot",
                &mut resistors.right_foot,
            ),
        ] {
            for (index, value) in [
                &mut foot.front_left_kg,
                &mut foot.front_right_kg,
                &mut foot.rear_left_kg,
                &mut foot.rear_right_kg,
            ]
            .into_iter()
            .enumerate()
            {
                values.push((SensorValue { field, index }, value));
            }
        }
        let battery = &mut self.battery;
        for (index, value) in [
            &mut battery.charge_fraction,
            &mut battery.current_ampere,
            &mut battery.temperature_celsius,
        ]
        .into_iter()
        .enumerate()
        {
            values.push((
                SensorValue {
                    field: "battery",
                    index,
                },
                value,
            ));
        }
        for (index, value) in [&mut self.sonar.left_m, &mut self.sonar.right_m]
            .into_iter()
            .enumerate()
        {
            values.push((
                SensorValue {
                    field: "sonar",
                    index,
                },
                value,
            ));
        }
        values
    }
}

/// How many numbers [`SensorData::values_mut`] lists.
pub const SENSOR_VALUE_COUNT: usize = 4 * 25 + 3 + 3 + 2 + 8 + 3 + 2;

/// One number of [`SensorData`]: its field and the index in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SensorValue {
    /// The field, e.g. `joint_positions_rad` or `battery` (charge, current, temperature).
    pub field: &'static str,
    /// The index in the field (for joints: LoLA order).
    pub index: usize,
}

impl std::fmt::Display for SensorValue {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{}[{}]", self.field, self.index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::JointId;

    #[test]
    fn sensor_data_round_trips_as_named_map() {
        let mut sensor_data = SensorData::default();
        sensor_data.joint_positions_rad[JointId::LeftKneePitch] = 2.1;
        sensor_data.joint_temperature_statuses[JointId::RightHand] =
            JointTemperatureStatus::Critical;
        sensor_data.inertial_measurement.accelerometer_m_per_s2 = Vector3::new(0.1, -0.2, 9.81);
        sensor_data.touch.chest_button = true;
        sensor_data.battery = BatteryState::new(0.99, -32552, 0.016, 3.6);
        let bytes = rmp_serde::to_vec_named(&sensor_data).unwrap();
        let decoded: SensorData = rmp_serde::from_slice(&bytes).unwrap();
        assert_eq!(decoded, sensor_data);
        // A named map: field names are in the bytes.
        assert!(bytes
            .windows(b"chest_button".len())
            .any(|window| window == b"chest_button"));
    }

    #[test]
    fn older_bytes_without_a_field_still_decode() {
        #[derive(Serialize)]
        struct OldIdentity {
            body_id: String,
        }
        let bytes = rmp_serde::to_vec_named(&OldIdentity {
            body_id: "P0000073A07S94700012".into(),
        })
        .unwrap();
        let decoded: RobotIdentity = rmp_serde::from_slice(&bytes).unwrap();
        assert_eq!(decoded.body_id, "P0000073A07S94700012");
        assert_eq!(decoded.head_id, "");
    }

    #[test]
    fn every_value_is_listed_once_in_a_fixed_order() {
        let mut sensor_data = SensorData::default();
        let mut values = sensor_data.values_mut();
        assert_eq!(values.len(), SENSOR_VALUE_COUNT);
        for (number, (_, value)) in values.iter_mut().enumerate() {
            **value = number as f32;
        }
        let names: Vec<String> = values.iter().map(|(name, _)| name.to_string()).collect();
        assert_eq!(names[10], "joint_positions_rad[10]");
        assert_eq!(names[SENSOR_VALUE_COUNT - 1], "sonar[1]");
        drop(values);
        assert_eq!(
            sensor_data.joint_positions_rad[JointId::LeftKneePitch],
            10.0
        );
        assert_eq!(sensor_data.sonar.right_m, (SENSOR_VALUE_COUNT - 1) as f32);
        assert_eq!(
            sensor_data.inertial_measurement.accelerometer_m_per_s2.z,
            102.0
        );
    }

    #[test]
    fn charging_is_bit_0x80_of_the_status() {
        // The real sample from NaoTH: −32552 = 0x80D8, bit 0x80 set.
        assert!(BatteryState::new(0.99, -32552, 0.016, 3.6).charging);
        // The Webots emulator default −32708 = 0x803C, bit 0x80 clear.
        assert!(!BatteryState::new(1.0, -32708, 0.0, 0.0).charging);
    }

    #[test]
    fn joint_status_maps_lola_integers() {
        assert_eq!(
            JointTemperatureStatus::from_lola(2),
            Some(JointTemperatureStatus::VeryHot)
        );
        assert_eq!(JointTemperatureStatus::from_lola(4), None);
        assert_eq!(JointTemperatureStatus::Critical.to_lola(), 3);
        assert_eq!(
            SensorData::default().joint_temperature_statuses[JointId::HeadYaw],
            JointTemperatureStatus::Normal
        );
    }
}
