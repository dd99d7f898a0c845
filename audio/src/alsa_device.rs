//! Opening an ALSA device for interleaved samples, shared by capture ([`crate::alsa_source`]) and
//! playback ([`crate::output::alsa_sink`]): the hardware parameters are set in one order, each
//! step named in the error, and what the device actually granted is read back.

use alsa::pcm::{Access, Format, Frames, HwParams, PCM};
use alsa::{Direction, ValueOr};

/// What to ask the device for.
pub(crate) struct Request<'a> {
    pub device: &'a str,
    pub direction: Direction,
    pub format: Format,
    /// Said in the error when the format is refused ("set 32-bit float samples").
    pub format_step: &'static str,
    pub channels: u32,
    pub sample_rate_hz: u32,
    pub period_frames: usize,
}

/// An opened device and what it granted.
pub(crate) struct Opened {
    pub pcm: PCM,
    pub sample_rate_hz: u32,
    pub channels: u32,
    pub period_frames: Frames,
}

/// Opens `request.device` with interleaved access and a buffer of four periods; an error names
/// the step that failed.
pub(crate) fn open(request: &Request<'_>) -> Result<Opened, (&'static str, alsa::Error)> {
    let step = |step: &'static str| move |error| (step, error);
    let pcm = PCM::new(request.device, request.direction, false).map_err(step("open"))?;
    let (sample_rate_hz, channels, period_frames) = {
        let hardware = HwParams::any(&pcm).map_err(step("read its parameters"))?;
        hardware
            .set_access(Access::RWInterleaved)
            .map_err(step("set interleaved access"))?;
        hardware
            .set_format(request.format)
            .map_err(step(request.format_step))?;
        hardware
            .set_channels(request.channels)
            .map_err(step("set the channel count"))?;
        hardware
            .set_rate(request.sample_rate_hz, ValueOr::Nearest)
            .map_err(step("set the rate"))?;
        let period = hardware
            .set_period_size_near(request.period_frames as Frames, ValueOr::Nearest)
            .map_err(step("set the period"))?;
        hardware
            .set_buffer_size_near(period * 4)
            .map_err(step("set the buffer size"))?;
        pcm.hw_params(&hardware)
            .map_err(step("apply the parameters"))?;
        let rate = hardware.get_rate().map_err(step("read the rate"))?;
        let channels = hardware.get_channels().map_err(step("read the channels"))?;
        (rate, channels, period)
    };
    Ok(Opened {
        pcm,
        sample_rate_hz,
        channels,
        period_frames,
    })
}
