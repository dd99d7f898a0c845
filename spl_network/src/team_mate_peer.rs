//! A test peer that pretends to be team mates: it sends Cortex team messages (and, on request,
//! other teams' datagrams) to a port, as robots on the field would broadcast them.

use crate::team_message::{
    Ball, GameControllerReference, Intention, Pose, Role, TeamMessage, TeamMessageEncodeError,
};
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::time::Duration;
use thiserror::Error;

/// Why the peer could not send.
#[derive(Debug, Error)]
pub enum TeamMatePeerError {
    #[error("binding a UDP socket for the team-mate peer")]
    Bind { source: io::Error },
    #[error("sending to {target}")]
    Send {
        target: SocketAddr,
        source: io::Error,
    },
    #[error("encoding the message of player {player_number}")]
    Encode {
        player_number: u8,
        source: TeamMessageEncodeError,
    },
}

/// Team mates of one team, sending to one address.
#[derive(Debug)]
pub struct TeamMatePeer {
    socket: UdpSocket,
    target: SocketAddr,
    team_number: u8,
    player_numbers: Vec<u8>,
    round: u32,
}

impl TeamMatePeer {
    /// Team mates `player_numbers` of `team_number`, sending to `target` (broadcast allowed).
    pub fn new(
        target: SocketAddr,
        team_number: u8,
        player_numbers: Vec<u8>,
    ) -> Result<Self, TeamMatePeerError> {
        let local = match target {
            SocketAddr::V4(_) => SocketAddr::from(([0, 0, 0, 0], 0)),
            SocketAddr::V6(_) => SocketAddr::from(([0_u16; 8], 0)),
        };
        let socket = UdpSocket::bind(local).map_err(|source| TeamMatePeerError::Bind { source })?;
        socket
            .set_broadcast(true)
            .map_err(|source| TeamMatePeerError::Bind { source })?;
        Ok(Self {
            socket,
            target,
            team_number,
            player_numbers,
            round: 0,
        })
    }

    /// The message player `player_number` sends in round `round`: it walks along the field,
    /// sees the ball in front of it, and player 1 keeps goal.
    pub fn message(&self, player_number: u8, round: u32) -> TeamMessage {
        let step = (round % 100) as f32;
        TeamMessage {
            team_number: self.team_number,
            player_number,
            fallen: round % 10 == 9,
            role: if player_number == 1 {
                Role::Goalkeeper
            } else {
                Role::Supporter
            },
            intention: if player_number == 1 {
                Intention::KeepGoal
            } else {
                Intention::WalkToPosition
            },
            pass_target: None,
            timestamp_ms: round.wrapping_mul(1000),
            game_controller_reference: Some(GameControllerReference {
                packet_number: (round % 256) as u8,
                milliseconds_since: 120,
            }),
            pose: Pose {
                x_mm: -4000.0 + 40.0 * step,
                y_mm: 500.0 * f32::from(player_number) - 1500.0,
                angle_rad: 0.1 * step,
            },
            ball: Some(Ball {
                position_mm: [800.0, -100.0],
                age_ms: 250,
            }),
            walk_target_mm: [0.0, 500.0 * f32::from(player_number) - 1500.0],
        }
    }

    /// One message from every team mate; returns how many were sent.
    pub fn send_round(&mut self) -> Result<usize, TeamMatePeerError> {
        for &player_number in &self.player_numbers {
            let bytes = self
                .message(player_number, self.round)
                .encode()
                .map_err(|source| TeamMatePeerError::Encode {
                    player_number,
                    source,
                })?;
            self.send_bytes(&bytes)?;
        }
        self.round = self.round.wrapping_add(1);
        Ok(self.player_numbers.len())
    }

    /// Any datagram, e.g. another team's message or a corrupted one of ours.
    pub fn send_bytes(&self, bytes: &[u8]) -> Result<(), TeamMatePeerError> {
        self.socket
            .send_to(bytes, self.target)
            .map(|_| ())
            .map_err(|source| TeamMatePeerError::Send {
                target: self.target,
                source,
            })
    }
}

/// Sends `rounds` rounds of team-mate messages, `interval` apart; returns the messages sent.
pub fn send_team_messages(
    target: SocketAddr,
    team_number: u8,
    player_numbers: &[u8],
    rounds: u32,
    interval: Duration,
) -> Result<usize, TeamMatePeerError> {
    let mut peer = TeamMatePeer::new(target, team_number, player_numbers.to_vec())?;
    let mut sent = 0;
    for round in 0..rounds {
        if round > 0 {
            std::thread::sleep(interval);
        }
        sent += peer.send_round()?;
    }
    Ok(sent)
}
