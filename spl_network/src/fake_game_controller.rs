//! A small GameController for tests and the terminal (`cortex gc`): it broadcasts v18 packets
//! of a game it is told about, prints the return messages robots send, and can count team
//! messages against the budget as the real one does.
//!
//! ```text
//! GameSetup (teams, state, penalties, score…) ──message(n)──▶ 118 bytes ──UDP──▶ robots :3838
//! robots ──RGrt──▶ :3939 ──decode──▶ Event::Returned / Event::Rejected
//! robots ──team msg──▶ :10000+team ──count──▶ budget − 1 (in STANDBY/READY/SET/PLAYING)
//! ```

use crate::game_controller_enums::{
    CompetitionPhase, CompetitionType, GamePhase, Penalty, SetPlay, State, TeamColour,
};
use crate::game_controller_message::{
    GameControllerMessage, RobotInfo, TeamInfo, MAX_NUMBER_OF_PLAYERS,
};
use crate::return_message::{GameControllerReturnMessage, ReturnMessageDecodeError};
use crate::team_message::MAX_TEAM_MESSAGE_SIZE;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::ops::ControlFlow;
use std::time::{Duration, Instant};
use thiserror::Error;

/// The game the fake GameController announces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSetup {
    /// Team numbers; `teams[0]` defends the left goal.
    pub teams: [u8; 2],
    pub players_per_team: u8,
    pub state: State,
    pub game_phase: GamePhase,
    pub set_play: SetPlay,
    /// `None`: 255 on the wire.
    pub kicking_team: Option<u8>,
    pub first_half: bool,
    /// At the start; counts down while PLAYING.
    pub seconds_remaining: i16,
    pub secondary_seconds: i16,
    pub scores: [u8; 2],
    pub message_budgets: [u16; 2],
    /// (team number, player number, penalty).
    pub penalties: Vec<(u8, u8, Penalty)>,
    /// Seconds until a penalised player may return, as announced.
    pub penalty_seconds: u8,
}

impl GameSetup {
    /// A first half in INITIAL, 5 players a team, the SPL's 1200 messages each, the first
    /// team kicking off.
    pub fn new(first_team: u8, second_team: u8) -> Self {
        Self {
            teams: [first_team, second_team],
            players_per_team: 5,
            state: State::Initial,
            game_phase: GamePhase::Normal,
            set_play: SetPlay::None,
            kicking_team: Some(first_team),
            first_half: true,
            seconds_remaining: 600,
            secondary_seconds: 0,
            scores: [0, 0],
            message_budgets: [1200, 1200],
            penalties: Vec::new(),
            penalty_seconds: 45,
        }
    }

    /// The packet for this setup.
    pub fn message(&self, packet_number: u8) -> GameControllerMessage {
        let team = |index: usize| {
            let mut players = [RobotInfo::default(); MAX_NUMBER_OF_PLAYERS];
            for (slot, player) in players.iter_mut().enumerate() {
                let number = u8::try_from(slot + 1).unwrap_or(u8::MAX);
                let penalty = self
                    .penalties
                    .iter()
                    .find(|(team, player, _)| *team == self.teams[index] && *player == number)
                    .map(|(_, _, penalty)| *penalty);
                *player = match penalty {
                    Some(penalty) => RobotInfo {
                        penalty,
                        seconds_till_unpenalised: self.penalty_seconds,
                    },
                    None if number > self.players_per_team => RobotInfo {
                        penalty: Penalty::Substitute,
                        seconds_till_unpenalised: 0,
                    },
                    None => RobotInfo::default(),
                };
            }
            TeamInfo {
                team_number: self.teams[index],
                field_player_colour: [TeamColour::Blue, TeamColour::Red][index],
                goalkeeper_colour: [TeamColour::Yellow, TeamColour::Black][index],
                goalkeeper: Some(1),
                score: self.scores[index],
                penalty_shot: 0,
                single_shots: 0,
                message_budget: self.message_budgets[index],
                players,
            }
        };
        GameControllerMessage {
            packet_number,
            players_per_team: self.players_per_team,
            competition_phase: CompetitionPhase::RoundRobin,
            competition_type: CompetitionType::Normal,
            game_phase: self.game_phase,
            state: self.state,
            set_play: self.set_play,
            first_half: self.first_half,
            kicking_team: self.kicking_team,
            seconds_remaining: self.seconds_remaining,
            secondary_seconds: self.secondary_seconds,
            teams: [team(0), team(1)],
        }
    }

    fn team_messages_count(&self) -> bool {
        self.message(0).team_messages_count()
    }
}

/// Where and how long the fake GameController talks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SenderOptions {
    /// Where packets go (the SPL: broadcast 255.255.255.255:3838).
    pub target: SocketAddr,
    /// Where return messages arrive (the SPL: 0.0.0.0:3939).
    pub return_address: SocketAddr,
    /// Between two packets (the SPL: 500 ms).
    pub period: Duration,
    /// How long to send; `None`: one packet, then listen for one period.
    pub duration: Option<Duration>,
    /// Listen for team messages on `base + team number` and count them against the budget
    /// (the SPL: 10000); `None`: do not listen.
    pub team_port_base: Option<u16>,
}

/// What happened, for the caller to print.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The sockets are bound (port 0 in the options is resolved here).
    Listening {
        return_address: SocketAddr,
        team_addresses: Vec<SocketAddr>,
    },
    Sent {
        message: Box<GameControllerMessage>,
    },
    Returned {
        from: SocketAddr,
        message: GameControllerReturnMessage,
    },
    Rejected {
        from: SocketAddr,
        error: ReturnMessageDecodeError,
    },
    TeamMessage {
        from: SocketAddr,
        team_number: u8,
        length: usize,
        budget_left: u16,
        /// Over 128 bytes, or sent with no budget left: the real GameController would zero
        /// the team's score.
        illegal: bool,
    },
}

/// Totals of one run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunSummary {
    pub packets_sent: u64,
    pub returns_accepted: u64,
    pub returns_rejected: u64,
    /// Team messages heard per team (order of `GameSetup::teams`).
    pub team_messages: [u64; 2],
    pub illegal_communication: [bool; 2],
}

/// Why the fake GameController stopped.
#[derive(Debug, Error)]
pub enum FakeGameControllerError {
    #[error("binding UDP {address} ({purpose})")]
    Bind {
        address: SocketAddr,
        purpose: &'static str,
        source: io::Error,
    },
    #[error("sending to {target}")]
    Send {
        target: SocketAddr,
        source: io::Error,
    },
    #[error("receiving on {address}")]
    Receive {
        address: SocketAddr,
        source: io::Error,
    },
}

/// Sends `setup` every period and reports every datagram it hears, until the duration is over
/// or `on_event` breaks.
/// While PLAYING the clock runs down; team messages cost their team's budget while they count.
pub fn run(
    mut setup: GameSetup,
    options: &SenderOptions,
    mut on_event: impl FnMut(&Event) -> ControlFlow<()>,
) -> Result<RunSummary, FakeGameControllerError> {
    let unspecified: SocketAddr = match options.target {
        SocketAddr::V4(_) => SocketAddr::from(([0, 0, 0, 0], 0)),
        SocketAddr::V6(_) => SocketAddr::from(([0_u16; 8], 0)),
    };
    let sender = bind(unspecified, "GameController packets")?;
    sender
        .set_broadcast(true)
        .map_err(|source| FakeGameControllerError::Bind {
            address: unspecified,
            purpose: "GameController packets (broadcast)",
            source,
        })?;
    let returns = bind(options.return_address, "return messages")?;
    let mut team_sockets = Vec::new();
    if let Some(base) = options.team_port_base {
        for team in setup.teams {
            let address = SocketAddr::new(
                options.return_address.ip(),
                base.saturating_add(u16::from(team)),
            );
            team_sockets.push(bind(address, "team messages")?);
        }
    }
    let local_address =
        |socket: &UdpSocket, requested: SocketAddr| socket.local_addr().unwrap_or(requested);
    if on_event(&Event::Listening {
        return_address: local_address(&returns, options.return_address),
        team_addresses: team_sockets
            .iter()
            .map(|socket| local_address(socket, options.return_address))
            .collect(),
    })
    .is_break()
    {
        return Ok(RunSummary::default());
    }
    let start = Instant::now();
    let end = start + options.duration.unwrap_or(Duration::ZERO);
    let initial_seconds = setup.seconds_remaining;
    let mut playing_since: Option<Instant> = None;
    let mut summary = RunSummary::default();
    let mut next_send = start;
    let mut packet_number: u8 = 0;
    // Any UDP datagram fits, so that lengths are reported as they were sent.
    let mut buffer = vec![0_u8; 65536];
    loop {
        let now = Instant::now();
        if now >= next_send {
            if now > end && summary.packets_sent > 0 {
                break;
            }
            if setup.state == State::Playing {
                let since = *playing_since.get_or_insert(now);
                let elapsed =
                    i16::try_from(now.duration_since(since).as_secs()).unwrap_or(i16::MAX);
                setup.seconds_remaining = initial_seconds.saturating_sub(elapsed);
            }
            let message = setup.message(packet_number);
            sender
                .send_to(&message.encode(), options.target)
                .map_err(|source| FakeGameControllerError::Send {
                    target: options.target,
                    source,
                })?;
            summary.packets_sent += 1;
            if on_event(&Event::Sent {
                message: Box::new(message),
            })
            .is_break()
            {
                return Ok(summary);
            }
            packet_number = packet_number.wrapping_add(1);
            next_send += options.period;
        }
        let mut heard_any = false;
        while let Some((length, from)) = receive(&returns, &mut buffer)? {
            heard_any = true;
            let event = match GameControllerReturnMessage::decode(&buffer[..length]) {
                Ok(message) => {
                    summary.returns_accepted += 1;
                    Event::Returned { from, message }
                }
                Err(error) => {
                    summary.returns_rejected += 1;
                    Event::Rejected { from, error }
                }
            };
            if on_event(&event).is_break() {
                return Ok(summary);
            }
        }
        for (index, socket) in team_sockets.iter().enumerate() {
            while let Some((length, from)) = receive(socket, &mut buffer)? {
                heard_any = true;
                summary.team_messages[index] += 1;
                let counts = setup.team_messages_count();
                let budget = &mut setup.message_budgets[index];
                let illegal = length > MAX_TEAM_MESSAGE_SIZE || (counts && *budget == 0);
                if counts {
                    *budget = budget.saturating_sub(1);
                }
                if illegal {
                    summary.illegal_communication[index] = true;
                    setup.scores[index] = 0;
                }
                let event = Event::TeamMessage {
                    from,
                    team_number: setup.teams[index],
                    length,
                    budget_left: *budget,
                    illegal,
                };
                if on_event(&event).is_break() {
                    return Ok(summary);
                }
            }
        }
        if !heard_any {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    Ok(summary)
}

fn bind(address: SocketAddr, purpose: &'static str) -> Result<UdpSocket, FakeGameControllerError> {
    let socket = UdpSocket::bind(address).map_err(|source| FakeGameControllerError::Bind {
        address,
        purpose,
        source,
    })?;
    socket
        .set_nonblocking(true)
        .map_err(|source| FakeGameControllerError::Bind {
            address,
            purpose,
            source,
        })?;
    Ok(socket)
}

/// One datagram if one is waiting.
fn receive(
    socket: &UdpSocket,
    buffer: &mut [u8],
) -> Result<Option<(usize, SocketAddr)>, FakeGameControllerError> {
    match socket.recv_from(buffer) {
        Ok(received) => Ok(Some(received)),
        Err(error)
            if matches!(
                error.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
            ) =>
        {
            Ok(None)
        }
        // A port-unreachable from an earlier send on Linux loopback: not ours to fail on.
        Err(error) if error.kind() == io::ErrorKind::ConnectionRefused => Ok(None),
        Err(source) => Err(FakeGameControllerError::Receive {
            address: socket
                .local_addr()
                .unwrap_or_else(|_| SocketAddr::from(([0, 0, 0, 0], 0))),
            source,
        }),
    }
}
