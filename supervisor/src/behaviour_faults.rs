//! What the supervisor does about a broken Python behaviour, and the limits it puts on every
//! child.
//!
//! **Behaviour faults.** `cognition` says in a marker (shared memory the supervisor keeps, see
//! `behaviours::marker`) when it runs the behaviour's Python code. A run that ends (crash,
//! `os._exit`, a freeze killed by the watchdog) while the marker says "inside the behaviour" is
//! a behaviour fault: it is restarted with the usual back-off (10 ms doubling to 1 s), it does
//! *not* count toward the restart intensity, so it never puts the robot into the safe state, and
//! the log and `cortex status` name the behaviour file. The restarted process stands for one
//! tick before it runs Python again and loads the file as it is then: fixing the file ends the
//! crash loop. rUNSWift's policy: a broken behaviour leaves the robot standing.
//!
//! **Limits.** Each child gets its process table's `memory_limit_mb` as `RLIMIT_DATA` (heap and
//! thread stacks; the shared-memory channels do not count) and an `oom_score_adj` by kind, so
//! that under memory pressure the kernel ends `cognition` first and the bridge last.

use anyhow::{Context, Result};
use behaviours::marker::{self, BehaviourMarker, Phase};
use config::ProcessKind;
use ipc::TripleBuffer;
use std::os::fd::{AsFd, BorrowedFd};
use std::time::{Duration, Instant};

/// The module whose process gets a marker.
pub const BEHAVIOUR_MODULE: &str = "BehaviourControl";

/// How long `cortex status` keeps showing the last behaviour crash of a process that runs.
const CRASH_SHOWN_FOR: Duration = Duration::from_secs(30);

/// The marker of one process that runs the behaviour, and its last crash.
#[derive(Debug)]
pub struct BehaviourWatch {
    marker: TripleBuffer,
    last_crash: Option<(String, Instant)>,
    crashes: u64,
}

impl BehaviourWatch {
    /// Creates the marker for `process`.
    pub fn create(process: &str) -> Result<BehaviourWatch> {
        Ok(BehaviourWatch {
            marker: marker::create_marker(&format!("{process}.behaviour-marker"))
                .with_context(|| format!("creating the behaviour marker of {process}"))?,
            last_crash: None,
            crashes: 0,
        })
    }

    /// The descriptor the child inherits.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.marker.as_fd()
    }

    /// The marker, if the process `pid` was inside the behaviour when it said so last (also
    /// once its warm standby has taken over and marked: the standby's records name it).
    pub fn blame(&self, pid: u32) -> Option<BehaviourMarker> {
        marker::read_marker(&self.marker)
            .and_then(|marker| marker.of_process(pid))
            .filter(|marker| marker.phase() != Phase::Outside)
    }

    /// The behaviour file the process said it runs, for `cortex status`.
    pub fn file(&self) -> Option<String> {
        marker::read_marker(&self.marker)
            .map(|marker| marker.file())
            .filter(|file| !file.is_empty())
    }

    /// Records a crash blamed on the behaviour; returns the line for the log and `status`.
    pub fn crashed(&mut self, marker: &BehaviourMarker, how: &str) -> String {
        self.crashes += 1;
        let text = format!(
            "behaviour crash ({how}) {} in {}",
            marker.phase().describe(),
            marker.file()
        );
        self.last_crash = Some((text.clone(), Instant::now()));
        text
    }

    /// The last crash, while it is recent, for `cortex status`.
    pub fn recent_crash(&self) -> Option<&str> {
        self.last_crash
            .as_ref()
            .filter(|(_, at)| at.elapsed() < CRASH_SHOWN_FOR)
            .map(|(text, _)| text.as_str())
    }

    /// Crashes blamed on the behaviour since the supervisor started.
    pub fn crashes(&self) -> u64 {
        self.crashes
    }
}

/// The `oom_score_adj` of a child: who the kernel's OOM killer ends first (higher first).
/// Raising it needs no privileges; the bridge keeps the supervisor's own value.
pub fn oom_score_adj(kind: ProcessKind) -> i32 {
    match kind {
        ProcessKind::Lola => 0,
        ProcessKind::Motion => 100,
        ProcessKind::Audio | ProcessKind::Network | ProcessKind::Debug => 500,
        ProcessKind::Perception => 600,
        ProcessKind::Cognition => 900,
    }
}

/// Applies the memory limit and the OOM score to the child `pid`, right after it was spawned
/// (before it has loaded anything big: `cortex proc` reads its configuration first). A failure
/// is logged, not fatal: the robot plays better without a limit than not at all.
pub fn apply_limits(process: &str, pid: u32, kind: ProcessKind, memory_limit_mb: Option<u64>) {
    if let Some(megabytes) = memory_limit_mb {
        let bytes = megabytes.saturating_mul(1 << 20);
        let limit = rustix::process::Rlimit {
            current: Some(bytes),
            maximum: Some(bytes),
        };
        let result = rustix::process::Pid::from_raw(pid as i32)
            .ok_or(rustix::io::Errno::SRCH)
            .and_then(|pid| {
                rustix::process::prlimit(Some(pid), rustix::process::Resource::Data, limit)
            });
        match result {
            Ok(_) => {}
            // Already gone (a configuration error ends a child at once): reaped as usual.
            Err(rustix::io::Errno::SRCH) => {}
            Err(error) => {
                tracing::warn!(
                    process,
                    "setting its memory limit of {megabytes} MB: {error}"
                )
            }
        }
    }
    let score = oom_score_adj(kind);
    let path = format!("/proc/{pid}/oom_score_adj");
    if let Err(error) = std::fs::write(&path, score.to_string()) {
        tracing::debug!(process, "writing {path}: {error}");
    }
}
