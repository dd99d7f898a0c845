//! [`TripleBuffer`]: a "latest value" channel in its own sealed segment, with one writer that
//! never waits, any number of readers that never block it, and futex wake-ups.
//!
//! ```
//! # fn main() -> Result<(), ipc::Error> {
//! let channel = ipc::TripleBuffer::create("SensorData", 1024)?;
//! let mut writer = channel.writer()?;
//! let mut reader = channel.reader();
//! let mut value = Vec::new();
//! assert_eq!(reader.read_latest(&mut value)?, None);
//! assert_eq!(writer.publish(b"hello")?, 1);
//! assert_eq!(reader.read_latest(&mut value)?, Some(1));
//! assert_eq!(value, b"hello");
//! # Ok(()) }
//! ```

use crate::protocol::{ReadOutcome, SlotView, WriterState};
use crate::segment::{Kind, Region, Segment};
use crate::{futex, owner, Error};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A triple buffer in a sealed shared-memory segment of its own.
#[derive(Debug)]
pub struct TripleBuffer {
    segment: Segment,
}

impl TripleBuffer {
    /// Creates a buffer for raw bytes (schema hash 0) of at most `slot_capacity` bytes.
    pub fn create(name: &str, slot_capacity: usize) -> Result<TripleBuffer, Error> {
        Self::create_with_schema(name, slot_capacity, 0)
    }

    /// Creates a buffer whose header records `schema_hash`, checked by
    /// [`TripleBuffer::from_fd_with_schema`].
    pub fn create_with_schema(
        name: &str,
        slot_capacity: usize,
        schema_hash: u64,
    ) -> Result<TripleBuffer, Error> {
        let segment = Segment::create(name, Kind::TripleBuffer, schema_hash, slot_capacity, 1)?;
        Ok(TripleBuffer { segment })
    }

    /// Opens a buffer from an inherited or received descriptor, accepting any schema.
    pub fn from_fd(fd: OwnedFd) -> Result<TripleBuffer, Error> {
        Ok(TripleBuffer {
            segment: Segment::open(fd, Kind::TripleBuffer, None)?,
        })
    }

    /// Opens a buffer from a descriptor and checks that it carries `schema_hash`.
    pub fn from_fd_with_schema(fd: OwnedFd, schema_hash: u64) -> Result<TripleBuffer, Error> {
        Ok(TripleBuffer {
            segment: Segment::open(fd, Kind::TripleBuffer, Some(schema_hash))?,
        })
    }

    /// The name given at creation.
    pub fn name(&self) -> String {
        self.segment.name()
    }

    /// Capacity of each slot in bytes.
    pub fn slot_capacity(&self) -> usize {
        self.segment.slot_capacity()
    }

    /// The schema hash in the header.
    pub fn schema_hash(&self) -> u64 {
        self.segment.header().schema_hash
    }

    /// Publish count of the newest value (0 before the first publish).
    pub fn published(&self) -> u64 {
        self.region().triple.published()
    }

    /// Whether a slot is in the middle of a write: a writer is publishing now, or one died
    /// while it was (the next writer repairs the slot).
    pub fn write_in_progress(&self) -> bool {
        self.region()
            .triple
            .slots
            .iter()
            .any(|slot| slot.seq.load(Ordering::Acquire) & 1 == 1)
    }

    /// The pid of the live process holding the writer role, if any.
    pub fn writer_pid(&self) -> Option<u32> {
        owner::holder(self.region().owner).map(|owner| owner.pid)
    }

    /// Takes the writer role. Refused while another live process (or another `Writer` in this
    /// one) holds it; a writer whose process died does not block. Repairs a slot that a dead
    /// writer left in the middle of a write.
    pub fn writer(&self) -> Result<Writer<'_>, Error> {
        Writer::claim(self.region(), || self.name(), self.slot_capacity())
    }

    /// A reader; any number may exist, in any process.
    pub fn reader(&self) -> Reader<'_> {
        Reader {
            region: self.region(),
            segment: &self.segment,
        }
    }

    fn region(&self) -> Region<'_> {
        self.segment.region(0)
    }
}

impl AsFd for TripleBuffer {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.segment.as_fd()
    }
}

/// The single writer of a triple buffer (or of one health-board slot).
#[derive(Debug)]
pub struct Writer<'a> {
    region: Region<'a>,
    state: WriterState,
    capacity: usize,
    name: String,
    repaired: usize,
    consumers: crate::wake::Consumers,
}

impl<'a> Writer<'a> {
    pub(crate) fn claim(
        region: Region<'a>,
        name: impl Fn() -> String,
        capacity: usize,
    ) -> Result<Writer<'a>, Error> {
        owner::acquire(region.owner).map_err(|holder| Error::WriterBusy {
            name: name(),
            pid: holder.pid,
        })?;
        match region.triple.claim() {
            Ok((state, repaired)) => Ok(Writer {
                region,
                state,
                capacity,
                name: name(),
                repaired,
                consumers: crate::wake::Consumers::default(),
            }),
            Err(what) => {
                owner::release(region.owner);
                Err(Error::Corrupt {
                    name: name(),
                    what: what.to_owned(),
                })
            }
        }
    }

    /// Publishes `bytes` and wakes waiting readers. Returns the publish count (1 for the first
    /// publish ever on this buffer, continuing across writer processes). Bytes larger than the
    /// slot capacity are refused and nothing is written.
    pub fn publish(&mut self, bytes: &[u8]) -> Result<u64, Error> {
        self.publish_parts(&[bytes])
    }

    /// Publishes the concatenation of `parts` (a plain-data header and a payload, say) without
    /// joining them first.
    pub fn publish_parts(&mut self, parts: &[&[u8]]) -> Result<u64, Error> {
        let len: usize = parts.iter().map(|part| part.len()).sum();
        if len > self.capacity {
            return Err(Error::TooLarge {
                name: self.name.clone(),
                len,
                capacity: self.capacity,
            });
        }
        let count = self.region.triple.publish(&mut self.state, parts);
        futex::notify(self.region.futex);
        self.consumers.wake(self.region.consumers);
        Ok(count)
    }

    /// Whether each publish fetches the next slot's first lines for writing ahead of time
    /// (default: yes). For the transport bench, which measures what it brings.
    #[doc(hidden)]
    pub fn set_prepare_next_slot(&mut self, on: bool) {
        self.state.set_prepare_next(on);
    }

    /// Number of slots this writer repaired when it took over (left odd by a dead writer).
    pub fn repaired_slots(&self) -> usize {
        self.repaired
    }

    /// The publish count the next publish will return.
    pub fn next_count(&self) -> u64 {
        self.state.next_count()
    }

    /// Whether some reader's lease ([`Reader::watch`]) still runs at `now_ns`
    /// (`CLOCK_MONOTONIC`, [`crate::health::monotonic_ns`]). A writer whose values only watchers
    /// read skips encoding and publishing while this is false ("published while subscribed").
    pub fn watched(&self, now_ns: u64) -> bool {
        self.region.watched_until.load(Ordering::Acquire) > now_ns
    }
}

impl Drop for Writer<'_> {
    fn drop(&mut self) {
        owner::release(self.region.owner);
    }
}

/// A reader of a triple buffer.
#[derive(Debug)]
pub struct Reader<'a> {
    region: Region<'a>,
    segment: &'a Segment,
}

impl<'a> Reader<'a> {
    pub(crate) fn for_region(region: Region<'a>, segment: &'a Segment) -> Reader<'a> {
        Reader { region, segment }
    }

    /// Copies the newest complete value into `out` and returns its publish count, or `None`
    /// before the first publish. Never blocks the writer.
    pub fn read_latest(&mut self, out: &mut Vec<u8>) -> Result<Option<u64>, Error> {
        match self.region.triple.read(out) {
            ReadOutcome::Empty => {
                out.clear();
                Ok(None)
            }
            ReadOutcome::Value(count, ()) => Ok(Some(count)),
            ReadOutcome::Corrupt(what) => Err(self.corrupt(what)),
        }
    }

    /// Runs `inspect` on the newest value where it lies in shared memory, without copying it,
    /// and returns the publish count and the result once the value is known not to have changed
    /// during the call (otherwise `inspect` runs again on the newer value). `inspect` sees data
    /// that may be torn while it runs; it must not panic on it, and its result is only returned
    /// when validated.
    pub fn read_in_place<R>(
        &mut self,
        inspect: impl FnMut(&SlotView<'a, AtomicU64>) -> R,
    ) -> Result<Option<(u64, R)>, Error> {
        match self.region.triple.read_with(inspect) {
            ReadOutcome::Empty => Ok(None),
            ReadOutcome::Value(count, result) => Ok(Some((count, result))),
            ReadOutcome::Corrupt(what) => Err(self.corrupt(what)),
        }
    }

    /// Publish count of the newest value (0 before the first publish).
    pub fn published(&self) -> u64 {
        self.region.triple.published()
    }

    /// Asks the writer for values until `until_ns` (`CLOCK_MONOTONIC`,
    /// [`crate::health::monotonic_ns`]): extends the channel's "watched until" lease, never
    /// shortens it (a `fetch_max`, so watchers cannot cut each other's lease short). A watcher
    /// renews its lease before it runs out; one that dies simply stops renewing. Returns the
    /// lease now in force.
    pub fn watch(&self, until_ns: u64) -> u64 {
        self.region
            .watched_until
            .fetch_max(until_ns, Ordering::AcqRel)
            .max(until_ns)
    }

    /// The channel's "watched until" lease (0 if nobody ever watched).
    pub fn watched_until(&self) -> u64 {
        self.region.watched_until.load(Ordering::Acquire)
    }

    /// Waits until a value newer than publish count `than` exists and returns its count, or
    /// `None` after `timeout`. Sleeps on the segment's futex; the writer wakes it.
    pub fn wait_newer(&mut self, than: u64, timeout: Duration) -> Result<Option<u64>, Error> {
        futex::wait_newer(
            self.region.futex,
            || self.region.triple.published(),
            than,
            timeout,
        )
        .map_err(|source| Error::Io {
            name: self.segment.name(),
            what: "futex wait",
            source,
        })
    }

    /// This channel's consumer table as it is now: how many entries name `consumer`, and how
    /// many are in use. For the tests.
    #[doc(hidden)]
    pub fn consumer_entries(&self, consumer: &crate::wait::Consumer<'_>) -> (usize, usize) {
        let entries = self
            .region
            .consumers
            .iter()
            .map(|e| e.load(Ordering::SeqCst));
        let used = entries.clone().filter(|&e| e != 0).count();
        (entries.filter(|&e| Some(e) == consumer.entry).count(), used)
    }

    /// This channel's consumer table (see `crate::wake`).
    pub(crate) fn consumer_table(&self) -> &'a [AtomicU64] {
        self.region.consumers
    }

    /// The futex word the writer bumps on every publish.
    pub(crate) fn futex_word(&self) -> &'a std::sync::atomic::AtomicU32 {
        self.region.futex
    }

    /// An I/O error on this reader's segment.
    pub(crate) fn io(&self, what: &'static str, source: std::io::Error) -> Error {
        Error::Io {
            name: self.segment.name(),
            what,
            source,
        }
    }

    fn corrupt(&self, what: &str) -> Error {
        Error::Corrupt {
            name: self.segment.name(),
            what: what.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::health::monotonic_ns;

    #[test]
    fn a_lease_is_extended_never_shortened_and_runs_out() {
        let buffer = TripleBuffer::create("watched", 64).unwrap();
        // A second mapping of the same segment, as another process would have.
        let other = TripleBuffer::from_fd(crate::fd::duplicate(buffer.as_fd()).unwrap()).unwrap();
        let writer = buffer.writer().unwrap();
        let now = monotonic_ns();
        assert!(!writer.watched(now), "nobody ever watched");
        assert_eq!(other.reader().watched_until(), 0);

        let long = now + 60_000_000_000;
        assert_eq!(other.reader().watch(long), long);
        assert!(writer.watched(now));
        // A second watcher with a shorter lease does not cut the first one short.
        let short = now + 1_000;
        assert_eq!(buffer.reader().watch(short), long);
        assert_eq!(buffer.reader().watched_until(), long);
        assert!(writer.watched(now + 2_000));
        // The lease runs out at its end.
        assert!(!writer.watched(long));
        assert!(!writer.watched(long + 1));
    }
}
