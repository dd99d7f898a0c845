//! `TeamCommunication`: the team mates' messages in, ours out.
//!
//! ```text
//!   UDP :port_base+team (drained every tick) ──inbox──▶ TeamMates (newest message per player)
//!        own broadcasts heard back, other teams' robots, foreign formats: counted, ignored
//!   GameState, TeamMessageRequest, FallState ──TeamSender (budget pacing)──▶ broadcast :port
//! ```
//!
//! The socket is bound to `address:port_base + team number` with `SO_BROADCAST` as
//! `broadcast` says; messages go to `broadcast_address` on the same port (the league's
//! 255.255.255.255; tests use 127.0.0.1 without `SO_BROADCAST`). Every message is a 36-byte
//! Cortex team message (the rules allow 128). When it is sent is [`TeamSender`]'s decision.

use crate::team_sender::{SendContext, TeamSender};
use crate::udp::{RateLimitedWarning, UdpEndpoint};
use crate::{convert, PlayerNumbers};
use framework::{LoadParameters, Update};
use spl_network::{PacingParameters, TeamMessageInbox, MAX_TEAM_MESSAGE_SIZE};
use std::net::{IpAddr, SocketAddr};
use types::{
    FallPhase, FallState, GameControllerState, GameState, TeamMate, TeamMates, TeamMessageRequest,
};

const MS: u64 = 1_000_000;

/// The parameters of [`TeamCommunication`] (`TeamCommunication.toml`).
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TeamCommunicationParameters {
    /// The local address to listen on (`0.0.0.0`: every interface, for broadcasts).
    pub address: IpAddr,
    /// The team port is this plus the team number (SPL: 10000).
    pub port_base: u16,
    /// Where our messages go, on the team port.
    pub broadcast_address: IpAddr,
    /// Whether the socket may send broadcasts (`SO_BROADCAST`).
    pub broadcast: bool,
    /// How long to wait before trying to bind the port again, ms.
    pub retry_period_ms: u64,
    /// One half of playing time, s (SPL: 600).
    pub half_duration_s: u64,
    /// Robots assumed to share the budget while no GameController is heard.
    pub players_without_game_controller: u8,
    /// Messages per game for the whole team (SPL: 1200).
    pub overall_budget: u16,
    /// Left unused at the end of the game by normal messages.
    pub normal_reserve: u16,
    /// Left unused by priority messages.
    pub priority_reserve: u16,
    /// The least time between two messages of this robot, ms.
    pub min_send_interval_ms: u64,
    /// The pacing line is evaluated this far in the future, ms.
    pub lookahead_ms: u64,
    /// Who we are, from `settings.toml` (not from this module's file).
    #[serde(skip)]
    pub players: PlayerNumbers,
}

impl TeamCommunicationParameters {
    /// The pacer's settings.
    pub fn pacing(&self) -> PacingParameters {
        PacingParameters {
            overall_budget: self.overall_budget,
            normal_reserve: self.normal_reserve,
            priority_reserve: self.priority_reserve,
            min_send_interval_ms: self.min_send_interval_ms,
            lookahead_ms: self.lookahead_ms,
            game_duration_ms: 2 * self.half_duration_s * 1000,
        }
    }

    /// The team port: `port_base` + team number.
    pub fn port(&self) -> u16 {
        self.port_base
            .saturating_add(u16::from(self.players.team_number))
    }
}

impl LoadParameters for TeamCommunicationParameters {
    fn load(config: &config::Config, module: &str) -> Result<Self, config::ConfigError> {
        let mut parameters: Self = config.validated_parameters(module)?;
        parameters.players = PlayerNumbers::from_settings(config);
        Ok(parameters)
    }
}

impl config::Validate for TeamCommunicationParameters {
    fn validate(&self) -> Result<(), config::Invalid> {
        // Room for every team number (0–255) above the base.
        config::in_range("port_base", self.port_base, 1..=u16::MAX - 255)?;
        config::in_range("retry_period_ms", self.retry_period_ms, 10..=60_000)?;
        config::in_range("half_duration_s", self.half_duration_s, 60..=3600)?;
        config::in_range(
            "players_without_game_controller",
            self.players_without_game_controller,
            1..=20,
        )?;
        config::in_range("overall_budget", self.overall_budget, 1..=60_000)?;
        config::ordered(
            ("priority_reserve", self.priority_reserve),
            ("normal_reserve", self.normal_reserve),
        )?;
        config::ordered(
            ("normal_reserve", self.normal_reserve),
            ("overall_budget", self.overall_budget),
        )?;
        config::in_range(
            "min_send_interval_ms",
            self.min_send_interval_ms,
            100..=60_000,
        )?;
        config::in_range("lookahead_ms", self.lookahead_ms, 0..=60_000)
    }
}

/// Provides [`TeamMates`] from the team port and sends our team messages.
#[derive(Debug)]
pub struct TeamCommunication {
    endpoint: UdpEndpoint,
    target: SocketAddr,
    receiver: TeamReceiver,
    sender: TeamSender,
    not_sent: RateLimitedWarning,
}

/// The receiving half: the inbox and what it learnt.
#[derive(Debug)]
struct TeamReceiver {
    inbox: TeamMessageInbox,
    mates: TeamMates,
    rejected: RateLimitedWarning,
}

framework::module! {
    TeamCommunication {
        inputs: TeamCommunicationInputs,
        loaded_parameters: TeamCommunicationParameters,
        // Budget, time left and players of the newest packet (this process).
        requires: { game_controller_state: GameControllerState },
        // From cognition (the game as it understands it, what to say), motion (fallen).
        uses: {
            game_state: GameState,
            team_message_request: TeamMessageRequest,
            fall_state: FallState,
        },
        provides: { TeamMates },
    }
}

impl TeamCommunication {
    fn new(parameters: TeamCommunicationParameters) -> Self {
        let port = parameters.port();
        Self {
            endpoint: UdpEndpoint::new(
                "team port",
                SocketAddr::new(parameters.address, port),
                parameters.broadcast,
                parameters.retry_period_ms * MS,
            ),
            target: SocketAddr::new(parameters.broadcast_address, port),
            receiver: TeamReceiver {
                inbox: TeamMessageInbox::new(
                    parameters.players.team_number,
                    parameters.players.player_number,
                ),
                mates: TeamMates::default(),
                rejected: RateLimitedWarning::new(5_000 * MS),
            },
            sender: TeamSender::new(
                parameters.pacing(),
                parameters.players,
                parameters.half_duration_s * 1000,
                parameters.players_without_game_controller,
            ),
            not_sent: RateLimitedWarning::new(5_000 * MS),
        }
    }
}

impl TeamReceiver {
    /// One datagram; returns whether it was a team mate's message.
    fn receive(&mut self, bytes: &[u8], sender: SocketAddr, now_ns: u64) -> bool {
        let counters = &self.inbox.counters;
        let broken_before = counters.malformed + counters.other_version;
        let Some(message) = self.inbox.receive(bytes) else {
            let counters = &self.inbox.counters;
            if counters.malformed + counters.other_version > broken_before {
                // Ours, but broken: worth a line. Foreign and other teams' messages are normal.
                let error = self.inbox.last_error.clone().unwrap_or_default();
                self.rejected.warn(now_ns, || {
                    format!(
                        "team port: ignored a {}-byte datagram from {sender}: {error}",
                        bytes.len()
                    )
                });
                self.mates.last_error = Some(error);
            }
            return false;
        };
        let message = convert::team_mate_message(&message);
        let players = &mut self.mates.players;
        match players
            .iter_mut()
            .find(|mate| mate.message.player_number == message.player_number)
        {
            Some(mate) => {
                mate.message = message;
                mate.received_ns = now_ns;
                mate.messages += 1;
            }
            None => {
                players.push(TeamMate {
                    message,
                    received_ns: now_ns,
                    messages: 1,
                });
                players.sort_by_key(|mate| mate.message.player_number);
            }
        }
        true
    }
}

impl Update<TeamMates> for TeamCommunication {
    fn update(&mut self, inputs: &TeamCommunicationInputs, output: &mut TeamMates) {
        let now_ns = ipc::health::monotonic_ns();
        let (receiver, sender) = (&mut self.receiver, &mut self.sender);
        self.endpoint.receive_all(now_ns, |bytes, from| {
            if receiver.receive(bytes, from, now_ns) {
                sender.heard_team_mate();
            }
        });
        let context = SendContext {
            game_state: inputs.game_state,
            game_controller: inputs.game_controller_state,
            request: inputs.team_message_request,
            fallen: matches!(
                inputs.fall_state.phase,
                FallPhase::Falling | FallPhase::Fallen | FallPhase::GettingUp
            ),
        };
        match self.sender.poll(now_ns, context) {
            Ok(Some(bytes)) if bytes.len() <= MAX_TEAM_MESSAGE_SIZE => {
                if self.endpoint.send_to(now_ns, &bytes, self.target) {
                    self.sender.sent(now_ns, context);
                    self.receiver.mates.sent += 1;
                    self.receiver.mates.last_sent_ns = Some(now_ns);
                }
            }
            Ok(_) => {}
            Err(error) => {
                let text = format!("team message not sent: {error}");
                self.not_sent.warn(now_ns, || text.clone());
                self.receiver.mates.last_error = Some(text);
            }
        }
        let mates = &mut self.receiver.mates;
        mates.counters = convert::team_message_counters(&self.receiver.inbox.counters);
        mates.socket_error = self.endpoint.error().map(str::to_owned);
        output.clone_from(mates);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GameControllerInterfaceParameters;
    use spl_network::team_mate_peer::TeamMatePeer;

    fn receiver() -> TeamReceiver {
        TeamReceiver {
            inbox: TeamMessageInbox::new(5, 2),
            mates: TeamMates::default(),
            rejected: RateLimitedWarning::new(5_000 * MS),
        }
    }

    #[test]
    fn team_mates_are_kept_by_number_and_everything_else_counted() {
        let mut receiver = receiver();
        let from: SocketAddr = "127.0.0.1:40000".parse().unwrap();
        let peer = TeamMatePeer::new(from, 5, vec![]).unwrap();
        let others = TeamMatePeer::new(from, 7, vec![]).unwrap();
        let bytes =
            |peer: &TeamMatePeer, player, round| peer.message(player, round).encode().unwrap();
        assert!(receiver.receive(&bytes(&peer, 4, 0), from, 10));
        assert!(receiver.receive(&bytes(&peer, 1, 0), from, 20));
        assert!(receiver.receive(&bytes(&peer, 4, 1), from, 30));
        assert!(!receiver.receive(&bytes(&peer, 2, 0), from, 40), "our own");
        assert!(!receiver.receive(&bytes(&others, 3, 0), from, 50), "team 7");
        assert!(!receiver.receive(b"another team's format", from, 60));
        let mut broken = bytes(&peer, 3, 0);
        broken[20] ^= 1;
        assert!(!receiver.receive(&broken, from, 70));
        let mates = &receiver.mates;
        let numbers: Vec<u8> = mates
            .players
            .iter()
            .map(|mate| mate.message.player_number)
            .collect();
        assert_eq!(numbers, [1, 4], "sorted by player number");
        let four = mates.player(4).unwrap();
        assert_eq!(
            (four.received_ns, four.messages),
            (30, 2),
            "the newest message"
        );
        assert_eq!(
            four.message.pose.x_mm,
            peer.message(4, 1).pose.x_mm,
            "round 1's pose"
        );
        let counters = &receiver.inbox.counters;
        assert_eq!(
            (
                counters.accepted,
                counters.own,
                counters.other_team,
                counters.foreign,
                counters.malformed
            ),
            (3, 1, 1, 1, 1)
        );
        assert!(mates.last_error.as_ref().unwrap().contains("checksum"));
    }

    #[test]
    fn parameters_out_of_range_are_refused_with_their_key() {
        for (set, key) in [
            ("TeamCommunication.port_base=65500", "port_base"),
            ("TeamCommunication.normal_reserve=10", "normal_reserve"),
            (
                "TeamCommunication.min_send_interval_ms=10",
                "min_send_interval_ms",
            ),
            (
                "GameControllerInterface.return_period_ms=100",
                "return_period_ms",
            ),
            ("GameControllerInterface.port=0", "port"),
        ] {
            let overrides = [config::Override::parse(set).unwrap()];
            let config = config::Config::load(&config::default_root(), None, &overrides).unwrap();
            let error = if set.starts_with("Team") {
                TeamCommunicationParameters::load(&config, "TeamCommunication").map(drop)
            } else {
                GameControllerInterfaceParameters::load(&config, "GameControllerInterface")
                    .map(drop)
            }
            .unwrap_err()
            .to_string();
            assert!(error.contains(key), "{set}: {error}");
        }
        let config = config::Config::load(&config::default_root(), None, &[]).unwrap();
        let parameters = TeamCommunicationParameters::load(&config, "TeamCommunication").unwrap();
        assert_eq!(
            parameters.port(),
            10000 + u16::from(config.settings().team_number)
        );
        assert_eq!(parameters.pacing(), PacingParameters::default());
    }
}
