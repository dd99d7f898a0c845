//! The modules of the `audio` process, run by `framework`.
//!
//! | module | provides | from |
//! |---|---|---|
//! | [`WhistleDetector`] | `WhistleState` | the microphone (simulated: [`crate::inbox`]) |

mod whistle_detector;

pub use whistle_detector::{WhistleDetector, MICROPHONE_DIR_VARIABLE};

use framework::ModuleRegistry;

/// Every module of the `audio` process.
pub fn modules() -> ModuleRegistry {
    ModuleRegistry::default().with::<WhistleDetector>()
}
