//! The link's side of the processes' debug outputs (`framework::debug_output`): it finds each
//! process's two channels in the process running now (through `/proc/<pid>/fd`, the pid from
//! the health board), counts the subscribers of each output over every session, and writes the
//! process's request channel: each output's bit while it has a subscriber, valid for
//! [`REQUEST_LEASE`] and renewed every
//! [`RENEW_EVERY`]; cleared at once when the last subscriber leaves or disconnects.
//!
//! ```text
//!  session A subscribe(perception.upper, BallPerceptor.candidates) ─┐
//!  session B subscribe(…same…)                                      ├─▶ counts {upper: {3: 2}}
//!  session A leaves                                                 ─┘      │ bits, valid 1 s
//!                                                          perception.upper.DebugRequests ◀┘
//! ```
//!
//! Nothing here is waited for by a process: the request channel is a triple buffer the link
//! alone writes, and the process reads it with one atomic load per tick.

use framework::debug_output::{self, Declared, OutputChannels, REQUEST_LEASE};
use ipc::HealthBoard;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often the requests of subscribed outputs are written again.
pub const RENEW_EVERY: Duration = Duration::from_millis(300);
/// How long a process whose channels could not be found is not looked at again.
const RETRY: Duration = Duration::from_millis(300);
/// How long the pid of a process whose channels were found is trusted without a look.
const CHECK_PID: Duration = Duration::from_millis(100);

/// A process's channels as found now.
#[derive(Debug, Clone)]
pub struct Found {
    /// Its pid.
    pub pid: u32,
    /// Its channels.
    pub channels: Arc<OutputChannels>,
}

#[derive(Debug, Default)]
struct Target {
    found: Option<Found>,
    failed: Option<(u32, Instant, String)>,
    /// Output name → subscribers (names, not indices: a restarted process may number anew).
    counts: BTreeMap<String, usize>,
    renewed: Option<Instant>,
    checked: Option<Instant>,
    /// Provider switches asked for: (representation, module), kept while the link runs and
    /// written again to a process that was replaced.
    switches: Vec<(String, String)>,
}

/// Every process's debug outputs as the link sees them.
#[derive(Debug, Default)]
pub struct OutputLink {
    targets: Mutex<HashMap<String, Target>>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The pid of `process` on the health board, if it runs.
fn pid_of(board: &HealthBoard, process: &str) -> Option<u32> {
    (0..board.slots())
        .filter_map(|slot| board.read(slot).ok().flatten())
        .find(|record| record.name() == process)
        .map(|record| record.pid)
        .filter(|pid| *pid != 0)
}

/// The processes on the health board.
pub fn processes(board: &HealthBoard) -> Vec<String> {
    (0..board.slots())
        .filter_map(|slot| board.read(slot).ok().flatten())
        .map(|record| record.name())
        .filter(|name| !name.is_empty())
        .collect()
}

impl Target {
    fn current(&mut self, board: &HealthBoard, process: &str) -> Result<Found, String> {
        // The health board is looked at again only every CHECK_PID (every session polls).
        if let (Some(found), Some(checked)) = (&self.found, self.checked) {
            if checked.elapsed() < CHECK_PID {
                return Ok(found.clone());
            }
        }
        self.checked = Some(Instant::now());
        let pid = pid_of(board, process).ok_or_else(|| format!("{process} is not running"))?;
        if let Some(found) = self.found.as_ref().filter(|found| found.pid == pid) {
            return Ok(found.clone());
        }
        if let Some((failed, at, message)) = &self.failed {
            if *failed == pid && at.elapsed() < RETRY {
                return Err(message.clone());
            }
        }
        match OutputChannels::open_of_process(pid, process) {
            Ok(channels) => {
                let found = Found {
                    pid,
                    channels: Arc::new(channels),
                };
                self.found = Some(found.clone());
                self.failed = None;
                // A new process: its requests are written anew.
                self.renewed = None;
                Ok(found)
            }
            Err(error) => {
                let message = error.to_string();
                self.failed = Some((pid, Instant::now(), message.clone()));
                Err(message)
            }
        }
    }

    /// Writes the bits of the subscribed outputs (none: cleared).
    fn write_request(&mut self, process: &str) {
        let Some(found) = &self.found else {
            return;
        };
        let catalog = catalog_of(&found.channels).unwrap_or_default();
        let subscribed: Vec<usize> = self
            .counts
            .iter()
            .filter(|(_, count)| **count > 0)
            .filter_map(|(name, _)| catalog.iter().position(|entry| entry.name == *name))
            .collect();
        let until = if subscribed.is_empty() {
            0
        } else {
            ipc::health::monotonic_ns() + REQUEST_LEASE
        };
        let bytes = debug_output::encode_request(until, &subscribed, &self.switches);
        match found.channels.requests.writer() {
            Ok(mut writer) => {
                if let Err(error) = writer.publish(&bytes) {
                    tracing::debug!("debug outputs of {process}: {error}");
                }
            }
            Err(error) => tracing::debug!("debug outputs of {process}: {error}"),
        }
        self.renewed = Some(Instant::now());
    }
}

/// The catalogue in a process's newest frame (`None`: it published none yet).
pub fn catalog_of(channels: &OutputChannels) -> Option<Vec<Declared>> {
    newest_frame(channels).map(|frame| frame.catalog)
}

/// A process's newest frame (catalogue, providers; `None`: it published none yet).
pub fn newest_frame(channels: &OutputChannels) -> Option<debug_output::DebugFrame> {
    let mut bytes = Vec::new();
    channels.frames.reader().read_latest(&mut bytes).ok()??;
    debug_output::decode_frame(&bytes).ok()
}

impl OutputLink {
    /// The channels of `process` now, or why there are none.
    pub fn current(&self, board: &HealthBoard, process: &str) -> Result<Found, String> {
        lock(&self.targets)
            .entry(process.to_owned())
            .or_default()
            .current(board, process)
    }

    /// One more subscriber of `output` of `process`; its bit is written at once.
    pub fn subscribe(&self, board: &HealthBoard, process: &str, output: &str) {
        let mut targets = lock(&self.targets);
        let target = targets.entry(process.to_owned()).or_default();
        *target.counts.entry(output.to_owned()).or_default() += 1;
        if target.current(board, process).is_ok() {
            target.write_request(process);
        }
    }

    /// One subscriber fewer; the bit is cleared at once when it was the last.
    pub fn release(&self, board: &HealthBoard, process: &str, output: &str) {
        let mut targets = lock(&self.targets);
        let Some(target) = targets.get_mut(process) else {
            return;
        };
        if let Some(count) = target.counts.get_mut(output) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                target.counts.remove(output);
            }
        }
        if target.current(board, process).is_ok() {
            target.write_request(process);
        }
    }

    /// Writes again the requests due for renewal (and those of processes that were replaced).
    pub fn renew(&self, board: &HealthBoard) {
        let mut targets = lock(&self.targets);
        for (process, target) in targets.iter_mut() {
            if target.counts.is_empty() && target.switches.is_empty() {
                continue;
            }
            let due = target
                .renewed
                .is_none_or(|renewed| renewed.elapsed() >= RENEW_EVERY);
            // A replaced process is found at the next renewal (its requests written then).
            if due && target.current(board, process).is_ok() {
                target.write_request(process);
            }
        }
    }

    /// Asks `process` to let `module` provide `representation` from its next tick on (kept
    /// and written again to a process that replaces it).
    pub fn switch(&self, board: &HealthBoard, process: &str, representation: &str, module: &str) {
        let mut targets = lock(&self.targets);
        let target = targets.entry(process.to_owned()).or_default();
        target
            .switches
            .retain(|(switched, _)| switched != representation);
        target
            .switches
            .push((representation.to_owned(), module.to_owned()));
        if target.current(board, process).is_ok() {
            target.write_request(process);
        }
    }

    /// How many subscribe to `output` of `process` (tests, status).
    pub fn subscribers(&self, process: &str, output: &str) -> usize {
        lock(&self.targets)
            .get(process)
            .and_then(|target| target.counts.get(output).copied())
            .unwrap_or(0)
    }
}
