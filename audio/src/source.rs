//! `AudioSource`: where buffers of sound come from, and the in-memory source.

use crate::frames::{AudioFrames, MAX_CHANNELS, MAX_FRAMES};
use std::path::PathBuf;

/// Something that delivers sound buffer by buffer, the way the robot's ALSA device does.
pub trait AudioSource {
    /// Frames per second of one channel.
    fn sample_rate_hz(&self) -> u32;
    /// Channels per frame of the buffers this source delivers.
    fn channel_count(&self) -> u32;
    /// Fills `frames` with the next buffer. `Ok(false)`: the source has ended and `frames`
    /// holds no frames.
    fn read(&mut self, frames: &mut AudioFrames) -> Result<bool, ReadError>;
}

/// Reading the next buffer from a source failed.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// A WAV file's samples could not be read.
    #[error("{path}: sample data unreadable at frame {frame} (byte {byte_offset} of the file): {reason}")]
    Wav {
        path: PathBuf,
        frame: u64,
        byte_offset: u64,
        reason: String,
    },
    /// The ALSA device failed in a way recovering cannot fix.
    #[error("ALSA device {device}: capture failed: {reason}")]
    Alsa { device: String, reason: String },
    /// A WAV file holds a sample that is not a finite number.
    #[error("{path}: frame {frame}, channel {channel} is not a finite number ({value})")]
    NotFinite {
        path: PathBuf,
        frame: u64,
        channel: u32,
        value: f32,
    },
}

/// Plays interleaved samples held in memory (synthesised sound, mixed recordings) in buffers
/// of a fixed frame count.
#[derive(Debug, Clone)]
pub struct MemorySource {
    samples: Vec<f32>,
    sample_rate_hz: u32,
    channel_count: u32,
    frames_per_buffer: usize,
    next_frame: usize,
}

impl MemorySource {
    /// A source over `samples` (interleaved, `channel_count` per frame, clamped to
    /// 1..=[`MAX_CHANNELS`]) delivered `frames_per_buffer` frames at a time (clamped to
    /// 1..=[`MAX_FRAMES`]).
    pub fn new(
        samples: Vec<f32>,
        sample_rate_hz: u32,
        channel_count: u32,
        frames_per_buffer: usize,
    ) -> MemorySource {
        MemorySource {
            samples,
            sample_rate_hz,
            channel_count: channel_count.clamp(1, MAX_CHANNELS as u32),
            frames_per_buffer: frames_per_buffer.clamp(1, MAX_FRAMES),
            next_frame: 0,
        }
    }

    /// A mono source.
    pub fn mono(samples: Vec<f32>, sample_rate_hz: u32, frames_per_buffer: usize) -> Self {
        MemorySource::new(samples, sample_rate_hz, 1, frames_per_buffer)
    }
}

impl AudioSource for MemorySource {
    fn sample_rate_hz(&self) -> u32 {
        self.sample_rate_hz
    }

    fn channel_count(&self) -> u32 {
        self.channel_count
    }

    fn read(&mut self, frames: &mut AudioFrames) -> Result<bool, ReadError> {
        let channels = self.channel_count as usize;
        let total_frames = self.samples.len() / channels;
        let count = self
            .frames_per_buffer
            .min(total_frames.saturating_sub(self.next_frame));
        frames.sample_rate_hz = self.sample_rate_hz;
        frames.channel_count = self.channel_count;
        frames.overruns = 0;
        frames.timestamp_ns = frame_time_ns(self.next_frame as u64, self.sample_rate_hz);
        frames.frame_count = count as u32;
        let start = self.next_frame * channels;
        frames.samples[..count * channels]
            .copy_from_slice(&self.samples[start..start + count * channels]);
        self.next_frame += count;
        Ok(count > 0)
    }
}

/// The time of frame `frame` at `sample_rate_hz`, in nanoseconds (0 for a rate of 0).
pub(crate) fn frame_time_ns(frame: u64, sample_rate_hz: u32) -> u64 {
    if sample_rate_hz == 0 {
        return 0;
    }
    (u128::from(frame) * 1_000_000_000 / u128::from(sample_rate_hz)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_source_delivers_every_frame_once_with_timestamps() {
        let samples: Vec<f32> = (0..5000 * 2).map(|index| index as f32).collect();
        let mut source = MemorySource::new(samples.clone(), 1000, 2, 2048);
        let mut frames = AudioFrames::empty(1000, 2);
        let mut collected = Vec::new();
        let mut timestamps = Vec::new();
        while source.read(&mut frames).unwrap() {
            collected.extend_from_slice(frames.interleaved());
            timestamps.push(frames.timestamp_ns);
        }
        assert_eq!(collected, samples);
        assert_eq!(timestamps, vec![0, 2_048_000_000, 4_096_000_000]);
        assert!(!source.read(&mut frames).unwrap());
        assert_eq!(frames.frame_count, 0);
    }
}
