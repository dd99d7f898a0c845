//! What the supervisor knows of one child (its state, pid, restarts, back-off, watchdog), and
//! how an exit reads for people.

use crate::behaviour_faults::BehaviourWatch;
use config::{ProcessKind, ProcessSpec, RestartPolicy};
use ipc::health::ExitReason;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Where a child is in its life.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum State {
    /// Started (it may not have ticked yet).
    Running,
    /// Waiting to be restarted at this time.
    Backoff(Instant),
    /// Not restarted (configuration error, intensity reached, safe state).
    Failed(String),
    /// Not started yet, or stopped at shutdown.
    Stopped,
}

/// What the supervisor knows of one child of the process table.
#[derive(Debug)]
pub(super) struct Child {
    pub(super) name: String,
    pub(super) kind: ProcessKind,
    pub(super) slot: usize,
    pub(super) watchdog: Duration,
    pub(super) restart: RestartPolicy,
    pub(super) channels: Vec<String>,
    pub(super) process: Option<std::process::Child>,
    pub(super) pid: u32,
    /// The kernel's start time of `pid` (for the run directory's lock file).
    pub(super) start_time: u64,
    pub(super) started: Instant,
    pub(super) started_ns: u64,
    pub(super) restarts: u32,
    pub(super) failures: VecDeque<Instant>,
    pub(super) backoff: Duration,
    pub(super) last_exit: ExitReason,
    pub(super) state: State,
    /// SIGABRT sent at (a freeze); SIGKILL follows after the grace.
    pub(super) abort_sent: Option<Instant>,
    /// An operator asked for the restart (not a failure).
    pub(super) restart_requested: bool,
    /// The marker of a process that runs the Python behaviour (its faults are restarted
    /// without counting toward the safe state, see `behaviour_faults`).
    pub(super) behaviour: Option<BehaviourWatch>,
    /// `RLIMIT_DATA` from the process table, MB.
    pub(super) memory_limit_mb: Option<u64>,
    /// The plan generation it was started with (`plan_store`).
    pub(super) generation: u64,
    /// The process table says it has a warm standby.
    pub(super) standby_enabled: bool,
    /// Its warm standby, while one runs (starting or ready).
    pub(super) standby: Option<Standby>,
    /// When the next standby may start (its back-off after a takeover or a standby's death).
    pub(super) standby_due: Instant,
    /// Back-off before the next standby after a standby died while waiting.
    pub(super) standby_backoff: Duration,
    /// A failover whose new instance has not ticked yet: when the failure was detected
    /// (`CLOCK_MONOTONIC` ns) and the new instance's pid.
    pub(super) failover_pending: Option<(u64, u32)>,
    /// The last failover: detection to the first tick of the standby that took over, ms.
    pub(super) last_failover_ms: Option<f64>,
    /// When the watchdog declared the active frozen (`CLOCK_MONOTONIC` ns): the failover
    /// starts there.
    pub(super) frozen_ns: Option<u64>,
    /// When the supervision loop saw its last failure (`CLOCK_MONOTONIC` ns), for a standby
    /// that takes over later from the back-off.
    pub(super) failed_ns: Option<u64>,
}

/// A warm standby of a child: started like it, built, waiting on its activation word.
#[derive(Debug)]
pub(super) struct Standby {
    pub(super) process: std::process::Child,
    pub(super) pid: u32,
    /// The kernel's start time of `pid` (for the run directory's lock file).
    pub(super) start_time: u64,
    pub(super) started: Instant,
    /// The plan generation it was started with.
    pub(super) generation: u64,
    /// Told to end (shutdown, a new plan generation): its exit is no failure.
    pub(super) retiring: bool,
    /// When it was first seen ready.
    pub(super) ready_since: Option<Instant>,
}

/// Name of a signal for people.
pub fn signal_name(signal: i32) -> String {
    signal_hook::low_level::signal_name(signal)
        .map_or_else(|| format!("signal {signal}"), str::to_owned)
}

/// An exit reason for people.
pub fn describe_exit(reason: ExitReason) -> String {
    match reason {
        ExitReason::None => "none".to_owned(),
        ExitReason::Status(0) => "exit 0".to_owned(),
        ExitReason::Status(status) if status == i32::from(config::EX_CONFIG) => {
            format!("exit {status} (configuration error)")
        }
        ExitReason::Status(status) => format!("exit {status}"),
        ExitReason::Signal(signal) => signal_name(signal),
        ExitReason::Frozen => "frozen (killed by the watchdog)".to_owned(),
    }
}

impl Child {
    pub(super) fn new(spec: &ProcessSpec, slot: usize) -> Child {
        Child {
            name: spec.name.clone(),
            kind: spec.kind,
            slot,
            watchdog: spec.watchdog,
            restart: spec.restart,
            channels: Vec::new(),
            process: None,
            pid: 0,
            start_time: 0,
            started: Instant::now(),
            started_ns: 0,
            restarts: 0,
            failures: VecDeque::new(),
            backoff: Duration::ZERO,
            last_exit: ExitReason::None,
            state: State::Stopped,
            abort_sent: None,
            restart_requested: false,
            behaviour: None,
            memory_limit_mb: spec.memory_limit_mb,
            generation: 0,
            standby_enabled: spec.standby,
            standby: None,
            standby_due: Instant::now(),
            standby_backoff: Duration::ZERO,
            failover_pending: None,
            last_failover_ms: None,
            frozen_ns: None,
            failed_ns: None,
        }
    }

    pub(super) fn signal(&self, signal: rustix::process::Signal) {
        if let Some(pid) = rustix::process::Pid::from_raw(self.pid as i32) {
            if self.process.is_some() {
                let _ = rustix::process::kill_process(pid, signal);
            }
        }
    }
}
