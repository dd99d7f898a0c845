//! Shared-memory transport for Cortex.
//!
//! Everything the processes of Cortex share moves through this crate: sealed `memfd`
//! [`segment`]s, the seqlock-guarded [`TripleBuffer`] ("the newest complete value", one writer
//! that never waits, readers that never block it), futex wake-ups, typed [`channel`]s, and the
//! [`health`] board. It knows nothing of robots.
//!
//! ```text
//!  writer process              segment (memfd, sealed)                reader processes
//!  publish(bytes) ──► [slot a][slot b][slot c] latest=b  ──► read_latest(&mut out)
//!                     writes the older non-latest slot       copy, check seq, retry if torn
//! ```
//!
//! What it is not: a queue. A reader sees the newest value, never a history; values it was too
//! slow to see are gone. Nothing in it can be held by a process: a writer killed in the middle of
//! a publish blocks nobody, and its slot is repaired by the next writer.
//!
//! The protocol itself lives in [`protocol`], generic over the atomic word type so that the
//! model checker (`loom`) runs the same code as the shared memory.
//!
//! A process woken by several channels sleeps on all of them at once with [`wait_any`] /
//! [`wait_any_as`] (`futex_waitv`; on kernels without it, on the process's own wake word in its
//! health-board slot, which each trigger's writer bumps: see [`wait`]): whichever writer
//! publishes first wakes it, and a writer nobody sleeps on makes no system call.
//!
//! Small values cross between cores in few transfers because of two layout choices: the words a
//! polling reader reads (`latest`, `published`) have a cache line of their own, apart from the
//! futex word the writer updates with a locked instruction on every publish; and each publish
//! ends by fetching the next target slot's first lines for writing (`prefetchw`), so that the
//! next publish finds them here instead of in the reader's cache (docs/performance.md, "One
//! wake-up and small-message latency").

pub mod channel;
pub mod fd;
mod futex;
pub mod health;
pub mod liveness;
mod owner;
pub mod protocol;
pub mod sched;
pub mod segment;
pub mod standby;
mod triple_buffer;
pub mod wait;
mod wake;

pub use channel::{Channel, PodChannel, Publisher, Subscriber};
pub use health::{HealthBoard, HealthRecord, ModuleTiming};
pub use owner::set_predecessor;
pub use triple_buffer::{Reader, TripleBuffer, Writer};
pub use wait::{wait_any, wait_any_as, Consumer, Wake};

/// Everything that can go wrong in this crate, with the segment and the detail a person needs.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A system call on a segment failed.
    #[error("segment {name:?}: {what} failed: {source}")]
    Io {
        /// Segment name.
        name: String,
        /// The operation.
        what: &'static str,
        /// The system error.
        source: std::io::Error,
    },
    /// A capacity or region count out of range at creation.
    #[error("segment {name:?}: {requested} is invalid: {why}")]
    InvalidCapacity {
        /// Segment name.
        name: String,
        /// The requested number.
        requested: usize,
        /// The allowed range.
        why: String,
    },
    /// The descriptor's file is smaller than a header.
    #[error("segment is {found} bytes, smaller than the {expected}-byte Cortex segment header")]
    TooSmall {
        /// Bytes found.
        found: u64,
        /// Bytes needed.
        expected: u64,
    },
    /// Not a Cortex segment.
    #[error("segment has magic {found:#018x}, expected {expected:#018x} (not a Cortex segment)")]
    BadMagic {
        /// The magic of this build.
        expected: u64,
        /// The magic found.
        found: u64,
    },
    /// Written by a build with another layout.
    #[error("segment {name:?} has layout version {found}, this build reads version {expected}")]
    VersionMismatch {
        /// Segment name.
        name: String,
        /// Version of this build.
        expected: u32,
        /// Version found.
        found: u32,
    },
    /// A triple buffer where a health board was expected, or the reverse.
    #[error("segment {name:?} is a {found} segment, expected a {expected} segment")]
    KindMismatch {
        /// Segment name.
        name: String,
        /// Kind expected.
        expected: &'static str,
        /// Kind found.
        found: String,
    },
    /// The segment carries another type.
    #[error("segment {name:?} carries schema {found:#018x}, expected {expected:#018x}")]
    SchemaMismatch {
        /// Segment name.
        name: String,
        /// Schema hash expected.
        expected: u64,
        /// Schema hash found.
        found: u64,
    },
    /// The file size does not match the layout the header declares.
    #[error(
        "segment {name:?} is {found} bytes, its header declares {declared} and its layout needs {expected}"
    )]
    SizeMismatch {
        /// Segment name.
        name: String,
        /// Size the layout needs.
        expected: u64,
        /// Size of the file.
        found: u64,
        /// Size in the header.
        declared: u64,
    },
    /// The memfd can still grow or shrink.
    #[error("segment {name:?} is not sealed against growing and shrinking")]
    NotSealed {
        /// Segment name.
        name: String,
    },
    /// A value larger than a slot; nothing was written.
    #[error("segment {name:?}: a value of {len} bytes does not fit its {capacity}-byte slots")]
    TooLarge {
        /// Segment name.
        name: String,
        /// Bytes offered.
        len: usize,
        /// Slot capacity.
        capacity: usize,
    },
    /// Another live process holds the writer role.
    #[error("segment {name:?}: the writer role is held by live process {pid}")]
    WriterBusy {
        /// Segment name.
        name: String,
        /// Its pid.
        pid: u32,
    },
    /// Shared words hold values no writer of this protocol writes.
    #[error("segment {name:?} is corrupt: {what}")]
    Corrupt {
        /// Segment name.
        name: String,
        /// What is wrong.
        what: String,
    },
    /// Passing or inheriting descriptors failed.
    #[error("passing descriptors: {what}")]
    FdPassing {
        /// What went wrong.
        what: String,
    },
    /// A value could not be encoded.
    #[error("encoding a {schema}: {source}")]
    Encode {
        /// The type.
        schema: &'static str,
        /// The encoder's error.
        source: rmp_serde::encode::Error,
    },
    /// Bytes could not be decoded as the channel's type.
    #[error("decoding a {schema}: {source}")]
    Decode {
        /// The type.
        schema: &'static str,
        /// The decoder's error.
        source: rmp_serde::decode::Error,
    },
}
