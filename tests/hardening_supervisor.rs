//! System tests of issue 9, items 1–4, and issue 17's Ctrl-C, with the real binary: idle and
//! endless control clients while motion is killed, requests sent to a stopped supervisor,
//! SIGKILL / SIGHUP / SIGQUIT / a terminal's SIGINT to the supervisor, and hostile run
//! directories (a shared folder, planted links, a folder of another user, `--instance ../..`).
//!
//! The robot is an in-process LoLA simulator passed with `--lola-socket`: it outlives the
//! supervisor, so the test sees what the robot did after the supervisor died.

mod support;

use simulator::lola_simulator::{LolaSimulator, SimulatorConfig, SimulatorHandle};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::{alive, send_signal, Instance, ProcessState, ProcessStatus, Status};
use types::JointId;

/// A LoLA of the test's own.
struct Lola {
    _simulator: LolaSimulator,
    handle: SimulatorHandle,
    socket: PathBuf,
    _folder: tempfile::TempDir,
}

/// The left knee (rad) and its stiffness as LoLA last applied them.
#[derive(Debug, Clone, Copy)]
struct Posture {
    knee_rad: f32,
    stiffness: f32,
}

impl Posture {
    fn standing(self) -> bool {
        self.knee_rad < 1.3 && self.stiffness > 0.3
    }
    fn sitting_limp(self) -> bool {
        self.knee_rad > 1.8 && self.stiffness == 0.0
    }
}

impl Lola {
    fn start() -> Lola {
        let folder = tempfile::tempdir().unwrap();
        let socket = folder.path().join("robocup");
        let simulator = LolaSimulator::start(SimulatorConfig::new(&socket)).unwrap();
        Lola {
            handle: simulator.handle(),
            _simulator: simulator,
            socket,
            _folder: folder,
        }
    }

    fn argument(&self) -> [&str; 2] {
        ["--lola-socket", self.socket.to_str().unwrap()]
    }

    fn posture(handle: &SimulatorHandle) -> Posture {
        Posture {
            knee_rad: handle.joint_positions_rad()[JointId::LeftKneePitch],
            stiffness: handle
                .actuators()
                .stiffnesses
                .map_or(0.0, |stiffnesses| stiffnesses[JointId::LeftKneePitch]),
        }
    }

    fn eyes(&self) -> String {
        let actuators = self.handle.actuators();
        let colour = |eye: Option<types::EyeLeds>| {
            eye.map_or("unset", |eye| {
                let rgb = eye.segments[0];
                match (rgb.red > 0.5, rgb.green > 0.5, rgb.blue > 0.5) {
                    (false, false, true) => "blue",
                    (true, false, false) => "red",
                    _ => "other",
                }
            })
        };
        format!(
            "{} {}",
            colour(actuators.left_eye),
            colour(actuators.right_eye)
        )
    }

    fn wait(&self, what: &str, timeout: Duration, condition: impl Fn(Posture) -> bool) {
        let deadline = Instant::now() + timeout;
        loop {
            let posture = Lola::posture(&self.handle);
            if condition(posture) {
                return;
            }
            assert!(Instant::now() < deadline, "{what}: {posture:?}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Samples the posture every 2 ms until the returned guard is finished; says whether the
    /// robot ever stopped standing meanwhile.
    fn watch(&self) -> Watch {
        let stop = Arc::new(AtomicBool::new(false));
        let worst = Arc::new(Mutex::new(None));
        let thread = std::thread::spawn({
            let handle = self.handle.clone();
            let stop = stop.clone();
            let worst = worst.clone();
            move || {
                while !stop.load(Ordering::Relaxed) {
                    let posture = Lola::posture(&handle);
                    if !posture.standing() {
                        worst.lock().unwrap().get_or_insert(posture);
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
            }
        });
        Watch {
            stop,
            worst,
            thread: Some(thread),
        }
    }
}

struct Watch {
    stop: Arc<AtomicBool>,
    worst: Arc<Mutex<Option<Posture>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watch {
    /// The first posture that was not standing, if any.
    fn finish(mut self) -> Option<Posture> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().unwrap().join().unwrap();
        *self.worst.lock().unwrap()
    }
}

fn process_of<'a>(status: &'a Status, name: &str) -> &'a ProcessStatus {
    status
        .process(name)
        .unwrap_or_else(|| panic!("no process {name} in {status}"))
}

fn all_pids(status: &Status) -> Vec<i32> {
    status
        .processes
        .iter()
        .filter_map(|p| p.pid)
        .map(|pid| pid as i32)
        .collect()
}

/// A `/proc/PID/status` memory line in kB (`VmHWM`, `VmRSS`).
fn memory_kb(pid: u32, key: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{key}:")))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kb| kb.parse().ok())
        .unwrap_or_else(|| panic!("no {key} in /proc/{pid}/status"))
}

/// Waits for `cortex run` to exit and returns its status.
fn wait_exit(instance: &mut Instance, timeout: Duration) -> std::process::ExitStatus {
    let mut child = instance.child.take().expect("running");
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("cortex run did not exit; log:\n{}", instance.log());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn wait_gone(pids: &[i32], timeout: Duration) {
    let deadline = Instant::now() + timeout;
    while pids.iter().any(|&pid| alive(pid)) {
        assert!(
            Instant::now() < deadline,
            "processes outlived the supervisor: {:?}",
            pids.iter().filter(|&&pid| alive(pid)).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs `cortex ARGS` that is expected to fail at once; kills it if it runs instead.
fn run_expecting_refusal(args: &[&str], environment: &[(&str, &Path)]) -> (Option<i32>, String) {
    let mut command = Command::new(support::cortex());
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (key, value) in environment {
        command.env(key, value);
    }
    let mut child = command.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            send_signal(child.id() as i32, 15);
            let output = child.wait_with_output().unwrap();
            panic!(
                "`cortex {}` ran instead of refusing: {}",
                args.join(" "),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

// Item 1 ---------------------------------------------------------------------------------------

#[test]
fn idle_and_endless_control_clients_do_not_delay_restarting_a_killed_motion() {
    let lola = Lola::start();
    let instance = Instance::start("flood", &lola.argument());
    lola.wait("standing up", Duration::from_secs(20), Posture::standing);
    let supervisor = instance.child.as_ref().unwrap().id();
    let peak_before_kb = memory_kb(supervisor, "VmHWM");
    let before = instance.status();
    let motion = process_of(&before, "motion").pid.unwrap() as i32;
    let restarts = process_of(&before, "motion").restarts;
    let socket = instance.run_dir.join("control.sock");
    let watch = lola.watch();

    // 100 clients connect and say nothing (more than the server's 64 places), then one sends
    // a request line that never ends (up to 2 GiB), and motion is killed meanwhile.
    let idle: Vec<UnixStream> = (0..100)
        .map(|_| UnixStream::connect(&socket).unwrap())
        .collect();
    let mut endless = UnixStream::connect(&socket).unwrap();
    let endless = std::thread::spawn(move || {
        endless
            .set_write_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let chunk = vec![b'x'; 1 << 20];
        let mut sent = 0u64;
        while sent < 2 << 30 {
            match endless.write(&chunk) {
                Ok(count) => sent += count as u64,
                Err(_) => break,
            }
        }
        let mut reply = String::new();
        endless
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let _ = BufReader::new(&endless).read_line(&mut reply);
        (sent, reply)
    });
    send_signal(motion, 9);
    // A person's `cortex status` gets through at once: idle connections make room.
    let during = instance.status();
    assert_eq!(during.instance_pid, supervisor, "{during}");

    let after = instance.wait_for(
        "motion back with a new pid",
        Duration::from_secs(30),
        |status| {
            let pid = process_of(status, "motion").pid;
            pid.is_some() && pid != Some(motion as u32) && process_of(status, "motion").ticks > 0
        },
    );
    let (sent, reply) = endless.join().unwrap();
    let not_standing = watch.finish();
    assert!(
        not_standing.is_none(),
        "the robot stopped standing while motion was restarted: {not_standing:?}"
    );
    assert_eq!(process_of(&after, "motion").restarts, restarts + 1);
    assert_eq!(
        process_of(&after, "motion").last_exit.as_deref(),
        Some("SIGKILL")
    );
    assert!(sent < 2 << 30, "the supervisor read the whole endless line");
    assert!(
        reply.contains("request longer than 65536 bytes"),
        "reply: {reply:?}"
    );
    let peak_after_kb = memory_kb(supervisor, "VmHWM");
    assert!(
        peak_after_kb < peak_before_kb + 32 * 1024,
        "the supervisor grew from {peak_before_kb} kB to {peak_after_kb} kB"
    );
    // Every idle connection was either closed to make room or dropped at its deadline; status
    // reports what happened. (Each status request may close one more idle connection: poll
    // slowly, so that some reach their deadline.)
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        let status = instance.status();
        let closed = status.control.evicted_idle + status.control.timed_out;
        if closed >= 100 {
            break status;
        }
        assert!(Instant::now() < deadline, "idle connections left: {status}");
        std::thread::sleep(Duration::from_millis(300));
    };
    let control = &status.control;
    assert!(control.evicted_idle >= 37, "{status}");
    assert_eq!(control.refused_busy, 0, "{status}");
    assert_eq!(control.refused_oversized, 1, "{status}");
    let log = instance.log();
    for line in [
        "64 connections open: closed the one idle longest",
        "request longer than 65536 bytes",
        "no complete request line within 2s",
    ] {
        assert!(log.contains(line), "{line}: {log}");
    }
    drop(idle);
}

// Item 2 ---------------------------------------------------------------------------------------

#[test]
fn requests_sent_while_the_supervisor_is_stopped_are_not_carried_out_later() {
    let mut instance = Instance::start("sigstop", &[]);
    let supervisor = instance.child.as_ref().unwrap().id() as i32;
    send_signal(supervisor, 19); // SIGSTOP
                                 // A client of its own, without a deadline, that gives up and hangs up after a second.
    let mut raw = UnixStream::connect(instance.run_dir.join("control.sock")).unwrap();
    raw.write_all(b"{\"command\":\"stop\"}\n").unwrap();
    std::thread::sleep(Duration::from_secs(1));
    drop(raw);
    let (stop, restart) = std::thread::scope(|scope| {
        let stop = scope.spawn(|| instance.command(&["stop"]));
        let restart = scope.spawn(|| instance.command(&["restart", "motion"]));
        (stop.join().unwrap(), restart.join().unwrap())
    });
    send_signal(supervisor, 18); // SIGCONT
    for (output, command) in [(&stop, "stop"), (&restart, "restart")] {
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{command} succeeded");
        assert!(
            stderr.contains(&format!("did not answer `{command}`"))
                && stderr.contains("will not be carried out"),
            "{command}: {stderr}"
        );
    }
    let status = instance.wait_for(
        "the three requests refused",
        Duration::from_secs(30),
        |status| status.control.expired == 3,
    );
    // Give a wrongly executed stop time to show.
    std::thread::sleep(Duration::from_secs(1));
    let status_now = instance.wait_until_all_running(Duration::from_secs(10));
    assert_eq!(process_of(&status, "motion").restarts, 0, "{status}");
    assert_eq!(process_of(&status_now, "motion").restarts, 0);
    assert!(
        instance
            .child
            .as_mut()
            .unwrap()
            .try_wait()
            .unwrap()
            .is_none(),
        "the supervisor stopped after all"
    );
    let log = instance.log();
    assert!(log.contains("`stop` refused: its deadline passed"), "{log}");
    assert!(
        log.contains("`restart` refused: its deadline passed"),
        "{log}"
    );
    assert!(
        log.contains("`stop` refused: the client closed its connection"),
        "{log}"
    );
}

// Item 3 and issue 17 --------------------------------------------------------------------------

#[test]
fn a_killed_supervisors_bridge_sits_the_robot_down_and_a_later_run_cleans_up() {
    let lola = Lola::start();
    let folder = tempfile::tempdir().unwrap();
    let run_dir = folder.path().join("run");
    let mut first = Instance::spawn_with("killed", Some(&run_dir), &lola.argument(), |_| {});
    let status = first.wait_until_all_running(Duration::from_secs(30));
    lola.wait("standing up", Duration::from_secs(20), Posture::standing);
    let pids = all_pids(&status);
    let mut supervisor = first.child.take().unwrap();
    send_signal(supervisor.id() as i32, 9);
    supervisor.wait().unwrap();

    // The bridge gets SIGTERM from the kernel: it sits the robot down, lets go, eyes blue.
    lola.wait(
        "sitting down, stiffness off",
        Duration::from_secs(20),
        Posture::sitting_limp,
    );
    assert_eq!(lola.eyes(), "blue blue");
    wait_gone(&pids, Duration::from_secs(20));
    assert!(
        run_dir.join("cortex.lock").exists(),
        "a killed supervisor cannot clean up"
    );

    // A later run on the same folder cleans up after it and leaves nothing when it stops.
    let mut second = Instance::spawn_with("after-kill", Some(&run_dir), &lola.argument(), |_| {});
    second.wait_until_all_running(Duration::from_secs(30));
    let log = second.log();
    assert!(log.contains("ended without cleaning up"), "{log}");
    assert_eq!(second.terminate().code(), Some(0), "{}", second.log());
    assert!(!run_dir.exists(), "the adopted run directory is removed");
}

#[test]
fn with_the_simulator_a_killed_supervisors_bridge_still_sits_the_robot_down() {
    let mut instance = Instance::start("killed-sim", &[]);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let sensors = instance.get("SensorData");
        let knee = sensors["joint_positions_rad"][10].as_f64().unwrap_or(3.0);
        if knee < 1.3 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the robot did not stand: {sensors}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut pids = all_pids(&instance.status());
    let lola_socket = instance.run_dir.join("lola.sock");
    let simulator = support::pids_mentioning(&lola_socket.to_string_lossy());
    assert_eq!(simulator.len(), 1, "one simulator: {simulator:?}");
    pids.extend(simulator);
    let mut supervisor = instance.child.take().unwrap();
    send_signal(supervisor.id() as i32, 9);
    supervisor.wait().unwrap();
    // The simulated robot stays while the bridge sits it down, then both end.
    wait_gone(&pids, Duration::from_secs(20));
    let log = instance.log();
    assert!(log.contains("stopped: stiffness off, eyes blue"), "{log}");
    assert!(!log.contains("LoLA connection lost"), "{log}");
    assert!(!lola_socket.exists() && !instance.run_dir.join("simulator.sock").exists());
}

/// Sends `signal` to a running supervisor and checks that it stopped like `cortex stop`.
fn stops_like_cortex_stop(name: &str, signal: i32, signal_name: &str, own_group: bool) {
    let lola = Lola::start();
    let mut instance = Instance::spawn_with(name, None, &lola.argument(), |command| {
        if own_group {
            // A terminal's foreground job: the supervisor leads a process group of its own.
            command.process_group(0);
        }
    });
    let status = instance.wait_until_all_running(Duration::from_secs(30));
    lola.wait("standing up", Duration::from_secs(20), Posture::standing);
    let pids = all_pids(&status);
    let supervisor = instance.child.as_ref().unwrap().id() as i32;
    if own_group {
        // What Ctrl-C does: the signal goes to every process of the foreground group.
        let group = rustix::process::Pid::from_raw(supervisor).unwrap();
        let signal = rustix::process::Signal::from_named_raw(signal).unwrap();
        rustix::process::kill_process_group(group, signal).unwrap();
    } else {
        send_signal(supervisor, signal);
    }
    // While the robot sits down, `status` still answers and says the instance is stopping.
    let mut seen_stopping = false;
    while instance
        .child
        .as_mut()
        .unwrap()
        .try_wait()
        .unwrap()
        .is_none()
    {
        if let Some(status) = instance.try_status() {
            seen_stopping |= status.stopping;
        }
        if seen_stopping {
            break;
        }
    }
    assert!(
        seen_stopping,
        "no status said `stopping`: {}",
        instance.log()
    );
    let exit = wait_exit(&mut instance, Duration::from_secs(30));
    let log = instance.log();
    assert_eq!(exit.code(), Some(0), "{log}");
    assert!(
        log.contains(&format!("stop requested ({signal_name})")),
        "{log}"
    );
    assert!(
        !log.contains(" exited: "),
        "a child ended by itself instead of being stopped: {log}"
    );
    assert!(lola.eyes() == "blue blue", "eyes {}", lola.eyes());
    let posture = Lola::posture(&lola.handle);
    assert!(posture.sitting_limp(), "{posture:?}");
    wait_gone(&pids, Duration::from_secs(10));
    assert!(!instance.run_dir.exists(), "the run directory is removed");
}

#[test]
fn sighup_stops_like_cortex_stop() {
    stops_like_cortex_stop("sighup", 1, "SIGHUP", false);
}

#[test]
fn sigquit_stops_like_cortex_stop() {
    stops_like_cortex_stop("sigquit", 3, "SIGQUIT", false);
}

#[test]
fn ctrl_c_to_the_terminals_process_group_stops_like_cortex_stop() {
    stops_like_cortex_stop("ctrl-c", 2, "SIGINT", true);
}

#[test]
fn ctrl_c_with_the_simulator_sits_the_simulated_robot_down() {
    let mut instance = Instance::spawn_with("ctrl-c-sim", None, &[], |command| {
        command.process_group(0);
    });
    instance.wait_until_all_running(Duration::from_secs(30));
    let supervisor = instance.child.as_ref().unwrap().id() as i32;
    let group = rustix::process::Pid::from_raw(supervisor).unwrap();
    rustix::process::kill_process_group(group, rustix::process::Signal::INT).unwrap();
    let exit = wait_exit(&mut instance, Duration::from_secs(30));
    let log = instance.log();
    assert_eq!(exit.code(), Some(0), "{log}");
    assert!(log.contains("stop requested (SIGINT)"), "{log}");
    assert!(log.contains("stopped: stiffness off, eyes blue"), "{log}");
    assert!(
        !log.contains("LoLA connection lost") && !log.contains(" exited: "),
        "the simulator or a child got the terminal's SIGINT: {log}"
    );
}

#[test]
fn ctrl_c_during_start_up_stops_cleanly() {
    let mut instance = Instance::spawn_with("ctrl-c-early", None, &[], |command| {
        command.process_group(0);
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    while !instance.run_dir.join("control.sock").exists() {
        assert!(
            Instant::now() < deadline,
            "no control socket: {}",
            instance.log()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    let supervisor = instance.child.as_ref().unwrap().id() as i32;
    let group = rustix::process::Pid::from_raw(supervisor).unwrap();
    rustix::process::kill_process_group(group, rustix::process::Signal::INT).unwrap();
    let exit = wait_exit(&mut instance, Duration::from_secs(30));
    let log = instance.log();
    assert_eq!(exit.code(), Some(0), "{log}");
    assert!(log.contains("stop requested (SIGINT)"), "{log}");
    assert!(!instance.run_dir.exists(), "{log}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !support::pids_mentioning(&instance.run_dir.to_string_lossy()).is_empty() {
        assert!(
            Instant::now() < deadline,
            "the simulator outlived the supervisor"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn while_waiting_for_lola_status_and_stop_are_answered() {
    let folder = tempfile::tempdir().unwrap();
    let nowhere = folder.path().join("no-lola-here");
    let mut instance = Instance::spawn(
        "no-lola",
        &[
            "--lola-socket",
            nowhere.to_str().unwrap(),
            "--set",
            "LolaBridge.connect_timeout_ms=60000",
        ],
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = instance.try_status() {
            break status;
        }
        assert!(Instant::now() < deadline, "no status: {}", instance.log());
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(
        process_of(&status, "motion").state,
        ProcessState::Stopped,
        "{status}"
    );
    let restart = instance.command(&["restart", "lola"]);
    assert!(
        String::from_utf8_lossy(&restart.stderr).contains("the instance is starting"),
        "{restart:?}"
    );
    assert!(instance.command(&["stop"]).status.success());
    let exit = wait_exit(&mut instance, Duration::from_secs(30));
    let log = instance.log();
    assert_eq!(exit.code(), Some(0), "{log}");
    assert!(
        log.contains("stop requested by the control socket while starting"),
        "{log}"
    );
    assert!(!instance.run_dir.exists());
}

// Item 4 ---------------------------------------------------------------------------------------

#[test]
fn instance_names_that_leave_the_runtime_folder_are_refused() {
    let runtime = tempfile::tempdir().unwrap();
    std::fs::set_permissions(runtime.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    for name in ["../..", "..", "a/b", ".hidden", ""] {
        let (code, stderr) = run_expecting_refusal(
            &["run", "--sim", "--instance", name],
            &[("XDG_RUNTIME_DIR", runtime.path())],
        );
        assert!(code == Some(64), "a usage error for {name:?}: {stderr}");
        assert!(
            stderr.contains("not an instance name"),
            "{name:?}: {stderr}"
        );
        let (code, stderr) = run_expecting_refusal(
            &["status", "--instance", name],
            &[("XDG_RUNTIME_DIR", runtime.path())],
        );
        assert!(code == Some(64), "status {name:?}: {stderr}");
    }
    assert_eq!(
        std::fs::read_dir(runtime.path()).unwrap().count(),
        0,
        "nothing was created"
    );
}

/// A folder `victim` (mode 0755) and a link to it planted at `link`; as root, both belong to
/// another user, as a planted link would.
fn plant_link(victim: &Path, link: &Path) {
    std::fs::create_dir(victim).unwrap();
    std::fs::set_permissions(victim, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink(victim, link).unwrap();
    if rustix::process::getuid().is_root() {
        std::os::unix::fs::lchown(victim, Some(65534), Some(65534)).unwrap();
        std::os::unix::fs::lchown(link, Some(65534), Some(65534)).unwrap();
    }
}

#[test]
fn a_link_planted_in_the_runtime_folder_or_as_the_run_directory_is_not_followed() {
    let folder = tempfile::tempdir().unwrap();
    let runtime = folder.path().join("runtime");
    std::fs::create_dir(&runtime).unwrap();
    std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o777)).unwrap();
    let victim = folder.path().join("victim");
    plant_link(&victim, &runtime.join("cortex"));
    let owner = std::fs::metadata(&victim).unwrap().uid();
    let (code, stderr) = run_expecting_refusal(
        &["run", "--sim", "--instance", "planted"],
        &[("XDG_RUNTIME_DIR", runtime.as_path())],
    );
    assert!(code == Some(73), "{stderr}");
    assert!(
        stderr.contains("symbolic link") && stderr.contains("victim"),
        "{stderr}"
    );
    assert_eq!(mode(&victim), 0o755, "the link's target kept its mode");
    assert_eq!(std::fs::metadata(&victim).unwrap().uid(), owner);
    assert_eq!(std::fs::read_dir(&victim).unwrap().count(), 0);

    let other_victim = folder.path().join("other-victim");
    let link = folder.path().join("run");
    plant_link(&other_victim, &link);
    let (code, stderr) =
        run_expecting_refusal(&["run", "--sim", "--run-dir", link.to_str().unwrap()], &[]);
    assert!(code == Some(73), "{stderr}");
    assert!(stderr.contains("symbolic link"), "{stderr}");
    assert_eq!(mode(&other_victim), 0o755);
    assert_eq!(std::fs::read_dir(&other_victim).unwrap().count(), 0);
}

#[test]
fn a_run_directory_of_another_user_or_writable_by_anyone_is_refused_untouched() {
    let folder = tempfile::tempdir().unwrap();
    let open = folder.path().join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    let (code, stderr) =
        run_expecting_refusal(&["run", "--sim", "--run-dir", open.to_str().unwrap()], &[]);
    assert!(code == Some(77), "{stderr}");
    assert!(
        stderr.contains("writable by others (mode 0777)"),
        "{stderr}"
    );
    assert_eq!(mode(&open), 0o777);

    if !rustix::process::getuid().is_root() {
        eprintln!("SKIPPED: a folder of another user needs root to make");
        return;
    }
    let theirs = folder.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
    let (code, stderr) = run_expecting_refusal(
        &["run", "--sim", "--run-dir", theirs.to_str().unwrap()],
        &[],
    );
    assert!(code == Some(77), "{stderr}");
    assert!(stderr.contains("belongs to uid 65534"), "{stderr}");
    assert_eq!(mode(&theirs), 0o755);
    assert_eq!(std::fs::read_dir(&theirs).unwrap().count(), 0);
}

#[test]
fn a_shared_run_directory_is_used_without_changing_its_mode_or_its_other_files() {
    let folder = tempfile::tempdir().unwrap();
    let shared = folder.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    std::fs::write(shared.join("someone-elses.txt"), "keep me").unwrap();
    let mut instance = Instance::spawn_with("shared", Some(&shared), &[], |_| {});
    instance.wait_until_all_running(Duration::from_secs(30));
    assert_eq!(mode(&shared), 0o1777, "the mode is kept while running");
    let second = run_expecting_refusal(
        &["run", "--sim", "--run-dir", shared.to_str().unwrap()],
        &[],
    );
    assert!(second.0.is_some_and(|code| code != 0), "{}", second.1);
    assert!(
        second.1.contains("another `cortex run` (pid"),
        "a second instance is refused: {}",
        second.1
    );
    assert_eq!(instance.terminate().code(), Some(0), "{}", instance.log());
    assert_eq!(mode(&shared), 0o1777, "the mode is kept after the run");
    let left: Vec<String> = std::fs::read_dir(&shared)
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, vec!["someone-elses.txt".to_owned()]);
}

#[test]
fn tools_without_a_running_instance_exit_69_naming_the_socket() {
    let folder = tempfile::tempdir().unwrap();
    for command in ["status", "stop"] {
        let output = Command::new(env!("CARGO_BIN_EXE_cortex"))
            .args([command, "--run-dir", folder.path().to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(69), "{command}: {stderr}");
        assert!(
            stderr.contains("no running instance") && stderr.contains("control.sock"),
            "{command}: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "said once: {stderr}");
    }
}
