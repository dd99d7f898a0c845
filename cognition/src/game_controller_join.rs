//! The GameController's part of [`GameState`]: while its packets arrive, it decides.
//!
//! ```text
//!  GameControllerState (network process) ── heard within game_controller_timeout_ms? ──┐
//!        yes: every field from the packet (source GameController) ◀───────────────────┤
//!        no:  the chest-button machine, resumed from the GameController's last word ◀──┘
//!  then, either way: a whistle in SET → PLAYING (KickOffWhistle)
//! ```
//!
//! The packet names the teams by number; "ours" is the team of `settings.toml`. Our colour is
//! the goalkeeper's colour if the packet names us goalkeeper, else the field players'.
//! `kickingTeam` 255 (nobody, or hidden) is `own_team_is_kicking: None`.

use crate::game_state_provider::PlayerNumbers;
use crate::manual_game_state::ManualGameState;
use types::{GameControllerPacket, GameState, GameStateSource, Penalty, PlayState};

/// The game state a packet announces for us, or `None` if our team does not play in it.
pub fn game_state_from_packet(
    packet: &GameControllerPacket,
    players: PlayerNumbers,
) -> Option<GameState> {
    let team = packet.team(players.team_number)?;
    let opponent = packet.opponent(players.team_number)?;
    let player = team
        .player(players.player_number)
        .copied()
        .unwrap_or_default();
    let is_goalkeeper = team.goalkeeper == Some(players.player_number);
    Some(GameState {
        state: packet.state,
        phase: packet.phase,
        set_play: packet.set_play,
        penalty: player.penalty,
        seconds_until_unpenalised: if player.penalty.is_some() {
            player.seconds_until_unpenalised
        } else {
            0
        },
        team_number: players.team_number,
        player_number: players.player_number,
        opponent_team_number: opponent.team_number,
        own_colour: if is_goalkeeper {
            team.goalkeeper_colour
        } else {
            team.field_player_colour
        },
        own_score: team.score,
        opponent_score: opponent.score,
        first_half: packet.first_half,
        own_team_is_kicking: packet
            .kicking_team
            .map(|kicking| kicking == players.team_number),
        seconds_remaining: packet.seconds_remaining,
        secondary_seconds_remaining: packet.secondary_seconds,
        is_goalkeeper,
        message_budget: team.message_budget,
        source: GameStateSource::GameController,
    })
}

impl ManualGameState {
    /// Where the chest-button machine goes on when the GameController falls silent: a robot
    /// that was playing plays on (penalised if it was), a finished game stays finished, and
    /// every other state waits in Initial for a chest press.
    pub fn resume_from(game_state: &GameState) -> Self {
        match (game_state.state, game_state.penalty) {
            (_, Some(Penalty::Substitute)) => ManualGameState::Initial,
            (PlayState::Playing, Some(_)) => ManualGameState::Penalized,
            (PlayState::Playing, None) => ManualGameState::Playing,
            (PlayState::Finished, _) => ManualGameState::Finished,
            (PlayState::Initial | PlayState::Ready | PlayState::Set | PlayState::Standby, _) => {
                ManualGameState::Initial
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use types::{GamePhase, SetPlay, TeamColour};

    const US: PlayerNumbers = PlayerNumbers {
        team_number: 5,
        player_number: 3,
    };

    fn packet(first: u8, second: u8) -> GameControllerPacket {
        let mut packet = GameControllerPacket {
            state: PlayState::Ready,
            phase: GamePhase::Normal,
            set_play: SetPlay::None,
            first_half: true,
            kicking_team: Some(first),
            seconds_remaining: 512,
            secondary_seconds: 37,
            ..GameControllerPacket::default()
        };
        for (index, number) in [first, second].into_iter().enumerate() {
            let team = &mut packet.teams[index];
            team.team_number = number;
            team.field_player_colour = [TeamColour::Blue, TeamColour::Red][index];
            team.goalkeeper_colour = [TeamColour::Yellow, TeamColour::Black][index];
            team.goalkeeper = Some(1);
            team.score = [2, 4][index];
            team.message_budget = [1100, 800][index];
        }
        packet
    }

    #[test]
    fn every_field_comes_from_our_team_in_either_team_order() {
        for (first, second, own_index) in [(5, 12, 0), (12, 5, 1)] {
            let packet = packet(first, second);
            let state = game_state_from_packet(&packet, US).unwrap();
            let other = 1 - own_index;
            assert_eq!(state.state, PlayState::Ready);
            assert_eq!(state.source, GameStateSource::GameController);
            assert_eq!(state.opponent_team_number, 12);
            assert_eq!(state.own_score, [2, 4][own_index]);
            assert_eq!(state.opponent_score, [2, 4][other]);
            assert_eq!(state.message_budget, [1100, 800][own_index]);
            assert_eq!(
                state.own_colour,
                [TeamColour::Blue, TeamColour::Red][own_index]
            );
            assert_eq!(state.own_team_is_kicking, Some(first == 5));
            assert_eq!(state.seconds_remaining, 512);
            assert_eq!(state.secondary_seconds_remaining, 37);
            assert!(state.first_half);
            assert!(!state.is_goalkeeper);
            assert_eq!((state.team_number, state.player_number), (5, 3));
            assert_eq!(state.penalty, None);
        }
    }

    #[test]
    fn nobody_kicking_a_penalty_the_goalkeeper_and_another_game() {
        let mut packet = packet(12, 5);
        packet.kicking_team = None;
        packet.teams[1].players[2].penalty = Some(Penalty::PlayerPushing);
        packet.teams[1].players[2].seconds_until_unpenalised = 30;
        packet.teams[1].goalkeeper = Some(3);
        packet.phase = GamePhase::Timeout;
        packet.state = PlayState::Initial;
        let state = game_state_from_packet(&packet, US).unwrap();
        assert_eq!(state.own_team_is_kicking, None);
        assert_eq!(state.penalty, Some(Penalty::PlayerPushing));
        assert_eq!(state.seconds_until_unpenalised, 30);
        assert!(state.is_goalkeeper);
        assert_eq!(
            state.own_colour,
            TeamColour::Black,
            "the goalkeeper's colour"
        );
        assert_eq!(
            (state.state, state.phase),
            (PlayState::Initial, GamePhase::Timeout)
        );
        assert!(game_state_from_packet(
            &packet,
            PlayerNumbers {
                team_number: 7,
                player_number: 3
            }
        )
        .is_none());
    }

    #[test]
    fn the_buttons_resume_from_the_game_controllers_last_word() {
        let state = |state, penalty| GameState {
            state,
            penalty,
            ..GameState::default()
        };
        let cases = [
            (PlayState::Playing, None, ManualGameState::Playing),
            (
                PlayState::Playing,
                Some(Penalty::PlayerPushing),
                ManualGameState::Penalized,
            ),
            (
                PlayState::Playing,
                Some(Penalty::Substitute),
                ManualGameState::Initial,
            ),
            (PlayState::Finished, None, ManualGameState::Finished),
            (PlayState::Set, None, ManualGameState::Initial),
            (PlayState::Ready, None, ManualGameState::Initial),
            (PlayState::Standby, None, ManualGameState::Initial),
        ];
        for (play_state, penalty, expected) in cases {
            assert_eq!(
                ManualGameState::resume_from(&state(play_state, penalty)),
                expected,
                "{play_state:?} {penalty:?}"
            );
        }
    }
}
