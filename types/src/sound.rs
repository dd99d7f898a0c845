//! Speech and sound output: [`SoundRequest`], and what was played: [`PlayedSounds`].

use serde::{Deserialize, Serialize};

/// One sound to produce.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Sound {
    /// Speak this text with text-to-speech.
    Say { text: String },
    /// Play a sound file by its name (without extension), e.g. `"whistle"`.
    Play { name: String },
}

/// The newest sound wanted.
///
/// A new request is recognised by a changed `request_counter`, so the same sentence can be said
/// twice in a row: the sender increments the counter for every new sound.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SoundRequest {
    /// Incremented by the sender for every new sound.
    pub request_counter: u64,
    /// The sound, `None` for silence.
    pub sound: Option<Sound>,
}

impl SoundRequest {
    /// A request that follows `self` and asks for `sound`.
    pub fn next(&self, sound: Sound) -> Self {
        Self {
            request_counter: self.request_counter.wrapping_add(1),
            sound: Some(sound),
        }
    }
}

/// What the `audio` process has played, newest last (a bounded history).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PlayedSounds {
    /// Sounds played since the audio process started.
    pub played_count: u64,
    /// The newest few, oldest first.
    pub recent: Vec<PlayedSoundSummary>,
}

impl PlayedSounds {
    /// How many sounds `recent` keeps.
    pub const RECENT: usize = 8;
    /// The longest label kept, in bytes (longer ones are cut at a character boundary).
    pub const MAX_LABEL_BYTES: usize = 200;
}

/// One played sound.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PlayedSoundSummary {
    /// The text said or the name of the file played.
    pub label: String,
    /// Where the samples came from: `file`, `speech` or `fallback`.
    pub source: String,
    /// When the first samples went out, monotonic ns.
    pub started_ns: u64,
    /// Cut by a newer sound.
    pub interrupted: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_increments_and_round_trips() {
        let silent = SoundRequest::default();
        assert_eq!(silent.sound, None);
        let say = silent.next(Sound::Say {
            text: "Python error".into(),
        });
        let again = say.next(Sound::Say {
            text: "Python error".into(),
        });
        assert_ne!(say, again);
        assert_eq!(again.request_counter, 2);
        let play = again.next(Sound::Play {
            name: "whistle".into(),
        });
        let bytes = rmp_serde::to_vec_named(&play).unwrap();
        assert_eq!(rmp_serde::from_slice::<SoundRequest>(&bytes).unwrap(), play);
    }
}
