//! [`GameStateProvider::join`]: GameController, buttons and whistle together, tick by tick.

use super::*;
use types::{GameControllerPacket, GamePhase, SetPlay};

const TICK_MS: u64 = 16;

fn provider() -> GameStateProvider {
    GameStateProvider::new(GameStateProviderParameters {
        debounce_ms: 50,
        long_press_ms: 1000,
        game_controller_timeout_ms: 4000,
        whistle_confirmation_ms: 20_000,
        players: PlayerNumbers {
            team_number: 5,
            player_number: 2,
        },
    })
}

/// A GameController packet for teams 12 and 5 in `state`, received at `received_ms`.
fn heard(state: PlayState, received_ms: u64) -> GameControllerState {
    let mut packet = GameControllerPacket {
        state,
        kicking_team: Some(12),
        seconds_remaining: 600,
        ..GameControllerPacket::default()
    };
    packet.teams[0].team_number = 12;
    packet.teams[1].team_number = 5;
    packet.teams[1].message_budget = 1150;
    GameControllerState {
        packet: Some(packet),
        received_ns: Some(received_ms * MS),
        sender: Some("10.0.0.1:3838".into()),
        ..GameControllerState::default()
    }
}

/// The robot in a game: ticks the provider like cognition does.
struct Robot {
    provider: GameStateProvider,
    now_ms: u64,
    sensors: SensorData,
    whistle: WhistleState,
    game_controller: GameControllerState,
    game_state: GameState,
}

impl Robot {
    fn new() -> Self {
        Self {
            provider: provider(),
            now_ms: 0,
            sensors: SensorData::default(),
            whistle: WhistleState::default(),
            game_controller: GameControllerState::default(),
            game_state: GameState::default(),
        }
    }

    /// Ticks for `ms`; the GameController (if `sending`) repeats `state` every 500 ms.
    fn run(&mut self, ms: u64, sending: Option<PlayState>) -> &GameState {
        let end = self.now_ms + ms;
        while self.now_ms < end {
            if let Some(state) = sending {
                if self.now_ms % 500 < TICK_MS {
                    let penalty = self.penalty();
                    self.game_controller = heard(state, self.now_ms);
                    self.set_penalty(penalty);
                }
            }
            self.provider.join(
                &self.sensors,
                &self.whistle,
                &self.game_controller,
                self.now_ms * MS,
                &mut self.game_state,
            );
            self.now_ms += TICK_MS;
        }
        &self.game_state
    }

    fn penalty(&self) -> Option<Penalty> {
        self.game_controller.packet.as_ref()?.teams[1].players[1].penalty
    }

    fn set_penalty(&mut self, penalty: Option<Penalty>) {
        if let Some(packet) = self.game_controller.packet.as_mut() {
            packet.teams[1].players[1].penalty = penalty;
            packet.teams[1].players[1].seconds_until_unpenalised =
                if penalty.is_some() { 30 } else { 0 };
        }
    }

    fn press_chest(&mut self, sending: Option<PlayState>) {
        self.sensors.touch.chest_button = true;
        self.run(200, sending);
        self.sensors.touch.chest_button = false;
        self.run(200, sending);
    }

    fn whistle_now(&mut self) {
        self.whistle.whistle_count += 1;
        self.whistle.last_whistle_ns = Some(self.now_ms * MS);
    }
}

#[test]
fn the_game_controller_drives_every_state_and_a_penalty() {
    let mut robot = Robot::new();
    let state = robot.run(1000, Some(PlayState::Initial));
    assert_eq!(
        (state.state, state.source),
        (PlayState::Initial, GameStateSource::GameController)
    );
    assert_eq!((state.team_number, state.player_number), (5, 2));
    assert_eq!(state.opponent_team_number, 12);
    assert_eq!(state.own_team_is_kicking, Some(false));
    assert_eq!(state.message_budget, 1150);
    for expected in [
        PlayState::Ready,
        PlayState::Set,
        PlayState::Playing,
        PlayState::Finished,
        PlayState::Standby,
        PlayState::Initial,
    ] {
        assert_eq!(robot.run(600, Some(expected)).state, expected);
    }
    robot.run(600, Some(PlayState::Playing));
    robot.set_penalty(Some(Penalty::PlayerPushing));
    let state = robot.run(600, Some(PlayState::Playing));
    assert_eq!(state.penalty, Some(Penalty::PlayerPushing));
    assert_eq!(state.seconds_until_unpenalised, 30);
    robot.set_penalty(None);
    let state = robot.run(600, Some(PlayState::Playing));
    assert_eq!((state.state, state.penalty), (PlayState::Playing, None));
    assert_eq!(state.seconds_until_unpenalised, 0);
}

#[test]
fn set_play_phase_and_nobody_kicking_come_through() {
    let mut robot = Robot::new();
    robot.game_controller = heard(PlayState::Playing, 0);
    let packet = robot.game_controller.packet.as_mut().unwrap();
    packet.set_play = SetPlay::KickIn;
    packet.phase = GamePhase::Overtime;
    packet.kicking_team = None;
    let state = robot.run(TICK_MS, None);
    assert_eq!(state.set_play, SetPlay::KickIn);
    assert_eq!(state.phase, GamePhase::Overtime);
    assert_eq!(state.own_team_is_kicking, None);
}

#[test]
fn buttons_change_nothing_while_the_game_controller_is_heard() {
    let mut robot = Robot::new();
    robot.run(1000, Some(PlayState::Initial));
    robot.press_chest(Some(PlayState::Initial));
    assert_eq!(robot.game_state.state, PlayState::Initial);
    assert_eq!(robot.game_state.source, GameStateSource::GameController);
}

#[test]
fn a_silent_game_controller_hands_over_to_the_buttons_from_its_last_state() {
    let mut robot = Robot::new();
    robot.run(1000, Some(PlayState::Playing));
    // Still within the timeout (4 s): the GameController's Playing stands.
    let state = robot.run(3000, None);
    assert_eq!(state.source, GameStateSource::GameController);
    let state = robot.run(1500, None);
    assert_eq!(
        (state.state, state.source),
        (PlayState::Playing, GameStateSource::Manual)
    );
    assert_eq!(
        state.opponent_team_number, 0,
        "no stale GameController fields"
    );
    assert_eq!((state.team_number, state.player_number), (5, 2));
    // Now the chest button works: Playing → Penalized.
    robot.press_chest(None);
    assert_eq!(robot.game_state.penalty, Some(Penalty::Manual));
    // The GameController returns and decides again.
    let state = robot.run(600, Some(PlayState::Ready));
    assert_eq!(
        (state.state, state.penalty, state.source),
        (PlayState::Ready, None, GameStateSource::GameController)
    );
    // Silent in Ready: the buttons start from Initial.
    let state = robot.run(5000, None);
    assert_eq!(
        (state.state, state.source),
        (PlayState::Initial, GameStateSource::Manual)
    );
}

#[test]
fn a_whistle_in_the_game_controllers_set_plays_through_its_stale_set() {
    let mut robot = Robot::new();
    robot.run(1000, Some(PlayState::Set));
    robot.whistle_now();
    let state = robot.run(TICK_MS, Some(PlayState::Set));
    assert_eq!(state.state, PlayState::Playing, "at once");
    // The GameController says Set for another 15 s.
    let state = robot.run(15_000, Some(PlayState::Set));
    assert_eq!(state.state, PlayState::Playing);
    assert_eq!(state.source, GameStateSource::GameController);
    // Then Playing: still Playing; a later Set (after a goal, Ready, Set) waits for a new
    // whistle.
    assert_eq!(
        robot.run(600, Some(PlayState::Playing)).state,
        PlayState::Playing
    );
    assert_eq!(
        robot.run(600, Some(PlayState::Ready)).state,
        PlayState::Ready
    );
    assert_eq!(robot.run(600, Some(PlayState::Set)).state, PlayState::Set);
}

#[test]
fn an_unconfirmed_whistle_is_taken_back() {
    let mut robot = Robot::new();
    robot.run(1000, Some(PlayState::Set));
    robot.whistle_now();
    assert_eq!(
        robot.run(19_000, Some(PlayState::Set)).state,
        PlayState::Playing
    );
    assert_eq!(robot.run(2000, Some(PlayState::Set)).state, PlayState::Set);
}

#[test]
fn a_packet_of_another_game_is_not_the_game_controller() {
    let mut robot = Robot::new();
    robot.game_controller = heard(PlayState::Playing, 0);
    robot.game_controller.packet.as_mut().unwrap().teams[1].team_number = 7;
    let state = robot.run(TICK_MS, None);
    assert_eq!(
        (state.state, state.source),
        (PlayState::Initial, GameStateSource::Manual)
    );
}
