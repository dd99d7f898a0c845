//! The status of a running instance: the control socket's `status` reply, which
//! `cortex status --json` prints as it is, and `cortex status --modules --json` as one row per
//! module ([`ModuleTable`]).
//!
//! A value that is not known is `null` in JSON, never a placeholder: no pid while a process is
//! down, no last exit before the first, no rate or time before the first complete one-second
//! window, no robot before the bridge reported it. The text tables (`status/table.rs`) print `-`
//! for it.
//!
//! ```text
//! {"instance_pid": 4711, "robot": {"body": "P00…", "head": "P00…"}, "safe_state": null,
//!  "stopping": false, "control": {"open": 1, "requests": 12, …},
//!  "processes": [{"name": "motion", "kind": "motion", "pid": 4722, "state": "running",
//!                 "restarts": 0, "last_exit": null, "ticks": 830, "rate_hz": 83.3, …,
//!                 "modules": [{"module": "JointInterpolator", "mean_ms": 0.004, …}]}]}
//! ```

mod table;

use serde::{Deserialize, Serialize};
use std::fmt;

/// The status of a running instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Status {
    /// The supervisor's pid.
    pub instance_pid: u32,
    /// The robot's serial numbers, once the bridge has reported them.
    pub robot: Option<Robot>,
    /// Why the robot sits in the safe state, if it does.
    pub safe_state: Option<String>,
    /// One entry per process, in the order of the process table.
    pub processes: Vec<ProcessStatus>,
    /// What happened on the control socket since start.
    pub control: ControlCounters,
    /// The instance is shutting down.
    pub stopping: bool,
    /// The plan generation a process starts with now (1 at start, one more with each
    /// `cortex reload` that changed a file).
    #[serde(default)]
    pub plan_generation: u64,
    /// The web view's address (`http://HOST:PORT/`, the debug link's WebSocket at `ws/`);
    /// `null` when its port could not be bound.
    #[serde(default)]
    pub debug_url: Option<String>,
}

/// The robot's serial numbers (`RobotConfig` of LoLA).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Robot {
    /// The body's serial number.
    pub body: String,
    /// The head's serial number.
    pub head: String,
}

/// Where a process is in its life; in JSON a string: `"starting"`, `"running"`, `"frozen"`,
/// `"restarting"`, `"failed: <reason>"`, `"stopped"`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum ProcessState {
    /// Started, not ticked yet.
    Starting,
    /// Started and ticking.
    Running,
    /// Its heartbeat stopped: SIGABRT was sent, SIGKILL follows.
    Frozen,
    /// Exited, waiting out its back-off.
    Restarting,
    /// Not restarted, and why (a configuration error, the restart limit, the safe state).
    Failed(String),
    /// Not started, or stopped at shutdown.
    Stopped,
}

const FAILED_PREFIX: &str = "failed: ";

impl fmt::Display for ProcessState {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProcessState::Starting => formatter.write_str("starting"),
            ProcessState::Running => formatter.write_str("running"),
            ProcessState::Frozen => formatter.write_str("frozen"),
            ProcessState::Restarting => formatter.write_str("restarting"),
            ProcessState::Failed(reason) => write!(formatter, "{FAILED_PREFIX}{reason}"),
            ProcessState::Stopped => formatter.write_str("stopped"),
        }
    }
}

impl From<ProcessState> for String {
    fn from(state: ProcessState) -> String {
        state.to_string()
    }
}

impl TryFrom<String> for ProcessState {
    type Error = String;

    fn try_from(text: String) -> Result<ProcessState, String> {
        Ok(match text.as_str() {
            "starting" => ProcessState::Starting,
            "running" => ProcessState::Running,
            "frozen" => ProcessState::Frozen,
            "restarting" => ProcessState::Restarting,
            "stopped" => ProcessState::Stopped,
            _ => match text.strip_prefix(FAILED_PREFIX) {
                Some(reason) => ProcessState::Failed(reason.to_owned()),
                None => {
                    return Err(format!(
                        "`{text}` is not a process state (starting, running, frozen, \
                         restarting, failed: REASON, stopped)"
                    ))
                }
            },
        })
    }
}

/// One process: the supervisor's view (pid, state, restarts, last exit) and its health record
/// (ticks, rate, times, faults).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProcessStatus {
    /// The instance name from the process table (`perception.upper`).
    pub name: String,
    /// The process kind (`motion`, `cognition` …).
    pub kind: String,
    /// The pid, while the process exists.
    pub pid: Option<u32>,
    /// Where it is in its life.
    pub state: ProcessState,
    /// Restarts since the supervisor started.
    pub restarts: u32,
    /// How it ended last, for people (`SIGKILL`, `exit 78 (configuration error)`, `frozen (killed
    /// by the watchdog)`); `null` before its first exit.
    pub last_exit: Option<String>,
    /// The same for programs (`signal:9`, `status:78`, `frozen`); `null` before its first exit.
    pub last_exit_code: Option<String>,
    /// Ticks of the current process.
    pub ticks: u64,
    /// Ticks per second over the last one-second window.
    pub rate_hz: Option<f64>,
    /// Mean tick time over the last window, ms.
    pub tick_mean_ms: Option<f64>,
    /// Longest tick time over the last window, ms.
    pub tick_max_ms: Option<f64>,
    /// Ticks longer than the period.
    pub overruns: u64,
    /// Module panics caught.
    pub panics: u64,
    /// Inputs refused as malformed (the bridge: LoLA frames), see `fault`.
    pub rejected_inputs: u64,
    /// Faults the process survived (a Python error in the behaviour, a bad frame).
    pub faults: u64,
    /// The current fault, in full (file and line of a Python error, byte offset of a frame).
    pub fault: Option<String>,
    /// Crashes inside the Python behaviour (processes that run it).
    pub behaviour_crashes: Option<u64>,
    /// The behaviour file being run or loaded now (processes that run it).
    pub behaviour_file: Option<String>,
    /// Seconds since this process started, while it exists.
    pub uptime_s: Option<f64>,
    /// The heartbeat deadline from the process table, ms.
    pub watchdog_ms: f64,
    /// Each module's update time, in tick order.
    pub modules: Vec<ModuleTime>,
    /// The plan generation it was started with, while it exists (older than the instance's
    /// `plan_generation` for the bridge after a `cortex reload`).
    #[serde(default)]
    pub plan_generation: Option<u64>,
    /// Its warm standby (`standby = true` in the process table): `"ready"` (waiting, takes
    /// over at once), `"starting"`, or `null` (none now: not configured, or being replaced).
    #[serde(default)]
    pub standby: Option<StandbyState>,
    /// The standby's pid, while one exists.
    #[serde(default)]
    pub standby_pid: Option<u32>,
    /// The standby's resident memory, KiB (`VmRSS` of `/proc/PID/status`: its resident pages,
    /// those shared with the active instance included), while one exists.
    #[serde(default)]
    pub standby_rss_kib: Option<u64>,
    /// The last failover, ms: from the detection of the failure (the kill seen, or the
    /// watchdog's verdict) to the end of the first tick of the standby that took over (health
    /// board timestamps); `null` before the first.
    #[serde(default)]
    pub last_failover_ms: Option<f64>,
}

/// Where a process's warm standby is; in JSON `"ready"` or `"starting"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StandbyState {
    /// Started, still building its modules (or importing the behaviour).
    Starting,
    /// Built and waiting on its activation word.
    Ready,
}

impl fmt::Display for StandbyState {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            StandbyState::Starting => "starting",
            StandbyState::Ready => "ready",
        })
    }
}

/// One module's update time over the last window; `null` while no window is complete.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModuleTime {
    /// The module's name.
    pub module: String,
    /// The last update, ms.
    pub last_ms: Option<f64>,
    /// The mean update, ms.
    pub mean_ms: Option<f64>,
    /// The longest update, ms.
    pub max_ms: Option<f64>,
}

/// What happened on the control socket since start.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControlCounters {
    /// Connections open now.
    pub open: u64,
    /// Requests handed to the supervisor.
    pub requests: u64,
    /// Connections refused because all places were taken and none was idle.
    pub refused_busy: u64,
    /// Idle connections closed to make room for a new one.
    pub evicted_idle: u64,
    /// Request lines over the size cap.
    pub refused_oversized: u64,
    /// Connections that sent no complete line in time.
    pub timed_out: u64,
    /// Lines that were not a request.
    pub malformed: u64,
    /// Requests refused because their deadline had passed or their client had gone.
    pub expired: u64,
}

/// `cortex status --modules --json`: one row per module, in process order and each process's
/// tick order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModuleTable {
    /// The rows.
    pub modules: Vec<ModuleRow>,
}

/// One module of [`ModuleTable`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModuleRow {
    /// The process it runs in.
    pub process: String,
    /// The module's name.
    pub module: String,
    /// The last update, ms.
    pub last_ms: Option<f64>,
    /// The mean update, ms.
    pub mean_ms: Option<f64>,
    /// The longest update, ms.
    pub max_ms: Option<f64>,
}

/// As the JSON line `cortex status --json` prints.
impl fmt::Display for Status {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let json = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        formatter.write_str(&json)
    }
}

/// As its entry in the JSON line.
impl fmt::Display for ProcessStatus {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let json = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        formatter.write_str(&json)
    }
}

impl Status {
    /// The process named `name`.
    pub fn process(&self, name: &str) -> Option<&ProcessStatus> {
        self.processes.iter().find(|process| process.name == name)
    }

    /// Whether every process is running and has ticked.
    pub fn all_ticking(&self) -> bool {
        self.processes
            .iter()
            .all(|process| process.state == ProcessState::Running && process.ticks > 0)
    }

    /// One row per module.
    pub fn module_table(&self) -> ModuleTable {
        let modules = self
            .processes
            .iter()
            .flat_map(|process| {
                process.modules.iter().map(|module| ModuleRow {
                    process: process.name.clone(),
                    module: module.module.clone(),
                    last_ms: module.last_ms,
                    mean_ms: module.mean_ms,
                    max_ms: module.max_ms,
                })
            })
            .collect();
        ModuleTable { modules }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn process(name: &str, state: ProcessState) -> ProcessStatus {
        ProcessStatus {
            name: name.to_owned(),
            kind: "motion".to_owned(),
            pid: None,
            state,
            restarts: 0,
            last_exit: None,
            last_exit_code: None,
            ticks: 0,
            rate_hz: None,
            tick_mean_ms: None,
            tick_max_ms: None,
            overruns: 0,
            panics: 0,
            rejected_inputs: 0,
            faults: 0,
            fault: None,
            standby: None,
            standby_pid: None,
            standby_rss_kib: None,
            last_failover_ms: None,
            behaviour_crashes: None,
            behaviour_file: None,
            uptime_s: None,
            watchdog_ms: 36.0,
            plan_generation: None,
            modules: vec![ModuleTime {
                module: "JointInterpolator".to_owned(),
                last_ms: None,
                mean_ms: Some(0.004),
                max_ms: None,
            }],
        }
    }

    /// Two processes: motion running with a fault, audio failed; the safe state.
    pub(super) fn status() -> Status {
        let mut running = process("motion", ProcessState::Running);
        running.pid = Some(4722);
        running.ticks = 830;
        running.rate_hz = Some(83.33);
        running.last_exit = Some("SIGKILL".to_owned());
        running.last_exit_code = Some("signal:9".to_owned());
        running.fault = Some("behaviour.py:3: ZeroDivisionError".to_owned());
        running.faults = 2;
        Status {
            instance_pid: 4711,
            robot: None,
            safe_state: Some("audio ended 6 times".to_owned()),
            processes: vec![
                running,
                process("audio", ProcessState::Failed("safe state".to_owned())),
            ],
            control: ControlCounters {
                requests: 12,
                expired: 3,
                ..ControlCounters::default()
            },
            stopping: false,
            plan_generation: 1,
            debug_url: None,
        }
    }

    #[test]
    fn what_is_not_known_is_null_in_json() {
        let status = status();
        let json = serde_json::to_value(&status).unwrap();
        let audio = &json["processes"][1];
        for key in ["pid", "last_exit", "last_exit_code", "rate_hz", "uptime_s"] {
            assert!(audio[key].is_null(), "{key}: {}", audio[key]);
        }
        assert!(json["robot"].is_null());
        assert_eq!(audio["state"], "failed: safe state");
        assert_eq!(json["processes"][0]["last_exit"], "SIGKILL");
        assert!(json["processes"][0]["modules"][0]["last_ms"].is_null());
        assert!(!json.to_string().contains("\"-\""), "{json}");
    }

    #[test]
    fn the_standby_fields_are_strings_or_null_and_may_be_missing() {
        let mut status = status();
        status.processes[0].standby = Some(StandbyState::Ready);
        status.processes[0].standby_pid = Some(4730);
        status.processes[0].standby_rss_kib = Some(10_652);
        status.processes[0].last_failover_ms = Some(1.04);
        let json = serde_json::to_value(&status).unwrap();
        assert_eq!(json["processes"][0]["standby"], "ready");
        assert_eq!(json["processes"][0]["last_failover_ms"], 1.04);
        for key in [
            "standby",
            "standby_pid",
            "standby_rss_kib",
            "last_failover_ms",
        ] {
            assert!(json["processes"][1][key].is_null(), "{key}");
        }
        let starting: StandbyState = serde_json::from_value("starting".into()).unwrap();
        assert_eq!(starting, StandbyState::Starting);
        assert!(serde_json::from_value::<StandbyState>("warm".into()).is_err());
        // A reply of a supervisor without standbys still reads.
        let mut old = json.clone();
        for process in old["processes"].as_array_mut().unwrap() {
            for key in [
                "standby",
                "standby_pid",
                "standby_rss_kib",
                "last_failover_ms",
            ] {
                process.as_object_mut().unwrap().remove(key);
            }
        }
        let back: Status = serde_json::from_value(old).unwrap();
        assert_eq!(back.processes[0].standby, None);
        assert!(status.table().contains("STANDBY"));
        assert!(status.table().contains("ready"));
    }

    #[test]
    fn a_status_reads_back_as_itself_and_a_strange_state_is_refused() {
        let status = status();
        let text = serde_json::to_string(&status).unwrap();
        let back: Status = serde_json::from_str(&text).unwrap();
        assert_eq!(back, status);
        for state in [
            "starting",
            "running",
            "frozen",
            "restarting",
            "stopped",
            "failed: x",
        ] {
            let parsed: ProcessState = serde_json::from_value(state.into()).unwrap();
            assert_eq!(parsed.to_string(), state);
        }
        let error = serde_json::from_str::<Status>(&text.replace("\"running\"", "\"ok\""))
            .unwrap_err()
            .to_string();
        assert!(error.contains("`ok` is not a process state"), "{error}");
        // The placeholder of old: a pid must be a number or null.
        assert!(serde_json::from_str::<Status>(&text.replace("4722", "\"-\"")).is_err());
    }

    #[test]
    fn the_module_table_has_one_row_per_module_in_process_order() {
        let table = status().module_table();
        let processes: Vec<&str> = table
            .modules
            .iter()
            .map(|row| row.process.as_str())
            .collect();
        assert_eq!(processes, ["motion", "audio"]);
        assert_eq!(table.modules[0].mean_ms, Some(0.004));
    }
}
