//! System tests of the supervisor with the real binary and `--sim` (issue 5): start-up, every
//! child killed with SIGKILL, SIGSEGV and SIGABRT, a freeze, a crash loop into the safe state,
//! a clean stop, a broken configuration.

mod support;

use std::time::{Duration, Instant};
use support::{alive, dev_shm, pids_mentioning, send_signal, Instance, ProcessState};
use support::{ProcessStatus, Status};

fn process_of<'a>(status: &'a Status, name: &str) -> &'a ProcessStatus {
    status
        .process(name)
        .unwrap_or_else(|| panic!("no process {name} in {status}"))
}

/// The rates the shipped process table gives, by process (triggered ones by their producer).
fn expected_rate(name: &str) -> f64 {
    match name {
        "lola" | "motion" => 83.33,
        "perception.upper" | "perception.lower" => 30.0,
        "cognition" => 60.0,
        "audio" => 20.0,
        "network" => 100.0,
        "debug" => 10.0,
        other => panic!("a process the test does not know: {other}"),
    }
}

#[test]
fn every_child_ticks_at_its_configured_rate() {
    let instance = Instance::start("rates", &[]);
    // The rate in the board is over a one-second window. Every process must reach its configured
    // rate within 15 % in the same window; on a loaded machine (both simulated cameras render and
    // perceive at 30 Hz, the standbys start CPython) the first windows may fall short, so wait
    // for one window in which all of them do. A process configured or paced wrongly never gets
    // there and the wait fails with the status it saw last.
    let within = |name: &str, rate: Option<f64>| {
        let expected = expected_rate(name);
        rate.is_some_and(|rate| (rate - expected).abs() <= expected * 0.15)
    };
    let status = instance.wait_for(
        "every process at its configured rate",
        Duration::from_secs(60),
        |status| {
            status.processes.len() >= 8
                && status
                    .processes
                    .iter()
                    .all(|process| within(&process.name, process.rate_hz))
        },
    );
    let names: Vec<String> = status.processes.iter().map(|p| p.name.clone()).collect();
    for expected in [
        "lola",
        "motion",
        "perception.upper",
        "perception.lower",
        "cognition",
        "audio",
        "network",
        "debug",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} missing from {names:?}"
        );
    }
    for process in &status.processes {
        let name = process.name.as_str();
        let rate = process
            .rate_hz
            .unwrap_or_else(|| panic!("{name} has no rate: {process}"));
        let expected = expected_rate(name);
        assert!(
            (rate - expected).abs() <= expected * 0.15,
            "{name} ticks at {rate:.1} Hz, configured {expected} Hz"
        );
        assert_eq!(process.state, ProcessState::Running, "{process}");
        assert!(process.pid.is_some());
        // Not restarted (a loaded machine may restart a slow starter): no exit yet, and `null`
        // for it in JSON, not a placeholder.
        if process.restarts == 0 {
            assert_eq!(process.last_exit, None, "{process}");
            assert_eq!(process.last_exit_code, None, "{process}");
        }
    }
    let json = instance.command(&["status", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let bridge = &json["processes"][0];
    assert!(
        bridge["restarts"] != 0 || bridge["last_exit"].is_null(),
        "{json}"
    );
}

/// Kills `victim` with `signal`; checks that it comes back with a new pid and ticks, that the
/// restart is counted, and that motion answered every LoLA frame meanwhile.
fn kill_and_check(instance: &Instance, victim: &str, signal: i32, signal_name: &str) {
    // The victim may still be coming back from the previous kill (a loaded machine): start from a
    // running, ticking instance so that the restart counted below is this kill's.
    let before = instance.wait_for(
        &format!("{victim} running before {signal_name}"),
        Duration::from_secs(20),
        |status| process_of(status, victim).pid.is_some() && process_of(status, victim).ticks > 0,
    );
    let old_pid = process_of(&before, victim).pid.unwrap();
    let restarts = process_of(&before, victim).restarts;
    let lola_before = process_of(&before, "lola").clone();
    send_signal(old_pid as i32, signal);
    let after = instance.wait_for(
        &format!("{victim} back after {signal_name}"),
        Duration::from_secs(20),
        |status| {
            let pid = process_of(status, victim).pid;
            pid.is_some() && pid != Some(old_pid) && process_of(status, victim).ticks > 0
        },
    );
    assert_eq!(
        process_of(&after, victim).restarts,
        restarts + 1,
        "{victim}: restart counted"
    );
    let last_exit = process_of(&after, victim).last_exit.as_deref();
    assert_eq!(
        last_exit,
        Some(signal_name),
        "{victim}: the exit reason names the signal"
    );
    if victim != "motion" && victim != "lola" {
        support::assert_motion_kept_up(
            &lola_before,
            process_of(&after, "lola"),
            &format!("{victim} was down"),
        );
    }
}

#[test]
fn every_child_is_restarted_after_sigkill_sigsegv_and_sigabrt() {
    let instance = Instance::start("kills", &[]);
    let names: Vec<String> = (instance.status().processes.iter())
        .map(|p| p.name.clone())
        .collect();
    for (signal, name) in [(9, "SIGKILL"), (11, "SIGSEGV"), (6, "SIGABRT")] {
        for victim in &names {
            kill_and_check(&instance, victim, signal, name);
            // Let the health windows and the motion/lola counters settle between kills.
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    assert!(instance.log().contains("restart"), "exits are logged");
}

#[test]
fn a_frozen_child_is_detected_and_restarted_within_its_deadline() {
    let instance = Instance::start("freeze", &[]);
    for victim in ["motion", "audio"] {
        let process = instance.process(victim);
        let watchdog_ms = process.watchdog_ms;
        let old_pid = process.pid.unwrap();
        let stopped = Instant::now();
        send_signal(old_pid as i32, 19); // SIGSTOP
        let status = instance.wait_for(
            &format!("{victim} restarted after SIGSTOP"),
            Duration::from_secs(10),
            |status| {
                let pid = process_of(status, victim).pid;
                pid.is_some() && pid != Some(old_pid)
            },
        );
        let took = stopped.elapsed();
        println!("{victim}: replaced {took:?} after SIGSTOP (watchdog {watchdog_ms} ms)");
        assert!(
            process_of(&status, victim)
                .last_exit
                .as_deref()
                .is_some_and(|exit| exit.starts_with("frozen")),
            "{status}"
        );
        assert!(!alive(old_pid as i32), "the frozen process is gone");
        assert!(instance.log().contains(&format!("{victim} froze")));
    }
}

#[test]
fn a_crash_loop_reaches_the_intensity_limit_and_the_safe_state() {
    let instance = Instance::start("crashloop", &[]);
    let limit = 5; // restart_intensity of the shipped table
    for round in 0..=limit {
        // Running means ticking: a child signalled before it has restored the default action
        // of SIGSEGV (the first thing it does) could swallow the signal, and the round would
        // not count. Its first tick comes after that.
        let status = instance.wait_for("audio running", Duration::from_secs(20), |status| {
            process_of(status, "audio").pid.is_some() && process_of(status, "audio").ticks > 0
        });
        let pid = process_of(&status, "audio").pid.unwrap();
        send_signal(pid as i32, 11);
        let _ = round;
        instance.wait_for("audio gone", Duration::from_secs(10), |status| {
            process_of(status, "audio").pid != Some(pid)
        });
    }
    let status = instance.wait_for("safe state", Duration::from_secs(10), |status| {
        status.safe_state.is_some()
    });
    assert!(
        status.safe_state.as_deref().unwrap().contains("audio"),
        "{status}"
    );
    assert!(
        matches!(process_of(&status, "audio").state, ProcessState::Failed(_)),
        "{status}"
    );
    // The robot sits and goes limp: LoLA reports stiffness zero everywhere, eyes red.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let sensors = instance.get("SensorData");
        let stiffnesses = sensors["joint_stiffnesses"].to_string();
        let limp = sensors["joint_stiffnesses"]
            .as_object()
            .map(|joints| joints.values().all(|v| v.as_f64() == Some(0.0)))
            .or_else(|| {
                sensors["joint_stiffnesses"]
                    .as_array()
                    .map(|a| a.iter().all(|v| v.as_f64() == Some(0.0)))
            })
            .unwrap_or(false);
        if limp {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the robot did not go limp: {stiffnesses}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let eyes = instance.simulator_command("eyes");
    assert!(eyes.contains("red"), "eyes: {eyes}");
    assert!(instance.log().contains("SAFE STATE"));
}

#[test]
fn sigterm_stops_cleanly_and_leaves_nothing_behind() {
    let shm_before = dev_shm();
    let mut instance = Instance::start("sigterm", &[]);
    let running = instance.status();
    let pids: Vec<i32> = (running.processes.iter())
        .filter_map(|p| p.pid)
        .map(|p| p as i32)
        .collect();
    assert_eq!(
        pids.len(),
        running.processes.len(),
        "every process has a pid"
    );
    let status = instance.terminate();
    assert_eq!(status.code(), Some(0), "log:\n{}", instance.log());
    for pid in pids {
        assert!(!alive(pid), "process {pid} outlived the supervisor");
    }
    assert!(
        pids_mentioning(&instance.run_dir.to_string_lossy()).is_empty(),
        "nothing runs with the run directory"
    );
    assert!(
        !instance.run_dir.exists(),
        "the run directory and its sockets are removed"
    );
    assert_eq!(dev_shm(), shm_before, "nothing appeared in /dev/shm");
    let log = instance.log();
    assert!(log.contains("stiffness off, eyes blue"), "{log}");
}

#[test]
fn a_killed_supervisor_takes_its_children_with_it() {
    let mut instance = Instance::start("pdeathsig", &[]);
    let pids: Vec<i32> = (instance.status().processes.iter())
        .filter_map(|p| p.pid)
        .map(|p| p as i32)
        .collect();
    let mut child = instance.child.take().unwrap();
    send_signal(child.id() as i32, 9);
    child.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while pids.iter().any(|&pid| alive(pid)) {
        assert!(
            Instant::now() < deadline,
            "children outlived a killed supervisor"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_broken_configuration_is_refused_with_the_culprit_and_status_78() {
    let (_folder, config) = support::config_copy();
    let table = config.join("default/processes.toml");
    let text = std::fs::read_to_string(&table).unwrap();
    std::fs::write(
        &table,
        text.replacen("watchdog_ms = 40", "watchdog_ms = \"soon\"", 1),
    )
    .unwrap();
    let mut instance = Instance::spawn("broken", &["--config-dir", config.to_str().unwrap()]);
    let status = instance.child.as_mut().unwrap().wait().unwrap();
    instance.child = None;
    assert_eq!(status.code(), Some(78));
    let log = instance.log();
    assert!(
        log.contains("processes.toml:")
            && log.contains("watchdog_ms")
            && log.contains("configuration error"),
        "{log}"
    );
}

/// Under systemd (`Type=notify`, `NOTIFY_SOCKET` set): `READY=1` comes once every process
/// ticks, not at start, and `STOPPING=1` when the instance is told to stop.
#[test]
fn systemd_hears_ready_once_every_process_ticks_and_stopping_at_the_end() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("notify.sock");
    let socket = std::os::unix::net::UnixDatagram::bind(&path).unwrap();
    // Only waits: start-up on a loaded machine may take long.
    socket
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut instance = Instance::spawn_with("notify", None, &[], |command| {
        command.env("NOTIFY_SOCKET", &path);
    });
    let mut buffer = [0u8; 4096];
    let receive = |buffer: &mut [u8]| {
        let length = socket.recv(buffer).expect("a notification within 60 s");
        String::from_utf8_lossy(&buffer[..length]).into_owned()
    };
    let ready = receive(&mut buffer);
    // Sent only once all have ticked: right after it, no process may still be starting.
    let status = instance.status();
    assert!(ready.lines().any(|line| line == "READY=1"), "{ready:?}");
    assert!(ready.contains("STATUS=every process ticks"), "{ready:?}");
    assert!(
        status.all_ticking(),
        "READY=1 before every process ticked: {status}"
    );
    assert_eq!(instance.terminate().code(), Some(0), "{}", instance.log());
    let stopping = receive(&mut buffer);
    assert_eq!(
        stopping.trim_end(),
        "STOPPING=1",
        "one READY=1, then the stop"
    );
}
