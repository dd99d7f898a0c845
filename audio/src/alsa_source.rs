//! `AlsaSource`: the robot's head microphones through ALSA (feature `robot`; needs
//! libasound2-dev to build).
//!
//! Opens the device for capture, interleaved 32-bit float, at the asked rate and channel count
//! (the NAO v6: 4 channels at 48 kHz), with a period of `frames_per_buffer` frames and a
//! buffer of four periods. An overrun (the process did not read in time) is recovered by
//! re-preparing the device, counted, and reported in the next buffer's `overruns`. Buffers are
//! stamped on the monotonic clock (`CLOCK_MONOTONIC`, the clock of `WhistleState`): the time of
//! their first frame. [`crate::alsa_capture::AlsaCapture`] runs a source on its own thread.

use crate::frames::{AudioFrames, MAX_CHANNELS, MAX_FRAMES};
use crate::source::{AudioSource, ReadError};
use alsa::pcm::{Format, PCM};
use alsa::Direction;
use std::time::Duration;

/// What to open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlsaParameters {
    /// The ALSA device: `"default"` (HULKs) or `"PCH_input"` for all four channels (B-Human).
    pub device: String,
    pub channels: u32,
    pub sample_rate_hz: u32,
    pub frames_per_buffer: usize,
}

impl Default for AlsaParameters {
    fn default() -> Self {
        AlsaParameters {
            device: "default".to_owned(),
            channels: 4,
            sample_rate_hz: 48_000,
            frames_per_buffer: 2048,
        }
    }
}

/// Opening the ALSA device failed.
#[derive(Debug, thiserror::Error)]
pub enum AlsaOpenError {
    #[error("ALSA device {device}: {step}: {source}")]
    Device {
        device: String,
        step: &'static str,
        source: alsa::Error,
    },
    #[error("ALSA device {device}: {what} (this source delivers 1..={max} channels and 1..={max_frames} frames per buffer)", max = MAX_CHANNELS, max_frames = MAX_FRAMES)]
    Unsupported { device: String, what: String },
}

/// Captures from an ALSA device.
pub struct AlsaSource {
    pcm: PCM,
    device: String,
    channel_count: u32,
    sample_rate_hz: u32,
    frames_per_buffer: usize,
    overruns_total: u64,
    overruns_pending: u32,
    scratch: Vec<f32>,
}

impl std::fmt::Debug for AlsaSource {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("AlsaSource")
            .field("device", &self.device)
            .field("channel_count", &self.channel_count)
            .field("sample_rate_hz", &self.sample_rate_hz)
            .field("frames_per_buffer", &self.frames_per_buffer)
            .field("overruns_total", &self.overruns_total)
            .finish_non_exhaustive()
    }
}

impl AlsaSource {
    /// Opens and starts the device.
    pub fn open(parameters: &AlsaParameters) -> Result<AlsaSource, AlsaOpenError> {
        let device = parameters.device.clone();
        if device.contains('\0') {
            return Err(AlsaOpenError::Unsupported {
                device: device.escape_debug().to_string(),
                what: "a device name with a NUL byte".to_owned(),
            });
        }
        if parameters.channels == 0 || parameters.channels as usize > MAX_CHANNELS {
            return Err(AlsaOpenError::Unsupported {
                device,
                what: format!("{} channels asked for", parameters.channels),
            });
        }
        if parameters.frames_per_buffer == 0 || parameters.frames_per_buffer > MAX_FRAMES {
            return Err(AlsaOpenError::Unsupported {
                device,
                what: format!(
                    "{} frames per buffer asked for",
                    parameters.frames_per_buffer
                ),
            });
        }
        let step = |step: &'static str| {
            let device = device.clone();
            move |source| AlsaOpenError::Device {
                device,
                step,
                source,
            }
        };
        let crate::alsa_device::Opened {
            pcm,
            sample_rate_hz,
            channels: channel_count,
            period_frames: period,
        } = crate::alsa_device::open(&crate::alsa_device::Request {
            device: &device,
            direction: Direction::Capture,
            format: Format::float(),
            format_step: "set 32-bit float samples",
            channels: parameters.channels,
            sample_rate_hz: parameters.sample_rate_hz,
            period_frames: parameters.frames_per_buffer,
        })
        .map_err(|(failed, source)| step(failed)(source))?;
        pcm.start().map_err(step("start capturing"))?;
        let frames_per_buffer = (period.max(1) as usize).min(MAX_FRAMES);
        Ok(AlsaSource {
            pcm,
            device,
            channel_count: channels_checked(channel_count),
            sample_rate_hz,
            frames_per_buffer,
            overruns_total: 0,
            overruns_pending: 0,
            scratch: vec![0.0; frames_per_buffer * channels_checked(channel_count) as usize],
        })
    }

    /// Overruns recovered since the device was opened.
    pub fn overruns_total(&self) -> u64 {
        self.overruns_total
    }

    /// Frames per buffer the device granted (its period, at most [`MAX_FRAMES`]).
    pub fn frames_per_buffer(&self) -> usize {
        self.frames_per_buffer
    }

    /// The device's name.
    pub fn device(&self) -> &str {
        &self.device
    }

    /// Waits at most `timeout` for a buffer to be ready: `Ok(false)` when none came (a device
    /// that stalled). A device in an overrun says it is ready: the next read recovers it.
    pub fn wait_readable(&self, timeout: Duration) -> Result<bool, ReadError> {
        let milliseconds = u32::try_from(timeout.as_millis()).unwrap_or(u32::MAX);
        match self.pcm.wait(Some(milliseconds)) {
            Ok(ready) => Ok(ready),
            Err(error) if matches!(error.errno(), EPIPE | ESTRPIPE) => Ok(true),
            Err(error) => Err(ReadError::Alsa {
                device: self.device.clone(),
                reason: format!("waiting for samples: {error}"),
            }),
        }
    }
}

fn channels_checked(channels: u32) -> u32 {
    channels.clamp(1, MAX_CHANNELS as u32)
}

/// `EPIPE`: an overrun; `ESTRPIPE`: the device was suspended. Both are recovered.
const EPIPE: i32 = 32;
const ESTRPIPE: i32 = 86;

impl AudioSource for AlsaSource {
    fn sample_rate_hz(&self) -> u32 {
        self.sample_rate_hz
    }

    fn channel_count(&self) -> u32 {
        self.channel_count
    }

    fn read(&mut self, frames: &mut AudioFrames) -> Result<bool, ReadError> {
        let channels = self.channel_count as usize;
        let alsa_error = |device: &str, error: alsa::Error| ReadError::Alsa {
            device: device.to_owned(),
            reason: error.to_string(),
        };
        // A few recoveries in a row are normal after a stall; endless ones are an error.
        for _ in 0..8 {
            let result = self.pcm.io_f32().and_then(|io| io.readi(&mut self.scratch));
            match result {
                Ok(0) => continue,
                Ok(count) => {
                    let count = count.min(self.frames_per_buffer);
                    frames.samples[..count * channels]
                        .copy_from_slice(&self.scratch[..count * channels]);
                    frames.frame_count = count as u32;
                    frames.channel_count = self.channel_count;
                    frames.sample_rate_hz = self.sample_rate_hz;
                    frames.overruns = std::mem::take(&mut self.overruns_pending);
                    // The first frame was captured one buffer before the read returned.
                    let captured = ipc::health::monotonic_ns();
                    let length = crate::source::frame_time_ns(count as u64, self.sample_rate_hz);
                    frames.timestamp_ns = captured.saturating_sub(length);
                    return Ok(true);
                }
                Err(error) if matches!(error.errno(), EPIPE | ESTRPIPE) => {
                    self.overruns_total += 1;
                    self.overruns_pending = self.overruns_pending.saturating_add(1);
                    self.pcm
                        .try_recover(error, true)
                        .map_err(|error| alsa_error(&self.device, error))?;
                }
                Err(error) => return Err(alsa_error(&self.device, error)),
            }
        }
        Err(ReadError::Alsa {
            device: self.device.clone(),
            reason: "no samples after 8 recoveries".to_owned(),
        })
    }
}
