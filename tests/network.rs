//! The `network` process in the running system, on the loopback: a GameController made of
//! `spl_network`'s packets drives `GameState` through every state and a penalty; the robot
//! answers it at 0.5–2 Hz with valid return packets; team mates' messages reach `TeamMates`
//! and other teams' do not; malformed datagrams are counted and ignored by a process that keeps
//! its pid, and so is a port that cannot be bound (reported, retried). Issue 13's kick-off: a
//! whistle while the GameController holds the robot in SET.
//!
//! Every test has its own instance, run directory and UDP ports: the robot's ports are ports
//! the test found free (bound to port 0 and released) and passes with `--set`; the test's
//! GameController listens on its own ephemeral port, which is the robot's `return_port`.

mod support;

use serde_json::Value;
use spl_network::fake_game_controller::GameSetup;
use spl_network::team_mate_peer::TeamMatePeer;
use spl_network::{GameControllerReturnMessage, Intention, Penalty, Role, State, TeamMessage};
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use support::Instance;

const TEAM: u8 = 5;
const OPPONENT: u8 = 12;
const PLAYER: u8 = 4;
/// Only waits: a loaded machine may take long to start nine processes and deliver a packet.
const PATIENCE: Duration = Duration::from_secs(30);

/// A return packet as the test's GameController received it.
struct Returned {
    at: Instant,
    bytes: Vec<u8>,
}

/// The test's GameController: broadcasts `setup` to the robot every 500 ms (2 Hz, as the
/// real one) and keeps every datagram that comes back.
struct TestGameController {
    setup: Arc<Mutex<GameSetup>>,
    returned: Arc<Mutex<Vec<Returned>>>,
    socket: UdpSocket,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl TestGameController {
    fn start(robot_port: u16) -> Self {
        let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
        socket
            .set_read_timeout(Some(Duration::from_millis(20)))
            .unwrap();
        let setup = Arc::new(Mutex::new(GameSetup::new(TEAM, OPPONENT)));
        let returned = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (socket, setup, returned, stop) = (
                socket.try_clone().unwrap(),
                setup.clone(),
                returned.clone(),
                stop.clone(),
            );
            let target = SocketAddr::from(([127, 0, 0, 1], robot_port));
            std::thread::spawn(move || {
                let mut packet_number: u8 = 0;
                let mut next_send = Instant::now();
                let mut buffer = [0; 256];
                while !stop.load(Ordering::Relaxed) {
                    if Instant::now() >= next_send {
                        let bytes = setup.lock().unwrap().message(packet_number).encode();
                        // The robot may not listen yet: a refused datagram is no failure.
                        let _ = socket.send_to(&bytes, target);
                        packet_number = packet_number.wrapping_add(1);
                        next_send += Duration::from_millis(500);
                    }
                    if let Ok((length, _)) = socket.recv_from(&mut buffer) {
                        returned.lock().unwrap().push(Returned {
                            at: Instant::now(),
                            bytes: buffer[..length].to_vec(),
                        });
                    }
                }
            })
        };
        Self {
            setup,
            returned,
            socket,
            stop,
            thread: Some(thread),
        }
    }

    /// The port return packets must go to.
    fn port(&self) -> u16 {
        self.socket.local_addr().unwrap().port()
    }

    fn change(&self, change: impl FnOnce(&mut GameSetup)) {
        change(&mut self.setup.lock().unwrap());
    }
}

impl Drop for TestGameController {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The robot's ports.
struct Ports {
    game_controller: u16,
    team: u16,
}

/// A robot (player 4 of team 5) listening on free ports, answering `game_controller`.
fn start_robot(name: &str, game_controller: &TestGameController, ports: &Ports) -> Instance {
    start_robot_with(name, game_controller, ports, "127.0.0.1", &[])
}

/// [`start_robot`] with the team messages sent to `broadcast_address` and `extra` arguments.
fn start_robot_with(
    name: &str,
    game_controller: &TestGameController,
    ports: &Ports,
    broadcast_address: &str,
    extra: &[&str],
) -> Instance {
    let sets = [
        format!("settings.team_number={TEAM}"),
        format!("settings.player_number={PLAYER}"),
        "GameControllerInterface.address=127.0.0.1".to_owned(),
        format!("GameControllerInterface.port={}", ports.game_controller),
        format!(
            "GameControllerInterface.return_port={}",
            game_controller.port()
        ),
        "TeamCommunication.address=127.0.0.1".to_owned(),
        format!(
            "TeamCommunication.port_base={}",
            ports.team - u16::from(TEAM)
        ),
        format!("TeamCommunication.broadcast_address={broadcast_address}"),
        "TeamCommunication.broadcast=false".to_owned(),
    ];
    let mut arguments = Vec::new();
    for set in &sets {
        arguments.push("--set");
        arguments.push(set.as_str());
    }
    arguments.extend_from_slice(extra);
    Instance::start(name, &arguments)
}

fn ports() -> Ports {
    let game_controller = support::free_udp_port();
    let mut team = support::free_udp_port();
    while team == game_controller || team <= 255 {
        team = support::free_udp_port();
    }
    Ports {
        game_controller,
        team,
    }
}

/// Polls `cortex get NAME --json` until `condition` holds; panics with the last value after
/// [`PATIENCE`].
fn wait_for_value(
    instance: &Instance,
    name: &str,
    what: &str,
    condition: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let value = instance.get(name);
        if condition(&value) {
            return value;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}: {name} = {value}\nlog:\n{}",
            instance.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn wait_for_state(instance: &Instance, state: &str, penalty: Value) -> Value {
    wait_for_value(
        instance,
        "GameState",
        &format!("{state}, penalty {penalty}"),
        |game| game["state"] == state && game["penalty"] == penalty,
    )
}

#[test]
fn game_controller_packets_drive_the_game_state_through_every_state_and_a_penalty() {
    let ports = ports();
    let game_controller = TestGameController::start(ports.game_controller);
    let instance = start_robot("net-states", &game_controller, &ports);

    let game = wait_for_state(&instance, "Initial", Value::Null);
    let game = if game["source"] == "GameController" {
        game
    } else {
        wait_for_value(&instance, "GameState", "the GameController", |game| {
            game["source"] == "GameController"
        })
    };
    assert_eq!(game["team_number"], TEAM);
    assert_eq!(game["player_number"], PLAYER);
    assert_eq!(game["opponent_team_number"], OPPONENT);
    assert_eq!(game["own_team_is_kicking"], true);
    assert_eq!(game["message_budget"], 1200);

    for (state, name) in [
        (State::Ready, "Ready"),
        (State::Set, "Set"),
        (State::Playing, "Playing"),
    ] {
        game_controller.change(|setup| setup.state = state);
        wait_for_state(&instance, name, Value::Null);
    }
    // A penalty for us, and back.
    game_controller.change(|setup| setup.penalties = vec![(TEAM, PLAYER, Penalty::PlayerPushing)]);
    let game = wait_for_state(&instance, "Playing", Value::from("PlayerPushing"));
    assert_eq!(game["seconds_until_unpenalised"], 45);
    game_controller.change(|setup| setup.penalties.clear());
    wait_for_state(&instance, "Playing", Value::Null);
    // A goal for the opponent, then a drop ball (nobody kicks), then the end.
    game_controller.change(|setup| {
        setup.scores = [0, 1];
        setup.kicking_team = None;
    });
    let game = wait_for_value(&instance, "GameState", "the opponent's goal", |game| {
        game["opponent_score"] == 1
    });
    assert_eq!(game["own_team_is_kicking"], Value::Null);
    game_controller.change(|setup| setup.state = State::Finished);
    let game = wait_for_state(&instance, "Finished", Value::Null);
    assert_eq!(game["source"], "GameController");
}

#[test]
fn return_packets_arrive_at_half_to_two_hertz_with_our_numbers_and_valid_fields() {
    let ports = ports();
    let game_controller = TestGameController::start(ports.game_controller);
    let instance = start_robot("net-return", &game_controller, &ports);
    wait_for_value(&instance, "GameState", "the GameController", |game| {
        game["source"] == "GameController"
    });
    // Count over a window that starts with a return packet.
    let deadline = Instant::now() + PATIENCE;
    let first = loop {
        if let Some(first) = game_controller.returned.lock().unwrap().first() {
            break first.at;
        }
        assert!(Instant::now() < deadline, "no return packet");
        std::thread::sleep(Duration::from_millis(20));
    };
    let window = Duration::from_secs(6);
    std::thread::sleep((first + window).saturating_duration_since(Instant::now()));
    let returned = game_controller.returned.lock().unwrap();
    let in_window: Vec<&Returned> = returned
        .iter()
        .filter(|packet| packet.at <= first + window)
        .collect();
    // The protocol's 0.5–2 Hz over 6 s: 3 to 12 intervals, so 4 to 13 packets counting the
    // first; one more allowed above for a first packet that was delivered late.
    assert!(
        (4..=14).contains(&in_window.len()),
        "{} return packets in {window:?}",
        in_window.len()
    );
    for packet in &returned[..] {
        let message = GameControllerReturnMessage::decode(&packet.bytes)
            .unwrap_or_else(|error| panic!("an invalid return packet: {error}"));
        assert_eq!((message.player_number, message.team_number), (PLAYER, TEAM));
        // The simulated robot does not lie on the ground; no ball was ever seen (−1 on the
        // wire), and its position is 0, 0.
        assert!(!message.fallen);
        assert_eq!(message.ball_age_seconds, None);
        assert_eq!(
            f32::from_le_bytes(packet.bytes[20..24].try_into().unwrap()),
            -1.0
        );
        assert_eq!(message.ball_position, [0.0, 0.0]);
    }
    drop(returned);
    let state = instance.get("GameControllerState");
    assert!(
        state["return_packets_sent"].as_u64().unwrap() >= 4,
        "{state}"
    );
}

#[test]
fn team_mates_messages_appear_and_other_teams_do_not() {
    let ports = ports();
    let game_controller = TestGameController::start(ports.game_controller);
    let instance = start_robot("net-team", &game_controller, &ports);
    let target = SocketAddr::from(([127, 0, 0, 1], ports.team));
    let mut mates = TeamMatePeer::new(target, TEAM, vec![1, 3]).unwrap();
    let mut others = TeamMatePeer::new(target, 7, vec![2]).unwrap();
    let deadline = Instant::now() + PATIENCE;
    let team_mates = loop {
        mates.send_round().unwrap();
        others.send_round().unwrap();
        // Another team's own format on the same port.
        others
            .send_bytes(b"B-Human message of 60 bytes, give or take")
            .unwrap();
        let team_mates = instance.get("TeamMates");
        let counters = &team_mates["counters"];
        if team_mates["players"].as_array().unwrap().len() == 2
            && counters["other_team"].as_u64().unwrap() > 0
            && counters["foreign"].as_u64().unwrap() > 0
        {
            break team_mates;
        }
        assert!(
            Instant::now() < deadline,
            "timed out: TeamMates = {team_mates}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    let players = team_mates["players"].as_array().unwrap();
    let numbers: Vec<u64> = players
        .iter()
        .map(|mate| mate["message"]["player_number"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, [1, 3], "team 7's player 2 must not appear");
    let keeper = &players[0]["message"];
    assert_eq!(keeper["role"], "Goalkeeper");
    assert_eq!(keeper["ball"]["position_mm"][0], 800.0);
    assert!(players[1]["received_ns"].as_u64().unwrap() > 0);

    // In PLAYING the robot talks: its messages (to itself on the loopback) come back as its
    // own, are never a team mate's, and decode as 36-byte Cortex messages.
    game_controller.change(|setup| setup.state = State::Playing);
    let team_mates = wait_for_value(&instance, "TeamMates", "our own message", |mates| {
        mates["counters"]["own"].as_u64().unwrap_or(0) > 0
    });
    assert!(team_mates["sent"].as_u64().unwrap() > 0);
    assert_eq!(team_mates["players"].as_array().unwrap().len(), 2);
    let example = mates.message(1, 0).encode().unwrap();
    assert!(TeamMessage::decode(&example).is_ok());
}

#[test]
fn malformed_datagrams_are_counted_and_ignored_and_the_process_keeps_its_pid() {
    let ports = ports();
    let game_controller = TestGameController::start(ports.game_controller);
    let instance = start_robot("net-malformed", &game_controller, &ports);
    game_controller.change(|setup| setup.state = State::Ready);
    wait_for_state(&instance, "Ready", Value::Null);
    let pid = instance.pid("network");

    let attacker = UdpSocket::bind("127.0.0.1:0").unwrap();
    let robot = SocketAddr::from(([127, 0, 0, 1], ports.game_controller));
    let team = SocketAddr::from(([127, 0, 0, 1], ports.team));
    let good = GameSetup::new(TEAM, OPPONENT).message(0).encode();
    let mut wrong_version = good;
    wrong_version[4] = 17;
    let mut bad_state = good;
    bad_state[10] = 9;
    let mut monitor = good;
    monitor[..4].copy_from_slice(b"RGTD");
    let long: Vec<u8> = (0..3000).map(|index| (index * 7) as u8).collect();
    let mut broken_checksum = TeamMatePeer::new(team, TEAM, vec![2])
        .unwrap()
        .message(2, 0)
        .encode()
        .unwrap();
    broken_checksum[20] ^= 0xff;
    let mut other_version = broken_checksum;
    other_version[3] = 9;
    for _ in 0..20 {
        for bytes in [
            &wrong_version[..],
            &bad_state[..],
            &monitor[..],
            &good[..60],
            &long[..],
            &[][..],
        ] {
            attacker.send_to(bytes, robot).unwrap();
        }
        attacker.send_to(&broken_checksum, team).unwrap();
        attacker.send_to(&other_version, team).unwrap();
        attacker.send_to(&long, team).unwrap();
    }
    let state = wait_for_value(
        &instance,
        "GameControllerState",
        "every datagram",
        |state| {
            let counters = &state["counters"];
            counters["wrong_version"] == 20
                && counters["invalid_field"] == 20
                // "RGTD" and the 3000 bytes; the 60 bytes and the empty datagram.
                && counters["wrong_header"] == 40
                && counters["wrong_length"] == 40
        },
    );
    assert!(
        state["last_error"].as_str().is_some(),
        "the reason is kept: {state}"
    );
    let team_mates = wait_for_value(&instance, "TeamMates", "every datagram", |mates| {
        let counters = &mates["counters"];
        counters["malformed"] == 20 && counters["other_version"] == 20
    });
    assert_eq!(team_mates["players"].as_array().unwrap().len(), 0);
    assert_eq!(
        team_mates["counters"]["foreign"], 20,
        "the 3000-byte datagrams"
    );
    // A flood: 20 000 datagrams as fast as the loopback takes them (the kernel drops what its
    // buffer cannot hold; a tick reads at most 256).
    for index in 0..20_000_u32 {
        let bytes = index.to_le_bytes();
        let _ = attacker.send_to(&bytes, robot);
        let _ = attacker.send_to(&bytes, team);
    }
    // Still the same process, still following the GameController.
    game_controller.change(|setup| setup.state = State::Set);
    wait_for_state(&instance, "Set", Value::Null);
    assert_eq!(instance.pid("network"), pid);
    let state = instance.get("GameControllerState");
    assert!(
        state["counters"]["wrong_header"].as_u64().unwrap() > 40,
        "the flood was read: {}",
        state["counters"]
    );
}

// ---------------------------------------------------------------------------------------------
// Issue 13: the referee's whistle while the GameController holds the robot in SET.

/// The first channel of a 16-bit PCM WAV file, and its rate.
fn read_wav(path: &std::path::Path) -> (Vec<f64>, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..4], b"RIFF", "{}", path.display());
    let (mut offset, mut channels, mut rate, mut samples) = (12, 1_usize, 0, Vec::new());
    while offset + 8 <= bytes.len() {
        let id = &bytes[offset..offset + 4];
        let size = u32::from_le_bytes(bytes[offset + 4..offset + 8].try_into().unwrap()) as usize;
        let body = &bytes[offset + 8..(offset + 8 + size).min(bytes.len())];
        if id == b"fmt " {
            assert_eq!(u16::from_le_bytes([body[14], body[15]]), 16, "16-bit PCM");
            channels = usize::from(u16::from_le_bytes([body[2], body[3]]));
            rate = u32::from_le_bytes(body[4..8].try_into().unwrap());
        } else if id == b"data" {
            samples = body
                .chunks_exact(2 * channels)
                .map(|frame| f64::from(i16::from_le_bytes([frame[0], frame[1]])))
                .collect();
        }
        offset += 8 + size + size % 2;
    }
    (samples, rate)
}

/// Where the whistle starts in a recording, s: the first 10 ms frame from which, for 50 ms,
/// the 2–4 kHz band (Goertzel at every DFT bin) holds at least 80 % of the energy and is
/// within 20 dB of the recording's loudest band frame. Independent of the robot's detector.
fn whistle_onset_s(path: &std::path::Path) -> f64 {
    let (samples, rate) = read_wav(path);
    let length = rate as usize / 100;
    let bins = (2000 * length).div_ceil(rate as usize)..=(4000 * length / rate as usize);
    let frames: Vec<(f64, f64)> = samples
        .chunks_exact(length)
        .map(|frame| {
            let band: f64 = bins
                .clone()
                .map(|bin| {
                    let omega = std::f64::consts::TAU * bin as f64 / length as f64;
                    let coefficient = 2.0 * omega.cos();
                    let (mut previous, mut before) = (0.0, 0.0);
                    for &sample in frame {
                        let next = sample + coefficient * previous - before;
                        before = previous;
                        previous = next;
                    }
                    previous * previous + before * before - coefficient * previous * before
                })
                .sum();
            let total: f64 = frame.iter().map(|sample| sample * sample).sum();
            // Both halves of the spectrum, against Parseval's total.
            (2.0 * band, 2.0 * band / (length as f64 * total).max(1.0))
        })
        .collect();
    let loudest = frames.iter().map(|frame| frame.0).fold(0.0, f64::max);
    let whistling = |frame: &(f64, f64)| frame.1 >= 0.8 && frame.0 >= loudest / 100.0;
    let start = (0..frames.len().saturating_sub(5))
        .find(|&index| frames[index..index + 5].iter().all(whistling))
        .unwrap_or_else(|| panic!("no whistle onset in {}", path.display()));
    start as f64 / 100.0
}

fn sim_sound(instance: &Instance, file: &std::path::Path) {
    let output = std::process::Command::new(support::cortex())
        .arg("sim")
        .arg("--run-dir")
        .arg(&instance.run_dir)
        .arg("sound")
        .arg(file)
        .output()
        .expect("running cortex sim sound");
    assert!(
        output.status.success(),
        "cortex sim sound {}: {}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Waits (only waits) until the simulated microphone has taken every dropped file.
fn wait_until_heard(instance: &Instance) {
    let inbox = instance.run_dir.join("microphone");
    let deadline = Instant::now() + PATIENCE;
    while std::fs::read_dir(&inbox).map_or(0, |entries| entries.count()) > 0 {
        assert!(
            Instant::now() < deadline,
            "the microphone never took the file"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `cortex hear --json FILE`: when the detector (as configured) recognises the whistle, s into
/// the recording.
fn detection_s(instance: &Instance, file: &std::path::Path) -> f64 {
    let output = std::process::Command::new(support::cortex())
        .args(["hear", "--json"])
        .arg(file)
        .output()
        .expect("running cortex hear");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let heard: Value = serde_json::from_slice(&output.stdout).unwrap();
    heard["times_s"][0]
        .as_f64()
        .unwrap_or_else(|| panic!("cortex hear heard no whistle: {heard}\n{}", instance.log()))
}

/// The monotonic time of cognition's tick that turned Set into Playing for the `index`th
/// time (from 0), from its log line.
fn kick_off_tick_ns(instance: &Instance, index: usize) -> Option<u64> {
    let log = instance.log();
    let line = log
        .lines()
        .filter(|line| line.contains("whistle in Set → Playing"))
        .nth(index)?;
    let value = line.split("now_ns=").nth(1)?;
    value
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

#[test]
fn a_whistle_in_the_game_controllers_set_starts_play_within_half_a_second() {
    let Some(data) = support::shared_data("whistle") else {
        eprintln!("SKIPPED: no whistle recordings (set CORTEX_DATA_DIR)");
        return;
    };
    let ports = ports();
    let game_controller = TestGameController::start(ports.game_controller);
    game_controller.change(|setup| setup.state = State::Set);
    let instance = start_robot("net-whistle", &game_controller, &ports);
    wait_for_value(
        &instance,
        "GameState",
        "Set from the GameController",
        |game| game["state"] == "Set" && game["source"] == "GameController",
    );

    // Sounds that are not a whistle leave the robot in Set.
    for file in support::wav_files(&data.join("no")) {
        sim_sound(&instance, &file);
    }
    wait_until_heard(&instance);
    // The last file (about 2 s) is being heard now: wait (only wait) until it is over.
    std::thread::sleep(Duration::from_secs(5));
    let whistles = || {
        instance.get("WhistleState")["whistle_count"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(whistles(), 0, "a no/ recording was heard as a whistle");
    let game = instance.get("GameState");
    assert_eq!(game["state"], "Set", "{game}");

    // Each whistle: Playing within 0.5 s of its start, though the GameController says Set.
    for (index, whistle) in support::wav_files(&data.join("yes")).iter().enumerate() {
        if index > 0 {
            // The next kick-off: Ready, then Set again.
            game_controller.change(|setup| setup.state = State::Ready);
            wait_for_state(&instance, "Ready", Value::Null);
            game_controller.change(|setup| setup.state = State::Set);
            wait_for_state(&instance, "Set", Value::Null);
        }
        let onset_s = whistle_onset_s(whistle);
        let detected_s = detection_s(&instance, whistle);
        sim_sound(&instance, whistle);
        let dropped = Instant::now();
        let game = wait_for_value(
            &instance,
            "GameState",
            "Playing after the whistle",
            |game| game["state"] == "Playing",
        );
        let seen_after = dropped.elapsed();
        assert_eq!(
            game["source"], "GameController",
            "the GameController still says Set"
        );
        let whistle_state = instance.get("WhistleState");
        assert_eq!(
            whistle_state["whistle_count"].as_u64(),
            Some(index as u64 + 1),
            "{whistle_state}"
        );
        // On the robot's monotonic clock: the recording began at the detection time minus the
        // detection's place in the file (the detector is deterministic: `cortex hear` gives
        // the same place), the whistle at its onset after that; cognition logged its tick.
        let last_whistle_ns = whistle_state["last_whistle_ns"].as_u64().unwrap();
        let recording_start_ns = last_whistle_ns - (detected_s * 1e9).round() as u64;
        let whistle_start_ns = recording_start_ns + (onset_s * 1e9).round() as u64;
        let tick_ns = kick_off_tick_ns(&instance, index)
            .unwrap_or_else(|| panic!("no kick-off line in the log:\n{}", instance.log()));
        let delay_s = (tick_ns as f64 - whistle_start_ns as f64) / 1e9;
        eprintln!(
            "{}: whistle from {onset_s:.2} s into the recording, recognised at {detected_s:.3} \
             s, Playing {delay_s:.3} s after the whistle's start ({:.3} s after the file was \
             dropped, as the test's polling saw it)",
            whistle.display(),
            seen_after.as_secs_f64()
        );
        assert!(
            tick_ns >= last_whistle_ns,
            "Playing before the whistle was recognised"
        );
        assert!(
            delay_s <= 0.5,
            "{}: Playing {delay_s:.3} s after the whistle's start (at most 0.5 s)",
            whistle.display()
        );
    }
    // The GameController's stale Set does not undo it.
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(instance.get("GameState")["state"], "Playing");
}

#[test]
fn a_port_that_cannot_be_bound_is_reported_and_retried_without_a_restart() {
    let ports = ports();
    // Someone else holds the GameController port when the robot starts.
    let holder = UdpSocket::bind(("127.0.0.1", ports.game_controller)).unwrap();
    let game_controller = TestGameController::start(ports.game_controller);
    game_controller.change(|setup| setup.state = State::Ready);
    let instance = start_robot("net-no-port", &game_controller, &ports);
    let state = wait_for_value(
        &instance,
        "GameControllerState",
        "the bind error",
        |state| {
            state["socket_error"]
                .as_str()
                .is_some_and(|error| error.contains("cannot bind"))
        },
    );
    assert!(state["packet"].is_null(), "nothing heard: {state}");
    let game = instance.get("GameState");
    assert_eq!(game["source"], "Manual", "{game}");
    let pid = instance.pid("network");
    // The port comes free: the next retry binds it and the GameController is heard.
    drop(holder);
    wait_for_state(&instance, "Ready", Value::Null);
    let state = instance.get("GameControllerState");
    assert!(state["socket_error"].is_null(), "{state}");
    assert_eq!(
        instance.pid("network"),
        pid,
        "the process was not restarted"
    );
    assert!(
        instance.log().contains("cannot bind"),
        "the failure is in the log"
    );
}

/// A team mate's ear: every datagram on `127.0.0.2:<team port>` (where the robot under test
/// sends its team messages), decoded.
struct TeamMateListener {
    heard: Arc<Mutex<Vec<Result<TeamMessage, String>>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl TeamMateListener {
    /// `None` when this machine's loopback has no 127.0.0.2.
    fn start(port: u16) -> Option<Self> {
        let socket = match UdpSocket::bind(("127.0.0.2", port)) {
            Ok(socket) => socket,
            Err(error) => {
                eprintln!("SKIPPED: cannot listen on 127.0.0.2:{port} ({error})");
                return None;
            }
        };
        socket
            .set_read_timeout(Some(Duration::from_millis(20)))
            .unwrap();
        let heard = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (heard, stop) = (heard.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut buffer = [0; 2048];
                while !stop.load(Ordering::Relaxed) {
                    if let Ok(length) = socket.recv(&mut buffer) {
                        let message = TeamMessage::decode(&buffer[..length])
                            .map_err(|error| format!("{length} bytes: {error}"));
                        heard.lock().unwrap().push(message);
                    }
                }
            })
        };
        Some(Self {
            heard,
            stop,
            thread: Some(thread),
        })
    }

    /// How many datagrams were heard so far.
    fn count(&self) -> usize {
        self.heard.lock().unwrap().len()
    }

    /// Waits for a message from `player` saying `role` and `intention`, among the datagrams
    /// after the first `skip`; panics after [`PATIENCE`] with what was heard.
    fn wait_for(
        &self,
        instance: &Instance,
        skip: usize,
        player: u8,
        role: Role,
        intention: Intention,
    ) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let heard = self.heard.lock().unwrap();
            let found = heard.iter().skip(skip).flatten().any(|message| {
                message.player_number == player
                    && message.role == role
                    && message.intention == intention
            });
            if found {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "no message with {role:?} / {intention:?}; heard {:?}\nTeamMessageRequest = {}",
                heard.iter().rev().take(5).collect::<Vec<_>>(),
                instance.get("TeamMessageRequest")
            );
            drop(heard);
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for TeamMateListener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[test]
fn the_team_mates_hear_the_role_and_intention_the_behaviour_set() {
    let ports = ports();
    let Some(listener) = TeamMateListener::start(ports.team) else {
        return;
    };
    // A copy of the shipped behaviour, to break it later.
    let folder = tempfile::tempdir().unwrap();
    let behaviours = folder.path().join("python");
    support::copy_dir(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../behaviours/python"),
        &behaviours,
    );
    let game_controller = TestGameController::start(ports.game_controller);
    game_controller.change(|setup| {
        setup.state = State::Ready;
        setup.secondary_seconds = 44;
    });
    let instance = start_robot_with(
        "net-told",
        &game_controller,
        &ports,
        "127.0.0.2",
        &["--behaviours", behaviours.to_str().unwrap()],
    );
    // Ready with most of it left: player 4 (not the goalkeeper, player 1) walks in.
    listener.wait_for(
        &instance,
        0,
        PLAYER,
        Role::Striker,
        Intention::WalkToPosition,
    );
    game_controller.change(|setup| setup.state = State::Playing);
    listener.wait_for(&instance, 0, PLAYER, Role::Striker, Intention::PlayBall);

    // The behaviour fails at every tick: the team mates hear that it plays no role.
    let broken = behaviours.join("behaviour.py.saving");
    std::fs::write(
        &broken,
        "def tick(blackboard):\n    raise RuntimeError('the team test broke it')\n",
    )
    .unwrap();
    // Only what is heard from now on counts: a message sent before the behaviour's first tick
    // would say None too.
    let before = listener.count();
    std::fs::rename(&broken, behaviours.join("behaviour.py")).unwrap();
    listener.wait_for(&instance, before, PLAYER, Role::None, Intention::None);

    let heard = listener.heard.lock().unwrap();
    for message in heard.iter() {
        let message = message.as_ref().unwrap_or_else(|error| panic!("{error}"));
        assert_eq!((message.team_number, message.player_number), (TEAM, PLAYER));
        // No localisation, no ball model: nothing made up.
        assert_eq!(message.ball, None, "{message:?}");
        assert_eq!(message.pass_target, None, "{message:?}");
    }
}

/// `cortex params MODULE --json`: the value of `key`.
fn parameter(instance: &Instance, module: &str, key: &str) -> Value {
    let output = instance.command(&["params", module, "--json"]);
    assert!(
        output.status.success(),
        "cortex params {module}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let reply: Value = serde_json::from_slice(&output.stdout).expect("params JSON");
    reply["parameters"]
        .as_array()
        .expect("a parameter list")
        .iter()
        .find(|entry| entry["key"] == key)
        .unwrap_or_else(|| panic!("no `{key}` in {reply}"))["value"]
        .clone()
}

/// tests/support gives every instance that does not choose its own ports UDP ports of its own:
/// two instances side by side both bind theirs, and a GameController speaking to one is not
/// heard by the other.
#[test]
fn instances_that_choose_no_ports_get_their_own_and_do_not_hear_each_other() {
    let first = Instance::start("own-ports-a", &[]);
    let second = Instance::start("own-ports-b", &[]);
    let port_of = |instance: &Instance, module: &str, key: &str| {
        let value = parameter(instance, module, key);
        u16::try_from(value.as_u64().unwrap_or_else(|| panic!("{key} = {value}"))).unwrap()
    };
    let ports: Vec<[u16; 2]> = [&first, &second]
        .iter()
        .map(|instance| {
            [
                port_of(instance, "GameControllerInterface", "port"),
                port_of(instance, "TeamCommunication", "port_base"),
            ]
        })
        .collect();
    assert_ne!(ports[0][0], ports[1][0], "{ports:?}");
    assert_ne!(ports[0][1], ports[1][1], "{ports:?}");
    assert!(!ports.iter().any(|pair| pair[0] == 3838 || pair[1] == 10000));

    // The shipped team number, whichever it is: the GameController's packet must name it.
    let team = first.get("GameState")["team_number"].as_u64().unwrap() as u8;
    let mut setup = GameSetup::new(team, if team == OPPONENT { TEAM } else { OPPONENT });
    setup.state = State::Ready;
    let game_controller = UdpSocket::bind("127.0.0.1:0").unwrap();
    let target = SocketAddr::from(([127, 0, 0, 1], ports[0][0]));
    let deadline = Instant::now() + PATIENCE;
    let mut packet_number: u8 = 0;
    loop {
        let bytes = setup.message(packet_number).encode();
        game_controller.send_to(&bytes, target).unwrap();
        packet_number = packet_number.wrapping_add(1);
        let game = first.get("GameState");
        if game["state"] == "Ready" && game["source"] == "GameController" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the first instance never heard its GameController: {game}\nlog:\n{}",
            first.log()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let other = second.get("GameState");
    assert_ne!(other["source"], "GameController", "{other}");
    for instance in [&first, &second] {
        let log = instance.log();
        assert!(!log.contains("cannot bind"), "{log}");
    }
}
