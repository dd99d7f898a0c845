//! `cortex gc` as a person runs it: it broadcasts GameController packets to a robot's socket on
//! 127.0.0.1, prints the robot's return messages as JSON lines, and refuses bad options with a
//! message that names the option.

use spl_network::{
    GameControllerMessage, GameControllerReturnMessage, Penalty, SetPlay, State, TeamMessageInbox,
};
use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, UdpSocket};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn cortex() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cortex"))
}

/// Kills the `cortex gc` child when the test ends, whatever happened.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn next_event(lines: &mpsc::Receiver<String>, kind: &str) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        let Ok(line) = lines.recv_timeout(left) else {
            break;
        };
        let value: serde_json::Value = serde_json::from_str(&line)
            .unwrap_or_else(|error| panic!("not a JSON line ({error}): {line}"));
        if value["event"] == kind {
            return value;
        }
    }
    panic!("no {kind} event within 60 s");
}

#[test]
fn gc_broadcasts_to_a_robot_and_prints_its_return_messages() {
    let robot = UdpSocket::bind("127.0.0.1:0").expect("a loopback UDP socket");
    robot
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let target = robot.local_addr().unwrap().to_string();
    let mut child = cortex()
        .args(["gc", "--target", &target, "--return-port", "0"])
        .args([
            "--teams",
            "5",
            "12",
            "--state",
            "playing",
            "--set-play",
            "kick-in",
        ])
        .args([
            "--kicking-team",
            "12",
            "--penalise",
            "3",
            "--penalise",
            "12:2",
        ])
        .args([
            "--score",
            "2:1",
            "--seconds",
            "120",
            "--period-ms",
            "100",
            "--json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("cortex gc starts");
    let stdout = child.stdout.take().expect("piped stdout");
    let _running = Running(child);
    let (sender, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if sender.send(line).is_err() {
                break;
            }
        }
    });

    let listening = next_event(&lines, "listening");
    let bound: SocketAddr = listening["return_address"]
        .as_str()
        .and_then(|text| text.parse().ok())
        .expect("the return address");
    let return_address = SocketAddr::from(([127, 0, 0, 1], bound.port()));

    let mut buffer = [0; 512];
    let length = robot.recv(&mut buffer).expect("a packet within 60 s");
    let message = GameControllerMessage::decode(&buffer[..length]).expect("a valid v18 packet");
    assert_eq!(message.state, State::Playing);
    assert_eq!(message.set_play, SetPlay::KickIn);
    assert_eq!(message.kicking_team, Some(12));
    let ours = message.team(5).expect("team 5 plays");
    assert_eq!(ours.score, 2);
    assert_eq!(ours.player(3).unwrap().penalty, Penalty::PlayerPushing);
    let theirs = message.team(12).expect("team 12 plays");
    assert_eq!(theirs.score, 1);
    assert_eq!(theirs.player(2).unwrap().penalty, Penalty::PlayerPushing);
    assert_eq!(theirs.player(3).unwrap().penalty, Penalty::None);

    let status = GameControllerReturnMessage {
        player_number: 4,
        team_number: 5,
        fallen: true,
        pose: [1500.0, -700.0, 3.0],
        ball_age_seconds: None,
        ball_position: [0.0, 0.0],
    };
    robot
        .send_to(&status.encode().unwrap(), return_address)
        .unwrap();
    let returned = next_event(&lines, "return");
    assert_eq!(returned["message"]["player_number"], 4);
    assert_eq!(returned["message"]["fallen"], true);
    assert_eq!(returned["message"]["pose"][0], 1500.0);

    robot.send_to(b"RGrt\x03", return_address).unwrap();
    let rejected = next_event(&lines, "rejected");
    assert_eq!(
        rejected["error"], "version at byte 4: expected 4, found 3",
        "{rejected}"
    );
}

#[test]
fn gc_pretends_to_be_team_mates() {
    let robot = UdpSocket::bind("127.0.0.1:0").expect("a loopback UDP socket");
    robot
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let team_port = robot.local_addr().unwrap().to_string();
    let output = run(&[
        "--target",
        "127.0.0.1:9",
        "--return-port",
        "0",
        "--teams",
        "5",
        "12",
        "--team-mates",
        "2,4",
        "--team-mate-target",
        &team_port,
        "--seconds",
        "0.35",
        "--period-ms",
        "100",
        "--json",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report: serde_json::Value = stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .find(|value| value["event"] == "team_mates")
        .unwrap_or_else(|| panic!("no team_mates line in {stdout}"));
    let sent = report["sent"].as_u64().expect("a count");
    assert!(sent >= 2 && sent % 2 == 0, "{report}");

    let mut inbox = TeamMessageInbox::new(5, 3);
    let mut buffer = [0; 1500];
    let mut players = Vec::new();
    for _ in 0..sent {
        let length = robot.recv(&mut buffer).expect("every team message arrives");
        let message = inbox
            .receive(&buffer[..length])
            .expect("a team mate's message");
        players.push(message.player_number);
    }
    assert_eq!(players[..2], [2, 4]);
}

fn run(arguments: &[&str]) -> Output {
    cortex()
        .arg("gc")
        .args(arguments)
        .output()
        .expect("cortex runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn gc_refuses_bad_options_naming_them() {
    let cases: [(&[&str], &str); 9] = [
        (&["--team-mates", "2,0"], "player \"0\": expected 1-20"),
        (&["--score", "3"], "LEFT:RIGHT"),
        (&["--score", "2:x"], "\"x\" in \"2:x\""),
        (&["--penalise", "21"], "expected 1-20"),
        (&["--state", "dancing"], "expected one of initial, ready"),
        (&["--teams", "5", "5"], "different numbers"),
        (
            &["--teams", "5", "12", "--kicking-team", "7"],
            "expected 5, 12 or none",
        ),
        (&["--seconds=-1"], "--seconds -1: expected 0 to 86400"),
        (&["--seconds", "NaN"], "--seconds NaN: expected 0 to 86400"),
    ];
    for (arguments, expected) in cases {
        let output = run(arguments);
        assert!(!output.status.success(), "{arguments:?} was accepted");
        assert!(
            stderr(&output).contains(expected),
            "{arguments:?}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn gc_names_a_return_port_that_is_taken() {
    let taken = UdpSocket::bind("0.0.0.0:0").expect("a UDP socket");
    let port = taken.local_addr().unwrap().port().to_string();
    let output = run(&["--target", "127.0.0.1:9", "--return-port", &port]);
    assert!(!output.status.success());
    let text = stderr(&output);
    assert!(
        text.contains(&format!("binding UDP 0.0.0.0:{port} (return messages)")),
        "{text}"
    );
}
