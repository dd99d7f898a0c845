//! Starting one child: fork+exec of our own binary (`cortex proc <name>`) in a process group of
//! its own, with the health board, its channels and its behaviour marker inherited, dying with
//! the supervisor; and recording every running process in the run directory's lock file.

use super::child::{Standby, State};
use super::Supervisor;
use crate::behaviour_faults;
use crate::child_env::ChildEnvironment;
use crate::proc_entry::{LIVENESS_VARIABLE, STANDBY_VARIABLE};
use crate::run_lock::{self, Recorded};
use anyhow::{Context, Result};
use behaviours::marker::MARKER_VARIABLE;
use config::ProcessKind;
use ipc::health::monotonic_ns;
use std::collections::BTreeMap;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::Instant;

impl Supervisor {
    pub(super) fn spawn(&mut self, index: usize) -> Result<()> {
        let generation = self.plans.current();
        let process = self.launch(index, false)?;
        let child = &mut self.children[index];
        child.pid = process.id();
        behaviour_faults::apply_limits(&child.name, child.pid, child.kind, child.memory_limit_mb);
        child.start_time = run_lock::start_time(child.pid).unwrap_or(0);
        child.process = Some(process);
        child.started = Instant::now();
        child.started_ns = monotonic_ns();
        child.state = State::Running;
        child.abort_sent = None;
        child.frozen_ns = None;
        child.failed_ns = None;
        child.generation = generation;
        tracing::debug!(process = %child.name, pid = child.pid, "started");
        self.record_processes();
        // The generation this child ran before may be in use by nobody now.
        self.remove_unused_generations();
        Ok(())
    }

    /// Starts a warm standby of child `index` (`run/standby.rs`): the same command, plan
    /// generation and environment, plus the standby board and its slot there.
    pub(super) fn spawn_standby(&mut self, index: usize) -> Result<()> {
        let generation = self.plans.current();
        let activation = self.standby_board.activation(self.children[index].slot)?;
        activation.reset();
        let process = self.launch(index, true)?;
        let child = &mut self.children[index];
        let pid = process.id();
        behaviour_faults::apply_limits(&child.name, pid, child.kind, child.memory_limit_mb);
        child.standby = Some(Standby {
            process,
            pid,
            start_time: run_lock::start_time(pid).unwrap_or(0),
            started: Instant::now(),
            generation,
            retiring: false,
            ready_since: None,
        });
        tracing::debug!(process = %child.name, pid, "standby started");
        self.record_processes();
        Ok(())
    }

    /// Fork+exec of `cortex proc NAME` for child `index`, as its active instance or as its
    /// standby.
    fn launch(&self, index: usize, standby: bool) -> Result<std::process::Child> {
        let child = &self.children[index];
        let mut fds: Vec<BorrowedFd<'_>> = vec![self.board.as_fd()];
        if standby {
            fds.push(self.standby_board.as_fd());
        }
        let liveness = self.takeover.liveness();
        if let Some(board) = liveness {
            fds.push(board.as_fd());
        }
        let mut channels = BTreeMap::new();
        for name in &child.channels {
            let buffer = &self.channels[name];
            fds.push(buffer.as_fd());
            channels.insert(name.clone(), buffer.as_fd().as_raw_fd());
        }
        if let Some(watch) = &child.behaviour {
            fds.push(watch.fd());
        }
        let parameters = self.parameter_channels[index].as_ref();
        if let Some(channel) = parameters {
            fds.push(channel.as_fd());
        }
        let generation = self.plans.current();
        let environment = ChildEnvironment {
            // The plan generation, never the live folder: a restarted child runs what its
            // siblings run.
            config_dir: self.plans.config_root(generation),
            overrides: self.overrides.all(),
            identity: self.identity.clone(),
            health: (self.board.as_fd().as_raw_fd(), child.slot),
            channels,
            restarts: child.restarts,
            last_exit: child.last_exit,
            lola_socket: (child.kind == ProcessKind::Lola).then(|| self.lola_socket.clone()),
            behaviours: self.options.behaviours.clone(),
            supervisor: std::process::id(),
            parameters: parameters.map(|channel| channel.as_fd().as_raw_fd()),
        };
        let mut command = Command::new(&self.exe);
        command
            .arg0(if standby {
                format!("cortex-{}-standby", child.name)
            } else {
                format!("cortex-{}", child.name)
            })
            .arg("proc")
            .arg(&child.name)
            .stdin(Stdio::null())
            // Its own process group: a terminal's Ctrl-C goes to the supervisor only, which
            // stops the children in order.
            .process_group(0);
        environment.apply(&mut command);
        if let Some(watch) = &child.behaviour {
            command.env(MARKER_VARIABLE, watch.fd().as_raw_fd().to_string());
        }
        if let (ProcessKind::Audio, Some(folder)) = (child.kind, &self.microphone) {
            command.env(audio::modules::MICROPHONE_DIR_VARIABLE, folder);
        }
        if let (ProcessKind::Audio, Some(folder)) = (child.kind, &self.sound_record) {
            command.env(audio::modules::RECORD_DIR_VARIABLE, folder);
        }
        if let (ProcessKind::Debug, Some(link)) = (child.kind, &self.debug_link) {
            link.pass_to(&mut command, &mut fds);
        }
        if let Some(replay) = &self.options.replay {
            replay.pass_to(&child.name, &mut command, &mut fds);
        }
        ipc::fd::inherit_fds(&mut command, &fds);
        if child.kind == ProcessKind::Lola {
            // Gently: the bridge sits the robot down, then exits.
            ipc::fd::signal_with_parent(&mut command, rustix::process::Signal::TERM);
        } else {
            ipc::fd::kill_with_parent(&mut command);
        }
        if standby {
            command.env(
                STANDBY_VARIABLE,
                format!("{}:{}", self.standby_board.as_fd().as_raw_fd(), child.slot),
            );
        }
        if let Some(board) = liveness {
            command.env(
                LIVENESS_VARIABLE,
                format!("{}:{}", board.as_fd().as_raw_fd(), child.slot),
            );
        }
        let what = if standby { "the standby of" } else { "" };
        command
            .spawn()
            .with_context(|| format!("starting {what} {}", child.name))
    }

    /// Writes the running processes into the run directory's lock file, for a later run to
    /// clean up after this one if it is killed.
    pub(super) fn record_processes(&mut self) {
        let mut processes: Vec<Recorded> = self
            .children
            .iter()
            .filter(|child| child.process.is_some())
            .map(|child| Recorded {
                name: child.name.clone(),
                pid: child.pid,
                start_time: child.start_time,
            })
            .collect();
        processes.extend(self.children.iter().filter_map(|child| {
            child.standby.as_ref().map(|standby| Recorded {
                name: format!("{} (standby)", child.name),
                pid: standby.pid,
                start_time: standby.start_time,
            })
        }));
        if let Some(simulator) = &self.simulator {
            processes.push(Recorded {
                name: "simulator".to_owned(),
                pid: simulator.id(),
                start_time: run_lock::start_time(simulator.id()).unwrap_or(0),
            });
        }
        self.lock.record(processes);
    }
}
