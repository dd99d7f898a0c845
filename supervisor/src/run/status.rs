//! The `status` reply: one entry per process from the supervisor's bookkeeping and the
//! process's health record (ticks, times, faults, per-module times).

use super::child::{describe_exit, State};
use super::Supervisor;
use crate::child_env::exit_reason_text;
use ipc::health::HealthRecord;

impl Supervisor {
    pub(super) fn status(&self) -> serde_json::Value {
        let processes: Vec<serde_json::Value> = self
            .children
            .iter()
            .map(|child| {
                let record = self.board.read(child.slot).ok().flatten().filter(|r| r.pid == child.pid);
                let state = match &child.state {
                    State::Running if child.abort_sent.is_some() => "frozen".to_owned(),
                    State::Running => match record.map(|r| r.ticks) {
                        Some(ticks) if ticks > 0 => "running".to_owned(),
                        _ => "starting".to_owned(),
                    },
                    State::Backoff(_) => "restarting".to_owned(),
                    State::Failed(reason) => format!("failed: {reason}"),
                    State::Stopped => "stopped".to_owned(),
                };
                let record = record.unwrap_or_else(|| HealthRecord::named(&child.name));
                let behaviour_crash = child.behaviour.as_ref().and_then(|w| w.recent_crash());
                // Each module's update time; 0 ns (no update or no complete window yet) is null.
                let milliseconds = |ns: u64| (ns > 0).then(|| ns as f64 / 1e6);
                let modules: Vec<serde_json::Value> = record
                    .modules()
                    .iter()
                    .map(|module| {
                        serde_json::json!({
                            "module": module.name(),
                            "last_ms": milliseconds(module.last_ns),
                            "mean_ms": milliseconds(module.mean_ns),
                            "max_ms": milliseconds(module.max_ns),
                        })
                    })
                    .collect();
                serde_json::json!({
                    "name": child.name,
                    "kind": child.kind.as_str(),
                    "pid": child.process.as_ref().map(|_| child.pid),
                    "state": state,
                    "restarts": child.restarts,
                    "last_exit": describe_exit(child.last_exit),
                    "last_exit_code": exit_reason_text(child.last_exit),
                    "ticks": record.ticks,
                    "rate_hz": record.rate_mhz as f64 / 1000.0,
                    "tick_mean_ms": record.tick_mean_ns as f64 / 1e6,
                    "tick_max_ms": record.tick_max_ns as f64 / 1e6,
                    "overruns": record.overruns,
                    "panics": record.panics,
                    // Inputs refused as malformed (the bridge: LoLA frames), see `fault`.
                    "rejected_inputs": record.rejected_inputs,
                    "faults": record.faults,
                    "fault": record.fault().or_else(|| behaviour_crash.map(str::to_owned)),
                    "behaviour_crashes": child.behaviour.as_ref().map(|w| w.crashes()),
                    "behaviour_file": child.behaviour.as_ref().and_then(|w| w.file()),
                    "uptime_s": child.process.as_ref().map(|_| child.started.elapsed().as_secs_f64()),
                    "watchdog_ms": child.watchdog.as_secs_f64() * 1000.0,
                    "modules": modules,
                })
            })
            .collect();
        serde_json::json!({
            "instance_pid": std::process::id(),
            "robot": self.identity.as_ref().map(|(body, head)| serde_json::json!({"body": body, "head": head})),
            "safe_state": self.safe_state,
            "processes": processes,
            "control": self.control,
            "stopping": self.stopping,
        })
    }
}
