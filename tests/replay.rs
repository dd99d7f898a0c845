//! Replay (issue 15, item 4): `cortex replay FILE.mcap` on a recording of `cortex run --sim`.
//!
//! - the same file replayed twice with cognition and motion gives byte-identical outputs
//!   (`--record-outputs`), one tick per recorded trigger message, outputs that change over time;
//! - a copy cut at a random byte (seeded: `CORTEX_REPLAY_SEED`, printed) replays up to the cut,
//!   names the byte offset and ends with 65, and its outputs are the start of the whole file's;
//!   so do flipped bytes mid-file; a file that is not MCAP (65) and a missing file (66) are
//!   refused with clear errors;
//! - the debug link answers on a replay (`cortex status --json` has `debug_url`, a WebSocket
//!   subscription gets values of a replayed output), `cortex get` reads it, and the processes
//!   not replayed show as such.
//!
//! The recording (`CORTEX_REPLAY_RECORD_SECONDS`, default 20 s) is made once per test binary,
//! in cargo's target temporary folder (never /tmp); each replay has its own run directory and
//! instance.

mod support;

use debug::mcap_reader::{Entry, McapReader};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use support::{cortex, Instance, ProcessState};
use tungstenite::Message;

/// The folder of this test binary's files: cargo's target temporary folder, one per process;
/// folders of processes that are gone are removed first.
fn work_folder() -> PathBuf {
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    if let Ok(entries) = std::fs::read_dir(&base) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(pid) = name.strip_prefix("replay-test-") {
                if !Path::new(&format!("/proc/{pid}")).exists() {
                    let _ = std::fs::remove_dir_all(entry.path());
                }
            }
        }
    }
    let folder = base.join(format!("replay-test-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    folder
}

/// How many of this binary's tests use the recording.
const TESTS: usize = 3; // those that call `recording()`

/// A test is done with the recording: the last one removes the folder (a test that failed
/// leaves it; the next run removes it).
fn done_with_recording() {
    static FINISHED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    if FINISHED.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1 == TESTS {
        let _ = std::fs::remove_dir_all(work_folder());
    }
}

/// The recording of the simulated system, made once.
fn recording() -> &'static Path {
    static RECORDING: OnceLock<PathBuf> = OnceLock::new();
    RECORDING.get_or_init(|| {
        let seconds: u64 = std::env::var("CORTEX_REPLAY_RECORD_SECONDS")
            .ok()
            .and_then(|value| value.parse().ok())
            .unwrap_or(20);
        let instance = Instance::start("replay-source", &[]);
        let started = instance.command(&["record", "start"]);
        assert!(
            started.status.success(),
            "record start: {}",
            String::from_utf8_lossy(&started.stderr)
        );
        std::thread::sleep(Duration::from_secs(seconds));
        let stopped = instance.command(&["record", "stop"]);
        assert!(
            stopped.status.success(),
            "record stop: {}",
            String::from_utf8_lossy(&stopped.stderr)
        );
        let written = PathBuf::from(String::from_utf8_lossy(&stopped.stdout).trim());
        let path = work_folder().join("recording.mcap");
        std::fs::copy(&written, &path).unwrap();
        path
    })
}

/// `cortex replay` of `file`'s cognition at the highest speed, its outputs recorded into `out`.
fn replay_cognition_at_max_speed(instance: &str, file: &Path, out: &Path) -> Output {
    replay(
        instance,
        file,
        &[
            "--process",
            "cognition",
            "--speed",
            "max",
            "--record-outputs",
            out.to_str().unwrap(),
        ],
    )
}

/// `cortex replay ARGS` in a run directory and instance of its own, waited for.
fn replay(name: &str, file: &Path, args: &[&str]) -> Output {
    let folder = tempfile::Builder::new()
        .prefix("cortex-replay-")
        .tempdir()
        .unwrap();
    let mut command = Command::new(cortex());
    command
        .arg("replay")
        .arg(file)
        .args(args)
        .arg("--run-dir")
        .arg(folder.path().join("run"))
        .args(["--instance", &format!("{name}-{}", std::process::id())])
        .env("CORTEX_LOG", "warn")
        .stdin(Stdio::null());
    let output = command.output().expect("running cortex replay");
    assert!(
        !folder.path().join("run").exists(),
        "the replay left its run directory"
    );
    output
}

/// Every message of a file by topic, in order, with the damage if any.
#[derive(Debug, Default)]
struct Contents {
    messages: Vec<(String, u64, Vec<u8>)>,
    damage: Option<String>,
}

impl Contents {
    fn read(path: &Path) -> Contents {
        let mut reader = McapReader::open(path).unwrap();
        let mut topics = BTreeMap::new();
        let mut contents = Contents::default();
        loop {
            match reader.next_entry() {
                Ok(Some(Entry::Channel(channel))) => {
                    topics.insert(channel.id, channel.topic);
                }
                Ok(Some(Entry::Message(message))) => contents.messages.push((
                    topics[&message.channel].clone(),
                    message.log_time,
                    message.data,
                )),
                Ok(Some(Entry::Metadata(..))) => {}
                Ok(None) => return contents,
                Err(damage) => {
                    contents.damage = Some(damage.to_string());
                    return contents;
                }
            }
        }
    }

    fn count(&self, topic: &str) -> usize {
        self.messages.iter().filter(|(t, ..)| t == topic).count()
    }

    fn distinct(&self, topic: &str) -> usize {
        let mut values: Vec<&Vec<u8>> = self
            .messages
            .iter()
            .filter(|(t, ..)| t == topic)
            .map(|(_, _, data)| data)
            .collect();
        values.sort();
        values.dedup();
        values.len()
    }
}

/// The ticks `cortex replay` reports for `process`.
fn reported_ticks(output: &Output, process: &str) -> u64 {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .find(|line| line.starts_with("replayed:"))
        .unwrap_or_else(|| panic!("no summary: {}", support::output_text(output)));
    let after = line
        .split(&format!("{process} "))
        .nth(1)
        .unwrap_or_else(|| panic!("no ticks of {process}: {line}"));
    after.split(' ').next().unwrap().parse().unwrap()
}

#[test]
fn the_same_file_gives_the_same_outputs_twice() {
    let file = recording();
    let recorded = Contents::read(file);
    assert_eq!(recorded.damage, None);
    let folder = work_folder();
    let mut outputs = Vec::new();
    for run in ["first", "second"] {
        let out = folder.join(format!("outputs-{run}.mcap"));
        let output = replay(
            &format!("replay-{run}"),
            file,
            &[
                "--process",
                "cognition",
                "--process",
                "motion",
                "--speed",
                "max",
                "--record-outputs",
                out.to_str().unwrap(),
            ],
        );
        assert!(output.status.success(), "{}", support::output_text(&output));
        // One tick per recorded trigger message.
        let triggers = recorded.count("upper.BallPercept") + recorded.count("lower.BallPercept");
        assert!(
            triggers > 100,
            "a recording of seconds has percepts: {triggers}"
        );
        assert_eq!(reported_ticks(&output, "cognition"), triggers as u64);
        assert_eq!(
            reported_ticks(&output, "motion"),
            recorded.count("SensorData") as u64
        );
        outputs.push((out, output));
    }
    let first = std::fs::read(&outputs[0].0).unwrap();
    let second = std::fs::read(&outputs[1].0).unwrap();
    assert!(
        first == second,
        "two replays of the same file differ ({} and {} bytes)",
        first.len(),
        second.len()
    );
    let contents = Contents::read(&outputs[0].0);
    assert_eq!(contents.damage, None);
    // Every tick of cognition publishes what motion reads, and motion what the bridge reads.
    assert_eq!(
        contents.count("MotionRequest"),
        recorded.count("upper.BallPercept") + recorded.count("lower.BallPercept")
    );
    assert_eq!(contents.count("JointRequest"), recorded.count("SensorData"));
    // Not a constant: the ball model follows time and the percepts, the joints the sensors.
    assert!(
        contents.distinct("BallModel") > 10,
        "BallModel took {} values",
        contents.distinct("BallModel")
    );
    assert!(
        contents.distinct("JointRequest") > 10,
        "JointRequest took {} values",
        contents.distinct("JointRequest")
    );
    for (path, _) in outputs {
        std::fs::remove_file(path).unwrap();
    }
    done_with_recording();
}

/// A file of hostile messages: garbage where percepts should be, a value far larger than its
/// channel, a topic no process has. Each is logged and
/// skipped (or kept out by the process's decoding, which keeps the previous value); the replay
/// ticks once per trigger message and ends normally.
#[test]
fn hostile_messages_are_refused_one_by_one_and_the_replay_goes_on() {
    let folder = tempfile::Builder::new()
        .prefix("cortex-replay-")
        .tempdir()
        .unwrap();
    let path = folder.path().join("hostile.mcap");
    {
        let file = std::fs::File::create(&path).unwrap();
        let mut writer = mcap::Writer::new(std::io::BufWriter::new(file)).unwrap();
        let empty = BTreeMap::new();
        let mut channel = |topic: &str| {
            let schema = writer.add_schema(topic, "", b"").unwrap();
            writer
                .add_channel(schema, topic, "msgpack", &empty)
                .unwrap()
        };
        let (percept, sensors, nonsense) = (
            channel("upper.BallPercept"),
            channel("SensorData"),
            channel("Nonsense"),
        );
        let mut time = 1_000_000_000u64;
        let mut write = |writer: &mut mcap::Writer<_>, id: u16, data: &[u8]| {
            time += 10_000_000;
            let header = mcap::records::MessageHeader {
                channel_id: id,
                sequence: 0,
                log_time: time,
                publish_time: time,
            };
            writer.write_to_known_channel(&header, data).unwrap();
        };
        for round in 0..5u8 {
            write(&mut writer, sensors, &vec![0xc1; 4 * 1024 * 1024]);
            write(&mut writer, nonsense, b"\x93\x01\x02\x03");
            write(&mut writer, percept, &[0xde, 0xad, round, 0xbe, 0xef]);
        }
        writer.finish().unwrap();
    }
    let output = replay(
        "replay-hostile",
        &path,
        &["--process", "cognition", "--speed", "max"],
    );
    assert!(output.status.success(), "{}", support::output_text(&output));
    assert_eq!(
        reported_ticks(&output, "cognition"),
        5,
        "{}",
        support::output_text(&output)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("SensorData"),
        "the oversized value is not named: {}",
        support::output_text(&output)
    );
}

/// A replay running in the background, stopped (SIGTERM, then SIGKILL) if the test ends early.
struct Running(Option<std::process::Child>);

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            support::send_signal(child.id() as i32, 15);
            let deadline = Instant::now() + Duration::from_secs(10);
            while child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The byte offset of the chunk record that starts nearest `near` (the file's top-level
/// records: opcode, u64 length, body).
fn chunk_near(file: &[u8], near: usize) -> usize {
    let mut offset = 8;
    let mut best = None;
    while offset + 9 <= file.len() {
        let length = u64::from_le_bytes(file[offset + 1..offset + 9].try_into().unwrap()) as usize;
        if file[offset] == 0x06
            && best.is_none_or(|b: usize| b.abs_diff(near) > offset.abs_diff(near))
        {
            best = Some(offset);
        }
        offset += 9 + length;
    }
    best.expect("the recording has chunks")
}

/// A seeded random number for the cut (xorshift).
fn seeded(seed: u64, below: u64) -> u64 {
    let mut state = seed | 1;
    for _ in 0..4 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
    }
    state % below
}

#[test]
fn damaged_and_foreign_files_replay_up_to_the_damage_or_are_refused() {
    let file = recording();
    let folder = work_folder();
    let whole = std::fs::read(file).unwrap();
    let reference_path = folder.join("outputs-whole.mcap");
    let output = replay_cognition_at_max_speed("replay-whole", file, &reference_path);
    assert!(output.status.success(), "{}", support::output_text(&output));
    let reference = Contents::read(&reference_path);

    let seed: u64 = std::env::var("CORTEX_REPLAY_SEED")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    let length = whole.len() as u64;
    let cut = length / 4 + seeded(seed, length * 13 / 20);
    eprintln!("cutting the {length}-byte recording at byte {cut} (CORTEX_REPLAY_SEED={seed})");
    let mut broken = vec![("cut", whole[..cut as usize].to_vec(), cut)];
    // Garbage in the chunk nearest the middle (garbage in an index record between chunks
    // changes no message, and a replay of all of them is right).
    let mut flipped = whole.clone();
    let middle = chunk_near(&whole, whole.len() / 2) + 100;
    for byte in &mut flipped[middle..middle + 64] {
        *byte ^= 0xa5;
    }
    broken.push(("flipped", flipped, middle as u64 + 64));
    for (what, bytes, limit) in broken {
        let path = folder.join(format!("{what}.mcap"));
        std::fs::write(&path, &bytes).unwrap();
        let out = folder.join(format!("outputs-{what}.mcap"));
        let output = replay_cognition_at_max_speed(&format!("replay-{what}"), &path, &out);
        let report = support::output_text(&output);
        assert_eq!(output.status.code(), Some(65), "{what}: {report}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let offset: u64 = stderr
            .split("damaged at byte ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|number| number.parse().ok())
            .unwrap_or_else(|| panic!("{what}: no byte offset named: {report}"));
        assert!(offset <= limit, "{what}: damage at {offset}, after {limit}");
        assert!(stderr.contains("s into the recording"), "{report}");
        // What was replayed is the start of what the whole file gives.
        assert!(out.is_file(), "{what}: no outputs: {report}");
        let partial = Contents::read(&out);
        assert_eq!(partial.damage, None, "{what}: the outputs file is finished");
        assert!(
            partial.messages.len() < reference.messages.len(),
            "{what}: replayed past the damage"
        );
        assert!(
            partial.messages[..] == reference.messages[..partial.messages.len()],
            "{what}: the outputs up to the damage differ from the whole file's"
        );
        assert!(
            !partial.messages.is_empty(),
            "{what}: nothing replayed before byte {limit}"
        );
        std::fs::remove_file(&path).unwrap();
        std::fs::remove_file(&out).unwrap();
    }
    std::fs::remove_file(&reference_path).unwrap();

    let not_mcap = folder.join("notes.mcap");
    std::fs::write(&not_mcap, "these are not the bytes you are looking for").unwrap();
    let output = replay("replay-foreign", &not_mcap, &[]);
    assert_eq!(
        output.status.code(),
        Some(65),
        "{}",
        support::output_text(&output)
    );
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("not an MCAP file"),
        "{}",
        support::output_text(&output)
    );
    std::fs::remove_file(&not_mcap).unwrap();
    let output = replay("replay-missing", &folder.join("nowhere.mcap"), &[]);
    assert_eq!(
        output.status.code(),
        Some(66),
        "{}",
        support::output_text(&output)
    );
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("nowhere.mcap"),
        "{}",
        support::output_text(&output)
    );
    done_with_recording();
}

#[test]
fn the_debug_link_answers_on_a_replay() {
    let file = recording();
    let folder = tempfile::Builder::new()
        .prefix("cortex-replay-")
        .tempdir()
        .unwrap();
    let run_dir = folder.path().join("run");
    let log = folder.path().join("replay.log");
    let paced = folder.path().join("paced.mcap");
    let child = Command::new(cortex())
        .arg("replay")
        .arg(file)
        .args(["--process", "cognition", "--speed", "1", "--keep-running"])
        .arg("--record-outputs")
        .arg(&paced)
        .arg("--run-dir")
        .arg(&run_dir)
        .args(["--instance", &format!("replay-link-{}", std::process::id())])
        .env("CORTEX_LOG", "info")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(std::fs::File::options().append(true).open(&log).unwrap())
        .spawn()
        .unwrap();
    let mut child = Running(Some(child));
    let cortex_in = |args: &[&str]| {
        Command::new(cortex())
            .args(args)
            .arg("--run-dir")
            .arg(&run_dir)
            .output()
            .unwrap()
    };
    let log_text = || std::fs::read_to_string(&log).unwrap_or_default();
    // The replay's instance answers `status` like a robot's: cognition ticks, the debug link
    // has an address, the processes not replayed say so.
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        let output = cortex_in(&["status", "--json"]);
        if output.status.success() {
            let status: support::Status = serde_json::from_slice(&output.stdout).unwrap();
            let cognition = status.processes.iter().find(|p| p.name == "cognition");
            if status.debug_url.is_some() && cognition.is_some_and(|p| p.ticks > 0) {
                break status;
            }
        }
        assert!(
            Instant::now() < deadline,
            "no replay status:\n{}",
            log_text()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let lola = status.processes.iter().find(|p| p.name == "lola").unwrap();
    assert_eq!(
        lola.state,
        ProcessState::Failed("not replayed".to_owned()),
        "{lola:?}"
    );
    assert!(lola.pid.is_none());
    let url = status.debug_url.unwrap();
    let address: SocketAddr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .unwrap();
    // The web view's page.
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream
        .write_all(b"GET / HTTP/1.1\r\nHost: replay\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut page = String::new();
    let _ = stream.read_to_string(&mut page);
    assert!(page.starts_with("HTTP/1.1 200"), "{page:.200}");
    // A subscription to a replayed output gets values that go forward.
    let stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let (mut socket, _) =
        tungstenite::client::client(format!("ws://{address}/ws").as_str(), stream).unwrap();
    socket
        .send(Message::text(
            r#"{"op":"subscribe","channel":"BallModel","max_hz":20}"#,
        ))
        .unwrap();
    let mut publishes = Vec::new();
    while publishes.len() < 3 {
        if let Message::Text(text) = socket.read().expect("values of the replay") {
            let value: serde_json::Value = serde_json::from_str(text.as_str()).unwrap();
            assert_ne!(value["type"], "error", "{value}");
            if value["type"] == "value" {
                publishes.push(value["publish"].as_u64().unwrap());
            }
        }
    }
    assert!(publishes.windows(2).all(|w| w[0] < w[1]), "{publishes:?}");
    let get = cortex_in(&["get", "BallModel", "--json"]);
    assert!(get.status.success(), "{}", support::output_text(&get));
    let _ = socket.close(None);
    // The recorder works on a replay: it records what the replayed cognition computes.
    let started = cortex_in(&["record", "start"]);
    assert!(
        started.status.success(),
        "{}",
        support::output_text(&started)
    );
    std::thread::sleep(Duration::from_secs(2));
    let stopped = cortex_in(&["record", "stop"]);
    assert!(
        stopped.status.success(),
        "{}",
        support::output_text(&stopped)
    );
    let recorded = PathBuf::from(String::from_utf8_lossy(&stopped.stdout).trim());
    let contents = Contents::read(&recorded);
    assert_eq!(contents.damage, None);
    assert!(
        contents.count("BallModel") > 5,
        "{} BallModels recorded on the replay",
        contents.count("BallModel")
    );
    std::fs::remove_dir_all(recorded.parent().unwrap()).unwrap();
    // Paced or as fast as it goes, the outputs are the same.
    let deadline = Instant::now() + Duration::from_secs(180);
    while !log_text().contains("replay: the end of the file") {
        assert!(
            Instant::now() < deadline,
            "the paced replay did not end:\n{}",
            log_text()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let fast = folder.path().join("fast.mcap");
    let output = replay_cognition_at_max_speed("replay-fast", file, &fast);
    assert!(output.status.success(), "{}", support::output_text(&output));
    assert!(
        std::fs::read(&paced).unwrap() == std::fs::read(&fast).unwrap(),
        "the paced replay's outputs differ from the fast one's"
    );
    let stop = cortex_in(&["stop"]);
    assert!(stop.status.success(), "{}", support::output_text(&stop));
    let deadline = Instant::now() + Duration::from_secs(30);
    let exit = loop {
        if let Some(status) = child.0.as_mut().unwrap().try_wait().unwrap() {
            child.0 = None;
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the replay did not stop:\n{}",
            log_text()
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(exit.success(), "{exit}:\n{}", log_text());
    assert!(
        log_text().contains("the whole file was replayed"),
        "{}",
        log_text()
    );
    // What `cortex record stop` leaves for its caller may stay; nothing of the run does.
    let left: Vec<String> = std::fs::read_dir(&run_dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .filter(|name| !name.starts_with("recorder."))
                .collect()
        })
        .unwrap_or_default();
    assert!(
        left.is_empty(),
        "the replay left {left:?} in its run directory"
    );
    done_with_recording();
}
