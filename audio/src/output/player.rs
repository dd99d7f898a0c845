//! `SoundPlayer`: takes requests from a tick without waiting, and plays them on its own thread.
//!
//! ```text
//!  tick ── submit() ──► bounded queue ──► playback thread ──► SoundSink (ALSA / recording)
//!          (a lock held     (oldest dropped,   (resolve: file, speech     │
//!           for a push)      counted)           or fallback; convert;     ▼
//!                                               stream 10 ms chunks)   history of PlayedSound
//! ```
//!
//! `submit()` never waits: it pushes to the queue if the queue's lock is free (the playback
//! thread holds it only for a pop, never while it loads, synthesises or writes), else it sends
//! the request through a lock-free channel that is drained into the queue by the next holder
//! of the lock. An interrupting request bumps a counter the thread checks between chunks.

use super::library::{LookupError, SoundLibrary};
use super::playback::{run, Shared};
use super::request::{PlayRequest, PlayedSound, Sound};
use super::sink::{SinkError, SoundSink};
use super::speech::{SpeechEngine, SpeechError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Sizes and times of a player.
#[derive(Debug, Clone)]
pub struct PlayerParameters {
    /// Requests waiting to play; the oldest is dropped when a new one finds the queue full.
    pub queue_capacity: usize,
    /// Played sounds kept in the history (and errors kept for `take_errors`).
    pub history_capacity: usize,
    /// Samples go to the sink in chunks this long; a cut takes effect within one chunk.
    pub chunk_duration: Duration,
    /// How long `stop` (and dropping the player) waits for the thread before leaving it.
    pub stop_timeout: Duration,
}

impl Default for PlayerParameters {
    fn default() -> Self {
        PlayerParameters {
            queue_capacity: 8,
            history_capacity: 32,
            chunk_duration: Duration::from_millis(10),
            stop_timeout: Duration::from_secs(2),
        }
    }
}

/// Playing one request failed (the player goes on with the next).
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    #[error(transparent)]
    Lookup(#[from] LookupError),
    /// Speech failed; the fallback WAV played instead (or there was none: see `NoSpeech`).
    #[error("saying {text:?}: {source}")]
    Speech {
        text: String,
        #[source]
        source: SpeechError,
    },
    /// Neither speech nor a shipped WAV could say the text.
    #[error("saying {text:?}: no speech ({speech}) and no fallback ({fallback})")]
    NoSpeech {
        text: String,
        speech: String,
        fallback: LookupError,
    },
    #[error("playing {label:?}: {source}")]
    Sink {
        label: String,
        #[source]
        source: SinkError,
    },
}

/// Starting a player failed.
#[derive(Debug, thiserror::Error)]
pub enum PlayerStartError {
    #[error("cannot start the sound player's thread: {0}")]
    Thread(std::io::Error),
}

/// Stopping a player did not go cleanly.
#[derive(Debug, thiserror::Error)]
pub enum PlayerStopError {
    #[error("the sound player's thread did not stop within {0:?} (its sink blocks); left running")]
    Timeout(Duration),
    #[error("the sound player's thread panicked")]
    Panicked,
}

/// What the player is doing and has done.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PlayerStatus {
    /// The sound being resolved or streamed.
    pub playing: Option<Sound>,
    pub queued: usize,
    /// Requests dropped because the queue was full.
    pub dropped_requests: u64,
    /// Sounds finished (completely or cut).
    pub played_total: u64,
    pub errors_total: u64,
    /// False once the playback thread has ended (stopped, or its sink panicked).
    pub running: bool,
}

/// Plays sounds on its own thread.
pub struct SoundPlayer {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
    stop_timeout: Duration,
}

impl std::fmt::Debug for SoundPlayer {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("SoundPlayer")
            .field("status", &self.status())
            .finish_non_exhaustive()
    }
}

impl SoundPlayer {
    /// Starts the playback thread. `speech: None` says every text with its shipped WAV.
    pub fn spawn(
        library: SoundLibrary,
        speech: Option<Box<dyn SpeechEngine>>,
        sink: Box<dyn SoundSink>,
        parameters: PlayerParameters,
    ) -> Result<SoundPlayer, PlayerStartError> {
        let shared = Arc::new(Shared::new(&parameters));
        let thread_shared = Arc::clone(&shared);
        let chunk_duration = parameters.chunk_duration;
        let thread = std::thread::Builder::new()
            .name("sound-player".to_owned())
            .spawn(move || {
                // Dropped when the thread ends, even by a panic: `stop` hears of it.
                let _ended = thread_shared.end_guard();
                run(&thread_shared, library, speech, sink, chunk_duration);
            })
            .map_err(PlayerStartError::Thread)?;
        Ok(SoundPlayer {
            shared,
            thread: Some(thread),
            stop_timeout: parameters.stop_timeout,
        })
    }

    /// Hands a request to the playback thread without waiting for it (not even for a lock).
    /// Returns the request dropped to make room, if the queue was full (when the lock was taken
    /// that moment, the drop happens a little later and is only counted).
    pub fn submit(&self, request: PlayRequest) -> Option<PlayRequest> {
        self.shared.submit(request)
    }

    /// The sounds played (completely or cut), oldest first, at most `history_capacity`.
    pub fn history(&self) -> Vec<PlayedSound> {
        self.shared.report().history.iter().cloned().collect()
    }

    /// The errors since the last call, oldest first (at most `history_capacity`).
    pub fn take_errors(&self) -> Vec<PlayError> {
        self.shared.report().errors.drain(..).collect()
    }

    pub fn status(&self) -> PlayerStatus {
        let queued = self.shared.queued();
        let report = self.shared.report();
        PlayerStatus {
            playing: report.playing.clone(),
            queued,
            dropped_requests: self.shared.dropped_requests(),
            played_total: report.played_total,
            errors_total: report.errors_total,
            running: self
                .thread
                .as_ref()
                .is_some_and(|thread| !thread.is_finished()),
        }
    }

    /// Cuts the sound that plays (reported as interrupted), ends the thread and waits for it at
    /// most `stop_timeout`.
    pub fn stop(mut self) -> Result<(), PlayerStopError> {
        self.stop_thread()
    }

    fn stop_thread(&mut self) -> Result<(), PlayerStopError> {
        let Some(thread) = self.thread.take() else {
            return Ok(());
        };
        self.shared.request_stop();
        if self.shared.wait_ended(self.stop_timeout) {
            thread.join().map_err(|_| PlayerStopError::Panicked)
        } else {
            Err(PlayerStopError::Timeout(self.stop_timeout))
        }
    }
}

impl Drop for SoundPlayer {
    fn drop(&mut self) {
        let _ = self.stop_thread();
    }
}
