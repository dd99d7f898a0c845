//! The LoLA simulator and the `lola` bridge together over the real socket, with this test playing
//! the motion process: frames every 12 ms, a command answered every cycle, joints converging to
//! the commanded pose, the chest button in `SensorData`; then motion stops publishing — the bridge
//! holds the pose with stiffness, sits the robot down after the configured time and lets it go
//! limp; a clean stop leaves stiffness zero and blue eyes. And no LoLA at all is a clear error.

use framework::Representation;
use ipc::{HealthBoard, TripleBuffer};
use lola::bridge::{self, BridgeError, BridgeOutcome, BridgeSetup};
use simulator::lola_simulator::{Button, LolaSimulator, SimulatorConfig};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use testkit::bridge::{channels as bridge_channels, configuration, plan};
use types::{JointId, JointRequest, Joints, Rgb, RobotIdentity, SensorData};

fn publish<T: Representation>(writer: &mut ipc::Writer<'_>, value: &T) {
    let mut bytes = Vec::new();
    ipc::channel::encode(value, &mut bytes).unwrap();
    writer.publish(&bytes).unwrap();
}

fn latest<T: Representation>(buffer: &TripleBuffer) -> Option<(u64, T)> {
    let mut bytes = Vec::new();
    let count = buffer.reader().read_latest(&mut bytes).unwrap()?;
    Some((count, ipc::channel::decode(&bytes).unwrap()))
}

fn target_pose() -> JointRequest {
    let mut request = JointRequest {
        stiffnesses: Joints::filled(0.8),
        ..Default::default()
    };
    for (joint, angle) in [
        (JointId::LeftKneePitch, 0.9),
        (JointId::RightKneePitch, 0.9),
        (JointId::LeftHipPitch, -0.45),
        (JointId::RightHipPitch, -0.45),
        (JointId::LeftAnklePitch, -0.45),
        (JointId::RightAnklePitch, -0.45),
        (JointId::LeftShoulderPitch, 1.5),
        (JointId::RightShoulderPitch, 1.5),
        (JointId::HeadYaw, 0.3),
    ] {
        request.positions_rad[joint] = angle;
    }
    request
}

#[test]
fn bridge_and_simulator_over_the_real_socket() {
    let folder = tempfile::tempdir().unwrap();
    let socket = folder.path().join("lola.sock");
    let simulator = LolaSimulator::start(SimulatorConfig::new(&socket)).unwrap();
    let handle = simulator.handle();
    let config = configuration(
        &folder.path().join("config"),
        "motion_wait_ms = 6\nstale_after_ms = 36\nsit_after_ms = 400\nsit_duration_ms = 500\n",
    );
    let table = config.process_table();
    let channels = bridge_channels();
    let board = HealthBoard::create("health", 1).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let plan = plan();

    std::thread::scope(|scope| {
        let bridge = scope.spawn(|| {
            bridge::run(BridgeSetup {
                plan: &plan,
                spec: &table.processes()[0],
                config: &config,
                channels: &channels,
                health: (&board, 0),
                socket: &socket,
                stop: stop.clone(),
                restarts: 0,
                last_exit: ipc::health::ExitReason::None,
            })
        });

        // Motion: answer every SensorData with the target pose for 1.5 s.
        let sensors = channels.get("SensorData").unwrap();
        let mut reader = sensors.reader();
        let mut joints = channels.get("JointRequest").unwrap().writer().unwrap();
        let target = target_pose();
        let started = Instant::now();
        let mut seen = 0;
        let mut answered = 0;
        let first_frames = handle.statistics().frames_sent;
        while started.elapsed() < Duration::from_millis(1500) {
            if let Some(count) = reader.wait_newer(seen, Duration::from_millis(100)).unwrap() {
                seen = count;
                // Motion plans for the pose epoch of the SensorData it saw.
                let (_, sensor_data) = latest::<SensorData>(sensors).unwrap();
                let answer = JointRequest {
                    pose_epoch: sensor_data.pose_epoch,
                    ..target.clone()
                };
                publish(&mut joints, &answer);
                answered += 1;
            }
            if started.elapsed() > Duration::from_millis(1000)
                && started.elapsed() < Duration::from_millis(1100)
            {
                handle.press(Button::Chest, Duration::from_millis(200));
            }
        }
        let elapsed = started.elapsed().as_secs_f64();
        let statistics = handle.statistics();
        let frames = statistics.frames_sent - first_frames;
        let rate = frames as f64 / elapsed;
        assert!(
            (60.0..=100.0).contains(&rate),
            "{rate:.1} frames per second, LoLA sends 83.3"
        );
        assert!(
            answered as f64 >= frames as f64 * 0.9,
            "motion saw {answered} of {frames} frames"
        );
        assert!(
            statistics.commands_received + 2 >= statistics.frames_sent,
            "every frame answered: {} commands for {} frames",
            statistics.commands_received,
            statistics.frames_sent
        );
        let positions = handle.joint_positions_rad();
        for joint in [
            JointId::LeftKneePitch,
            JointId::LeftShoulderPitch,
            JointId::HeadYaw,
        ] {
            assert!(
                (positions[joint] - target.positions_rad[joint]).abs() < 0.05,
                "{joint:?} at {}",
                positions[joint]
            );
        }
        let (_, identity) =
            latest::<RobotIdentity>(channels.get("RobotIdentity").unwrap()).unwrap();
        assert_eq!(identity.body_id, "P0000073A07S94700012");
        // The chest button was pressed around 1.0–1.3 s; look at SensorData while it is held.
        handle.press(Button::Chest, Duration::from_millis(300));
        std::thread::sleep(Duration::from_millis(60));
        let (_, sensor_data) = latest::<SensorData>(sensors).unwrap();
        assert!(
            sensor_data.touch.chest_button,
            "the chest button shows in SensorData"
        );

        // Motion stops. The bridge holds the pose with stiffness…
        std::thread::sleep(Duration::from_millis(150));
        let actuators = handle.actuators();
        assert_eq!(
            actuators.stiffnesses.unwrap()[JointId::LeftKneePitch],
            0.8,
            "held with stiffness"
        );
        assert_eq!(
            actuators.positions_rad.unwrap()[JointId::LeftKneePitch],
            0.9,
            "held in place"
        );
        // …then sits down (400 ms after the last request, over 500 ms) and goes limp.
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let actuators = handle.actuators();
            let limp = actuators
                .stiffnesses
                .unwrap()
                .iter()
                .all(|(_, &s)| s == 0.0);
            if limp {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the robot never went limp: {actuators:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let knee = handle.joint_positions_rad()[JointId::LeftKneePitch];
        assert!(knee > 1.8, "sat down: knee at {knee}");

        // A clean stop: stiffness zero, eyes blue.
        stop.store(true, Ordering::SeqCst);
        assert_eq!(bridge.join().unwrap().unwrap(), BridgeOutcome::Stopped);
        let actuators = handle.actuators();
        assert!(actuators
            .stiffnesses
            .unwrap()
            .iter()
            .all(|(_, &s)| s == 0.0));
        assert_eq!(actuators.left_eye.unwrap().segments[0], Rgb::BLUE);
        assert_eq!(actuators.right_eye.unwrap().segments[5], Rgb::BLUE);
        let record = board.read(0).unwrap().unwrap();
        assert!(
            record.ticks > 100,
            "the bridge ticked once per frame: {}",
            record.ticks
        );
    });
}

#[test]
fn no_lola_is_a_clear_error_after_a_bounded_retry() {
    let folder = tempfile::tempdir().unwrap();
    let config = configuration(&folder.path().join("config"), "connect_timeout_ms = 200\n");
    let table = config.process_table();
    let channels = bridge_channels();
    let board = HealthBoard::create("health", 1).unwrap();
    let socket = folder.path().join("nobody-here.sock");
    let started = Instant::now();
    let error = bridge::run(BridgeSetup {
        plan: &plan(),
        spec: &table.processes()[0],
        config: &config,
        channels: &channels,
        health: (&board, 0),
        socket: &socket,
        stop: Arc::new(AtomicBool::new(false)),
        restarts: 0,
        last_exit: ipc::health::ExitReason::None,
    })
    .unwrap_err();
    assert!(matches!(error, BridgeError::NoLola { .. }), "{error}");
    assert!(error.to_string().contains("nobody-here.sock"), "{error}");
    assert!(
        started.elapsed() >= Duration::from_millis(200)
            && started.elapsed() < Duration::from_secs(5)
    );
}
