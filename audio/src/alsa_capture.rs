//! `AlsaCapture`: the robot's head microphones read on a thread of their own (feature `robot`),
//! handed to the `WhistleDetector` module's tick through a bounded queue.
//!
//! ```text
//!  capture thread:  open the device ──(cannot: logged, again every retry_interval_ms)
//!                      │
//!                      ▼
//!                   wait ≤ 8 periods for samples ─► AlsaSource::read (one period; overruns
//!                      ▲   (none: the device stalled,    │            recovered and counted)
//!                      │    closed and opened again)     ▼
//!                      └──── paced to the clock ◄── push: bounded queue of about 1 s
//!                                                    (full: the oldest buffer dropped, counted)
//!  tick:            drain(): takes what is queued if the lock is free this instant (else next
//!                   tick), never waits for a device, a lock or a thread
//! ```
//!
//! Why a thread and not a non-blocking read in the tick: `docs/decisions.md`, "ALSA on the
//! robot". A device that delivers faster than real time (ALSA's `null` device, a broken plugin)
//! is paced to the monotonic clock, so that the thread never spins.

use crate::alsa_source::{AlsaParameters, AlsaSource};
use crate::frames::AudioFrames;
use crate::parameters::CaptureParameters;
use crate::source::{frame_time_ns, AudioSource, ReadError};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How much sound the queue holds before the oldest buffer is dropped.
const QUEUE_DURATION: Duration = Duration::from_secs(1);
/// A device that delivers nothing for this long (at least 8 periods) has stalled.
const MIN_STALL_TIMEOUT: Duration = Duration::from_millis(500);
/// Overruns are logged at most this often, with their count.
const OVERRUN_LOG_INTERVAL: Duration = Duration::from_secs(10);
/// How long a restarted capture waits for the previous thread to close the device.
const HANDOVER_WAIT: Duration = Duration::from_secs(2);

/// What the capture has done so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CaptureStatus {
    /// The device is open and being read.
    pub open: bool,
    /// Buffers read from the device.
    pub buffers_captured: u64,
    /// Overruns the device reported (sound lost because the thread did not read in time).
    pub overruns: u64,
    /// Buffers dropped because the queue was full (the ticks did not take them).
    pub buffers_dropped: u64,
    /// Attempts to open the device that failed.
    pub open_failures: u64,
    /// Times the open device failed (or stalled) and was closed to be opened again.
    pub read_failures: u64,
    /// The last failure, naming the device.
    pub last_error: Option<String>,
}

/// Starting the capture thread failed.
#[derive(Debug, thiserror::Error)]
#[error("cannot start the microphone capture thread: {0}")]
pub struct CaptureStartError(std::io::Error);

#[derive(Debug)]
struct Shared {
    queue: Mutex<VecDeque<Box<AudioFrames>>>,
    /// Buffers the tick has finished with, for the thread to fill again.
    spare: Mutex<Vec<Box<AudioFrames>>>,
    capacity: usize,
    stop: AtomicBool,
    open: AtomicBool,
    buffers_captured: AtomicU64,
    overruns: AtomicU64,
    buffers_dropped: AtomicU64,
    open_failures: AtomicU64,
    read_failures: AtomicU64,
    last_error: Mutex<Option<String>>,
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    fn failed(&self, counter: &AtomicU64, message: String) {
        counter.fetch_add(1, Ordering::Relaxed);
        *locked(&self.last_error) = Some(message);
    }

    /// A buffer to fill: a spare one, or a new one.
    fn buffer(&self, sample_rate_hz: u32, channel_count: u32) -> Box<AudioFrames> {
        locked(&self.spare)
            .pop()
            .unwrap_or_else(|| AudioFrames::empty(sample_rate_hz, channel_count))
    }

    fn push(&self, frames: Box<AudioFrames>) {
        let dropped = {
            let mut queue = locked(&self.queue);
            let dropped = if queue.len() >= self.capacity {
                queue.pop_front()
            } else {
                None
            };
            queue.push_back(frames);
            dropped
        };
        if let Some(dropped) = dropped {
            self.buffers_dropped.fetch_add(1, Ordering::Relaxed);
            self.recycle(dropped);
        }
    }

    fn recycle(&self, frames: Box<AudioFrames>) {
        if let Ok(mut spare) = self.spare.try_lock() {
            if spare.len() < self.capacity {
                spare.push(frames);
            }
        }
    }

    /// Sleeps `duration` in slices, returning early (false) when told to stop.
    fn sleep(&self, duration: Duration) -> bool {
        crate::alsa_device::sleep_unless(&self.stop, duration)
    }
}

/// Captures from an ALSA device on a thread of its own.
pub struct AlsaCapture {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
    parameters: CaptureParameters,
    /// The buffers taken from the queue by the current `drain` (kept for its capacity).
    taken: VecDeque<Box<AudioFrames>>,
}

impl std::fmt::Debug for AlsaCapture {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("AlsaCapture")
            .field("parameters", &self.parameters)
            .field("status", &self.status())
            .finish_non_exhaustive()
    }
}

impl AlsaCapture {
    /// Starts the capture thread, which opens the device (and keeps trying); returns at once.
    pub fn start(parameters: &CaptureParameters) -> Result<AlsaCapture, CaptureStartError> {
        AlsaCapture::start_after(parameters, None)
    }

    fn start_after(
        parameters: &CaptureParameters,
        previous: Option<JoinHandle<()>>,
    ) -> Result<AlsaCapture, CaptureStartError> {
        let buffer_ns = frame_time_ns(
            parameters.frames_per_buffer.max(1) as u64,
            parameters.sample_rate_hz,
        )
        .max(1);
        let capacity = (QUEUE_DURATION.as_nanos() as u64)
            .div_ceil(buffer_ns)
            .max(2) as usize;
        let shared = Arc::new(Shared {
            queue: Mutex::new(VecDeque::with_capacity(capacity)),
            spare: Mutex::new(Vec::with_capacity(capacity)),
            capacity,
            stop: AtomicBool::new(false),
            open: AtomicBool::new(false),
            buffers_captured: AtomicU64::new(0),
            overruns: AtomicU64::new(0),
            buffers_dropped: AtomicU64::new(0),
            open_failures: AtomicU64::new(0),
            read_failures: AtomicU64::new(0),
            last_error: Mutex::new(None),
        });
        let thread_shared = Arc::clone(&shared);
        let thread_parameters = parameters.clone();
        let thread = std::thread::Builder::new()
            .name("microphones".to_owned())
            .spawn(move || {
                if let Some(previous) = previous {
                    wait_for(previous, HANDOVER_WAIT);
                }
                let retry = Duration::from_millis(u64::from(thread_parameters.retry_interval_ms));
                // A panic (a bug, or alsa-lib misbehaving) must not leave the robot deaf for
                // the rest of the game: the device is dropped with the panic, and opened anew.
                while let Err(_panic) =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        run(&thread_shared, &thread_parameters)
                    }))
                {
                    thread_shared.open.store(false, Ordering::Relaxed);
                    thread_shared.failed(
                        &thread_shared.read_failures,
                        "the capture thread panicked".to_owned(),
                    );
                    tracing::error!(
                        "microphones: the capture thread panicked; starting over in {} ms",
                        retry.as_millis()
                    );
                    if !thread_shared.sleep(retry) {
                        break;
                    }
                }
                thread_shared.open.store(false, Ordering::Relaxed);
            })
            .map_err(CaptureStartError)?;
        Ok(AlsaCapture {
            shared,
            thread: Some(thread),
            parameters: parameters.clone(),
            taken: VecDeque::with_capacity(capacity),
        })
    }

    /// Ends this capture and starts one with `parameters`, whose thread opens the device once
    /// this one's thread has closed it (waiting at most 2 s); returns at once.
    pub fn restart(mut self, parameters: &CaptureParameters) -> Result<Self, CaptureStartError> {
        self.shared.stop.store(true, Ordering::Relaxed);
        AlsaCapture::start_after(parameters, self.thread.take())
    }

    /// What it captures from.
    pub fn parameters(&self) -> &CaptureParameters {
        &self.parameters
    }

    /// Whether the device is open and being read.
    pub fn is_open(&self) -> bool {
        self.shared.open.load(Ordering::Relaxed)
    }

    pub fn status(&self) -> CaptureStatus {
        let count = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        let shared = &self.shared;
        CaptureStatus {
            open: self.is_open(),
            buffers_captured: count(&shared.buffers_captured),
            overruns: count(&shared.overruns),
            buffers_dropped: count(&shared.buffers_dropped),
            open_failures: count(&shared.open_failures),
            read_failures: count(&shared.read_failures),
            last_error: locked(&shared.last_error).clone(),
        }
    }

    /// Hands every queued buffer, oldest first, to `on_buffer`. Never waits: if the capture
    /// thread holds the queue's lock this instant, the buffers wait for the next call.
    pub fn drain(&mut self, mut on_buffer: impl FnMut(&AudioFrames)) -> usize {
        match self.shared.queue.try_lock() {
            Ok(mut queue) => std::mem::swap(&mut *queue, &mut self.taken),
            Err(std::sync::TryLockError::Poisoned(poisoned)) => {
                std::mem::swap(&mut *poisoned.into_inner(), &mut self.taken)
            }
            Err(std::sync::TryLockError::WouldBlock) => return 0,
        }
        let count = self.taken.len();
        while let Some(frames) = self.taken.pop_front() {
            on_buffer(&frames);
            self.shared.recycle(frames);
        }
        count
    }
}

impl Drop for AlsaCapture {
    /// Tells the thread to stop; it closes the device within one wait (about half a second)
    /// without anyone waiting for it.
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
    }
}

/// Waits at most `timeout` for `thread` to end.
fn wait_for(thread: JoinHandle<()>, timeout: Duration) {
    let end = Instant::now() + timeout;
    while !thread.is_finished() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(10));
    }
    if thread.is_finished() {
        let _ = thread.join();
    } else {
        tracing::warn!(
            "microphones: the previous capture did not end within {timeout:?}; opening anyway"
        );
    }
}

/// The capture thread: open, read until stopped or failed, open again.
fn run(shared: &Shared, parameters: &CaptureParameters) {
    let retry = Duration::from_millis(u64::from(parameters.retry_interval_ms));
    let alsa = AlsaParameters {
        device: parameters.device.clone(),
        channels: parameters.channels,
        sample_rate_hz: parameters.sample_rate_hz,
        frames_per_buffer: parameters.frames_per_buffer,
    };
    let mut open_failures = crate::alsa_device::OpenFailureLog::default();
    while !shared.stopping() {
        match AlsaSource::open(&alsa) {
            Ok(source) => {
                open_failures = crate::alsa_device::OpenFailureLog::default();
                tracing::info!(
                    "microphones: capturing from ALSA device {}: {} channels at {} Hz, {} frames per buffer",
                    source.device(),
                    source.channel_count(),
                    source.sample_rate_hz(),
                    source.frames_per_buffer()
                );
                shared.open.store(true, Ordering::Relaxed);
                let failure = capture(shared, source);
                shared.open.store(false, Ordering::Relaxed);
                let Some(error) = failure else { return };
                let message = error.to_string();
                tracing::error!(
                    "microphones: {message}; closed, opening it again in {} ms",
                    retry.as_millis()
                );
                shared.failed(&shared.read_failures, message);
            }
            Err(error) => {
                let message = error.to_string();
                open_failures.failed("microphones", &message, "the robot hears silence", retry);
                shared.failed(&shared.open_failures, message);
            }
        }
        if !shared.sleep(retry) {
            return;
        }
    }
}

/// Reads `source` until the thread is told to stop (`None`) or the device fails.
fn capture(shared: &Shared, mut source: AlsaSource) -> Option<ReadError> {
    let rate = source.sample_rate_hz();
    let channels = source.channel_count();
    let period = source.frames_per_buffer() as u64;
    let stall = Duration::from_nanos(frame_time_ns(period * 8, rate)).max(MIN_STALL_TIMEOUT);
    let started_ns = ipc::health::monotonic_ns();
    let mut frames_read = 0u64;
    let mut overruns_unlogged = 0u64;
    let mut overruns_logged_at: Option<Instant> = None;
    while !shared.stopping() {
        match source.wait_readable(stall) {
            Ok(true) => {}
            Ok(false) => {
                return Some(ReadError::Alsa {
                    device: source.device().to_owned(),
                    reason: format!(
                        "no samples for {} ms: the device stalled",
                        stall.as_millis()
                    ),
                })
            }
            Err(error) => return Some(error),
        }
        let mut frames = shared.buffer(rate, channels);
        match source.read(&mut frames) {
            Ok(true) => {}
            Ok(false) => {
                return Some(ReadError::Alsa {
                    device: source.device().to_owned(),
                    reason: "the capture ended".to_owned(),
                })
            }
            Err(error) => return Some(error),
        }
        shared.buffers_captured.fetch_add(1, Ordering::Relaxed);
        frames_read += u64::from(frames.frame_count);
        if frames.overruns > 0 {
            shared
                .overruns
                .fetch_add(u64::from(frames.overruns), Ordering::Relaxed);
            overruns_unlogged += u64::from(frames.overruns);
        }
        let log_due = overruns_logged_at.is_none_or(|at| at.elapsed() >= OVERRUN_LOG_INTERVAL);
        if overruns_unlogged > 0 && log_due {
            tracing::warn!(
                "microphones: {overruns_unlogged} overruns (sound lost) on ALSA device {}, {} since it was opened (logged at most every {} s)",
                source.device(),
                source.overruns_total(),
                OVERRUN_LOG_INTERVAL.as_secs()
            );
            overruns_unlogged = 0;
            overruns_logged_at = Some(Instant::now());
        }
        // A device faster than real time may run one buffer ahead of the clock, no more.
        let due_ns =
            started_ns.saturating_add(frame_time_ns(frames_read.saturating_sub(period), rate));
        let now_ns = ipc::health::monotonic_ns();
        if due_ns > now_ns && !shared.sleep(Duration::from_nanos(due_ns - now_ns).min(stall)) {
            return None;
        }
        shared.push(frames);
    }
    None
}
