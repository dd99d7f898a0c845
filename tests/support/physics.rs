//! The physics simulator (`simulator/physics/lola_physics.py --fast`) for system tests: started
//! in a folder of its own with a ground-truth file and a control socket, killed when dropped.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{send_signal, Instance};

/// Why the physics simulator cannot run here, if it cannot.
pub fn missing_mujoco() -> Option<String> {
    match Command::new("python3")
        .args(["-c", "import mujoco"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
    {
        Ok(status) if status.success() => None,
        Ok(_) => Some(
            "python3 has no `mujoco` (pip install -r simulator/physics/requirements.txt)".into(),
        ),
        Err(error) => Some(format!("cannot run python3: {error}")),
    }
}

pub fn simulator_script() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("simulator/physics/lola_physics.py")
}

/// `lola_physics.py --fast` in a folder of its own; killed when dropped.
pub struct PhysicsLola {
    child: Option<Child>,
    pub socket: PathBuf,
    pub control: PathBuf,
    pub truth: PathBuf,
    pub log: PathBuf,
    pub folder: tempfile::TempDir,
}

impl PhysicsLola {
    /// Starts the simulator with these extra arguments (`--initial-pose stand`, `--ball X Y` …)
    /// and waits until it listens.
    pub fn start(extra: &[&str]) -> PhysicsLola {
        let folder = tempfile::Builder::new()
            .prefix("cortex-physics-")
            .tempdir()
            .unwrap();
        let socket = folder.path().join("robocup");
        let control = folder.path().join("control");
        let truth = folder.path().join("truth.jsonl");
        let log = folder.path().join("simulator.log");
        let child = Command::new("python3")
            .arg(simulator_script())
            .arg(&socket)
            .args(["--fast", "--seed", "7"])
            .args(extra)
            .arg("--ground-truth")
            .arg(&truth)
            .arg("--control")
            .arg(&control)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("starting lola_physics.py");
        let lola = PhysicsLola {
            child: Some(child),
            socket,
            control,
            truth,
            log,
            folder,
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        while !lola.socket.exists() {
            assert!(
                Instant::now() < deadline,
                "the physics simulator did not listen within 60 s:\n{}",
                lola.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        lola
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Every complete ground-truth line so far.
    pub fn truth(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(&self.truth).unwrap_or_default();
        text.lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }

    /// The last complete ground-truth line (panics while there is none). Reads only the end
    /// of the file: a long run writes 83 lines per simulated second.
    pub fn last_truth(&self) -> Value {
        self.try_last_truth().expect("a ground-truth line")
    }

    pub fn try_last_truth(&self) -> Option<Value> {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = std::fs::File::open(&self.truth).ok()?;
        let length = file.metadata().ok()?.len();
        file.seek(SeekFrom::Start(length.saturating_sub(4096)))
            .ok()?;
        let mut tail = String::new();
        file.read_to_string(&mut tail).ok()?;
        tail.lines()
            .rev()
            .find_map(|line| serde_json::from_str(line).ok())
    }

    /// One line to the control socket; returns the reply.
    pub fn control(&self, line: &str) -> String {
        use std::io::{BufRead, BufReader, Write};
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(mut stream) = std::os::unix::net::UnixStream::connect(&self.control) {
                stream.write_all(format!("{line}\n").as_bytes()).unwrap();
                let mut reply = String::new();
                BufReader::new(stream).read_line(&mut reply).unwrap();
                return reply.trim().to_owned();
            }
            assert!(Instant::now() < deadline, "no control socket");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits (wall time, generously) until `condition` holds on the ground truth; returns it.
    pub fn wait_for_truth(
        &self,
        instance: &Instance,
        what: &str,
        timeout: Duration,
        condition: impl Fn(&[Value]) -> bool,
    ) -> Vec<Value> {
        let deadline = Instant::now() + timeout;
        loop {
            let truth = self.truth();
            if condition(&truth) {
                return truth;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; last ground truth {:?}\nsimulator:\n{}\ncortex:\n{}",
                truth.last(),
                self.log(),
                instance.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGTERM; returns the exit code.
    pub fn stop(&mut self) -> Option<i32> {
        let mut child = self.child.take()?;
        send_signal(child.id() as i32, 15);
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return status.code();
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("lola_physics.py did not stop on SIGTERM:\n{}", self.log());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for PhysicsLola {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

pub fn time_s(line: &Value) -> f64 {
    line["time_s"].as_f64().expect("time_s")
}

pub fn torso_m(line: &Value) -> [f64; 3] {
    let position = &line["torso_position_m"];
    [0, 1, 2].map(|axis| position[axis].as_f64().expect("torso position"))
}

pub fn yaw_rad(line: &Value) -> f64 {
    line["torso_yaw_rad"].as_f64().expect("yaw")
}

/// The larger of torso roll and pitch, rad.
pub fn tilt_rad(line: &Value) -> f64 {
    let roll = line["torso_roll_rad"].as_f64().expect("roll");
    let pitch = line["torso_pitch_rad"].as_f64().expect("pitch");
    roll.abs().max(pitch.abs())
}
