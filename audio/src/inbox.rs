//! The microphone of the simulated robot: WAV files dropped into a folder (the inbox) are
//! "heard" one after another, each in real time from the moment it is picked up; between them
//! the microphone hears silence.
//!
//! ```text
//!  cortex sim sound whistle.wav ──► <run dir>/microphone/000001.wav   (written as a dot-file,
//!                                          │                            then renamed: atomic)
//!  audio process, every tick:              ▼
//!    MicrophoneInbox::poll(now) ── opens the oldest *.wav, removes it, delivers every buffer
//!                                  whose time has come (a tick drains all that are due)
//! ```
//!
//! A file that cannot be read is reported (the error names the file and byte offset) and
//! dropped; it never stops the microphone. `cortex sim sound` checks a file with the same
//! [`WavSource`] before dropping it, so the caller sees the error first.

use crate::frames::{AudioFrames, MAX_FRAMES};
use crate::source::{AudioSource, ReadError};
use crate::wav::{WavOpenError, WavSource};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Frames per buffer: the robot's ALSA period (2048 frames, 42.7 ms at 48 kHz).
pub const FRAMES_PER_BUFFER: usize = MAX_FRAMES;

/// What went wrong with one file of the inbox (the microphone goes on with the next).
#[derive(Debug, thiserror::Error)]
pub enum InboxError {
    #[error("microphone inbox {folder}: cannot list: {source}")]
    List {
        folder: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Open(#[from] WavOpenError),
    #[error(transparent)]
    Read(#[from] ReadError),
}

/// The recording being heard now.
#[derive(Debug)]
struct Playing {
    source: WavSource,
    /// When its first frame was heard, monotonic ns.
    start_ns: u64,
    name: String,
    /// Frames delivered so far.
    delivered: u64,
}

/// WAV files from a folder, heard in real time.
#[derive(Debug)]
pub struct MicrophoneInbox {
    folder: PathBuf,
    playing: Option<Playing>,
    frames: Box<AudioFrames>,
}

/// One buffer heard, with the monotonic time of its first frame.
#[derive(Debug, Clone, Copy)]
pub struct Heard<'a> {
    pub frames: &'a AudioFrames,
    /// The monotonic time the recording started, ns: `start_ns + frames.timestamp()` is when
    /// this buffer was heard.
    pub start_ns: u64,
    /// The buffer is the first of a new recording (detectors start afresh).
    pub first: bool,
}

impl MicrophoneInbox {
    /// Listens to `folder` (which need not exist yet).
    pub fn new(folder: &Path) -> MicrophoneInbox {
        MicrophoneInbox {
            folder: folder.to_owned(),
            playing: None,
            frames: AudioFrames::empty(48_000, 1),
        }
    }

    /// The folder listened to.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// The name of the recording being heard, if any.
    pub fn playing(&self) -> Option<&str> {
        self.playing.as_ref().map(|playing| playing.name.as_str())
    }

    /// Delivers every buffer whose time has come by `now_ns` (monotonic) to `on_buffer`, picking
    /// up the next file when a recording ends. Errors are returned after the buffers that could
    /// be delivered; the failing file is dropped.
    pub fn poll(
        &mut self,
        now_ns: u64,
        mut on_buffer: impl FnMut(Heard<'_>),
    ) -> Result<(), InboxError> {
        loop {
            if self.playing.is_none() {
                match self.next_file(now_ns) {
                    Ok(Some(playing)) => self.playing = Some(playing),
                    Ok(None) => return Ok(()),
                    Err(error) => return Err(error),
                }
            }
            let Some(playing) = self.playing.as_mut() else {
                return Ok(());
            };
            loop {
                if playing.next_buffer_due_ns() > now_ns {
                    return Ok(());
                }
                let first = playing.delivered == 0;
                match playing.source.read(&mut self.frames) {
                    Ok(true) => {
                        playing.delivered += u64::from(self.frames.frame_count);
                        on_buffer(Heard {
                            frames: &self.frames,
                            start_ns: playing.start_ns,
                            first,
                        });
                    }
                    Ok(false) => {
                        tracing::debug!("microphone: {} heard to its end", playing.name);
                        self.playing = None;
                        break;
                    }
                    Err(error) => {
                        self.playing = None;
                        return Err(error.into());
                    }
                }
            }
        }
    }

    /// Opens the oldest `*.wav` of the folder and removes it from the folder.
    fn next_file(&self, now_ns: u64) -> Result<Option<Playing>, InboxError> {
        let entries = match std::fs::read_dir(&self.folder) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(InboxError::List {
                    folder: self.folder.clone(),
                    source,
                })
            }
        };
        let mut names: Vec<String> = entries
            .filter_map(|entry| entry.ok())
            .filter_map(|entry| entry.file_name().into_string().ok())
            .filter(|name| !name.starts_with('.') && name.ends_with(".wav"))
            .collect();
        names.sort();
        let Some(name) = names.into_iter().next() else {
            return Ok(None);
        };
        let path = self.folder.join(&name);
        let opened = WavSource::open(&path, FRAMES_PER_BUFFER);
        // Heard once, good or bad: the file leaves the inbox either way.
        if let Err(error) = std::fs::remove_file(&path) {
            tracing::warn!("microphone: cannot remove {}: {error}", path.display());
        }
        let source = opened?;
        tracing::info!("microphone: hearing {name}");
        Ok(Some(Playing {
            source,
            start_ns: now_ns,
            name,
            delivered: 0,
        }))
    }
}

impl Playing {
    /// When the next buffer is complete (the way ALSA delivers a period once it is full),
    /// monotonic ns.
    fn next_buffer_due_ns(&self) -> u64 {
        let rate = u64::from(self.source.sample_rate_hz().max(1));
        let frames = self.delivered + FRAMES_PER_BUFFER as u64;
        let elapsed = Duration::from_secs(frames / rate)
            + Duration::from_nanos((frames % rate) * 1_000_000_000 / rate);
        self.start_ns
            .saturating_add(u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX))
    }
}
