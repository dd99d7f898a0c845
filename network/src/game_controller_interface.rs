//! `GameControllerInterface`: hears the GameController and answers it.
//!
//! ```text
//!   UDP :3838 (drained every tick) ──inbox──▶ GameControllerState (newest packet, when, from whom,
//!                                              counters of good and bad datagrams)
//!   every return_period_ms while heard ──RGrt v4──▶ sender's IP :3939
//! ```
//!
//! The return packet says who we are (player and team number from `settings.toml`), whether we
//! are fallen (`FallState`: falling, lying or getting up), and honestly that we know nothing
//! else yet: the ball as never seen (`ballAge` −1, position 0, 0) and the pose as 0, 0, 0,
//! which is what the GameController shows for a robot without localisation (the protocol has
//! no "unknown pose"; when a localisation exists, it fills these fields).
//!
//! Bad datagrams are counted by kind in the representation and logged at most once every few
//! seconds; they never stop the process. A port that cannot be bound (no network, taken) is a
//! warning and is retried every `retry_period_ms`.

use crate::udp::{RateLimitedWarning, UdpEndpoint};
use crate::{convert, PlayerNumbers};
use framework::{LoadParameters, Update};
use spl_network::{GameControllerInbox, GameControllerReturnMessage, RETURN_MESSAGE_SIZE};
use std::net::{IpAddr, SocketAddr};
use types::{FallPhase, FallState, GameControllerState};

const MS: u64 = 1_000_000;

/// The parameters of [`GameControllerInterface`] (`GameControllerInterface.toml`).
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameControllerInterfaceParameters {
    /// The local address to listen on (`0.0.0.0`: every interface, for broadcasts).
    pub address: IpAddr,
    /// The GameController's port (SPL: 3838).
    pub port: u16,
    /// The port return packets go to on the GameController's host (SPL: 3939).
    pub return_port: u16,
    /// Time between return packets, ms (the rules ask for 0.5–2 Hz: 500–2000).
    pub return_period_ms: u64,
    /// Return packets stop when no GameController packet arrived for this long, ms.
    pub return_timeout_ms: u64,
    /// How long to wait before trying to bind the port again, ms.
    pub retry_period_ms: u64,
    /// Who we are, from `settings.toml` (not from this module's file).
    #[serde(skip)]
    pub players: PlayerNumbers,
}

impl LoadParameters for GameControllerInterfaceParameters {
    fn load(config: &config::Config, module: &str) -> Result<Self, config::ConfigError> {
        let mut parameters: Self = config.validated_parameters(module)?;
        parameters.players = PlayerNumbers::from_settings(config);
        Ok(parameters)
    }
}

impl config::Validate for GameControllerInterfaceParameters {
    fn validate(&self) -> Result<(), config::Invalid> {
        config::in_range("port", self.port, 1..=u16::MAX)?;
        config::in_range("return_port", self.return_port, 1..=u16::MAX)?;
        config::in_range("return_period_ms", self.return_period_ms, 500..=2000)?;
        config::in_range("return_timeout_ms", self.return_timeout_ms, 500..=60_000)?;
        config::in_range("retry_period_ms", self.retry_period_ms, 10..=60_000)
    }
}

/// The logic of the interface without the socket: what arrived, and when to answer.
#[derive(Debug)]
pub struct GameControllerLink {
    inbox: GameControllerInbox,
    state: GameControllerState,
    players: PlayerNumbers,
    return_port: u16,
    return_period_ns: u64,
    return_timeout_ns: u64,
    last_return_ns: Option<u64>,
    rejected: RateLimitedWarning,
    encode_failed: RateLimitedWarning,
}

impl GameControllerLink {
    pub fn new(parameters: &GameControllerInterfaceParameters) -> Self {
        Self {
            inbox: GameControllerInbox::new(parameters.players.team_number),
            state: GameControllerState::default(),
            players: parameters.players,
            return_port: parameters.return_port,
            return_period_ns: parameters.return_period_ms * MS,
            return_timeout_ns: parameters.return_timeout_ms * MS,
            last_return_ns: None,
            rejected: RateLimitedWarning::new(5_000 * MS),
            encode_failed: RateLimitedWarning::new(60_000 * MS),
        }
    }

    /// What the GameController last said, and the counters.
    pub fn state(&self) -> &GameControllerState {
        &self.state
    }

    /// One datagram from `sender`, received at `now_ns` (monotonic).
    pub fn receive(&mut self, bytes: &[u8], sender: SocketAddr, now_ns: u64) {
        match self.inbox.receive(bytes) {
            Some(message) => {
                let packet = convert::game_controller_packet(&message);
                let previous = self.state.packet.as_ref().map(|packet| packet.state);
                if previous != Some(packet.state) {
                    // `now_ns` (monotonic): the GameController latency bench measures with it.
                    tracing::info!(
                        now_ns,
                        "GameController {sender}: {:?} (was {})",
                        packet.state,
                        previous.map_or("not heard".to_owned(), |state| format!("{state:?}"))
                    );
                }
                self.state.packet = Some(packet);
                self.state.received_ns = Some(now_ns);
                self.state.sender = Some(sender.to_string());
            }
            None => {
                let error = self.inbox.last_error.clone().unwrap_or_default();
                self.rejected.warn(now_ns, || {
                    format!(
                        "GameController port: ignored a {}-byte datagram from {sender}: {error}",
                        bytes.len()
                    )
                });
            }
        }
        self.state.counters = convert::game_controller_counters(&self.inbox.counters);
        self.state.last_error.clone_from(&self.inbox.last_error);
    }

    /// The return packet and where it goes, if one is due at `now_ns`: every return period
    /// while a GameController was heard within the return timeout.
    pub fn return_due(
        &mut self,
        now_ns: u64,
        fall_state: &FallState,
    ) -> Option<(SocketAddr, [u8; RETURN_MESSAGE_SIZE])> {
        let heard_ns = self.state.received_ns?;
        if now_ns.saturating_sub(heard_ns) > self.return_timeout_ns {
            return None;
        }
        if self
            .last_return_ns
            .is_some_and(|last| now_ns < last.saturating_add(self.return_period_ns))
        {
            return None;
        }
        let sender: SocketAddr = self.state.sender.as_deref()?.parse().ok()?;
        self.last_return_ns = Some(now_ns);
        let message = GameControllerReturnMessage {
            player_number: self.players.player_number,
            team_number: self.players.team_number,
            fallen: matches!(
                fall_state.phase,
                FallPhase::Falling | FallPhase::Fallen | FallPhase::GettingUp
            ),
            // No localisation yet: see the module documentation.
            pose: [0.0; 3],
            ball_age_seconds: None,
            ball_position: [0.0; 2],
        };
        match message.encode() {
            Ok(bytes) => Some((SocketAddr::new(sender.ip(), self.return_port), bytes)),
            Err(error) => {
                self.encode_failed
                    .warn(now_ns, || format!("no return packet: {error}"));
                None
            }
        }
    }

    /// A return packet left.
    pub fn returned(&mut self) {
        self.state.return_packets_sent += 1;
    }
}

/// Provides [`GameControllerState`] from the GameController's packets and sends return packets.
#[derive(Debug)]
pub struct GameControllerInterface {
    endpoint: UdpEndpoint,
    link: GameControllerLink,
}

framework::module! {
    GameControllerInterface {
        inputs: GameControllerInterfaceInputs,
        loaded_parameters: GameControllerInterfaceParameters,
        requires: {},
        // From motion: whether we lie on the ground, for the return packet.
        uses: { fall_state: FallState },
        provides: { GameControllerState },
    }
}

impl GameControllerInterface {
    fn new(parameters: GameControllerInterfaceParameters) -> Self {
        Self {
            endpoint: UdpEndpoint::new(
                "GameController port",
                SocketAddr::new(parameters.address, parameters.port),
                false,
                parameters.retry_period_ms * MS,
            ),
            link: GameControllerLink::new(&parameters),
        }
    }
}

impl Update<GameControllerState> for GameControllerInterface {
    fn update(&mut self, inputs: &GameControllerInterfaceInputs, output: &mut GameControllerState) {
        let now_ns = ipc::health::monotonic_ns();
        let link = &mut self.link;
        self.endpoint
            .receive_all(now_ns, |bytes, sender| link.receive(bytes, sender, now_ns));
        if let Some((target, bytes)) = link.return_due(now_ns, inputs.fall_state) {
            if self.endpoint.send_to(now_ns, &bytes, target) {
                link.returned();
            }
        }
        output.clone_from(link.state());
        output.socket_error = self.endpoint.error().map(str::to_owned);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spl_network::fake_game_controller::GameSetup;
    use types::PlayState;

    fn parameters() -> GameControllerInterfaceParameters {
        GameControllerInterfaceParameters {
            address: "0.0.0.0".parse().unwrap(),
            port: 3838,
            return_port: 3939,
            return_period_ms: 500,
            return_timeout_ms: 2000,
            retry_period_ms: 1000,
            players: PlayerNumbers {
                team_number: 5,
                player_number: 3,
            },
        }
    }

    fn sender() -> SocketAddr {
        "10.0.0.9:41000".parse().unwrap()
    }

    #[test]
    fn good_packets_are_kept_and_bad_ones_counted() {
        let mut link = GameControllerLink::new(&parameters());
        let mut game = GameSetup::new(12, 5);
        game.state = spl_network::State::Ready;
        link.receive(&game.message(1).encode(), sender(), 100);
        let state = link.state();
        assert_eq!(state.packet.as_ref().unwrap().state, PlayState::Ready);
        assert_eq!(state.received_ns, Some(100));
        assert_eq!(state.sender.as_deref(), Some("10.0.0.9:41000"));
        let mut wrong_version = game.message(2).encode();
        wrong_version[4] = 17;
        link.receive(&wrong_version, sender(), 200);
        link.receive(b"RGTD", sender(), 300);
        link.receive(&game.message(3).encode()[..100], sender(), 400);
        link.receive(&GameSetup::new(1, 2).message(4).encode(), sender(), 500);
        let state = link.state();
        assert_eq!(state.received_ns, Some(100), "only good packets count");
        assert_eq!(state.packet.as_ref().unwrap().packet_number, 1);
        let counters = &state.counters;
        assert_eq!(
            (
                counters.accepted,
                counters.wrong_version,
                counters.wrong_header,
                counters.wrong_length,
                counters.other_game
            ),
            (1, 1, 1, 1, 1)
        );
        assert!(state.last_error.as_ref().unwrap().contains("another game"));
    }

    #[test]
    fn return_packets_go_to_the_sender_every_period_while_it_is_heard() {
        let mut link = GameControllerLink::new(&parameters());
        let fallen = FallState {
            phase: FallPhase::Fallen,
            ..FallState::default()
        };
        assert!(link.return_due(0, &fallen).is_none(), "nobody heard yet");
        link.receive(&GameSetup::new(5, 12).message(1).encode(), sender(), 0);
        let (target, bytes) = link.return_due(10 * MS, &fallen).unwrap();
        assert_eq!(target, "10.0.0.9:3939".parse().unwrap());
        let message = GameControllerReturnMessage::decode(&bytes).unwrap();
        assert_eq!((message.player_number, message.team_number), (3, 5));
        assert!(message.fallen);
        assert_eq!(message.ball_age_seconds, None);
        assert_eq!(f32::from_le_bytes(bytes[20..24].try_into().unwrap()), -1.0);
        assert!(link.return_due(500 * MS, &fallen).is_none(), "too soon");
        let (_, bytes) = link.return_due(510 * MS, &FallState::default()).unwrap();
        assert!(!GameControllerReturnMessage::decode(&bytes).unwrap().fallen);
        // Silence: the last packet at 0, timeout 2 s.
        assert!(link.return_due(1500 * MS, &fallen).is_some());
        assert!(link.return_due(2100 * MS, &fallen).is_none());
    }

    #[test]
    fn an_invalid_player_number_sends_nothing_and_does_not_panic() {
        let mut parameters = parameters();
        parameters.players.player_number = 0;
        let mut link = GameControllerLink::new(&parameters);
        link.receive(&GameSetup::new(5, 12).message(1).encode(), sender(), 0);
        assert!(link.return_due(0, &FallState::default()).is_none());
    }
}
