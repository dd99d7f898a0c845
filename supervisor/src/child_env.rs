//! What the supervisor tells a child at spawn, through its environment, and how the child reads
//! it back. One place for both sides, so they cannot drift apart.

use anyhow::{bail, Context, Result};
use ipc::health::ExitReason;
use std::collections::BTreeMap;
use std::os::fd::RawFd;
use std::path::PathBuf;
use std::process::Command;

const CONFIG_DIR: &str = "CORTEX_CONFIG_DIR";
const OVERRIDES: &str = "CORTEX_OVERRIDES";
const BODY_SERIAL: &str = "CORTEX_BODY_SERIAL";
const HEAD_SERIAL: &str = "CORTEX_HEAD_SERIAL";
const HEALTH: &str = "CORTEX_HEALTH";
const CHANNELS: &str = "CORTEX_CHANNELS";
const RESTARTS: &str = "CORTEX_RESTARTS";
const LAST_EXIT: &str = "CORTEX_LAST_EXIT";
const LOLA_SOCKET: &str = "CORTEX_LOLA_SOCKET";
const BEHAVIOURS: &str = "CORTEX_BEHAVIOURS_DIR";
const SUPERVISOR: &str = "CORTEX_SUPERVISOR_PID";
const PARAMETERS: &str = "CORTEX_PARAMETERS";

/// Everything a child needs besides its instance name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildEnvironment {
    /// Configuration root: the current plan generation (`plan_store`), not the live folder.
    pub config_dir: PathBuf,
    /// The overrides in force: `--set` as given, then every `cortex set`.
    pub overrides: Vec<String>,
    /// The robot's serial numbers, once the bridge has reported them.
    pub identity: Option<(String, String)>,
    /// Health board descriptor and this child's slot.
    pub health: (RawFd, usize),
    /// Channel name → inherited descriptor.
    pub channels: BTreeMap<String, RawFd>,
    /// How often this child was restarted.
    pub restarts: u32,
    /// How its previous run ended.
    pub last_exit: ExitReason,
    /// The LoLA socket (the bridge only).
    pub lola_socket: Option<PathBuf>,
    /// The behaviour folder (cognition only).
    pub behaviours: Option<PathBuf>,
    /// The supervisor's pid (a child whose parent is another process exits).
    pub supervisor: u32,
    /// The parameter channel (`framework::live_parameters`), inherited.
    pub parameters: Option<RawFd>,
}

/// `status:78`, `signal:9`, `frozen`, `none`.
pub fn exit_reason_text(reason: ExitReason) -> String {
    match reason {
        ExitReason::None => "none".to_owned(),
        ExitReason::Status(status) => format!("status:{status}"),
        ExitReason::Signal(signal) => format!("signal:{signal}"),
        ExitReason::Frozen => "frozen".to_owned(),
    }
}

fn parse_exit_reason(text: &str) -> Result<ExitReason> {
    Ok(match text.split_once(':') {
        None if text == "none" => ExitReason::None,
        None if text == "frozen" => ExitReason::Frozen,
        Some(("status", value)) => ExitReason::Status(value.parse()?),
        Some(("signal", value)) => ExitReason::Signal(value.parse()?),
        _ => bail!("`{text}` is not an exit reason"),
    })
}

impl ChildEnvironment {
    /// Writes the environment into `command`.
    pub fn apply(&self, command: &mut Command) {
        command.env(CONFIG_DIR, &self.config_dir);
        command.env(OVERRIDES, self.overrides.join("\n"));
        match &self.identity {
            Some((body, head)) => command.env(BODY_SERIAL, body).env(HEAD_SERIAL, head),
            None => command.env_remove(BODY_SERIAL).env_remove(HEAD_SERIAL),
        };
        command.env(HEALTH, format!("{}:{}", self.health.0, self.health.1));
        let channels: Vec<String> = self
            .channels
            .iter()
            .map(|(name, fd)| format!("{name}={fd}"))
            .collect();
        command.env(CHANNELS, channels.join(","));
        command.env(RESTARTS, self.restarts.to_string());
        command.env(LAST_EXIT, exit_reason_text(self.last_exit));
        if let Some(socket) = &self.lola_socket {
            command.env(LOLA_SOCKET, socket);
        }
        if let Some(folder) = &self.behaviours {
            command.env(BEHAVIOURS, folder);
        }
        command.env(SUPERVISOR, self.supervisor.to_string());
        match self.parameters {
            Some(fd) => command.env(PARAMETERS, fd.to_string()),
            None => command.env_remove(PARAMETERS),
        };
    }

    /// Reads the environment of this process (in `cortex proc`).
    pub fn from_process() -> Result<ChildEnvironment> {
        let get = |name: &str| {
            std::env::var(name).with_context(|| {
                format!("{name} is not set: `cortex proc` is started by `cortex run`")
            })
        };
        let health = get(HEALTH)?;
        let (fd, slot) = health
            .split_once(':')
            .with_context(|| format!("{HEALTH}={health}: expected FD:SLOT"))?;
        let mut channels = BTreeMap::new();
        for entry in get(CHANNELS)?.split(',').filter(|entry| !entry.is_empty()) {
            let (name, fd) = entry
                .split_once('=')
                .with_context(|| format!("{CHANNELS}: `{entry}` is not NAME=FD"))?;
            channels.insert(
                name.to_owned(),
                fd.parse()
                    .with_context(|| format!("{CHANNELS}: `{entry}`"))?,
            );
        }
        let overrides = get(OVERRIDES)?;
        Ok(ChildEnvironment {
            config_dir: PathBuf::from(get(CONFIG_DIR)?),
            overrides: overrides
                .lines()
                .filter(|l| !l.is_empty())
                .map(str::to_owned)
                .collect(),
            identity: match (std::env::var(BODY_SERIAL), std::env::var(HEAD_SERIAL)) {
                (Ok(body), Ok(head)) => Some((body, head)),
                _ => None,
            },
            health: (
                fd.parse().context("health descriptor")?,
                slot.parse().context("health slot")?,
            ),
            channels,
            restarts: get(RESTARTS)?.parse().context(RESTARTS)?,
            last_exit: parse_exit_reason(&get(LAST_EXIT)?)?,
            lola_socket: std::env::var_os(LOLA_SOCKET).map(PathBuf::from),
            behaviours: std::env::var_os(BEHAVIOURS).map(PathBuf::from),
            supervisor: get(SUPERVISOR)?.parse().context(SUPERVISOR)?,
            parameters: match std::env::var(PARAMETERS) {
                Ok(fd) => Some(fd.parse().with_context(|| format!("{PARAMETERS}={fd}"))?),
                Err(_) => None,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_reasons_round_trip_as_text() {
        for reason in [
            ExitReason::None,
            ExitReason::Status(78),
            ExitReason::Signal(11),
            ExitReason::Frozen,
        ] {
            assert_eq!(
                parse_exit_reason(&exit_reason_text(reason)).unwrap(),
                reason
            );
        }
        assert!(parse_exit_reason("exploded").is_err());
    }
}
