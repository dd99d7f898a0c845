//! Resolving a request to samples: the file, or the speech, or the speech's fallback WAV.

use super::library::{fallback_name, LookupError, SoundLibrary};
use super::pcm::Pcm;
use super::playback::Shared;
use super::player::PlayError;
use super::request::{PlayedFrom, Sound};
use super::speech::{SpeechEngine, SpeechError};

pub(crate) enum Resolved {
    Sound(PlayedFrom, Pcm),
    /// Cut while the speech was being synthesised.
    Cancelled(PlayedFrom),
    /// An error, reported.
    Nothing,
}

/// The samples for `sound`: the file, or the speech, or the speech's fallback WAV.
pub(crate) fn resolve(
    shared: &Shared,
    library: &SoundLibrary,
    speech: Option<&mut (dyn SpeechEngine + 'static)>,
    sound: &Sound,
    cut: &dyn Fn() -> bool,
) -> Resolved {
    let text = match sound {
        Sound::Play { name } => {
            return match library.load(name) {
                Ok((path, pcm)) => Resolved::Sound(PlayedFrom::File { path }, pcm),
                Err(error) => {
                    shared.error(error.into());
                    Resolved::Nothing
                }
            }
        }
        Sound::Say { text } => text,
    };
    let speech_error = match speech {
        Some(engine) => match engine.synthesise(text, cut) {
            Ok(pcm) => {
                return Resolved::Sound(
                    PlayedFrom::Speech {
                        engine: engine.name().to_owned(),
                    },
                    pcm,
                )
            }
            Err(SpeechError::Cancelled) => {
                return Resolved::Cancelled(PlayedFrom::Speech {
                    engine: engine.name().to_owned(),
                })
            }
            Err(error) => error,
        },
        None => SpeechError::Unavailable {
            program: "(no speech engine)".into(),
        },
    };
    let fallback = match fallback_name(text) {
        Some(name) => library.load(&name),
        None => Err(LookupError::InvalidName {
            name: text.chars().take(64).collect(),
            reason: "no fallback name can be made of this text",
        }),
    };
    match fallback {
        Ok((path, pcm)) => {
            if !matches!(speech_error, SpeechError::Unavailable { .. }) {
                shared.error(PlayError::Speech {
                    text: text.clone(),
                    source: speech_error,
                });
            }
            Resolved::Sound(PlayedFrom::Fallback { path }, pcm)
        }
        Err(fallback) => {
            shared.error(PlayError::NoSpeech {
                text: text.clone(),
                speech: speech_error.to_string(),
                fallback,
            });
            Resolved::Nothing
        }
    }
}
