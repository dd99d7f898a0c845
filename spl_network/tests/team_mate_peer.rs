//! The team-mate peer over loopback UDP: a robot's socket receives its team messages and
//! another team's datagrams; the inbox keeps the team mates' and counts the rest.

use spl_network::team_mate_peer::{send_team_messages, TeamMatePeer};
use spl_network::{Role, TeamMessageInbox, MAX_TEAM_MESSAGE_SIZE};
use std::net::UdpSocket;
use std::time::Duration;

#[test]
fn team_mates_arrive_and_foreign_datagrams_are_counted() {
    let robot = UdpSocket::bind("127.0.0.1:0").expect("a loopback UDP socket");
    robot
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let target = robot.local_addr().unwrap();
    let mut peer = TeamMatePeer::new(target, 5, vec![1, 2, 4]).unwrap();
    assert_eq!(peer.send_round().unwrap(), 3);
    peer.send_bytes(b"\x02\x00another team's format").unwrap();
    assert_eq!(
        send_team_messages(target, 5, &[3], 2, Duration::from_millis(10)).unwrap(),
        2,
        "two rounds of player 3, which is this robot: its own messages heard back"
    );

    let mut inbox = TeamMessageInbox::new(5, 3);
    let mut buffer = [0; 1500];
    let mut mates = Vec::new();
    for _ in 0..6 {
        let length = robot.recv(&mut buffer).expect("a datagram within 30 s");
        assert!(length <= MAX_TEAM_MESSAGE_SIZE);
        mates.extend(inbox.receive(&buffer[..length]));
    }
    let numbers: Vec<u8> = mates.iter().map(|message| message.player_number).collect();
    assert_eq!(numbers, vec![1, 2, 4]);
    assert_eq!(mates[0].role, Role::Goalkeeper);
    assert_eq!(mates[1].role, Role::Supporter);
    assert_eq!(
        (
            inbox.counters.accepted,
            inbox.counters.foreign,
            inbox.counters.own
        ),
        (3, 1, 2)
    );
}
