//! `SoundOutput`, the module: follows the `SoundRequest` representation (one sound per new
//! counter value) and hands each sound to a [`SoundPlayer`], whose own thread resolves and plays
//! it; a tick never waits for a sound. Provides [`PlayedSounds`], the player's history.
//!
//! Where the sound goes: in the simulation, a real-time [`RecordingSink`] that appends to
//! `played.wav` and `played.tsv` in the folder named by `CORTEX_SOUND_RECORD_DIR` (the supervisor
//! sets it to the run directory with `--sim`). Without that variable, the `robot` build plays to
//! the ALSA device of `SoundOutput.toml`'s `[playback]` table, opened on a thread of its own
//! ([`AlsaPlayback`]: a device that cannot be opened is logged and tried again); a build without
//! `robot` has no output. Where there is no player (yet), requests are logged and dropped.
//! Either way texts are said by flite, or by the shipped WAVs of the configuration's `sounds/`
//! folders when flite fails.
//!
//! After a restart (`CORTEX_RESTARTS` > 0) the request found first is not played again: it was
//! played, or cut, before the crash.

#[cfg(feature = "robot")]
use crate::alsa_playback::{AlsaPlayback, PlayerParts};
use crate::output::{
    Delivery, FirstSeen, Pacing, PlayRequest, PlayedFrom, PlayerParameters, ProgramSpeech,
    RecordingSink, RequestFollower, SinkFormat, Sound, SoundLibrary, SoundPlayer,
};
use crate::parameters::{check_device_name, ParameterError};
use config::{in_range, Invalid};
use framework::{LoadParameters, Update};
use std::path::{Path, PathBuf};
use std::time::Duration;
use types::{PlayedSoundSummary, PlayedSounds, SoundRequest};

/// The environment variable naming the folder that records what was played.
pub const RECORD_DIR_VARIABLE: &str = "CORTEX_SOUND_RECORD_DIR";
/// The longest sound file played.
const MAX_SOUND_DURATION: Duration = Duration::from_secs(30);
/// The recording's format: what flite produces.
const RECORD_FORMAT: SinkFormat = SinkFormat {
    sample_rate_hz: 16_000,
    channels: 1,
};

/// The module's parameters: `SoundOutput.toml` (optional: without it, the defaults) and the
/// `sounds/` folders along the configuration's search path, most specific first.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SoundOutputParameters {
    /// Found along the search path, not read from the file.
    #[serde(skip)]
    pub sound_folders: Vec<PathBuf>,
    /// The robot's loudspeakers (the `robot` build).
    #[serde(default)]
    pub playback: PlaybackParameters,
}

/// The ALSA playback device of the robot build (`[playback]` in `SoundOutput.toml`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlaybackParameters {
    pub device: String,
    pub channels: u32,
    /// Frames per second asked for (the device may grant the nearest it has; sounds are
    /// converted to what it grants).
    pub sample_rate_hz: u32,
    /// Frames per period (the device's unit of transfer; it buffers four).
    pub period_frames: usize,
    /// How long to wait before opening a device again that could not be opened, ms.
    pub retry_interval_ms: u32,
}

impl Default for PlaybackParameters {
    fn default() -> Self {
        PlaybackParameters {
            device: "default".to_owned(),
            channels: 2,
            sample_rate_hz: 48_000,
            period_frames: 1024,
            retry_interval_ms: 3000,
        }
    }
}

impl LoadParameters for SoundOutputParameters {
    fn load(config: &config::Config, module: &str) -> Result<Self, config::ConfigError> {
        let mut parameters: SoundOutputParameters =
            config.validated_parameters_or_default(module)?;
        parameters.sound_folders = config.find_all("sounds");
        Ok(parameters)
    }
}

impl config::Validate for SoundOutputParameters {
    fn validate(&self) -> Result<(), Invalid> {
        let playback = &self.playback;
        check_device_name("playback.device", &playback.device).map_err(|error| match error {
            ParameterError::Refused {
                key,
                value,
                expected,
            } => Invalid::new(key, format!("{value} is refused: expected {expected}")),
            other => Invalid::new("playback.device", other.to_string()),
        })?;
        in_range("playback.channels", playback.channels, 1..=8)?;
        in_range(
            "playback.sample_rate_hz",
            playback.sample_rate_hz,
            8000..=192_000,
        )?;
        in_range(
            "playback.period_frames",
            playback.period_frames,
            64..=65_536,
        )?;
        in_range(
            "playback.retry_interval_ms",
            playback.retry_interval_ms,
            100..=600_000,
        )
    }
}

/// Where the sounds go.
#[derive(Debug)]
enum Output {
    /// Nowhere: requests are logged and dropped.
    None,
    Player(SoundPlayer),
    /// The loudspeakers are being opened; the player follows.
    #[cfg(feature = "robot")]
    Opening(AlsaPlayback),
}

/// Plays the `SoundRequest`s.
#[derive(Debug)]
pub struct SoundOutput {
    follower: RequestFollower,
    output: Output,
    played: PlayedSounds,
    last_reported_ns: u64,
}

framework::module! {
    SoundOutput {
        inputs: SoundOutputInputs,
        loaded_parameters: SoundOutputParameters,
        requires: {},
        uses: { sound_request: SoundRequest },
        provides: { PlayedSounds },
    }
}

impl SoundOutput {
    fn new(parameters: SoundOutputParameters) -> Self {
        let record_dir = std::env::var_os(RECORD_DIR_VARIABLE).map(PathBuf::from);
        let restarted = std::env::var("CORTEX_RESTARTS").is_ok_and(|restarts| restarts != "0");
        let first_seen = if restarted {
            FirstSeen::Skip
        } else {
            FirstSeen::Play
        };
        match record_dir {
            Some(folder) => Self::with_recording(parameters, Some(&folder), first_seen),
            None => Self::on_the_robot(parameters, first_seen),
        }
    }

    /// The robot's loudspeakers: ALSA, opened on a thread of its own.
    #[cfg(feature = "robot")]
    fn on_the_robot(parameters: SoundOutputParameters, first_seen: FirstSeen) -> Self {
        Self::with_alsa(parameters, first_seen)
    }

    /// No loudspeakers in a build without the `robot` feature.
    #[cfg(not(feature = "robot"))]
    fn on_the_robot(parameters: SoundOutputParameters, first_seen: FirstSeen) -> Self {
        tracing::info!(
            "loudspeakers: this build has no ALSA playback (device {:?} not opened; the robot's \
             build needs --features robot); sounds are dropped",
            parameters.playback.device
        );
        Self::with_recording(parameters, None, first_seen)
    }

    /// The module playing to the ALSA device of `parameters.playback`: a thread opens it (and
    /// keeps trying); requests before it is open are logged and dropped.
    #[cfg(feature = "robot")]
    pub fn with_alsa(parameters: SoundOutputParameters, first_seen: FirstSeen) -> Self {
        let playback = &parameters.playback;
        let sink = crate::output::alsa_sink::AlsaSinkParameters {
            device: playback.device.clone(),
            channels: playback.channels,
            sample_rate_hz: playback.sample_rate_hz,
            period_frames: playback.period_frames,
        };
        let parts = PlayerParts {
            library: SoundLibrary::new(parameters.sound_folders.clone(), MAX_SOUND_DURATION),
            // flite's temporary WAVs (named by pid and number, removed after reading).
            speech: Some(Box::new(ProgramSpeech::flite(std::env::temp_dir()))),
            parameters: PlayerParameters::default(),
        };
        let retry = Duration::from_millis(u64::from(playback.retry_interval_ms));
        let output = match AlsaPlayback::start(sink, retry, parts) {
            Ok(opening) => Output::Opening(opening),
            Err(error) => {
                tracing::error!("loudspeakers: {error}; sounds are dropped");
                Output::None
            }
        };
        SoundOutput {
            follower: RequestFollower::new(first_seen, Delivery::Interrupt),
            output,
            played: PlayedSounds::default(),
            last_reported_ns: 0,
        }
    }

    /// Whether a player is running (the recording or the loudspeakers are open).
    pub fn has_player(&self) -> bool {
        matches!(self.output, Output::Player(_))
    }

    /// While the loudspeakers are being opened: the failed attempts and the last error.
    #[cfg(feature = "robot")]
    pub fn opening_failures(&self) -> Option<(u64, Option<String>)> {
        match &self.output {
            Output::Opening(opening) => Some((opening.open_failures(), opening.last_error())),
            _ => None,
        }
    }

    /// The module recording into `record_dir` (`None`: no output).
    pub fn with_recording(
        parameters: SoundOutputParameters,
        record_dir: Option<&Path>,
        first_seen: FirstSeen,
    ) -> Self {
        let player = record_dir.and_then(|folder| {
            let sink = RecordingSink::open(folder, RECORD_FORMAT, Pacing::RealTime)
                .map_err(|error| tracing::warn!("sound output: {error}"))
                .ok()?;
            let library = SoundLibrary::new(parameters.sound_folders.clone(), MAX_SOUND_DURATION);
            let speech = ProgramSpeech::flite(folder);
            SoundPlayer::spawn(
                library,
                Some(Box::new(speech)),
                Box::new(sink),
                PlayerParameters::default(),
            )
            .map_err(|error| tracing::warn!("sound output: {error}"))
            .ok()
        });
        SoundOutput {
            follower: RequestFollower::new(first_seen, Delivery::Interrupt),
            output: player.map_or(Output::None, Output::Player),
            played: PlayedSounds::default(),
            last_reported_ns: 0,
        }
    }

    /// Takes this tick's request; returns what has been played so far.
    pub fn step(&mut self, request: &SoundRequest) -> &PlayedSounds {
        #[cfg(feature = "robot")]
        if let Output::Opening(opening) = &self.output {
            if let Some(player) = opening.take_player() {
                self.output = Output::Player(player);
            }
        }
        let sound = request.sound.as_ref().map(|sound| match sound {
            types::Sound::Say { text } => Sound::Say { text: text.clone() },
            types::Sound::Play { name } => Sound::Play { name: name.clone() },
        });
        if let Some(play) = self
            .follower
            .update(request.request_counter, sound.as_ref())
        {
            self.submit(play);
        }
        if let Output::Player(player) = &self.output {
            for error in player.take_errors() {
                tracing::warn!("sound output: {error}");
            }
            let history = player.history();
            let newest: Vec<PlayedSoundSummary> = history
                .iter()
                .filter(|played| played.started_monotonic_ns > self.last_reported_ns)
                .map(summary)
                .collect();
            if let Some(last) = history.last() {
                self.last_reported_ns = self.last_reported_ns.max(last.started_monotonic_ns);
            }
            self.played.played_count += newest.len() as u64;
            self.played.recent.extend(newest);
            let excess = self
                .played
                .recent
                .len()
                .saturating_sub(PlayedSounds::RECENT);
            self.played.recent.drain(..excess);
        }
        &self.played
    }

    fn submit(&mut self, play: PlayRequest) {
        match &self.output {
            Output::Player(player) => {
                tracing::debug!("sound output: {}", play.sound.label());
                if let Some(dropped) = player.submit(play) {
                    tracing::warn!(
                        "sound output: queue full, dropped {}",
                        dropped.sound.label()
                    );
                }
            }
            Output::None => tracing::debug!("no sound output: dropped {}", play.sound.label()),
            #[cfg(feature = "robot")]
            Output::Opening(opening) => tracing::debug!(
                "no sound output (ALSA device {} not open): dropped {}",
                opening.device(),
                play.sound.label()
            ),
        }
    }
}

fn summary(played: &crate::output::PlayedSound) -> PlayedSoundSummary {
    let mut label = played.sound.label().to_owned();
    if label.len() > PlayedSounds::MAX_LABEL_BYTES {
        let mut end = PlayedSounds::MAX_LABEL_BYTES;
        while !label.is_char_boundary(end) {
            end -= 1;
        }
        label.truncate(end);
    }
    let source = match played.from {
        PlayedFrom::File { .. } => "file",
        PlayedFrom::Speech { .. } => "speech",
        PlayedFrom::Fallback { .. } => "fallback",
    };
    PlayedSoundSummary {
        label,
        source: source.to_owned(),
        started_ns: played.started_monotonic_ns,
        interrupted: played.interrupted,
    }
}

impl Update<PlayedSounds> for SoundOutput {
    fn update(&mut self, inputs: &SoundOutputInputs, played: &mut PlayedSounds) {
        played.clone_from(self.step(inputs.sound_request));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use config::Validate;

    const SHIPPED: &str = include_str!("../../../config/data/default/SoundOutput.toml");

    #[test]
    fn the_shipped_file_is_the_default_and_every_bad_value_is_named() {
        let shipped: SoundOutputParameters = toml::from_str(SHIPPED).unwrap();
        assert_eq!(shipped, SoundOutputParameters::default());
        shipped.validate().unwrap();
        let error = toml::from_str::<SoundOutputParameters>("[playback]\ndevise = \"hw:0\"\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("devise"), "{error}");
        let bad = |change: fn(&mut PlaybackParameters)| {
            let mut parameters = SoundOutputParameters::default();
            change(&mut parameters.playback);
            parameters.validate().unwrap_err()
        };
        assert_eq!(bad(|p| p.channels = 9).key, "playback.channels");
        assert_eq!(bad(|p| p.period_frames = 0).key, "playback.period_frames");
        assert_eq!(
            bad(|p| p.retry_interval_ms = 10).key,
            "playback.retry_interval_ms"
        );
        let error = bad(|p| p.device = "hw:0\0".to_owned());
        assert_eq!(error.key, "playback.device");
        assert!(error.message.contains("no control characters"), "{error:?}");
        assert!(bad(|p| p.device = String::new())
            .message
            .contains("ALSA device name"));
    }
}
