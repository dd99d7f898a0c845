//! The `status` reply ([`supervisor::status::Status`]): one entry per process from the
//! supervisor's bookkeeping and the process's health record (ticks, times, faults, per-module
//! times), and the control socket's counters.

use super::child::{describe_exit, State};
use super::Supervisor;
use crate::child_env::exit_reason_text;
use ipc::health::{ExitReason, HealthRecord};
use supervisor::status::{
    ControlCounters, ModuleTime, ProcessState, ProcessStatus, Robot, StandbyState, Status,
};

impl Supervisor {
    /// The status now; `control` is what the control socket has counted.
    pub(super) fn status(&self, control: ControlCounters) -> Status {
        let processes = self
            .children
            .iter()
            .map(|child| {
                let record = self
                    .board
                    .read(child.slot)
                    .ok()
                    .flatten()
                    .filter(|record| record.pid == child.pid);
                let state = match &child.state {
                    State::Running if child.abort_sent.is_some() => ProcessState::Frozen,
                    State::Running => match record.map(|record| record.ticks) {
                        Some(ticks) if ticks > 0 => ProcessState::Running,
                        _ => ProcessState::Starting,
                    },
                    State::Backoff(_) => ProcessState::Restarting,
                    State::Failed(reason) => ProcessState::Failed(reason.clone()),
                    State::Stopped => ProcessState::Stopped,
                };
                let record = record.unwrap_or_else(|| HealthRecord::named(&child.name));
                let behaviour_crash = child.behaviour.as_ref().and_then(|w| w.recent_crash());
                // 0 in the health record: not measured yet (no tick, no complete window).
                let milliseconds = |ns: u64| (ns > 0).then(|| ns as f64 / 1e6);
                let modules = record
                    .modules()
                    .iter()
                    .map(|module| ModuleTime {
                        module: module.name(),
                        last_ms: milliseconds(module.last_ns),
                        mean_ms: milliseconds(module.mean_ns),
                        max_ms: milliseconds(module.max_ns),
                    })
                    .collect();
                let exited = child.last_exit != ExitReason::None;
                let running = child.process.is_some();
                ProcessStatus {
                    name: child.name.clone(),
                    kind: child.kind.as_str().to_owned(),
                    pid: running.then_some(child.pid),
                    state,
                    restarts: child.restarts,
                    last_exit: exited.then(|| describe_exit(child.last_exit)),
                    last_exit_code: exited.then(|| exit_reason_text(child.last_exit)),
                    ticks: record.ticks,
                    rate_hz: (record.rate_mhz > 0).then(|| record.rate_mhz as f64 / 1000.0),
                    tick_mean_ms: milliseconds(record.tick_mean_ns),
                    tick_max_ms: milliseconds(record.tick_max_ns),
                    overruns: record.overruns,
                    panics: record.panics,
                    rejected_inputs: record.rejected_inputs,
                    faults: record.faults,
                    fault: record
                        .fault()
                        .or_else(|| behaviour_crash.map(str::to_owned)),
                    behaviour_crashes: child.behaviour.as_ref().map(|w| w.crashes()),
                    behaviour_file: child.behaviour.as_ref().and_then(|w| w.file()),
                    uptime_s: running.then(|| child.started.elapsed().as_secs_f64()),
                    watchdog_ms: child.watchdog.as_secs_f64() * 1000.0,
                    modules,
                    plan_generation: running.then_some(child.generation),
                    standby: child.standby.as_ref().filter(|s| !s.retiring).map(|standby| {
                        let ready = matches!(self.standby_board.read(child.slot), Ok(Some(record))
                            if record.pid == standby.pid
                                && record.state == ipc::health::ProcessState::Standby as u32);
                        if ready {
                            StandbyState::Ready
                        } else {
                            StandbyState::Starting
                        }
                    }),
                    standby_pid: child.standby.as_ref().map(|standby| standby.pid),
                    standby_rss_kib: child
                        .standby
                        .as_ref()
                        .and_then(|standby| super::standby::resident_kib(standby.pid)),
                    last_failover_ms: child.last_failover_ms,
                }
            })
            .collect();
        Status {
            instance_pid: std::process::id(),
            robot: self.identity.as_ref().map(|(body, head)| Robot {
                body: body.clone(),
                head: head.clone(),
            }),
            safe_state: self.safe_state.clone(),
            processes,
            control,
            stopping: self.stopping,
            plan_generation: self.plans.current(),
            debug_url: self.debug_link.as_ref().map(|link| link.url.clone()),
        }
    }
}
