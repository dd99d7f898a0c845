//! Warm standbys (issue 11): for each child whose table entry says `standby = true`, a second
//! instance that is started like it (same command, plan generation and environment, plus the
//! standby board), builds everything up to the first tick (configuration, modules, segments
//! mapped; for cognition CPython with the behaviour imported), reports `standby` on the standby
//! board and sleeps on its activation word (`ipc::standby`). It holds no writer role and ticks
//! nothing.
//!
//! ```text
//!  active ticking ──► standby started (after its back-off) ──► ready: armed in `takeover`
//!  active dies ──► takeover thread (pidfd) or reap(): activation word ──► standby ticks
//!            └──► reap(): the standby is the child now; restart counted; the next standby
//!                 after the back-off
//!  standby dies while waiting ──► logged, replaced after its own back-off, never activated
//!  new plan generation, shutdown, safe state ──► the standby is told to end
//! ```
//!
//! With no standby ready (it is still starting, or two failures came quickly) the cold restart
//! of `restart_policy.rs` applies. The failover time is measured from the detection (the
//! pidfd, the reap, or the watchdog's verdict) to the end of the new instance's first tick (the
//! health record's `first_tick_ns`).

use super::child::{describe_exit, State};
use super::{Supervisor, POLL};
use crate::control::ControlServer;
use ipc::health::{monotonic_ns, ExitReason, ProcessState};
use std::os::unix::process::ExitStatusExt;
use std::sync::atomic::AtomicUsize;
use std::time::{Duration, Instant};

/// The first standbys start this long after every process ticks (start-up is busy enough).
pub(super) const FIRST_STANDBY_DELAY: Duration = Duration::from_millis(500);
/// The first back-off after a standby died while waiting, doubled up to the cap.
const STANDBY_BACKOFF_STEP: Duration = Duration::from_millis(100);
/// A standby that keeps dying (a behaviour that crashes at import) is retried this rarely.
const STANDBY_BACKOFF_CAP: Duration = Duration::from_secs(10);
/// A standby not ready this long after its start is stuck: killed and replaced.
const STANDBY_READY_TIMEOUT: Duration = Duration::from_secs(120);
/// A standby ready this long resets its back-off.
const STANDBY_STABLE: Duration = Duration::from_secs(10);

impl Supervisor {
    /// Keeps every child's standby: reaps the dead, notices the ready, arms the takeover,
    /// retires those of an old plan generation, starts new ones when due, and measures the
    /// failovers that ended. Called by the supervision loop.
    pub(super) fn manage_standbys(&mut self) {
        let now = Instant::now();
        let current = self.plans.current();
        // One standby builds at a time: building is the costly part (CPython for cognition),
        // and the active processes need the CPU more.
        let mut building = self.children.iter().any(|child| {
            child
                .standby
                .as_ref()
                .is_some_and(|standby| !standby.retiring && standby.ready_since.is_none())
        });
        for index in 0..self.children.len() {
            self.reap_standby(index, now);
            self.finish_failover(index);
            let child = &mut self.children[index];
            let Some(standby) = child.standby.as_mut() else {
                if self.stopping
                    || building
                    || !self.ready_notified
                    || self.safe_state.is_some()
                    || self.reload.is_some()
                    || !child.standby_enabled
                    || child.state != State::Running
                    || now < child.standby_due
                {
                    continue;
                }
                let ticking = matches!(self.board.read(child.slot), Ok(Some(record))
                    if record.pid == child.pid && record.ticks > 0);
                if ticking {
                    building = true;
                    if let Err(error) = self.spawn_standby(index) {
                        let child = &mut self.children[index];
                        child.standby_backoff = next_backoff(child.standby_backoff);
                        child.standby_due = now + child.standby_backoff;
                        tracing::error!(process = %child.name, "starting the standby of {}: {error:#}; retrying in {:?}", child.name, child.standby_backoff);
                    }
                }
                continue;
            };
            if standby.retiring {
                continue;
            }
            if standby.generation != current || !child.standby_enabled {
                tracing::info!(process = %child.name, pid = standby.pid, "the standby of {} runs an old plan generation: replacing it", child.name);
                standby.retiring = true;
                self.takeover.disarm(index);
                if let Ok(word) = self.standby_board.activation(child.slot) {
                    word.shut_down();
                }
                continue;
            }
            let ready = matches!(self.standby_board.read(child.slot), Ok(Some(record))
                if record.pid == standby.pid && record.state == ProcessState::Standby as u32);
            if !ready {
                if standby.started.elapsed() > STANDBY_READY_TIMEOUT {
                    tracing::warn!(process = %child.name, pid = standby.pid, "the standby of {} is not ready {:?} after its start: SIGKILL, replaced", child.name, STANDBY_READY_TIMEOUT);
                    if let Some(pid) = rustix::process::Pid::from_raw(standby.pid as i32) {
                        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
                    }
                }
                continue;
            }
            if standby.ready_since.is_none() {
                standby.ready_since = Some(now);
                tracing::info!(
                    process = %child.name,
                    pid = standby.pid,
                    "the standby of {} is ready ({:.0?} after its start)",
                    child.name,
                    standby.started.elapsed()
                );
            }
            if standby
                .ready_since
                .is_some_and(|since| now - since >= STANDBY_STABLE)
            {
                child.standby_backoff = Duration::ZERO;
            }
            let armable = child.state == State::Running
                && child.process.is_some()
                && !child.restart_requested
                && self.safe_state.is_none()
                && !self.stopping;
            if armable && !self.takeover.is_armed(index, child.pid, standby.pid) {
                self.takeover.arm(index, child.pid, standby.pid);
            }
        }
    }

    /// A standby that ended while waiting: logged and replaced after its back-off.
    fn reap_standby(&mut self, index: usize, now: Instant) {
        let child = &mut self.children[index];
        let Some(standby) = child.standby.as_mut() else {
            return;
        };
        let status = match standby.process.try_wait() {
            Ok(Some(status)) => status,
            Ok(None) => return,
            Err(error) => {
                tracing::error!(process = %child.name, "waiting for the standby of {}: {error}", child.name);
                return;
            }
        };
        let standby = child.standby.take().expect("looked at above");
        self.takeover.disarm(index);
        let reason = match status.signal() {
            Some(signal) => ExitReason::Signal(signal),
            None => ExitReason::Status(status.code().unwrap_or(-1)),
        };
        if standby.retiring {
            tracing::debug!(process = %child.name, pid = standby.pid, "the standby of {} ended ({})", child.name, describe_exit(reason));
            child.standby_due = now;
        } else {
            child.standby_backoff = next_backoff(child.standby_backoff);
            child.standby_due = now + child.standby_backoff;
            tracing::warn!(
                process = %child.name,
                pid = standby.pid,
                "the standby of {} ended while waiting ({}) after {:.1?}; the active instance \
                 (pid {}) is untouched; a new standby in {:?}",
                child.name,
                describe_exit(reason),
                standby.started.elapsed(),
                child.pid,
                child.standby_backoff
            );
        }
        self.record_processes();
    }

    /// Whether child `index` has a standby ready to take over now (alive, of the current plan
    /// generation, waiting on its word).
    pub(super) fn standby_ready(&mut self, index: usize) -> bool {
        let current = self.plans.current();
        let child = &mut self.children[index];
        let Some(standby) = child.standby.as_mut() else {
            return false;
        };
        if standby.retiring || standby.generation != current {
            return false;
        }
        if !matches!(standby.process.try_wait(), Ok(None)) {
            // Dead: `reap_standby` reports it (the status was taken here, so say so there).
            return false;
        }
        matches!(self.standby_board.read(child.slot), Ok(Some(record))
            if record.pid == standby.pid && record.state == ProcessState::Standby as u32)
    }

    /// Activates child `index`'s ready standby (the supervision loop noticed the failure
    /// first, or the active was cold-restarting); `false` with no standby ready.
    pub(super) fn activate_standby(&mut self, index: usize, detected_ns: u64) -> bool {
        if !self.standby_ready(index) {
            return false;
        }
        // Activated by us now, or already (by the takeover thread, whose report was lost):
        // either way the standby is running as the active now.
        let activated = self
            .standby_board
            .activation(self.children[index].slot)
            .is_ok_and(|word| {
                word.activate() || word.command() == Some(ipc::standby::Command::Activate)
            });
        if activated {
            self.promote_standby(index, detected_ns);
        }
        activated
    }

    /// The activated standby becomes child `index`'s active instance; the next standby starts
    /// after the child's back-off.
    pub(super) fn promote_standby(&mut self, index: usize, detected_ns: u64) {
        self.takeover.disarm(index);
        let child = &mut self.children[index];
        let Some(standby) = child.standby.take() else {
            return;
        };
        child.pid = standby.pid;
        child.start_time = standby.start_time;
        child.process = Some(standby.process);
        // Its uptime and the watchdog's start-up grace count from the activation.
        child.started = Instant::now();
        child.started_ns = monotonic_ns();
        child.generation = standby.generation;
        child.state = State::Running;
        child.abort_sent = None;
        child.frozen_ns = None;
        child.failed_ns = None;
        child.failover_pending = Some((detected_ns, standby.pid));
        child.standby_due = Instant::now() + child.backoff;
        tracing::info!(
            process = %child.name,
            pid = child.pid,
            "{}: the standby (pid {}) took over; a new standby in {:?}",
            child.name,
            child.pid,
            child.backoff
        );
        self.record_processes();
    }

    /// A failover whose new instance has ticked: its time, from the detection to the end of
    /// the first tick.
    fn finish_failover(&mut self, index: usize) {
        let child = &mut self.children[index];
        let Some((detected_ns, pid)) = child.failover_pending else {
            return;
        };
        if child.pid != pid || child.process.is_none() {
            child.failover_pending = None;
            return;
        }
        let Ok(Some(record)) = self.board.read(child.slot) else {
            return;
        };
        if record.pid != pid || record.first_tick_ns == 0 {
            return;
        }
        let milliseconds = record.first_tick_ns.saturating_sub(detected_ns) as f64 / 1e6;
        child.last_failover_ms = Some(milliseconds);
        child.failover_pending = None;
        tracing::info!(
            process = %child.name,
            "{} failed over in {milliseconds:.2} ms (detection to the first tick of pid {pid})",
            child.name
        );
    }

    /// Tells every standby to end (shutdown, safe state) and waits a little for them.
    pub(super) fn retire_standbys(&mut self) {
        for index in 0..self.children.len() {
            self.takeover.disarm(index);
            let slot = self.children[index].slot;
            if let Some(standby) = self.children[index].standby.as_mut() {
                standby.retiring = true;
                if let Ok(word) = self.standby_board.activation(slot) {
                    word.shut_down();
                }
            }
        }
    }

    /// Ends every standby (shutdown): told to end, then SIGKILL after `timeout`; `status`
    /// and `stop` are answered meanwhile.
    pub(super) fn stop_standbys(
        &mut self,
        timeout: Duration,
        control: &ControlServer,
        stop: &AtomicUsize,
    ) {
        self.retire_standbys();
        let deadline = Instant::now() + timeout;
        for index in 0..self.children.len() {
            let Some(mut standby) = self.children[index].standby.take() else {
                continue;
            };
            loop {
                match standby.process.try_wait() {
                    Ok(Some(_)) => break,
                    Ok(None) if Instant::now() < deadline => {
                        self.answer_outside_supervision(control, stop, "stopping", POLL)
                    }
                    _ => {
                        let _ = standby.process.kill();
                        let _ = standby.process.wait();
                        break;
                    }
                }
            }
            let child = &self.children[index];
            tracing::debug!(process = %child.name, pid = standby.pid, "standby stopped");
        }
        self.record_processes();
    }

    /// The bookkeeping checked before a cold start of child `index` (in its back-off): a
    /// standby that was activated but never promoted runs as the active and holds the writer
    /// roles, so it is adopted; another live process of ours that still holds the child's
    /// health slot (its record's pid) is killed first. Either way a cold instance would only
    /// find its roles held, fail, and count toward the safe state in a loop. `true`: the child
    /// runs again (adopted) or the cold start must wait for the holder to end.
    pub(super) fn reconcile_before_cold_start(&mut self, index: usize, detected_ns: u64) -> bool {
        let slot = self.children[index].slot;
        let activated = self
            .standby_board
            .activation(slot)
            .is_ok_and(|word| word.command() == Some(ipc::standby::Command::Activate));
        // Every standby starts with its word reset (`spawn_standby`): `Activate` is its own.
        let adoptable = activated
            && self.children[index]
                .standby
                .as_mut()
                .is_some_and(|standby| matches!(standby.process.try_wait(), Ok(None)));
        if adoptable {
            let child = &self.children[index];
            let pid = child.standby.as_ref().map_or(0, |standby| standby.pid);
            tracing::warn!(
                process = %child.name,
                pid,
                "{}: the standby (pid {pid}) was activated but not promoted; it runs as the                  active and holds the writer roles: adopted instead of a cold start",
                child.name
            );
            self.promote_standby(index, detected_ns);
            return true;
        }
        let Ok(Some(record)) = self.board.read(slot) else {
            return false;
        };
        let simulator = self.simulator.as_ref().map(std::process::Child::id);
        let known = simulator == Some(record.pid)
            || self.children.iter().any(|child| {
                (child.process.is_some() && child.pid == record.pid)
                    || child
                        .standby
                        .as_ref()
                        .is_some_and(|standby| standby.pid == record.pid)
            });
        if record.pid == 0 || known || !is_our_live_child(record.pid) {
            return false;
        }
        let child = &self.children[index];
        tracing::warn!(
            process = %child.name,
            pid = record.pid,
            "{}: pid {} still holds its health slot though the supervisor does not know it as              any instance: SIGKILL, the cold start waits until it has ended",
            child.name,
            record.pid
        );
        if let Some(pid) = rustix::process::Pid::from_raw(record.pid as i32) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
        true
    }

    /// When child `index`'s failure counts as detected: the watchdog's verdict for a frozen
    /// child, else now.
    pub(super) fn detection_ns(&self, index: usize) -> u64 {
        let child = &self.children[index];
        child
            .frozen_ns
            .or(child.failed_ns)
            .unwrap_or_else(monotonic_ns)
    }
}

/// Whether `pid` is a live (not a zombie) child of this supervisor.
fn is_our_live_child(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // After the command name (in parentheses, which may hold anything): state, parent.
    let mut fields = stat
        .rfind(')')
        .map(|end| stat[end + 1..].split_ascii_whitespace())
        .into_iter()
        .flatten();
    let state = fields.next().unwrap_or("X");
    let parent = fields.next().and_then(|parent| parent.parse::<u32>().ok());
    state != "Z" && state != "X" && parent == Some(std::process::id())
}

fn next_backoff(backoff: Duration) -> Duration {
    if backoff.is_zero() {
        STANDBY_BACKOFF_STEP
    } else {
        (backoff * 2).min(STANDBY_BACKOFF_CAP)
    }
}

/// Resident memory of a process, KiB (`VmRSS` of `/proc/PID/status`: its resident pages,
/// those it shares with the active instance included); `None` if it is gone.
pub(super) fn resident_kib(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    text.lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}
