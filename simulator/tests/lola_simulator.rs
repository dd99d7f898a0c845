//! The LoLA simulator over its real Unix socket: frame size and pacing, joints that follow
//! commands or sag, buttons, commands visible through the handle, and clients that misbehave.

use std::io::{ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use lola::codec::{decode_sensor_frame, encode_command, Command, SensorFrame, SENSOR_FRAME_SIZE};
use simulator::lola_simulator::{Button, LolaSimulator, SimulatorConfig, SimulatorError};
use simulator::simulated_body::SITTING_POSE_RAD;
use types::{JointId, JointRequest, Joints, LedRequest, Rgb};

fn start() -> (tempfile::TempDir, LolaSimulator) {
    let directory = tempfile::tempdir().unwrap();
    let simulator =
        LolaSimulator::start(SimulatorConfig::new(directory.path().join("robocup"))).unwrap();
    (directory, simulator)
}

fn connect(path: &Path) -> UnixStream {
    let stream = UnixStream::connect(path).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    stream
}

fn read_raw_frame(stream: &mut UnixStream) -> [u8; SENSOR_FRAME_SIZE] {
    let mut frame = [0; SENSOR_FRAME_SIZE];
    stream.read_exact(&mut frame).unwrap();
    frame
}

fn read_frame(stream: &mut UnixStream) -> SensorFrame {
    decode_sensor_frame(&read_raw_frame(stream)).unwrap()
}

fn send(stream: &mut UnixStream, command: &Command) {
    stream.write_all(&encode_command(command).unwrap()).unwrap();
}

/// Answers `frames` frames with `command` (as a LoLA client does) and returns the last frame.
fn run_with(stream: &mut UnixStream, command: &Command, frames: usize) -> SensorFrame {
    let mut frame = read_frame(stream);
    for _ in 0..frames {
        send(stream, command);
        frame = read_frame(stream);
    }
    frame
}

#[test]
fn frames_are_896_bytes_every_12_ms_with_an_upright_imu() {
    let (_directory, simulator) = start();
    let mut stream = connect(simulator.socket_path());
    let first = read_frame(&mut stream);
    let start = Instant::now();
    for _ in 0..50 {
        // read_exact of exactly 896 bytes per frame: a frame of another size would misalign
        // the next decode and fail it.
        read_frame(&mut stream);
    }
    let elapsed = start.elapsed();
    assert!(
        elapsed > Duration::from_millis(400) && elapsed < Duration::from_millis(1500),
        "50 frames took {elapsed:?}, expected about 600 ms"
    );
    // Nothing extra arrives in between: after a pause, the buffered bytes are whole frames.
    std::thread::sleep(Duration::from_millis(50));
    stream.set_nonblocking(true).unwrap();
    let mut buffered = Vec::new();
    let mut chunk = [0; 8192];
    while let Ok(count) = stream.read(&mut chunk) {
        if count == 0 {
            break;
        }
        buffered.extend_from_slice(&chunk[..count]);
    }
    assert!(!buffered.is_empty());
    assert_eq!(
        buffered.len() % SENSOR_FRAME_SIZE,
        0,
        "{} buffered bytes",
        buffered.len()
    );

    assert_eq!(first.robot_identity.body_id, "P0000073A07S94700012");
    assert_eq!(first.robot_identity.head_id, "P0000074A05S93M00061");
    let data = &first.sensor_data;
    assert!((data.inertial_measurement.accelerometer_m_per_s2.z - 9.81).abs() < 1e-4);
    assert!(!data.battery.charging);
    assert_eq!(data.battery.charge_fraction, 1.0);
    assert!(data.force_sensitive_resistors.left_foot.total_kg() > 0.0);
    assert!(simulator.handle().statistics().frames_sent >= 51);
}

#[test]
fn the_wire_carries_lolas_accelerometer_sign() {
    let (_directory, simulator) = start();
    let mut stream = connect(simulator.socket_path());
    let raw = read_raw_frame(&mut stream);
    // "Accelerometer" key, fixarray of 3, then three float32: z is the third.
    let key = b"\xadAccelerometer\x93";
    let start = raw
        .windows(key.len())
        .position(|window| window == key)
        .unwrap()
        + key.len();
    let z_bytes = &raw[start + 11..start + 15];
    assert_eq!(raw[start + 10], 0xca);
    let z = f32::from_be_bytes(z_bytes.try_into().unwrap());
    assert!(
        (z + 9.81).abs() < 1e-4,
        "LoLA reports upright as −9.81, got {z}"
    );
}

#[test]
fn stiff_joints_converge_to_the_command_and_limp_joints_sag() {
    let (_directory, simulator) = start();
    let mut stream = connect(simulator.socket_path());
    let mut target = Joints::filled(0.0_f32);
    target[JointId::HeadYaw] = 0.5;
    target[JointId::LeftShoulderPitch] = 1.5;
    target[JointId::RightShoulderPitch] = 1.5;
    target[JointId::LeftHand] = 0.8;
    let stand = JointRequest {
        positions_rad: target,
        stiffnesses: Joints::filled(1.0),
        ..Default::default()
    };
    // Largest distance is the knee, 2.12 rad at 5 rad/s: about 36 frames.
    let frame = run_with(&mut stream, &Command::joints(&stand), 80);
    for (joint, position) in frame.sensor_data.joint_positions_rad.iter() {
        assert!(
            (position - target[joint]).abs() < 1e-3,
            "{joint:?} at {position}, target {}",
            target[joint]
        );
    }
    assert_eq!(
        frame.sensor_data.joint_stiffnesses[JointId::LeftKneePitch],
        1.0
    );
    let standing_weight = frame
        .sensor_data
        .force_sensitive_resistors
        .left_foot
        .total_kg();

    let limp = JointRequest {
        positions_rad: target,
        stiffnesses: Joints::filled(0.0),
        ..Default::default()
    };
    let frame = run_with(&mut stream, &Command::joints(&limp), 10);
    let knee = frame.sensor_data.joint_positions_rad[JointId::LeftKneePitch];
    assert!(
        knee > 0.05 && knee < SITTING_POSE_RAD[JointId::LeftKneePitch],
        "sagging, not jumping: {knee}"
    );
    // Sag speed 1 rad/s: 2.12 rad in about 180 frames.
    let frame = run_with(&mut stream, &Command::joints(&limp), 250);
    for (joint, position) in frame.sensor_data.joint_positions_rad.iter() {
        assert!(
            (position - SITTING_POSE_RAD[joint]).abs() < 1e-3,
            "{joint:?} at {position}"
        );
    }
    assert!(
        frame
            .sensor_data
            .force_sensitive_resistors
            .left_foot
            .total_kg()
            < standing_weight / 2.0
    );
    assert_eq!(
        frame.sensor_data.joint_currents_ampere[JointId::LeftKneePitch],
        0.0
    );
}

#[test]
fn pressed_buttons_show_in_decoded_sensor_data() {
    let (_directory, simulator) = start();
    let handle = simulator.handle();
    let mut stream = connect(simulator.socket_path());
    assert!(!read_frame(&mut stream).sensor_data.touch.chest_button);
    handle.press(Button::Chest, Duration::from_millis(150));
    handle.press(Button::HeadRear, Duration::from_secs(10));
    let mut chest_seen = 0;
    let mut frame = read_frame(&mut stream);
    for _ in 0..40 {
        frame = read_frame(&mut stream);
        if frame.sensor_data.touch.chest_button {
            chest_seen += 1;
        }
        assert!(frame.sensor_data.touch.head_rear);
        assert!(!frame.sensor_data.touch.head_front);
    }
    assert!(
        (3..40).contains(&chest_seen),
        "chest pressed in {chest_seen} of 40 frames"
    );
    assert!(
        !frame.sensor_data.touch.chest_button,
        "released after its duration"
    );
    handle.release(Button::HeadRear);
    read_frame(&mut stream);
    assert!(!read_frame(&mut stream).sensor_data.touch.head_rear);
}

#[test]
fn the_handle_shows_the_last_command_and_the_merged_actuators() {
    let (_directory, simulator) = start();
    let handle = simulator.handle();
    assert_eq!(handle.last_command(), None);
    let mut stream = connect(simulator.socket_path());
    let mut leds = LedRequest {
        chest: Rgb::BLUE,
        ..Default::default()
    };
    leds.right_eye.segments[2] = Rgb::RED;
    let joints = JointRequest {
        positions_rad: Joints::filled(0.1),
        stiffnesses: Joints::filled(0.6),
        ..Default::default()
    };
    read_frame(&mut stream);
    send(&mut stream, &Command::joints_and_leds(&joints, &leds));
    // rUNSWift's second map in the same cycle.
    stream.write_all(b"\x81\xa5Sonar\x92\xc3\xc2").unwrap();
    read_frame(&mut stream);
    read_frame(&mut stream);
    let last = handle.last_command().unwrap();
    assert_eq!(last.key_count(), 1, "the last map was only Sonar");
    let actuators = handle.actuators();
    assert_eq!(actuators.chest, Some(Rgb::BLUE));
    assert_eq!(actuators.right_eye.unwrap().segments[2], Rgb::RED);
    assert_eq!(actuators.stiffnesses, Some(Joints::filled(0.6)));
    assert_eq!(
        actuators.sonar.map(|sonar| (sonar.left, sonar.right)),
        Some((true, false))
    );
    assert_eq!(handle.statistics().commands_received, 2);
}

#[test]
fn a_command_split_across_writes_is_reassembled() {
    let (_directory, simulator) = start();
    let handle = simulator.handle();
    let mut stream = connect(simulator.socket_path());
    let joints = JointRequest {
        positions_rad: Joints::filled(0.2),
        stiffnesses: Joints::filled(0.9),
        ..Default::default()
    };
    let bytes = encode_command(&Command::joints(&joints)).unwrap();
    read_frame(&mut stream);
    stream.write_all(&bytes[..100]).unwrap();
    read_frame(&mut stream);
    read_frame(&mut stream);
    assert_eq!(handle.statistics().commands_received, 0);
    stream.write_all(&bytes[100..]).unwrap();
    read_frame(&mut stream);
    read_frame(&mut stream);
    assert_eq!(
        handle.last_command().unwrap().stiffnesses,
        Some(Joints::filled(0.9))
    );
    assert_eq!(handle.statistics().clients_dropped, 0);
}

#[test]
fn a_garbage_sending_client_is_dropped_and_the_next_is_served() {
    let (_directory, simulator) = start();
    let handle = simulator.handle();
    let mut bad = connect(simulator.socket_path());
    read_frame(&mut bad);
    bad.write_all(b"this is not msgpack at all").unwrap();
    // The simulator closes the connection: reads end in EOF (or a reset) after the frames
    // already in flight.
    let mut chunk = [0; 4096];
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match bad.read(&mut chunk) {
            Ok(0) => break,
            Ok(_) => assert!(Instant::now() < deadline, "still served after garbage"),
            Err(error) if error.kind() == ErrorKind::ConnectionReset => break,
            Err(error) => panic!("unexpected read error {error}"),
        }
    }
    assert_eq!(handle.statistics().clients_dropped, 1);

    let mut good = connect(simulator.socket_path());
    let frame = run_with(&mut good, &Command::joints(&JointRequest::default()), 3);
    assert_eq!(frame.robot_identity.body_version, "6.0.0");
    assert_eq!(handle.statistics().clients_accepted, 2);
    assert_eq!(handle.statistics().commands_received, 3);
}

#[test]
fn one_client_at_a_time_and_the_next_after_a_disconnect() {
    let (_directory, simulator) = start();
    let handle = simulator.handle();
    let mut first = connect(simulator.socket_path());
    read_frame(&mut first);
    let mut second = connect(simulator.socket_path());
    second
        .set_read_timeout(Some(Duration::from_millis(150)))
        .unwrap();
    let mut byte = [0; 1];
    let error = second.read(&mut byte).unwrap_err();
    assert!(
        matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
        "{error}"
    );
    assert_eq!(handle.statistics().clients_accepted, 1);

    drop(first);
    second
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let frame = read_frame(&mut second);
    assert_eq!(frame.robot_identity.head_version, "6.0.0");
    assert_eq!(handle.statistics().clients_accepted, 2);
    assert_eq!(handle.statistics().clients_disconnected, 1);
    assert_eq!(handle.statistics().clients_dropped, 0);
}

#[test]
fn the_simulated_body_moves_without_a_client() {
    let directory = tempfile::tempdir().unwrap();
    let mut config = SimulatorConfig::new(directory.path().join("robocup"));
    config.rest_pose_rad = Joints::filled(0.0);
    let simulator = LolaSimulator::start(config).unwrap();
    // Starts in the rest pose, which the config set to zero.
    assert_eq!(
        simulator.handle().joint_positions_rad(),
        Joints::filled(0.0)
    );
}

#[test]
fn bad_configurations_are_refused() {
    let directory = tempfile::tempdir().unwrap();
    let mut config = SimulatorConfig::new(directory.path().join("robocup"));
    config.robot_identity.body_id = "short".into();
    assert!(matches!(
        LolaSimulator::start(config),
        Err(SimulatorError::FrameSize { found: 881 })
    ));

    let file = directory.path().join("a-file");
    std::fs::write(&file, b"keep me").unwrap();
    assert!(matches!(
        LolaSimulator::start(SimulatorConfig::new(&file)),
        Err(SimulatorError::PathNotASocket { .. })
    ));
    assert_eq!(std::fs::read(&file).unwrap(), b"keep me");

    // A stale socket from a crashed run is replaced; the socket is removed on drop.
    let path = directory.path().join("robocup");
    drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
    let simulator = LolaSimulator::start(SimulatorConfig::new(&path)).unwrap();
    let mut stream = connect(&path);
    read_frame(&mut stream);
    drop(simulator);
    assert!(!path.exists());
}
