//! The return message (v4) and Cortex team messages against bytes written by hand, their
//! faults, and the team message's size bound over extreme values.

use spl_network::{
    Ball, GameControllerReference, GameControllerReturnMessage, Intention, Pose,
    ReturnMessageDecodeError, ReturnMessageEncodeError, Role, TeamMessage, TeamMessageDecodeError,
    TeamMessageEncodeError, TeamMessageInbox, MAX_TEAM_MESSAGE_SIZE, TEAM_MESSAGE_SIZE,
};

/// Player 3 of team 5, fallen, at (1000, −500) mm facing 1.5 rad, ball 2.5 s old at
/// (300, 0) mm. f32 bit patterns: 1000 = 0x447A0000, −500 = 0xC3FA0000, 1.5 = 0x3FC00000,
/// 2.5 = 0x40200000, 300 = 0x43960000.
const RETURN_PACKET: [u8; 32] = [
    b'R', b'G', b'r', b't', 4, 3, 5, 1, //
    0x00, 0x00, 0x7A, 0x44, // pose x
    0x00, 0x00, 0xFA, 0xC3, // pose y
    0x00, 0x00, 0xC0, 0x3F, // pose θ
    0x00, 0x00, 0x20, 0x40, // ballAge
    0x00, 0x00, 0x96, 0x43, // ball x
    0x00, 0x00, 0x00, 0x00, // ball y
];

fn return_message() -> GameControllerReturnMessage {
    GameControllerReturnMessage {
        player_number: 3,
        team_number: 5,
        fallen: true,
        pose: [1000.0, -500.0, 1.5],
        ball_age_seconds: Some(2.5),
        ball_position: [300.0, 0.0],
    }
}

#[test]
fn return_message_matches_the_hand_written_packet() {
    assert_eq!(return_message().encode().unwrap(), RETURN_PACKET);
    assert_eq!(
        GameControllerReturnMessage::decode(&RETURN_PACKET).unwrap(),
        return_message()
    );
    let never_seen = GameControllerReturnMessage {
        ball_age_seconds: None,
        ..return_message()
    };
    let bytes = never_seen.encode().unwrap();
    assert_eq!(
        bytes[20..24],
        [0x00, 0x00, 0x80, 0xBF],
        "−1.0 for a ball never seen"
    );
    assert_eq!(
        GameControllerReturnMessage::decode(&bytes).unwrap(),
        never_seen
    );
}

#[test]
fn return_message_faults_name_their_byte() {
    let with = |offset: usize, value: u8| {
        let mut bytes = RETURN_PACKET;
        bytes[offset] = value;
        GameControllerReturnMessage::decode(&bytes).unwrap_err()
    };
    assert_eq!(
        with(0, b'X').to_string(),
        "header at byte 0: expected \"RGrt\", found \"XGrt\""
    );
    assert_eq!(with(4, 3), ReturnMessageDecodeError::Version { found: 3 });
    assert_eq!(
        with(5, 0).to_string(),
        "playerNum at byte 5: expected 1-20, found 0"
    );
    assert_eq!(
        with(5, 21),
        ReturnMessageDecodeError::PlayerNumber { found: 21 }
    );
    assert_eq!(
        with(7, 255).to_string(),
        "fallen at byte 7: expected 0 or 1, found 255"
    );
    let mut not_a_number = RETURN_PACKET;
    not_a_number[24..28].copy_from_slice(&f32::NAN.to_le_bytes());
    assert!(matches!(
        GameControllerReturnMessage::decode(&not_a_number),
        Err(ReturnMessageDecodeError::NotFinite {
            field: "ball[0]",
            offset: 24,
            ..
        })
    ));
    for length in [0, 4, 5, 31, 33] {
        let mut bytes = RETURN_PACKET.to_vec();
        bytes.resize(length, 0);
        assert_eq!(
            GameControllerReturnMessage::decode(&bytes).unwrap_err(),
            ReturnMessageDecodeError::Length { found: length }
        );
    }

    let encode = |message: GameControllerReturnMessage| message.encode().unwrap_err();
    assert_eq!(
        encode(GameControllerReturnMessage {
            player_number: 0,
            ..return_message()
        }),
        ReturnMessageEncodeError::PlayerNumber { found: 0 }
    );
    assert!(matches!(
        encode(GameControllerReturnMessage {
            pose: [0.0, f32::INFINITY, 0.0],
            ..return_message()
        }),
        ReturnMessageEncodeError::NotFinite {
            field: "pose[1]",
            ..
        }
    ));
    assert!(matches!(
        encode(GameControllerReturnMessage {
            ball_age_seconds: Some(-2.0),
            ..return_message()
        }),
        ReturnMessageEncodeError::NegativeBallAge { .. }
    ));
}

/// Fletcher-16 written out again for the test (modulo 255, sum2 in the high byte).
fn fletcher16(bytes: &[u8]) -> [u8; 2] {
    let (mut low, mut high) = (0_u32, 0_u32);
    for &byte in bytes {
        low = (low + u32::from(byte)) % 255;
        high = (high + low) % 255;
    }
    [low as u8, high as u8]
}

/// Player 4 of team 5, fallen, striker passing to 2, sent at 0x01020304 ms, 120 ms after
/// GameController packet 42, at (−1000, 2000) mm facing 16384 units (π/2), ball at (500, −20)
/// mm seen 300 ms ago, walking to (100, −100) mm.
fn team_packet() -> Vec<u8> {
    let mut bytes = vec![b'C', b'T', b'X', 1, 5, 4, 1, 2, 2, 2];
    bytes.extend_from_slice(&[0x04, 0x03, 0x02, 0x01]); // timestamp
    bytes.extend_from_slice(&[42, 120, 0]); // packet 42, 120 ms
    bytes.extend_from_slice(&[0x18, 0xFC, 0xD0, 0x07, 0x00, 0x40]); // −1000, 2000, 16384
    bytes.extend_from_slice(&[0xF4, 0x01, 0xEC, 0xFF, 0x2C, 0x01]); // 500, −20, 300 ms
    bytes.extend_from_slice(&[100, 0, 0x9C, 0xFF, 0]); // 100, −100, reserved
    let checksum = fletcher16(&bytes);
    bytes.extend_from_slice(&checksum);
    bytes
}

fn team_message() -> TeamMessage {
    TeamMessage {
        team_number: 5,
        player_number: 4,
        fallen: true,
        role: Role::Striker,
        intention: Intention::Pass,
        pass_target: Some(2),
        timestamp_ms: 0x0102_0304,
        game_controller_reference: Some(GameControllerReference {
            packet_number: 42,
            milliseconds_since: 120,
        }),
        pose: Pose {
            x_mm: -1000.0,
            y_mm: 2000.0,
            angle_rad: std::f32::consts::FRAC_PI_2,
        },
        ball: Some(Ball {
            position_mm: [500.0, -20.0],
            age_ms: 300,
        }),
        walk_target_mm: [100.0, -100.0],
    }
}

#[test]
fn team_message_matches_the_hand_written_packet() {
    let bytes = team_packet();
    assert_eq!(bytes.len(), TEAM_MESSAGE_SIZE);
    assert_eq!(team_message().encode().unwrap().to_vec(), bytes);
    let decoded = TeamMessage::decode(&bytes).unwrap();
    assert_eq!(decoded, team_message());
}

#[test]
fn team_message_faults() {
    let good = team_packet();
    let foreign = [
        b"SPL ".to_vec(),
        Vec::new(),
        b"CT".to_vec(),
        vec![0xFF; 128],
        b"CTx\x01".to_vec(),
    ];
    for bytes in foreign {
        let error = TeamMessage::decode(&bytes).unwrap_err();
        assert!(error.is_foreign(), "{error}");
    }
    let mut newer = good.clone();
    newer[3] = 2;
    assert_eq!(
        TeamMessage::decode(&newer).unwrap_err().to_string(),
        "version at byte 3: expected 1, found 2"
    );
    let mut long = good.clone();
    long.push(0);
    assert_eq!(
        TeamMessage::decode(&long).unwrap_err(),
        TeamMessageDecodeError::Length { found: 37 }
    );
    let mut flipped = good.clone();
    flipped[18] ^= 0x10;
    assert!(TeamMessage::decode(&flipped)
        .unwrap_err()
        .to_string()
        .starts_with("checksum at byte 34: computed"));

    // Field faults, with a valid checksum so the field check is what fails.
    let with = |offset: usize, value: u8| {
        let mut bytes = good.clone();
        bytes[offset] = value;
        let checksum = fletcher16(&bytes[..34]);
        bytes[34..].copy_from_slice(&checksum);
        TeamMessage::decode(&bytes).unwrap_err().to_string()
    };
    assert_eq!(with(5, 0), "player at byte 5: expected 1-20, found 0");
    assert_eq!(
        with(6, 2),
        "flags at byte 6: expected 0 or 1 (bit 0: fallen), found 2"
    );
    assert!(with(7, 6).starts_with("role at byte 7: expected a role"));
    assert!(with(8, 9).starts_with("intention at byte 8:"));
    assert_eq!(
        with(9, 21),
        "pass target at byte 9: expected 0 or 1-20, found 21"
    );
    assert_eq!(with(33, 1), "reserved at byte 33: expected 0, found 1");

    let encode = |message: TeamMessage| message.encode().unwrap_err();
    assert_eq!(
        encode(TeamMessage {
            player_number: 21,
            ..team_message()
        }),
        TeamMessageEncodeError::PlayerNumber { found: 21 }
    );
    assert!(matches!(
        encode(TeamMessage {
            pose: Pose {
                angle_rad: f32::NAN,
                ..team_message().pose
            },
            ..team_message()
        }),
        TeamMessageEncodeError::NotFinite {
            field: "pose.angle_rad",
            ..
        }
    ));
}

const EXTREMES: [f32; 9] = [
    0.0,
    -0.0,
    f32::MIN_POSITIVE,
    1.0e-30,
    32767.6,
    -32768.7,
    1.0e9,
    f32::MAX,
    f32::MIN,
];

#[test]
fn every_extreme_value_encodes_within_128_bytes_and_saturates() {
    const _: () = assert!(TEAM_MESSAGE_SIZE <= MAX_TEAM_MESSAGE_SIZE);
    let mut checked = 0;
    for &x in &EXTREMES {
        for &angle in &EXTREMES {
            for &ball in &EXTREMES {
                for age_ms in [0, 65534, 65535] {
                    let message = TeamMessage {
                        team_number: 255,
                        player_number: 20,
                        pass_target: Some(20),
                        timestamp_ms: u32::MAX,
                        game_controller_reference: Some(GameControllerReference {
                            packet_number: 255,
                            milliseconds_since: u16::MAX,
                        }),
                        pose: Pose {
                            x_mm: x,
                            y_mm: -x,
                            angle_rad: angle,
                        },
                        ball: Some(Ball {
                            position_mm: [ball, -ball],
                            age_ms,
                        }),
                        walk_target_mm: [x, ball],
                        ..team_message()
                    };
                    let bytes = message.encode().expect("finite values encode");
                    assert!(bytes.len() <= MAX_TEAM_MESSAGE_SIZE);
                    let decoded = TeamMessage::decode(&bytes).expect("what we encode decodes");
                    assert_eq!(decoded.pose.x_mm, x.round().clamp(-32768.0, 32767.0));
                    assert!(decoded.pose.angle_rad.abs() <= std::f32::consts::PI);
                    let decoded_ball = decoded.ball.expect("a ball stays a ball");
                    assert_eq!(decoded_ball.age_ms, age_ms.min(65534));
                    assert_eq!(
                        decoded
                            .game_controller_reference
                            .map(|r| r.milliseconds_since),
                        Some(65534)
                    );
                    assert_eq!(decoded.encode().unwrap(), bytes, "a second round is exact");
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 9 * 9 * 9 * 3);
}

#[test]
fn angles_wrap_to_one_turn() {
    use std::f32::consts::PI;
    for (angle, expected) in [
        (0.0, 0.0),
        (PI / 2.0, PI / 2.0),
        (2.0 * PI + 0.5, 0.5),
        (-PI / 2.0 - 4.0 * PI, -PI / 2.0),
    ] {
        let message = TeamMessage {
            pose: Pose {
                angle_rad: angle,
                ..team_message().pose
            },
            ..team_message()
        };
        let decoded = TeamMessage::decode(&message.encode().unwrap()).unwrap();
        assert!(
            (decoded.pose.angle_rad - expected).abs() < 2.0 * PI / 65536.0,
            "{angle} → {}",
            decoded.pose.angle_rad
        );
    }
}

#[test]
fn the_inbox_keeps_team_mates_and_counts_the_rest() {
    let mut inbox = TeamMessageInbox::new(5, 3);
    let mate = team_packet();
    let own = TeamMessage {
        player_number: 3,
        ..team_message()
    }
    .encode()
    .unwrap()
    .to_vec();
    let other_team = TeamMessage {
        team_number: 6,
        ..team_message()
    }
    .encode()
    .unwrap()
    .to_vec();
    let mut broken = mate.clone();
    broken[20] ^= 1;
    let mut newer = mate.clone();
    newer[3] = 2;
    let datagrams = [
        mate.clone(),
        b"B-Human message".to_vec(),
        vec![0; 128],
        own,
        other_team,
        broken,
        newer,
        mate,
    ];
    let accepted: Vec<_> = datagrams
        .iter()
        .filter_map(|bytes| inbox.receive(bytes))
        .collect();
    assert_eq!(accepted, vec![team_message(), team_message()]);
    let counters = &inbox.counters;
    assert_eq!(
        (
            counters.accepted,
            counters.foreign,
            counters.own,
            counters.other_team,
            counters.malformed,
            counters.other_version
        ),
        (2, 2, 1, 1, 1, 1)
    );
}
