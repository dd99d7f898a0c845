//! `WhistleDetector`, the module: the microphone's buffers through spectrum → detector → filter
//! ([`WhistlePipeline`]), giving [`WhistleState`] to the rest of the robot.
//!
//! The microphone: in the simulation, the [`MicrophoneInbox`] of the folder named by
//! `CORTEX_MICROPHONE_DIR` (the supervisor sets it to `<run dir>/microphone` with `--sim`);
//! without it the robot hears silence. (ALSA capture on the robot arrives with the `robot`
//! build of the audio process.) Each tick drains every buffer that is due, so the process's rate
//! (20 Hz) need not match the buffer period (42.7 ms).

use crate::inbox::MicrophoneInbox;
use crate::parameters::{ParameterError, WhistleDetectorParameters};
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
            other => config::Invalid::new("", other.to_string()),
        })
    }
}

/// Provides [`WhistleState`] from the microphone.
#[derive(Debug)]
pub struct WhistleDetector {
    parameters: WhistleDetectorParameters,
    pipeline: WhistlePipeline,
    microphone: Option<MicrophoneInbox>,
    state: WhistleState,
}

framework::module! {
    WhistleDetector {
        inputs: WhistleDetectorInputs,
        parameters: WhistleDetectorParameters,
        requires: {},
        uses: {},
        provides: { WhistleState },
    }
}

impl WhistleDetector {
    fn new(parameters: WhistleDetectorParameters) -> Self {
        let microphone = std::env::var_os(MICROPHONE_DIR_VARIABLE)
            .map(|folder| MicrophoneInbox::new(Path::new(&folder)));
        Self::with_microphone(parameters, microphone)
    }

    /// The module listening to `microphone` (`None`: silence).
    pub fn with_microphone(
        parameters: WhistleDetectorParameters,
        microphone: Option<MicrophoneInbox>,
    ) -> Self {
        WhistleDetector {
            pipeline: WhistlePipeline::new(&parameters),
            parameters,
            microphone,
            state: WhistleState::default(),
        }
    }

    /// Hears everything due by `now_ns` (monotonic) and returns the state after it.
    pub fn step(&mut self, now_ns: u64) -> &WhistleState {
        let Some(microphone) = self.microphone.as_mut() else {
            return &self.state;
        };
        let pipeline = &mut self.pipeline;
        let parameters = &self.parameters;
        let state = &mut self.state;
        let result = microphone.poll(now_ns, |heard| {
            if heard.first {
                *pipeline = WhistlePipeline::new(parameters);
            }
            pipeline.process(heard.frames, |time| {
                let time_ns = u64::try_from(time.as_nanos()).unwrap_or(u64::MAX);
                state.whistle_count += 1;
                state.last_whistle_ns = Some(heard.start_ns.saturating_add(time_ns));
                tracing::info!(
                    "whistle heard ({} s into the recording)",
                    time.as_secs_f32()
                );
            });
            let now = pipeline.state();
            state.detected = now.detected;
            state.confidence = now.confidence;
        });
        if let Err(error) = result {
            // Once per bad file: the file has left the inbox.
            tracing::warn!("microphone: {error}");
        }
        if microphone.playing().is_none() {
            self.state.detected = false;
            self.state.confidence = 0.0;
        }
        &self.state
    }
}

impl Update<WhistleState> for WhistleDetector {
    fn update(&mut self, _inputs: &WhistleDetectorInputs, whistle_state: &mut WhistleState) {
        whistle_state.clone_from(self.step(ipc::health::monotonic_ns()));
    }
}
