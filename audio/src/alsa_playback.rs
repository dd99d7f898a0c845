//! `AlsaPlayback`: the robot's loudspeakers for the `SoundOutput` module (feature `robot`).
//!
//! A thread opens the ALSA playback device ([`AlsaSink`]); one that cannot be opened is logged
//! with its name and tried again every `retry_interval_ms`. Once it is open, the thread starts
//! the [`SoundPlayer`] on it and hands the player over; the module takes it at its next tick
//! ([`AlsaPlayback::take_player`], which never waits). Until then requests are logged and
//! dropped, as without a sink.

use crate::output::alsa_sink::{AlsaSink, AlsaSinkParameters};
use crate::output::{PlayerParameters, SoundLibrary, SoundPlayer, SpeechEngine};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// What the player is made of, given to the thread that opens the device.
pub struct PlayerParts {
    pub library: SoundLibrary,
    pub speech: Option<Box<dyn SpeechEngine>>,
    pub parameters: PlayerParameters,
}

impl std::fmt::Debug for PlayerParts {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("PlayerParts")
            .field("library", &self.library)
            .field("speech", &self.speech.is_some())
            .field("parameters", &self.parameters)
            .finish()
    }
}

/// Starting the opener thread failed.
#[derive(Debug, thiserror::Error)]
#[error("cannot start the loudspeaker thread: {0}")]
pub struct PlaybackStartError(std::io::Error);

#[derive(Debug, Default)]
struct Shared {
    stop: AtomicBool,
    open_failures: AtomicU64,
    last_error: Mutex<Option<String>>,
}

/// Opens the loudspeakers on a thread and hands over a player once they are open.
#[derive(Debug)]
pub struct AlsaPlayback {
    device: String,
    shared: Arc<Shared>,
    player: Receiver<SoundPlayer>,
}

impl AlsaPlayback {
    /// Starts the thread that opens `sink` (again every `retry_interval` until it opens); returns
    /// at once.
    pub fn start(
        sink: AlsaSinkParameters,
        retry_interval: Duration,
        parts: PlayerParts,
    ) -> Result<AlsaPlayback, PlaybackStartError> {
        let shared = Arc::new(Shared::default());
        let (sender, player) = std::sync::mpsc::sync_channel(1);
        let device = sink.device.clone();
        let thread_shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("loudspeakers".to_owned())
            .spawn(move || {
                if let Some(player) = open(&thread_shared, &sink, retry_interval, parts) {
                    // The module is gone when this fails; the player stops as it is dropped.
                    let _ = sender.send(player);
                }
            })
            .map_err(PlaybackStartError)?;
        Ok(AlsaPlayback {
            device,
            shared,
            player,
        })
    }

    /// The device it opens.
    pub fn device(&self) -> &str {
        &self.device
    }

    /// The player, once the device is open (never waits).
    pub fn take_player(&self) -> Option<SoundPlayer> {
        self.player.try_recv().ok()
    }

    /// Attempts to open the device that failed.
    pub fn open_failures(&self) -> u64 {
        self.shared.open_failures.load(Ordering::Relaxed)
    }

    /// The last failure, naming the device.
    pub fn last_error(&self) -> Option<String> {
        self.shared
            .last_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Drop for AlsaPlayback {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
    }
}

/// Tries to open the device until it opens (the player on it) or the opener is dropped (`None`).
fn open(
    shared: &Shared,
    parameters: &AlsaSinkParameters,
    retry_interval: Duration,
    parts: PlayerParts,
) -> Option<SoundPlayer> {
    let mut failures = crate::alsa_device::OpenFailureLog::default();
    loop {
        if shared.stop.load(Ordering::Relaxed) {
            return None;
        }
        match AlsaSink::open(parameters) {
            Ok(sink) => {
                let format = crate::output::SoundSink::format(&sink);
                tracing::info!(
                    "loudspeakers: playing to ALSA device {}: {} channels at {} Hz",
                    parameters.device,
                    format.channels,
                    format.sample_rate_hz
                );
                return match SoundPlayer::spawn(
                    parts.library,
                    parts.speech,
                    Box::new(sink),
                    parts.parameters,
                ) {
                    Ok(player) => Some(player),
                    Err(error) => {
                        tracing::error!("loudspeakers: {error}; sounds are dropped");
                        None
                    }
                };
            }
            Err(error) => {
                let message = error.to_string();
                failures.failed(
                    "loudspeakers",
                    &message,
                    "sounds are dropped",
                    retry_interval,
                );
                shared.open_failures.fetch_add(1, Ordering::Relaxed);
                *shared
                    .last_error
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner) = Some(message);
            }
        }
        if !crate::alsa_device::sleep_unless(&shared.stop, retry_interval) {
            return None;
        }
    }
}
