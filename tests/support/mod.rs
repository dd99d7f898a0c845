//! Running the real `cortex` binary for system tests: each instance has its own temporary run
//! directory and instance name, and everything it started is gone when the test ends. It needs
//! `CARGO_BIN_EXE_cortex`, which only the supervisor package's tests have, so it stays here; the
//! helpers without the binary are in the `testkit` crate and re-exported.

#![allow(dead_code, unused_imports)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};
pub use supervisor::status::{ProcessState, ProcessStatus, Status};
pub use testkit::files::{config_copy, copy_dir, raise_restart_intensity};
pub use testkit::processes::{alive, dev_shm, pids_mentioning, send_signal};

/// The binary under test.
pub fn cortex() -> &'static str {
    env!("CARGO_BIN_EXE_cortex")
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
