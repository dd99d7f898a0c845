//! The real `cortex` binary against the MuJoCo NAO of `simulator/physics/` (issue 16): the
//! bridge talks to `lola_physics.py --fast` as to a robot; the robot stands up from the
//! sitting crouch via the stand motion and stays upright for 10 s of simulated time (the
//! simulator's ground truth, not what the robot reports), the bridge sees the robot's weight
//! on the FSRs and gravity in LoLA's sign; `cortex stop` sits it down without falling over.
//! Prints SKIPPED when Python or its `mujoco` package is missing.

mod support;

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::physics::{missing_mujoco, tilt_rad, time_s, PhysicsLola};
use support::Instance;

/// Torso height above the floor of the standing robot (knees bent slightly), m; sitting is ~0.23.
const STANDING_TORSO_HEIGHT_M: f64 = 0.29;
/// Largest torso roll or pitch of a robot that has not fallen, rad.
const UPRIGHT_TILT_RAD: f64 = 0.3;
/// Simulated time the robot must stay up once it stands, s.
const STAND_FOR_S: f64 = 10.0;

fn height_m(line: &Value) -> f64 {
    line["torso_position_m"][2].as_f64().expect("torso height")
}

#[test]
fn the_physics_robot_stands_up_stays_up_and_sits_down_on_stop() {
    if let Some(reason) = missing_mujoco() {
        eprintln!("SKIPPED: the_physics_robot_stands_up_stays_up_and_sits_down_on_stop: {reason}");
        return;
    }
    let mut lola = PhysicsLola::start(&["--initial-pose", "sit"]);
    let mut instance =
        Instance::start("physics", &["--lola-socket", lola.socket.to_str().unwrap()]);
    let start = lola.truth();
    let first = start
        .first()
        .expect("a ground-truth line once the bridge is connected");
    assert!(
        height_m(first) < STANDING_TORSO_HEIGHT_M - 0.03,
        "the robot starts sitting: {first}"
    );

    let stood = |truth: &[Value]| {
        truth
            .iter()
            .position(|line| height_m(line) > STANDING_TORSO_HEIGHT_M)
    };
    let truth = lola.wait_for_truth(
        &instance,
        "the robot to stand up",
        Duration::from_secs(120),
        |truth| stood(truth).is_some(),
    );
    let standing_since = time_s(&truth[stood(&truth).unwrap()]);
    let truth = lola.wait_for_truth(
        &instance,
        "10 s of standing",
        Duration::from_secs(120),
        |truth| {
            truth
                .last()
                .is_some_and(|line| time_s(line) > standing_since + STAND_FOR_S)
        },
    );
    for line in &truth {
        assert!(
            tilt_rad(line) < UPRIGHT_TILT_RAD,
            "the robot tipped over while getting up or standing: {line}"
        );
    }
    // Once up (plus a second for the stand motion to finish), it stays at standing height.
    for line in truth
        .iter()
        .filter(|line| time_s(line) > standing_since + 1.0)
    {
        assert!(
            height_m(line) > STANDING_TORSO_HEIGHT_M,
            "the robot sagged while standing: {line}"
        );
    }

    // What the bridge made of the frames: the robot's weight on the FSRs, gravity in the
    // representation's sign (LoLA sends −9.81 on z; the codec negates it).
    let sensors = instance.get("SensorData");
    let fsr = &sensors["force_sensitive_resistors"];
    let total_kg: f64 = ["left_foot", "right_foot"]
        .iter()
        .flat_map(|foot| {
            [
                "front_left_kg",
                "front_right_kg",
                "rear_left_kg",
                "rear_right_kg",
            ]
            .map(|sensor| fsr[foot][sensor].as_f64().expect("an FSR value"))
        })
        .sum();
    assert!(
        (4.8..=5.9).contains(&total_kg),
        "FSR total {total_kg} kg for a 5.36 kg robot standing: {fsr}"
    );
    let gravity = sensors["inertial_measurement"]["accelerometer_m_per_s2"][2]
        .as_f64()
        .expect("accelerometer z");
    assert!(
        (9.3..=10.3).contains(&gravity),
        "upright, the accelerometer reads {gravity} on z after the codec"
    );

    // `cortex stop`: the bridge sits the robot down, then stiffness off.
    let stop = instance.command(&["stop"]);
    assert!(
        stop.status.success(),
        "cortex stop: {}",
        String::from_utf8_lossy(&stop.stderr)
    );
    let stopped_at = time_s(lola.truth().last().unwrap());
    let mut child = instance.child.take().expect("cortex run is running");
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("cortex run did not stop:\n{}", instance.log());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0), "cortex run:\n{}", instance.log());
    // The simulator's world waits while no client is connected: the last line is where the
    // robot was left.
    let truth = lola.truth();
    let last = truth.last().unwrap();
    assert!(
        height_m(last) < STANDING_TORSO_HEIGHT_M - 0.04,
        "the robot did not sit down: {last}"
    );
    for line in truth.iter().filter(|line| time_s(line) >= stopped_at) {
        assert!(
            tilt_rad(line) < UPRIGHT_TILT_RAD,
            "the robot fell while sitting down: {line}"
        );
    }

    assert_eq!(lola.stop(), Some(0), "simulator:\n{}", lola.log());
    let log = lola.log();
    assert!(
        log.contains("garbage commands 0,"),
        "the bridge sent only valid commands:\n{log}"
    );
    assert!(!lola.socket.exists(), "the simulator removes its socket");
}

/// The physics simulator processes serving LoLA in `run_dir`.
fn physics_simulators_in(run_dir: &Path) -> Vec<i32> {
    let socket = run_dir.join("lola.sock");
    support::pids_mentioning("lola_physics.py")
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|line| String::from_utf8_lossy(&line).contains(socket.to_str().unwrap()))
        })
        .collect()
}

#[test]
fn run_sim_physics_serves_the_bridge_from_the_physics_simulator() {
    if let Some(reason) = missing_mujoco() {
        eprintln!(
            "SKIPPED: run_sim_physics_serves_the_bridge_from_the_physics_simulator: {reason}"
        );
        return;
    }
    let mut instance = Instance::start("physics-flag", &["--physics"]);
    let simulators = physics_simulators_in(&instance.run_dir);
    assert_eq!(
        simulators.len(),
        1,
        "one lola_physics.py on this run's socket"
    );
    // `cortex sim` reaches it too: a press shows in the bridge's touch sensors.
    let reply = instance.simulator_command("press chest 3000");
    assert_eq!(reply, "pressed chest for 3000 ms");
    let chest = instance.get("SensorData")["touch"]["chest_button"].clone();
    assert_eq!(chest, Value::Bool(true), "the chest button is held for 3 s");
    // The robot stands up in real time; once it has settled, the bridge sees gravity upright.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let sensors = instance.get("SensorData");
        let knee = sensors["joint_positions_rad"][10].as_f64().unwrap();
        let stiffness = sensors["joint_stiffnesses"][10].as_f64().unwrap();
        if knee < 1.0 && stiffness > 0.3 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the physics robot did not stand up: knee {knee}, stiffness {stiffness}\n{}",
            instance.log()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Settled (the stand motion ends; a loaded machine may run the simulator late), the IMU
    // reads gravity upright and the torso level.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let sensors = instance.get("SensorData");
        let imu = &sensors["inertial_measurement"];
        let gravity = imu["accelerometer_m_per_s2"][2].as_f64().unwrap();
        let level = imu["torso_angles_rad"]
            .as_array()
            .unwrap()
            .iter()
            .all(|angle| angle.as_f64().unwrap().abs() < UPRIGHT_TILT_RAD);
        if (9.5..=10.1).contains(&gravity) && level {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the standing robot's IMU: {imu}\n{}",
            instance.log()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(instance.terminate().code(), Some(0), "{}", instance.log());
    let deadline = Instant::now() + Duration::from_secs(10);
    while support::alive(simulators[0]) {
        assert!(
            Instant::now() < deadline,
            "the physics simulator outlived cortex run"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!instance.run_dir.join("lola.sock").exists());
}

#[test]
fn run_sim_physics_without_python_or_mujoco_names_the_install_command() {
    for python in ["/nonexistent/python3", "false"] {
        let mut instance =
            Instance::spawn_with("physics-missing", None, &["--physics"], |command| {
                command.env("CORTEX_PYTHON", python);
            });
        let mut child = instance.child.take().unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!(
                    "cortex run --physics with {python} did not fail:\n{}",
                    instance.log()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let log = instance.log();
        assert!(!status.success(), "{python}: {log}");
        assert!(
            log.contains("pip install -r simulator/physics/requirements.txt"),
            "{python}: the error names the install command:\n{log}"
        );
        assert!(
            log.contains(python),
            "{python}: the error names the interpreter:\n{log}"
        );
    }
    // --physics belongs to --sim.
    let output = Command::new(support::cortex())
        .args(["run", "--physics", "--instance", "physics-no-sim"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--sim"));
}

/// The simulator's own Python tests (model, wire format, server, control socket) run with the
/// Rust suite, so that `cargo test --workspace` stays the one test command.
#[test]
fn the_physics_simulators_python_tests_pass() {
    if let Some(reason) = missing_mujoco() {
        eprintln!("SKIPPED: the_physics_simulators_python_tests_pass: {reason}");
        return;
    }
    let has_pytest = Command::new("python3")
        .args(["-c", "import pytest"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !has_pytest {
        eprintln!(
            "SKIPPED: the_physics_simulators_python_tests_pass: pytest is not installed \
             (pip install -r simulator/physics/requirements.txt)"
        );
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // pytest's temporary folders go into one of ours, removed afterwards (by default pytest
    // keeps the last three runs' under /tmp/pytest-of-<user>).
    let scratch = tempfile::tempdir().unwrap();
    let basetemp = format!("--basetemp={}", scratch.path().join("pytest").display());
    let output = Command::new("python3")
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", &basetemp])
        .arg("simulator/physics")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(&root)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    println!("{text}");
    assert!(
        output.status.success(),
        "pytest simulator/physics failed:\n{text}"
    );
    assert!(text.contains(" passed"), "pytest ran no test:\n{text}");
}
