//! `RecordingSink`: what the simulation plays to. Appends every sample to `played.wav` and one
//! line per sound to `played.tsv` in a folder (the run directory), optionally paced like a
//! loudspeaker (a write takes as long as its samples last).
//!
//! `played.tsv` has a line when a sound starts and one when it ends (see `played_log.rs`), so a
//! sound cut by the process dying is there as started. A sink opened on a folder
//! that already has a recording (the audio process restarted) appends to it; a `played.wav` that
//! cannot be appended to is moved aside to `played-unreadable-<n>.wav`, never overwritten.

use super::pcm::SinkFormat;
use super::played_log::{log_line, RecordedStatus};
use super::request::{PlayedSound, Sound};
use super::sink::{SinkError, SoundSink};
use hound::{SampleFormat, WavSpec, WavWriter};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Opening a recording failed.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    #[error("{path}: {reason}")]
    File { path: PathBuf, reason: String },
}

/// Whether writes take real time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pacing {
    /// A write returns once its samples would have been heard (the simulation).
    RealTime,
    /// A write returns at once (tests, benchmarks).
    Immediate,
}

/// Records to `<folder>/played.wav` (16-bit) and `<folder>/played.tsv`.
pub struct RecordingSink {
    format: SinkFormat,
    wav_path: PathBuf,
    writer: WavWriter<BufWriter<File>>,
    log: File,
    pacing: Pacing,
    /// Frames in `played.wav`.
    frames_written: u64,
    /// Real-time pacing: when frame `paced_frames` after `paced_origin` is due.
    paced_origin: Instant,
    paced_frames: u64,
    /// The `played.wav` moved aside when opening, and why.
    moved_aside: Option<(PathBuf, String)>,
}

impl std::fmt::Debug for RecordingSink {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("RecordingSink")
            .field("wav_path", &self.wav_path)
            .field("format", &self.format)
            .field("frames_written", &self.frames_written)
            .finish_non_exhaustive()
    }
}

impl RecordingSink {
    /// Opens (or continues) the recording in `folder`.
    pub fn open(
        folder: &Path,
        format: SinkFormat,
        pacing: Pacing,
    ) -> Result<RecordingSink, RecordingError> {
        let file_error = |path: &Path, reason: String| RecordingError::File {
            path: path.to_owned(),
            reason,
        };
        if format.sample_rate_hz == 0 || format.channels == 0 || format.channels > 8 {
            return Err(file_error(
                folder,
                format!(
                    "cannot record {} Hz with {} channels",
                    format.sample_rate_hz, format.channels
                ),
            ));
        }
        std::fs::create_dir_all(folder).map_err(|error| file_error(folder, error.to_string()))?;
        let wav_path = folder.join("played.wav");
        let spec = WavSpec {
            channels: format.channels as u16,
            sample_rate: format.sample_rate_hz,
            bits_per_sample: 16,
            sample_format: SampleFormat::Int,
        };
        let mut moved_aside = None;
        let writer = if wav_path.exists() {
            match WavWriter::append(&wav_path) {
                Ok(writer) if writer.spec() == spec => Some(writer),
                Ok(writer) => {
                    let found = writer.spec();
                    drop(writer);
                    moved_aside = Some(format!(
                        "recorded at {} Hz with {} channels, not {} Hz with {}",
                        found.sample_rate, found.channels, spec.sample_rate, spec.channels
                    ));
                    None
                }
                Err(error) => {
                    moved_aside = Some(format!("cannot be appended to: {error}"));
                    None
                }
            }
        } else {
            None
        };
        let moved_aside = match moved_aside {
            Some(reason) => {
                let aside = (0..)
                    .map(|index| folder.join(format!("played-unreadable-{index}.wav")))
                    .find(|path| !path.exists())
                    .unwrap_or_else(|| folder.join("played-unreadable.wav"));
                std::fs::rename(&wav_path, &aside).map_err(|error| {
                    file_error(
                        &wav_path,
                        format!("{reason}; cannot move it aside: {error}"),
                    )
                })?;
                Some((aside, reason))
            }
            None => None,
        };
        let writer = match writer {
            Some(writer) => writer,
            None => WavWriter::create(&wav_path, spec)
                .map_err(|error| file_error(&wav_path, error.to_string()))?,
        };
        let log_path = folder.join("played.tsv");
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .map_err(|error| file_error(&log_path, error.to_string()))?;
        let frames_written = u64::from(writer.duration());
        Ok(RecordingSink {
            format,
            wav_path,
            writer,
            log,
            pacing,
            frames_written,
            paced_origin: Instant::now(),
            paced_frames: 0,
            moved_aside,
        })
    }

    /// The WAV file this sink appends to.
    pub fn wav_path(&self) -> &Path {
        &self.wav_path
    }

    /// The unreadable recording moved aside when opening, and why.
    pub fn moved_aside(&self) -> Option<&(PathBuf, String)> {
        self.moved_aside.as_ref()
    }

    fn error(&self, reason: impl std::fmt::Display) -> SinkError {
        SinkError::Failed {
            sink: self.wav_path.display().to_string(),
            reason: reason.to_string(),
        }
    }

    fn pace(&mut self, frames: u64) {
        let rate = u64::from(self.format.sample_rate_hz);
        let now = Instant::now();
        let due =
            self.paced_origin + Duration::from_nanos(self.paced_frames * 1_000_000_000 / rate);
        // After a pause (nothing played), the clock starts again from now.
        if now > due + Duration::from_millis(50) {
            self.paced_origin = now;
            self.paced_frames = 0;
        }
        self.paced_frames += frames;
        let until =
            self.paced_origin + Duration::from_nanos(self.paced_frames * 1_000_000_000 / rate);
        let now = Instant::now();
        if until > now {
            std::thread::sleep(until - now);
        }
    }
}

impl SoundSink for RecordingSink {
    fn format(&self) -> SinkFormat {
        self.format
    }

    fn write(&mut self, samples: &[f32]) -> Result<(), SinkError> {
        for &sample in samples {
            let value = to_i16(sample);
            if let Err(error) = self.writer.write_sample(value) {
                return Err(self.error(error));
            }
        }
        // The header is rewritten on every write, so the file is complete whenever the
        // process dies.
        if let Err(error) = self.writer.flush() {
            return Err(self.error(error));
        }
        let frames = (samples.len() / self.format.channels as usize) as u64;
        self.frames_written += frames;
        if self.pacing == Pacing::RealTime {
            self.pace(frames);
        }
        Ok(())
    }

    fn started(&mut self, sound: &Sound) -> Result<(), SinkError> {
        let line = log_line(self.frames_written, 0, RecordedStatus::Started, sound);
        self.append_to_log(&line)
    }

    fn finished(&mut self, played: &PlayedSound) -> Result<(), SinkError> {
        let first_frame = self.frames_written - played.frames_played.min(self.frames_written);
        let status = if played.interrupted {
            RecordedStatus::Interrupted
        } else {
            RecordedStatus::Complete
        };
        let line = log_line(first_frame, played.frames_played, status, &played.sound);
        self.append_to_log(&line)
    }
}

impl RecordingSink {
    fn append_to_log(&mut self, line: &str) -> Result<(), SinkError> {
        self.log
            .write_all(line.as_bytes())
            .map_err(|error| self.error(format!("played.tsv: {error}")))
    }
}

/// A sample in [-1, 1] as 16 bits: the inverse of reading (`value / 32768`), so a 16-bit file
/// played unchanged is recorded unchanged; +1.0 saturates at 32767.
pub(crate) fn to_i16(sample: f32) -> i16 {
    (sample * 32_768.0).round().clamp(-32_768.0, 32_767.0) as i16
}
