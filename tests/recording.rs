//! Recording to MCAP (issue 15, item 3): `cortex record start|stop` on `cortex run --sim`, the
//! file read back with Python's `mcap` package (every message decoded as msgpack, counts against
//! the providers' tick counts), a copy cut at a random byte still readable up to its last whole
//! chunk, rotation within the disk budget, and a broken `Recorder.toml` refused with
//! file:line:key.
//!
//! `CORTEX_RECORD_SECONDS` sets how long the simulated system is recorded (default 6; the
//! issue's acceptance run is 60).

mod support;

use spl_network::fake_game_controller::GameSetup;
use spl_network::State;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use support::game_controller::GameController;
use support::Instance;

/// Reads MCAP files with Python's `mcap`: `summary FILE` prints the messages per topic (each
/// decoded with msgpack), the metadata names and each chunk's end offset with the messages up to
/// it; `stream FILE` reads records in order until the damage and prints the messages decoded.
const READER: &str = r#"
import json, sys, msgpack
from mcap.stream_reader import StreamReader
from mcap.records import Chunk, Message, Metadata, Channel

def stream(path):
    counts, metadata, chunks, channels, version = {}, [], [], {}, {}
    decoded, error = 0, None
    with open(path, "rb") as f:
        reader = StreamReader(f, skip_magic=False)
        try:
            for record in reader.records:
                if isinstance(record, Channel):
                    channels[record.id] = record.topic
                elif isinstance(record, Message):
                    msgpack.unpackb(record.data, raw=False, strict_map_key=False)
                    topic = channels[record.channel_id]
                    counts[topic] = counts.get(topic, 0) + 1
                    decoded += 1
                elif isinstance(record, Metadata):
                    metadata.append(record.name)
                    if record.name == "cortex":
                        version = dict(record.metadata)
                elif isinstance(record, Chunk):
                    pass
                chunks.append([f.tell(), decoded])
        except Exception as e:
            error = repr(e)
    return {"counts": counts, "metadata": metadata, "marks": chunks, "decoded": decoded,
            "error": error, "version": version}

print(json.dumps(stream(sys.argv[2])))
"#;

fn python_has_mcap() -> bool {
    Command::new("python3")
        .args(["-c", "import mcap, msgpack"])
        .output()
        .is_ok_and(|output| output.status.success())
}

fn read_with_python(script: &Path, file: &Path) -> serde_json::Value {
    let output = Command::new("python3")
        .arg(script)
        .arg("stream")
        .arg(file)
        .output()
        .expect("python3");
    assert!(
        output.status.success(),
        "the Python reader failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("the reader's JSON")
}

fn ticks(instance: &Instance, process: &str) -> u64 {
    instance.process(process).ticks
}

/// `cortex record start` on `instance` with the configuration in `config`, writing to `output`;
/// it must succeed.
fn record_start(instance: &Instance, config: &Path, output: &Path) {
    let started = instance.command(&[
        "record",
        "start",
        "--config-dir",
        config.to_str().unwrap(),
        "--output",
        output.to_str().unwrap(),
    ]);
    assert!(
        started.status.success(),
        "record start: {}",
        String::from_utf8_lossy(&started.stderr)
    );
}

/// A copy of the shipped configuration with `Recorder.toml` replaced.
fn config_with_recorder(folder: &Path, recorder: &str) -> PathBuf {
    let root = folder.join("config");
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/../config/data");
    let status = Command::new("cp")
        .arg("-r")
        .arg(shipped)
        .arg(&root)
        .status()
        .expect("cp");
    assert!(status.success());
    std::fs::write(root.join("default/Recorder.toml"), recorder).unwrap();
    root
}

#[test]
fn records_the_simulated_system_readable_by_python_and_after_a_cut() {
    if !python_has_mcap() {
        eprintln!(
            "SKIPPED: Python's mcap and msgpack are missing (pip install -r tools/recording-requirements.txt)"
        );
        return;
    }
    let seconds: u64 = std::env::var("CORTEX_RECORD_SECONDS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(6);
    let instance = Instance::start("recording", &[]);
    let folder = tempfile::tempdir().unwrap();
    let script = folder.path().join("read_mcap.py");
    std::fs::write(&script, READER).unwrap();

    let before = (ticks(&instance, "motion"), ticks(&instance, "lola"));
    let started = instance.command(&["record", "start"]);
    assert!(
        started.status.success(),
        "record start: {}",
        String::from_utf8_lossy(&started.stderr)
    );
    let after_start = (ticks(&instance, "motion"), ticks(&instance, "lola"));
    std::thread::sleep(Duration::from_secs(seconds));
    let before_stop = (ticks(&instance, "motion"), ticks(&instance, "lola"));
    let stopped = instance.command(&["record", "stop"]);
    let after = (ticks(&instance, "motion"), ticks(&instance, "lola"));
    assert!(
        stopped.status.success(),
        "record stop: {}",
        String::from_utf8_lossy(&stopped.stderr)
    );
    let path = PathBuf::from(String::from_utf8_lossy(&stopped.stdout).trim());
    assert!(path.is_file(), "stop printed {path:?}, which is no file");
    let told = String::from_utf8_lossy(&stopped.stderr);
    eprintln!("record stop said: {told}");
    assert!(
        told.contains("missed ") && told.contains(" published values"),
        "{told}"
    );
    // A second stop finds no recorder.
    assert!(!instance.command(&["record", "stop"]).status.success());

    let full = read_with_python(&script, &path);
    assert!(full["error"].is_null(), "the whole file: {}", full["error"]);
    let metadata: Vec<&str> = full["metadata"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m.as_str())
        .collect();
    for name in ["cortex", "configuration", "parameters"] {
        assert!(
            metadata.contains(&name),
            "metadata {metadata:?} lacks {name}"
        );
    }
    // The code version: the package's and the git commit the binary was built from (a commit
    // of this repository, or "unknown" where it was built without git).
    let version = &full["version"];
    let commit = version["commit"].as_str().unwrap_or_default();
    eprintln!("cortex metadata: {version}");
    assert!(version["version"].is_string(), "{version}");
    if commit != "unknown" {
        let known = Command::new("git")
            .args(["-C", env!("CARGO_MANIFEST_DIR"), "cat-file", "-e"])
            .arg(format!("{commit}^{{commit}}"))
            .status()
            .is_ok_and(|status| status.success());
        assert!(known, "the recorded commit {commit:?} is no commit here");
    }
    let counts = &full["counts"];
    // Every channel of the shipped Recorder.toml that the simulation publishes is there.
    for topic in [
        "SensorData",
        "JointRequest",
        "MotionInfo",
        "GameState",
        "BallModel",
    ] {
        assert!(
            counts[topic].as_u64().unwrap_or(0) > 0,
            "no {topic}: {counts}"
        );
    }
    // Counts against the providers' ticks: no more than they published while the recorder ran,
    // and most of them (the recorder wakes on every publish; a value replaced while it was not
    // scheduled on a loaded machine is missed, and counted: `record stop` says how many).
    for (topic, low, high) in [
        (
            "JointRequest",
            before_stop.0 - after_start.0,
            after.0 - before.0,
        ),
        (
            "SensorData",
            before_stop.1 - after_start.1,
            after.1 - before.1,
        ),
    ] {
        let count = counts[topic].as_u64().unwrap();
        eprintln!("{topic}: {count} messages; the provider ticked {low}..{high} times meanwhile");
        assert!(count <= high + 2, "{topic}: {count} > {high} ticks");
        assert!(
            count * 10 >= low * 7,
            "{topic}: {count} messages of at least {low} ticks"
        );
    }

    // The file cut at a random byte in its second half reads up to its last whole chunk.
    let bytes = std::fs::read(&path).unwrap();
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as usize;
    let cut = bytes.len() / 2 + seed % (bytes.len() / 2);
    let cut_file = folder.path().join("cut.mcap");
    std::fs::write(&cut_file, &bytes[..cut]).unwrap();
    let partial = read_with_python(&script, &cut_file);
    let expected = full["marks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|mark| mark[0].as_u64().unwrap() as usize <= cut)
        .map(|mark| mark[1].as_u64().unwrap())
        .max()
        .unwrap_or(0);
    let decoded = partial["decoded"].as_u64().unwrap();
    eprintln!(
        "cut at byte {cut} of {}: {decoded} messages decoded (whole records before the cut: {expected}); stopped by {}",
        bytes.len(),
        partial["error"]
    );
    assert!(expected > 0, "no whole chunk before byte {cut}");
    assert!(
        decoded >= expected,
        "cut at {cut}: {decoded} messages read, {expected} lie wholly before the cut"
    );
}

#[test]
fn rotation_keeps_the_folder_within_the_budget() {
    let folder = tempfile::tempdir().unwrap();
    let config = config_with_recorder(
        folder.path(),
        "channels = []\nchunk_ms = 200\nchunk_kib = 16\nrotate_kib = 64\nbudget_kib = 192\nimages_hz = 2.0\n",
    );
    let instance = Instance::start("recording-rotation", &[]);
    let output = folder.path().join("recordings");
    record_start(&instance, &config, &output);
    let mut most = 0;
    for _ in 0..40 {
        std::thread::sleep(Duration::from_millis(250));
        let total: u64 = std::fs::read_dir(&output)
            .unwrap()
            .filter_map(Result::ok)
            .filter_map(|entry| entry.metadata().ok())
            .map(|metadata| metadata.len())
            .sum();
        most = most.max(total);
        // The file being written may pass its rotation size by one chunk.
        assert!(
            total <= (192 + 64) * 1024,
            "the recordings hold {total} bytes, over the budget"
        );
    }
    let stopped = instance.command(&["record", "stop"]);
    assert!(stopped.status.success());
    let summary: serde_json::Value = serde_json::from_str(
        // Told by `record stop`: the summary is kept as recorder.reported.
        &std::fs::read_to_string(instance.run_dir.join("recorder.reported")).unwrap(),
    )
    .unwrap();
    let deleted = summary["deleted"].as_array().unwrap().len();
    eprintln!(
        "largest total {most} bytes; {deleted} files deleted; {}",
        summary["files"]
    );
    assert!(
        deleted > 0,
        "10 s of every channel never rotated: {summary}"
    );
    // Images at the reduced rate: about 2 per second and camera over 10 s.
    for camera in ["upper", "lower"] {
        let images = summary["messages"][format!("{camera}.CameraImage.jpeg")]
            .as_u64()
            .unwrap_or(0);
        assert!(
            (5..=25).contains(&images),
            "{images} {camera} images in 10 s at 2 Hz: {}",
            summary["messages"]
        );
    }
}

#[test]
fn a_broken_recorder_toml_is_refused_with_file_line_and_key() {
    let folder = tempfile::tempdir().unwrap();
    for (text, line, key) in [
        ("chunk_ms = 1000\npoll_ms = 5000\n", 2, "poll_ms"),
        ("chunk_ms = 1000\nauto = \"always\"\n", 2, "auto"),
        ("chunk_ms = 1000\n\nchanels = []\n", 3, "chanels"),
        ("rotate_kib = 1024\nbudget_kib = 512\n", 2, "budget_kib"),
        ("channels = [\"Sensor/Data\"]\n", 1, "channels"),
        ("poll_ms = 1\nimages_hz = -1.0\n", 2, "images_hz"),
    ] {
        let case = folder.path().join(format!("case-{line}-{key}"));
        std::fs::create_dir_all(&case).unwrap();
        let config = config_with_recorder(&case, text);
        let output = Command::new(support::cortex())
            .args(["record", "start", "--config-dir"])
            .arg(&config)
            .arg("--run-dir")
            .arg(case.join("no-instance"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(78), "{text:?}: {stderr}");
        assert!(
            stderr.contains(&format!("Recorder.toml:{line}")) && stderr.contains(key),
            "{text:?}: expected Recorder.toml:{line} and `{key}` in: {stderr}"
        );
    }
}

#[test]
fn a_killed_recorder_leaves_a_file_readable_to_its_last_chunk() {
    if !python_has_mcap() {
        eprintln!(
            "SKIPPED: Python's mcap and msgpack are missing (pip install -r tools/recording-requirements.txt)"
        );
        return;
    }
    let instance = Instance::start("recording-killed", &[]);
    let folder = tempfile::tempdir().unwrap();
    let script = folder.path().join("read_mcap.py");
    std::fs::write(&script, READER).unwrap();
    let started = instance.command(&["record", "start"]);
    assert!(started.status.success());
    let path = PathBuf::from(String::from_utf8_lossy(&started.stdout).trim());
    std::thread::sleep(Duration::from_secs(4));
    let pid: i32 = std::fs::read_to_string(instance.run_dir.join("recorder.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // Power lost: no summary, no footer.
    support::send_signal(pid, 9);
    std::thread::sleep(Duration::from_millis(300));
    let read = read_with_python(&script, &path);
    let decoded = read["decoded"].as_u64().unwrap();
    eprintln!(
        "killed after 4 s: {decoded} messages read, stopped by {}",
        read["error"]
    );
    assert!(
        !read["error"].is_null(),
        "a killed recorder's file has no footer"
    );
    assert!(
        decoded > 100,
        "only {decoded} messages before the kill: {read}"
    );
    // The stale pid file is no recorder: stop says so, and a new recording starts.
    let stopped = instance.command(&["record", "stop"]);
    assert_eq!(stopped.status.code(), Some(69));
    let again = instance.command(&["record", "start"]);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert!(instance.command(&["record", "stop"]).status.success());
}

/// The `*.mcap` files of `folder`, oldest first (none if it does not exist yet).
fn recordings_in(folder: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .map(|listing| {
            listing
                .filter_map(Result::ok)
                .map(|entry| entry.path())
                .filter(|path| path.extension().is_some_and(|e| e == "mcap"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Whether an MCAP file is finished: it ends with the magic after its footer.
fn finished(path: &Path) -> bool {
    std::fs::read(path).is_ok_and(|bytes| bytes.ends_with(b"\x89MCAP0\r\n"))
}

fn wait_until(what: &str, timeout: Duration, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !condition() {
        assert!(Instant::now() < deadline, "{what}: not within {timeout:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn recording_follows_the_game_controller_one_file_per_half() {
    const TEAM: u8 = 7;
    let folder = tempfile::tempdir().unwrap();
    // `folder` relative to the folder holding the configuration: <folder>/recordings.
    let config = config_with_recorder(
        folder.path(),
        "auto = \"playing\"\nfolder = \"recordings\"\nchunk_ms = 200\n",
    );
    let recordings = folder.path().join("recordings");
    let game_controller_port = support::free_udp_port();
    let game_controller = GameController::start(
        game_controller_port,
        GameSetup::new(TEAM, 30),
        Duration::from_millis(200),
    );
    let sets = [
        format!("settings.team_number={TEAM}"),
        "settings.player_number=2".to_owned(),
        "GameControllerInterface.address=127.0.0.1".to_owned(),
        format!("GameControllerInterface.port={game_controller_port}"),
        format!(
            "GameControllerInterface.return_port={}",
            game_controller.port
        ),
    ];
    let mut arguments = vec!["--config-dir", config.to_str().unwrap()];
    for set in &sets {
        arguments.extend(["--set", set.as_str()]);
    }
    let mut instance = Instance::start("recording-auto", &arguments);
    let state_is = |instance: &Instance, state: &str| instance.get("GameState")["state"] == state;
    let go = |instance: &Instance, state: State, name: &str| {
        game_controller.change(|setup| setup.state = state);
        wait_until(
            &format!("GameState {name}"),
            Duration::from_secs(30),
            || state_is(instance, name),
        );
    };

    // Before the kick-off nothing is recorded: Initial, Ready, Set.
    go(&instance, State::Ready, "Ready");
    go(&instance, State::Set, "Set");
    std::thread::sleep(Duration::from_secs(2));
    assert!(
        recordings_in(&recordings).is_empty(),
        "recorded before the kick-off: {:?}\n{}",
        recordings_in(&recordings),
        instance.log()
    );

    // Kick-off: a file begins, and is being written.
    go(&instance, State::Playing, "Playing");
    wait_until(
        "a recording after the kick-off",
        Duration::from_secs(30),
        || recordings_in(&recordings).len() == 1,
    );
    let first_half = recordings_in(&recordings)[0].clone();
    std::thread::sleep(Duration::from_secs(2));
    assert!(!finished(&first_half), "finished while the game is playing");
    // A goal: Ready, Set, Playing again stay in the same file.
    go(&instance, State::Ready, "Ready");
    go(&instance, State::Set, "Set");
    go(&instance, State::Playing, "Playing");
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(recordings_in(&recordings), vec![first_half.clone()]);

    // The half ends: the file is finished, its summary left for `cortex record stop`.
    go(&instance, State::Finished, "Finished");
    wait_until(
        "the first half's file finished",
        Duration::from_secs(30),
        || finished(&first_half),
    );
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(instance.run_dir.join("recorder.last")).unwrap(),
    )
    .unwrap();
    eprintln!("first half: {summary}");
    assert_eq!(summary["auto"], "playing");
    assert_eq!(summary["files"][0], first_half.to_str().unwrap());
    assert!(summary["messages"]["GameState"].as_u64().unwrap_or(0) > 0);
    assert!(summary["messages"]["JointRequest"].as_u64().unwrap_or(0) > 100);
    if python_has_mcap() {
        let script = folder.path().join("read_mcap.py");
        std::fs::write(&script, READER).unwrap();
        let read = read_with_python(&script, &first_half);
        assert!(read["error"].is_null(), "the first half: {}", read["error"]);
        assert!(read["counts"]["SensorData"].as_u64().unwrap_or(0) > 100);
    }

    // The second half: a second file, finished when the robot's program stops.
    game_controller.change(|setup| setup.first_half = false);
    go(&instance, State::Initial, "Initial");
    go(&instance, State::Playing, "Playing");
    wait_until("a second recording", Duration::from_secs(30), || {
        recordings_in(&recordings).len() == 2
    });
    let second_half = recordings_in(&recordings)[1].clone();
    assert_ne!(second_half, first_half);
    std::thread::sleep(Duration::from_secs(1));
    assert!(instance.terminate().success(), "{}", instance.log());
    assert!(
        finished(&second_half),
        "the second half's file was not finished at shutdown\n{}",
        instance.log()
    );
    let log = std::fs::read_to_string(instance.run_dir.join("recorder.log")).unwrap_or_default();
    assert!(log.contains("recording finished"), "{log}");
}

/// Unmounts a tmpfs when the test ends, whatever happened.
struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_ends_the_recording_and_stop_says_so() {
    let folder = tempfile::tempdir().unwrap();
    let disk = folder.path().join("disk");
    std::fs::create_dir(&disk).unwrap();
    // A small disk of its own (a tmpfs: needs root or CAP_SYS_ADMIN).
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1536k", "tmpfs"])
        .arg(&disk)
        .output();
    if !mounted.as_ref().is_ok_and(|output| output.status.success()) {
        eprintln!(
            "SKIPPED: cannot mount a small tmpfs to fill ({})",
            mounted.map_or_else(
                |error| error.to_string(),
                |output| String::from_utf8_lossy(&output.stderr).trim().to_owned()
            )
        );
        return;
    }
    let _mounted = Mounted(disk.clone());
    let config = config_with_recorder(
        folder.path(),
        "channels = []\nchunk_ms = 100\nchunk_kib = 16\nrotate_kib = 256\n",
    );
    let instance = Instance::start("recording-full", &[]);
    record_start(&instance, &config, &disk);
    // The recorder fills the disk and ends by itself.
    let pid_file = instance.run_dir.join("recorder.pid");
    wait_until(
        "the recorder ending on the full disk",
        Duration::from_secs(120),
        || !pid_file.exists(),
    );
    let stopped = instance.command(&["record", "stop"]);
    let stderr = String::from_utf8_lossy(&stopped.stderr);
    eprintln!("record stop: {stderr}");
    assert_eq!(stopped.status.code(), Some(74), "{stderr}");
    assert!(
        stderr.contains("ended early") && stderr.contains("No space left on device"),
        "{stderr}"
    );
    // The files written up to then are named: the last one on stdout.
    let path = PathBuf::from(String::from_utf8_lossy(&stopped.stdout).trim());
    assert!(
        path.starts_with(&disk) && path.is_file(),
        "stop printed {path:?}"
    );
    // Told once: a second stop finds no recorder.
    assert_eq!(
        instance.command(&["record", "stop"]).status.code(),
        Some(69)
    );
}
