//! The perception processes in a running system (issue 12): each camera's `BallPercept` from
//! real NAO frames played by a `files` camera, a camera whose source ends or whose process is
//! killed while cognition goes on with the other, and in the simulation the ball model against
//! the simulator's ground truth with the head following the ball and searching for it.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::{config_copy, raise_restart_intensity, shared_data, Instance};

/// The label of `vision/rome_bottom_ball.png` (its README): centre and radius, pixels.
const ROME_BALL: (f64, f64, f64) = (308.9, 176.4, 42.9);

/// A folder of `count` links to `frame` converted to a raw YUYV file (read without decoding:
/// a PNG decoded in a debug build would slow the camera down).
fn frames(folder: &Path, frame: &Path, count: usize) -> PathBuf {
    std::fs::create_dir_all(folder).unwrap();
    let image = cortex_image::read_image_file(frame, cortex_image::ColorRange::Full).unwrap();
    let raw = folder.with_extension("raw");
    cortex_image::write_yuyv_file(&raw, &image).unwrap();
    for index in 0..count {
        std::os::unix::fs::symlink(&raw, folder.join(format!("{index:04}.yuyv"))).unwrap();
    }
    folder.to_owned()
}

/// A copy of the shipped configuration whose cameras play folders, restarts allowed freely.
fn files_config(upper: (&Path, bool), lower: (&Path, bool)) -> (tempfile::TempDir, PathBuf) {
    let (folder, config) = config_copy();
    raise_restart_intensity(&config, 1000);
    let table = |(path, looping): (&Path, bool)| {
        format!(
            "source = \"files\"\nfolder = \"{}\"\nloop_files = {looping}\n",
            path.display()
        )
    };
    std::fs::write(
        config.join("default/CameraProvider.toml"),
        format!(
            "max_consecutive_errors = 10\n[upper]\n{}[lower]\n{}",
            table(upper),
            table(lower)
        ),
    )
    .unwrap();
    (folder, config)
}

fn start_with_config(name: &str, config: &Path) -> Instance {
    let config = config.to_str().unwrap();
    Instance::start(name, &["--config-dir", config])
}

fn balls(percept: &Value) -> &Vec<Value> {
    percept["balls"].as_array().expect("balls")
}

fn number(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("not a number: {value}"))
}

/// Polls `what` until `condition` holds on it or `timeout` passes; returns the last value.
fn poll<T>(timeout: Duration, mut what: impl FnMut() -> T, condition: impl Fn(&T) -> bool) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        let value = what();
        if condition(&value) || Instant::now() > deadline {
            return value;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_files_cameras_see_the_labelled_ball_and_nothing_on_the_empty_frame() {
    let Some(vision) = shared_data("vision") else {
        eprintln!("SKIPPED: no NAO frames (vision/ under CORTEX_DATA_DIR)");
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let wall = frames(
        &scratch.path().join("upper"),
        &vision.join("white_wall_with_a_little_desk_in_front.png"),
        3,
    );
    let rome = frames(
        &scratch.path().join("lower"),
        &vision.join("rome_bottom_ball.png"),
        3,
    );
    let (_config_folder, config) = files_config((&wall, true), (&rome, true));
    let mut instance = start_with_config("perception-files", &config);

    let lower = poll(
        Duration::from_secs(20),
        || instance.get("lower.BallPercept"),
        |percept| !balls(percept).is_empty(),
    );
    assert_eq!(lower["camera"], "Lower", "{lower}");
    let found = balls(&lower);
    assert_eq!(found.len(), 1, "{lower}");
    let (x, y, radius) = ROME_BALL;
    let ball = &found[0];
    let off = (number(&ball["x"]) - x).hypot(number(&ball["y"]) - y);
    assert!(off <= 5.0, "{off:.1} px from the label: {lower}");
    assert!((number(&ball["radius"]) - radius).abs() <= 5.0, "{lower}");

    // The empty frame, many times over: never a ball.
    for _ in 0..10 {
        let upper = instance.get("upper.BallPercept");
        assert_eq!(upper["camera"], "Upper", "{upper}");
        assert!(balls(&upper).is_empty(), "{upper}");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Each stage is timed on its own.
    let process = instance.process("perception.lower");
    let names: Vec<&str> = process.modules.iter().map(|m| m.module.as_str()).collect();
    for stage in [
        "CameraProvider",
        "ScanLineRegionizer",
        "BallSpotsProvider",
        "BallPerceptor",
    ] {
        assert!(names.contains(&stage), "{names:?}");
    }
    assert!(instance.terminate().success());
}

/// Cognition's tick count, and the other camera's newest frame.
fn cognition_and_lower(instance: &Instance) -> (u64, u64) {
    let cognition = instance.process("cognition").ticks;
    let lower = instance.get("lower.BallPercept")["sequence"]
        .as_u64()
        .unwrap();
    (cognition, lower)
}

/// Cognition and the other camera go on over a second.
fn assert_the_rest_goes_on(instance: &Instance, when: &str) {
    let (cognition, lower) = cognition_and_lower(instance);
    std::thread::sleep(Duration::from_secs(1));
    let (cognition_after, lower_after) = cognition_and_lower(instance);
    assert!(
        cognition_after > cognition + 5,
        "{when}: cognition ticked {cognition} → {cognition_after}"
    );
    assert!(
        lower_after > lower + 5,
        "{when}: the lower camera's frames {lower} → {lower_after}"
    );
}

#[test]
fn a_camera_that_ends_or_is_killed_restarts_while_cognition_goes_on_with_the_other() {
    let Some(vision) = shared_data("vision") else {
        eprintln!("SKIPPED: no NAO frames (vision/ under CORTEX_DATA_DIR)");
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    // The upper camera's folder ends after 45 frames (1.5 s): its process ends with status 69.
    let short = frames(
        &scratch.path().join("upper"),
        &vision.join("white_wall_with_a_little_desk_in_front.png"),
        45,
    );
    let rome = frames(
        &scratch.path().join("lower"),
        &vision.join("rome_bottom_ball.png"),
        2,
    );
    let (_config_folder, config) = files_config((&short, false), (&rome, true));
    let mut instance = start_with_config("perception-restart", &config);

    let ended = instance.wait_for(
        "the upper camera's source to end and its process to restart",
        Duration::from_secs(30),
        |status| {
            status
                .process("perception.upper")
                .is_some_and(|p| p.last_exit_code.as_deref() == Some("status:69"))
        },
    );
    assert!(
        instance
            .log()
            .contains("camera upper: its source ended after 45 frames"),
        "the reason is logged; status {ended}"
    );
    assert_the_rest_goes_on(&instance, "while the upper camera restarts");
    let upper = instance.wait_for("the upper camera back", Duration::from_secs(30), |status| {
        status
            .process("perception.upper")
            .is_some_and(|p| p.pid.is_some() && p.ticks > 0)
    });
    let before = upper.process("perception.upper").unwrap().clone();
    // The lower camera sees the ball all along: the ball model stays fresh.
    let model = instance.get("BallModel");
    assert_eq!(model["ever_seen"], true, "{model}");
    assert!(number(&model["seconds_since_seen"]) < 1.0, "{model}");

    // Killed outright.
    let killed = before.pid.unwrap() as i32;
    support::send_signal(killed, 9);
    instance.wait_for(
        "the killed upper camera replaced",
        Duration::from_secs(30),
        |status| {
            status
                .process("perception.upper")
                .is_some_and(|p| p.pid.is_some_and(|pid| pid as i32 != killed) && p.ticks > 0)
        },
    );
    assert_the_rest_goes_on(&instance, "after the upper camera was killed");
    let model = instance.get("BallModel");
    assert!(number(&model["seconds_since_seen"]) < 1.0, "{model}");
    assert!(instance.terminate().success());
}

/// The ball relative to the robot from the ground truth: [x forward, y left], m.
fn true_ball(truth: &Value) -> [f64; 2] {
    let robot = &truth["robot"];
    let (rx, ry, theta) = (
        number(&robot["x"]),
        number(&robot["y"]),
        number(&robot["theta"]),
    );
    let ball = &truth["ball"]["position"];
    let (dx, dy) = (number(&ball[0]) - rx, number(&ball[1]) - ry);
    let (sin, cos) = theta.sin_cos();
    [cos * dx + sin * dy, -sin * dx + cos * dy]
}

/// The field position of the point `relative` to the robot.
fn field_point(truth: &Value, relative: [f64; 2]) -> [f64; 2] {
    let robot = &truth["robot"];
    let (rx, ry, theta) = (
        number(&robot["x"]),
        number(&robot["y"]),
        number(&robot["theta"]),
    );
    let (sin, cos) = theta.sin_cos();
    [
        rx + cos * relative[0] - sin * relative[1],
        ry + sin * relative[0] + cos * relative[1],
    ]
}

fn head_yaw(instance: &Instance) -> f64 {
    number(&instance.get("SensorData")["joint_positions_rad"][0])
}

fn place_ball(instance: &Instance, at: [f64; 2]) {
    let reply = instance.simulator_command(&format!("ball {:.3} {:.3}", at[0], at[1]));
    assert!(!reply.starts_with("error"), "ball {at:?}: {reply}");
}

#[test]
fn in_the_simulation_the_ball_model_finds_the_ball_and_the_head_follows_and_searches() {
    let (_config_folder, config) = config_copy();
    raise_restart_intensity(&config, 1000);
    let mut instance = start_with_config("perception-sim", &config);
    // Ten places in view, 0.5 to 4 m away, relative to the robot (x forward, y left).
    let places = [
        [0.5, 0.0],
        [0.7, 0.25],
        [1.0, -0.3],
        [1.3, 0.4],
        [1.7, -0.5],
        [2.0, 0.3],
        [2.5, -0.4],
        [3.0, 0.6],
        [3.5, -0.3],
        [4.0, 0.2],
    ];
    for relative in places {
        let truth = instance.get("GroundTruth");
        place_ball(&instance, field_point(&truth, relative));
        let close_enough = |model: &Value, truth: &Value| {
            let actual = true_ball(truth);
            let distance = actual[0].hypot(actual[1]);
            let position = &model["position"];
            let error = (number(&position[0]) - actual[0]).hypot(number(&position[1]) - actual[1]);
            let seen = number(&model["seconds_since_seen"]) < 0.5;
            let tolerance = if distance < 1.0 { 0.1 } else { 0.1 * distance };
            seen && error <= tolerance
        };
        let (model, truth) = poll(
            Duration::from_secs(15),
            || (instance.get("BallModel"), instance.get("GroundTruth")),
            |(model, truth)| close_enough(model, truth),
        );
        assert!(
            close_enough(&model, &truth),
            "ball at {relative:?} from the robot: model {model}, truth {truth}"
        );
        let actual = true_ball(&truth);
        let bearing = actual[1].atan2(actual[0]);
        let yaw = poll(
            Duration::from_secs(10),
            || head_yaw(&instance),
            |yaw| (yaw - bearing).abs() < 0.15,
        );
        assert!(
            (yaw - bearing).abs() < 0.15,
            "ball at {relative:?}: head yaw {yaw:.2}, bearing {bearing:.2}"
        );
    }

    // Before the feet: the head looks down as far as it goes, the lower camera sees the robot's
    // own legs (the simulator renders them), its body contour covers them, and the ball in
    // front of them is still where it is.
    let truth = instance.get("GroundTruth");
    place_ball(&instance, field_point(&truth, [0.22, 0.0]));
    let at_the_feet = |(model, truth, contour): &(Value, Value, Value)| {
        let actual = true_ball(truth);
        let position = &model["position"];
        let error = (number(&position[0]) - actual[0]).hypot(number(&position[1]) - actual[1]);
        number(&model["seconds_since_seen"]) < 0.5
            && error <= 0.1
            && contour["valid"] == true
            && number(&contour["columns"]) > 0.0
    };
    let seen = poll(
        Duration::from_secs(15),
        || {
            (
                instance.get("BallModel"),
                instance.get("GroundTruth"),
                instance.get("lower.BodyContour"),
            )
        },
        at_the_feet,
    );
    assert!(
        at_the_feet(&seen),
        "ball before the feet: model {}, truth {}, lower.BodyContour {}",
        seen.0,
        seen.1,
        seen.2
    );

    // Out of view (behind the robot) while playing: after a while the head sweeps to find it.
    let truth = instance.get("GroundTruth");
    place_ball(&instance, field_point(&truth, [-2.0, 0.0]));
    let reply = instance.simulator_command("press chest 200");
    assert!(reply.starts_with("pressed"), "{reply}");
    instance.wait_for("Playing", Duration::from_secs(10), |_| {
        instance.get("GameState")["state"] == "Playing"
    });
    let lost = poll(
        Duration::from_secs(10),
        || instance.get("BallModel"),
        |model| number(&model["seconds_since_seen"]) > 2.5,
    );
    assert!(number(&lost["seconds_since_seen"]) > 2.5, "{lost}");
    let (mut left, mut right) = (0.0f64, 0.0f64);
    let deadline = Instant::now() + Duration::from_secs(12);
    while Instant::now() < deadline && !(left > 0.5 && right < -0.5) {
        let yaw = head_yaw(&instance);
        left = left.max(yaw);
        right = right.min(yaw);
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        left > 0.5 && right < -0.5,
        "the head searched from {right:.2} to {left:.2} rad"
    );
    assert!(instance.terminate().success());
}
