//! `AudioFrames`: one buffer of captured sound as plain data.

use std::time::Duration;

/// The most frames one buffer holds (the robot's ALSA period is 2048 frames).
pub const MAX_FRAMES: usize = 2048;
/// The most channels one buffer holds (the NAO v6 has four head microphones).
pub const MAX_CHANNELS: usize = 4;

/// One buffer of interleaved samples in [-1, 1], as a source delivers it.
///
/// Plain data of a fixed size (`bytemuck::Pod`), so that it can travel through shared memory
/// unchanged. Only the first `frame_count * channel_count` samples are meaningful.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct AudioFrames {
    /// When the first frame was captured, nanoseconds on the source's clock (for a file: from
    /// its start).
    pub timestamp_ns: u64,
    /// Frames per second of one channel.
    pub sample_rate_hz: u32,
    /// Channels per frame (1..=[`MAX_CHANNELS`]).
    pub channel_count: u32,
    /// Frames in this buffer (0..=[`MAX_FRAMES`]).
    pub frame_count: u32,
    /// Buffers the source lost before this one (ALSA overruns; 0 for files).
    pub overruns: u32,
    /// Interleaved samples: frame 0 channel 0, frame 0 channel 1, …
    pub samples: [f32; MAX_FRAMES * MAX_CHANNELS],
}

impl AudioFrames {
    /// An empty buffer (no frames) with this format.
    pub fn empty(sample_rate_hz: u32, channel_count: u32) -> Box<AudioFrames> {
        let mut frames: Box<AudioFrames> = bytemuck::zeroed_box();
        frames.sample_rate_hz = sample_rate_hz;
        frames.channel_count = channel_count.clamp(1, MAX_CHANNELS as u32);
        frames
    }

    /// When the first frame was captured.
    pub fn timestamp(&self) -> Duration {
        Duration::from_nanos(self.timestamp_ns)
    }

    /// The meaningful samples, interleaved (bounded by the capacity even if the counts were
    /// corrupted).
    pub fn interleaved(&self) -> &[f32] {
        let channels = (self.channel_count as usize).clamp(1, MAX_CHANNELS);
        let frames = (self.frame_count as usize).min(MAX_FRAMES);
        &self.samples[..frames * channels]
    }

    /// Channels per frame, at least 1 and at most [`MAX_CHANNELS`].
    pub fn channels(&self) -> usize {
        (self.channel_count as usize).clamp(1, MAX_CHANNELS)
    }

    /// How long the buffer lasts.
    pub fn duration(&self) -> Duration {
        if self.sample_rate_hz == 0 {
            return Duration::ZERO;
        }
        Duration::from_secs_f64(f64::from(self.frame_count) / f64::from(self.sample_rate_hz))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrupted_counts_stay_inside_the_buffer() {
        let mut frames = AudioFrames::empty(48_000, 4);
        frames.frame_count = u32::MAX;
        frames.channel_count = 77;
        assert_eq!(frames.interleaved().len(), MAX_FRAMES * MAX_CHANNELS);
        assert_eq!(frames.channels(), MAX_CHANNELS);
        frames.channel_count = 0;
        frames.frame_count = 10;
        assert_eq!(frames.interleaved().len(), 10);
    }

    #[test]
    fn duration_follows_rate_and_count() {
        let mut frames = AudioFrames::empty(48_000, 1);
        frames.frame_count = 2048;
        let expected = 2048.0 / 48_000.0;
        assert!((frames.duration().as_secs_f64() - expected).abs() < 1e-9);
        frames.sample_rate_hz = 0;
        assert_eq!(frames.duration(), Duration::ZERO);
    }
}
