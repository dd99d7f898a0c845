//! What the `network` process hears and what cognition gives it to say:
//! [`GameControllerState`] (the GameController's newest packet), [`TeamMates`] (the team mates'
//! newest messages) and [`TeamMessageRequest`] (what this robot tells its team mates).
//!
//! ```text
//!  GameController ──UDP 3838──▶ network: GameControllerInterface ──GameControllerState──▶ cognition
//!  team mates ──UDP 10000+team──▶ network: TeamCommunication ──TeamMates──▶ cognition (behaviour)
//!  cognition ──TeamMessageRequest, GameState──▶ network: TeamCommunication ──▶ team mates
//! ```
//!
//! The GameController's fields are translated into this crate's game vocabulary
//! ([`PlayState`], [`Penalty`] …) so that readers need not know the wire crate. Times are
//! monotonic nanoseconds (`CLOCK_MONOTONIC`, shared by every process of a robot).

use crate::game::{GamePhase, Penalty, PlayState, SetPlay, TeamColour};
use serde::{Deserialize, Serialize};

/// Players per team in a GameController packet (`MAX_NUM_PLAYERS`).
pub const GAME_CONTROLLER_PLAYERS: usize = 20;

/// What the GameController last said, and how its packets have been received.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GameControllerState {
    /// The newest valid packet of a game our team plays in; `None` until one arrives.
    pub packet: Option<GameControllerPacket>,
    /// When `packet` was received, monotonic ns.
    pub received_ns: Option<u64>,
    /// Who sent it (`ip:port`); return packets go to this IP.
    pub sender: Option<String>,
    /// Datagrams on the GameController port, by outcome.
    pub counters: GameControllerCounters,
    /// The newest rejected datagram's reason (`header at byte 0: …`).
    pub last_error: Option<String>,
    /// Return packets sent since the process started.
    pub return_packets_sent: u64,
    /// Why the socket is not listening (bind failed, …); `None` while it listens.
    pub socket_error: Option<String>,
}

impl GameControllerState {
    /// Whether a packet arrived within `timeout_ns` before `now_ns`.
    pub fn heard_within(&self, now_ns: u64, timeout_ns: u64) -> Option<&GameControllerPacket> {
        let received_ns = self.received_ns?;
        (now_ns.saturating_sub(received_ns) <= timeout_ns)
            .then_some(self.packet.as_ref())
            .flatten()
    }
}

/// Datagrams on the GameController port, by outcome.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GameControllerCounters {
    pub accepted: u64,
    pub wrong_header: u64,
    pub wrong_version: u64,
    pub wrong_length: u64,
    /// A field outside its range (an unknown state, a kicking team that does not play…).
    pub invalid_field: u64,
    /// Well-formed, but our team plays in neither team.
    pub other_game: u64,
}

impl GameControllerCounters {
    /// Every datagram that was not accepted.
    pub fn rejected(&self) -> u64 {
        self.wrong_header
            + self.wrong_version
            + self.wrong_length
            + self.invalid_field
            + self.other_game
    }
}

/// The fields of `RoboCupGameControlData` v18 that the robot uses.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GameControllerPacket {
    /// Incremented by the GameController with each packet, wrapping.
    pub packet_number: u8,
    pub players_per_team: u8,
    pub state: PlayState,
    pub phase: GamePhase,
    pub set_play: SetPlay,
    pub first_half: bool,
    /// The team number of the team that kicks off or takes the set play; `None` (255 on the
    /// wire) when nobody does or it is hidden.
    pub kicking_team: Option<u8>,
    /// Seconds left in the half (may be negative).
    pub seconds_remaining: i16,
    /// The secondary timer, seconds.
    pub secondary_seconds: i16,
    /// `teams[0]` defends the left goal as the operator sees the field.
    pub teams: [GameControllerTeam; 2],
}

impl GameControllerPacket {
    /// The team with this number, if it plays.
    pub fn team(&self, team_number: u8) -> Option<&GameControllerTeam> {
        self.teams
            .iter()
            .find(|team| team.team_number == team_number)
    }

    /// The other team than `team_number`, if `team_number` plays.
    pub fn opponent(&self, team_number: u8) -> Option<&GameControllerTeam> {
        self.team(team_number)?;
        self.teams
            .iter()
            .find(|team| team.team_number != team_number)
            .or(Some(&self.teams[1]))
    }
}

/// `TeamInfo` of one team.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GameControllerTeam {
    pub team_number: u8,
    pub field_player_colour: TeamColour,
    pub goalkeeper_colour: TeamColour,
    /// The goalkeeper's player number; `None` (0 on the wire) when there is none.
    pub goalkeeper: Option<u8>,
    pub score: u8,
    /// Team messages the team may still send in this game.
    pub message_budget: u16,
    /// Players 1–20 (index 0 is player 1).
    pub players: [GameControllerPlayer; GAME_CONTROLLER_PLAYERS],
}

impl GameControllerTeam {
    /// Player `number` (1–20).
    pub fn player(&self, number: u8) -> Option<&GameControllerPlayer> {
        self.players.get(usize::from(number).checked_sub(1)?)
    }
}

/// `RobotInfo` of one player.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GameControllerPlayer {
    /// `None` when the player may play; a substitute is `Some(Substitute)`.
    pub penalty: Option<Penalty>,
    pub seconds_until_unpenalised: u8,
}

/// What a robot does in the team (team messages' `role`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TeamRole {
    #[default]
    None,
    Goalkeeper,
    Striker,
    Supporter,
    Defender,
    Searcher,
}

/// What a robot is about to do (team messages' `intention`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TeamIntention {
    #[default]
    None,
    PlayBall,
    Pass,
    WalkToPosition,
    SearchBall,
    KeepGoal,
}

/// A robot's pose on the field: x, y mm (0,0 the centre, +x towards the opponent goal), angle
/// rad.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FieldPose {
    pub x_mm: f32,
    pub y_mm: f32,
    pub angle_rad: f32,
}

/// The ball as a robot sees it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SeenBall {
    /// Relative to the robot, mm.
    pub position_mm: [f32; 2],
    /// Since it was last seen, ms.
    pub age_ms: u16,
}

/// One team mate's message as received.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TeamMateMessage {
    pub player_number: u8,
    pub fallen: bool,
    pub role: TeamRole,
    pub intention: TeamIntention,
    pub pass_target: Option<u8>,
    /// The sender's clock when it sent, ms.
    pub timestamp_ms: u32,
    /// The GameController packet number the sender heard last, if any.
    pub game_controller_packet_number: Option<u8>,
    pub pose: FieldPose,
    pub ball: Option<SeenBall>,
    /// Field coordinates, mm.
    pub walk_target_mm: [f32; 2],
}

/// A team mate's newest message and when it arrived.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TeamMate {
    pub message: TeamMateMessage,
    /// Monotonic ns.
    pub received_ns: u64,
    /// Messages received from this player since the process started.
    pub messages: u64,
}

/// Datagrams on the team port, by outcome.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TeamMessageCounters {
    pub accepted: u64,
    /// Other teams' formats (no Cortex magic): ignored.
    pub foreign: u64,
    /// Cortex magic, another format version.
    pub other_version: u64,
    /// Cortex magic and version, broken (length, checksum, field).
    pub malformed: u64,
    /// A Cortex message of another team number.
    pub other_team: u64,
    /// Our own broadcast, heard back.
    pub own: u64,
}

/// The team mates' newest messages, and what this robot sent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TeamMates {
    /// One entry per team mate heard, by player number.
    pub players: Vec<TeamMate>,
    pub counters: TeamMessageCounters,
    /// The newest rejected datagram's reason.
    pub last_error: Option<String>,
    /// Messages this robot sent since the process started.
    pub sent: u64,
    /// When this robot last sent, monotonic ns.
    pub last_sent_ns: Option<u64>,
    /// Why the socket is not working (bind or send failed); `None` while it works.
    pub socket_error: Option<String>,
}

impl TeamMates {
    /// The newest message of player `player_number`, if heard.
    pub fn player(&self, player_number: u8) -> Option<&TeamMate> {
        self.players
            .iter()
            .find(|mate| mate.message.player_number == player_number)
    }
}

/// What cognition wants the team mates to know; the network process adds the game facts
/// (team, player, fallen, the GameController reference, the time) and sends it when the
/// message budget allows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TeamMessageRequest {
    pub role: TeamRole,
    pub intention: TeamIntention,
    pub pass_target: Option<u8>,
    /// `None` until the robot knows where it is (no localisation yet): sent as 0, 0, 0.
    pub pose: Option<FieldPose>,
    /// `None` when the ball is not known.
    pub ball: Option<SeenBall>,
    /// Field coordinates, mm.
    pub walk_target_mm: [f32; 2],
    /// Raised by one for each event team mates must hear at once (a whistle, a referee
    /// signal): the next message goes out as a priority message.
    pub priority_events: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_heard_within() {
        let mut packet = GameControllerPacket {
            state: PlayState::Set,
            kicking_team: Some(5),
            ..GameControllerPacket::default()
        };
        packet.teams[0].team_number = 5;
        packet.teams[1].team_number = 12;
        packet.teams[0].players[2].penalty = Some(Penalty::PlayerPushing);
        let state = GameControllerState {
            packet: Some(packet),
            received_ns: Some(1_000),
            sender: Some("127.0.0.1:3838".into()),
            ..GameControllerState::default()
        };
        let bytes = rmp_serde::to_vec_named(&state).unwrap();
        assert_eq!(
            rmp_serde::from_slice::<GameControllerState>(&bytes).unwrap(),
            state
        );
        assert!(state.heard_within(2_000, 1_000).is_some());
        assert!(state.heard_within(2_001, 1_000).is_none());
        let packet = state.packet.as_ref().unwrap();
        assert_eq!(packet.opponent(5).unwrap().team_number, 12);
        assert_eq!(packet.opponent(12).unwrap().team_number, 5);
        assert!(packet.opponent(7).is_none());
        let player = packet.team(5).unwrap().player(3).unwrap();
        assert_eq!(player.penalty, Some(Penalty::PlayerPushing));
        assert!(packet.team(5).unwrap().player(0).is_none());
        assert!(packet.team(5).unwrap().player(21).is_none());
    }

    #[test]
    fn team_mates_round_trip() {
        let mates = TeamMates {
            players: vec![TeamMate {
                message: TeamMateMessage {
                    player_number: 2,
                    role: TeamRole::Striker,
                    ball: Some(SeenBall {
                        position_mm: [1.0, 2.0],
                        age_ms: 3,
                    }),
                    ..TeamMateMessage::default()
                },
                received_ns: 7,
                messages: 1,
            }],
            ..TeamMates::default()
        };
        let bytes = rmp_serde::to_vec_named(&mates).unwrap();
        assert_eq!(rmp_serde::from_slice::<TeamMates>(&bytes).unwrap(), mates);
        assert_eq!(mates.player(2).unwrap().received_ns, 7);
        assert!(mates.player(3).is_none());
    }
}
