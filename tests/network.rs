//! The `network` process in the running system, on the loopback: a GameController made of
//! `spl_network`'s packets drives `GameState` through every state and a penalty; the robot
//! answers it at 0.5–2 Hz with valid return packets; team mates' messages reach `TeamMates`
//! and other teams' do not; malformed datagrams are counted and ignored by a process that keeps
//! its pid.
//!
//! Every test has its own instance, run directory and UDP ports: the robot's ports are ports
//! the test found free (bound to port 0 and released) and passes with `--set`; the test's
//! GameController listens on its own ephemeral port, which is the robot's `return_port`.

mod support;

use serde_json::Value;
use spl_network::fake_game_controller::GameSetup;
use spl_network::team_mate_peer::TeamMatePeer;
use spl_network::{GameControllerReturnMessage, Penalty, State, TeamMessage};
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

/// A UDP port that was free a moment ago.
fn free_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

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
        "TeamCommunication.broadcast_address=127.0.0.1".to_owned(),
        "TeamCommunication.broadcast=false".to_owned(),
    ];
    let mut arguments = Vec::new();
    for set in &sets {
        arguments.push("--set");
        arguments.push(set.as_str());
    }
    Instance::start(name, &arguments)
}

fn ports() -> Ports {
    let game_controller = free_port();
    let mut team = free_port();
    while team == game_controller || team <= 255 {
        team = free_port();
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
    // Still the same process, still following the GameController.
    game_controller.change(|setup| setup.state = State::Set);
    wait_for_state(&instance, "Set", Value::Null);
    assert_eq!(instance.pid("network"), pid);
    assert_eq!(instance.process("network")["restarts"], 0);
}
