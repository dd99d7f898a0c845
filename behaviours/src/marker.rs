//! The behaviour marker: where `cognition` is while it runs Python, in shared memory the
//! supervisor keeps, so that a crash or a freeze can be blamed on the behaviour after the process
//! is gone.
//!
//! ```text
//!  cognition                                   supervisor (after the child ended)
//!  mark(Loading, behaviour.py)                 marker.pid == dead pid && phase != Outside
//!    … the behaviour's top-level code …          → a behaviour fault: restart with back-off,
//!  mark(Outside)                                   never the safe state
//!  mark(Ticking, behaviour.py) … mark(Outside)
//! ```
//!
//! The supervisor creates one small triple buffer per process that runs `BehaviourControl` and
//! hands its descriptor over in [`MARKER_VARIABLE`]; it outlives every run of the process, so a
//! restarted `cognition` also sees how its predecessor ended (`predecessor`). Two publishes per
//! tick (a few hundred bytes each) are the whole cost. Without the variable (tests, tools)
//! marking does nothing.
//!
//! A behaviour that sends its own process SIGTERM or SIGINT (`os.kill(os.getpid(), 15)`) makes
//! `cognition` end cleanly after the tick. The marker therefore notes such a signal arriving
//! while Python runs and then stays "inside the behaviour", so that the clean exit is blamed on
//! the behaviour too. (The supervisor's own stop and `cortex restart` are decided before the
//! marker is looked at.)

use ipc::TripleBuffer;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Environment variable with the inherited descriptor of the marker buffer.
pub const MARKER_VARIABLE: &str = "CORTEX_BEHAVIOUR_MARKER";
/// Bytes of the behaviour file's path kept in a marker.
pub const FILE_BYTES: usize = 248;
const SCHEMA: u64 = ipc::channel::schema_hash("BehaviourMarker/2");

/// Where the process was when it last said so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Phase {
    /// Not running Python (Rust modules, waiting for the next tick).
    Outside = 0,
    /// Loading the behaviour: its modules' top-level code.
    Loading = 1,
    /// Inside `tick(blackboard)`.
    Ticking = 2,
}

impl Phase {
    /// Words for a log line.
    pub fn describe(self) -> &'static str {
        match self {
            Phase::Outside => "outside the behaviour",
            Phase::Loading => "while loading the behaviour",
            Phase::Ticking => "inside the behaviour's tick",
        }
    }
}

/// One marker value.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BehaviourMarker {
    /// The process that wrote it.
    pub pid: u32,
    /// A [`Phase`] as `u32`.
    pub phase: u32,
    /// The behaviour's entry file, NUL-padded (cut at a character boundary).
    pub file: [u8; FILE_BYTES],
    /// The process this one replaced, if that one ended inside the behaviour (0: none): kept in
    /// every record, so that the supervisor can still blame the behaviour when it reaps the dead
    /// process after its warm standby has taken over and marked on its own.
    pub previous_pid: u32,
    /// That process's last [`Phase`] as `u32`.
    pub previous_phase: u32,
}

impl BehaviourMarker {
    /// The phase; an unknown number counts as inside the behaviour.
    pub fn phase(&self) -> Phase {
        match self.phase {
            0 => Phase::Outside,
            1 => Phase::Loading,
            _ => Phase::Ticking,
        }
    }

    /// The behaviour's entry file.
    pub fn file(&self) -> String {
        let end = self.file.iter().position(|&b| b == 0).unwrap_or(FILE_BYTES);
        String::from_utf8_lossy(&self.file[..end]).into_owned()
    }

    /// What this marker says of process `pid`: its own phase, or its predecessor's if `pid` is
    /// the process it replaced (see `previous_pid`).
    pub fn of_process(&self, pid: u32) -> Option<BehaviourMarker> {
        if self.pid == pid {
            Some(*self)
        } else if self.previous_pid == pid && pid != 0 {
            let mut marker = *self;
            marker.pid = pid;
            marker.phase = self.previous_phase;
            Some(marker)
        } else {
            None
        }
    }

    fn new(phase: Phase, file: &Path) -> BehaviourMarker {
        let mut marker: BehaviourMarker = bytemuck::Zeroable::zeroed();
        marker.pid = std::process::id();
        marker.phase = phase as u32;
        let text = file.to_string_lossy();
        let mut end = text.len().min(FILE_BYTES);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        marker.file[..end].copy_from_slice(&text.as_bytes()[..end]);
        marker
    }
}

/// Creates a marker buffer (the supervisor, once per process that runs a behaviour).
pub fn create_marker(name: &str) -> Result<TripleBuffer, ipc::Error> {
    TripleBuffer::create_with_schema(name, std::mem::size_of::<BehaviourMarker>(), SCHEMA)
}

/// The newest marker in `buffer`, if any was written.
pub fn read_marker(buffer: &TripleBuffer) -> Option<BehaviourMarker> {
    let mut bytes = Vec::new();
    match buffer.reader().read_latest(&mut bytes) {
        Ok(Some(_)) if bytes.len() == std::mem::size_of::<BehaviourMarker>() => {
            Some(bytemuck::pod_read_unaligned(&bytes))
        }
        _ => None,
    }
}

struct Marker {
    writer: Mutex<ipc::Writer<'static>>,
    /// Taken by the first engine of this process.
    predecessor: Mutex<Option<BehaviourMarker>>,
    /// The predecessor that ended inside the behaviour (pid, phase), repeated in every record.
    previous: (u32, u32),
    /// Set by SIGTERM and SIGINT; cleared when Python starts to run.
    stop_signal: Arc<AtomicBool>,
    /// The phase last published is inside the behaviour and must stay (see the module docs).
    stuck_inside: AtomicBool,
}

static MARKER: OnceLock<Option<Marker>> = OnceLock::new();

fn open() -> Option<Marker> {
    let text = std::env::var(MARKER_VARIABLE).ok()?;
    let opened = (|| -> Result<Marker, String> {
        let raw: i32 = text
            .parse()
            .map_err(|_| format!("`{text}` is not a descriptor number"))?;
        let fd = ipc::fd::take_inherited(raw).map_err(|error| error.to_string())?;
        let buffer = TripleBuffer::from_fd_with_schema(fd, SCHEMA).map_err(|e| e.to_string())?;
        // The buffer lives as long as the process: the writer borrows it for good.
        let buffer: &'static TripleBuffer = Box::leak(Box::new(buffer));
        let predecessor = read_marker(buffer)
            .filter(|marker| marker.pid != std::process::id() && marker.phase() != Phase::Outside);
        let writer = buffer.writer().map_err(|error| error.to_string())?;
        let stop_signal = Arc::new(AtomicBool::new(false));
        for signal in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
            signal_hook::flag::register(signal, stop_signal.clone())
                .map_err(|error| format!("watching signal {signal}: {error}"))?;
        }
        Ok(Marker {
            writer: Mutex::new(writer),
            previous: predecessor.map_or((0, 0), |marker| (marker.pid, marker.phase)),
            predecessor: Mutex::new(predecessor),
            stop_signal,
            stuck_inside: AtomicBool::new(false),
        })
    })();
    match opened {
        Ok(marker) => Some(marker),
        Err(error) => {
            tracing::error!(
                "{MARKER_VARIABLE}={text}: {error}; a crash in the behaviour will count as a \
                 crash of the process"
            );
            None
        }
    }
}

/// This process is a warm standby (`ipc::standby`): it leaves the marker alone (the active
/// process holds its writer role) until [`activated`].
static STANDBY: AtomicBool = AtomicBool::new(false);

/// Makes this process a warm standby: marking does nothing until [`activated`] (its behaviour
/// is imported while the active instance runs; a crash of the standby is the supervisor's to
/// replace, never the active's to be blamed for).
pub fn set_standby() {
    STANDBY.store(true, Ordering::SeqCst);
}

/// The standby was activated (its predecessor is dead): marking works from now on, and the
/// marker's writer role is taken at once.
pub fn activated() {
    STANDBY.store(false, Ordering::SeqCst);
    let _ = marker();
}

fn marker() -> Option<&'static Marker> {
    if STANDBY.load(Ordering::Relaxed) {
        return None;
    }
    MARKER.get_or_init(open).as_ref()
}

/// Says where this process is now (no effect without a marker).
pub(crate) fn mark(phase: Phase, file: &Path) {
    if let Some(marker) = marker() {
        if marker.stuck_inside.load(Ordering::Relaxed) {
            return;
        }
        if phase != Phase::Outside {
            marker.stop_signal.store(false, Ordering::SeqCst);
        } else if marker.stop_signal.load(Ordering::SeqCst) {
            tracing::warn!(
                "SIGTERM or SIGINT arrived while the behaviour's Python ran; if cognition ends \
                 now, the behaviour is blamed"
            );
            marker.stuck_inside.store(true, Ordering::Relaxed);
            return;
        }
        let mut value = BehaviourMarker::new(phase, file);
        (value.previous_pid, value.previous_phase) = marker.previous;
        let mut writer = marker
            .writer
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let _ = writer.publish(bytemuck::bytes_of(&value));
    }
}

/// How the previous run of this process ended, if it ended inside the behaviour; only the first
/// call in a process says so (an engine rebuilt after a module panic does not stand again).
pub(crate) fn predecessor() -> Option<BehaviourMarker> {
    marker().and_then(|marker| {
        marker
            .predecessor
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_speaks_for_its_writer_and_for_the_predecessor_it_names() {
        let mut record = BehaviourMarker::new(Phase::Outside, Path::new("behaviour.py"));
        let own = std::process::id();
        assert_eq!(
            record.of_process(own).map(|m| m.phase()),
            Some(Phase::Outside)
        );
        assert_eq!(record.of_process(own + 1), None, "no predecessor named");
        (record.previous_pid, record.previous_phase) = (own + 1, Phase::Ticking as u32);
        let previous = record.of_process(own + 1).expect("the predecessor");
        assert_eq!(previous.pid, own + 1);
        assert_eq!(previous.phase(), Phase::Ticking);
        assert_eq!(previous.file(), "behaviour.py");
        assert_eq!(record.of_process(0), None, "pid 0 is nobody");
    }
}
