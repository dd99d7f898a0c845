//! The pacing over simulated time: whole minutes of a game in milliseconds of test time.

use super::*;
use spl_network::fake_game_controller::GameSetup;
use spl_network::{State, MAX_TEAM_MESSAGE_SIZE};
use types::{FieldPose, Penalty, PlayState, SeenBall};

const TEAM: u8 = 5;
const TICK_MS: u64 = 10;

fn sender(player_number: u8) -> TeamSender {
    TeamSender::new(
        PacingParameters::default(),
        PlayerNumbers {
            team_number: TEAM,
            player_number,
        },
        600_000,
        5,
    )
}

/// The GameController's view of a game: what it broadcasts, counting the messages it hears.
struct SimulatedGame {
    setup: GameSetup,
    packet_number: u8,
    state: GameControllerState,
}

impl SimulatedGame {
    fn new(state: State) -> Self {
        let mut setup = GameSetup::new(TEAM, 12);
        setup.state = state;
        Self {
            setup,
            packet_number: 0,
            state: GameControllerState::default(),
        }
    }

    /// A packet at `now_ms`, as the robot's network process would provide it.
    fn broadcast(&mut self, now_ms: u64) {
        self.packet_number = self.packet_number.wrapping_add(1);
        let message = self.setup.message(self.packet_number);
        self.state.packet = Some(convert::game_controller_packet(&message));
        self.state.received_ns = Some(now_ms * MS);
    }

    fn game_state(&self, player_number: u8) -> GameState {
        let packet = self.state.packet.as_ref().unwrap();
        let team = packet.team(TEAM).unwrap();
        GameState {
            state: packet.state,
            phase: packet.phase,
            penalty: team.player(player_number).unwrap().penalty,
            message_budget: team.message_budget,
            seconds_remaining: packet.seconds_remaining,
            source: GameStateSource::GameController,
            ..GameState::default()
        }
    }
}

/// Plays `minutes` of a game in `state` with robots 1–5 of team 5, ticking every 10 ms, the
/// GameController broadcasting at 2 Hz and counting every message as GC3 does. Returns the
/// messages each robot sent and the largest message.
fn play(game: &mut SimulatedGame, minutes: u64, request: &TeamMessageRequest) -> ([u64; 5], usize) {
    let mut senders: Vec<TeamSender> = (1..=5).map(sender).collect();
    let mut sent = [0_u64; 5];
    let mut largest = 0;
    let start_seconds = game.setup.seconds_remaining;
    let counts = matches!(
        game.setup.state,
        State::Playing | State::Ready | State::Set | State::Standby
    );
    for tick in 0..minutes * 60_000 / TICK_MS {
        let now_ms = tick * TICK_MS;
        if now_ms % 500 == 0 {
            if game.setup.state == State::Playing {
                let elapsed = i16::try_from(now_ms / 1000).unwrap();
                game.setup.seconds_remaining = start_seconds - elapsed;
            }
            game.broadcast(now_ms);
        }
        let mut senders_this_tick = Vec::new();
        for (index, robot) in senders.iter_mut().enumerate() {
            let player_number = index as u8 + 1;
            let game_state = game.game_state(player_number);
            let context = SendContext {
                game_state: &game_state,
                game_controller: &game.state,
                request,
                fallen: false,
            };
            if let Some(bytes) = robot.poll(now_ms * MS, context).unwrap() {
                robot.sent(now_ms * MS, context);
                largest = largest.max(bytes.len());
                sent[index] += 1;
                let decoded = TeamMessage::decode(&bytes).unwrap();
                assert_eq!(
                    (decoded.team_number, decoded.player_number),
                    (TEAM, player_number)
                );
                if counts {
                    let budget = &mut game.setup.message_budgets[0];
                    assert!(*budget > 0, "a message past the budget at {now_ms} ms");
                    *budget -= 1;
                }
                senders_this_tick.push(index);
            }
        }
        // Every other robot hears each message (the order within a tick does not matter).
        for sender_index in senders_this_tick {
            for (index, robot) in senders.iter_mut().enumerate() {
                if index != sender_index {
                    robot.heard_team_mate();
                }
            }
        }
    }
    (sent, largest)
}

#[test]
fn ten_minutes_of_playing_stay_within_the_budget_share_and_128_bytes() {
    let mut game = SimulatedGame::new(State::Playing);
    let request = TeamMessageRequest {
        pose: Some(FieldPose {
            x_mm: 1000.0,
            y_mm: -500.0,
            angle_rad: 1.0,
        }),
        ball: Some(SeenBall {
            position_mm: [300.0, 20.0],
            age_ms: 100,
        }),
        ..TeamMessageRequest::default()
    };
    let (sent, largest) = play(&mut game, 10, &request);
    let total: u64 = sent.iter().sum();
    // The first half is half of the game: at most half the budget (1200 / 2).
    let share = u64::from(PacingParameters::default().overall_budget) / 2;
    eprintln!("10 min of PLAYING: {total} of {share} messages, per robot {sent:?}, largest {largest} bytes");
    assert!(total <= share, "{total} messages in 10 min: {sent:?}");
    for (index, count) in sent.iter().enumerate() {
        assert!(*count <= share / 5 + 1, "player {} sent {count}", index + 1);
    }
    // Not vacuous: the team used most of its share (the reserves and the pacing line keep
    // the rest).
    assert!(total >= share * 9 / 10, "only {total} messages: {sent:?}");
    assert!(largest <= MAX_TEAM_MESSAGE_SIZE && largest > 0);
    assert_eq!(
        u64::from(1200 - game.setup.message_budgets[0]),
        total,
        "the GameController counted every message"
    );
}

#[test]
fn nothing_is_sent_where_messages_are_not_needed() {
    for state in [State::Initial, State::Finished, State::Set, State::Standby] {
        let mut game = SimulatedGame::new(state);
        let (sent, _) = play(&mut game, 1, &TeamMessageRequest::default());
        assert_eq!(sent, [0; 5], "{state:?}");
    }
    // A penalty shoot-out.
    let mut game = SimulatedGame::new(State::Playing);
    game.setup.game_phase = spl_network::GamePhase::PenaltyShootout;
    let (sent, _) = play(&mut game, 1, &TeamMessageRequest::default());
    assert_eq!(sent, [0; 5], "penalty shoot-out");
    // Penalised robots (2 and 4) stay silent while the others talk.
    let mut game = SimulatedGame::new(State::Playing);
    game.setup.penalties = vec![
        (TEAM, 2, spl_network::Penalty::PlayerPushing),
        (TEAM, 4, spl_network::Penalty::RequestForPickup),
    ];
    let (sent, _) = play(&mut game, 1, &TeamMessageRequest::default());
    assert_eq!((sent[1], sent[3]), (0, 0), "{sent:?}");
    assert!(sent[0] > 0 && sent[2] > 0 && sent[4] > 0, "{sent:?}");
}

/// One tick of `robot`: polls and, if a message is due, sends it.
fn step(
    robot: &mut TeamSender,
    now_ns: u64,
    game_state: &GameState,
    game_controller: &GameControllerState,
    request: &TeamMessageRequest,
) -> Option<[u8; TEAM_MESSAGE_SIZE]> {
    let context = SendContext {
        game_state,
        game_controller,
        request,
        fallen: true,
    };
    let bytes = robot.poll(now_ns, context).unwrap();
    if bytes.is_some() {
        robot.sent(now_ns, context);
    }
    bytes
}

#[test]
fn a_priority_event_in_set_is_sent_once_and_a_stale_one_is_dropped() {
    let mut game = SimulatedGame::new(State::Set);
    game.broadcast(0);
    let mut robot = sender(3);
    let mut request = TeamMessageRequest::default();
    let game_state = game.game_state(3);
    let gc = &game.state;
    assert_eq!(step(&mut robot, 0, &game_state, gc, &request), None);
    request.priority_events = 1;
    let bytes = step(&mut robot, 10 * MS, &game_state, gc, &request).unwrap();
    let message = TeamMessage::decode(&bytes).unwrap();
    assert!(message.fallen);
    assert_eq!(
        message
            .game_controller_reference
            .unwrap()
            .milliseconds_since,
        10
    );
    assert_eq!(
        step(&mut robot, 2000 * MS, &game_state, gc, &request),
        None,
        "answered"
    );
    // In INITIAL nobody needs it: dropped, not sent later in SET.
    let initial = GameState {
        state: PlayState::Initial,
        ..game_state.clone()
    };
    request.priority_events = 2;
    assert_eq!(step(&mut robot, 3000 * MS, &initial, gc, &request), None);
    assert_eq!(step(&mut robot, 4000 * MS, &game_state, gc, &request), None);
}

#[test]
fn after_a_cognition_restart_its_first_whistle_is_still_a_priority_message() {
    let mut game = SimulatedGame::new(State::Set);
    game.broadcast(0);
    let mut robot = sender(3);
    let game_state = game.game_state(3);
    let gc = &game.state;
    // The old cognition counted three whistles, each answered.
    let mut request = TeamMessageRequest {
        priority_events: 3,
        ..TeamMessageRequest::default()
    };
    assert!(step(&mut robot, 0, &game_state, gc, &request).is_some());
    assert_eq!(step(&mut robot, 2000 * MS, &game_state, gc, &request), None);
    // Cognition restarts and counts from 0: nothing new yet, so nothing in SET.
    request.priority_events = 0;
    assert_eq!(step(&mut robot, 4000 * MS, &game_state, gc, &request), None);
    // Its first whistle (1, below the 3 answered before) goes out as a priority message.
    request.priority_events = 1;
    let bytes = step(&mut robot, 6000 * MS, &game_state, gc, &request);
    assert!(bytes.is_some(), "{:?}", robot.last_decision());
    assert_eq!(step(&mut robot, 8000 * MS, &game_state, gc, &request), None);
}

#[test]
fn a_cognition_restart_seen_only_after_its_whistle_still_sends_it() {
    let mut game = SimulatedGame::new(State::Set);
    game.broadcast(0);
    let mut robot = sender(3);
    let game_state = game.game_state(3);
    let gc = &game.state;
    let mut request = TeamMessageRequest {
        priority_events: 4,
        ..TeamMessageRequest::default()
    };
    assert!(step(&mut robot, 0, &game_state, gc, &request).is_some());
    // The new cognition's first request the sender sees already counts a whistle.
    request.priority_events = 2;
    assert!(step(&mut robot, 2000 * MS, &game_state, gc, &request).is_some());
    assert_eq!(step(&mut robot, 4000 * MS, &game_state, gc, &request), None);
}

#[test]
fn without_a_game_controller_the_robots_pace_as_at_kick_off() {
    let mut robot = sender(2);
    let game_state = GameState {
        state: PlayState::Playing,
        source: GameStateSource::Manual,
        ..GameState::default()
    };
    let nothing_heard = GameControllerState::default();
    let request = TeamMessageRequest::default();
    let context = SendContext {
        game_state: &game_state,
        game_controller: &nothing_heard,
        request: &request,
        fallen: false,
    };
    let mut sent = 0;
    for tick in 0..60_000 / TICK_MS {
        if robot.poll(tick * TICK_MS * MS, context).unwrap().is_some() {
            robot.sent(tick * TICK_MS * MS, context);
            sent += 1;
        }
    }
    // 1170 spendable over 20 min for 5 robots: one message every 5.1 s, 12 a minute.
    assert!((10..=13).contains(&sent), "{sent} messages in a minute");
    let penalised = GameState {
        penalty: Some(Penalty::Manual),
        ..game_state.clone()
    };
    let context = SendContext {
        game_state: &penalised,
        ..context
    };
    assert_eq!(robot.poll(3_600_000 * MS, context).unwrap(), None);
}

#[test]
fn a_pose_that_is_not_a_number_is_an_error_not_a_message() {
    let mut robot = sender(2);
    let game_state = GameState {
        state: PlayState::Playing,
        ..GameState::default()
    };
    let request = TeamMessageRequest {
        pose: Some(FieldPose {
            x_mm: f32::NAN,
            ..FieldPose::default()
        }),
        ..TeamMessageRequest::default()
    };
    let nothing_heard = GameControllerState::default();
    let context = SendContext {
        game_state: &game_state,
        game_controller: &nothing_heard,
        request: &request,
        fallen: false,
    };
    assert!(robot.poll(0, context).is_err());
}
