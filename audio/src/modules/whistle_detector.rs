//! `WhistleDetector`, the module: the microphone's buffers through spectrum → detector → filter
//! ([`WhistlePipeline`]), giving [`WhistleState`] to the rest of the robot.
//!
//! The microphone ([`Microphone`]): in the simulation, the [`MicrophoneInbox`] of the folder
//! named by `CORTEX_MICROPHONE_DIR` (the supervisor sets it to `<run dir>/microphone` with
//! `--sim`). Without it, the `robot` build captures from ALSA ([`AlsaCapture`], the `[capture]`
//! table of `WhistleDetector.toml`) on a thread of its own; a build without `robot` hears
//! silence. Each tick takes every buffer that is due or queued, so the process's rate (20 Hz)
//! need not match the buffer period (42.7 ms).

#[cfg(feature = "robot")]
use crate::alsa_capture::{AlsaCapture, CaptureStatus};
use crate::frames::AudioFrames;
use crate::inbox::MicrophoneInbox;
use crate::parameters::{CaptureParameters, ParameterError, WhistleDetectorParameters};
use crate::pipeline::WhistlePipeline;
use framework::Update;
use std::path::Path;
use types::WhistleState;

/// The environment variable naming the simulated microphone's folder.
pub const MICROPHONE_DIR_VARIABLE: &str = "CORTEX_MICROPHONE_DIR";

impl config::Validate for WhistleDetectorParameters {
    fn validate(&self) -> Result<(), config::Invalid> {
        WhistleDetectorParameters::validate(self).map_err(|error| match error {
            ParameterError::OutOfRange {
                key,
                value,
                expected,
            } => config::Invalid::new(key, format!("{value} is out of range: {expected}")),
            ParameterError::Refused {
                key,
                value,
                expected,
            } => config::Invalid::new(key, format!("{value} is refused: expected {expected}")),
            other => config::Invalid::new("", other.to_string()),
        })
    }
}

/// Where the module's sound comes from.
#[derive(Debug)]
pub enum Microphone {
    /// Nothing: the robot hears silence.
    Silence,
    /// The simulated microphone: WAV files dropped into a folder, heard in real time.
    Inbox(Box<MicrophoneInbox>),
    /// The robot's head microphones through ALSA.
    #[cfg(feature = "robot")]
    Alsa(AlsaCapture),
}

impl Microphone {
    /// The robot's microphones as this build has them: ALSA (a thread that opens the device
    /// and keeps trying).
    #[cfg(feature = "robot")]
    pub fn robot(capture: &CaptureParameters) -> Microphone {
        match AlsaCapture::start(capture) {
            Ok(capture) => Microphone::Alsa(capture),
            Err(error) => {
                tracing::error!("microphones: {error}; the robot hears silence");
                Microphone::Silence
            }
        }
    }

    /// The robot's microphones as this build has them: none (ALSA needs the `robot` feature).
    #[cfg(not(feature = "robot"))]
    pub fn robot(capture: &CaptureParameters) -> Microphone {
        tracing::info!(
            "microphones: this build has no ALSA capture (device {:?} not opened; the robot's \
             build needs --features robot); the robot hears silence",
            capture.device
        );
        Microphone::Silence
    }
}

/// Provides [`WhistleState`] from the microphone.
#[derive(Debug)]
pub struct WhistleDetector {
    parameters: WhistleDetectorParameters,
    microphone: Microphone,
    hearing: Hearing,
}

/// The pipeline and what it has heard.
#[derive(Debug)]
struct Hearing {
    pipeline: WhistlePipeline,
    state: WhistleState,
    buffers_heard: u64,
}

impl Hearing {
    /// Runs one buffer through the pipeline; the buffer's times are `start_ns` plus its own
    /// timestamps, monotonic.
    fn buffer(&mut self, frames: &AudioFrames, start_ns: u64) {
        let state = &mut self.state;
        self.buffers_heard += 1;
        self.pipeline.process(frames, |time| {
            let time_ns = u64::try_from(time.as_nanos()).unwrap_or(u64::MAX);
            state.whistle_count += 1;
            state.last_whistle_ns = Some(start_ns.saturating_add(time_ns));
            tracing::info!("whistle heard (at {} s)", time.as_secs_f32());
        });
        let now = self.pipeline.state();
        state.detected = now.detected;
        state.confidence = now.confidence;
    }

    /// Nothing is being heard now.
    fn quiet(&mut self) {
        self.state.detected = false;
        self.state.confidence = 0.0;
    }
}

framework::module! {
    WhistleDetector {
        inputs: WhistleDetectorInputs,
        parameters: WhistleDetectorParameters,
        // `cortex set` keeps the microphone open unless `[capture]` changed.
        set_parameters: retune,
        requires: {},
        uses: {},
        provides: { WhistleState },
    }
}

impl WhistleDetector {
    fn new(parameters: WhistleDetectorParameters) -> Self {
        let microphone = match std::env::var_os(MICROPHONE_DIR_VARIABLE) {
            Some(folder) => Microphone::Inbox(Box::new(MicrophoneInbox::new(Path::new(&folder)))),
            None => Microphone::robot(&parameters.capture),
        };
        Self::listening_to(parameters, microphone)
    }

    /// The module listening to `microphone` (`None`: silence).
    pub fn with_microphone(
        parameters: WhistleDetectorParameters,
        microphone: Option<MicrophoneInbox>,
    ) -> Self {
        Self::listening_to(
            parameters,
            microphone.map_or(Microphone::Silence, |inbox| {
                Microphone::Inbox(Box::new(inbox))
            }),
        )
    }

    /// The module listening to `microphone`.
    pub fn listening_to(parameters: WhistleDetectorParameters, microphone: Microphone) -> Self {
        WhistleDetector {
            hearing: Hearing {
                pipeline: WhistlePipeline::new(&parameters),
                state: WhistleState::default(),
                buffers_heard: 0,
            },
            parameters,
            microphone,
        }
    }

    /// New parameters while running: the pipeline starts afresh if the detector's changed, the
    /// ALSA capture is reopened only if `[capture]` changed.
    fn retune(&mut self, parameters: WhistleDetectorParameters) {
        let detector_changed = WhistleDetectorParameters {
            capture: self.parameters.capture.clone(),
            ..parameters.clone()
        } != self.parameters;
        if detector_changed {
            self.hearing.pipeline = WhistlePipeline::new(&parameters);
            self.hearing.quiet();
        }
        #[cfg(feature = "robot")]
        if parameters.capture != self.parameters.capture {
            if let Microphone::Alsa(capture) =
                std::mem::replace(&mut self.microphone, Microphone::Silence)
            {
                tracing::info!(
                    "microphones: [capture] changed, opening {:?}",
                    parameters.capture.device
                );
                self.microphone = match capture.restart(&parameters.capture) {
                    Ok(capture) => Microphone::Alsa(capture),
                    Err(error) => {
                        tracing::error!("microphones: {error}; the robot hears silence");
                        Microphone::Silence
                    }
                };
                self.hearing.quiet();
            }
        }
        self.parameters = parameters;
    }

    /// Buffers run through the pipeline so far.
    pub fn buffers_heard(&self) -> u64 {
        self.hearing.buffers_heard
    }

    /// The ALSA capture's counters and last error (`None`: not listening to ALSA).
    #[cfg(feature = "robot")]
    pub fn capture_status(&self) -> Option<CaptureStatus> {
        match &self.microphone {
            Microphone::Alsa(capture) => Some(capture.status()),
            _ => None,
        }
    }

    /// Hears everything due (or captured) by `now_ns` (monotonic) and returns the state after
    /// it.
    pub fn step(&mut self, now_ns: u64) -> &WhistleState {
        let hearing = &mut self.hearing;
        match &mut self.microphone {
            Microphone::Silence => {}
            Microphone::Inbox(inbox) => {
                let parameters = &self.parameters;
                let result = inbox.poll(now_ns, |heard| {
                    if heard.first {
                        hearing.pipeline = WhistlePipeline::new(parameters);
                    }
                    hearing.buffer(heard.frames, heard.start_ns);
                });
                if let Err(error) = result {
                    // Once per bad file: the file has left the inbox.
                    tracing::warn!("microphone: {error}");
                }
                if inbox.playing().is_none() {
                    hearing.quiet();
                }
            }
            #[cfg(feature = "robot")]
            Microphone::Alsa(capture) => {
                // ALSA buffers carry monotonic timestamps of their own.
                capture.drain(|frames| hearing.buffer(frames, 0));
                if !capture.is_open() {
                    hearing.quiet();
                }
            }
        }
        &self.hearing.state
    }
}

impl Update<WhistleState> for WhistleDetector {
    fn update(&mut self, _inputs: &WhistleDetectorInputs, whistle_state: &mut WhistleState) {
        whistle_state.clone_from(self.step(ipc::health::monotonic_ns()));
    }
}
