//! The modules of the `audio` process, run by `framework`.
//!
//! | module | provides | from |
//! |---|---|---|
//! | [`WhistleDetector`] | `WhistleState` | the microphone (simulated: [`crate::inbox`]; robot build: ALSA) |
//! | [`SoundOutput`] | `PlayedSounds` | `SoundRequest`, played by [`crate::output::SoundPlayer`] (simulated: a recording; robot build: ALSA) |

mod sound_output;
mod whistle_detector;

pub use sound_output::{
    PlaybackParameters, SoundOutput, SoundOutputParameters, RECORD_DIR_VARIABLE,
};
pub use whistle_detector::{Microphone, WhistleDetector, MICROPHONE_DIR_VARIABLE};

use framework::ModuleRegistry;

/// Every module of the `audio` process.
pub fn modules() -> ModuleRegistry {
    ModuleRegistry::default()
        .with::<WhistleDetector>()
        .with::<SoundOutput>()
}
