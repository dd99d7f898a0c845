//! The state of the game as the GameController and the robot's own buttons and whistle
//! detection establish it: [`GameState`].
//!
//! Names follow `RoboCupGameControlData` version 18 (protocols.md §2).

use serde::{Deserialize, Serialize};

/// The SPL game state (`state` in the GameController packet).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PlayState {
    #[default]
    Initial,
    Ready,
    Set,
    Playing,
    Finished,
    Standby,
}

/// The phase of the game (`gamePhase`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GamePhase {
    #[default]
    Normal,
    PenaltyShootout,
    Overtime,
    Timeout,
}

/// The set play in progress (`setPlay`). A kick-off is `None`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SetPlay {
    #[default]
    None,
    GoalKick,
    PushingFreeKick,
    CornerKick,
    KickIn,
    PenaltyKick,
}

/// Why a robot is penalised (`penalty` in `RobotInfo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Penalty {
    IllegalBallContact,
    PlayerPushing,
    IllegalMotionInSet,
    InactivePlayer,
    IllegalPosition,
    LeavingTheField,
    RequestForPickup,
    LocalGameStuck,
    IllegalPositionInSet,
    PlayerStance,
    IllegalMotionInStandby,
    Substitute,
    Manual,
}

/// Team colours of the GameController.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TeamColour {
    #[default]
    Blue,
    Red,
    Yellow,
    Black,
    White,
    Green,
    Orange,
    Purple,
    Brown,
    Gray,
}

/// Where the game state came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameStateSource {
    /// No GameController heard: the chest button and whistle drive the state.
    #[default]
    Manual,
    GameController,
}

/// The game as this robot understands it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GameState {
    pub state: PlayState,
    pub phase: GamePhase,
    pub set_play: SetPlay,
    /// This robot's penalty, `None` when it may play.
    pub penalty: Option<Penalty>,
    /// Seconds until the penalty ends (0 if not penalised or unknown).
    pub seconds_until_unpenalised: u8,
    pub team_number: u8,
    /// Player number, 1..=20.
    pub player_number: u8,
    pub opponent_team_number: u8,
    pub own_colour: TeamColour,
    pub own_score: u8,
    pub opponent_score: u8,
    pub first_half: bool,
    /// Whether this team kicks off or takes the current set play; `None` when nobody or hidden.
    pub own_team_is_kicking: Option<bool>,
    /// Seconds left in the half.
    pub seconds_remaining: i16,
    /// Seconds left of the secondary time (ready, set play, timeout…).
    pub secondary_seconds_remaining: i16,
    /// Whether this robot is the goalkeeper.
    pub is_goalkeeper: bool,
    /// Team messages left in the team's budget.
    pub message_budget: u16,
    pub source: GameStateSource,
}

impl GameState {
    /// Whether the robot is penalised.
    pub fn is_penalized(&self) -> bool {
        self.penalty.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_initial_and_unpenalized() {
        let state = GameState::default();
        assert_eq!(state.state, PlayState::Initial);
        assert!(!state.is_penalized());
    }

    #[test]
    fn game_state_round_trips() {
        let state = GameState {
            state: PlayState::Playing,
            phase: GamePhase::Overtime,
            set_play: SetPlay::CornerKick,
            penalty: Some(Penalty::RequestForPickup),
            seconds_until_unpenalised: 30,
            team_number: 5,
            player_number: 3,
            opponent_team_number: 12,
            own_colour: TeamColour::Purple,
            own_score: 2,
            opponent_score: 1,
            first_half: true,
            own_team_is_kicking: Some(false),
            seconds_remaining: 300,
            secondary_seconds_remaining: -1,
            is_goalkeeper: false,
            message_budget: 1100,
            source: GameStateSource::GameController,
        };
        assert!(state.is_penalized());
        let bytes = rmp_serde::to_vec_named(&state).unwrap();
        assert_eq!(rmp_serde::from_slice::<GameState>(&bytes).unwrap(), state);
    }
}
