//! Audio for Cortex: sound buffers, where they come from, and the referee's whistle.
//!
//! What it is: [`AudioFrames`] (one plain-data buffer of interleaved samples with its rate,
//! channel count and capture time), the [`AudioSource`] trait with a WAV-file source, an
//! in-memory source and the simulated microphone (a playlist of recordings, paced in real
//! time), and the whistle detector as three separate stages with their parameters
//! in `WhistleDetector.toml`:
//!
//! ```text
//!  AudioFrames ──► SpectrumStage ──► WhistleDetector ──► WhistleFilter ──► WhistleState
//!  (2048 frames,   (Hann, FFT,       (one spectrum:      (over time: one    (detected,
//!   4 channels)     power spectra)    narrow loud peak    continuous tone    last whistle,
//!                                     in 2.3–4 kHz?)      ≥ 100 ms?)         confidence)
//! ```
//!
//! and [`hear`](fn@hear), the offline runner behind `cortex hear`:
//!
//! ```no_run
//! let parameters = audio::WhistleDetectorParameters::default();
//! let heard = audio::hear(std::path::Path::new("whistle.wav"), &parameters)?;
//! println!("whistle: {} at {:?} s", heard.whistle, heard.times_s);
//! # Ok::<(), audio::HearError>(())
//! ```
//!
//! Sound output ([`output`]): a [`output::SoundPlayer`] that says texts (flite, else shipped WAVs)
//! and plays WAV files from the configuration on its own thread, to ALSA or to a recording.
//!
//! With the `robot` feature (needs libasound2-dev; the robot's build, `cortex deploy`, turns it
//! on), `alsa_source::AlsaSource` captures from the robot's microphones, `alsa_capture::AlsaCapture`
//! reads it on a thread of its own for the module, and `output::alsa_sink::AlsaSink` plays to
//! its loudspeakers. Without it (the simulation, CI) nothing touches ALSA.
//!
//! The `audio` process's modules ([`modules`]): `WhistleDetector` runs the stages on the
//! microphone (simulated: WAV files dropped into a folder, [`inbox`]; on the robot: ALSA) and
//! provides the representation `types::WhistleState`; `SoundOutput` plays the `SoundRequest`s
//! (simulated: into a recording; on the robot: ALSA).

#[cfg(feature = "robot")]
pub mod alsa_capture;
#[cfg(feature = "robot")]
mod alsa_device;
#[cfg(feature = "robot")]
pub mod alsa_playback;
#[cfg(feature = "robot")]
pub mod alsa_source;
pub mod detector;
pub mod filter;
pub mod frames;
pub mod hear;
pub mod inbox;
pub mod modules;
pub mod output;
pub mod parameters;
pub mod pipeline;
pub mod simulated;
pub mod source;
pub mod spectrum;
pub mod synthesis;
pub mod wav;

pub use detector::{WhistleDetector, WhistleEvidence};
pub use filter::{WhistleFilter, WhistleState};
pub use frames::{AudioFrames, MAX_CHANNELS, MAX_FRAMES};
pub use hear::{hear, hear_source, HearError, HearResult};
pub use parameters::{CaptureParameters, ChannelMode, ParameterError, WhistleDetectorParameters};
pub use pipeline::WhistlePipeline;
pub use simulated::{PacedSource, PlaylistError, PlaylistSource};
pub use source::{AudioSource, MemorySource, ReadError};
pub use spectrum::{Spectrum, SpectrumStage};
pub use wav::{WavOpenError, WavSource};
