//! The modules of the `audio` process, run by `framework`.
//!
//! | module | provides | from |
//! |---|---|---|
//! | [`WhistleDetector`] | `WhistleState` | the microphone (simulated: [`crate::inbox`]) |
//! | [`SoundOutput`] | `PlayedSounds` | `SoundRequest`, played by [`crate::output::SoundPlayer`] |

mod sound_output;
mod whistle_detector;

pub use sound_output::{SoundOutput, SoundOutputParameters, RECORD_DIR_VARIABLE};
pub use whistle_detector::{WhistleDetector, MICROPHONE_DIR_VARIABLE};

use framework::ModuleRegistry;

/// Every module of the `audio` process.
pub fn modules() -> ModuleRegistry {
    ModuleRegistry::default()
        .with::<WhistleDetector>()
        .with::<SoundOutput>()
}
