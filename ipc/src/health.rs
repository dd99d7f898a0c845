//! The health board: one segment with a fixed slot per process. Each slot is a small triple
//! buffer carrying a [`HealthRecord`] and has exactly one writer, the process it describes
//! (its heartbeat); the supervisor's watchdog and `cortex status` read all of them. A process
//! killed in the middle of a heartbeat leaves a torn slot that readers never see, and its
//! replacement takes the slot over (see [`TripleBuffer::writer`](crate::TripleBuffer::writer)).

use crate::segment::{Kind, Segment};
use crate::{Error, Reader, Writer};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Bytes of a process name kept in a record.
pub const NAME_BYTES: usize = 32;
/// Bytes of fault text kept in a record (longer text is cut at a character boundary).
pub const FAULT_BYTES: usize = 120;
/// Bytes of a module name kept in a [`ModuleTiming`].
pub const MODULE_NAME_BYTES: usize = 32;
/// Modules whose timing a record carries; a process with more reports its first ones.
pub const MODULE_SLOTS: usize = 16;

/// One module's update time, as its process reports it with each heartbeat.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ModuleTiming {
    /// Module name (`MotionCombinator`), NUL-padded.
    pub name: [u8; MODULE_NAME_BYTES],
    /// Time of its last update, in nanoseconds (0: none yet).
    pub last_ns: u64,
    /// Mean update time over the last complete window, in nanoseconds (0: no window yet).
    pub mean_ns: u64,
    /// Longest update time over the last complete window, in nanoseconds (0: no window yet).
    pub max_ns: u64,
}

impl ModuleTiming {
    /// A timing for `name` (cut to [`MODULE_NAME_BYTES`] at a character boundary), times zero.
    pub fn named(name: &str) -> ModuleTiming {
        let mut timing: ModuleTiming = bytemuck::Zeroable::zeroed();
        let mut end = name.len().min(MODULE_NAME_BYTES);
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        timing.name[..end].copy_from_slice(&name.as_bytes()[..end]);
        timing
    }
    /// The name as text.
    pub fn name(&self) -> String {
        let end = self
            .name
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(MODULE_NAME_BYTES);
        String::from_utf8_lossy(&self.name[..end]).into_owned()
    }
}

/// What a process reports about itself, once per tick.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct HealthRecord {
    /// Instance name (`motion`, `perception.upper`), NUL-padded.
    pub name: [u8; NAME_BYTES],
    /// Process id.
    pub pid: u32,
    /// A [`ProcessState`] as `u32`.
    pub state: u32,
    /// How often the supervisor restarted this process before this run (given at spawn).
    pub restarts: u32,
    /// The previous run's end (given at spawn): see [`ExitReason`].
    pub last_exit_kind: u32,
    /// Exit status or signal number of the previous run.
    pub last_exit_value: i32,
    /// How many entries of `modules` are in use (at most [`MODULE_SLOTS`]).
    pub module_count: u32,
    /// Ticks completed since this process started.
    pub ticks: u64,
    /// `CLOCK_MONOTONIC` time of the end of the last tick, in nanoseconds (0: none yet).
    pub last_tick_ns: u64,
    /// `CLOCK_MONOTONIC` time this process started, in nanoseconds.
    pub started_ns: u64,
    /// `CLOCK_MONOTONIC` time of the end of its first tick, in nanoseconds (0: none yet). For a
    /// standby that took over, the failover ends here (`cortex status`'s `last_failover_ms`).
    pub first_tick_ns: u64,
    /// Mean tick duration over the last complete window, in nanoseconds.
    pub tick_mean_ns: u64,
    /// Longest tick duration over the last complete window, in nanoseconds.
    pub tick_max_ns: u64,
    /// Ticks per second over the last complete window, in millihertz.
    pub rate_mhz: u64,
    /// Ticks that ended after their deadline.
    pub overruns: u64,
    /// Module panics caught at the tick boundary.
    pub panics: u64,
    /// Inputs from outside the process that were rejected (malformed LoLA frames for the bridge,
    /// bad packets for a network process), counted since this process started.
    pub rejected_inputs: u64,
    /// Faults the process survived but someone should see (a Python error in the behaviour),
    /// counted since this process started.
    pub faults: u64,
    /// The current fault in words (`behaviour.py:12: ZeroDivisionError: division by zero`),
    /// NUL-padded; empty while there is none.
    pub fault: [u8; FAULT_BYTES],
    /// Each module's update time, in the order the process runs them; see `module_count`.
    pub modules: [ModuleTiming; MODULE_SLOTS],
}

impl HealthRecord {
    /// A record for `name`, with everything else zero.
    pub fn named(name: &str) -> HealthRecord {
        let mut record: HealthRecord = bytemuck::Zeroable::zeroed();
        let bytes = &name.as_bytes()[..name.len().min(NAME_BYTES)];
        record.name[..bytes.len()].copy_from_slice(bytes);
        record
    }
    /// The name as text.
    pub fn name(&self) -> String {
        let end = self.name.iter().position(|&b| b == 0).unwrap_or(NAME_BYTES);
        String::from_utf8_lossy(&self.name[..end]).into_owned()
    }
    /// The module timings in use (a corrupt count is clamped to [`MODULE_SLOTS`]).
    pub fn modules(&self) -> &[ModuleTiming] {
        &self.modules[..(self.module_count as usize).min(MODULE_SLOTS)]
    }
    /// Names the modules whose timing this record carries (the first [`MODULE_SLOTS`]; the
    /// rest are left out), all times zero.
    pub fn set_modules<'n>(&mut self, names: impl IntoIterator<Item = &'n str>) {
        self.modules = [bytemuck::Zeroable::zeroed(); MODULE_SLOTS];
        let mut count = 0;
        for (slot, name) in self.modules.iter_mut().zip(names) {
            *slot = ModuleTiming::named(name);
            count += 1;
        }
        self.module_count = count;
    }
    /// The state, if it is a known one.
    pub fn process_state(&self) -> Option<ProcessState> {
        ProcessState::from_raw(self.state)
    }
    /// How the previous run ended.
    pub fn last_exit(&self) -> ExitReason {
        ExitReason::from_raw(self.last_exit_kind, self.last_exit_value)
    }
    /// The current fault text; `None` while there is none.
    pub fn fault(&self) -> Option<String> {
        let end = self
            .fault
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(FAULT_BYTES);
        (end > 0).then(|| String::from_utf8_lossy(&self.fault[..end]).into_owned())
    }
    /// Sets the current fault text (cut to [`FAULT_BYTES`] at a character boundary); an empty
    /// text clears it.
    pub fn set_fault(&mut self, text: &str) {
        let mut end = text.len().min(FAULT_BYTES);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        self.fault = [0; FAULT_BYTES];
        self.fault[..end].copy_from_slice(&text.as_bytes()[..end]);
    }
}

/// What a process says it is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum ProcessState {
    /// Started, building its modules.
    Starting = 1,
    /// Ticking.
    Running = 2,
    /// Finishing its last tick after SIGTERM.
    Stopping = 3,
    /// Ended cleanly.
    Stopped = 4,
    /// A warm standby (on the standby board, [`crate::standby`]): built, not ticking, waiting
    /// for its activation word.
    Standby = 5,
}

impl ProcessState {
    /// From the raw `u32`.
    pub fn from_raw(raw: u32) -> Option<ProcessState> {
        [
            Self::Starting,
            Self::Running,
            Self::Stopping,
            Self::Stopped,
            Self::Standby,
        ]
        .into_iter()
        .find(|state| *state as u32 == raw)
    }
    /// Lower-case name for people.
    pub fn name(self) -> &'static str {
        match self {
            Self::Starting => "starting",
            Self::Running => "running",
            Self::Stopping => "stopping",
            Self::Stopped => "stopped",
            Self::Standby => "standby",
        }
    }
}

/// How a run of a process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitReason {
    /// It has not ended before (first run).
    None,
    /// It exited with this status.
    Status(i32),
    /// A signal ended it.
    Signal(i32),
    /// The watchdog ended it after it froze.
    Frozen,
}

impl ExitReason {
    /// `(kind, value)` as stored in a record.
    pub fn to_raw(self) -> (u32, i32) {
        match self {
            Self::None => (0, 0),
            Self::Status(status) => (1, status),
            Self::Signal(signal) => (2, signal),
            Self::Frozen => (3, 0),
        }
    }
    /// From `(kind, value)`.
    pub fn from_raw(kind: u32, value: i32) -> ExitReason {
        match kind {
            1 => Self::Status(value),
            2 => Self::Signal(value),
            3 => Self::Frozen,
            _ => Self::None,
        }
    }
}

/// The health board segment.
#[derive(Debug)]
pub struct HealthBoard {
    segment: Arc<Segment>,
}

const RECORD: usize = std::mem::size_of::<HealthRecord>();
const SCHEMA: u64 = crate::channel::schema_hash("HealthRecord/4");

impl HealthBoard {
    /// Creates a board with `slots` slots.
    pub fn create(name: &str, slots: usize) -> Result<HealthBoard, Error> {
        Ok(Self::mapped(Segment::create(
            name,
            Kind::HealthBoard,
            SCHEMA,
            RECORD,
            slots,
        )?))
    }

    /// Opens a board from a descriptor.
    pub fn from_fd(fd: OwnedFd) -> Result<HealthBoard, Error> {
        Ok(Self::mapped(Segment::open(
            fd,
            Kind::HealthBoard,
            Some(SCHEMA),
        )?))
    }

    /// A board whose slots' wake words this process's writers can reach (`crate::wake`).
    fn mapped(segment: Segment) -> HealthBoard {
        let segment = Arc::new(segment);
        crate::wake::register_board(&segment);
        HealthBoard { segment }
    }

    /// The process of slot `index` as a consumer of trigger channels: its wake word, for
    /// [`crate::wait::wait_any_as`].
    pub fn consumer(&self, index: usize) -> Result<crate::wait::Consumer<'_>, Error> {
        self.check(index)?;
        Ok(crate::wait::Consumer {
            word: self.segment.wake_word(index),
            entry: crate::wake::entry(self.segment.identity(), index),
        })
    }

    /// The activation word of slot `index` ([`crate::standby`]): on a board of standbys, the
    /// slot's wake word is the word its standby sleeps on until the supervisor activates it.
    /// (Nobody registers a standby slot as a trigger consumer, so no writer bumps it.)
    pub fn activation(&self, index: usize) -> Result<crate::standby::Activation<'_>, Error> {
        self.check(index)?;
        Ok(crate::standby::Activation::new(
            self.segment.wake_word(index),
        ))
    }

    /// Number of slots.
    pub fn slots(&self) -> usize {
        self.segment.regions()
    }

    /// Takes the writer role of slot `index` for the calling process.
    pub fn slot_writer(&self, index: usize) -> Result<HealthWriter<'_>, Error> {
        self.check(index)?;
        let writer = Writer::claim(self.segment.region(index), || self.slot_name(index), RECORD)?;
        Ok(HealthWriter { writer })
    }

    /// The newest record in slot `index`; `None` if its process never wrote one.
    pub fn read(&self, index: usize) -> Result<Option<HealthRecord>, Error> {
        self.check(index)?;
        let mut reader = Reader::for_region(self.segment.region(index), &self.segment);
        let mut record: HealthRecord = bytemuck::Zeroable::zeroed();
        let read = reader.read_in_place(|view| {
            if view.len() == RECORD {
                view.copy_bytes(0, bytemuck::bytes_of_mut(&mut record));
                true
            } else {
                false
            }
        })?;
        match read {
            None => Ok(None),
            Some((_, true)) => Ok(Some(record)),
            Some((_, false)) => Err(Error::Corrupt {
                name: self.slot_name(index),
                what: format!("a health record is {RECORD} bytes"),
            }),
        }
    }

    #[cfg(test)]
    pub(crate) fn segment_identity(&self) -> u64 {
        self.segment.identity()
    }

    fn check(&self, index: usize) -> Result<(), Error> {
        if index < self.slots() {
            Ok(())
        } else {
            Err(Error::Corrupt {
                name: self.segment.name(),
                what: format!("slot {index} asked for, the board has {}", self.slots()),
            })
        }
    }

    fn slot_name(&self, index: usize) -> String {
        format!("{}[{index}]", self.segment.name())
    }
}

impl AsFd for HealthBoard {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.segment.as_fd()
    }
}

/// The one writer of a health-board slot.
#[derive(Debug)]
pub struct HealthWriter<'a> {
    writer: Writer<'a>,
}

impl HealthWriter<'_> {
    /// Publishes a record (a heartbeat).
    pub fn publish(&mut self, record: &HealthRecord) -> Result<u64, Error> {
        self.writer.publish(bytemuck::bytes_of(record))
    }
}

/// `CLOCK_MONOTONIC` now, in nanoseconds: comparable between processes on one machine.
pub fn monotonic_ns() -> u64 {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    now.tv_sec as u64 * 1_000_000_000 + now.tv_nsec as u64
}

/// Tick durations and rate over fixed windows; the values of the last complete window are
/// reported, so they change once per window, not every tick.
#[derive(Debug, Clone)]
pub struct TickStats {
    window: Duration,
    window_start: Option<Instant>,
    window_sum: Duration,
    window_max: Duration,
    window_ticks: u64,
    window_intervals: u64,
    reported_mean: Duration,
    reported_max: Duration,
    reported_rate_hz: f64,
}

impl TickStats {
    /// Statistics over windows of `window`.
    pub fn new(window: Duration) -> TickStats {
        TickStats {
            window,
            window_start: None,
            window_sum: Duration::ZERO,
            window_max: Duration::ZERO,
            window_ticks: 0,
            window_intervals: 0,
            reported_mean: Duration::ZERO,
            reported_max: Duration::ZERO,
            reported_rate_hz: 0.0,
        }
    }

    /// Records a tick that took `duration` and ended at `now`.
    pub fn record(&mut self, duration: Duration, now: Instant) {
        self.window_sum += duration;
        self.window_max = self.window_max.max(duration);
        self.window_ticks += 1;
        let Some(start) = self.window_start else {
            // The first tick only starts the clock: a rate counts intervals between tick ends.
            self.window_start = Some(now);
            self.window_intervals = 0;
            return;
        };
        self.window_intervals += 1;
        let elapsed = now.saturating_duration_since(start);
        if elapsed >= self.window {
            self.reported_mean = self.window_sum / self.window_ticks.max(1) as u32;
            self.reported_max = self.window_max;
            self.reported_rate_hz = self.window_intervals as f64 / elapsed.as_secs_f64();
            self.window_start = Some(now);
            self.window_sum = Duration::ZERO;
            self.window_max = Duration::ZERO;
            self.window_ticks = 0;
            self.window_intervals = 0;
        }
    }

    /// Mean tick duration of the last complete window.
    pub fn mean(&self) -> Duration {
        self.reported_mean
    }
    /// Longest tick of the last complete window.
    pub fn max(&self) -> Duration {
        self.reported_max
    }
    /// Ticks per second of the last complete window.
    pub fn rate_hz(&self) -> f64 {
        self.reported_rate_hz
    }

    /// Writes the statistics into a record.
    pub fn fill(&self, record: &mut HealthRecord) {
        record.tick_mean_ns = self.reported_mean.as_nanos() as u64;
        record.tick_max_ns = self.reported_max.as_nanos() as u64;
        record.rate_mhz = (self.reported_rate_hz * 1000.0).round() as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_slot_has_its_own_writer_and_records_round_trip() {
        let board = HealthBoard::create("health", 3).unwrap();
        assert_eq!(board.read(1).unwrap(), None);
        let mut motion = board.slot_writer(1).unwrap();
        assert!(matches!(
            board.slot_writer(1),
            Err(Error::WriterBusy { .. })
        ));
        let mut record = HealthRecord::named("motion");
        record.pid = 42;
        record.ticks = 7;
        record.state = ProcessState::Running as u32;
        motion.publish(&record).unwrap();
        let read = board.read(1).unwrap().unwrap();
        assert_eq!(read, record);
        assert_eq!(read.name(), "motion");
        assert_eq!(read.process_state(), Some(ProcessState::Running));
        assert_eq!(board.read(0).unwrap(), None);
        assert!(board.read(3).is_err());
    }

    #[test]
    fn window_statistics() {
        let mut stats = TickStats::new(Duration::from_millis(100));
        let start = Instant::now();
        for i in 0..=10u32 {
            stats.record(
                Duration::from_millis(1 + u64::from(i % 2) * 2),
                start + Duration::from_millis(10 * u64::from(i)),
            );
        }
        assert_eq!(stats.max(), Duration::from_millis(3));
        assert!(stats.mean() > Duration::from_millis(1) && stats.mean() < Duration::from_millis(3));
        assert!(
            (stats.rate_hz() - 100.0).abs() < 0.01,
            "{}",
            stats.rate_hz()
        );
    }

    #[test]
    fn fault_text_is_cut_at_a_character_boundary_and_cleared_by_empty_text() {
        let mut record = HealthRecord::named("cognition");
        assert_eq!(record.fault(), None);
        record.set_fault("behaviour.py:3: ZeroDivisionError");
        assert_eq!(
            record.fault().as_deref(),
            Some("behaviour.py:3: ZeroDivisionError")
        );
        let long = "é".repeat(FAULT_BYTES);
        record.set_fault(&long);
        let cut = record.fault().unwrap();
        assert!(
            cut.len() <= FAULT_BYTES && cut.chars().all(|c| c == 'é'),
            "{cut}"
        );
        record.set_fault("");
        assert_eq!(record.fault(), None);
    }

    #[test]
    fn module_timings_round_trip_through_the_board_and_a_corrupt_count_is_clamped() {
        let board = HealthBoard::create("health", 1).unwrap();
        let mut writer = board.slot_writer(0).unwrap();
        let mut record = HealthRecord::named("cognition");
        let long = "M".repeat(MODULE_NAME_BYTES + 5);
        let names: Vec<String> = (0..MODULE_SLOTS + 3)
            .map(|i| {
                if i == 1 {
                    long.clone()
                } else {
                    format!("Module{i}")
                }
            })
            .collect();
        record.set_modules(names.iter().map(String::as_str));
        assert_eq!(record.modules().len(), MODULE_SLOTS);
        record.modules[0].mean_ns = 1_500_000;
        writer.publish(&record).unwrap();
        let read = board.read(0).unwrap().unwrap();
        assert_eq!(read.modules()[0].name(), "Module0");
        assert_eq!(read.modules()[0].mean_ns, 1_500_000);
        assert_eq!(read.modules()[1].name(), "M".repeat(MODULE_NAME_BYTES));
        assert_eq!(
            read.modules()[MODULE_SLOTS - 1].name(),
            format!("Module{}", MODULE_SLOTS - 1)
        );
        record.module_count = u32::MAX;
        assert_eq!(record.modules().len(), MODULE_SLOTS);
        record.set_modules(["GameStateProvider"]);
        assert_eq!(record.modules().len(), 1);
        assert_eq!(record.modules[1], bytemuck::Zeroable::zeroed());
    }

    #[test]
    fn exit_reasons_round_trip() {
        for reason in [
            ExitReason::None,
            ExitReason::Status(78),
            ExitReason::Signal(9),
            ExitReason::Frozen,
        ] {
            let (kind, value) = reason.to_raw();
            assert_eq!(ExitReason::from_raw(kind, value), reason);
        }
    }
}
