//! `cortex gc`: a small GameController for the terminal. It broadcasts v18 packets of the game
//! described by its options (state, set play, penalties, score) at 2 Hz, prints every return
//! message robots send to it, and can count team messages against the budget. The protocol
//! and the loop are `spl_network::fake_game_controller`; this file is the command line.
//!
//! ```text
//! cortex gc --state playing --seconds 60                 # broadcast PLAYING for a minute
//! cortex gc --target 127.0.0.1:3838 --state set --penalise 3 --score 1:0 --json
//! cortex gc --state playing --seconds 60 --team-mates 2,3 --count-team-messages
//! ```

use anyhow::{Context, Result};
use spl_network::fake_game_controller::{run, Event, GameSetup, RunSummary, SenderOptions};
use spl_network::team_mate_peer::TeamMatePeer;
use spl_network::{GamePhase, Penalty, SetPlay, State};
use std::net::SocketAddr;
use std::ops::ControlFlow;
use std::process::ExitCode;
use std::time::Duration;

/// The options of `cortex gc`.
#[derive(clap::Args, Debug, Clone)]
pub struct GcOptions {
    /// Where packets go.
    #[arg(
        long,
        value_name = "ADDRESS:PORT",
        default_value = "255.255.255.255:3838"
    )]
    target: SocketAddr,
    /// The UDP port return messages arrive on (0: any free port, printed at start).
    #[arg(long, value_name = "PORT", default_value_t = spl_network::GAME_CONTROLLER_RETURN_PORT)]
    return_port: u16,
    /// The two team numbers; the first defends the left goal.
    #[arg(long, num_args = 2, value_names = ["LEFT", "RIGHT"], default_values_t = [24, 1])]
    teams: Vec<u8>,
    /// Players per team (the rest are substitutes).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u8).range(1..=20))]
    players: u8,
    /// initial, ready, set, playing, finished or standby.
    #[arg(long, default_value = "initial")]
    state: State,
    /// normal, penalty-shootout, overtime or timeout (a timeout is sent with --state initial).
    #[arg(long, default_value = "normal")]
    game_phase: GamePhase,
    /// none, goal-kick, pushing-free-kick, corner-kick, kick-in or penalty-kick.
    #[arg(long, default_value = "none")]
    set_play: SetPlay,
    /// The team that kicks (a team number, or `none` for 255; default: the first team).
    #[arg(long, value_name = "TEAM|none", value_parser = parse_kicking_team)]
    kicking_team: Option<KickingTeam>,
    /// Penalise a player: `N` (of the first team) or `TEAM:N`; repeatable.
    #[arg(long, value_name = "[TEAM:]N", value_parser = parse_player)]
    penalise: Vec<(Option<u8>, u8)>,
    /// The penalty for --penalise.
    #[arg(long, default_value = "player-pushing")]
    penalty: Penalty,
    /// The score, `LEFT:RIGHT`.
    #[arg(long, value_name = "A:B", value_parser = parse_pair::<u8>, default_value = "0:0")]
    score: (u8, u8),
    /// The message budgets, `LEFT:RIGHT`.
    #[arg(long, value_name = "A:B", value_parser = parse_pair::<u16>, default_value = "1200:1200")]
    budget: (u16, u16),
    /// Seconds left in the half at the start (counts down while playing).
    #[arg(long, default_value_t = 600)]
    seconds_remaining: i16,
    /// Announce the second half.
    #[arg(long)]
    second_half: bool,
    /// Send for this many seconds (default: one packet, then listen for one period).
    #[arg(long, value_name = "S")]
    seconds: Option<f64>,
    /// Between two packets.
    #[arg(long, value_name = "MS", default_value_t = 500, value_parser = clap::value_parser!(u64).range(10..=60_000))]
    period_ms: u64,
    /// Listen on UDP `BASE + team number` and count team messages against the budget.
    #[arg(long, value_name = "BASE", num_args = 0..=1, default_missing_value = "10000")]
    count_team_messages: Option<u16>,
    /// Pretend to be these players of the first team: send their team messages with every
    /// second packet (1 Hz at the default period), e.g. `2,3,4`.
    #[arg(long, value_name = "N,N,…", value_delimiter = ',', value_parser = parse_player_number)]
    team_mates: Vec<u8>,
    /// Where the team mates send (default: broadcast to 10000 + the first team's number).
    #[arg(long, value_name = "ADDRESS:PORT")]
    team_mate_target: Option<SocketAddr>,
    /// Print JSON lines instead of text.
    #[arg(long)]
    json: bool,
}

/// `--kicking-team`.
#[derive(Debug, Clone, Copy)]
pub enum KickingTeam {
    Team(u8),
    None,
}

fn parse_kicking_team(text: &str) -> Result<KickingTeam, String> {
    match text {
        "none" | "255" => Ok(KickingTeam::None),
        number => number
            .parse()
            .map(KickingTeam::Team)
            .map_err(|_| format!("expected a team number (0-254) or `none`, found {text:?}")),
    }
}

fn parse_player(text: &str) -> Result<(Option<u8>, u8), String> {
    let (team, player) = match text.split_once(':') {
        Some((team, player)) => (
            Some(
                team.parse::<u8>()
                    .map_err(|_| format!("team {team:?} in {text:?}: expected 0-255"))?,
            ),
            player,
        ),
        None => (None, text),
    };
    match player.parse::<u8>() {
        Ok(number @ 1..=20) => Ok((team, number)),
        _ => Err(format!("player {player:?} in {text:?}: expected 1-20")),
    }
}

fn parse_player_number(text: &str) -> Result<u8, String> {
    match text.trim().parse::<u8>() {
        Ok(number @ 1..=20) => Ok(number),
        _ => Err(format!("player {text:?}: expected 1-20")),
    }
}

fn parse_pair<T: std::str::FromStr>(text: &str) -> Result<(T, T), String> {
    let parse = |part: &str| {
        part.trim()
            .parse::<T>()
            .map_err(|_| format!("{part:?} in {text:?} is not a number in range"))
    };
    let (left, right) = text
        .split_once(':')
        .ok_or_else(|| format!("expected `LEFT:RIGHT`, e.g. `2:1`, found {text:?}"))?;
    Ok((parse(left)?, parse(right)?))
}

impl GcOptions {
    fn setup(&self) -> Result<GameSetup> {
        let [left, right] = [self.teams[0], self.teams[1]];
        anyhow::ensure!(
            left != right,
            "--teams {left} {right}: the two teams need different numbers"
        );
        let mut setup = GameSetup::new(left, right);
        setup.players_per_team = self.players;
        setup.state = self.state;
        setup.game_phase = self.game_phase;
        setup.set_play = self.set_play;
        setup.kicking_team = match self.kicking_team {
            None => Some(left),
            Some(KickingTeam::None) => None,
            Some(KickingTeam::Team(team)) if team == left || team == right => Some(team),
            Some(KickingTeam::Team(team)) => {
                anyhow::bail!("--kicking-team {team}: expected {left}, {right} or none")
            }
        };
        setup.first_half = !self.second_half;
        setup.seconds_remaining = self.seconds_remaining;
        setup.scores = [self.score.0, self.score.1];
        setup.message_budgets = [self.budget.0, self.budget.1];
        for &(team, player) in &self.penalise {
            let team = team.unwrap_or(left);
            anyhow::ensure!(
                team == left || team == right,
                "--penalise {team}:{player}: team {team} does not play ({left}, {right})"
            );
            setup.penalties.push((team, player, self.penalty));
        }
        Ok(setup)
    }
}

/// Runs `cortex gc`.
pub fn gc(options: &GcOptions) -> Result<ExitCode> {
    let setup = options.setup()?;
    let duration = match options.seconds {
        None => None,
        Some(seconds) if seconds.is_finite() && (0.0..=86_400.0).contains(&seconds) => {
            Some(Duration::from_secs_f64(seconds))
        }
        Some(seconds) => anyhow::bail!("--seconds {seconds}: expected 0 to 86400"),
    };
    let return_ip: std::net::IpAddr = if options.target.is_ipv4() {
        [0, 0, 0, 0].into()
    } else {
        [0_u16; 8].into()
    };
    let sender = SenderOptions {
        target: options.target,
        return_address: SocketAddr::new(return_ip, options.return_port),
        period: Duration::from_millis(options.period_ms),
        duration,
        team_port_base: options.count_team_messages,
    };
    let json = options.json;
    let mut team_mates = match options.team_mates.is_empty() {
        true => None,
        false => {
            let team = setup.teams[0];
            let target = options.team_mate_target.unwrap_or_else(|| {
                let port = spl_network::TEAM_MESSAGE_PORT_BASE.saturating_add(team.into());
                SocketAddr::from(([255, 255, 255, 255], port))
            });
            let peer = TeamMatePeer::new(target, team, options.team_mates.clone())
                .with_context(|| format!("the team mates sending to {target}"))?;
            Some((peer, target))
        }
    };
    let (mut packets, mut team_messages) = (0_u64, 0_usize);
    let mut team_mate_error = None;
    let summary = run(setup, &sender, |event| {
        print_event(event, json);
        if let (Event::Sent { .. }, Some((peer, target))) = (event, team_mates.as_mut()) {
            packets += 1;
            if packets % 2 == 1 {
                match peer.send_round() {
                    Ok(sent) => team_messages += sent,
                    Err(error) => {
                        team_mate_error = Some(
                            anyhow::Error::new(error)
                                .context(format!("the team mates sending to {target}")),
                        );
                        return ControlFlow::Break(());
                    }
                }
            }
        }
        ControlFlow::Continue(())
    })
    .with_context(|| format!("the GameController for {}", options.target))?;
    if let Some(error) = team_mate_error {
        return Err(error);
    }
    print_summary(&summary, json);
    if let Some((_, target)) = &team_mates {
        if json {
            let value = serde_json::json!({
                "event": "team_mates", "target": target.to_string(), "sent": team_messages,
            });
            println!("{value}");
        } else {
            println!("team mates sent {team_messages} messages to {target}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_event(event: &Event, json: bool) {
    let line = if json {
        let value = match event {
            Event::Listening {
                return_address,
                team_addresses,
            } => serde_json::json!({
                "event": "listening",
                "return_address": return_address.to_string(),
                "team_addresses": team_addresses.iter().map(ToString::to_string).collect::<Vec<_>>(),
            }),
            Event::Sent { message } => serde_json::json!({ "event": "sent", "message": message }),
            Event::Returned { from, message } => {
                serde_json::json!({ "event": "return", "from": from.to_string(), "message": message })
            }
            Event::Rejected { from, error } => serde_json::json!({
                "event": "rejected", "from": from.to_string(), "error": error.to_string(),
            }),
            Event::TeamMessage {
                from,
                team_number,
                length,
                budget_left,
                illegal,
            } => serde_json::json!({
                "event": "team_message", "from": from.to_string(), "team": team_number,
                "length": length, "budget_left": budget_left, "illegal": illegal,
            }),
        };
        value.to_string()
    } else {
        match event {
            Event::Listening {
                return_address,
                team_addresses,
            } => {
                let teams: Vec<String> = team_addresses.iter().map(ToString::to_string).collect();
                format!(
                    "listening for return messages on {return_address}{}",
                    if teams.is_empty() {
                        String::new()
                    } else {
                        format!(", team messages on {}", teams.join(", "))
                    }
                )
            }
            Event::Sent { message } => format!(
                "sent #{} {} {} {}s score {}:{} budget {}:{}",
                message.packet_number,
                message.state,
                message.set_play,
                message.seconds_remaining,
                message.teams[0].score,
                message.teams[1].score,
                message.teams[0].message_budget,
                message.teams[1].message_budget,
            ),
            Event::Returned { from, message } => format!(
                "return from {from}: team {} player {}{} pose ({:.0}, {:.0}, {:.2}) ball {}",
                message.team_number,
                message.player_number,
                if message.fallen { " fallen" } else { "" },
                message.pose[0],
                message.pose[1],
                message.pose[2],
                match message.ball_age_seconds {
                    Some(age) => format!(
                        "({:.0}, {:.0}) {age:.1}s ago",
                        message.ball_position[0], message.ball_position[1]
                    ),
                    None => "never seen".to_owned(),
                },
            ),
            Event::Rejected { from, error } => format!("rejected from {from}: {error}"),
            Event::TeamMessage {
                from,
                team_number,
                length,
                budget_left,
                illegal,
            } => format!(
                "team message from {from}: team {team_number}, {length} bytes, budget left \
                 {budget_left}{}",
                if *illegal {
                    " ILLEGAL (score zeroed)"
                } else {
                    ""
                }
            ),
        }
    };
    println!("{line}");
}

fn print_summary(summary: &RunSummary, json: bool) {
    if json {
        let value = serde_json::json!({
            "event": "summary",
            "packets_sent": summary.packets_sent,
            "returns_accepted": summary.returns_accepted,
            "returns_rejected": summary.returns_rejected,
            "team_messages": summary.team_messages,
            "illegal_communication": summary.illegal_communication,
        });
        println!("{value}");
    } else {
        println!(
            "sent {} packets; {} return messages accepted, {} rejected; team messages {:?}{}",
            summary.packets_sent,
            summary.returns_accepted,
            summary.returns_rejected,
            summary.team_messages,
            if summary.illegal_communication.contains(&true) {
                format!(
                    ", illegal communication {:?}",
                    summary.illegal_communication
                )
            } else {
                String::new()
            }
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn players_and_pairs_parse_or_say_what_is_wrong() {
        assert_eq!(parse_player("3"), Ok((None, 3)));
        assert_eq!(parse_player("12:20"), Ok((Some(12), 20)));
        assert_eq!(
            parse_player("21"),
            Err("player \"21\" in \"21\": expected 1-20".to_owned())
        );
        assert!(parse_player("x:1").unwrap_err().contains("team \"x\""));
        assert_eq!(parse_pair::<u8>("2:1"), Ok((2, 1)));
        assert!(parse_pair::<u8>("3").unwrap_err().contains("LEFT:RIGHT"));
        assert!(parse_pair::<u8>("300:1").unwrap_err().contains("\"300\""));
        assert!(matches!(parse_kicking_team("none"), Ok(KickingTeam::None)));
        assert!(parse_kicking_team("blue").is_err());
    }
}
