//! `RoboCupGameControlData` v18 against packets written by hand from the header's offsets
//! (not by our encoder), and against malformed packets: every fault is an error that names
//! the byte, the inbox counts it and goes on.

use spl_network::{
    CompetitionPhase, CompetitionType, GameControllerDecodeError, GameControllerInbox,
    GameControllerMessage, GamePhase, Penalty, SetPlay, State, TeamColour,
};

/// Team 5 (defends the left goal): orange field players, gray goalkeeper number 20, score 3,
/// penalty-shot byte 1, single shots 0x0105, budget 1199; player 2 pushing (45 s), player 3
/// manual, players 6–20 substitutes.
fn team_five() -> Vec<u8> {
    let mut team = vec![
        5,    // teamNumber
        6,    // fieldPlayerColour: orange
        9,    // goalkeeperColour: gray
        20,   // goalkeeper
        3,    // score
        1,    // penaltyShot
        0x05, // singleShots 0x0105, little-endian
        0x01, //
        0xAF, // messageBudget 1199 = 0x04AF
        0x04, //
    ];
    team.extend_from_slice(&[0, 0]); // player 1
    team.extend_from_slice(&[2, 45]); // player 2: PLAYER_PUSHING, 45 s
    team.extend_from_slice(&[15, 0]); // player 3: MANUAL
    team.extend_from_slice(&[0, 0, 0, 0]); // players 4, 5
    for _ in 6..=20 {
        team.extend_from_slice(&[14, 0]); // SUBSTITUTE
    }
    team
}

/// Team 12: red, black goalkeeper colour, no goalkeeper (0), budget 0, single shots 0xFFFF;
/// player 1 ILLEGAL_MOTION_IN_STANDBY with 255 s, all others REQUEST_FOR_PICKUP 7 s.
fn team_twelve() -> Vec<u8> {
    let mut team = vec![12, 1, 3, 0, 0, 0, 0xFF, 0xFF, 0x00, 0x00];
    team.extend_from_slice(&[11, 255]);
    for _ in 2..=20 {
        team.extend_from_slice(&[7, 7]);
    }
    team
}

fn packet(first: &[u8], second: &[u8]) -> Vec<u8> {
    let mut bytes = b"RGme".to_vec();
    bytes.extend_from_slice(&[
        18,   // version
        42,   // packetNumber
        7,    // playersPerTeam
        1,    // competitionPhase: PLAYOFF
        0,    // competitionType: NORMAL
        2,    // gamePhase: OVERTIME
        3,    // state: PLAYING
        4,    // setPlay: KICK_IN
        0,    // firstHalf: no
        12,   // kickingTeam
        0xFB, // secsRemaining −5 = 0xFFFB
        0xFF, //
        0x2C, // secondaryTime 300 = 0x012C
        0x01, //
    ]);
    bytes.extend_from_slice(first);
    bytes.extend_from_slice(second);
    assert_eq!(bytes.len(), 118);
    bytes
}

#[test]
fn every_field_of_a_hand_written_packet() {
    let bytes = packet(&team_five(), &team_twelve());
    let message = GameControllerMessage::decode(&bytes).expect("a valid packet");
    assert_eq!(message.packet_number, 42);
    assert_eq!(message.players_per_team, 7);
    assert_eq!(message.competition_phase, CompetitionPhase::PlayOff);
    assert_eq!(message.competition_type, CompetitionType::Normal);
    assert_eq!(message.game_phase, GamePhase::Overtime);
    assert_eq!(message.state, State::Playing);
    assert_eq!(message.set_play, SetPlay::KickIn);
    assert!(!message.first_half);
    assert_eq!(message.kicking_team, Some(12));
    assert_eq!(message.seconds_remaining, -5);
    assert_eq!(message.secondary_seconds, 300);

    let five = &message.teams[0];
    assert_eq!(five.team_number, 5);
    assert_eq!(five.field_player_colour, TeamColour::Orange);
    assert_eq!(five.goalkeeper_colour, TeamColour::Gray);
    assert_eq!(five.goalkeeper, Some(20));
    assert_eq!(five.score, 3);
    assert_eq!(five.penalty_shot, 1);
    assert_eq!(five.single_shots, 0x0105);
    assert_eq!(five.message_budget, 1199);
    assert_eq!(five.players[0].penalty, Penalty::None);
    assert_eq!(five.players[1].penalty, Penalty::PlayerPushing);
    assert_eq!(five.players[1].seconds_till_unpenalised, 45);
    assert_eq!(
        five.player(3).map(|player| player.penalty),
        Some(Penalty::Manual)
    );
    assert_eq!(
        five.player(20).map(|player| player.penalty),
        Some(Penalty::Substitute)
    );
    assert_eq!(five.player(0), None);
    assert_eq!(five.player(21), None);
    assert_eq!(five.sending_players(), 3, "players 1, 4 and 5");

    let twelve = &message.teams[1];
    assert_eq!(twelve.team_number, 12);
    assert_eq!(twelve.field_player_colour, TeamColour::Red);
    assert_eq!(twelve.goalkeeper_colour, TeamColour::Black);
    assert_eq!(twelve.goalkeeper, None);
    assert_eq!(twelve.single_shots, 0xFFFF);
    assert_eq!(twelve.message_budget, 0);
    assert_eq!(twelve.players[0].penalty, Penalty::IllegalMotionInStandby);
    assert_eq!(twelve.players[0].seconds_till_unpenalised, 255);
    assert!(twelve.players[1..]
        .iter()
        .all(|player| player.penalty == Penalty::RequestForPickup
            && player.seconds_till_unpenalised == 7));
    assert_eq!(twelve.sending_players(), 1, "nobody, but at least 1");

    assert!(message.team_messages_count());
    assert_eq!(
        message.encode().to_vec(),
        bytes,
        "encoding gives the same bytes back"
    );
}

#[test]
fn both_team_orders_describe_the_same_teams() {
    let left = GameControllerMessage::decode(&packet(&team_five(), &team_twelve())).unwrap();
    let right = GameControllerMessage::decode(&packet(&team_twelve(), &team_five())).unwrap();
    assert_eq!(left.teams[0].team_number, 5);
    assert_eq!(right.teams[0].team_number, 12);
    assert_eq!(left.team(5), right.team(5));
    assert_eq!(left.team(12), right.team(12));
    assert_eq!(right.team(5).map(|team| team.message_budget), Some(1199));
    assert!(left.team(7).is_none());
    assert_eq!(
        right.encode().to_vec(),
        packet(&team_twelve(), &team_five())
    );
}

#[test]
fn kicking_team_255_is_no_kicking_team() {
    let mut bytes = packet(&team_five(), &team_twelve());
    bytes[13] = 255;
    let message = GameControllerMessage::decode(&bytes).unwrap();
    assert_eq!(message.kicking_team, None);
    assert_eq!(message.encode()[13], 255);
}

#[test]
fn a_timeout_is_initial_with_game_phase_timeout() {
    let mut bytes = packet(&team_five(), &team_twelve());
    bytes[9] = 3; // TIMEOUT
    bytes[10] = 0; // INITIAL
    bytes[11] = 0;
    let message = GameControllerMessage::decode(&bytes).unwrap();
    assert_eq!(message.state, State::Initial);
    assert_eq!(message.game_phase, GamePhase::Timeout);
    assert_eq!(message.set_play, SetPlay::None);
    assert!(
        !message.team_messages_count(),
        "messages do not count in a timeout"
    );
}

#[test]
fn messages_count_in_standby_ready_set_playing_but_not_in_a_shootout() {
    let mut bytes = packet(&team_five(), &team_twelve());
    bytes[9] = 0;
    for (state, counts) in [
        (0, false),
        (1, true),
        (2, true),
        (3, true),
        (4, false),
        (5, true),
    ] {
        bytes[10] = state;
        let message = GameControllerMessage::decode(&bytes).unwrap();
        assert_eq!(message.team_messages_count(), counts, "state {state}");
    }
    bytes[9] = 1; // PENALTYSHOOT
    bytes[10] = 3;
    assert!(!GameControllerMessage::decode(&bytes)
        .unwrap()
        .team_messages_count());
}

fn field_error(bytes: &[u8]) -> (String, usize, u8, String) {
    match GameControllerMessage::decode(bytes) {
        Err(
            ref error @ GameControllerDecodeError::Field {
                ref field,
                offset,
                found,
                ..
            },
        ) => (field.clone(), offset, found, error.to_string()),
        other => panic!("expected a field error, got {other:?}"),
    }
}

#[test]
fn wrong_header_version_and_length_name_the_fault() {
    let good = packet(&team_five(), &team_twelve());

    let mut true_data = good.clone();
    true_data[..4].copy_from_slice(b"RGTD");
    let error = GameControllerMessage::decode(&true_data).unwrap_err();
    assert_eq!(
        error.to_string(),
        "header at byte 0: expected \"RGme\", found \"RGTD\""
    );

    let mut binary = good.clone();
    binary[0] = 0xFF;
    assert_eq!(
        GameControllerMessage::decode(&binary)
            .unwrap_err()
            .to_string(),
        "header at byte 0: expected \"RGme\", found \"\\xffGme\""
    );

    let mut old = good.clone();
    old[4] = 17;
    assert_eq!(
        GameControllerMessage::decode(&old).unwrap_err(),
        GameControllerDecodeError::Version { found: 17 }
    );
    assert_eq!(
        GameControllerMessage::decode(&old).unwrap_err().to_string(),
        "version at byte 4: expected 18, found 17"
    );

    for length in [0, 3, 4, 5, 117, 119, 1000] {
        let mut bytes = good.clone();
        bytes.resize(length, 0);
        let error = GameControllerMessage::decode(&bytes).unwrap_err();
        assert_eq!(
            error,
            GameControllerDecodeError::Length { found: length },
            "{length} bytes"
        );
        assert_eq!(
            error.to_string(),
            format!("length: expected 118 bytes, found {length}")
        );
    }
    assert!(matches!(
        GameControllerMessage::decode(b"RGx"),
        Err(GameControllerDecodeError::Header { .. })
    ));
}

#[test]
fn every_invalid_field_names_its_byte() {
    let good = packet(&team_five(), &team_twelve());
    let cases: [(usize, u8, &str); 12] = [
        (7, 2, "competitionPhase"),
        (8, 1, "competitionType"),
        (9, 4, "gamePhase"),
        (10, 6, "state"),
        (11, 6, "setPlay"),
        (12, 2, "firstHalf"),
        (13, 7, "kickingTeam"),
        (18 + 1, 10, "teams[0].fieldPlayerColour"),
        (18 + 2, 200, "teams[0].goalkeeperColour"),
        (18 + 3, 21, "teams[0].goalkeeper"),
        (68 + 10 + 2 * 4, 12, "teams[1].players[4].penalty"),
        (68 + 10 + 2 * 19, 13, "teams[1].players[19].penalty"),
    ];
    for (offset, value, name) in cases {
        let mut bytes = good.clone();
        bytes[offset] = value;
        let (field, found_offset, found, text) = field_error(&bytes);
        assert_eq!(
            (field.as_str(), found_offset, found),
            (name, offset, value),
            "{text}"
        );
        assert!(
            text.starts_with(&format!("{name} at byte {offset}: expected ")),
            "{text}"
        );
        assert!(text.ends_with(&format!("found {value}")), "{text}");
    }
}

#[test]
fn the_inbox_counts_and_ignores_what_is_not_for_us() {
    let good = packet(&team_five(), &team_twelve());
    let mut inbox = GameControllerInbox::new(5);
    let mut wrong_version = good.clone();
    wrong_version[4] = 19;
    let mut bad_state = good.clone();
    bad_state[10] = 9;
    let mut other_game = good.clone();
    other_game[18] = 30;
    other_game[68] = 31;
    other_game[13] = 255;
    let datagrams: Vec<Vec<u8>> = vec![
        good.clone(),
        b"RGTD".to_vec(),
        Vec::new(),
        wrong_version,
        good[..100].to_vec(),
        bad_state,
        other_game,
        good.clone(),
    ];
    let accepted: Vec<_> = datagrams
        .iter()
        .filter_map(|bytes| inbox.receive(bytes))
        .collect();
    assert_eq!(accepted.len(), 2);
    assert!(accepted.iter().all(|message| message.packet_number == 42));
    let counters = &inbox.counters;
    assert_eq!(
        (
            counters.accepted,
            counters.wrong_header,
            counters.wrong_version,
            counters.wrong_length,
            counters.invalid_field,
            counters.other_game
        ),
        (2, 1, 1, 2, 1, 1)
    );
    assert!(inbox.last_error.is_some());
}
