//! The simulated world in a running `cortex run --sim` (issue 12, item 2): `GroundTruth` is
//! published by the simulator and read with `cortex get`; `cortex sim ball`, `robot`,
//! `other-robot` and `clear-other-robots` change it; bad values and hostile control clients are
//! refused with a message naming the value, and change nothing.

mod support;

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::process::Output;
use std::time::{Duration, Instant};
use support::Instance;

/// `cortex sim --run-dir DIR ARGS…` (`--run-dir` belongs to `sim`, before its action).
fn sim(instance: &Instance, args: &[&str]) -> Output {
    std::process::Command::new(support::cortex())
        .arg("sim")
        .arg("--run-dir")
        .arg(&instance.run_dir)
        .args(args)
        .output()
        .expect("running cortex sim")
}

fn number(value: &Value, pointer: &str) -> f64 {
    value
        .pointer(pointer)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("{pointer} in {value}"))
}

/// Waits until the ground truth satisfies `condition` (the world steps every 10 ms; a loaded
/// machine may take longer), or panics with the last value.
fn wait_for_truth(instance: &Instance, what: &str, condition: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let truth = instance.get("GroundTruth");
        if condition(&truth) {
            return truth;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: last GroundTruth {truth}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Sends raw bytes to the simulator's control socket and returns its reply (empty if none):
/// write errors are the point of some of these clients and are ignored.
fn raw_control(instance: &Instance, bytes: &[u8]) -> String {
    let mut stream =
        UnixStream::connect(instance.run_dir.join("simulator.sock")).expect("simulator control");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let _ = stream.write_all(bytes);
    let mut reply = String::new();
    let _ = BufReader::new(&stream).read_line(&mut reply);
    reply.trim().to_owned()
}

#[test]
fn ground_truth_follows_what_is_placed_and_bad_input_changes_nothing() {
    let instance = Instance::start("sim-world", &[]);

    // Published by the simulator from the start: the ball at the centre spot, the robot in its
    // own half facing the opponent's goal (standing up moved its torso a few centimetres).
    let first = instance.get("GroundTruth");
    assert_eq!(number(&first, "/ball/position/0"), 0.0, "{first}");
    assert!((number(&first, "/robot/x") + 1.5).abs() < 0.15, "{first}");
    assert!(number(&first, "/robot/theta").abs() < 0.05, "{first}");
    let later = wait_for_truth(&instance, "simulation time advances", |truth| {
        number(truth, "/time_s") > number(&first, "/time_s")
    });
    assert!(number(&later, "/time_s") > 0.0);

    // The ball placed at rest.
    let placed = sim(&instance, &["ball", "1.2", "-0.4"]);
    assert!(placed.status.success(), "{placed:?}");
    assert!(String::from_utf8_lossy(&placed.stdout).contains("ball at (1.2, -0.4) m"));
    wait_for_truth(&instance, "the ball at (1.2, -0.4)", |truth| {
        (number(truth, "/ball/position/0") - 1.2).abs() < 1e-4
            && (number(truth, "/ball/position/1") + 0.4).abs() < 1e-4
    });

    // The robot placed (negative values need no `--`).
    let moved = sim(&instance, &["robot", "2", "-1", "-2.5"]);
    assert!(moved.status.success(), "{moved:?}");
    wait_for_truth(&instance, "the robot at (2, -1) facing -2.5", |truth| {
        (number(truth, "/robot/x") - 2.0).abs() < 0.05
            && (number(truth, "/robot/y") + 1.0).abs() < 0.05
            && (number(truth, "/robot/theta") + 2.5).abs() < 0.05
    });

    // Bad values: refused by the command line (exit 64) with the value named, nothing sent.
    let refused = [
        (&["ball", "99", "0"][..], "x 99 m is off the carpet"),
        (&["ball", "0", "-3.9"], "y -3.9 m is off the carpet"),
        (&["ball", "abc", "0"], "x `abc` is not a number"),
        (&["ball", "nan", "0"], "x NaN is not a finite number"),
        (&["ball", "0", "0", "--velocity", "50", "0"], "speed 50 m/s"),
        (&["robot", "0", "0", "10"], "theta 10 rad is out of range"),
        (&["robot", "0", "inf", "0"], "y inf is not a finite number"),
        (&["other-robot", "0", "9", "0"], "y 9 m is off the carpet"),
        (&["ball", "1"], "<Y>"),
        (&["robot", "1", "2"], "<THETA>"),
    ];
    for (args, expected) in refused {
        let output = sim(&instance, args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(64), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }

    // Hostile clients on the control socket itself: refused lines, a line far beyond the 4 KiB
    // the simulator reads, a client that sends nothing and hangs up.
    for line in [
        "ball 1e30 0",
        "robot 1 2 3 4",
        "ball 1 2 3 4 5",
        "teleport 0 0",
    ] {
        let reply = raw_control(&instance, format!("{line}\n").as_bytes());
        assert!(reply.starts_with("error: "), "{line}: {reply}");
    }
    let reply = raw_control(&instance, b"ball \xff\xfe 0\n");
    assert_eq!(reply, "error: the command is not UTF-8 text");
    let reply = raw_control(&instance, &vec![b'7'; 1 << 20]);
    assert!(reply.is_empty() || reply.starts_with("error: "), "{reply}");
    drop(UnixStream::connect(instance.run_dir.join("simulator.sock")).unwrap());

    // None of it changed the world, which is still published.
    let after = instance.get("GroundTruth");
    assert!(
        (number(&after, "/ball/position/0") - 1.2).abs() < 1e-4,
        "{after}"
    );
    assert!(
        (number(&after, "/robot/theta") + 2.5).abs() < 0.05,
        "{after}"
    );
    assert!(number(&after, "/time_s") > number(&later, "/time_s"));

    // A rolling ball slows down (0.4 m/s²) and stops.
    let rolled = sim(&instance, &["ball", "0", "0", "--velocity", "1", "-0.5"]);
    assert!(rolled.status.success(), "{rolled:?}");
    let rolling = wait_for_truth(&instance, "the ball rolling", |truth| {
        number(truth, "/ball/position/0") > 0.05
    });
    let speed = number(&rolling, "/ball/velocity/0").hypot(number(&rolling, "/ball/velocity/1"));
    assert!(speed < 1.118, "slowing down: {rolling}");
    assert!(
        number(&rolling, "/ball/position/1") < 0.0,
        "along -y too: {rolling}"
    );
    let stopped = wait_for_truth(&instance, "the ball at rest", |truth| {
        number(truth, "/ball/velocity/0") == 0.0
    });
    // v²/2a: 1.25 / 0.8 = 1.5625 m along the direction (1, -0.5)/|…|.
    let distance = number(&stopped, "/ball/position/0").hypot(number(&stopped, "/ball/position/1"));
    assert!((distance - 1.5625).abs() < 0.05, "{stopped}");

    // Other robots come and go.
    assert!(sim(&instance, &["other-robot", "3", "0.5", "3.1"])
        .status
        .success());
    assert!(sim(&instance, &["other-robot", "-3", "-0.5", "0"])
        .status
        .success());
    let two = wait_for_truth(&instance, "two other robots", |truth| {
        truth["other_robots"]
            .as_array()
            .is_some_and(|robots| robots.len() == 2)
    });
    assert_eq!(number(&two, "/other_robots/0/x"), 3.0);
    assert!(sim(&instance, &["clear-other-robots"]).status.success());
    wait_for_truth(&instance, "no other robots", |truth| {
        truth["other_robots"].as_array().is_some_and(Vec::is_empty)
    });
}

#[test]
fn without_a_simulator_the_world_commands_say_so() {
    let folder = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(support::cortex())
        .args(["sim", "--run-dir"])
        .arg(folder.path())
        .args(["ball", "1", "0"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(69), "{stderr}");
    assert!(stderr.contains("no simulator answers"), "{stderr}");
}
