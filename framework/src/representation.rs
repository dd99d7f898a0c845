//! What a representation is to the framework, and the registry of all of them.
//!
//! A representation is a plain serde struct with `Default`. The framework needs to know each one
//! by name (the process table and the module declarations name them), to create its default
//! value in a blackboard, and to move it through a channel as MessagePack bytes. The
//! [`Representation`] trait gives the name; [`RepresentationInfo`] holds the type-erased
//! operations, so that the graph builder and the runtime work with names and never with `Any`
//! outside the [`Blackboard`].

use super::blackboard::{Blackboard, BlackboardError};
use std::any::{Any, TypeId};
use std::collections::BTreeMap;
use std::fmt::Debug;
use types::Representation;

/// The type-erased operations on one representation.
#[derive(Clone, Copy)]
pub struct RepresentationInfo {
    /// Its name.
    pub name: &'static str,
    /// Slot capacity of its channels.
    pub capacity: usize,
    /// Schema hash of its channels (see `ipc::channel::schema_hash`).
    pub schema_hash: u64,
    /// Its Rust type.
    pub type_id: TypeId,
    new_value: fn() -> Box<dyn Any + Send + Sync>,
    decode_at: unsafe fn(&[u8], *mut ()) -> Result<(), CodecError>,
    encode_at: unsafe fn(*const (), &mut Vec<u8>) -> Result<(), CodecError>,
    insert_default: fn(&mut Blackboard),
    decode_into: fn(&[u8], &mut Blackboard) -> Result<(), CodecError>,
    encode_from: fn(&Blackboard, &mut Vec<u8>) -> Result<(), CodecError>,
}

impl Debug for RepresentationInfo {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("RepresentationInfo")
            .field("name", &self.name)
            .field("capacity", &self.capacity)
            .finish()
    }
}

/// A value that could not be moved between a channel and a blackboard.
#[derive(Debug, thiserror::Error)]
pub enum CodecError {
    /// The bytes are not a valid encoding of the representation.
    #[error("decoding {representation}: {source}")]
    Decode {
        /// The representation.
        representation: &'static str,
        /// The decoder's error.
        source: rmp_serde::decode::Error,
    },
    /// The value could not be encoded.
    #[error("encoding {representation}: {source}")]
    Encode {
        /// The representation.
        representation: &'static str,
        /// The encoder's error.
        source: rmp_serde::encode::Error,
    },
    /// The blackboard does not hold it.
    #[error(transparent)]
    Blackboard(#[from] BlackboardError),
}

impl RepresentationInfo {
    /// The operations for `T`.
    pub fn of<T: Representation>() -> RepresentationInfo {
        RepresentationInfo {
            name: T::NAME,
            capacity: T::CAPACITY,
            schema_hash: ipc::channel::schema_hash(T::NAME),
            type_id: TypeId::of::<T>(),
            new_value: || Box::new(T::default()),
            decode_at: |bytes, value| {
                let decoded: T =
                    ipc::channel::decode(bytes).map_err(|source| CodecError::Decode {
                        representation: T::NAME,
                        source,
                    })?;
                // SAFETY: `decode_at`'s contract: `value` points to a live `T` nobody else
                // touches during the call.
                unsafe { *value.cast::<T>() = decoded };
                Ok(())
            },
            encode_at: |value, out| {
                // SAFETY: `encode_at`'s contract: `value` points to a live `T` nobody writes
                // during the call.
                let value = unsafe { &*value.cast::<T>() };
                ipc::channel::encode(value, out).map_err(|source| CodecError::Encode {
                    representation: T::NAME,
                    source,
                })
            },
            insert_default: |blackboard| blackboard.insert(T::default()),
            decode_into: |bytes, blackboard| {
                let value: T =
                    ipc::channel::decode(bytes).map_err(|source| CodecError::Decode {
                        representation: T::NAME,
                        source,
                    })?;
                blackboard.insert(value);
                Ok(())
            },
            encode_from: |blackboard, out| {
                let value = blackboard.get::<T>()?;
                ipc::channel::encode(value, out).map_err(|source| CodecError::Encode {
                    representation: T::NAME,
                    source,
                })
            },
        }
    }

    /// A new default value, boxed: a slot of the typed wiring (`crate::wiring`).
    pub fn new_value(&self) -> Box<dyn Any + Send + Sync> {
        (self.new_value)()
    }

    /// Decodes channel bytes into the value `value` points to, replacing it (the old value
    /// stays if the bytes are bad).
    ///
    /// # Safety
    ///
    /// `value` points to a live value of this representation's type (`type_id`) that nothing
    /// else reads or writes during the call.
    pub unsafe fn decode_at(&self, bytes: &[u8], value: *mut ()) -> Result<(), CodecError> {
        // SAFETY: passed on from the caller.
        unsafe { (self.decode_at)(bytes, value) }
    }

    /// Encodes the value `value` points to for a channel.
    ///
    /// # Safety
    ///
    /// `value` points to a live value of this representation's type (`type_id`) that nothing
    /// writes during the call.
    pub unsafe fn encode_at(&self, value: *const (), out: &mut Vec<u8>) -> Result<(), CodecError> {
        // SAFETY: passed on from the caller.
        unsafe { (self.encode_at)(value, out) }
    }

    /// Puts the default value into `blackboard` (replacing any value there).
    pub fn insert_default(&self, blackboard: &mut Blackboard) {
        (self.insert_default)(blackboard)
    }

    /// Decodes channel bytes into `blackboard`.
    pub fn decode_into(&self, bytes: &[u8], blackboard: &mut Blackboard) -> Result<(), CodecError> {
        (self.decode_into)(bytes, blackboard)
    }

    /// Encodes the value in `blackboard` for a channel.
    pub fn encode_from(
        &self,
        blackboard: &Blackboard,
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        (self.encode_from)(blackboard, out)
    }
}

/// All representations a program knows, by name.
#[derive(Debug, Clone, Default)]
pub struct RepresentationRegistry {
    by_name: BTreeMap<&'static str, RepresentationInfo>,
}

impl RepresentationRegistry {
    /// A registry of these representations.
    pub fn new(infos: impl IntoIterator<Item = RepresentationInfo>) -> RepresentationRegistry {
        RepresentationRegistry {
            by_name: infos.into_iter().map(|info| (info.name, info)).collect(),
        }
    }

    /// Adds `T`.
    pub fn with<T: Representation>(mut self) -> Self {
        self.by_name.insert(T::NAME, RepresentationInfo::of::<T>());
        self
    }

    /// The representation named `name`.
    pub fn get(&self, name: &str) -> Option<&RepresentationInfo> {
        self.by_name.get(name)
    }

    /// All names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.by_name.keys().copied()
    }
}
