//! The `lola` bridge against a hostile LoLA peer (testkit/src/hostile_lola.rs) over a real
//! socket, with this test playing the motion process: every kind of malformed frame, NaN and
//! impossible values, LoLA stalls, a flood of garbage, a new bridge onto a robot the old one sat
//! down, a motion that jumps, and parameters that must be refused. Each test checks what the
//! robot did (from the commands the peer received and its body), what the health record says
//! (rejected inputs, faults, heartbeats) and that the bridge still stops on request.

use framework::runtime::Channels;
use framework::ProcessPlan;
use ipc::{HealthBoard, HealthRecord};
use lola::bridge::{self, BridgeError, BridgeOutcome, BridgeSetup};
use lola::codec::SENSOR_FRAME_SIZE;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use testkit::hostile_lola::{largest_stiff_step, Fault, HostileLola};
use types::{JointId, JointRequest, Joints, Rgb, SensorData};

/// The bridge's default `max_target_step_rad`, plus rounding.
const STEP_BOUND: f32 = 0.1 + 1e-4;
/// A joint counts as stiff above this.
const STIFF: f32 = 0.3;
/// Generous: only waits, never a speed requirement.
const LONG: Duration = Duration::from_secs(20);

struct Rig {
    _folder: tempfile::TempDir,
    peer: HostileLola,
    socket: std::path::PathBuf,
    config: config::Config,
    channels: Channels,
    board: HealthBoard,
    plan: ProcessPlan,
}

fn rig(bridge_parameters: &str) -> Rig {
    let folder = tempfile::tempdir().unwrap();
    let socket = folder.path().join("robocup");
    let peer = HostileLola::start(&socket);
    let root = folder.path().join("config");
    let config = testkit::bridge::configuration(&root, bridge_parameters);
    let channels = testkit::bridge::channels();
    let plan = testkit::bridge::plan();
    Rig {
        _folder: folder,
        peer,
        socket,
        config,
        channels,
        board: HealthBoard::create("health", 1).unwrap(),
        plan,
    }
}

impl Rig {
    fn run_bridge(&self, stop: &Arc<AtomicBool>) -> Result<BridgeOutcome, BridgeError> {
        let table = self.config.process_table();
        bridge::run(BridgeSetup {
            plan: &self.plan,
            spec: &table.processes()[0],
            config: &self.config,
            channels: &self.channels,
            health: (&self.board, 0),
            socket: &self.socket,
            stop: stop.clone(),
            restarts: 0,
            last_exit: ipc::health::ExitReason::None,
        })
    }

    fn record(&self) -> HealthRecord {
        self.board
            .read(0)
            .unwrap()
            .expect("the bridge's health record")
    }

    fn sensor_data(&self) -> SensorData {
        let mut bytes = Vec::new();
        let buffer = self.channels.get("SensorData").unwrap();
        buffer.reader().read_latest(&mut bytes).unwrap().unwrap();
        ipc::channel::decode(&bytes).unwrap()
    }

    /// Waits until the peer has applied its faults and sent `frames` more frames.
    fn settle(&self, frames: u64) {
        self.peer
            .wait_until("the faults to be sent", LONG, |peer| peer.faults_done());
        let sent = self.peer.frames_sent();
        self.peer.wait_until("more frames", LONG, |peer| {
            peer.frames_sent() >= sent + frames
        });
    }
}

/// Sets its flags when dropped, also while a failed assertion unwinds: the bridge and motion
/// threads then end and the test fails instead of hanging in `thread::scope`.
struct EndOnDrop<'a>(&'a AtomicBool, &'a AtomicBool);

impl Drop for EndOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
        self.1.store(true, Ordering::SeqCst);
    }
}

/// How the test's motion answers.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Style {
    /// Like the motion process: re-plans from the measured pose on a new epoch, then moves
    /// towards the stand at most 0.04 rad per frame.
    Replans = 0,
    /// Sends the stand pose, still for the first epoch it saw.
    IgnoresEpochs = 1,
    /// Echoes the epoch but sends the stand pose at once.
    Jumps = 2,
}

fn stand_pose() -> Joints<f32> {
    let mut pose = Joints::filled(0.0);
    for (joint, angle) in [
        (JointId::LeftKneePitch, 0.87),
        (JointId::RightKneePitch, 0.87),
        (JointId::LeftHipPitch, -0.4),
        (JointId::RightHipPitch, -0.4),
        (JointId::LeftAnklePitch, -0.47),
        (JointId::RightAnklePitch, -0.47),
        (JointId::LeftShoulderPitch, 1.5),
        (JointId::RightShoulderPitch, 1.5),
    ] {
        pose[joint] = angle;
    }
    pose
}

/// Plays motion until `done`: one request per SensorData, in the style `style` says.
fn motion(rig: &Rig, style: &AtomicU8, done: &AtomicBool) {
    let sensors = rig.channels.get("SensorData").unwrap();
    let mut reader = sensors.reader();
    let mut writer = rig.channels.get("JointRequest").unwrap().writer().unwrap();
    let goal = stand_pose();
    let mut seen = reader.published();
    let mut planned: Option<(u64, Joints<f32>)> = None;
    let mut first_epoch = None;
    let mut bytes = Vec::new();
    while !done.load(Ordering::Relaxed) {
        let Some(count) = reader.wait_newer(seen, Duration::from_millis(50)).unwrap() else {
            continue;
        };
        seen = count;
        reader.read_latest(&mut bytes).unwrap();
        let sensor_data: SensorData = ipc::channel::decode(&bytes).unwrap();
        let epoch = sensor_data.pose_epoch;
        let first = *first_epoch.get_or_insert(epoch);
        let request = match style.load(Ordering::Relaxed) {
            0 => {
                let from = match planned {
                    Some((planned_epoch, last)) if planned_epoch == epoch => last,
                    _ => sensor_data.joint_positions_rad,
                };
                let next = Joints::from_fn(|joint| {
                    from[joint] + (goal[joint] - from[joint]).clamp(-0.04, 0.04)
                });
                planned = Some((epoch, next));
                JointRequest {
                    positions_rad: next,
                    stiffnesses: Joints::filled(0.8),
                    pose_epoch: epoch,
                }
            }
            1 => JointRequest {
                positions_rad: goal,
                stiffnesses: Joints::filled(0.8),
                pose_epoch: first,
            },
            2 => JointRequest {
                positions_rad: goal,
                stiffnesses: Joints::filled(0.8),
                pose_epoch: epoch,
            },
            _ => continue,
        };
        ipc::channel::encode(&request, &mut bytes).unwrap();
        writer.publish(&bytes).unwrap();
    }
}

fn assert_no_stiff_jump(rig: &Rig, what: &str) {
    let received = rig.peer.received();
    let (step, joint, index) = largest_stiff_step(&received, STIFF);
    assert!(
        step <= STEP_BOUND,
        "{what}: {joint:?} target jumped {step} rad at command {index} of {}",
        received.len()
    );
}

#[test]
fn every_kind_of_malformed_frame_is_rejected_counted_and_answered_with_a_hold() {
    let rig = rig("");
    let stop = Arc::new(AtomicBool::new(false));
    let (style, done) = (AtomicU8::new(Style::Replans as u8), AtomicBool::new(false));
    std::thread::scope(|scope| {
        let _end = EndOnDrop(&stop, &done);
        let bridge = scope.spawn(|| rig.run_bridge(&stop));
        scope.spawn(|| motion(&rig, &style, &done));
        rig.peer.wait_until("standing", LONG, HostileLola::standing);
        rig.settle(20);
        let mut garbage = vec![0_u8; SENSOR_FRAME_SIZE];
        let mut seed = 0x2545_f491_u32;
        for byte in &mut garbage {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            *byte = seed as u8;
        }
        for (name, fault, rejections) in [
            ("zero-filled", Fault::Replace(vec![0; SENSOR_FRAME_SIZE]), 1),
            ("900 bytes", Fault::Append(vec![0xc1; 4]), 1),
            ("truncated", Fault::Truncate(500), 1),
            ("wrong types", Fault::WrongType { key: "Position" }, 1),
            ("random bytes", Fault::Replace(garbage.clone()), 1),
            ("empty map", Fault::Replace(vec![0x80]), 1),
            ("three zero frames", Fault::ZeroFrames(3), 3),
        ] {
            let before = rig.record();
            let commands = rig.peer.received().len();
            let frames = rig.peer.frames_sent();
            rig.peer.inject(fault);
            rig.settle(10);
            let after = rig.record();
            assert_eq!(
                after.rejected_inputs - before.rejected_inputs,
                rejections,
                "{name}: rejected inputs counted"
            );
            let fault_text = after.fault().unwrap_or_default();
            assert!(
                fault_text.contains("stream byte") || fault_text.contains("frame"),
                "{name}: the fault says what: {fault_text}"
            );
            assert!(
                after.last_tick_ns > before.last_tick_ns && after.ticks > before.ticks,
                "{name}: heartbeats and ticks go on"
            );
            let answered = (rig.peer.received().len() - commands) as u64;
            let sent = rig.peer.frames_sent() - frames;
            // The newest frame's command may still be on its way; a cut frame is answered
            // together with the frame that shows where it ends.
            assert!(
                answered + 2 >= sent,
                "{name}: {answered} commands for {sent} frames (a bad frame is answered with a hold)"
            );
            assert!(rig.peer.standing(), "{name}: the robot still stands");
            assert_eq!(rig.peer.clients(), 1, "{name}: no reconnect");
        }
        assert_no_stiff_jump(&rig, "malformed frames");
        assert!(rig.peer.dropped().is_empty(), "{:?}", rig.peer.dropped());

        stop.store(true, Ordering::SeqCst);
        assert_eq!(bridge.join().unwrap().unwrap(), BridgeOutcome::Stopped);
        done.store(true, Ordering::SeqCst);
    });
    let actuators = rig.peer.actuators();
    assert!(actuators
        .stiffnesses
        .unwrap()
        .values
        .iter()
        .all(|&s| s == 0.0));
    assert_eq!(actuators.left_eye.unwrap().segments[0], Rgb::BLUE);
}

#[test]
fn a_non_finite_or_impossible_value_takes_its_last_good_value_and_many_reject_the_frame() {
    let rig = rig("");
    let stop = Arc::new(AtomicBool::new(false));
    let (style, done) = (AtomicU8::new(Style::Replans as u8), AtomicBool::new(false));
    std::thread::scope(|scope| {
        let _end = EndOnDrop(&stop, &done);
        let bridge = scope.spawn(|| rig.run_bridge(&stop));
        scope.spawn(|| motion(&rig, &style, &done));
        rig.peer.wait_until("standing", LONG, HostileLola::standing);
        rig.settle(20);
        for (key, index, value) in [
            ("Position", 10, f32::NAN),
            ("Accelerometer", 2, f32::INFINITY),
            ("Position", 15, 1.0e30),
            ("Stiffness", 10, f32::NEG_INFINITY),
        ] {
            let before = rig.record();
            rig.peer.inject(Fault::NonFinite { key, index, value });
            // Watch every SensorData the bridge publishes meanwhile: all finite.
            let until = rig.peer.frames_sent() + 10;
            while rig.peer.frames_sent() < until {
                let sensor_data = rig.sensor_data();
                let knee = sensor_data.joint_positions_rad[JointId::LeftKneePitch];
                let right = sensor_data.joint_positions_rad[JointId::RightKneePitch];
                let gravity = sensor_data.inertial_measurement.accelerometer_m_per_s2.z;
                assert!(
                    knee.is_finite() && right.abs() < 7.0 && gravity.is_finite(),
                    "{key}[{index}] = {value}: published knee {knee}, right {right}, z {gravity}"
                );
                std::thread::sleep(Duration::from_millis(2));
            }
            let after = rig.record();
            assert_eq!(after.faults, before.faults + 1, "{key}[{index}]: one fault");
            assert_eq!(
                after.rejected_inputs, before.rejected_inputs,
                "{key}[{index}]: the frame itself is used"
            );
            assert!(
                after.fault().unwrap().contains("replaced"),
                "{:?}",
                after.fault()
            );
            assert!(rig.peer.standing(), "{key}[{index}]: still standing");
        }
        let before = rig.record();
        rig.peer.inject(Fault::NonFiniteArray {
            key: "Position",
            length: 25,
            value: f32::NAN,
        });
        rig.settle(10);
        let after = rig.record();
        assert_eq!(after.rejected_inputs, before.rejected_inputs + 1);
        assert!(
            after.fault().unwrap().contains("25 values"),
            "{:?}",
            after.fault()
        );
        assert!(rig.peer.standing());
        assert_no_stiff_jump(&rig, "non-finite values");
        stop.store(true, Ordering::SeqCst);
        assert_eq!(bridge.join().unwrap().unwrap(), BridgeOutcome::Stopped);
        done.store(true, Ordering::SeqCst);
    });
}

#[test]
fn a_stall_is_waited_out_with_heartbeats_and_motion_replans_after_it() {
    let rig = rig("");
    let stop = Arc::new(AtomicBool::new(false));
    let (style, done) = (AtomicU8::new(Style::Replans as u8), AtomicBool::new(false));
    std::thread::scope(|scope| {
        let _end = EndOnDrop(&stop, &done);
        let bridge = scope.spawn(|| rig.run_bridge(&stop));
        scope.spawn(|| motion(&rig, &style, &done));
        rig.peer.wait_until("standing", LONG, HostileLola::standing);
        rig.settle(10);
        let before = rig.record();
        let epoch = rig.sensor_data().pose_epoch;
        rig.peer.inject(Fault::Stall(Duration::from_secs(3)));
        let mut heartbeats = 0;
        let mut last = before.last_tick_ns;
        while !rig.peer.faults_done() {
            let record = rig.record();
            if record.last_tick_ns != last {
                heartbeats += 1;
                last = record.last_tick_ns;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            heartbeats >= 20,
            "the bridge kept its heartbeat while LoLA was silent: {heartbeats} changes seen"
        );
        rig.settle(10);
        let after = rig.record();
        assert_eq!(after.faults, before.faults + 1, "the silence is one fault");
        assert_eq!(after.rejected_inputs, before.rejected_inputs);
        assert_eq!(rig.peer.clients(), 1, "waited out, not reconnected");
        assert!(
            rig.sensor_data().pose_epoch > epoch,
            "a new pose epoch after the silence"
        );
        assert!(rig.peer.standing(), "still standing after the stall");
        assert_no_stiff_jump(&rig, "after a stall");

        // Asked to stop in the middle of a long silence: the bridge does not wait for LoLA.
        rig.peer.inject(Fault::Stall(Duration::from_secs(30)));
        rig.peer
            .wait_until("the stall", LONG, |peer| !peer.faults_done());
        std::thread::sleep(Duration::from_millis(200));
        stop.store(true, Ordering::SeqCst);
        assert_eq!(bridge.join().unwrap().unwrap(), BridgeOutcome::Stopped);
        assert!(
            !rig.peer.faults_done(),
            "stopped while LoLA was still silent"
        );
        done.store(true, Ordering::SeqCst);
    });
}

#[test]
fn a_flood_of_bad_frames_holds_then_reconnects_and_a_stop_still_sits_the_robot_down() {
    let rig = rig("reconnect_after_bad_frames = 10\n");
    let stop = Arc::new(AtomicBool::new(false));
    let (style, done) = (AtomicU8::new(Style::Replans as u8), AtomicBool::new(false));
    std::thread::scope(|scope| {
        let _end = EndOnDrop(&stop, &done);
        let bridge = scope.spawn(|| rig.run_bridge(&stop));
        scope.spawn(|| motion(&rig, &style, &done));
        rig.peer.wait_until("standing", LONG, HostileLola::standing);
        rig.peer.inject(Fault::ZeroFrames(15));
        rig.peer
            .wait_until("a reconnect", LONG, |peer| peer.clients() == 2);
        rig.settle(30);
        assert!(rig.peer.standing(), "held, then followed again");
        assert!(rig.record().rejected_inputs >= 10);

        // Only garbage from now on; a stop sits the robot down from the last good frame (and
        // does not reconnect however many bad frames follow).
        let mut knees = Vec::new();
        let frames = rig.peer.frames_sent();
        rig.peer.inject(Fault::ZeroFrames(1000));
        rig.peer
            .wait_until("garbage", LONG, |peer| peer.frames_sent() >= frames + 3);
        stop.store(true, Ordering::SeqCst);
        let started = Instant::now();
        while !bridge.is_finished() && started.elapsed() < LONG {
            knees.push(rig.peer.positions_rad()[JointId::LeftKneePitch]);
            std::thread::sleep(Duration::from_millis(12));
        }
        assert_eq!(bridge.join().unwrap().unwrap(), BridgeOutcome::Stopped);
        done.store(true, Ordering::SeqCst);
        let knee = rig.peer.positions_rad()[JointId::LeftKneePitch];
        assert!(
            knee > 1.8,
            "sat down while LoLA sent only zeros: knee {knee}"
        );
        assert!(knees.windows(2).all(|pair| pair[1] >= pair[0] - 1e-3));
        assert_eq!(rig.peer.clients(), 2, "no reconnect while sitting down");
    });
    assert_no_stiff_jump(&rig, "flood and stop");
    let actuators = rig.peer.actuators();
    assert!(actuators
        .stiffnesses
        .unwrap()
        .values
        .iter()
        .all(|&s| s == 0.0));
}

#[test]
fn a_new_bridge_applies_only_motion_that_replanned_and_never_jumps() {
    let rig = rig("sit_duration_ms = 600\n");
    let (style, done) = (AtomicU8::new(Style::Replans as u8), AtomicBool::new(false));
    let (stop_first, stop_second) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    );
    std::thread::scope(|scope| {
        let _end = (
            EndOnDrop(&stop_first, &done),
            EndOnDrop(&stop_second, &done),
        );
        scope.spawn(|| motion(&rig, &style, &done));
        // The first bridge stands the robot up, then is stopped: it sits the robot down.
        let stop = &stop_first;
        let first = scope.spawn(|| rig.run_bridge(stop));
        rig.peer.wait_until("standing", LONG, HostileLola::standing);
        style.store(Style::IgnoresEpochs as u8, Ordering::SeqCst);
        stop.store(true, Ordering::SeqCst);
        assert_eq!(first.join().unwrap().unwrap(), BridgeOutcome::Stopped);
        let knee = rig.peer.positions_rad()[JointId::LeftKneePitch];
        assert!(knee > 1.8, "the first bridge sat the robot down: {knee}");

        // A new bridge while motion still sends the stand it planned before: not applied.
        let stop = &stop_second;
        let second = scope.spawn(|| rig.run_bridge(stop));
        rig.peer
            .wait_until("the second bridge", LONG, |peer| peer.clients() == 2);
        let commands = rig.peer.received().len();
        let frames = rig.peer.frames_sent();
        rig.peer
            .wait_until("50 frames", LONG, |peer| peer.frames_sent() >= frames + 50);
        let limp = rig.peer.received()[commands..].iter().all(|entry| {
            entry.client != 2 || entry.actuators.stiffnesses.unwrap()[JointId::LeftKneePitch] < 0.05
        });
        assert!(
            limp,
            "the old plan's stiff stand was sent onto the sitting robot"
        );
        assert!(rig.peer.positions_rad()[JointId::LeftKneePitch] > 1.8);

        // Motion that echoes the epoch but jumps: the bridge limits every step.
        style.store(Style::Jumps as u8, Ordering::SeqCst);
        rig.peer.wait_until("standing", LONG, HostileLola::standing);
        assert_no_stiff_jump(&rig, "a jumping motion");
        stop.store(true, Ordering::SeqCst);
        assert_eq!(second.join().unwrap().unwrap(), BridgeOutcome::Stopped);
        done.store(true, Ordering::SeqCst);
    });
    assert_no_stiff_jump(&rig, "a new bridge");
}

#[test]
fn non_finite_huge_and_out_of_range_parameters_are_refused_before_lola_is_touched() {
    for (text, key) in [
        ("motion_wait_ms = inf\n", "motion_wait_ms"),
        ("sit_after_ms = 1e38\n", "sit_after_ms"),
        ("sit_stiffness = 5\n", "sit_stiffness"),
        ("max_target_step_rad = nan\n", "max_target_step_rad"),
    ] {
        let rig = rig(text);
        let stop = Arc::new(AtomicBool::new(false));
        let error = rig.run_bridge(&stop).unwrap_err();
        assert!(matches!(error, BridgeError::Config(_)), "{text}: {error}");
        let message = error.to_string();
        assert!(
            message.contains("LolaBridge.toml:1") && message.contains(key),
            "{text}: {message}"
        );
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(rig.peer.clients(), 0, "{text}: LoLA was not connected");
    }
}
