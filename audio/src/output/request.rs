//! What the player is asked to do (`PlayRequest`) and what it reports it did (`PlayedSound`).

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// One sound to produce (the same two kinds as the `SoundRequest` representation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Sound {
    /// Speak this text (text-to-speech, else the shipped WAV for a fixed message).
    Say { text: String },
    /// Play `<name>.wav` from the `sounds/` folders.
    Play { name: String },
}

impl Sound {
    /// The text or the name, for logs and the history.
    pub fn label(&self) -> &str {
        match self {
            Sound::Say { text } => text,
            Sound::Play { name } => name,
        }
    }
}

/// What a new request does to the sound that is playing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Delivery {
    /// Cut the sound that plays (it is reported as interrupted) and play this one next; the
    /// sounds already queued play after it.
    Interrupt,
    /// Play after everything already queued.
    Queue,
}

/// One request to the player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayRequest {
    pub sound: Sound,
    pub delivery: Delivery,
}

impl PlayRequest {
    pub fn say(text: impl Into<String>, delivery: Delivery) -> PlayRequest {
        PlayRequest {
            sound: Sound::Say { text: text.into() },
            delivery,
        }
    }

    pub fn play(name: impl Into<String>, delivery: Delivery) -> PlayRequest {
        PlayRequest {
            sound: Sound::Play { name: name.into() },
            delivery,
        }
    }
}

/// Where the samples of a played sound came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlayedFrom {
    /// A WAV file from a `sounds/` folder.
    File { path: PathBuf },
    /// The text-to-speech engine.
    Speech { engine: String },
    /// The shipped WAV for a fixed message, because the engine failed.
    Fallback { path: PathBuf },
}

/// One sound the player streamed to its sink (the shape of a future `PlayedSounds` entry).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayedSound {
    pub sound: Sound,
    pub from: PlayedFrom,
    /// `CLOCK_MONOTONIC` ns when the first samples went to the sink.
    pub started_monotonic_ns: u64,
    /// `CLOCK_MONOTONIC` ns when the last samples went to the sink (or it was cut).
    pub finished_monotonic_ns: u64,
    /// Frames given to the sink, at the sink's rate.
    pub frames_played: u64,
    /// Frames the whole sound has at the sink's rate.
    pub frames_total: u64,
    /// Cut by an interrupting request or by the player stopping.
    pub interrupted: bool,
}

/// `CLOCK_MONOTONIC` now, in nanoseconds (the clock `FrameInfo` uses).
pub fn monotonic_ns() -> u64 {
    let time = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    (time.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(time.tv_nsec as u64)
}
