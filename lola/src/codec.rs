//! Encoding and decoding of LoLA's two messages (protocols.md §1):
//!
//! - the **sensor frame** LoLA sends every 12 ms: a 13-key map, exactly [`SENSOR_FRAME_SIZE`]
//!   bytes, decoded into [`SensorData`] + [`RobotIdentity`] ([`decode_sensor_frame`]) and encoded
//!   by the simulator ([`encode_sensor_frame`]);
//! - the **command** a client sends back: a map of up to 11 keys, [`FULL_COMMAND_SIZE`] bytes when
//!   complete, possibly partial ([`Command`], [`encode_command`], [`decode_command`]).
//!
//! Decoding accepts the keys in any order and a fixmap or map16 header; anything else — a
//! truncated frame, bytes after the map, a missing, unknown or repeated key, a wrong type, a wrong
//! array length, a non-finite number — is a [`DecodeError`] naming the byte offset, key and what
//! was expected. Numbers may be float32, float64 or integers; `Status` must be integers 0..=3.
//!
//! ```
//! use lola::codec::{decode_command, encode_command, Command, SonarEnable};
//! let bytes = encode_command(&Command { sonar: Some(SonarEnable { left: true, right: true }), ..Default::default() }).unwrap();
//! assert_eq!(bytes, b"\x81\xa5Sonar\x92\xc3\xc3");
//! assert_eq!(decode_command(&bytes).unwrap().sonar, Some(SonarEnable { left: true, right: true }));
//! ```

use nalgebra::{Vector2, Vector3};

use super::led_layout as leds;
pub use super::msgpack::{DecodeError, EncodeError, NonFiniteValue};
use super::msgpack::{Reader, Writer};
use types::{
    BatteryState, EarLeds, EyeLeds, FootPressure, ForceSensitiveResistors, JointRequest,
    JointTemperatureStatus, Joints, LedRequest, Rgb, RobotIdentity, SensorData, SkullLeds,
    SonarReadings, TouchSensors, JOINT_COUNT,
};

/// Size of every sensor frame LoLA sends.
pub const SENSOR_FRAME_SIZE: usize = 896;
/// Size of a command with all 11 keys.
pub const FULL_COMMAND_SIZE: usize = 786;

/// The 13 keys of a sensor frame, in the order a real LoLA sends them (NaoTH's decoded packet).
pub const SENSOR_KEYS: [&str; 13] = [
    "RobotConfig",
    "Accelerometer",
    "Angles",
    "Battery",
    "Current",
    "FSR",
    "Gyroscope",
    "Position",
    "Sonar",
    "Stiffness",
    "Temperature",
    "Touch",
    "Status",
];

/// The 11 keys of a command, in the order [`encode_command`] writes them.
pub const COMMAND_KEYS: [&str; 11] = [
    "Position",
    "Stiffness",
    "REar",
    "LEar",
    "Chest",
    "LEye",
    "REye",
    "LFoot",
    "RFoot",
    "Skull",
    "Sonar",
];

/// One decoded sensor frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SensorFrame {
    pub sensor_data: SensorData,
    pub robot_identity: RobotIdentity,
}

/// Whether each sonar transmitter should run (`Sonar` command key).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SonarEnable {
    pub left: bool,
    pub right: bool,
}

/// One command map; a key is sent only when its field is `Some`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Command {
    /// `Position`: joint targets, rad.
    pub positions_rad: Option<Joints<f32>>,
    /// `Stiffness`: 0..1 per joint.
    pub stiffnesses: Option<Joints<f32>>,
    /// `LEar`.
    pub left_ear: Option<EarLeds>,
    /// `REar`.
    pub right_ear: Option<EarLeds>,
    /// `LEye`.
    pub left_eye: Option<EyeLeds>,
    /// `REye`.
    pub right_eye: Option<EyeLeds>,
    /// `Chest`.
    pub chest: Option<Rgb>,
    /// `LFoot`.
    pub left_foot: Option<Rgb>,
    /// `RFoot`.
    pub right_foot: Option<Rgb>,
    /// `Skull`.
    pub skull: Option<SkullLeds>,
    /// `Sonar`.
    pub sonar: Option<SonarEnable>,
}

impl Command {
    /// All 11 keys.
    pub fn full(joints: &JointRequest, leds: &LedRequest, sonar: SonarEnable) -> Self {
        Self {
            sonar: Some(sonar),
            ..Self::joints_and_leds(joints, leds)
        }
    }

    /// The 10 keys B-Human sends: joints and LEDs, no sonar.
    pub fn joints_and_leds(joints: &JointRequest, leds: &LedRequest) -> Self {
        Self {
            left_ear: Some(leds.left_ear),
            right_ear: Some(leds.right_ear),
            left_eye: Some(leds.left_eye),
            right_eye: Some(leds.right_eye),
            chest: Some(leds.chest),
            left_foot: Some(leds.left_foot),
            right_foot: Some(leds.right_foot),
            skull: Some(leds.skull),
            ..Self::joints(joints)
        }
    }

    /// Only `Position` and `Stiffness`.
    pub fn joints(joints: &JointRequest) -> Self {
        Self {
            positions_rad: Some(joints.positions_rad),
            stiffnesses: Some(joints.stiffnesses),
            ..Self::default()
        }
    }

    /// Number of keys this command sends.
    pub fn key_count(&self) -> usize {
        [
            self.positions_rad.is_some(),
            self.stiffnesses.is_some(),
            self.right_ear.is_some(),
            self.left_ear.is_some(),
            self.chest.is_some(),
            self.left_eye.is_some(),
            self.right_eye.is_some(),
            self.left_foot.is_some(),
            self.right_foot.is_some(),
            self.skull.is_some(),
            self.sonar.is_some(),
        ]
        .into_iter()
        .filter(|present| *present)
        .count()
    }

    /// `self` with every key that `newer` sends replaced by `newer`'s value (LoLA keeps the
    /// last value of a key that a command leaves out).
    pub fn merged_with(&self, newer: &Command) -> Command {
        Command {
            positions_rad: newer.positions_rad.or(self.positions_rad),
            stiffnesses: newer.stiffnesses.or(self.stiffnesses),
            left_ear: newer.left_ear.or(self.left_ear),
            right_ear: newer.right_ear.or(self.right_ear),
            left_eye: newer.left_eye.or(self.left_eye),
            right_eye: newer.right_eye.or(self.right_eye),
            chest: newer.chest.or(self.chest),
            left_foot: newer.left_foot.or(self.left_foot),
            right_foot: newer.right_foot.or(self.right_foot),
            skull: newer.skull.or(self.skull),
            sonar: newer.sonar.or(self.sonar),
        }
    }
}

fn rgb_to_wire(colour: &Rgb) -> [f32; 3] {
    [colour.red, colour.green, colour.blue]
}

fn rgb_from_wire(wire: [f32; 3]) -> Rgb {
    Rgb::new(wire[0], wire[1], wire[2])
}

/// Encodes a command map with the keys `command` sends, in [`COMMAND_KEYS`] order.
pub fn encode_command(command: &Command) -> Result<Vec<u8>, EncodeError> {
    let mut writer = Writer::with_capacity(FULL_COMMAND_SIZE);
    writer.map_len(command.key_count() as u32);
    if let Some(positions) = &command.positions_rad {
        writer.floats("Position", &positions.values)?;
    }
    if let Some(stiffnesses) = &command.stiffnesses {
        writer.floats("Stiffness", &stiffnesses.values)?;
    }
    if let Some(ear) = &command.right_ear {
        writer.floats("REar", &leds::right_ear_to_wire(ear))?;
    }
    if let Some(ear) = &command.left_ear {
        writer.floats("LEar", &leds::left_ear_to_wire(ear))?;
    }
    if let Some(chest) = &command.chest {
        writer.floats("Chest", &rgb_to_wire(chest))?;
    }
    if let Some(eye) = &command.left_eye {
        writer.floats("LEye", &leds::left_eye_to_wire(eye))?;
    }
    if let Some(eye) = &command.right_eye {
        writer.floats("REye", &leds::right_eye_to_wire(eye))?;
    }
    if let Some(foot) = &command.left_foot {
        writer.floats("LFoot", &rgb_to_wire(foot))?;
    }
    if let Some(foot) = &command.right_foot {
        writer.floats("RFoot", &rgb_to_wire(foot))?;
    }
    if let Some(skull) = &command.skull {
        writer.floats("Skull", &leds::skull_to_wire(skull))?;
    }
    if let Some(sonar) = &command.sonar {
        writer.str("Sonar");
        writer.array_len(2);
        writer.bool(sonar.left);
        writer.bool(sonar.right);
    }
    Ok(writer.into_bytes())
}

/// Finds a known key, reporting unknown and repeated keys.
fn known_key(
    keys: &[&'static str],
    seen: &mut [bool],
    key: &str,
    offset: usize,
) -> Result<usize, DecodeError> {
    let Some(index) = keys.iter().position(|known| *known == key) else {
        return Err(DecodeError::UnknownKey {
            offset,
            key: key.to_string(),
        });
    };
    if std::mem::replace(&mut seen[index], true) {
        return Err(DecodeError::DuplicateKey {
            offset,
            key: keys[index],
        });
    }
    Ok(index)
}

/// Decodes one command map at the start of `bytes`; returns it and the number of bytes it took.
///
/// A stream of commands (several maps back to back, as rUNSWift sends) is read by calling this
/// repeatedly; [`DecodeError::is_truncated`] tells that the bytes so far are an incomplete map.
pub fn decode_command_prefix(bytes: &[u8]) -> Result<(Command, usize), DecodeError> {
    let mut reader = Reader::new(bytes);
    let entries = reader.map_len()?;
    let mut seen = [false; COMMAND_KEYS.len()];
    let mut command = Command::default();
    for _ in 0..entries {
        let (key, offset) = reader.key()?;
        match COMMAND_KEYS[known_key(&COMMAND_KEYS, &mut seen, key, offset)?] {
            "Position" => {
                command.positions_rad = Some(Joints::from_lola_order(
                    reader.numbers::<JOINT_COUNT>("Position")?,
                ))
            }
            "Stiffness" => {
                command.stiffnesses = Some(Joints::from_lola_order(
                    reader.numbers::<JOINT_COUNT>("Stiffness")?,
                ))
            }
            "REar" => command.right_ear = Some(leds::right_ear_from_wire(reader.numbers("REar")?)),
            "LEar" => command.left_ear = Some(leds::left_ear_from_wire(reader.numbers("LEar")?)),
            "Chest" => command.chest = Some(rgb_from_wire(reader.numbers("Chest")?)),
            "LEye" => command.left_eye = Some(leds::left_eye_from_wire(reader.numbers("LEye")?)),
            "REye" => command.right_eye = Some(leds::right_eye_from_wire(reader.numbers("REye")?)),
            "LFoot" => command.left_foot = Some(rgb_from_wire(reader.numbers("LFoot")?)),
            "RFoot" => command.right_foot = Some(rgb_from_wire(reader.numbers("RFoot")?)),
            "Skull" => command.skull = Some(leds::skull_from_wire(reader.numbers("Skull")?)),
            _ => {
                reader.array_header("Sonar", 2)?;
                command.sonar = Some(SonarEnable {
                    left: reader.bool("Sonar", 0)?,
                    right: reader.bool("Sonar", 1)?,
                });
            }
        }
    }
    Ok((command, reader.position()))
}

/// Decodes a buffer that holds exactly one command map.
pub fn decode_command(bytes: &[u8]) -> Result<Command, DecodeError> {
    let (command, length) = decode_command_prefix(bytes)?;
    if length != bytes.len() {
        return Err(DecodeError::TrailingBytes {
            offset: length,
            count: bytes.len() - length,
        });
    }
    Ok(command)
}

/// Encodes a full 13-key sensor frame in [`SENSOR_KEYS`] order, undoing every conversion
/// [`decode_sensor_frame`] makes (the accelerometer is negated back to LoLA's sign).
///
/// The result is [`SENSOR_FRAME_SIZE`] bytes when the serial numbers have 20 characters and the
/// versions 5, as on a real NAO.
pub fn encode_sensor_frame(
    sensor_data: &SensorData,
    robot_identity: &RobotIdentity,
) -> Result<Vec<u8>, EncodeError> {
    let mut writer = Writer::with_capacity(SENSOR_FRAME_SIZE);
    writer.map_len(SENSOR_KEYS.len() as u32);
    writer.str("RobotConfig");
    writer.array_len(4);
    for text in [
        &robot_identity.body_id,
        &robot_identity.body_version,
        &robot_identity.head_id,
        &robot_identity.head_version,
    ] {
        writer.str(text);
    }
    let imu = &sensor_data.inertial_measurement;
    let accelerometer = -imu.accelerometer_m_per_s2;
    writer.floats("Accelerometer", accelerometer.as_slice())?;
    writer.floats("Angles", imu.torso_angles_rad.as_slice())?;
    let battery = &sensor_data.battery;
    writer.floats(
        "Battery",
        &[
            battery.charge_fraction,
            f32::from(battery.status_bits),
            battery.current_ampere,
            battery.temperature_celsius,
        ],
    )?;
    writer.floats("Current", &sensor_data.joint_currents_ampere.values)?;
    let fsr = &sensor_data.force_sensitive_resistors;
    let mut fsr_values = [0.0; 8];
    for (values, foot) in fsr_values
        .chunks_exact_mut(4)
        .zip([&fsr.left_foot, &fsr.right_foot])
    {
        values.copy_from_slice(&[
            foot.front_left_kg,
            foot.front_right_kg,
            foot.rear_left_kg,
            foot.rear_right_kg,
        ]);
    }
    writer.floats("FSR", &fsr_values)?;
    writer.floats("Gyroscope", imu.gyroscope_rad_per_s.as_slice())?;
    writer.floats("Position", &sensor_data.joint_positions_rad.values)?;
    writer.floats(
        "Sonar",
        &[sensor_data.sonar.left_m, sensor_data.sonar.right_m],
    )?;
    writer.floats("Stiffness", &sensor_data.joint_stiffnesses.values)?;
    writer.floats(
        "Temperature",
        &sensor_data.joint_temperatures_celsius.values,
    )?;
    writer.floats("Touch", &touch_to_wire(&sensor_data.touch))?;
    writer.str("Status");
    writer.array_len(JOINT_COUNT as u32);
    for status in sensor_data.joint_temperature_statuses.values {
        writer.uint(u64::from(status.to_lola()));
    }
    Ok(writer.into_bytes())
}

fn touch_to_wire(touch: &TouchSensors) -> [f32; 14] {
    [
        touch.chest_button,
        touch.head_front,
        touch.head_middle,
        touch.head_rear,
        touch.left_foot_bumper_left,
        touch.left_foot_bumper_right,
        touch.left_hand_back,
        touch.left_hand_left,
        touch.left_hand_right,
        touch.right_foot_bumper_left,
        touch.right_foot_bumper_right,
        touch.right_hand_back,
        touch.right_hand_left,
        touch.right_hand_right,
    ]
    .map(|pressed| if pressed { 1.0 } else { 0.0 })
}

fn touch_from_wire(wire: [f32; 14]) -> TouchSensors {
    let pressed = wire.map(|value| value >= 0.5);
    TouchSensors {
        chest_button: pressed[0],
        head_front: pressed[1],
        head_middle: pressed[2],
        head_rear: pressed[3],
        left_foot_bumper_left: pressed[4],
        left_foot_bumper_right: pressed[5],
        left_hand_back: pressed[6],
        left_hand_left: pressed[7],
        left_hand_right: pressed[8],
        right_foot_bumper_left: pressed[9],
        right_foot_bumper_right: pressed[10],
        right_hand_back: pressed[11],
        right_hand_left: pressed[12],
        right_hand_right: pressed[13],
    }
}

fn foot_from_wire(values: &[f32]) -> FootPressure {
    FootPressure {
        front_left_kg: values[0],
        front_right_kg: values[1],
        rear_left_kg: values[2],
        rear_right_kg: values[3],
    }
}

/// Decodes one sensor frame: exactly one 13-key map and nothing after it.
///
/// Conversions: the accelerometer is negated (upright ≈ +9.81 on z); `Battery` is read as
/// Charge, Status, Current, Temperature, with the status float's low 16 bits as `status_bits`;
/// `Touch` values ≥ 0.5 are pressed.
pub fn decode_sensor_frame(bytes: &[u8]) -> Result<SensorFrame, DecodeError> {
    let mut reader = Reader::new(bytes);
    let frame = read_sensor_frame(&mut reader)?;
    if reader.remaining() > 0 {
        return Err(DecodeError::TrailingBytes {
            offset: reader.position(),
            count: reader.remaining(),
        });
    }
    Ok(frame)
}

/// A sensor frame read from the start of a byte stream by [`decode_sensor_frame_prefix`].
#[derive(Debug, Clone, PartialEq)]
pub struct SensorFramePrefix {
    /// The frame; numbers listed in `non_finite` are NaN or infinite in it.
    pub frame: SensorFrame,
    /// Bytes the map took.
    pub length: usize,
    /// The numbers that were not finite, in stream order.
    pub non_finite: Vec<NonFiniteValue>,
}

/// Decodes the sensor frame at the start of `bytes` (a stream: bytes may follow it) as
/// [`decode_sensor_frame`] does, except that non-finite numbers are let through and listed, so
/// that a reader can replace a single bad value instead of losing the whole frame.
/// [`DecodeError::is_truncated`] tells that the bytes so far are a valid, incomplete beginning.
pub fn decode_sensor_frame_prefix(bytes: &[u8]) -> Result<SensorFramePrefix, DecodeError> {
    let mut reader = Reader::tolerating_non_finite(bytes);
    let frame = read_sensor_frame(&mut reader)?;
    Ok(SensorFramePrefix {
        frame,
        length: reader.position(),
        non_finite: reader.take_non_finite(),
    })
}

fn read_sensor_frame(reader: &mut Reader<'_>) -> Result<SensorFrame, DecodeError> {
    let entries = reader.map_len()?;
    let mut seen = [false; SENSOR_KEYS.len()];
    let mut frame = SensorFrame::default();
    let data = &mut frame.sensor_data;
    for _ in 0..entries {
        let (key, offset) = reader.key()?;
        match SENSOR_KEYS[known_key(&SENSOR_KEYS, &mut seen, key, offset)?] {
            "RobotConfig" => {
                reader.array_header("RobotConfig", 4)?;
                frame.robot_identity = RobotIdentity {
                    body_id: reader.string("RobotConfig", 0)?,
                    body_version: reader.string("RobotConfig", 1)?,
                    head_id: reader.string("RobotConfig", 2)?,
                    head_version: reader.string("RobotConfig", 3)?,
                };
            }
            "Accelerometer" => {
                let values = reader.numbers::<3>("Accelerometer")?;
                data.inertial_measurement.accelerometer_m_per_s2 = -Vector3::from(values);
            }
            "Angles" => {
                data.inertial_measurement.torso_angles_rad =
                    Vector2::from(reader.numbers::<2>("Angles")?)
            }
            "Battery" => {
                let [charge, status, current, temperature] = reader.numbers::<4>("Battery")?;
                data.battery =
                    BatteryState::new(charge, status as i32 as i16, current, temperature);
            }
            "Current" => {
                data.joint_currents_ampere = Joints::from_lola_order(reader.numbers("Current")?)
            }
            "FSR" => {
                let values = reader.numbers::<8>("FSR")?;
                data.force_sensitive_resistors = ForceSensitiveResistors {
                    left_foot: foot_from_wire(&values[..4]),
                    right_foot: foot_from_wire(&values[4..]),
                };
            }
            "Gyroscope" => {
                data.inertial_measurement.gyroscope_rad_per_s =
                    Vector3::from(reader.numbers::<3>("Gyroscope")?)
            }
            "Position" => {
                data.joint_positions_rad = Joints::from_lola_order(reader.numbers("Position")?)
            }
            "Sonar" => {
                let [left_m, right_m] = reader.numbers::<2>("Sonar")?;
                data.sonar = SonarReadings { left_m, right_m };
            }
            "Stiffness" => {
                data.joint_stiffnesses = Joints::from_lola_order(reader.numbers("Stiffness")?)
            }
            "Temperature" => {
                data.joint_temperatures_celsius =
                    Joints::from_lola_order(reader.numbers("Temperature")?)
            }
            "Touch" => data.touch = touch_from_wire(reader.numbers::<14>("Touch")?),
            _ => {
                reader.array_header("Status", JOINT_COUNT)?;
                for index in 0..JOINT_COUNT {
                    let value =
                        reader.integer("Status", index, 0..=3, "a temperature status 0..=3")?;
                    data.joint_temperature_statuses.values[index] =
                        JointTemperatureStatus::from_lola(value).unwrap_or_default();
                }
            }
        }
    }
    let missing: Vec<&'static str> = SENSOR_KEYS
        .iter()
        .zip(seen)
        .filter(|(_, seen)| !seen)
        .map(|(key, _)| *key)
        .collect();
    if !missing.is_empty() {
        return Err(DecodeError::MissingKeys { missing });
    }
    Ok(frame)
}
