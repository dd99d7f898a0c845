//! The modules of the `motion` process (one crate per process kind; the framework that runs them
//! is `framework`, the types they exchange are in `types`): keyframe motions ("special actions"), stand, sit,
//! unstiff and head motion in the [`MotionCombinator`], and the [`FallStateProvider`].
//!
//! ```text
//!  SensorData ──► FallStateProvider ──► FallState ─┐
//!  SensorData ─────────────────────────────────────┼─► MotionCombinator ──► JointRequest
//!  MotionRequest (from cognition) ─────────────────┘                    └─► MotionInfo
//! ```
//!
//! Inside the combinator: [`selection`] picks the motion for the request, the
//! [`KeyframePlayer`](player::KeyframePlayer) plays keyframe files ([`keyframes`], loaded by the
//! [`MotionLibrary`](library::MotionLibrary) from `motions/*.toml`) with the pure functions of
//! [`interpolation`], and [`head_motion`] moves the head; [`get_up`] decides between fall
//! protection, the stand-up motions (retried) and staying down after a fall.

mod fall_state_provider;
pub mod get_up;
pub mod head_motion;
pub mod interpolation;
pub mod joint_limits;
pub mod keyframes;
pub mod library;
mod motion_combinator;
pub mod player;
pub mod selection;
pub mod walking_engine;

pub use fall_state_provider::{FallStateProvider, FallStateProviderParameters};
pub use motion_combinator::{MotionCombinator, MotionCombinatorParameters};

use framework::ModuleRegistry;

/// The modules of the motion process.
pub fn modules() -> ModuleRegistry {
    ModuleRegistry::default()
        .with::<FallStateProvider>()
        .with::<MotionCombinator>()
}
