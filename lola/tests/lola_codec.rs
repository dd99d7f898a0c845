//! LoLA codec against hand-written MessagePack bytes (protocols.md §1): the real packet NaoTH
//! decoded (`LolaData.h`), full and partial commands, and every kind of malformed frame.

use lola::codec::{
    decode_command, decode_command_prefix, decode_sensor_frame, encode_command,
    encode_sensor_frame, Command, DecodeError, EncodeError, SonarEnable, FULL_COMMAND_SIZE,
    SENSOR_FRAME_SIZE,
};
use types::{
    EarLeds, EyeLeds, JointId, JointRequest, JointTemperatureStatus, Joints, LedRequest, Rgb,
    SkullLeds,
};

/// Writes MessagePack by hand, marker by marker, independent of the codec under test.
#[derive(Default)]
struct Bytes(Vec<u8>);

impl Bytes {
    fn fixmap(mut self, entries: u8) -> Self {
        assert!(entries < 16);
        self.0.push(0x80 | entries);
        self
    }
    fn key(mut self, key: &str) -> Self {
        assert!(key.len() < 32);
        self.0.push(0xa0 | key.len() as u8);
        self.0.extend_from_slice(key.as_bytes());
        self
    }
    fn array_header(mut self, length: usize) -> Self {
        if length < 16 {
            self.0.push(0x90 | length as u8);
        } else {
            self.0.extend_from_slice(&[0xdc, 0, length as u8]);
        }
        self
    }
    fn floats(mut self, values: &[f32]) -> Self {
        self = self.array_header(values.len());
        for value in values {
            self.0.push(0xca);
            self.0.extend_from_slice(&value.to_be_bytes());
        }
        self
    }
    fn entry(self, key: &str, values: &[f32]) -> Self {
        self.key(key).floats(values)
    }
    fn fixints(mut self, values: &[u8]) -> Self {
        self = self.array_header(values.len());
        self.0.extend_from_slice(values);
        self
    }
    fn strings(mut self, values: &[&str]) -> Self {
        self = self.array_header(values.len());
        for value in values {
            self = self.key(value);
        }
        self
    }
    fn len(&self) -> usize {
        self.0.len()
    }
}

const NAOTH_POSITION: [f32; 25] = [
    0.00302601, 0.54913, 0.544528, 0.0674541, -1.45734, -0.0122299, -0.122762, -0.513848, -0.30369,
    -1.44038, 2.13375, -1.21497, 0.024586, 0.222472, -1.43126, 2.1231, -1.20568, 0.0322559,
    0.503194, -0.0276539, 1.58305, 0.024586, -0.0997519, 0.0188, 0.036,
];
const NAOTH_TEMPERATURE: [f32; 25] = [
    38.0, 40.0, 38.0, 38.0, 38.0, 38.0, 38.0, 33.0, 27.0, 27.0, 27.0, 27.0, 27.0, 27.0, 27.0, 27.0,
    27.0, 27.0, 38.0, 38.0, 38.0, 38.0, 38.0, 38.0, 38.0,
];
const NAOTH_FSR: [f32; 8] = [
    0.190524,
    1.52253,
    0.000270986,
    0.654938,
    1.86128,
    0.130825,
    0.692107,
    0.000510382,
];

/// The real sensor packet quoted in NaoTH's `LolaData.h`, in its key order, as LoLA encodes it
/// (float32 everywhere, fixint statuses).
fn naoth_packet_with(accelerometer: [f32; 3]) -> Bytes {
    Bytes::default()
        .fixmap(13)
        .key("RobotConfig")
        .strings(&[
            "P0000073A03S83I00011",
            "6.0.0",
            "P0000074A03S84F00006",
            "6.0.0",
        ])
        .entry("Accelerometer", &accelerometer)
        .entry("Angles", &[-0.0239685, 0.990951])
        .entry("Battery", &[0.99, -32552.0, 0.016, 3.6])
        .entry("Current", &[0.0; 25])
        .entry("FSR", &NAOTH_FSR)
        .entry("Gyroscope", &[0.00186421, -0.00559264, 0.0])
        .entry("Position", &NAOTH_POSITION)
        .entry("Sonar", &[0.2, 0.2])
        .entry("Stiffness", &[0.0; 25])
        .entry("Temperature", &NAOTH_TEMPERATURE)
        .entry("Touch", &[0.0; 14])
        .key("Status")
        .fixints(&[0; 25])
}

fn naoth_packet() -> Bytes {
    naoth_packet_with([8.66997, 0.287402, -5.48939])
}

#[test]
fn real_naoth_packet_is_896_bytes_and_decodes_field_by_field() {
    let bytes = naoth_packet();
    assert_eq!(bytes.len(), SENSOR_FRAME_SIZE);
    let frame = decode_sensor_frame(&bytes.0).unwrap();
    let identity = &frame.robot_identity;
    assert_eq!(identity.body_id, "P0000073A03S83I00011");
    assert_eq!(identity.body_version, "6.0.0");
    assert_eq!(identity.head_id, "P0000074A03S84F00006");
    assert_eq!(identity.head_version, "6.0.0");

    let data = &frame.sensor_data;
    // Battery order: Charge, Status, Current, Temperature.
    assert_eq!(data.battery.charge_fraction, 0.99);
    assert_eq!(data.battery.status_bits, -32552);
    assert!(
        data.battery.charging,
        "-32552 = 0x80D8 has the charging bit 0x80"
    );
    assert_eq!(data.battery.current_ampere, 0.016);
    assert_eq!(data.battery.temperature_celsius, 3.6);
    // Accelerometer sign: LoLA's values negated.
    let accelerometer = data.inertial_measurement.accelerometer_m_per_s2;
    assert_eq!(
        [accelerometer.x, accelerometer.y, accelerometer.z],
        [-8.66997, -0.287402, 5.48939]
    );
    assert_eq!(data.inertial_measurement.torso_angles_rad.y, 0.990951);
    assert_eq!(data.inertial_measurement.gyroscope_rad_per_s.y, -0.00559264);
    assert_eq!(
        data.force_sensitive_resistors.left_foot.front_left_kg,
        0.190524
    );
    assert_eq!(
        data.force_sensitive_resistors.left_foot.rear_right_kg,
        0.654938
    );
    assert_eq!(
        data.force_sensitive_resistors.right_foot.front_left_kg,
        1.86128
    );
    assert_eq!(
        data.force_sensitive_resistors.right_foot.rear_right_kg,
        0.000510382
    );
    assert_eq!(data.joint_positions_rad[JointId::HeadPitch], 0.54913);
    assert_eq!(data.joint_positions_rad[JointId::LeftKneePitch], 2.13375);
    assert_eq!(data.joint_positions_rad[JointId::RightHipRoll], 0.222472);
    assert_eq!(data.joint_positions_rad[JointId::RightElbowYaw], 1.58305);
    assert_eq!(data.joint_positions_rad[JointId::RightHand], 0.036);
    assert_eq!(data.joint_temperatures_celsius[JointId::HeadPitch], 40.0);
    assert_eq!(
        data.joint_temperatures_celsius[JointId::LeftHipYawPitch],
        33.0
    );
    assert_eq!(data.sonar.left_m, 0.2);
    assert!(!data.touch.chest_button);
    assert_eq!(
        data.joint_temperature_statuses[JointId::HeadYaw],
        JointTemperatureStatus::Normal
    );
}

#[test]
fn encoding_the_decoded_real_packet_gives_the_same_bytes() {
    let bytes = naoth_packet();
    let frame = decode_sensor_frame(&bytes.0).unwrap();
    let encoded = encode_sensor_frame(&frame.sensor_data, &frame.robot_identity).unwrap();
    assert_eq!(encoded.len(), SENSOR_FRAME_SIZE);
    assert_eq!(encoded, bytes.0);
}

#[test]
fn upright_fixture_reads_plus_9_32_on_z() {
    // nao_lola's test fixture: a robot standing still reads z = −9.32 from LoLA.
    let frame = decode_sensor_frame(&naoth_packet_with([0.0, 0.0, -9.32]).0).unwrap();
    assert_eq!(
        frame
            .sensor_data
            .inertial_measurement
            .accelerometer_m_per_s2
            .z,
        9.32
    );
}

#[test]
fn key_order_does_not_matter_and_map16_is_accepted() {
    // Status, Touch and RobotConfig moved to the front.
    let reordered = Bytes::default()
        .fixmap(13)
        .key("Status")
        .fixints(&[
            0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3,
        ])
        .entry(
            "Touch",
            &[
                1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0,
            ],
        )
        .key("RobotConfig")
        .strings(&[
            "P0000073A07S94700012",
            "6.0.0",
            "P0000074A05S93M00061",
            "6.0.0",
        ])
        .entry("Temperature", &NAOTH_TEMPERATURE)
        .entry("Stiffness", &[1.0; 25])
        .entry("Sonar", &[0.5, 2.5])
        .entry("Position", &NAOTH_POSITION)
        .entry("Gyroscope", &[0.1, 0.2, 0.3])
        .entry("FSR", &NAOTH_FSR)
        .entry("Current", &[0.25; 25])
        .entry("Battery", &[0.5, 0.0, -1.5, 30.0])
        .entry("Angles", &[0.01, 0.02])
        .entry("Accelerometer", &[0.0, 0.0, -9.81]);
    assert_eq!(reordered.len(), SENSOR_FRAME_SIZE);
    let frame = decode_sensor_frame(&reordered.0).unwrap();
    let data = &frame.sensor_data;
    assert_eq!(
        data.joint_temperature_statuses[JointId::HeadPitch],
        JointTemperatureStatus::Hot
    );
    assert_eq!(
        data.joint_temperature_statuses[JointId::LeftShoulderPitch],
        JointTemperatureStatus::VeryHot
    );
    assert_eq!(
        data.joint_temperature_statuses[JointId::RightHand],
        JointTemperatureStatus::Critical
    );
    assert!(data.touch.chest_button);
    assert!(!data.touch.head_front);
    assert!(data.touch.head_middle);
    assert!(data.touch.right_hand_right);
    assert!(!data.battery.charging);
    assert_eq!(data.battery.current_ampere, -1.5);
    assert_eq!(data.sonar.right_m, 2.5);
    assert_eq!(data.joint_currents_ampere[JointId::RightAnkleRoll], 0.25);
    assert_eq!(frame.robot_identity.head_id, "P0000074A05S93M00061");

    // The same entries behind a map16 header (0xde 0x00 0x0d) decode the same.
    let mut map16 = vec![0xde, 0x00, 0x0d];
    map16.extend_from_slice(&reordered.0[1..]);
    assert_eq!(decode_sensor_frame(&map16).unwrap(), frame);
}

fn distinct_leds() -> LedRequest {
    let mut leds = LedRequest::default();
    for index in 0..10 {
        leds.left_ear.intensities[index] = 0.01 * index as f32;
        leds.right_ear.intensities[index] = 0.5 + 0.01 * index as f32;
    }
    for index in 0..8 {
        let step = index as f32;
        leds.left_eye.segments[index] =
            Rgb::new(0.1 + step * 0.01, 0.2 + step * 0.01, 0.3 + step * 0.01);
        leds.right_eye.segments[index] =
            Rgb::new(0.4 + step * 0.01, 0.5 + step * 0.01, 0.6 + step * 0.01);
    }
    leds.chest = Rgb::new(0.7, 0.8, 0.9);
    leds.left_foot = Rgb::new(0.11, 0.12, 0.13);
    leds.right_foot = Rgb::new(0.21, 0.22, 0.23);
    leds.skull = SkullLeds {
        front_left_0: 0.01,
        front_left_1: 0.02,
        middle_left_0: 0.03,
        rear_left_0: 0.04,
        rear_left_1: 0.05,
        rear_left_2: 0.06,
        front_right_0: 0.07,
        front_right_1: 0.08,
        middle_right_0: 0.09,
        rear_right_0: 0.10,
        rear_right_1: 0.11,
        rear_right_2: 0.12,
    };
    leds
}

fn pose_request() -> JointRequest {
    JointRequest {
        positions_rad: Joints::from_fn(|joint| joint.index() as f32 * 0.1 - 1.0),
        stiffnesses: Joints::from_fn(|joint| joint.index() as f32 / 25.0),
        ..Default::default()
    }
}

#[test]
fn full_command_is_786_bytes_in_lola_orders() {
    let joints = pose_request();
    let leds = distinct_leds();
    let command = Command::full(
        &joints,
        &leds,
        SonarEnable {
            left: true,
            right: false,
        },
    );

    // Written from protocols.md's tables: REar reversed, LEye in 45°, 0°, 315°… order with
    // colour blocks, Skull in LoLA's named order.
    let right_ear_wire: Vec<f32> = (0..10)
        .rev()
        .map(|index| 0.5 + 0.01 * index as f32)
        .collect();
    let left_ear_wire: Vec<f32> = (0..10).map(|index| 0.01 * index as f32).collect();
    let left_eye_order = [1, 0, 7, 6, 5, 4, 3, 2];
    let mut left_eye_wire = Vec::new();
    for base in [0.1, 0.2, 0.3] {
        left_eye_wire.extend(
            left_eye_order
                .iter()
                .map(|segment| base + *segment as f32 * 0.01),
        );
    }
    let mut right_eye_wire = Vec::new();
    for base in [0.4, 0.5, 0.6] {
        right_eye_wire.extend((0..8).map(|segment| base + segment as f32 * 0.01));
    }
    let skull_wire = [
        0.02, 0.01, 0.03, 0.04, 0.05, 0.06, 0.12, 0.11, 0.10, 0.09, 0.07, 0.08,
    ];
    let mut expected = Bytes::default()
        .fixmap(11)
        .entry("Position", &joints.positions_rad.values)
        .entry("Stiffness", &joints.stiffnesses.values)
        .entry("REar", &right_ear_wire)
        .entry("LEar", &left_ear_wire)
        .entry("Chest", &[0.7, 0.8, 0.9])
        .entry("LEye", &left_eye_wire)
        .entry("REye", &right_eye_wire)
        .entry("LFoot", &[0.11, 0.12, 0.13])
        .entry("RFoot", &[0.21, 0.22, 0.23])
        .entry("Skull", &skull_wire)
        .key("Sonar");
    expected.0.extend_from_slice(&[0x92, 0xc3, 0xc2]);

    let encoded = encode_command(&command).unwrap();
    assert_eq!(encoded.len(), FULL_COMMAND_SIZE);
    assert_eq!(encoded, expected.0);
    assert_eq!(decode_command(&expected.0).unwrap(), command);
}

#[test]
fn bhuman_ten_key_command_is_777_bytes() {
    let command = Command::joints_and_leds(&pose_request(), &distinct_leds());
    assert_eq!(encode_command(&command).unwrap().len(), 777);
}

#[test]
fn partial_commands_carry_only_their_keys() {
    let joints = pose_request();
    let bytes = Bytes::default()
        .fixmap(2)
        .entry("Position", &joints.positions_rad.values)
        .entry("Stiffness", &joints.stiffnesses.values);
    assert_eq!(bytes.len(), 1 + 137 + 138);
    assert_eq!(encode_command(&Command::joints(&joints)).unwrap(), bytes.0);
    let decoded = decode_command(&bytes.0).unwrap();
    assert_eq!(decoded.positions_rad, Some(joints.positions_rad));
    assert_eq!(decoded.left_eye, None);
    assert_eq!(decoded.sonar, None);
    assert_eq!(decoded.key_count(), 2);

    let sonar = b"\x81\xa5Sonar\x92\xc3\xc3";
    let decoded = decode_command(sonar).unwrap();
    assert_eq!(
        decoded,
        Command {
            sonar: Some(SonarEnable {
                left: true,
                right: true
            }),
            ..Default::default()
        }
    );

    // Only an eye, in the opposite key order a client might choose: 0.25 red at LoLA index 0
    // of LEye is the 45° LED.
    let mut eye_wire = [0.0; 24];
    eye_wire[0] = 0.25;
    let bytes = Bytes::default().fixmap(1).entry("LEye", &eye_wire);
    let decoded = decode_command(&bytes.0).unwrap();
    let mut expected_eye = EyeLeds::default();
    expected_eye.segments[1].red = 0.25;
    assert_eq!(decoded.left_eye, Some(expected_eye));
    // An empty map is a valid command that changes nothing.
    assert_eq!(decode_command(&[0x80]).unwrap(), Command::default());
}

#[test]
fn runswift_sends_two_maps_back_to_back() {
    let joints = pose_request();
    let mut stream = encode_command(&Command::joints(&joints)).unwrap();
    let first_length = stream.len();
    stream.extend_from_slice(b"\x81\xa5Sonar\x92\xc3\xc3");
    let (first, used) = decode_command_prefix(&stream).unwrap();
    assert_eq!(used, first_length);
    assert_eq!(first.stiffnesses, Some(joints.stiffnesses));
    let (second, used_second) = decode_command_prefix(&stream[used..]).unwrap();
    assert_eq!(used_second, 10);
    assert_eq!(
        second.sonar,
        Some(SonarEnable {
            left: true,
            right: true
        })
    );
    // Whole-buffer decoding refuses the second map as trailing bytes.
    assert_eq!(
        decode_command(&stream),
        Err(DecodeError::TrailingBytes {
            offset: first_length,
            count: 10
        })
    );
    // Half a map is truncated, not garbage: a stream reader waits for more.
    assert!(decode_command_prefix(&stream[..100])
        .unwrap_err()
        .is_truncated());
    let merged = first.merged_with(&second);
    assert_eq!(merged.positions_rad, Some(joints.positions_rad));
    assert_eq!(
        merged.sonar,
        Some(SonarEnable {
            left: true,
            right: true
        })
    );
}

#[test]
fn short_and_long_sensor_frames_are_reported() {
    let bytes = naoth_packet().0;
    assert!(matches!(
        decode_sensor_frame(&[]),
        Err(DecodeError::Truncated {
            offset: 0,
            length: 0,
            ..
        })
    ));
    let error = decode_sensor_frame(&bytes[..895]).unwrap_err();
    // The last Status value (a one-byte fixint at 895) is what is missing.
    assert_eq!(
        error,
        DecodeError::Truncated {
            offset: 895,
            length: 895,
            what: "Status[24]".into()
        },
        "{error}"
    );
    let mut long = bytes.clone();
    long.push(0x00);
    assert_eq!(
        decode_sensor_frame(&long),
        Err(DecodeError::TrailingBytes {
            offset: 896,
            count: 1
        })
    );
}

#[test]
fn not_a_map_is_reported_at_byte_zero() {
    let error = decode_sensor_frame(&[0x93, 0x01, 0x02, 0x03]).unwrap_err();
    assert!(
        matches!(
            error,
            DecodeError::WrongType {
                offset: 0,
                expected: "a map (fixmap or map16)",
                ..
            }
        ),
        "{error}"
    );
    // map32 is not something LoLA sends.
    assert!(matches!(
        decode_command(&[0xdf, 0, 0, 0, 0]),
        Err(DecodeError::WrongType { offset: 0, .. })
    ));
    assert!(matches!(
        decode_command(b"garbage"),
        Err(DecodeError::WrongType { offset: 0, .. })
    ));
}

#[test]
fn wrong_array_length_names_key_and_offset() {
    let prefix = Bytes::default()
        .fixmap(13)
        .key("RobotConfig")
        .strings(&[
            "P0000073A03S83I00011",
            "6.0.0",
            "P0000074A03S84F00006",
            "6.0.0",
        ])
        .key("Accelerometer");
    let offset = prefix.len();
    let bytes = prefix.floats(&[0.0, -9.81]);
    assert_eq!(
        decode_sensor_frame(&bytes.0),
        Err(DecodeError::WrongArrayLength {
            offset,
            key: "Accelerometer",
            expected: 3,
            found: 2
        })
    );
    let command = Bytes::default()
        .fixmap(1)
        .key("Position")
        .floats(&[0.0; 24]);
    assert_eq!(
        decode_command(&command.0),
        Err(DecodeError::WrongArrayLength {
            offset: 10,
            key: "Position",
            expected: 25,
            found: 24
        })
    );
}

#[test]
fn non_finite_numbers_are_refused_with_position() {
    let mut position = [0.0_f32; 25];
    position[3] = f32::NAN;
    let bytes = Bytes::default().fixmap(1).entry("Position", &position);
    // fixmap 1 + key 9 + array16 header 3 + three floats of 5 bytes.
    let error = decode_command(&bytes.0).unwrap_err();
    assert!(
        matches!(
            error,
            DecodeError::NonFinite {
                offset: 28,
                key: "Position",
                index: 3,
                ..
            }
        ),
        "{error}"
    );
    let mut stiffness = [0.0_f32; 25];
    stiffness[0] = f32::INFINITY;
    let bytes = Bytes::default().fixmap(1).entry("Stiffness", &stiffness);
    assert!(matches!(
        decode_command(&bytes.0),
        Err(DecodeError::NonFinite { index: 0, .. })
    ));
    // float64 too large for float32 is not finite either.
    let mut bytes = b"\x81\xa5Chest\x93".to_vec();
    bytes.push(0xcb);
    bytes.extend_from_slice(&1.0e300_f64.to_be_bytes());
    bytes.extend_from_slice(&[0x00, 0x00]);
    assert!(matches!(
        decode_command(&bytes),
        Err(DecodeError::NonFinite {
            offset: 8,
            key: "Chest",
            index: 0,
            ..
        })
    ));
    // The encoder refuses to send NaN to the robot.
    let mut joints = JointRequest::default();
    joints.positions_rad[JointId::LeftAnklePitch] = f32::NAN;
    assert!(matches!(
        encode_command(&Command::joints(&joints)),
        Err(EncodeError::NonFinite {
            key: "Position",
            index: 11,
            ..
        })
    ));
}

#[test]
fn unknown_missing_and_duplicate_keys() {
    let bytes = Bytes::default().fixmap(1).entry("Nose", &[1.0]);
    assert_eq!(
        decode_command(&bytes.0),
        Err(DecodeError::UnknownKey {
            offset: 1,
            key: "Nose".into()
        })
    );

    // A sensor frame whose Status entry is left out (map says 12).
    let mut bytes = naoth_packet().0;
    bytes[0] = 0x8c;
    let status_start = SENSOR_FRAME_SIZE - (1 + 6 + 3 + 25);
    bytes.truncate(status_start);
    assert_eq!(
        decode_sensor_frame(&bytes),
        Err(DecodeError::MissingKeys {
            missing: vec!["Status"]
        })
    );

    let bytes = Bytes::default()
        .fixmap(2)
        .entry("Chest", &[0.0; 3])
        .entry("Chest", &[1.0; 3]);
    assert_eq!(
        decode_command(&bytes.0),
        Err(DecodeError::DuplicateKey {
            offset: 23,
            key: "Chest"
        })
    );

    let bytes = [0x81, 0xa2, 0xff, 0xfe, 0x90];
    assert_eq!(
        decode_command(&bytes),
        Err(DecodeError::InvalidUtf8 { offset: 1 })
    );
}

#[test]
fn wrong_types_are_reported() {
    // Sonar as floats instead of bools.
    let bytes = Bytes::default().fixmap(1).entry("Sonar", &[1.0, 1.0]);
    let error = decode_command(&bytes.0).unwrap_err();
    assert!(
        matches!(&error, DecodeError::WrongType { offset: 8, expected: "a bool", context, .. } if context == "Sonar[0]"),
        "{error}"
    );
    // A key that is an integer.
    assert!(matches!(
        decode_command(&[0x81, 0x01, 0x90]),
        Err(DecodeError::WrongType { offset: 1, .. })
    ));
    // Position as a string.
    let bytes = Bytes::default().fixmap(1).key("Position").key("oops");
    assert!(matches!(
        decode_command(&bytes.0),
        Err(DecodeError::WrongType {
            offset: 10,
            expected: "an array",
            ..
        })
    ));
    // Status as floats, and out of range.
    let mut bytes = naoth_packet().0;
    let status_values = SENSOR_FRAME_SIZE - 25;
    bytes[status_values + 2] = 0xc2; // false instead of a fixint
    let error = decode_sensor_frame(&bytes).unwrap_err();
    assert!(
        matches!(error, DecodeError::WrongType { offset, expected: "an integer", .. } if offset == status_values + 2)
    );
    let mut bytes = naoth_packet().0;
    bytes[status_values + 5] = 4;
    assert!(matches!(
        decode_sensor_frame(&bytes),
        Err(DecodeError::OutOfRange {
            key: "Status",
            index: 5,
            value: 4,
            ..
        })
    ));
    // Integers are accepted where LoLA sends floats (a client's 0 for "limp").
    let bytes = b"\x81\xa5Chest\x93\x00\x01\xcc\x02";
    assert_eq!(
        decode_command(bytes).unwrap().chest,
        Some(Rgb::new(0.0, 1.0, 2.0))
    );
}

#[test]
fn ears_keep_their_angles_through_the_wire() {
    let right_ear = EarLeds {
        intensities: [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9],
    };
    let command = Command {
        right_ear: Some(right_ear),
        ..Default::default()
    };
    let bytes = encode_command(&command).unwrap();
    // REar[0] is 324° (logical index 9), REar[9] is 0°.
    assert_eq!(&bytes[7..12], &[0xca, 0x3f, 0x66, 0x66, 0x66]); // 0.9
    assert_eq!(decode_command(&bytes).unwrap(), command);
}
