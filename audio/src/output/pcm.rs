//! `Pcm`: a whole sound in memory, and its conversion to the format a sink plays.

use crate::frames::AudioFrames;
use crate::source::{AudioSource, ReadError};
use crate::wav::{WavOpenError, WavSource};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The format a sink plays: frames per second and channels per frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SinkFormat {
    pub sample_rate_hz: u32,
    pub channels: u32,
}

/// A whole sound: interleaved samples in [-1, 1].
#[derive(Debug, Clone, PartialEq)]
pub struct Pcm {
    pub samples: Vec<f32>,
    pub sample_rate_hz: u32,
    pub channels: u32,
}

/// Loading a sound file failed.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Open(#[from] WavOpenError),
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The file is longer than a sound may be.
    #[error("{path}: {seconds:.1} s long, longer than the {limit_s:.1} s a sound may last")]
    TooLong {
        path: PathBuf,
        seconds: f64,
        limit_s: f64,
    },
}

impl Pcm {
    /// Frames (samples per channel).
    pub fn frame_count(&self) -> usize {
        self.samples.len() / self.channels.max(1) as usize
    }

    /// How long the sound lasts.
    pub fn duration(&self) -> Duration {
        if self.sample_rate_hz == 0 {
            return Duration::ZERO;
        }
        Duration::from_secs_f64(self.frame_count() as f64 / f64::from(self.sample_rate_hz))
    }

    /// Reads a whole WAV file (any format [`WavSource`] reads), refusing files longer than
    /// `limit`.
    pub fn load_wav(path: &Path, limit: Duration) -> Result<Pcm, LoadError> {
        let mut source = WavSource::open(path, crate::MAX_FRAMES)?;
        let rate = source.sample_rate_hz();
        let seconds = source.frames_total() as f64 / f64::from(rate);
        if seconds > limit.as_secs_f64() {
            return Err(LoadError::TooLong {
                path: path.to_owned(),
                seconds,
                limit_s: limit.as_secs_f64(),
            });
        }
        let channels = source.channel_count();
        let mut frames = AudioFrames::empty(rate, channels);
        let mut samples =
            Vec::with_capacity((source.frames_total() * u64::from(channels)) as usize);
        while source.read(&mut frames)? {
            samples.extend_from_slice(frames.interleaved());
        }
        Ok(Pcm {
            samples,
            sample_rate_hz: rate,
            channels,
        })
    }

    /// This sound in `format`: channels mixed down to mono and spread to the sink's channels
    /// (unchanged when the counts match), the rate converted by linear interpolation.
    pub fn converted(&self, format: SinkFormat) -> Pcm {
        let in_channels = self.channels.max(1) as usize;
        let out_channels = format.channels.max(1) as usize;
        let frames = self.frame_count();
        let frame_value = |frame: usize, channel: usize| -> f32 {
            let start = frame * in_channels;
            if in_channels == out_channels {
                self.samples[start + channel]
            } else {
                let sum: f32 = self.samples[start..start + in_channels].iter().sum();
                sum / in_channels as f32
            }
        };
        if frames == 0 || self.sample_rate_hz == 0 || format.sample_rate_hz == 0 {
            return Pcm {
                samples: Vec::new(),
                sample_rate_hz: format.sample_rate_hz,
                channels: out_channels as u32,
            };
        }
        let same_rate = self.sample_rate_hz == format.sample_rate_hz;
        let out_frames = if same_rate {
            frames
        } else {
            ((frames as u64 * u64::from(format.sample_rate_hz)) / u64::from(self.sample_rate_hz))
                .max(1) as usize
        };
        let step = f64::from(self.sample_rate_hz) / f64::from(format.sample_rate_hz);
        let mut samples = Vec::with_capacity(out_frames * out_channels);
        for out_frame in 0..out_frames {
            for channel in 0..out_channels {
                let value = if same_rate {
                    frame_value(out_frame, channel)
                } else {
                    let position = out_frame as f64 * step;
                    let before = (position.floor() as usize).min(frames - 1);
                    let after = (before + 1).min(frames - 1);
                    let fraction = (position - before as f64) as f32;
                    frame_value(before, channel) * (1.0 - fraction)
                        + frame_value(after, channel) * fraction
                };
                samples.push(value);
            }
        }
        Pcm {
            samples,
            sample_rate_hz: format.sample_rate_hz,
            channels: out_channels as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_format_is_unchanged() {
        let pcm = Pcm {
            samples: vec![0.1, -0.2, 0.3, -0.4],
            sample_rate_hz: 16_000,
            channels: 2,
        };
        let format = SinkFormat {
            sample_rate_hz: 16_000,
            channels: 2,
        };
        assert_eq!(pcm.converted(format), pcm);
    }

    #[test]
    fn stereo_8k_becomes_mono_16k_by_mixing_and_interpolating() {
        let pcm = Pcm {
            samples: vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0],
            sample_rate_hz: 8_000,
            channels: 2,
        };
        let mono = pcm.converted(SinkFormat {
            sample_rate_hz: 16_000,
            channels: 1,
        });
        assert_eq!(mono.frame_count(), 6);
        let expected = [0.1, 0.3, 0.5, 0.7, 0.9, 0.9];
        for (value, expected) in mono.samples.iter().zip(expected) {
            assert!((value - expected).abs() < 1e-6, "{:?}", mono.samples);
        }
        let stereo = mono.converted(SinkFormat {
            sample_rate_hz: 16_000,
            channels: 2,
        });
        assert_eq!(stereo.samples[..4], [0.1, 0.1, 0.3, 0.3]);
    }

    #[test]
    fn an_empty_sound_stays_empty() {
        let pcm = Pcm {
            samples: Vec::new(),
            sample_rate_hz: 0,
            channels: 0,
        };
        let converted = pcm.converted(SinkFormat {
            sample_rate_hz: 48_000,
            channels: 2,
        });
        assert!(converted.samples.is_empty());
    }
}
