//! How `cortex get` shows a representation: the decoding lives in the `debug` crate
//! (`debug::value`), which the debug link's JSON subscriptions use too.

pub use debug::value::{decode, label_joints};
