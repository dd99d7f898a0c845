//! Running the real `cortex` binary for system tests: each instance has its own temporary run
//! directory, instance name and UDP ports (unless the test chooses them), and everything it
//! started is gone when the test ends. It needs
//! `CARGO_BIN_EXE_cortex`, which only the supervisor package's tests have, so it stays here; the
//! helpers without the binary are in the `testkit` crate and re-exported.

#![allow(dead_code, unused_imports)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};
pub use supervisor::status::{ProcessState, ProcessStatus, Status};
pub use testkit::files::{config_copy, copy_dir, raise_restart_intensity};
pub use testkit::processes::{alive, cpu_seconds, dev_shm, pids_mentioning, send_signal};

/// A GameController sending a setup the test changes, for the game tests.
pub mod game_controller;
/// The physics simulator (`simulator/physics/`) for the walking and physics tests.
pub mod physics;

/// The binary under test.
pub fn cortex() -> &'static str {
    env!("CARGO_BIN_EXE_cortex")
}

/// A finished command's exit status, stdout and stderr, for an assertion's message.
pub fn output_text(output: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A `cortex run --sim` in its own run directory.
pub struct Instance {
    pub run_dir: PathBuf,
    pub name: String,
    pub child: Option<Child>,
    pub log: PathBuf,
    _folder: tempfile::TempDir,
}

impl Instance {
    /// Starts an instance with extra arguments (`--set …`, `--behaviours …`) and waits until every
    /// process ticks.
    pub fn start(name: &str, extra: &[&str]) -> Instance {
        let instance = Instance::spawn(name, extra);
        instance.wait_until_all_running(Duration::from_secs(30));
        instance
    }

    /// The web view's address (`http://127.0.0.1:PORT/`): with `--sim` each instance gets a
    /// port of its own from the kernel, found in its status.
    pub fn debug_url(&self) -> String {
        let status = self.wait_for(
            "the debug link's address",
            Duration::from_secs(30),
            |status| status.debug_url.is_some(),
        );
        status.debug_url.expect("waited for it")
    }

    /// Starts an instance without waiting.
    pub fn spawn(name: &str, extra: &[&str]) -> Instance {
        Instance::spawn_with(name, None, extra, |_| {})
    }

    /// Starts an instance without waiting, in `run_dir` if given (else a fresh one), with the
    /// command adjusted by `configure` first (environment, process group).
    pub fn spawn_with(
        name: &str,
        run_dir: Option<&Path>,
        extra: &[&str],
        configure: impl FnOnce(&mut Command),
    ) -> Instance {
        let folder = tempfile::Builder::new()
            .prefix("cortex-test-")
            .tempdir()
            .expect("a temporary folder");
        let run_dir = run_dir.map_or_else(|| folder.path().join("run"), Path::to_owned);
        let log = folder.path().join("cortex.log");
        let unique = format!("{name}-{}", std::process::id());
        let mut command = Command::new(cortex());
        command
            .args(["run", "--sim", "--instance", &unique, "--run-dir"])
            .arg(&run_dir)
            .args(extra)
            .env("CORTEX_LOG", "info")
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&log).unwrap())
            .stderr(std::fs::File::options().append(true).open(&log).unwrap());
        configure(&mut command);
        // After `configure`: the configuration it points at (CORTEX_CONFIG_DIR) decides.
        command.args(own_network_sets(extra, &command));
        let child = command.spawn().expect("starting cortex run");
        Instance {
            run_dir,
            name: unique,
            child: Some(child),
            log,
            _folder: folder,
        }
    }

    /// The log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Runs `cortex ARGS --run-dir DIR`.
    pub fn command(&self, args: &[&str]) -> Output {
        Command::new(cortex())
            .args(args)
            .arg("--run-dir")
            .arg(&self.run_dir)
            .output()
            .expect("running cortex")
    }

    /// `cortex status --json`, or `None` while the instance does not answer. The reply is read
    /// with the supervisor's own type: a field that drifts fails every system test.
    pub fn try_status(&self) -> Option<Status> {
        let output = self.command(&["status", "--json"]);
        output.status.success().then(|| {
            serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
                panic!(
                    "status JSON ({error}): {}",
                    String::from_utf8_lossy(&output.stdout)
                )
            })
        })
    }

    /// `cortex status --json`.
    pub fn status(&self) -> Status {
        self.try_status()
            .unwrap_or_else(|| panic!("no status; log:\n{}", self.log()))
    }

    /// The status entry of one process.
    pub fn process(&self, name: &str) -> ProcessStatus {
        let status = self.status();
        status
            .process(name)
            .unwrap_or_else(|| panic!("no process {name} in {status}"))
            .clone()
    }

    /// `cortex get NAME --json`.
    pub fn get(&self, representation: &str) -> Value {
        let output = self.command(&["get", representation, "--json"]);
        assert!(
            output.status.success(),
            "cortex get {representation}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).expect("get JSON")
    }

    /// Waits until `condition` holds on the status, or panics after `timeout`.
    pub fn wait_for(
        &self,
        what: &str,
        timeout: Duration,
        condition: impl Fn(&Status) -> bool,
    ) -> Status {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.try_status() {
                if condition(&status) {
                    return status;
                }
                if Instant::now() > deadline {
                    panic!(
                        "timed out waiting for {what}; status {status}\nlog:\n{}",
                        self.log()
                    );
                }
            } else if Instant::now() > deadline {
                panic!(
                    "timed out waiting for {what}; no status\nlog:\n{}",
                    self.log()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits until every process is running and has ticked.
    pub fn wait_until_all_running(&self, timeout: Duration) -> Status {
        self.wait_for("every process running", timeout, Status::all_ticking)
    }

    /// The pid of a process.
    pub fn pid(&self, process: &str) -> i32 {
        self.process(process)
            .pid
            .unwrap_or_else(|| panic!("{process} has no pid")) as i32
    }

    /// Sends `signal` to a process.
    pub fn signal(&self, process: &str, signal: i32) {
        send_signal(self.pid(process), signal);
    }

    /// Sends SIGTERM to `cortex run` and returns its exit status.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        let mut child = self.child.take().expect("running");
        send_signal(child.id() as i32, 15);
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("cortex run did not stop within 30 s; log:\n{}", self.log());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The simulator's control socket.
    pub fn simulator_command(&self, line: &str) -> String {
        use std::io::{BufRead, BufReader, Write};
        let mut stream =
            std::os::unix::net::UnixStream::connect(self.run_dir.join("simulator.sock"))
                .expect("simulator control");
        stream.write_all(format!("{line}\n").as_bytes()).unwrap();
        let mut reply = String::new();
        BufReader::new(&stream).read_line(&mut reply).unwrap();
        reply.trim().to_owned()
    }
}

/// A folder of the shared real-robot data: `$CORTEX_DATA_DIR/<folder>`, else
/// `<workspace root>/../shared/data/<folder>`; `None` when it does not exist (the test then prints
/// SKIPPED).
pub fn shared_data(folder: &str) -> Option<PathBuf> {
    let data = match std::env::var_os("CORTEX_DATA_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("../shared/data"),
    };
    let folder = data.join(folder);
    folder.is_dir().then_some(folder)
}

/// The `.wav` files in `folder`, sorted.
pub fn wav_files(folder: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap()
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "wav"))
        .collect();
    files.sort();
    files
}

/// A UDP port that was free a moment ago and that this test process has not handed out before.
pub fn free_udp_port() -> u16 {
    let [port] = free_udp_ports(0);
    port
}

/// The modules of the `network` process whose ports and addresses [`own_network_sets`] moves.
const NETWORK_MODULES: [&str; 2] = ["GameControllerInterface", "TeamCommunication"];

/// `--set`s that give an instance UDP ports of its own, on the loopback interface, instead of
/// the league's (GameController 3838 and 3939, team 10000 + team number): tests run in parallel
/// (threads and test binaries), and two robots on one port would log "cannot bind" or hear
/// each other. The ports are ones the kernel handed out as free (bound to port 0 and released),
/// never the same twice in one test process. A module is left alone when the test sets any of
/// its keys itself (`tests/network.rs` chooses its ports), and when the configuration's process
/// table does not run it: `cortex run` refuses a `--set` for a module that does not run. A
/// configuration that cannot be read gets nothing: `cortex run` reports it.
fn own_network_sets(extra: &[&str], command: &Command) -> Vec<String> {
    let mut overrides = Vec::new();
    let mut config_dir = None;
    let mut arguments = extra.iter();
    while let Some(argument) = arguments.next() {
        let (option, value) = match argument.split_once('=') {
            Some((option, value)) if option.starts_with("--") => (option, Some(value)),
            _ => (*argument, None),
        };
        let value = value.or_else(|| {
            matches!(option, "--set" | "--config-dir")
                .then(|| arguments.next().copied())
                .flatten()
        });
        match (option, value) {
            ("--set", Some(text)) => overrides.extend(config::Override::parse(text).ok()),
            ("--config-dir", Some(dir)) => config_dir = Some(PathBuf::from(dir)),
            _ => {}
        }
    }
    let from_command = command.get_envs().find_map(|(key, value)| {
        (key == "CORTEX_CONFIG_DIR")
            .then(|| value.filter(|dir| !dir.is_empty()).map(PathBuf::from))
            .flatten()
    });
    let root = config_dir
        .or(from_command)
        .unwrap_or_else(config::default_root);
    let Ok(loaded) = config::Config::load(&root, None, &overrides) else {
        return Vec::new();
    };
    let runs = |module: &str| {
        loaded.process_table().processes().iter().any(|process| {
            process
                .providers
                .iter()
                .any(|provider| provider.value.module == module)
        })
    };
    let chosen_by_test = |module: &str| {
        overrides
            .iter()
            .any(|item| item.target() == config::OverrideTarget::Module(module))
    };
    let [game_controller, team] =
        NETWORK_MODULES.map(|module| runs(module) && !chosen_by_test(module));
    let team_number = u16::from(loaded.settings().team_number);
    let mut sets = Vec::new();
    if game_controller {
        let [port, return_port] = free_udp_ports(0);
        sets.extend([
            "GameControllerInterface.address=127.0.0.1".to_owned(),
            format!("GameControllerInterface.port={port}"),
            format!("GameControllerInterface.return_port={return_port}"),
        ]);
    }
    if team {
        // The team port is port_base + team number; port_base must stay in 1..=65280.
        let [port] = free_udp_ports(team_number);
        sets.extend([
            "TeamCommunication.address=127.0.0.1".to_owned(),
            format!("TeamCommunication.port_base={}", port - team_number),
            "TeamCommunication.broadcast_address=127.0.0.1".to_owned(),
            "TeamCommunication.broadcast=false".to_owned(),
        ]);
    }
    sets.into_iter()
        .flat_map(|set| ["--set".to_owned(), set])
        .collect()
}

/// `N` different UDP ports above `above` (and at most 65280 + `above`) that were free a moment
/// ago and that this test process has not handed out before.
fn free_udp_ports<const N: usize>(above: u16) -> [u16; N] {
    use std::collections::BTreeSet;
    use std::net::UdpSocket;
    use std::sync::Mutex;
    static HANDED_OUT: Mutex<BTreeSet<u16>> = Mutex::new(BTreeSet::new());
    let mut handed_out = HANDED_OUT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    // Every probe stays bound until all are chosen, so the kernel hands out N different ones.
    let mut held = Vec::new();
    let mut ports = [0; N];
    let mut found = 0;
    for _ in 0..1000 {
        if found == N {
            break;
        }
        let socket = UdpSocket::bind("0.0.0.0:0").expect("a UDP socket on a free port");
        let port = socket.local_addr().expect("its address").port();
        if port > above && port - above <= u16::MAX - 255 && handed_out.insert(port) {
            ports[found] = port;
            found += 1;
        }
        held.push(socket);
    }
    assert_eq!(found, N, "no {N} free UDP ports above {above}");
    ports
}

impl Drop for Instance {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            send_signal(child.id() as i32, 15);
            let deadline = Instant::now() + Duration::from_secs(10);
            while child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// LoLA cycles without a fresh joint request that a restart elsewhere may cost motion on the
/// test machine. These tests run several whole systems side by side on two cores without
/// real-time priorities, so the scheduler can now and then hold motion past one 12 ms cycle
/// whatever was restarted (CI saw one such cycle in about ten runs). A motion that waited on the
/// restarted process would miss every cycle of the restart (tens of them), which this still
/// catches. On the robot, motion runs with real-time priority.
pub const SCHEDULER_MISSED_CYCLES: u64 = 2;

/// Asserts that motion answered the LoLA frames while `what` happened: `before` and `after` are
/// the `lola` process's status around it.
pub fn assert_motion_kept_up(before: &ProcessStatus, after: &ProcessStatus, what: &str) {
    let missed = after.overruns.saturating_sub(before.overruns);
    let cycles = after.ticks.saturating_sub(before.ticks);
    assert!(
        missed <= SCHEDULER_MISSED_CYCLES,
        "motion missed {missed} of {cycles} LoLA cycles while {what} (at most \
         {SCHEDULER_MISSED_CYCLES} allowed for the test machine's scheduler)"
    );
    if missed > 0 {
        eprintln!("note: motion missed {missed} of {cycles} LoLA cycles while {what}");
    }
}
