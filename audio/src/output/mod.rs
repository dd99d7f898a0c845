//! Sound output: what the behaviour asks to hear (`SoundRequest`), played.
//!
//! A [`SoundPlayer`] owns a playback thread. A tick hands it [`PlayRequest`]s (`say(text)` or
//! `play(name)`, each interrupting or queueing) with [`SoundPlayer::submit`], which never waits.
//! The thread resolves a request to samples — a WAV file of the configuration's `sounds/`
//! folders ([`SoundLibrary`]), or speech from a [`SpeechEngine`] (flite, [`ProgramSpeech`]),
//! or, when speech fails, the shipped WAV named after the text ("Python error" →
//! `python_error.wav`) — converts them to its sink's format and streams them in short chunks to
//! a [`SoundSink`]: the robot's loudspeakers through ALSA (`alsa_sink`, feature `robot`) or,
//! in the simulation, a [`RecordingSink`] that appends to `played.wav` and `played.tsv` in the
//! run directory. What was played is reported as a bounded history of [`PlayedSound`]s.
//! [`RequestFollower`] turns the `SoundRequest` representation's counter into requests.
//!
//! ```no_run
//! use audio::output::*;
//! use std::time::Duration;
//! let run = std::path::Path::new("/tmp/run");
//! let library = SoundLibrary::new(vec!["config/data/default/sounds".into()], Duration::from_secs(30));
//! let format = SinkFormat { sample_rate_hz: 16_000, channels: 1 };
//! let sink = RecordingSink::open(run, format, Pacing::RealTime)?;
//! let speech = ProgramSpeech::flite(run);
//! let player = SoundPlayer::spawn(library, Some(Box::new(speech)), Box::new(sink), PlayerParameters::default())?;
//! player.submit(PlayRequest::say("Python error", Delivery::Interrupt));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "robot")]
pub mod alsa_sink;
pub mod follower;
pub mod library;
pub mod pcm;
mod playback;
pub mod played_log;
pub mod player;
pub mod recording;
pub mod request;
mod resolve;
pub mod sink;
pub mod speech;

pub use follower::{FirstSeen, RequestFollower};
pub use library::{fallback_name, LookupError, SoundLibrary};
pub use pcm::{LoadError, Pcm, SinkFormat};
pub use played_log::{read_played_log, RecordedSound, RecordedStatus};
pub use player::{
    PlayError, PlayerParameters, PlayerStartError, PlayerStatus, PlayerStopError, SoundPlayer,
};
pub use recording::{Pacing, RecordingError, RecordingSink};
pub use request::{monotonic_ns, Delivery, PlayRequest, PlayedFrom, PlayedSound, Sound};
pub use sink::{SinkError, SoundSink};
pub use speech::{ProgramSpeech, SpeechEngine, SpeechError};
