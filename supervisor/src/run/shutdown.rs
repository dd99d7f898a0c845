//! Shutdown: systemd is told `STOPPING=1`; every child but the bridge in reverse start order with
//! SIGTERM (SIGKILL after a timeout), then the bridge, which sits the robot down, then the
//! simulator. `status` and `stop` are still answered meanwhile.

use super::child::State;
use super::{Supervisor, POLL};
use crate::control::ControlServer;
use config::ProcessKind;
use std::sync::atomic::AtomicUsize;
use std::time::{Duration, Instant};

/// Between SIGTERM and SIGKILL at shutdown.
const STOP_TIMEOUT: Duration = Duration::from_secs(3);

impl Supervisor {
    pub(super) fn shutdown(&mut self, control: &ControlServer, stop: &AtomicUsize) {
        self.stopping = true;
        // systemd (`Type=notify`) shows a stop we began ourselves (`cortex stop`) as one.
        if let Err(error) = sd_notify::notify(&[sd_notify::NotifyState::Stopping]) {
            tracing::warn!("notifying systemd: {error}");
        }
        // The standbys first: told to end, they exit without ticking.
        self.stop_standbys(STOP_TIMEOUT, control, stop);
        let order: Vec<usize> = {
            let mut others: Vec<usize> = (0..self.children.len())
                .filter(|&i| self.children[i].kind != ProcessKind::Lola)
                .rev()
                .collect();
            others.extend(
                (0..self.children.len()).filter(|&i| self.children[i].kind == ProcessKind::Lola),
            );
            others
        };
        for index in order {
            let Some(mut process) = self.children[index].process.take() else {
                self.children[index].state = State::Stopped;
                continue;
            };
            let name = self.children[index].name.clone();
            let _ = rustix::process::kill_process(
                rustix::process::Pid::from_child(&process),
                rustix::process::Signal::TERM,
            );
            let deadline = Instant::now() + STOP_TIMEOUT;
            let status = loop {
                match process.try_wait() {
                    Ok(Some(status)) => break Some(status),
                    Ok(None) if Instant::now() < deadline => {
                        self.answer_outside_supervision(control, stop, "stopping", POLL)
                    }
                    _ => {
                        tracing::warn!(process = %name, "did not stop within {STOP_TIMEOUT:?}: SIGKILL");
                        let _ = process.kill();
                        break process.wait().ok();
                    }
                }
            };
            tracing::info!(process = %name, "stopped ({})", status.map_or("unknown".to_owned(), |s| s.to_string()));
            self.children[index].state = State::Stopped;
        }
        if let Some(mut simulator) = self.simulator.take() {
            let _ = rustix::process::kill_process(
                rustix::process::Pid::from_child(&simulator),
                rustix::process::Signal::TERM,
            );
            let deadline = Instant::now() + STOP_TIMEOUT;
            while simulator.try_wait().ok().flatten().is_none() {
                if Instant::now() > deadline {
                    let _ = simulator.kill();
                    let _ = simulator.wait();
                    break;
                }
                self.answer_outside_supervision(control, stop, "stopping", POLL);
            }
        }
    }
}
