//! The playback thread of [`SoundPlayer`](super::SoundPlayer): what it shares with `submit`,
//! and its loop (take a request, resolve it to samples, stream them in chunks, report).

use super::library::SoundLibrary;
use super::player::{PlayError, PlayerParameters};
use super::request::{monotonic_ns, Delivery, PlayRequest, PlayedFrom, PlayedSound, Sound};
use super::resolve::{resolve, Resolved};
use super::sink::SoundSink;
use super::speech::SpeechEngine;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError, TryLockError};
use std::time::Duration;

/// What the player reports.
#[derive(Debug, Default)]
pub(crate) struct Report {
    pub history: VecDeque<PlayedSound>,
    pub errors: VecDeque<PlayError>,
    pub playing: Option<Sound>,
    pub played_total: u64,
    pub errors_total: u64,
}

/// The requests waiting to play.
#[derive(Debug)]
struct Inbox {
    /// Requests with their sequence numbers (in the order `submit` was called).
    queue: VecDeque<(u64, PlayRequest)>,
    /// Requests `submit` could not push because the lock was held (see [`Shared::submit`]).
    overflow: Receiver<(u64, PlayRequest)>,
}

impl Inbox {
    /// Moves the overflow into the queue, in submission order.
    fn drain(&mut self, shared: &Shared) {
        while let Ok(entry) = self.overflow.try_recv() {
            self.push(entry, shared);
        }
    }

    fn push(&mut self, entry: (u64, PlayRequest), shared: &Shared) -> Option<PlayRequest> {
        let dropped = if self.queue.len() >= shared.queue_capacity {
            shared.dropped_requests.fetch_add(1, Ordering::Relaxed);
            self.queue.pop_front().map(|(_, request)| request)
        } else {
            None
        };
        match entry.1.delivery {
            Delivery::Interrupt => {
                // Under the lock, with the push: a request taken from the queue before this
                // is cut by it, the request itself never.
                shared.latest_interrupt.fetch_max(entry.0, Ordering::SeqCst);
                self.queue.push_front(entry);
            }
            Delivery::Queue => self.queue.push_back(entry),
        }
        dropped
    }
}

/// The state `submit` and the playback thread share.
#[derive(Debug)]
pub(crate) struct Shared {
    inbox: Mutex<Inbox>,
    overflow: Sender<(u64, PlayRequest)>,
    wake: Condvar,
    /// The thread waits on `wake` (so a submit has to wake it: a futex call saved otherwise).
    waiting: AtomicBool,
    /// The sequence number the next request gets.
    next_sequence: AtomicU64,
    /// The highest sequence number of an interrupting request in the queue, set under the
    /// inbox lock with the push. A sound is cut when it grows past its value when the sound
    /// was taken from the queue (checked between chunks).
    latest_interrupt: AtomicU64,
    /// An interrupting request went to the overflow: the thread drains it between chunks.
    overflow_interrupt: AtomicBool,
    dropped_requests: AtomicU64,
    stop: AtomicBool,
    /// Set when the playback thread ends (also by a panic).
    ended: Mutex<bool>,
    ended_signal: Condvar,
    report: Mutex<Report>,
    queue_capacity: usize,
    history_capacity: usize,
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// How long the idle thread sleeps before it looks at the overflow again, should a wake-up
/// have been lost (a submit that found the lock held just before the thread began to wait).
const IDLE_RECHECK: Duration = Duration::from_millis(20);

impl Shared {
    pub fn new(parameters: &PlayerParameters) -> Shared {
        let (overflow, overflow_receiver) = std::sync::mpsc::channel();
        Shared {
            inbox: Mutex::new(Inbox {
                queue: VecDeque::with_capacity(parameters.queue_capacity.max(1)),
                overflow: overflow_receiver,
            }),
            overflow,
            wake: Condvar::new(),
            waiting: AtomicBool::new(false),
            next_sequence: AtomicU64::new(1),
            latest_interrupt: AtomicU64::new(0),
            overflow_interrupt: AtomicBool::new(false),
            dropped_requests: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            ended: Mutex::new(false),
            ended_signal: Condvar::new(),
            report: Mutex::new(Report::default()),
            queue_capacity: parameters.queue_capacity.max(1),
            history_capacity: parameters.history_capacity.max(1),
        }
    }

    /// Never waits: with the inbox lock free (nearly always), pushes under it; if the playback
    /// thread holds it (it may have been preempted there), sends through the lock-free
    /// overflow channel, which whoever takes the lock next drains first (so one thread's
    /// requests keep their order). Returns the request dropped to make room, when it was
    /// dropped at once.
    pub fn submit(&self, request: PlayRequest) -> Option<PlayRequest> {
        let interrupt = request.delivery == Delivery::Interrupt;
        let sequence = self.next_sequence.fetch_add(1, Ordering::SeqCst);
        let entry = (sequence, request);
        let dropped = match self.inbox.try_lock() {
            Ok(mut inbox) => {
                inbox.drain(self);
                inbox.push(entry, self)
            }
            Err(TryLockError::Poisoned(poisoned)) => {
                let mut inbox = poisoned.into_inner();
                inbox.drain(self);
                inbox.push(entry, self)
            }
            Err(TryLockError::WouldBlock) => {
                // The receiver lives as long as `self`.
                let _ = self.overflow.send(entry);
                if interrupt {
                    self.overflow_interrupt.store(true, Ordering::SeqCst);
                }
                None
            }
        };
        if self.waiting.load(Ordering::SeqCst) {
            self.wake.notify_one();
        }
        dropped
    }

    pub fn queued(&self) -> usize {
        let mut inbox = locked(&self.inbox);
        inbox.drain(self);
        inbox.queue.len()
    }

    pub fn dropped_requests(&self) -> u64 {
        self.dropped_requests.load(Ordering::Relaxed)
    }

    pub fn report(&self) -> MutexGuard<'_, Report> {
        locked(&self.report)
    }

    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        // Taking the lock orders the flag before the thread's check-then-wait.
        drop(locked(&self.inbox));
        self.wake.notify_all();
    }

    /// Marks the thread ended when dropped.
    pub fn end_guard(&self) -> EndGuard<'_> {
        EndGuard(self)
    }

    /// Waits at most `timeout` for the thread to end; true if it did.
    pub fn wait_ended(&self, timeout: Duration) -> bool {
        let ended = locked(&self.ended);
        let (ended, _) = self
            .ended_signal
            .wait_timeout_while(ended, timeout, |ended| !*ended)
            .unwrap_or_else(PoisonError::into_inner);
        *ended
    }

    fn stopping(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Whether an interrupting request arrived since `latest_interrupt` was `at_start`.
    fn interrupted_since(&self, at_start: u64) -> bool {
        if self.overflow_interrupt.swap(false, Ordering::SeqCst) {
            locked(&self.inbox).drain(self);
        }
        self.latest_interrupt.load(Ordering::SeqCst) > at_start
    }

    /// The next request and the interrupt mark it starts under; `None` when stopping.
    fn next(&self) -> Option<(PlayRequest, u64)> {
        let mut inbox = locked(&self.inbox);
        loop {
            if self.stopping() {
                return None;
            }
            inbox.drain(self);
            if let Some((_, request)) = inbox.queue.pop_front() {
                return Some((request, self.latest_interrupt.load(Ordering::SeqCst)));
            }
            self.waiting.store(true, Ordering::SeqCst);
            inbox = self
                .wake
                .wait_timeout(inbox, IDLE_RECHECK)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
            self.waiting.store(false, Ordering::SeqCst);
        }
    }

    pub fn error(&self, error: PlayError) {
        let mut report = self.report();
        report.errors_total += 1;
        if report.errors.len() >= self.history_capacity {
            report.errors.pop_front();
        }
        report.errors.push_back(error);
    }

    fn played(&self, played: PlayedSound) {
        let mut report = self.report();
        report.played_total += 1;
        report.playing = None;
        if report.history.len() >= self.history_capacity {
            report.history.pop_front();
        }
        report.history.push_back(played);
    }
}

/// Marks the playback thread ended when it is dropped.
pub(crate) struct EndGuard<'a>(&'a Shared);

impl Drop for EndGuard<'_> {
    fn drop(&mut self) {
        *locked(&self.0.ended) = true;
        self.0.ended_signal.notify_all();
    }
}

/// The playback thread: until stopped, plays one request after the other.
pub(crate) fn run(
    shared: &Shared,
    library: SoundLibrary,
    mut speech: Option<Box<dyn SpeechEngine>>,
    mut sink: Box<dyn SoundSink>,
    chunk_duration: Duration,
) {
    let format = sink.format();
    let chunk_frames =
        ((f64::from(format.sample_rate_hz) * chunk_duration.as_secs_f64()) as usize).max(1);
    let chunk_samples = chunk_frames * format.channels.max(1) as usize;
    while let Some((request, interrupt_mark)) = shared.next() {
        shared.report().playing = Some(request.sound.clone());
        let cut = || shared.stopping() || shared.interrupted_since(interrupt_mark);
        let started = monotonic_ns();
        let (from, pcm) = match resolve(
            shared,
            &library,
            speech.as_deref_mut(),
            &request.sound,
            &cut,
        ) {
            Resolved::Sound(from, pcm) => (from, pcm.converted(format)),
            Resolved::Cancelled(from) => {
                let finished = monotonic_ns();
                report_played(
                    shared,
                    sink.as_mut(),
                    &request.sound,
                    from,
                    started,
                    finished,
                    0,
                    0,
                    true,
                );
                continue;
            }
            Resolved::Nothing => {
                shared.report().playing = None;
                continue;
            }
        };
        let frames_total = pcm.frame_count() as u64;
        if let Err(source) = sink.started(&request.sound) {
            shared.error(PlayError::Sink {
                label: request.sound.label().to_owned(),
                source,
            });
        }
        let started = monotonic_ns();
        let mut frames_played = 0;
        let mut interrupted = false;
        for chunk in pcm.samples.chunks(chunk_samples) {
            if cut() {
                interrupted = true;
                if let Err(source) = sink.discard() {
                    shared.error(PlayError::Sink {
                        label: request.sound.label().to_owned(),
                        source,
                    });
                }
                break;
            }
            if let Err(source) = sink.write(chunk) {
                shared.error(PlayError::Sink {
                    label: request.sound.label().to_owned(),
                    source,
                });
                interrupted = true;
                break;
            }
            frames_played += (chunk.len() / format.channels.max(1) as usize) as u64;
        }
        let finished = monotonic_ns();
        report_played(
            shared,
            sink.as_mut(),
            &request.sound,
            from,
            started,
            finished,
            frames_played,
            frames_total,
            interrupted,
        );
    }
    shared.report().playing = None;
}

#[allow(clippy::too_many_arguments)]
fn report_played(
    shared: &Shared,
    sink: &mut dyn SoundSink,
    sound: &Sound,
    from: PlayedFrom,
    started_monotonic_ns: u64,
    finished_monotonic_ns: u64,
    frames_played: u64,
    frames_total: u64,
    interrupted: bool,
) {
    let played = PlayedSound {
        sound: sound.clone(),
        from,
        started_monotonic_ns,
        finished_monotonic_ns,
        frames_played,
        frames_total,
        interrupted,
    };
    if let Err(source) = sink.finished(&played) {
        shared.error(PlayError::Sink {
            label: sound.label().to_owned(),
            source,
        });
    }
    shared.played(played);
}
