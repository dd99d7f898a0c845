//! `RecordingSink`: what the simulation plays to. Appends every sample to `played.wav` and one
//! line per sound to `played.tsv` in a folder (the run directory), optionally paced like a
//! loudspeaker (a write takes as long as its samples last).
//!
//! `played.tsv` columns: first frame in `played.wav`, frames, `complete` or `interrupted`,
//! `say` or `play`, the text or name (tabs and line breaks as spaces). A sink opened on a folder
//! that already has a recording (the audio process restarted) appends to it; a `played.wav` that
//! cannot be appended to is moved aside to `played-unreadable-<n>.wav`, never overwritten.

use super::pcm::SinkFormat;
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
            let value = (sample.clamp(-1.0, 1.0) * 32767.0).round() as i16;
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

    fn finished(&mut self, played: &PlayedSound) -> Result<(), SinkError> {
        let (kind, label) = match &played.sound {
            Sound::Say { text } => ("say", text),
            Sound::Play { name } => ("play", name),
        };
        let label: String = label
            .chars()
            .map(|character| {
                if character.is_control() {
                    ' '
                } else {
                    character
                }
            })
            .collect();
        let start = self.frames_written - played.frames_played.min(self.frames_written);
        let line = format!(
            "{start}\t{}\t{}\t{kind}\t{label}\n",
            played.frames_played,
            if played.interrupted {
                "interrupted"
            } else {
                "complete"
            },
        );
        self.log
            .write_all(line.as_bytes())
            .map_err(|error| self.error(format!("played.tsv: {error}")))
    }
}

/// One line of `played.tsv`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedSound {
    pub first_frame: u64,
    pub frames: u64,
    pub interrupted: bool,
    pub sound: Sound,
}

/// Reads `played.tsv` in `folder`; a line that is not one the sink writes is an error naming
/// the line.
pub fn read_played_log(folder: &Path) -> Result<Vec<RecordedSound>, RecordingError> {
    let path = folder.join("played.tsv");
    let text = std::fs::read_to_string(&path).map_err(|error| RecordingError::File {
        path: path.clone(),
        reason: error.to_string(),
    })?;
    text.lines()
        .enumerate()
        .map(|(index, line)| {
            parse_line(line).ok_or_else(|| RecordingError::File {
                path: path.clone(),
                reason: format!("line {}: not `frame<TAB>frames<TAB>complete|interrupted<TAB>say|play<TAB>label`: {line:?}", index + 1),
            })
        })
        .collect()
}

fn parse_line(line: &str) -> Option<RecordedSound> {
    let mut fields = line.splitn(5, '\t');
    let first_frame = fields.next()?.parse().ok()?;
    let frames = fields.next()?.parse().ok()?;
    let interrupted = match fields.next()? {
        "complete" => false,
        "interrupted" => true,
        _ => return None,
    };
    let kind = fields.next()?;
    let label = fields.next()?.to_owned();
    let sound = match kind {
        "say" => Sound::Say { text: label },
        "play" => Sound::Play { name: label },
        _ => return None,
    };
    Some(RecordedSound {
        first_frame,
        frames,
        interrupted,
        sound,
    })
}
