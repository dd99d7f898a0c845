//! The fake GameController over real UDP sockets on 127.0.0.1: a robot socket receives its
//! packets and decodes them, answers with return messages (good and broken), and team mates
//! send team messages that the fake GameController counts against the budget.

use spl_network::fake_game_controller::{run, Event, GameSetup, SenderOptions};
use spl_network::team_mate_peer::TeamMatePeer;
use spl_network::{GameControllerInbox, GameControllerReturnMessage, Penalty, SetPlay, State};
use std::net::{SocketAddr, UdpSocket};
use std::ops::ControlFlow;
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn robot_socket() -> UdpSocket {
    let socket = UdpSocket::bind("127.0.0.1:0").expect("a loopback UDP socket");
    socket
        .set_read_timeout(Some(Duration::from_millis(100)))
        .expect("a read timeout");
    socket
}

fn setup() -> GameSetup {
    let mut setup = GameSetup::new(5, 12);
    setup.state = State::Playing;
    setup.set_play = SetPlay::CornerKick;
    setup.kicking_team = Some(12);
    setup.scores = [2, 1];
    setup.penalties.push((5, 3, Penalty::RequestForPickup));
    setup
}

/// A team-port base where `base + 5` and `base + 12` are free on loopback right now.
fn free_team_port_base() -> u16 {
    for attempt in 0..200_u16 {
        let base = 20000 + (std::process::id() as u16 % 20000) + attempt * 97;
        let free = [5, 12].iter().all(|team| {
            UdpSocket::bind(SocketAddr::from(([127, 0, 0, 1], base.wrapping_add(*team)))).is_ok()
        });
        if free {
            return base;
        }
    }
    panic!("no free pair of UDP ports on loopback");
}

#[test]
fn packets_arrive_decoded_and_returns_and_team_messages_are_counted() {
    let robot = robot_socket();
    let options = SenderOptions {
        target: robot.local_addr().unwrap(),
        return_address: "127.0.0.1:0".parse().unwrap(),
        period: Duration::from_millis(100),
        duration: Some(Duration::from_secs(120)),
        team_port_base: Some(free_team_port_base()),
    };
    let (events, received) = mpsc::channel();
    let game_controller = std::thread::spawn(move || {
        let (mut returns, mut team_messages) = (0, 0);
        run(setup(), &options, |event| {
            match event {
                Event::Returned { .. } | Event::Rejected { .. } => returns += 1,
                Event::TeamMessage { .. } => team_messages += 1,
                _ => {}
            }
            let _ = events.send(event.clone());
            // Stop at the first packet after everything the robot sent has arrived (the
            // duration is only a cap).
            if returns == 2 && team_messages == 4 && matches!(event, Event::Sent { .. }) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
    });
    let Ok(Event::Listening {
        return_address,
        team_addresses,
    }) = received.recv_timeout(Duration::from_secs(30))
    else {
        panic!("the fake GameController did not start");
    };
    assert_eq!(team_addresses.len(), 2);

    let mut inbox = GameControllerInbox::new(5);
    let mut buffer = [0; 512];
    let mut packets = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while packets.len() < 3 && Instant::now() < deadline {
        if let Ok(length) = robot.recv(&mut buffer) {
            assert_eq!(length, 118);
            packets.push(inbox.receive(&buffer[..length]).expect("a valid packet"));
        }
    }
    assert_eq!(packets.len(), 3, "three packets within 30 s");
    let packet = &packets[0];
    assert_eq!(packet.state, State::Playing);
    assert_eq!(packet.set_play, SetPlay::CornerKick);
    assert_eq!(packet.kicking_team, Some(12));
    let ours = packet.team(5).expect("our team plays");
    assert_eq!(ours.score, 2);
    assert_eq!(ours.player(3).unwrap().penalty, Penalty::RequestForPickup);
    assert_eq!(ours.player(6).unwrap().penalty, Penalty::Substitute);
    assert_eq!(packet.team(12).unwrap().score, 1);
    assert!(packets
        .windows(2)
        .all(|pair| pair[1].packet_number == pair[0].packet_number.wrapping_add(1)));

    let status = GameControllerReturnMessage {
        player_number: 2,
        team_number: 5,
        fallen: false,
        pose: [-1000.0, 200.0, 0.5],
        ball_age_seconds: Some(1.0),
        ball_position: [400.0, 0.0],
    };
    robot
        .send_to(&status.encode().unwrap(), return_address)
        .unwrap();
    let mut broken = status.encode().unwrap();
    broken[7] = 7;
    robot.send_to(&broken, return_address).unwrap();

    let mut team_mates = TeamMatePeer::new(team_addresses[0], 5, vec![1, 2, 4]).unwrap();
    team_mates.send_round().unwrap();
    team_mates.send_bytes(&[0xAB; 129]).unwrap();

    let summary = game_controller
        .join()
        .expect("the fake GameController did not panic")
        .expect("the fake GameController ran");
    let events: Vec<Event> = received.try_iter().collect();
    assert!(summary.packets_sent >= 3);
    assert_eq!((summary.returns_accepted, summary.returns_rejected), (1, 1));
    assert!(events.iter().any(|event| matches!(
        event,
        Event::Returned { message, .. } if *message == status
    )));
    assert!(events.iter().any(|event| matches!(
        event,
        Event::Rejected { error, .. } if error.to_string() == "fallen at byte 7: expected 0 or 1, found 7"
    )));
    assert_eq!(summary.team_messages, [4, 0]);
    assert_eq!(summary.illegal_communication, [true, false]);
    let budgets: Vec<u16> = events
        .iter()
        .filter_map(|event| match event {
            Event::TeamMessage { budget_left, .. } => Some(*budget_left),
            _ => None,
        })
        .collect();
    assert_eq!(budgets, vec![1199, 1198, 1197, 1196]);
    let last_sent = events
        .iter()
        .rev()
        .find_map(|event| match event {
            Event::Sent { message } => Some(message.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        last_sent.team(5).unwrap().score,
        0,
        "illegal communication zeroes the score"
    );
    assert_eq!(last_sent.team(5).unwrap().message_budget, 1196);
    assert_eq!(last_sent.team(12).unwrap().score, 1);
}

#[test]
fn once_sends_one_packet_and_listens_for_a_period() {
    let robot = robot_socket();
    let mut setup = GameSetup::new(7, 8);
    setup.state = State::Ready;
    setup.kicking_team = None;
    let options = SenderOptions {
        target: robot.local_addr().unwrap(),
        return_address: "127.0.0.1:0".parse().unwrap(),
        period: Duration::from_millis(200),
        duration: None,
        team_port_base: None,
    };
    let summary =
        run(setup, &options, |_| ControlFlow::Continue(())).expect("the fake GameController ran");
    assert_eq!(summary.packets_sent, 1);
    let mut buffer = [0; 512];
    let length = robot.recv(&mut buffer).expect("the one packet");
    let message = spl_network::GameControllerMessage::decode(&buffer[..length]).unwrap();
    assert_eq!((message.state, message.kicking_team), (State::Ready, None));
    assert!(robot.recv(&mut buffer).is_err(), "only one packet");
}

#[test]
fn hostile_datagrams_on_the_return_port_are_counted_and_sending_goes_on() {
    let robot = robot_socket();
    let options = SenderOptions {
        target: robot.local_addr().unwrap(),
        return_address: "127.0.0.1:0".parse().unwrap(),
        period: Duration::from_millis(50),
        duration: Some(Duration::from_secs(120)),
        team_port_base: None,
    };
    let (events, received) = mpsc::channel();
    let game_controller = std::thread::spawn(move || {
        let mut sent_after_marker = None;
        run(setup(), &options, |event| {
            match event {
                Event::Returned { .. } => sent_after_marker = Some(0),
                Event::Sent { .. } => {
                    if let Some(count) = sent_after_marker.as_mut() {
                        *count += 1;
                    }
                }
                _ => {}
            }
            let _ = events.send(event.clone());
            if sent_after_marker >= Some(2) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
    });
    let Ok(Event::Listening { return_address, .. }) =
        received.recv_timeout(Duration::from_secs(30))
    else {
        panic!("the fake GameController did not start");
    };
    let attacker = UdpSocket::bind("127.0.0.1:0").unwrap();
    let mut state = 0x1234_5678_u32;
    let mut errors = Vec::new();
    for batch in 0..30_usize {
        for index in batch * 10..batch * 10 + 10 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let length = [0, 1, 4, 5, 31, 32, 33, 4000][index % 8];
            let mut datagram: Vec<u8> = (0..length).map(|at| (state >> (at % 24)) as u8).collect();
            if length == 32 || length == 4000 {
                datagram[..5].copy_from_slice(b"RGrt\x04");
                datagram[5] = 1;
                datagram[7] = 2; // fallen > 1
            }
            attacker.send_to(&datagram, return_address).unwrap();
        }
        // Wait until the batch has been read, so that no datagram is dropped by a full buffer.
        while errors.len() < batch * 10 + 10 {
            match received.recv_timeout(Duration::from_secs(60)) {
                Ok(Event::Rejected { error, .. }) => errors.push(error),
                Ok(_) => {}
                Err(_) => panic!("only {} of the hostile datagrams were read", errors.len()),
            }
        }
    }
    let marker = GameControllerReturnMessage {
        player_number: 1,
        team_number: 5,
        fallen: false,
        pose: [0.0; 3],
        ball_age_seconds: None,
        ball_position: [0.0; 2],
    };
    attacker
        .send_to(&marker.encode().unwrap(), return_address)
        .unwrap();
    let summary = game_controller.join().unwrap().unwrap();
    assert_eq!(
        summary.returns_accepted, 1,
        "only the marker is a return message"
    );
    assert_eq!(summary.returns_rejected, 300);
    assert!(errors
        .iter()
        .any(|error| error.to_string() == "length: expected 32 bytes, found 4000"));
    assert!(errors
        .iter()
        .any(|error| error.to_string() == "fallen at byte 7: expected 0 or 1, found 2"));
    let mut buffer = [0; 512];
    let length = robot.recv(&mut buffer).expect("packets kept coming");
    assert_eq!(length, 118);
}
