//! The offline runner behind `cortex hear`: a recording through the whistle pipeline.

use crate::frames::{AudioFrames, MAX_FRAMES};
use crate::parameters::WhistleDetectorParameters;
use crate::pipeline::WhistlePipeline;
use crate::source::{AudioSource, ReadError};
use crate::wav::{WavOpenError, WavSource};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What was heard in one recording.
#[derive(Debug, Clone, PartialEq)]
pub struct HearResult {
    /// At least one whistle was recognised.
    pub whistle: bool,
    /// When each whistle was recognised, seconds from the start of the recording.
    pub times_s: Vec<f64>,
    /// Time spent reading and processing the recording, ms.
    pub time_ms: f64,
}

/// Hearing a recording failed.
#[derive(Debug, thiserror::Error)]
pub enum HearError {
    #[error(transparent)]
    Open(#[from] WavOpenError),
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error(
        "{path}: a sample rate of {sample_rate_hz} Hz cannot hold the whistle band \
         (band_low_hz = {band_low_hz} needs at least {needed_hz} Hz)"
    )]
    RateTooLow {
        path: PathBuf,
        sample_rate_hz: u32,
        band_low_hz: f32,
        needed_hz: u32,
    },
}

impl HearError {
    /// True when the file could not be opened (as opposed to being malformed).
    pub fn is_missing(&self) -> bool {
        matches!(self, HearError::Open(error) if error.is_missing())
    }
}

/// Runs the whistle pipeline over the WAV file at `path`, in buffers of the robot's size.
pub fn hear(path: &Path, parameters: &WhistleDetectorParameters) -> Result<HearResult, HearError> {
    let started = Instant::now();
    let mut source = WavSource::open(path, MAX_FRAMES)?;
    // The band needs a few bins below the Nyquist frequency.
    let needed_hz = (2.0 * (parameters.band_low_hz + 200.0)).ceil() as u32;
    if source.sample_rate_hz() < needed_hz {
        return Err(HearError::RateTooLow {
            path: path.to_owned(),
            sample_rate_hz: source.sample_rate_hz(),
            band_low_hz: parameters.band_low_hz,
            needed_hz,
        });
    }
    let mut result = hear_source(&mut source, parameters)?;
    result.time_ms = started.elapsed().as_secs_f64() * 1000.0;
    Ok(result)
}

/// Runs the whistle pipeline over everything `source` delivers.
pub fn hear_source(
    source: &mut dyn AudioSource,
    parameters: &WhistleDetectorParameters,
) -> Result<HearResult, ReadError> {
    let started = Instant::now();
    let mut pipeline = WhistlePipeline::new(parameters);
    let mut frames = AudioFrames::empty(source.sample_rate_hz(), source.channel_count());
    let mut times_s = Vec::new();
    while source.read(&mut frames)? {
        pipeline.process(&frames, |time| times_s.push(time.as_secs_f64()));
    }
    Ok(HearResult {
        whistle: !times_s.is_empty(),
        times_s,
        time_ms: started.elapsed().as_secs_f64() * 1000.0,
    })
}
