//! What a representation is: a named, plain serde type with a default value.
//!
//! The trait lives here, beside the types, so that every representation can name itself without
//! this crate knowing the framework; the framework's `RepresentationInfo` builds the type-erased
//! operations (blackboard, channel bytes) on top of it.

use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt::Debug;

/// A shared result: plain data with a default value and a MessagePack encoding.
pub trait Representation:
    Serialize + DeserializeOwned + Default + Clone + Debug + Send + Sync + 'static
{
    /// The name used in `processes.toml`, module declarations, channels and `cortex get`.
    const NAME: &'static str;
    /// Slot capacity of a channel carrying it: the largest encoded size expected, with room.
    const CAPACITY: usize = 16 * 1024;
}

/// Implements [`Representation`] for each type, named after the type.
///
/// ```ignore
/// representations!(SensorData, JointRequest);
/// representations!(CameraImage => 2_500_000); // with a slot capacity
/// ```
#[macro_export]
macro_rules! representations {
    ($($type:ident $(=> $capacity:expr)?),* $(,)?) => {
        $(
            impl $crate::Representation for $type {
                const NAME: &'static str = stringify!($type);
                $(const CAPACITY: usize = $capacity;)?
            }
        )*
    };
}
