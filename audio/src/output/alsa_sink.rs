//! `AlsaSink`: the robot's loudspeakers through ALSA (feature `robot`; needs libasound2-dev).
//!
//! Opens the device for playback, interleaved signed 16-bit (what every device and `plug`
//! takes), with a buffer of four periods, so a write blocks for at most about one period. An
//! underrun (nothing was written while idle between sounds) is recovered on the next write;
//! a cut drops what the device still holds and prepares it again.

use super::pcm::SinkFormat;
use super::recording::to_i16;
use super::sink::{SinkError, SoundSink};
use alsa::pcm::{Format, PCM};
use alsa::Direction;

/// What to open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlsaSinkParameters {
    /// The ALSA device, `"default"` on the robot.
    pub device: String,
    pub channels: u32,
    pub sample_rate_hz: u32,
    /// Frames per period (the device's unit of transfer).
    pub period_frames: usize,
}

impl Default for AlsaSinkParameters {
    fn default() -> Self {
        AlsaSinkParameters {
            device: "default".to_owned(),
            channels: 2,
            sample_rate_hz: 48_000,
            period_frames: 1024,
        }
    }
}

/// Opening the ALSA device for playback failed.
#[derive(Debug, thiserror::Error)]
pub enum AlsaSinkOpenError {
    #[error("ALSA playback device {device}: {step}: {source}")]
    Device {
        device: String,
        step: &'static str,
        source: alsa::Error,
    },
    #[error("ALSA playback device {device}: {what} (1..=8 channels and 1..=65536 frames per period are played)")]
    Unsupported { device: String, what: String },
}

/// Plays to an ALSA device.
pub struct AlsaSink {
    pcm: PCM,
    device: String,
    format: SinkFormat,
    scratch: Vec<i16>,
    underruns: u64,
}

impl std::fmt::Debug for AlsaSink {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("AlsaSink")
            .field("device", &self.device)
            .field("format", &self.format)
            .field("underruns", &self.underruns)
            .finish_non_exhaustive()
    }
}

/// `EPIPE`: an underrun; `ESTRPIPE`: the device was suspended. Both are recovered.
const EPIPE: i32 = 32;
const ESTRPIPE: i32 = 86;

impl AlsaSink {
    /// Opens the device and sets its format (the rate is the nearest the device has).
    pub fn open(parameters: &AlsaSinkParameters) -> Result<AlsaSink, AlsaSinkOpenError> {
        let device = parameters.device.clone();
        if device.contains('\0') {
            return Err(AlsaSinkOpenError::Unsupported {
                device: device.escape_debug().to_string(),
                what: "a device name with a NUL byte".to_owned(),
            });
        }
        if parameters.channels == 0 || parameters.channels > 8 {
            return Err(AlsaSinkOpenError::Unsupported {
                device,
                what: format!("{} channels asked for", parameters.channels),
            });
        }
        if parameters.period_frames == 0 || parameters.period_frames > 65_536 {
            return Err(AlsaSinkOpenError::Unsupported {
                device,
                what: format!("{} frames per period asked for", parameters.period_frames),
            });
        }
        let step = |step: &'static str| {
            let device = device.clone();
            move |source| AlsaSinkOpenError::Device {
                device,
                step,
                source,
            }
        };
        let crate::alsa_device::Opened {
            pcm,
            sample_rate_hz,
            channels,
            ..
        } = crate::alsa_device::open(&crate::alsa_device::Request {
            device: &device,
            direction: Direction::Playback,
            format: Format::s16(),
            format_step: "set signed 16-bit samples",
            channels: parameters.channels,
            sample_rate_hz: parameters.sample_rate_hz,
            period_frames: parameters.period_frames,
        })
        .map_err(|(failed, source)| step(failed)(source))?;
        Ok(AlsaSink {
            pcm,
            device,
            format: SinkFormat {
                sample_rate_hz,
                channels,
            },
            scratch: Vec::new(),
            underruns: 0,
        })
    }

    /// Underruns recovered since the device was opened.
    pub fn underruns(&self) -> u64 {
        self.underruns
    }

    fn error(&self, reason: impl std::fmt::Display) -> SinkError {
        SinkError::Failed {
            sink: format!("ALSA playback device {}", self.device),
            reason: reason.to_string(),
        }
    }
}

impl SoundSink for AlsaSink {
    fn format(&self) -> SinkFormat {
        self.format
    }

    fn write(&mut self, samples: &[f32]) -> Result<(), SinkError> {
        let channels = self.format.channels.max(1) as usize;
        self.scratch.clear();
        self.scratch
            .extend(samples.iter().map(|&sample| to_i16(sample)));
        let mut offset = 0;
        // A few recoveries in a row are normal after a pause; endless ones are an error.
        let mut recoveries = 0;
        while offset < self.scratch.len() {
            let result = self
                .pcm
                .io_i16()
                .and_then(|io| io.writei(&self.scratch[offset..]));
            match result {
                Ok(frames) => offset += frames * channels,
                Err(error) if matches!(error.errno(), EPIPE | ESTRPIPE) && recoveries < 8 => {
                    recoveries += 1;
                    self.underruns += 1;
                    self.pcm
                        .try_recover(error, true)
                        .map_err(|error| self.error(error))?;
                }
                Err(error) => return Err(self.error(error)),
            }
        }
        Ok(())
    }

    fn discard(&mut self) -> Result<(), SinkError> {
        self.pcm.drop().map_err(|error| self.error(error))?;
        self.pcm.prepare().map_err(|error| self.error(error))
    }
}
