//! `WavSource`: a WAV file played buffer by buffer, as the robot's ALSA device would deliver it.
//!
//! Any sample rate and channel count: the detector adapts to the rate (see `spectrum.rs`),
//! files with more than [`MAX_CHANNELS`] channels are mixed down to mono. Integer samples of 8
//! to 32 bits and 32-bit float samples are read; everything else is an error naming the file.

use crate::frames::{AudioFrames, MAX_CHANNELS, MAX_FRAMES};
use crate::source::{frame_time_ns, AudioSource, ReadError};
use hound::{SampleFormat, WavReader};
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Opening a WAV file failed.
#[derive(Debug, thiserror::Error)]
pub enum WavOpenError {
    /// The file could not be opened (missing, unreadable).
    #[error("{path}: cannot open: {source}")]
    Open { path: PathBuf, source: io::Error },
    /// The header is not that of a WAV file we can read.
    #[error("{path}: not a readable WAV file (error at byte {byte_offset}): {reason}")]
    Header {
        path: PathBuf,
        byte_offset: u64,
        reason: String,
    },
    /// The header describes a format the detector cannot use.
    #[error("{path}: unsupported format: {reason}")]
    Format { path: PathBuf, reason: String },
    /// The header declares more sample data than the file holds.
    #[error(
        "{path}: the header declares {declared_bytes} bytes of samples from byte {data_offset}, \
         but the file ends at byte {file_length}"
    )]
    Truncated {
        path: PathBuf,
        data_offset: u64,
        declared_bytes: u64,
        file_length: u64,
    },
}

impl WavOpenError {
    /// True when the file could not be opened at all (as opposed to being malformed).
    pub fn is_missing(&self) -> bool {
        matches!(self, WavOpenError::Open { .. })
    }
}

/// Counts the bytes the WAV decoder consumed, to name byte offsets in errors.
#[derive(Debug)]
struct CountingReader {
    inner: BufReader<File>,
    position: Arc<AtomicU64>,
}

impl Read for CountingReader {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let count = self.inner.read(buffer)?;
        self.position.fetch_add(count as u64, Ordering::Relaxed);
        Ok(count)
    }
}

/// A WAV file delivering buffers of a fixed frame count.
pub struct WavSource {
    path: PathBuf,
    reader: WavReader<CountingReader>,
    file_channels: u32,
    channel_count: u32,
    sample_rate_hz: u32,
    float: bool,
    scale: f32,
    frames_per_buffer: usize,
    position: Arc<AtomicU64>,
    frames_read: u64,
    frames_total: u64,
    /// One frame of the file's channels (more than `MAX_CHANNELS` when mixing down).
    frame: Vec<f32>,
}

impl std::fmt::Debug for WavSource {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("WavSource")
            .field("path", &self.path)
            .field("sample_rate_hz", &self.sample_rate_hz)
            .field("file_channels", &self.file_channels)
            .field("frames_read", &self.frames_read)
            .field("frames_total", &self.frames_total)
            .finish_non_exhaustive()
    }
}

impl WavSource {
    /// Opens `path` to be delivered `frames_per_buffer` frames at a time (clamped to
    /// 1..=[`MAX_FRAMES`]).
    pub fn open(path: &Path, frames_per_buffer: usize) -> Result<WavSource, WavOpenError> {
        let file = File::open(path).map_err(|source| WavOpenError::Open {
            path: path.to_owned(),
            source,
        })?;
        let metadata = file.metadata().map_err(|source| WavOpenError::Open {
            path: path.to_owned(),
            source,
        })?;
        if metadata.is_dir() {
            return Err(WavOpenError::Open {
                path: path.to_owned(),
                source: io::Error::new(io::ErrorKind::IsADirectory, "is a directory"),
            });
        }
        let file_length = metadata.len();
        let position = Arc::new(AtomicU64::new(0));
        let counting = CountingReader {
            inner: BufReader::new(file),
            position: Arc::clone(&position),
        };
        let reader = WavReader::new(counting).map_err(|error| WavOpenError::Header {
            path: path.to_owned(),
            byte_offset: position.load(Ordering::Relaxed),
            reason: describe(&error),
        })?;
        // The decoder stopped at the first byte of the samples.
        let data_offset = position.load(Ordering::Relaxed);
        let spec = reader.spec();

        let format_error = |reason: String| WavOpenError::Format {
            path: path.to_owned(),
            reason,
        };
        if spec.sample_rate == 0 {
            return Err(format_error("sample rate 0 Hz".to_owned()));
        }
        let float = match (spec.sample_format, spec.bits_per_sample) {
            (SampleFormat::Float, 32) => true,
            (SampleFormat::Float, bits) => {
                return Err(format_error(format!(
                    "{bits}-bit float samples (only 32-bit float is read)"
                )))
            }
            (SampleFormat::Int, 8..=32) => false,
            (SampleFormat::Int, bits) => {
                return Err(format_error(format!(
                    "{bits}-bit integer samples (8 to 32 bits are read)"
                )))
            }
        };
        let bytes_per_sample = u64::from(spec.bits_per_sample).div_ceil(8);
        let declared_bytes = u64::from(reader.len()) * bytes_per_sample;
        if data_offset.saturating_add(declared_bytes) > file_length {
            return Err(WavOpenError::Truncated {
                path: path.to_owned(),
                data_offset,
                declared_bytes,
                file_length,
            });
        }
        let file_channels = u32::from(spec.channels);
        let channel_count = if file_channels > MAX_CHANNELS as u32 {
            1
        } else {
            file_channels
        };
        Ok(WavSource {
            path: path.to_owned(),
            frames_total: u64::from(reader.duration()),
            reader,
            file_channels,
            channel_count,
            sample_rate_hz: spec.sample_rate,
            float,
            scale: 1.0 / (1u64 << (spec.bits_per_sample - 1)) as f32,
            frames_per_buffer: frames_per_buffer.clamp(1, MAX_FRAMES),
            position,
            frames_read: 0,
            frame: vec![0.0; file_channels as usize],
        })
    }

    /// The file this source reads.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Channels per frame in the file (the buffers carry [`AudioSource::channel_count`]).
    pub fn file_channels(&self) -> u32 {
        self.file_channels
    }

    /// Frames in the file, as its header declares.
    pub fn frames_total(&self) -> u64 {
        self.frames_total
    }

    /// Reads one frame of the file's channels into `self.frame`.
    fn read_frame(&mut self) -> Result<(), ReadError> {
        let frame_index = self.frames_read;
        for channel in 0..self.file_channels as usize {
            let sample = if self.float {
                self.reader.samples::<f32>().next()
            } else {
                self.reader
                    .samples::<i32>()
                    .next()
                    .map(|sample| sample.map(|value| value as f32 * self.scale))
            };
            let value = match sample {
                Some(Ok(value)) => value,
                Some(Err(error)) => return Err(self.read_error(frame_index, describe(&error))),
                None => {
                    return Err(self.read_error(frame_index, "the sample data ends early".into()))
                }
            };
            if !value.is_finite() {
                return Err(ReadError::NotFinite {
                    path: self.path.clone(),
                    frame: frame_index,
                    channel: channel as u32,
                    value,
                });
            }
            self.frame[channel] = value;
        }
        Ok(())
    }

    fn read_error(&self, frame: u64, reason: String) -> ReadError {
        ReadError::Wav {
            path: self.path.clone(),
            frame,
            byte_offset: self.position.load(Ordering::Relaxed),
            reason,
        }
    }
}

/// A readable description of a decoder error.
fn describe(error: &hound::Error) -> String {
    match error {
        hound::Error::IoError(io) if io.kind() == io::ErrorKind::UnexpectedEof => {
            "the file ends early".to_owned()
        }
        hound::Error::IoError(io) => format!("read error: {io}"),
        hound::Error::FormatError(text) => (*text).to_owned(),
        hound::Error::TooWide => "samples wider than 32 bits".to_owned(),
        hound::Error::UnfinishedSample => "the last sample is incomplete".to_owned(),
        hound::Error::Unsupported => {
            "unsupported encoding (only PCM integer and IEEE float are read)".to_owned()
        }
        hound::Error::InvalidSampleFormat => "sample format does not match its size".to_owned(),
    }
}

impl AudioSource for WavSource {
    fn sample_rate_hz(&self) -> u32 {
        self.sample_rate_hz
    }

    fn channel_count(&self) -> u32 {
        self.channel_count
    }

    fn read(&mut self, frames: &mut AudioFrames) -> Result<bool, ReadError> {
        frames.sample_rate_hz = self.sample_rate_hz;
        frames.channel_count = self.channel_count;
        frames.overruns = 0;
        frames.timestamp_ns = frame_time_ns(self.frames_read, self.sample_rate_hz);
        frames.frame_count = 0;
        let remaining = self.frames_total - self.frames_read;
        let count = (self.frames_per_buffer as u64).min(remaining) as usize;
        let channels = self.channel_count as usize;
        for index in 0..count {
            self.read_frame()?;
            let out = &mut frames.samples[index * channels..(index + 1) * channels];
            if self.file_channels as usize == channels {
                out.copy_from_slice(&self.frame);
            } else {
                out[0] = self.frame.iter().sum::<f32>() / self.frame.len() as f32;
            }
            self.frames_read += 1;
            frames.frame_count += 1;
        }
        Ok(count > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_come_in_the_asked_size_with_timestamps_from_the_file_start() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("ramp.wav");
        let spec = hound::WavSpec {
            channels: 2,
            sample_rate: 48_000,
            bits_per_sample: 16,
            sample_format: SampleFormat::Int,
        };
        let mut writer = hound::WavWriter::create(&path, spec).unwrap();
        for frame in 0..5000i32 {
            writer.write_sample((frame % 1000) as i16).unwrap();
            writer.write_sample(-((frame % 1000) as i16)).unwrap();
        }
        writer.finalize().unwrap();

        let mut source = WavSource::open(&path, 2048).unwrap();
        assert_eq!(
            (source.sample_rate_hz(), source.channel_count()),
            (48_000, 2)
        );
        assert_eq!(source.frames_total(), 5000);
        let mut frames = AudioFrames::empty(48_000, 2);
        let mut shapes = Vec::new();
        let mut frame_index = 0i32;
        while source.read(&mut frames).unwrap() {
            shapes.push((frames.frame_count, frames.timestamp_ns));
            for pair in frames.interleaved().chunks_exact(2) {
                let expected = (frame_index % 1000) as f32 / 32768.0;
                assert_eq!(pair, [expected, -expected]);
                frame_index += 1;
            }
        }
        assert_eq!(
            shapes,
            vec![(2048, 0), (2048, 42_666_666), (904, 85_333_333)]
        );
    }
}
