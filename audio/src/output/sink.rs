//! `SoundSink`: where the player streams samples (the robot's loudspeakers, or a recording).

use super::pcm::SinkFormat;
use super::request::{PlayedSound, Sound};

/// Something that plays interleaved samples in [-1, 1] in its [`SinkFormat`].
///
/// `write` may block for as long as playing the samples takes (a device with a full buffer, a
/// recording paced in real time): it runs on the player's thread, never on a tick.
pub trait SoundSink: Send {
    /// The format every `write` is in.
    fn format(&self) -> SinkFormat;
    /// Plays `samples` (whole frames, interleaved).
    fn write(&mut self, samples: &[f32]) -> Result<(), SinkError>;
    /// Drops what was written but not yet heard (a sound was cut).
    fn discard(&mut self) -> Result<(), SinkError> {
        Ok(())
    }
    /// A sound starts (its first samples follow); a recording notes it.
    fn started(&mut self, _sound: &Sound) -> Result<(), SinkError> {
        Ok(())
    }
    /// A sound ended (completely or cut); a recording notes it.
    fn finished(&mut self, _played: &PlayedSound) -> Result<(), SinkError> {
        Ok(())
    }
}

/// Playing to a sink failed.
#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    #[error("{sink}: {reason}")]
    Failed { sink: String, reason: String },
}
