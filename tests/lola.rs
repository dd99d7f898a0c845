//! System tests of the LoLA side (issue 4) with the real binary: an independent LoLA-compatible
//! socket attached with `--lola-socket`, motion killed while the robot stands, motion frozen for
//! good, and the eyes after a clean stop.

mod support;

use serde_json::Value;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use support::{config_copy, send_signal, Instance};

/// A `cortex simulator` of its own, as an independent LoLA.
struct ExternalLola {
    child: Child,
    socket: std::path::PathBuf,
    control: std::path::PathBuf,
    _folder: tempfile::TempDir,
}

impl ExternalLola {
    fn start() -> ExternalLola {
        let folder = tempfile::tempdir().unwrap();
        let socket = folder.path().join("robocup");
        let control = folder.path().join("simulator.sock");
        let child = Command::new(support::cortex())
            .args(["simulator", "--socket"])
            .arg(&socket)
            .arg("--control")
            .arg(&control)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while !socket.exists() {
            assert!(Instant::now() < deadline, "the simulator did not start");
            std::thread::sleep(Duration::from_millis(5));
        }
        ExternalLola {
            child,
            socket,
            control,
            _folder: folder,
        }
    }

    fn eyes(&self) -> String {
        use std::io::{BufRead, BufReader, Write};
        let mut stream = std::os::unix::net::UnixStream::connect(&self.control).unwrap();
        stream.write_all(b"eyes\n").unwrap();
        let mut reply = String::new();
        BufReader::new(&stream).read_line(&mut reply).unwrap();
        reply
    }
}

impl Drop for ExternalLola {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn knees_and_stiffness(sensors: &Value) -> (f64, f64) {
    let positions = sensors["joint_positions_rad"]
        .as_array()
        .expect("joint positions");
    let stiffnesses = sensors["joint_stiffnesses"]
        .as_array()
        .expect("stiffnesses");
    (
        positions[10].as_f64().unwrap(),
        stiffnesses[10].as_f64().unwrap(),
    )
}

fn wait_standing(instance: &Instance) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (knee, stiffness) = knees_and_stiffness(&instance.get("SensorData"));
        if knee < 1.3 && stiffness > 0.3 {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the robot did not stand up: knee {knee}, stiffness {stiffness}\n{}",
            instance.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn an_independent_lola_socket_is_used_and_a_clean_stop_leaves_blue_eyes() {
    let lola = ExternalLola::start();
    let mut instance = Instance::start(
        "external-lola",
        &["--lola-socket", lola.socket.to_str().unwrap()],
    );
    assert!(
        !instance.run_dir.join("lola.sock").exists(),
        "no simulator of its own"
    );
    let identity = instance.get("RobotIdentity");
    assert_eq!(identity["body_id"], "P0000073A07S94700012");
    wait_standing(&instance);
    assert_eq!(instance.terminate().code(), Some(0));
    let eyes = lola.eyes();
    assert!(
        eyes.contains("left blue right blue"),
        "eyes after a clean stop: {eyes}"
    );
}

#[test]
fn motion_killed_while_standing_keeps_the_robot_stiff() {
    let instance = Instance::start("motion-kill", &[]);
    wait_standing(&instance);
    let old = instance.pid("motion");
    send_signal(old, 9);
    // While motion restarts the bridge holds the pose: stiffness never drops.
    let until = Instant::now() + Duration::from_millis(500);
    while Instant::now() < until {
        let (knee, stiffness) = knees_and_stiffness(&instance.get("SensorData"));
        assert!(
            stiffness > 0.3 && knee < 1.3,
            "the robot sagged: knee {knee}, stiffness {stiffness}"
        );
    }
    assert_ne!(instance.pid("motion"), old);
}

#[test]
fn motion_that_does_not_return_makes_the_bridge_sit_the_robot_down() {
    // A configuration whose motion watchdog is long, so that a frozen motion stays frozen.
    let (_folder, config) = config_copy();
    let table = config.join("default/processes.toml");
    let text = std::fs::read_to_string(&table).unwrap();
    std::fs::write(
        &table,
        text.replacen("watchdog_ms = 40", "watchdog_ms = 60000", 1),
    )
    .unwrap();
    let instance = Instance::start("motion-gone", &["--config-dir", config.to_str().unwrap()]);
    wait_standing(&instance);
    send_signal(instance.pid("motion"), 19); // SIGSTOP: motion publishes nothing more
    std::thread::sleep(Duration::from_millis(300));
    let (knee, stiffness) = knees_and_stiffness(&instance.get("SensorData"));
    assert!(
        stiffness > 0.3 && knee < 1.3,
        "held with stiffness first: knee {knee}, stiffness {stiffness}"
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (knee, stiffness) = knees_and_stiffness(&instance.get("SensorData"));
        if stiffness == 0.0 && knee > 1.8 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the robot did not sit down: knee {knee}, stiffness {stiffness}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    send_signal(instance.pid("motion"), 18); // SIGCONT, so the instance stops cleanly
}
