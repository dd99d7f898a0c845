//! The playback thread of [`SoundPlayer`](super::SoundPlayer): what it shares with `submit`,
//! and its loop (take a request, resolve it to samples, stream them in chunks, report).

use super::library::{fallback_name, SoundLibrary};
use super::pcm::Pcm;
use super::player::{PlayError, PlayerParameters};
use super::request::{monotonic_ns, Delivery, PlayRequest, PlayedFrom, PlayedSound, Sound};
use super::sink::SoundSink;
use super::speech::{SpeechEngine, SpeechError};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// What the player reports.
#[derive(Debug, Default)]
pub(crate) struct Report {
    pub history: VecDeque<PlayedSound>,
    pub errors: VecDeque<PlayError>,
    pub playing: Option<Sound>,
    pub dropped_requests: u64,
    pub played_total: u64,
    pub errors_total: u64,
}

/// The state `submit` and the playback thread share.
#[derive(Debug)]
pub(crate) struct Shared {
    queue: Mutex<VecDeque<PlayRequest>>,
    wake: Condvar,
    /// Bumped by every interrupting request; the thread compares it between chunks.
    interrupts: AtomicU64,
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

impl Shared {
    pub fn new(parameters: &PlayerParameters) -> Shared {
        Shared {
            queue: Mutex::new(VecDeque::with_capacity(parameters.queue_capacity.max(1))),
            wake: Condvar::new(),
            interrupts: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            ended: Mutex::new(false),
            ended_signal: Condvar::new(),
            report: Mutex::new(Report::default()),
            queue_capacity: parameters.queue_capacity.max(1),
            history_capacity: parameters.history_capacity.max(1),
        }
    }

    pub fn submit(&self, request: PlayRequest) -> Option<PlayRequest> {
        let dropped = {
            let mut queue = locked(&self.queue);
            let dropped = if queue.len() >= self.queue_capacity {
                queue.pop_front()
            } else {
                None
            };
            match request.delivery {
                Delivery::Interrupt => {
                    queue.push_front(request);
                    self.interrupts.fetch_add(1, Ordering::SeqCst);
                }
                Delivery::Queue => queue.push_back(request),
            }
            dropped
        };
        self.wake.notify_one();
        if dropped.is_some() {
            self.report().dropped_requests += 1;
        }
        dropped
    }

    pub fn queued(&self) -> usize {
        locked(&self.queue).len()
    }

    pub fn report(&self) -> MutexGuard<'_, Report> {
        locked(&self.report)
    }

    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        // Taking the lock orders the flag before the thread's check-then-wait.
        drop(locked(&self.queue));
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

    /// The next request and the interrupt count it starts under; `None` when stopping.
    fn next(&self) -> Option<(PlayRequest, u64)> {
        let mut queue = locked(&self.queue);
        loop {
            if self.stopping() {
                return None;
            }
            if let Some(request) = queue.pop_front() {
                return Some((request, self.interrupts.load(Ordering::SeqCst)));
            }
            queue = self
                .wake
                .wait(queue)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn error(&self, error: PlayError) {
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
    while let Some((request, interrupts)) = shared.next() {
        shared.report().playing = Some(request.sound.clone());
        let cut = || shared.stopping() || shared.interrupts.load(Ordering::SeqCst) != interrupts;
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

enum Resolved {
    Sound(PlayedFrom, Pcm),
    /// Cut while the speech was being synthesised.
    Cancelled(PlayedFrom),
    /// An error, reported.
    Nothing,
}

/// The samples for `sound`: the file, or the speech, or the speech's fallback WAV.
fn resolve(
    shared: &Shared,
    library: &SoundLibrary,
    speech: Option<&mut (dyn SpeechEngine + 'static)>,
    sound: &Sound,
    cut: &dyn Fn() -> bool,
) -> Resolved {
    let text = match sound {
        Sound::Play { name } => {
            return match library.load(name) {
                Ok((path, pcm)) => Resolved::Sound(PlayedFrom::File { path }, pcm),
                Err(error) => {
                    shared.error(error.into());
                    Resolved::Nothing
                }
            }
        }
        Sound::Say { text } => text,
    };
    let speech_error = match speech {
        Some(engine) => match engine.synthesise(text, cut) {
            Ok(pcm) => {
                return Resolved::Sound(
                    PlayedFrom::Speech {
                        engine: engine.name().to_owned(),
                    },
                    pcm,
                )
            }
            Err(SpeechError::Cancelled) => {
                return Resolved::Cancelled(PlayedFrom::Speech {
                    engine: engine.name().to_owned(),
                })
            }
            Err(error) => error,
        },
        None => SpeechError::Unavailable {
            program: "(no speech engine)".into(),
        },
    };
    let fallback = match fallback_name(text) {
        Some(name) => library.load(&name),
        None => Err(super::library::LookupError::InvalidName {
            name: text.chars().take(64).collect(),
            reason: "no fallback name can be made of this text",
        }),
    };
    match fallback {
        Ok((path, pcm)) => {
            if !matches!(speech_error, SpeechError::Unavailable { .. }) {
                shared.error(PlayError::Speech {
                    text: text.clone(),
                    source: speech_error,
                });
            }
            Resolved::Sound(PlayedFrom::Fallback { path }, pcm)
        }
        Err(fallback) => {
            shared.error(PlayError::NoSpeech {
                text: text.clone(),
                speech: speech_error.to_string(),
                fallback,
            });
            Resolved::Nothing
        }
    }
}
