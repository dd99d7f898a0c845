//! Hardening of the Python behaviour (issue 9, items 11–15), with the real binary and the
//! simulated robot. Each test breaks the behaviour for real — `os._exit`, a CPython crash
//! (`ctypes.string_at(0)`), an import-time `time.sleep(1000)`, an exception, unbounded
//! allocation, a thread, the folder deleted and made again — and checks that the robot stayed
//! standing the whole time (the simulated LoLA reports stiff, straight knees; no safe state),
//! what the log and `cortex status` said, and that fixing the file recovers.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::{copy_dir, Instance, ProcessState, ProcessStatus, Status};

/// Cognition's entry in a status.
fn cognition_of(status: &Status) -> &ProcessStatus {
    status
        .process("cognition")
        .unwrap_or_else(|| panic!("no cognition in {status}"))
}

/// A copy of the shipped behaviour package.
fn behaviour_copy() -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let target = folder.path().join("python");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../behaviours/python"),
        &target,
    );
    (folder, target)
}

/// Writes a file the way an editor does: a new file renamed over the old one.
fn save(path: &Path, text: &str) {
    let temporary = path.with_extension("py.saving");
    std::fs::write(&temporary, text).unwrap();
    std::fs::rename(&temporary, path).unwrap();
}

/// The fix: stands, with a green chest (so that the test sees this code run).
const FIXED: &str = "import robot\n\ndef tick(blackboard):\n    request = robot.BehaviourRequest()\n    request.body.stand()\n    request.leds.chest = 'Green'\n    return request\n";

/// Watches the simulated robot from the outside while a test runs: every sample of
/// `SensorData` must show a standing robot (knee bent less than 1.3 rad, stiffness above 0.3),
/// and `cortex status` must never report the safe state.
struct StandingWatch {
    stop: Arc<AtomicBool>,
    problems: Arc<Mutex<Vec<String>>>,
    samples: Arc<Mutex<u64>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

fn knee_and_stiffness(sensors: &Value) -> Option<(f64, f64)> {
    Some((
        sensors["joint_positions_rad"].as_array()?[10].as_f64()?,
        sensors["joint_stiffnesses"].as_array()?[10].as_f64()?,
    ))
}

fn cortex_json(run_dir: &Path, args: &[&str]) -> Option<Value> {
    let output = Command::new(support::cortex())
        .args(args)
        .arg("--run-dir")
        .arg(run_dir)
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    serde_json::from_slice(&output.stdout).ok()
}

impl StandingWatch {
    /// Waits until the robot stands, then starts watching.
    fn start(instance: &Instance) -> StandingWatch {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            // Tolerant: the instance may still be starting (no control socket yet).
            let sensors = cortex_json(&instance.run_dir, &["get", "SensorData", "--json"])
                .unwrap_or(Value::Null);
            if let Some((knee, stiffness)) = knee_and_stiffness(&sensors) {
                if knee < 1.3 && stiffness > 0.3 {
                    break;
                }
            }
            assert!(
                Instant::now() < deadline,
                "the robot did not stand up: {sensors}\n{}",
                instance.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let stop = Arc::new(AtomicBool::new(false));
        let problems = Arc::new(Mutex::new(Vec::new()));
        let samples = Arc::new(Mutex::new(0));
        let run_dir = instance.run_dir.clone();
        let thread = std::thread::spawn({
            let (stop, problems, samples) = (stop.clone(), problems.clone(), samples.clone());
            move || {
                while !stop.load(Ordering::Relaxed) {
                    if let Some(sensors) = cortex_json(&run_dir, &["get", "SensorData", "--json"]) {
                        if let Some((knee, stiffness)) = knee_and_stiffness(&sensors) {
                            *samples.lock().unwrap() += 1;
                            if knee >= 1.3 || stiffness <= 0.3 {
                                problems.lock().unwrap().push(format!(
                                    "not standing: knee {knee:.2} rad, stiffness {stiffness:.2}"
                                ));
                            }
                        }
                    }
                    let status = cortex_json(&run_dir, &["status", "--json"])
                        .map(serde_json::from_value::<Status>);
                    match status {
                        Some(Ok(Status {
                            safe_state: Some(reason),
                            ..
                        })) => problems
                            .lock()
                            .unwrap()
                            .push(format!("safe state: {reason}")),
                        Some(Err(error)) => problems
                            .lock()
                            .unwrap()
                            .push(format!("status JSON: {error}")),
                        _ => {}
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        });
        StandingWatch {
            stop,
            problems,
            samples,
            thread: Some(thread),
        }
    }

    /// Stops watching and fails the test if the robot did not stand throughout.
    fn check(mut self, instance: &Instance) {
        // A few samples after the fix too, however quickly the test got here.
        let from = *self.samples.lock().unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while *self.samples.lock().unwrap() < from + 5 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.join().unwrap();
        }
        let samples = *self.samples.lock().unwrap();
        assert!(
            samples >= 5,
            "only {samples} samples of SensorData were taken"
        );
        let problems = self.problems.lock().unwrap();
        assert!(
            problems.is_empty(),
            "the robot did not stay standing ({} of {samples} samples):\n{}\nlog:\n{}",
            problems.len(),
            problems
                .iter()
                .take(10)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n"),
            instance.log()
        );
    }
}

impl Drop for StandingWatch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Waits until the published BehaviourRequest satisfies `condition`.
fn wait_request(instance: &Instance, what: &str, condition: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let output = instance.command(&["get", "BehaviourRequest", "--json"]);
        if let Ok(request) = serde_json::from_slice::<Value>(&output.stdout) {
            if condition(&request) {
                return request;
            }
        }
        assert!(
            Instant::now() < deadline,
            "{what}: not within 30 s\nlog:\n{}",
            instance.log()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn chest_is_green(request: &Value) -> bool {
    request["leds"]["chest"]["colour"] == "Green"
}

fn start_standing(name: &str, behaviours: &Path) -> (Instance, StandingWatch) {
    let instance = Instance::start(name, &["--behaviours", behaviours.to_str().unwrap()]);
    let watch = StandingWatch::start(&instance);
    (instance, watch)
}

fn wait_for_log(instance: &Instance, what: &str, timeout: Duration, needle: &[&str]) -> String {
    let deadline = Instant::now() + timeout;
    loop {
        let log = instance.log();
        if needle.iter().all(|text| log.contains(text)) {
            return log;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: the log lacks {needle:?}:\n{log}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A crash inside the behaviour, again and again: cognition restarts with back-off, the safe
/// state never comes, the log names the file and line, `status` says so, and the fix recovers.
fn crash_loop_then_fix(name: &str, broken: &str, log_must_contain: &[&str]) {
    let (_folder, behaviours) = behaviour_copy();
    let (instance, watch) = start_standing(name, &behaviours);
    let file = behaviours.join("behaviour.py");
    save(&file, broken);

    // More crashes than the restart intensity (5 in 60 s) allows for an ordinary fault.
    let status = instance.wait_for(
        "cognition to crash more often than the restart intensity",
        Duration::from_secs(90),
        |status| cognition_of(status).behaviour_crashes.unwrap_or(0) >= 7,
    );
    assert!(status.safe_state.is_none(), "{status}");
    let mut needles = vec![file.to_str().unwrap(), "behaviour faults do not count"];
    needles.extend_from_slice(log_must_contain);
    wait_for_log(
        &instance,
        "the crash report",
        Duration::from_secs(5),
        &needles,
    );
    let cognition = instance.process("cognition");
    let fault = cognition.fault.clone().unwrap_or_default();
    assert!(
        fault.contains("behaviour.py"),
        "status names the behaviour: {cognition}"
    );

    save(&file, FIXED);
    wait_request(&instance, "the fixed behaviour runs", chest_is_green);
    let restarts = instance.process("cognition").restarts;
    std::thread::sleep(Duration::from_secs(1));
    let cognition = instance.process("cognition");
    assert_eq!(cognition.state, ProcessState::Running, "{cognition}");
    assert_eq!(
        cognition.restarts, restarts,
        "no more crashes after the fix: {cognition}"
    );
    watch.check(&instance);
    assert!(instance.status().safe_state.is_none());
}

#[test]
fn os_exit_in_tick_restarts_cognition_and_the_robot_stays_standing() {
    const OS_EXIT: &str =
        "import os\nimport robot\n\ndef tick(blackboard):\n    os._exit(1)\n    return robot.BehaviourRequest()\n";
    crash_loop_then_fix(
        "behaviour-os-exit",
        OS_EXIT,
        &["os._exit(1)", "behaviour.py\", line 5, in tick", "exit 1"],
    );
}

#[test]
fn a_behaviour_that_signals_its_own_process_is_blamed_and_the_robot_stays_standing() {
    // SIGKILL ends cognition inside the tick; SIGTERM makes it end cleanly after the tick.
    const KILLS: &str = "import os, signal\nimport robot\n\ndef tick(blackboard):\n    os.kill(os.getpid(), signal.SIGKILL)\n    return robot.BehaviourRequest()\n";
    crash_loop_then_fix("behaviour-sigkill", KILLS, &["SIGKILL"]);
    const TERMINATES: &str = "import os, signal\nimport robot\n\ndef tick(blackboard):\n    os.kill(os.getpid(), signal.SIGTERM)\n    request = robot.BehaviourRequest()\n    request.body.stand()\n    return request\n";
    crash_loop_then_fix(
        "behaviour-sigterm",
        TERMINATES,
        &[
            "SIGTERM or SIGINT arrived while the behaviour's Python ran",
            "exit 0",
        ],
    );
}

#[test]
fn a_cpython_crash_in_tick_restarts_cognition_and_the_robot_stays_standing() {
    const SEGFAULT: &str = "import ctypes\nimport robot\n\ndef tick(blackboard):\n    ctypes.string_at(0)\n    return robot.BehaviourRequest()\n";
    crash_loop_then_fix(
        "behaviour-segfault",
        SEGFAULT,
        &[
            "Fatal Python error: Segmentation fault",
            "behaviour.py\", line 5 in tick",
            "SIGSEGV",
        ],
    );
}

#[test]
fn a_tick_stuck_in_c_is_killed_with_a_python_stack_dump_and_the_robot_stays_standing() {
    // `sum` over a range runs in C with the GIL held: neither the tick budget's exception nor
    // its signal gets through, only the supervisor's freeze watchdog (SIGABRT) does.
    const STUCK: &str = "import robot\n\ndef tick(blackboard):\n    total = sum(range(10 ** 13))\n    return robot.BehaviourRequest()\n";
    crash_loop_then_fix(
        "behaviour-stuck-in-c",
        STUCK,
        &[
            "Fatal Python error: Aborted",
            "behaviour.py\", line 4 in tick",
            "froze inside the behaviour's tick",
            "frozen (killed by the watchdog)",
        ],
    );
}

#[test]
fn a_behaviour_that_crashes_cognition_at_import_from_the_start_still_lets_the_robot_stand() {
    const EXITS_AT_IMPORT: &str = "import os\nimport robot\n\nos._exit(3)\n\ndef tick(blackboard):\n    return robot.BehaviourRequest()\n";
    let (_folder, behaviours) = behaviour_copy();
    let file = behaviours.join("behaviour.py");
    save(&file, EXITS_AT_IMPORT);
    let instance = Instance::spawn(
        "behaviour-import-exit",
        &["--behaviours", behaviours.to_str().unwrap()],
    );
    // Each restarted cognition publishes the standing error stance before it loads again.
    let watch = StandingWatch::start(&instance);
    let status = instance.wait_for("a crash loop", Duration::from_secs(90), |status| {
        cognition_of(status).behaviour_crashes.unwrap_or(0) >= 7
    });
    assert!(status.safe_state.is_none(), "{status}");
    wait_for_log(
        &instance,
        "the crash report",
        Duration::from_secs(5),
        &[
            "os._exit(3)",
            "behaviour.py\", line 4, in <module>",
            "while loading the behaviour",
            "exit 3",
        ],
    );
    save(&file, FIXED);
    wait_request(&instance, "the fixed behaviour runs", chest_is_green);
    instance.wait_until_all_running(Duration::from_secs(30));
    watch.check(&instance);
}

#[test]
fn an_import_time_sleep_is_interrupted_at_start_and_at_reload() {
    const SLEEPS: &str = "import time\nimport robot\ntime.sleep(1000)\n\ndef tick(blackboard):\n    return robot.BehaviourRequest()\n";
    // At start: the first load is interrupted by its budget; cognition ticks with the error
    // stance (no freeze, no restart) and status names the line.
    let (_folder, behaviours) = behaviour_copy();
    save(&behaviours.join("behaviour.py"), SLEEPS);
    let instance = Instance::start(
        "behaviour-import-sleep",
        &["--behaviours", behaviours.to_str().unwrap()],
    );
    let watch = StandingWatch::start(&instance);
    let cognition = instance.process("cognition");
    assert_eq!(cognition.restarts, 0, "{cognition}");
    let fault = cognition.fault.clone().unwrap_or_default();
    assert!(
        fault.contains("behaviour.py:3") && fault.contains("loading took longer"),
        "{cognition}"
    );
    let log = instance.log();
    assert!(
        log.contains("time.sleep(1000)") && !log.contains("cognition froze"),
        "{log}"
    );

    // The fix loads without a restart.
    let pid = instance.pid("cognition");
    save(&behaviours.join("behaviour.py"), FIXED);
    wait_request(&instance, "the fixed behaviour runs", chest_is_green);
    assert!(instance.process("cognition").fault.is_none());

    // At reload: the sleep is interrupted by the reload budget and the running code stays.
    save(&behaviours.join("behaviour.py"), SLEEPS);
    let status = instance.wait_for("the reload to fail", Duration::from_secs(20), |status| {
        cognition_of(status)
            .fault
            .as_deref()
            .is_some_and(|fault| fault.contains("reload failed"))
    });
    assert!(status.safe_state.is_none());
    assert!(chest_is_green(&instance.get("BehaviourRequest")));
    assert_eq!(instance.pid("cognition"), pid, "no restart: {status}");
    watch.check(&instance);
}

#[test]
fn an_exception_shows_in_status_with_file_and_line_until_fixed() {
    const RAISES: &str = "import robot\n\ndef tick(blackboard):\n    return 1 / 0\n";
    let (_folder, behaviours) = behaviour_copy();
    let (instance, watch) = start_standing("behaviour-exception", &behaviours);
    save(&behaviours.join("behaviour.py"), RAISES);
    let status = instance.wait_for("the fault in status", Duration::from_secs(20), |status| {
        cognition_of(status).fault.as_deref()
            == Some("Python error: behaviour.py:4: ZeroDivisionError: division by zero")
    });
    let cognition = cognition_of(&status);
    assert_eq!(cognition.state, ProcessState::Running);
    assert!(cognition.faults >= 1, "{cognition}");
    assert_eq!(
        cognition.behaviour_file.as_deref(),
        behaviours.join("behaviour.py").to_str(),
        "{cognition}"
    );
    wait_for_log(
        &instance,
        "the traceback",
        Duration::from_secs(5),
        &[
            &format!(
                "{}\", line 4, in tick",
                behaviours.join("behaviour.py").display()
            ),
            "ZeroDivisionError: division by zero",
        ],
    );
    let table = instance.command(&["status"]);
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(
        table.contains("cognition: FAULT") && table.contains("ZeroDivisionError"),
        "{table}"
    );

    save(&behaviours.join("behaviour.py"), FIXED);
    wait_request(&instance, "the fix", chest_is_green);
    instance.wait_for("the fault to clear", Duration::from_secs(10), |status| {
        cognition_of(status).fault.is_none()
    });
    watch.check(&instance);
}

fn proc_status_kb(pid: i32, key: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    text.lines()
        .find_map(|line| line.strip_prefix(key))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

#[test]
fn unbounded_allocation_is_a_memory_error_within_the_process_limit() {
    const GREEDY: &str = "import robot\n\nHOARD = []\n\ndef tick(blackboard):\n    HOARD.append(bytearray(32 << 20))\n    return robot.BehaviourRequest()\n";
    let (_folder, behaviours) = behaviour_copy();
    let (instance, watch) = start_standing("behaviour-memory", &behaviours);
    let cognition = instance.pid("cognition");
    let bridge = instance.pid("lola");
    // The kernel's OOM killer would end cognition first and the bridge last.
    let score = |pid: i32| -> i32 {
        std::fs::read_to_string(format!("/proc/{pid}/oom_score_adj"))
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    assert!(
        score(cognition) > score(instance.pid("motion"))
            && score(instance.pid("motion")) > score(bridge),
        "oom_score_adj: cognition {}, motion {}, lola {}",
        score(cognition),
        score(instance.pid("motion")),
        score(bridge)
    );
    let limits = std::fs::read_to_string(format!("/proc/{cognition}/limits")).unwrap();
    assert!(
        limits
            .lines()
            .any(|line| line.starts_with("Max data size") && line.contains("268435456")),
        "{limits}"
    );

    save(&behaviours.join("behaviour.py"), GREEDY);
    instance.wait_for("a MemoryError", Duration::from_secs(30), |status| {
        cognition_of(status)
            .fault
            .as_deref()
            .is_some_and(|fault| fault.contains("MemoryError"))
    });
    // Bounded: whatever cognition holds now, it is below its limit (256 MB) — without the limit
    // it would grow by 32 MB every tick (2 GB a second).
    let pid = instance.pid("cognition");
    std::thread::sleep(Duration::from_secs(1));
    let data_kb = proc_status_kb(pid, "VmData:");
    assert!(data_kb > 0 && data_kb <= 256 * 1024, "VmData {data_kb} kB");
    assert!(instance.log().contains("MemoryError"));
    // The behaviour was unloaded: what it hoarded is freed (cognition needs about 12 MB).
    let deadline = Instant::now() + Duration::from_secs(20);
    while proc_status_kb(pid, "VmData:") > 96 * 1024 {
        assert!(
            Instant::now() < deadline,
            "cognition still holds {} kB\n{}",
            proc_status_kb(pid, "VmData:"),
            instance.log()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        instance.log().contains("unloaded to free its memory"),
        "{}",
        instance.log()
    );

    save(&behaviours.join("behaviour.py"), FIXED);
    wait_request(&instance, "the fix", chest_is_green);
    watch.check(&instance);
}

#[test]
fn threads_are_refused_so_none_outlives_a_reload() {
    let (_folder, behaviours) = behaviour_copy();
    let (instance, watch) = start_standing("behaviour-threads", &behaviours);
    save(&behaviours.join("behaviour.py"), FIXED);
    wait_request(&instance, "the first version", chest_is_green);
    let pid = instance.pid("cognition");

    // A thread started at import would write this file every 10 ms, forever.
    let trace = behaviours.parent().unwrap().join("thread-ran");
    let threaded = format!(
        "import threading, time\nimport robot\n\ndef spin():\n    while True:\n        open({trace:?}, 'a').write('x')\n        time.sleep(0.01)\n\nthreading.Thread(target=spin, daemon=True).start()\n\ndef tick(blackboard):\n    request = robot.BehaviourRequest()\n    request.leds.chest = 'Blue'\n    return request\n",
        trace = trace.to_str().unwrap()
    );
    save(&behaviours.join("behaviour.py"), &threaded);
    let status = instance.wait_for("the refused load", Duration::from_secs(20), |status| {
        cognition_of(status)
            .fault
            .as_deref()
            .is_some_and(|fault| fault.contains("ThreadsRefused"))
    });
    assert!(status.safe_state.is_none());
    assert!(
        chest_is_green(&instance.get("BehaviourRequest")),
        "the previous code stays"
    );

    // A thread started inside tick: refused the same way, every tick.
    let in_tick = format!(
        "import _thread\nimport robot\n\ndef tick(blackboard):\n    _thread.start_new_thread(open, ({trace:?}, 'a'))\n    return robot.BehaviourRequest()\n",
        trace = trace.to_str().unwrap()
    );
    save(&behaviours.join("behaviour.py"), &in_tick);
    instance.wait_for("the refused tick", Duration::from_secs(20), |status| {
        cognition_of(status)
            .fault
            .as_deref()
            .is_some_and(|fault| fault.contains("behaviour.py:5: ThreadsRefused"))
    });

    save(&behaviours.join("behaviour.py"), FIXED);
    wait_request(&instance, "the fix", chest_is_green);
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        !trace.exists(),
        "a behaviour thread ran: {} exists",
        trace.display()
    );
    assert_eq!(instance.pid("cognition"), pid, "no restart");
    let log = instance.log();
    assert!(log.contains("a behaviour may not start threads"), "{log}");
    // A forked copy of cognition is refused the same way.
    save(
        &behaviours.join("behaviour.py"),
        "import os\nimport robot\n\ndef tick(blackboard):\n    os.fork()\n    return robot.BehaviourRequest()\n",
    );
    instance.wait_for("the refused fork", Duration::from_secs(20), |status| {
        cognition_of(status)
            .fault
            .as_deref()
            .is_some_and(|fault| fault.contains("behaviour.py:5: ThreadsRefused"))
    });
    assert_eq!(instance.pid("cognition"), pid, "no restart");
    watch.check(&instance);
}

#[test]
fn hot_reload_survives_the_folder_being_deleted_and_made_again() {
    let (folder, behaviours) = behaviour_copy();
    let (instance, watch) = start_standing("behaviour-folder-again", &behaviours);
    let pid = instance.pid("cognition");
    // Twice: the second time proves that the watch was armed again, not just once.
    for round in 0..2 {
        let spare = folder.path().join(format!("spare-{round}"));
        copy_dir(&behaviours, &spare);
        std::fs::remove_dir_all(&behaviours).unwrap();
        std::thread::sleep(Duration::from_millis(500));
        std::fs::rename(&spare, &behaviours).unwrap();
        std::thread::sleep(Duration::from_millis(500));
        let colour = if round == 0 { "Green" } else { "Blue" };
        save(
            &behaviours.join("behaviour.py"),
            &FIXED.replace("'Green'", &format!("'{colour}'")),
        );
        let wanted = colour;
        wait_request(
            &instance,
            "the edit after the folder came back",
            |request| request["leds"]["chest"]["colour"] == wanted,
        );
    }
    assert_eq!(instance.pid("cognition"), pid, "no restart");
    assert!(
        instance.log().contains("watching it again"),
        "{}",
        instance.log()
    );
    watch.check(&instance);
}

#[test]
fn sync_local_names_what_it_deletes_and_warns_on_links_leaving_the_tree() {
    if Command::new("rsync").arg("--version").output().is_err() {
        eprintln!("SKIPPED: rsync is not installed (apt-get install rsync)");
        return;
    }
    let (folder, behaviours) = behaviour_copy();
    let secret = folder.path().join("secret.txt");
    std::fs::write(&secret, "not for the robot").unwrap();
    std::os::unix::fs::symlink(&secret, behaviours.join("absolute_link.py")).unwrap();
    std::os::unix::fs::symlink("../../secret.txt", behaviours.join("states/climbing.py")).unwrap();
    std::os::unix::fs::symlink("initial.py", behaviours.join("states/inside.py")).unwrap();
    let (_config_folder, config) = support::config_copy();
    let destination = folder.path().join("robot");
    let run = |extra: &[&str]| {
        let output = Command::new(support::cortex())
            .args(["sync", "--local"])
            .arg(&destination)
            .arg("--behaviours")
            .arg(&behaviours)
            .arg("--config-dir")
            .arg(&config)
            .args(extra)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        (
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (_, stderr) = run(&[]);
    assert!(
        stderr.contains("behaviours/absolute_link.py")
            && stderr.contains("behaviours/states/climbing.py"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("inside.py"),
        "a link inside the tree is fine: {stderr}"
    );
    assert!(!destination.join("behaviours/absolute_link.py").exists());
    assert!(std::fs::symlink_metadata(destination.join("behaviours/absolute_link.py")).is_err());
    assert!(std::fs::symlink_metadata(destination.join("behaviours/states/climbing.py")).is_err());
    assert!(destination.join("behaviours/states/inside.py").exists());

    // A file of the user's at the destination: the dry run names it and keeps it.
    let mine = destination.join("config/robots/mine.toml");
    std::fs::create_dir_all(mine.parent().unwrap()).unwrap();
    std::fs::write(&mine, "# mine\n").unwrap();
    let (stdout, stderr) = run(&["--dry-run"]);
    assert!(
        stdout.contains("dry run") && stdout.contains("config/robots/mine.toml"),
        "{stdout}"
    );
    assert!(stderr.contains("would delete"), "{stderr}");
    assert!(mine.exists(), "a dry run changes nothing");
    let (_, stderr) = run(&["--keep"]);
    assert!(mine.exists(), "--keep keeps it: {stderr}");
    let (stdout, stderr) = run(&[]);
    assert!(!mine.exists());
    assert!(
        stdout.contains("deleted")
            && stdout.contains("config/robots/mine.toml")
            && stderr.contains("cortex sync: deleted")
            && stderr.contains("config/robots/mine.toml"),
        "{stdout}\n{stderr}"
    );
}
