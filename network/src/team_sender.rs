//! When this robot sends a team message, and what it says: the pacing of
//! [`spl_network::MessagePacer`] fed from the game as cognition sees it, without a socket or a
//! clock of its own (the caller passes the time), so that a whole game can be simulated.
//!
//! - The state, phase and penalty come from `GameState` (cognition's join of GameController,
//!   whistle and buttons): a robot that heard the kick-off whistle in SET plays, and talks, at
//!   once. INITIAL, FINISHED, a penalty, a shoot-out: nothing. STANDBY and SET: only priority
//!   messages (`TeamMessageRequest::priority_events` went up).
//! - The budget, the time left and the number of robots sharing it come from the newest
//!   GameController packet while cognition follows the GameController. Without one (the
//!   chest button), the whole budget over a whole game is assumed, which paces the robots as
//!   at a game's kick-off.

use crate::{convert, PlayerNumbers};
use spl_network::pacing::remaining_game_time_ms;
use spl_network::{
    Ball, GameControllerReference, MessagePacer, PacingInput, PacingParameters, Pose, SendDecision,
    TeamMessage, TeamMessageEncodeError, Urgency, TEAM_MESSAGE_SIZE,
};
use types::{GameControllerState, GameState, GameStateSource, TeamMessageRequest};

const MS: u64 = 1_000_000;

/// What the sender looks at in a tick.
#[derive(Debug, Clone, Copy)]
pub struct SendContext<'a> {
    pub game_state: &'a GameState,
    pub game_controller: &'a GameControllerState,
    pub request: &'a TeamMessageRequest,
    pub fallen: bool,
}

/// Decides when to send and builds the message.
#[derive(Debug, Clone)]
pub struct TeamSender {
    pacer: MessagePacer,
    players: PlayerNumbers,
    half_duration_ms: u64,
    players_without_game_controller: u8,
    /// `received_ns` of the GameController packet whose budget the pacer has.
    budget_packet_ns: Option<u64>,
    /// `priority_events` already answered (sent, or dropped as not needed); back to 0 when
    /// the request's count goes below it (cognition restarted and counts from 0 again).
    priority_answered: u64,
    last_decision: Option<SendDecision>,
}

impl TeamSender {
    pub fn new(
        pacing: PacingParameters,
        players: PlayerNumbers,
        half_duration_ms: u64,
        players_without_game_controller: u8,
    ) -> Self {
        Self {
            pacer: MessagePacer::new(pacing),
            players,
            half_duration_ms,
            players_without_game_controller: players_without_game_controller.max(1),
            budget_packet_ns: None,
            priority_answered: 0,
            last_decision: None,
        }
    }

    /// The pacer's newest answer (for tests and logs).
    pub fn last_decision(&self) -> Option<SendDecision> {
        self.last_decision
    }

    /// A team mate's message was heard: it costs the budget the GameController has not
    /// reported yet.
    pub fn heard_team_mate(&mut self) {
        self.pacer.heard_team_message();
    }

    /// The message to send at `now_ns`, if the pacer allows one. Call [`TeamSender::sent`]
    /// once it left.
    pub fn poll(
        &mut self,
        now_ns: u64,
        context: SendContext<'_>,
    ) -> Result<Option<[u8; TEAM_MESSAGE_SIZE]>, TeamMessageEncodeError> {
        let team = context
            .game_controller
            .packet
            .as_ref()
            .and_then(|packet| Some((packet, packet.team(self.players.team_number)?)));
        if let (Some(received_ns), Some((_, team))) = (context.game_controller.received_ns, team) {
            if self.budget_packet_ns != Some(received_ns) {
                self.budget_packet_ns = Some(received_ns);
                self.pacer.game_controller_budget(team.message_budget);
            }
        }
        let game_state = context.game_state;
        let parameters = *self.pacer.parameters();
        let (team_budget, remaining_game_time_ms, players) = match (game_state.source, team) {
            (GameStateSource::GameController, Some((packet, team))) => (
                team.message_budget,
                remaining_game_time_ms(
                    convert::wire_game_phase(packet.phase),
                    packet.first_half,
                    packet.seconds_remaining,
                    self.half_duration_ms,
                ),
                team.players
                    .iter()
                    .filter(|player| player.penalty.is_none())
                    .count()
                    .clamp(1, usize::from(u8::MAX)) as u8,
            ),
            _ => {
                // Nobody counts: every message is paced as the first of a game (the modelled
                // budget and time left are reset, not run down).
                self.budget_packet_ns = None;
                self.pacer.game_controller_budget(parameters.overall_budget);
                (
                    parameters.overall_budget,
                    parameters.game_duration_ms,
                    self.players_without_game_controller,
                )
            }
        };
        // The count is cognition's: it starts again at 0 when cognition restarts. A count below
        // the one answered is a new cognition, whose every event is still unanswered.
        if context.request.priority_events < self.priority_answered {
            self.priority_answered = 0;
        }
        let priority = context.request.priority_events > self.priority_answered;
        let input = PacingInput {
            state: convert::wire_state(game_state.state),
            game_phase: convert::wire_game_phase(game_state.phase),
            penalised: game_state.is_penalized(),
            team_budget,
            remaining_game_time_ms,
            players,
            urgency: if priority {
                Urgency::Priority
            } else {
                Urgency::Normal
            },
        };
        let now_ms = now_ns / MS;
        let decision = self.pacer.decide(now_ms, &input);
        self.last_decision = Some(decision);
        match decision {
            SendDecision::Send => {}
            SendDecision::TooSoon { .. } => return Ok(None),
            SendDecision::NotNeeded
            | SendDecision::ReserveReached
            | SendDecision::AheadOfSchedule => {
                // An event nobody may hear now is not sent later, when it is old news.
                self.priority_answered = context.request.priority_events;
                return Ok(None);
            }
        }
        let bytes = self.message(now_ns, context).encode()?;
        Ok(Some(bytes))
    }

    /// The message of `poll` left at `now_ns`.
    pub fn sent(&mut self, now_ns: u64, context: SendContext<'_>) {
        self.pacer.sent(now_ns / MS);
        self.priority_answered = context.request.priority_events;
    }

    fn message(&self, now_ns: u64, context: SendContext<'_>) -> TeamMessage {
        let request = context.request;
        let game_controller = context.game_controller;
        let pose = request.pose.unwrap_or_default();
        TeamMessage {
            team_number: self.players.team_number,
            player_number: self.players.player_number,
            fallen: context.fallen,
            role: convert::wire_role(request.role),
            intention: convert::wire_intention(request.intention),
            pass_target: request.pass_target,
            // The sender's clock, wrapping after 49 days.
            timestamp_ms: (now_ns / MS) as u32,
            game_controller_reference: game_controller
                .packet
                .as_ref()
                .zip(game_controller.received_ns)
                .map(|(packet, received_ns)| GameControllerReference {
                    packet_number: packet.packet_number,
                    milliseconds_since: u16::try_from(now_ns.saturating_sub(received_ns) / MS)
                        .unwrap_or(u16::MAX - 1)
                        .min(u16::MAX - 1),
                }),
            pose: Pose {
                x_mm: pose.x_mm,
                y_mm: pose.y_mm,
                angle_rad: pose.angle_rad,
            },
            ball: request.ball.map(|ball| Ball {
                position_mm: ball.position_mm,
                age_ms: ball.age_ms,
            }),
            walk_target_mm: request.walk_target_mm,
        }
    }
}

#[cfg(test)]
#[path = "team_sender_tests.rs"]
mod tests;
