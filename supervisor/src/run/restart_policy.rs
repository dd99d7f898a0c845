//! The restart policy (Erlang/systemd): a child that exited is restarted after a capped
//! exponential back-off from zero; more failures than its restart intensity within its window,
//! or a configuration error (exit 78), send the robot to the safe state instead. A crash inside
//! the Python behaviour restarts with back-off but never counts toward the safe state
//! (`behaviour_faults`); a restart an operator asked for is no failure.

use super::child::{describe_exit, State};
use super::Supervisor;
use anyhow::Result;
use config::ProcessKind;
use ipc::health::{monotonic_ns, ExitReason};
use std::os::unix::process::ExitStatusExt;
use std::time::{Duration, Instant};

/// Back-off after the first quick restart, doubled each time up to the cap.
const BACKOFF_STEP: Duration = Duration::from_millis(10);
const BACKOFF_CAP: Duration = Duration::from_secs(1);
/// A child that ran this long resets its back-off.
const STABLE_UPTIME: Duration = Duration::from_secs(10);

impl Supervisor {
    pub(super) fn reap(&mut self) -> Result<()> {
        for index in 0..self.children.len() {
            let Some(process) = self.children[index].process.as_mut() else {
                continue;
            };
            let Some(status) = process.try_wait()? else {
                continue;
            };
            let detected_ns = self.detection_ns(index);
            let old_pid = self.children[index].pid;
            // The takeover thread may have activated the standby already (`takeover.rs`);
            // from here on it never will.
            let fired = self.takeover.take(index, old_pid);
            let child = &mut self.children[index];
            child.process = None;
            child.failed_ns = Some(detected_ns);
            let uptime = child.started.elapsed();
            let reason = if child.abort_sent.is_some() {
                ExitReason::Frozen
            } else if let Some(signal) = status.signal() {
                ExitReason::Signal(signal)
            } else {
                ExitReason::Status(status.code().unwrap_or(-1))
            };
            child.last_exit = reason;
            child.abort_sent = None;
            if std::mem::take(&mut child.restart_requested) {
                tracing::info!(process = %child.name, "{} exited after {uptime:.1?} ({}): restarting as requested", child.name, describe_exit(reason));
                child.restarts += 1;
                child.state = State::Backoff(Instant::now());
                if let Some(fired) = fired {
                    self.promote_standby(index, fired.detected_ns);
                }
                continue;
            }
            if let Some(reason) = &self.safe_state {
                child.state = State::Failed(format!("safe state: {reason}"));
                if let Some(fired) = fired {
                    // Activated just before the safe state came: it stops like the others.
                    self.promote_standby(index, fired.detected_ns);
                    self.children[index].signal(rustix::process::Signal::TERM);
                }
                continue;
            }
            if reason == ExitReason::Status(i32::from(config::EX_CONFIG)) {
                let message = format!(
                    "{} exited with a configuration error after {uptime:.1?}: not restarted",
                    child.name
                );
                tracing::error!(process = %child.name, "{message}");
                child.state = State::Failed("configuration error".to_owned());
                self.enter_safe_state(message);
                continue;
            }
            let now = Instant::now();
            if uptime >= STABLE_UPTIME {
                child.backoff = Duration::ZERO;
            }
            let blamed = child
                .behaviour
                .as_ref()
                .and_then(|watch| watch.blame(child.pid));
            if let (Some(marker), Some(watch)) = (blamed, child.behaviour.as_mut()) {
                // The behaviour's fault, not the process's: restart, never the safe state.
                let text = watch.crashed(&marker, &describe_exit(reason));
                let delay = child.backoff;
                child.backoff = (delay * 2).clamp(BACKOFF_STEP, BACKOFF_CAP);
                child.restarts += 1;
                child.state = State::Backoff(now + delay);
                tracing::error!(
                    process = %child.name,
                    "{} ended after {uptime:.2?}: {text}; the robot stands; restart {} in \
                     {delay:?} (behaviour faults do not count toward the safe state; the Python \
                     stack is above, fix the file and the restart loads it)",
                    child.name,
                    child.restarts
                );
                self.fail_over(index, fired, detected_ns);
                continue;
            }
            child.failures.push_back(now);
            while child
                .failures
                .front()
                .is_some_and(|t| now.duration_since(*t) > child.restart.window)
            {
                child.failures.pop_front();
            }
            if child.failures.len() > child.restart.intensity as usize {
                let message = format!(
                    "{} ended {} times within {:?} (last: {}): restart limit reached",
                    child.name,
                    child.failures.len(),
                    child.restart.window,
                    describe_exit(reason)
                );
                tracing::error!(process = %child.name, "{message}");
                child.state = State::Failed("restart limit reached".to_owned());
                if let Some(fired) = fired {
                    // The takeover counted: the standby that took over stops with the others.
                    self.promote_standby(index, fired.detected_ns);
                    self.children[index].state = State::Failed("restart limit reached".to_owned());
                }
                self.enter_safe_state(message);
                continue;
            }
            let delay = child.backoff;
            child.backoff = if delay.is_zero() {
                BACKOFF_STEP
            } else {
                (delay * 2).min(BACKOFF_CAP)
            };
            child.restarts += 1;
            child.state = State::Backoff(now + delay);
            tracing::warn!(
                process = %child.name,
                "{} exited: {} after {uptime:.2?}; restart {} in {delay:?}",
                child.name,
                describe_exit(reason),
                child.restarts
            );
            self.fail_over(index, fired, detected_ns);
        }
        Ok(())
    }

    /// After a failure of child `index` (counted, back-off computed, state `Backoff`): its
    /// standby takes over at once if the takeover thread did not activate it already and one
    /// is ready; the back-off then delays the next standby, not the takeover. Without a ready
    /// standby the child stays in its back-off (the cold restart).
    fn fail_over(&mut self, index: usize, fired: Option<super::takeover::Fired>, detected_ns: u64) {
        let State::Backoff(at) = self.children[index].state else {
            return;
        };
        if let Some(fired) = fired {
            self.promote_standby(index, fired.detected_ns);
            return;
        }
        if !self.activate_standby(index, detected_ns) {
            let child = &self.children[index];
            if child.standby_enabled {
                tracing::info!(
                    process = %child.name,
                    "no standby of {} is ready: cold restart in {:?}",
                    child.name,
                    at.saturating_duration_since(Instant::now())
                );
            }
        }
    }

    pub(super) fn restart_due(&mut self) -> Result<()> {
        let now = Instant::now();
        for index in 0..self.children.len() {
            if let State::Backoff(at) = self.children[index].state {
                // A standby that became ready meanwhile takes over at once (two failures in
                // quick succession); a requested restart is a cold start anyway.
                let failed = !matches!(
                    self.children[index].last_exit,
                    ExitReason::None | ExitReason::Status(0)
                );
                let detected_ns = self.children[index].failed_ns.unwrap_or_else(monotonic_ns);
                if failed && self.activate_standby(index, detected_ns) {
                    continue;
                }
                if now >= at && !self.reconcile_before_cold_start(index, detected_ns) {
                    self.spawn(index)?;
                }
            }
        }
        Ok(())
    }

    /// Sits the robot down for good: every child but the bridge is stopped, the bridge is told
    /// (SIGUSR1) to sit, turn stiffness off and show red eyes.
    fn enter_safe_state(&mut self, reason: String) {
        if self.safe_state.is_some() {
            return;
        }
        tracing::error!(
            "SAFE STATE: {reason}; the robot sits down with stiffness off; `cortex stop` to end"
        );
        self.safe_state = Some(reason);
        self.retire_standbys();
        for child in self.children.iter_mut().rev() {
            if child.kind == ProcessKind::Lola {
                child.signal(rustix::process::Signal::USR1);
            } else if child.process.is_some() {
                child.signal(rustix::process::Signal::TERM);
            } else if matches!(child.state, State::Backoff(_)) {
                child.state = State::Failed("safe state".to_owned());
            }
        }
    }
}
