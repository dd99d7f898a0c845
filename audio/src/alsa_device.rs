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

/// A device that cannot be opened, logged as an error: the first failure, a different error at
/// once, the same error again once a minute (with the number of attempts), so that a robot
/// without its device neither hides it nor fills its log.
#[derive(Debug, Default)]
pub(crate) struct OpenFailureLog {
    last: Option<(String, std::time::Instant)>,
    attempts_since: u64,
}

/// How often the same open failure is logged again.
const OPEN_FAILURE_LOG_INTERVAL: std::time::Duration = std::time::Duration::from_secs(60);

impl OpenFailureLog {
    /// `what`: "microphones" or "loudspeakers"; `meanwhile`: what happens until it opens.
    pub fn failed(
        &mut self,
        what: &str,
        message: &str,
        meanwhile: &str,
        retry: std::time::Duration,
    ) {
        self.attempts_since += 1;
        let due = self
            .last
            .as_ref()
            .is_none_or(|(last, at)| last != message || at.elapsed() >= OPEN_FAILURE_LOG_INTERVAL);
        if due {
            tracing::error!(
                "{what}: {message} ({} attempts); {meanwhile}, trying again every {} ms",
                self.attempts_since,
                retry.as_millis()
            );
            self.last = Some((message.to_owned(), std::time::Instant::now()));
            self.attempts_since = 0;
        }
    }
}

/// Sleeps `duration` in slices of at most 50 ms; returns early (false) once `stop` is set.
pub(crate) fn sleep_unless(
    stop: &std::sync::atomic::AtomicBool,
    duration: std::time::Duration,
) -> bool {
    let end = std::time::Instant::now() + duration;
    loop {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return false;
        }
        let left = end.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return true;
        }
        std::thread::sleep(left.min(std::time::Duration::from_millis(50)));
    }
}
