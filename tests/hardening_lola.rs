//! Issue 9, items 5–8, against the real `cortex` binary with a hostile LoLA peer of our own
//! (`testkit/src/hostile_lola.rs`, attached with `--lola-socket`) that records every command it
//! receives: LoLA stalls of 3 s and 8 s are waited out without a restart or the safe state;
//! malformed frames and NaN values keep the robot standing and show in `cortex status` and the
//! log; `cortex restart lola` and a frozen motion that resumes after the robot was sat down never
//! make a stiff joint's target jump; broken bridge parameters are refused at start. Every test
//! checks that nothing of its instance is left running.

mod support;

use lola::codec::SENSOR_FRAME_SIZE;
use std::time::{Duration, Instant};
use support::{config_copy, pids_mentioning, send_signal, Instance, ProcessState, ProcessStatus};
use testkit::hostile_lola::{largest_stiff_step, Fault, HostileLola};
use types::JointId;

/// The bridge's `max_target_step_rad`, plus rounding.
const STEP_BOUND: f32 = 0.1 + 1e-4;
/// Generous: only waits, never a speed requirement.
const LONG: Duration = Duration::from_secs(30);

struct Rig {
    peer: HostileLola,
    instance: Instance,
    _folder: tempfile::TempDir,
}

fn start(name: &str, extra: &[&str]) -> Rig {
    let folder = tempfile::tempdir().unwrap();
    let socket = folder.path().join("robocup");
    let peer = HostileLola::start(&socket);
    let mut arguments = vec!["--lola-socket", socket.to_str().unwrap()];
    arguments.extend_from_slice(extra);
    let instance = Instance::start(name, &arguments);
    peer.wait_until("the robot standing", LONG, HostileLola::standing);
    Rig {
        peer,
        instance,
        _folder: folder,
    }
}

impl Rig {
    fn lola(&self) -> ProcessStatus {
        self.instance.process("lola")
    }

    fn settle(&self, frames: u64) {
        self.peer
            .wait_until("the faults to be sent", LONG, |peer| peer.faults_done());
        let sent = self.peer.frames_sent();
        self.peer.wait_until("more frames", LONG, |peer| {
            peer.frames_sent() >= sent + frames
        });
    }

    fn assert_no_stiff_jump(&self, what: &str, from: usize) {
        let received = self.peer.received();
        let (step, joint, index) = largest_stiff_step(&received[from.min(received.len())..], 0.3);
        assert!(
            step <= STEP_BOUND,
            "{what}: {joint:?} target jumped {step} rad at command {} of {}\nlog:\n{}",
            from + index,
            received.len(),
            self.instance.log()
        );
    }

    /// Stops the instance cleanly and checks that none of its processes is left.
    fn finish(mut self) {
        assert_eq!(
            self.instance.terminate().code(),
            Some(0),
            "{}",
            self.instance.log()
        );
        let left = pids_mentioning(&self.instance.name);
        assert!(left.is_empty(), "left running: {left:?}");
        assert!(
            !self.instance.run_dir.exists(),
            "the run directory is removed"
        );
    }
}

#[test]
fn lola_stalls_of_3_and_8_seconds_are_waited_out_without_a_restart() {
    let rig = start("lola-stall", &[]);
    let pid = rig.instance.pid("lola");
    for seconds in [3, 8] {
        let commands = rig.peer.received().len();
        rig.peer.inject(Fault::Stall(Duration::from_secs(seconds)));
        rig.settle(50);
        let lola = rig.lola();
        assert_eq!(
            lola.restarts,
            0,
            "{seconds} s stall: {lola}\n{}",
            rig.instance.log()
        );
        assert_eq!(lola.state, ProcessState::Running, "{lola}");
        assert_eq!(rig.instance.pid("lola"), pid, "the same bridge");
        assert!(rig.instance.status().safe_state.is_none());
        assert_eq!(rig.peer.clients(), 1, "no reconnect");
        assert!(rig.peer.standing(), "{seconds} s stall: still standing");
        rig.assert_no_stiff_jump(&format!("after a {seconds} s stall"), commands);
    }
    let log = rig.instance.log();
    assert!(log.contains("LoLA silent for"), "{log}");
    assert!(log.contains("LoLA is back after"), "{log}");
    assert!(!log.contains("froze"), "{log}");
    assert!(rig.lola().faults >= 2);
    rig.finish();
}

#[test]
fn malformed_frames_and_nan_values_keep_the_robot_standing_and_show_in_status() {
    let rig = start("lola-malformed", &[]);
    let commands = rig.peer.received().len();
    for fault in [
        Fault::Replace(vec![0; SENSOR_FRAME_SIZE]),
        Fault::Append(vec![0xc1; 4]),
        Fault::Truncate(500),
        Fault::WrongType { key: "Position" },
        Fault::ZeroFrames(5),
    ] {
        rig.peer.inject(fault);
        rig.settle(5);
    }
    rig.peer.inject(Fault::NonFinite {
        key: "Position",
        index: 10,
        value: f32::NAN,
    });
    rig.peer.inject(Fault::NonFinite {
        key: "Gyroscope",
        index: 1,
        value: f32::INFINITY,
    });
    rig.settle(50);
    let lola = rig.lola();
    assert_eq!(lola.rejected_inputs, 9, "{lola}\n{}", rig.instance.log());
    assert_eq!(lola.restarts, 0, "{lola}");
    assert!(lola.faults >= 2, "replaced values: {lola}");
    assert!(rig.instance.status().safe_state.is_none());
    assert_eq!(rig.peer.clients(), 1);
    assert!(rig.peer.standing(), "still standing");
    rig.assert_no_stiff_jump("malformed frames", commands);
    let table = rig.instance.command(&["status"]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains("REJECTED"), "{text}");
    let log = rig.instance.log();
    assert!(log.contains("are not a frame"), "{log}");
    assert!(log.contains("stream byte"), "{log}");
    assert!(log.contains("joint_positions_rad[10]"), "{log}");
    // The SensorData everyone reads stayed finite.
    let sensors = rig.instance.get("SensorData");
    assert!(sensors["joint_positions_rad"][10]
        .as_f64()
        .unwrap()
        .is_finite());
    rig.finish();
}

#[test]
fn restarting_lola_sits_the_robot_down_and_the_new_bridge_never_jumps() {
    let rig = start("lola-restart", &[]);
    let commands = rig.peer.received().len();
    let old = rig.instance.pid("lola");
    let output = rig.instance.command(&["restart", "lola"]);
    assert!(output.status.success(), "{output:?}");
    rig.peer
        .wait_until("the new bridge", LONG, |peer| peer.clients() == 2);
    let sat = rig.peer.received().iter().any(|entry| {
        entry.client == 1 && entry.actuators.positions_rad.unwrap()[JointId::LeftKneePitch] > 1.8
    });
    assert!(sat, "the old bridge sat the robot down before it ended");
    rig.peer
        .wait_until("standing again", LONG, HostileLola::standing);
    assert_ne!(rig.instance.pid("lola"), old);
    rig.assert_no_stiff_jump("cortex restart lola", commands);
    // The new bridge's first stiff knee target is near where the knee was, not the stand.
    let first_stiff = rig
        .peer
        .received()
        .into_iter()
        .find(|entry| {
            entry.client == 2 && entry.actuators.stiffnesses.unwrap()[JointId::LeftKneePitch] > 0.3
        })
        .expect("the new bridge stands the robot up");
    let knee = first_stiff.actuators.positions_rad.unwrap()[JointId::LeftKneePitch];
    assert!(
        knee > 1.5,
        "first stiff knee target {knee}: not the stand pose"
    );
    rig.finish();
}

#[test]
fn a_frozen_motion_resuming_after_the_robot_sat_down_never_jumps() {
    // Motion's watchdog is long, so that the frozen motion stays frozen and then resumes.
    let (_config_folder, config) = config_copy();
    let table = config.join("default/processes.toml");
    let text = std::fs::read_to_string(&table).unwrap();
    std::fs::write(
        &table,
        text.replacen("watchdog_ms = 40", "watchdog_ms = 60000", 1),
    )
    .unwrap();
    let rig = start(
        "lola-motion-frozen",
        &["--config-dir", config.to_str().unwrap()],
    );
    let commands = rig.peer.received().len();
    let motion = rig.instance.pid("motion");
    send_signal(motion, 19); // SIGSTOP
    rig.peer.wait_until("sat down and limp", LONG, |peer| {
        let stiffness = peer.actuators().stiffnesses.unwrap()[JointId::LeftKneePitch];
        peer.positions_rad()[JointId::LeftKneePitch] > 1.8 && stiffness == 0.0
    });
    let resumed = rig.peer.received().len();
    send_signal(motion, 18); // SIGCONT
    rig.peer
        .wait_until("standing again", LONG, HostileLola::standing);
    rig.assert_no_stiff_jump("sitting down for a frozen motion", commands);
    rig.assert_no_stiff_jump("motion resumed", resumed);
    let first_stiff = rig.peer.received()[resumed..]
        .iter()
        .find(|entry| entry.actuators.stiffnesses.unwrap()[JointId::LeftKneePitch] > 0.3)
        .cloned()
        .expect("motion stands the robot up again");
    let knee = first_stiff.actuators.positions_rad.unwrap()[JointId::LeftKneePitch];
    assert!(knee > 1.5, "first stiff knee target after resuming: {knee}");
    assert_eq!(rig.instance.pid("motion"), motion, "not restarted");
    rig.finish();
}

#[test]
fn broken_bridge_parameters_are_refused_at_start_with_file_line_and_key() {
    for (line, key) in [
        ("motion_wait_ms = inf", "motion_wait_ms"),
        ("sit_after_ms = 1e38", "sit_after_ms"),
        ("sit_stiffness = 5", "sit_stiffness"),
    ] {
        let (_folder, config) = config_copy();
        let file = config.join("default/LolaBridge.toml");
        let text = std::fs::read_to_string(&file).unwrap();
        let original = text
            .lines()
            .find(|l| l.starts_with(&format!("{key} =")))
            .unwrap_or_else(|| panic!("{key} in LolaBridge.toml"))
            .to_owned();
        let number = text.lines().position(|l| l == original).unwrap() + 1;
        std::fs::write(&file, text.replacen(&original, line, 1)).unwrap();
        let output = std::process::Command::new(support::cortex())
            .args(["check", "--config-dir"])
            .arg(&config)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(78), "{line}: {stderr}");
        assert!(
            stderr.contains(&format!("LolaBridge.toml:{number}")) && stderr.contains(key),
            "{line}: {stderr}"
        );

        let run_dir = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new(support::cortex())
            .args(["run", "--sim", "--run-dir"])
            .arg(run_dir.path().join("run"))
            .arg("--config-dir")
            .arg(&config)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + LONG;
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{line}: cortex run did not refuse the configuration");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(status.code(), Some(78), "{line}: cortex run");
    }
}
