//! `SoundOutput`, the module: follows the `SoundRequest` representation (one sound per new
//! counter value) and hands each sound to a [`SoundPlayer`], whose own thread resolves and plays
//! it; a tick never waits for a sound. Provides [`PlayedSounds`], the player's history.
//!
//! Where the sound goes: in the simulation, a real-time [`RecordingSink`] that appends to
//! `played.wav` and `played.tsv` in the folder named by `CORTEX_SOUND_RECORD_DIR` (the supervisor
//! sets it to the run directory with `--sim`), with flite speech and the shipped WAVs of the
//! configuration's `sounds/` folders when flite fails. Without that variable (the robot, until
//! its ALSA sink is wired), requests are logged and dropped.
//!
//! After a restart (`CORTEX_RESTARTS` > 0) the request found first is not played again: it was
//! played, or cut, before the crash.

use crate::output::{
    Delivery, FirstSeen, Pacing, PlayRequest, PlayedFrom, PlayerParameters, ProgramSpeech,
    RecordingSink, RequestFollower, SinkFormat, Sound, SoundLibrary, SoundPlayer,
};
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

/// The `sounds/` folders along the configuration's search path, most specific first (no file
/// of its own).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SoundOutputParameters {
    pub sound_folders: Vec<PathBuf>,
}

impl LoadParameters for SoundOutputParameters {
    fn load(config: &config::Config, _module: &str) -> Result<Self, config::ConfigError> {
        Ok(SoundOutputParameters {
            sound_folders: config.find_all("sounds"),
        })
    }
}

impl config::Validate for SoundOutputParameters {
    fn validate(&self) -> Result<(), config::Invalid> {
        Ok(())
    }
}

impl<'de> serde::Deserialize<'de> for SoundOutputParameters {
    /// Never read from a file (loaded by [`LoadParameters`]); an empty table is accepted.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Nothing {}
        Nothing::deserialize(deserializer).map(|_| SoundOutputParameters::default())
    }
}

/// Plays the `SoundRequest`s.
#[derive(Debug)]
pub struct SoundOutput {
    follower: RequestFollower,
    player: Option<SoundPlayer>,
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
        Self::with_recording(parameters, record_dir.as_deref(), first_seen)
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
            player,
            played: PlayedSounds::default(),
            last_reported_ns: 0,
        }
    }

    /// Takes this tick's request; returns what has been played so far.
    pub fn step(&mut self, request: &SoundRequest) -> &PlayedSounds {
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
        if let Some(player) = &self.player {
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
        match &self.player {
            Some(player) => {
                tracing::debug!("sound output: {}", play.sound.label());
                if let Some(dropped) = player.submit(play) {
                    tracing::warn!(
                        "sound output: queue full, dropped {}",
                        dropped.sound.label()
                    );
                }
            }
            None => tracing::debug!("no sound output: dropped {}", play.sound.label()),
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
