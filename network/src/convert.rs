//! Between the wire crate's vocabulary (`spl_network`) and the representations' (`types`).

use spl_network as wire;
use types::{
    FieldPose, GameControllerCounters, GameControllerPacket, GameControllerPlayer,
    GameControllerTeam, GamePhase, Penalty, PlayState, SeenBall, SetPlay, TeamColour,
    TeamIntention, TeamMateMessage, TeamMessageCounters, TeamRole,
};

/// A decoded v18 packet as the representation holds it.
pub fn game_controller_packet(message: &wire::GameControllerMessage) -> GameControllerPacket {
    GameControllerPacket {
        packet_number: message.packet_number,
        players_per_team: message.players_per_team,
        state: play_state(message.state),
        phase: game_phase(message.game_phase),
        set_play: set_play(message.set_play),
        first_half: message.first_half,
        kicking_team: message.kicking_team,
        seconds_remaining: message.seconds_remaining,
        secondary_seconds: message.secondary_seconds,
        teams: [team(&message.teams[0]), team(&message.teams[1])],
    }
}

fn team(team: &wire::TeamInfo) -> GameControllerTeam {
    GameControllerTeam {
        team_number: team.team_number,
        field_player_colour: colour(team.field_player_colour),
        goalkeeper_colour: colour(team.goalkeeper_colour),
        goalkeeper: team.goalkeeper,
        score: team.score,
        message_budget: team.message_budget,
        players: team.players.map(|player| GameControllerPlayer {
            penalty: penalty(player.penalty),
            seconds_until_unpenalised: player.seconds_till_unpenalised,
        }),
    }
}

pub fn play_state(state: wire::State) -> PlayState {
    match state {
        wire::State::Initial => PlayState::Initial,
        wire::State::Ready => PlayState::Ready,
        wire::State::Set => PlayState::Set,
        wire::State::Playing => PlayState::Playing,
        wire::State::Finished => PlayState::Finished,
        wire::State::Standby => PlayState::Standby,
    }
}

/// The wire's state of a representation's (for the pacer).
pub fn wire_state(state: PlayState) -> wire::State {
    match state {
        PlayState::Initial => wire::State::Initial,
        PlayState::Ready => wire::State::Ready,
        PlayState::Set => wire::State::Set,
        PlayState::Playing => wire::State::Playing,
        PlayState::Finished => wire::State::Finished,
        PlayState::Standby => wire::State::Standby,
    }
}

fn game_phase(phase: wire::GamePhase) -> GamePhase {
    match phase {
        wire::GamePhase::Normal => GamePhase::Normal,
        wire::GamePhase::PenaltyShootout => GamePhase::PenaltyShootout,
        wire::GamePhase::Overtime => GamePhase::Overtime,
        wire::GamePhase::Timeout => GamePhase::Timeout,
    }
}

/// The wire's phase of a representation's (for the pacer).
pub fn wire_game_phase(phase: GamePhase) -> wire::GamePhase {
    match phase {
        GamePhase::Normal => wire::GamePhase::Normal,
        GamePhase::PenaltyShootout => wire::GamePhase::PenaltyShootout,
        GamePhase::Overtime => wire::GamePhase::Overtime,
        GamePhase::Timeout => wire::GamePhase::Timeout,
    }
}

fn set_play(set_play: wire::SetPlay) -> SetPlay {
    match set_play {
        wire::SetPlay::None => SetPlay::None,
        wire::SetPlay::GoalKick => SetPlay::GoalKick,
        wire::SetPlay::PushingFreeKick => SetPlay::PushingFreeKick,
        wire::SetPlay::CornerKick => SetPlay::CornerKick,
        wire::SetPlay::KickIn => SetPlay::KickIn,
        wire::SetPlay::PenaltyKick => SetPlay::PenaltyKick,
    }
}

fn colour(colour: wire::TeamColour) -> TeamColour {
    match colour {
        wire::TeamColour::Blue => TeamColour::Blue,
        wire::TeamColour::Red => TeamColour::Red,
        wire::TeamColour::Yellow => TeamColour::Yellow,
        wire::TeamColour::Black => TeamColour::Black,
        wire::TeamColour::White => TeamColour::White,
        wire::TeamColour::Green => TeamColour::Green,
        wire::TeamColour::Orange => TeamColour::Orange,
        wire::TeamColour::Purple => TeamColour::Purple,
        wire::TeamColour::Brown => TeamColour::Brown,
        wire::TeamColour::Gray => TeamColour::Gray,
    }
}

fn penalty(penalty: wire::Penalty) -> Option<Penalty> {
    Some(match penalty {
        wire::Penalty::None => return None,
        wire::Penalty::IllegalBallContact => Penalty::IllegalBallContact,
        wire::Penalty::PlayerPushing => Penalty::PlayerPushing,
        wire::Penalty::IllegalMotionInSet => Penalty::IllegalMotionInSet,
        wire::Penalty::InactivePlayer => Penalty::InactivePlayer,
        wire::Penalty::IllegalPosition => Penalty::IllegalPosition,
        wire::Penalty::LeavingTheField => Penalty::LeavingTheField,
        wire::Penalty::RequestForPickup => Penalty::RequestForPickup,
        wire::Penalty::LocalGameStuck => Penalty::LocalGameStuck,
        wire::Penalty::IllegalPositionInSet => Penalty::IllegalPositionInSet,
        wire::Penalty::PlayerStance => Penalty::PlayerStance,
        wire::Penalty::IllegalMotionInStandby => Penalty::IllegalMotionInStandby,
        wire::Penalty::Substitute => Penalty::Substitute,
        wire::Penalty::Manual => Penalty::Manual,
    })
}

pub fn game_controller_counters(
    counters: &wire::inbox::GameControllerCounters,
) -> GameControllerCounters {
    GameControllerCounters {
        accepted: counters.accepted,
        wrong_header: counters.wrong_header,
        wrong_version: counters.wrong_version,
        wrong_length: counters.wrong_length,
        invalid_field: counters.invalid_field,
        other_game: counters.other_game,
    }
}

pub fn team_message_counters(counters: &wire::inbox::TeamMessageCounters) -> TeamMessageCounters {
    TeamMessageCounters {
        accepted: counters.accepted,
        foreign: counters.foreign,
        other_version: counters.other_version,
        malformed: counters.malformed,
        other_team: counters.other_team,
        own: counters.own,
    }
}

/// A received team message as the representation holds it.
pub fn team_mate_message(message: &wire::TeamMessage) -> TeamMateMessage {
    TeamMateMessage {
        player_number: message.player_number,
        fallen: message.fallen,
        role: role(message.role),
        intention: intention(message.intention),
        pass_target: message.pass_target,
        timestamp_ms: message.timestamp_ms,
        game_controller_packet_number: message
            .game_controller_reference
            .map(|reference| reference.packet_number),
        pose: FieldPose {
            x_mm: message.pose.x_mm,
            y_mm: message.pose.y_mm,
            angle_rad: message.pose.angle_rad,
        },
        ball: message.ball.map(|ball| SeenBall {
            position_mm: ball.position_mm,
            age_ms: ball.age_ms,
        }),
        walk_target_mm: message.walk_target_mm,
    }
}

fn role(role: wire::Role) -> TeamRole {
    match role {
        wire::Role::None => TeamRole::None,
        wire::Role::Goalkeeper => TeamRole::Goalkeeper,
        wire::Role::Striker => TeamRole::Striker,
        wire::Role::Supporter => TeamRole::Supporter,
        wire::Role::Defender => TeamRole::Defender,
        wire::Role::Searcher => TeamRole::Searcher,
    }
}

pub fn wire_role(role: TeamRole) -> wire::Role {
    match role {
        TeamRole::None => wire::Role::None,
        TeamRole::Goalkeeper => wire::Role::Goalkeeper,
        TeamRole::Striker => wire::Role::Striker,
        TeamRole::Supporter => wire::Role::Supporter,
        TeamRole::Defender => wire::Role::Defender,
        TeamRole::Searcher => wire::Role::Searcher,
    }
}

fn intention(intention: wire::Intention) -> TeamIntention {
    match intention {
        wire::Intention::None => TeamIntention::None,
        wire::Intention::PlayBall => TeamIntention::PlayBall,
        wire::Intention::Pass => TeamIntention::Pass,
        wire::Intention::WalkToPosition => TeamIntention::WalkToPosition,
        wire::Intention::SearchBall => TeamIntention::SearchBall,
        wire::Intention::KeepGoal => TeamIntention::KeepGoal,
    }
}

pub fn wire_intention(intention: TeamIntention) -> wire::Intention {
    match intention {
        TeamIntention::None => wire::Intention::None,
        TeamIntention::PlayBall => wire::Intention::PlayBall,
        TeamIntention::Pass => wire::Intention::Pass,
        TeamIntention::WalkToPosition => wire::Intention::WalkToPosition,
        TeamIntention::SearchBall => wire::Intention::SearchBall,
        TeamIntention::KeepGoal => wire::Intention::KeepGoal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wire::fake_game_controller::GameSetup;

    #[test]
    fn a_packet_keeps_every_field_the_robot_uses() {
        let mut game = GameSetup::new(5, 12);
        game.state = wire::State::Set;
        game.kicking_team = None;
        game.scores = [2, 1];
        game.message_budgets = [1100, 900];
        game.penalties = vec![(12, 3, wire::Penalty::PlayerPushing)];
        game.game_phase = wire::GamePhase::Overtime;
        game.set_play = wire::SetPlay::CornerKick;
        let packet = game_controller_packet(&game.message(7));
        assert_eq!(packet.packet_number, 7);
        assert_eq!(packet.state, PlayState::Set);
        assert_eq!(packet.phase, GamePhase::Overtime);
        assert_eq!(packet.set_play, SetPlay::CornerKick);
        assert_eq!(packet.kicking_team, None);
        let (ours, theirs) = (packet.team(5).unwrap(), packet.team(12).unwrap());
        assert_eq!((ours.score, theirs.score), (2, 1));
        assert_eq!((ours.message_budget, theirs.message_budget), (1100, 900));
        assert_eq!(
            theirs.player(3).unwrap().penalty,
            Some(Penalty::PlayerPushing)
        );
        assert_eq!(theirs.player(3).unwrap().seconds_until_unpenalised, 45);
        assert_eq!(ours.player(6).unwrap().penalty, Some(Penalty::Substitute));
        assert_eq!(ours.player(2).unwrap().penalty, None);
        assert_eq!(theirs.field_player_colour, TeamColour::Red);
    }

    #[test]
    fn every_enumeration_maps_both_ways() {
        for state in [
            PlayState::Initial,
            PlayState::Ready,
            PlayState::Set,
            PlayState::Playing,
            PlayState::Finished,
            PlayState::Standby,
        ] {
            assert_eq!(play_state(wire_state(state)), state);
        }
        for phase in [
            GamePhase::Normal,
            GamePhase::PenaltyShootout,
            GamePhase::Overtime,
            GamePhase::Timeout,
        ] {
            assert_eq!(game_phase(wire_game_phase(phase)), phase);
        }
        for role_value in [
            TeamRole::None,
            TeamRole::Goalkeeper,
            TeamRole::Striker,
            TeamRole::Supporter,
            TeamRole::Defender,
            TeamRole::Searcher,
        ] {
            assert_eq!(role(wire_role(role_value)), role_value);
        }
        for value in [
            TeamIntention::None,
            TeamIntention::PlayBall,
            TeamIntention::Pass,
            TeamIntention::WalkToPosition,
            TeamIntention::SearchBall,
            TeamIntention::KeepGoal,
        ] {
            assert_eq!(intention(wire_intention(value)), value);
        }
    }
}
