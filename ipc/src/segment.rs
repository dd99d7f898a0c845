//! Sealed `memfd` segments: creation, opening from a descriptor, the header check, and the
//! layout of the triple-buffer regions inside.
//!
//! ```text
//! offset 0     Header (128 bytes): magic, layout version, kind, schema hash, slot capacity,
//!              region count, total size, name
//! offset 128   region 0: control line (64 bytes: latest, published), what a
//!                        polling reader reads; wake-up line (64 bytes: writer owner, futex
//!                        word, watched-until lease), which the writer changes with a locked
//!                        instruction on every publish and which readers touch only to sleep;
//!                        wake-word line (64 bytes: the wake word of the process whose
//!                        health-board slot this region is, then the table of consumers to
//!                        wake after each publish of this channel; see `crate::wake`)
//!                        3 × (slot header 64 bytes: seq, count, len; data rounded up to 64 bytes)
//!              region 1 … (the health board has one region per process)
//! ```
//!
//! A segment is a `memfd` sealed against growing and shrinking, so no holder can truncate it
//! under another (which would be a `SIGBUS`). It never has a name in the file system: nothing
//! appears in `/dev/shm`, and the kernel frees it with its last descriptor or mapping.

use crate::protocol::{Slot, Triple};
use crate::Error;
use rustix::fs::{MemfdFlags, SealFlags};
use rustix::mm::{MapFlags, ProtFlags};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicU32, AtomicU64};

/// First word of every Cortex segment: `b"CORTEXSM"`.
pub const MAGIC: u64 = u64::from_le_bytes(*b"CORTEXSM");
/// Version of the layout described in this module; bumped on any change to it.
pub const LAYOUT_VERSION: u32 = 4;
/// Size of the header at the start of the segment.
pub const HEADER_SIZE: usize = 128;
/// Largest slot capacity a segment may declare (256 MiB).
pub const MAX_SLOT_CAPACITY: usize = 256 << 20;
/// Largest number of regions (health-board slots) in one segment.
pub const MAX_REGIONS: usize = 1024;
/// Bytes of the name kept in the header.
pub const NAME_BYTES: usize = 64;

const LINE: usize = 64;
const SLOT_HEADER: usize = LINE;
/// The control line, the wake-up line and the wake-word line. The first two are apart so that
/// the writer's locked update of the futex word does not take the control line away from a
/// reader that has just been sent it (docs/performance.md, "One wake-up and small-message
/// latency"). The third holds a process's own wake word (used in health-board regions) and a
/// channel's consumer table (used in channel regions): it is written only when a consumer goes
/// to sleep or registers, so the writer reading it on every publish finds it in its cache.
const CONTROL: usize = 3 * LINE;
/// Entries of a channel's consumer table (the rest of the wake-word line after the word).
pub const WAKE_TABLE: usize = 7;

/// What a segment carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Kind {
    /// One triple buffer (a channel).
    TripleBuffer = 1,
    /// The health board: one small triple buffer per process.
    HealthBoard = 2,
}

impl Kind {
    fn from_raw(raw: u32) -> Option<Kind> {
        match raw {
            1 => Some(Kind::TripleBuffer),
            2 => Some(Kind::HealthBoard),
            _ => None,
        }
    }
    /// A name for messages.
    pub fn name(self) -> &'static str {
        match self {
            Kind::TripleBuffer => "triple-buffer",
            Kind::HealthBoard => "health-board",
        }
    }
}

/// The segment header, as laid out at offset 0.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Header {
    /// [`MAGIC`].
    pub magic: u64,
    /// [`LAYOUT_VERSION`].
    pub layout_version: u32,
    /// A [`Kind`] as `u32`.
    pub kind: u32,
    /// Hash of the schema of the values carried (0: raw bytes).
    pub schema_hash: u64,
    /// Capacity of each slot in bytes.
    pub slot_capacity: u64,
    /// Number of triple-buffer regions.
    pub regions: u64,
    /// Size of the whole segment in bytes.
    pub total_size: u64,
    /// The name given at creation, NUL-padded.
    pub name: [u8; NAME_BYTES],
}

const _: () = assert!(std::mem::size_of::<Header>() == 112 && 112 <= HEADER_SIZE);

/// Rounds `bytes` up to whole cache lines.
fn round_to_line(bytes: usize) -> usize {
    bytes.div_ceil(LINE) * LINE
}

/// Bytes of one region (control block and three slots) for a slot capacity.
pub fn region_size(slot_capacity: usize) -> usize {
    CONTROL + 3 * (SLOT_HEADER + round_to_line(slot_capacity))
}

/// Total segment size for `regions` regions of `slot_capacity`.
pub fn segment_size(slot_capacity: usize, regions: usize) -> usize {
    HEADER_SIZE + regions * region_size(slot_capacity)
}

/// A mapped, sealed shared-memory segment.
#[derive(Debug)]
pub struct Segment {
    fd: OwnedFd,
    base: *mut u8,
    size: usize,
    header: Header,
    identity: u64,
}

// SAFETY: the mapping is only accessed through atomics (regions) or read as an immutable
// header copied at open time; the raw pointer itself is just an address valid for `size` bytes
// as long as the `Segment` lives, from any thread.
unsafe impl Send for Segment {}
// SAFETY: as above; `&Segment` hands out only `&Atomic*` references into the mapping.
unsafe impl Sync for Segment {}

impl Segment {
    /// Creates a new segment named `name` (the name is for people: `/proc/PID/fd` shows it).
    pub fn create(
        name: &str,
        kind: Kind,
        schema_hash: u64,
        slot_capacity: usize,
        regions: usize,
    ) -> Result<Segment, Error> {
        if slot_capacity == 0 || slot_capacity > MAX_SLOT_CAPACITY {
            return Err(Error::InvalidCapacity {
                name: name.to_owned(),
                requested: slot_capacity,
                why: format!("must be between 1 and {MAX_SLOT_CAPACITY} bytes"),
            });
        }
        if regions == 0 || regions > MAX_REGIONS {
            return Err(Error::InvalidCapacity {
                name: name.to_owned(),
                requested: regions,
                why: format!("a segment holds between 1 and {MAX_REGIONS} regions"),
            });
        }
        let size = segment_size(slot_capacity, regions);
        let io = |what: &'static str| {
            let name = name.to_owned();
            move |source: rustix::io::Errno| Error::Io {
                name,
                what,
                source: source.into(),
            }
        };
        let fd = rustix::fs::memfd_create(
            format!("cortex:{name}"),
            MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING,
        )
        .map_err(io("memfd_create"))?;
        rustix::fs::ftruncate(&fd, size as u64).map_err(io("ftruncate"))?;
        rustix::fs::fcntl_add_seals(&fd, SealFlags::GROW | SealFlags::SHRINK | SealFlags::SEAL)
            .map_err(io("sealing"))?;
        let mut name_bytes = [0u8; NAME_BYTES];
        let truncated = &name.as_bytes()[..name.len().min(NAME_BYTES - 1)];
        name_bytes[..truncated.len()].copy_from_slice(truncated);
        let header = Header {
            magic: MAGIC,
            layout_version: LAYOUT_VERSION,
            kind: kind as u32,
            schema_hash,
            slot_capacity: slot_capacity as u64,
            regions: regions as u64,
            total_size: size as u64,
            name: name_bytes,
        };
        let base = map(&fd, size).map_err(io("mmap"))?;
        // SAFETY: the mapping is `size` bytes, page aligned, freshly created and not yet shared
        // with anyone: nobody else can access it while the header is written.
        unsafe { base.cast::<Header>().write(header) };
        let identity = rustix::fs::fstat(&fd).map_err(io("fstat"))?.st_ino as u64;
        Ok(Segment {
            fd,
            base,
            size,
            header,
            identity,
        })
    }

    /// Opens a segment from a descriptor (inherited or received) and checks its header.
    /// `expected_schema`, when given, must match the schema hash in the header.
    pub fn open(fd: OwnedFd, kind: Kind, expected_schema: Option<u64>) -> Result<Segment, Error> {
        let io = |what: &'static str| {
            move |source: rustix::io::Errno| Error::Io {
                name: "<descriptor>".to_owned(),
                what,
                source: source.into(),
            }
        };
        let stat = rustix::fs::fstat(&fd).map_err(io("fstat"))?;
        let found = stat.st_size as u64;
        if found < HEADER_SIZE as u64 {
            return Err(Error::TooSmall {
                found,
                expected: HEADER_SIZE as u64,
            });
        }
        let mut header = Header::zeroed_header();
        let read = rustix::io::pread(&fd, bytemuck::bytes_of_mut(&mut header), 0)
            .map_err(io("reading the header"))?;
        if read != std::mem::size_of::<Header>() {
            return Err(Error::TooSmall {
                found,
                expected: HEADER_SIZE as u64,
            });
        }
        let name = header.name();
        if header.magic != MAGIC {
            return Err(Error::BadMagic {
                expected: MAGIC,
                found: header.magic,
            });
        }
        if header.layout_version != LAYOUT_VERSION {
            return Err(Error::VersionMismatch {
                name,
                expected: LAYOUT_VERSION,
                found: header.layout_version,
            });
        }
        match Kind::from_raw(header.kind) {
            Some(found_kind) if found_kind == kind => {}
            other => {
                return Err(Error::KindMismatch {
                    name,
                    expected: kind.name(),
                    found: other.map_or_else(
                        || format!("unknown ({})", header.kind),
                        |k| k.name().to_owned(),
                    ),
                })
            }
        }
        if let Some(expected) = expected_schema {
            if header.schema_hash != expected {
                return Err(Error::SchemaMismatch {
                    name,
                    expected,
                    found: header.schema_hash,
                });
            }
        }
        let capacity = header.slot_capacity as usize;
        let regions = header.regions as usize;
        if capacity == 0 || capacity > MAX_SLOT_CAPACITY || regions == 0 || regions > MAX_REGIONS {
            return Err(Error::Corrupt {
                name,
                what: format!("header declares {regions} regions of slot capacity {capacity}"),
            });
        }
        let expected = segment_size(capacity, regions) as u64;
        if header.total_size != expected || found != expected {
            return Err(Error::SizeMismatch {
                name,
                expected,
                found,
                declared: header.total_size,
            });
        }
        let seals = rustix::fs::fcntl_get_seals(&fd).map_err(io("reading seals"))?;
        if !seals.contains(SealFlags::GROW | SealFlags::SHRINK) {
            return Err(Error::NotSealed { name });
        }
        let base = map(&fd, expected as usize).map_err(io("mmap"))?;
        Ok(Segment {
            fd,
            base,
            size: expected as usize,
            header,
            identity: stat.st_ino as u64,
        })
    }

    /// The header as it was when the segment was created or opened.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The name given at creation.
    pub fn name(&self) -> String {
        self.header.name()
    }

    /// Capacity of each slot in bytes.
    pub fn slot_capacity(&self) -> usize {
        self.header.slot_capacity as usize
    }

    /// Number of regions.
    pub fn regions(&self) -> usize {
        self.header.regions as usize
    }

    /// The memfd's inode number: the same in every process that maps this segment, and unique
    /// among the segments alive on the machine. Names a health board in a consumer table.
    pub fn identity(&self) -> u64 {
        self.identity
    }

    /// Size of the mapping in bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The region at `index`.
    ///
    /// # Panics
    /// If `index` is not below [`Segment::regions`].
    pub fn region(&self, index: usize) -> Region<'_> {
        assert!(
            index < self.regions(),
            "region {index} of {}",
            self.regions()
        );
        let capacity = self.slot_capacity();
        let offset = HEADER_SIZE + index * region_size(capacity);
        let data_words = round_to_line(capacity) / 8;
        let word = |byte_offset: usize| -> &AtomicU64 {
            debug_assert!(byte_offset + 8 <= self.size && byte_offset % 8 == 0);
            // SAFETY: `byte_offset` is 8-aligned inside the mapping (the layout above), the
            // mapping lives as long as `&self`, and every access to it from any process goes
            // through atomics, so a shared `&AtomicU64` is sound; any bit pattern is a valid u64.
            unsafe { &*self.base.add(byte_offset).cast::<AtomicU64>() }
        };
        let words = |byte_offset: usize, count: usize| -> &[AtomicU64] {
            debug_assert!(byte_offset + count * 8 <= self.size);
            // SAFETY: as for `word`, for `count` consecutive words inside the mapping.
            unsafe {
                std::slice::from_raw_parts(self.base.add(byte_offset).cast::<AtomicU64>(), count)
            }
        };
        let slot = |i: usize| {
            let start = offset + CONTROL + i * (SLOT_HEADER + data_words * 8);
            Slot {
                seq: word(start),
                count: word(start + 8),
                len: word(start + 16),
                data: words(start + SLOT_HEADER, data_words),
            }
        };
        // SAFETY: the futex word is the first half of wake-up word 1, 4-aligned inside the
        // mapping, and only ever accessed as an `AtomicU32` (never as part of a u64).
        let futex = unsafe { &*self.base.add(offset + LINE + 8).cast::<AtomicU32>() };
        let wake = self.wake_word(index);
        Region {
            triple: Triple {
                latest: word(offset),
                published: word(offset + 8),
                slots: [slot(0), slot(1), slot(2)],
            },
            owner: word(offset + LINE),
            futex,
            watched_until: word(offset + LINE + 16),
            wake,
            consumers: words(offset + 2 * LINE + 8, WAKE_TABLE),
        }
    }
}

impl Segment {
    /// The wake word of region `index` (see [`Region::wake`]).
    ///
    /// # Panics
    /// If `index` is not below [`Segment::regions`].
    pub fn wake_word(&self, index: usize) -> &AtomicU32 {
        assert!(
            index < self.regions(),
            "region {index} of {}",
            self.regions()
        );
        let offset = HEADER_SIZE + index * region_size(self.slot_capacity()) + 2 * LINE;
        // SAFETY: the wake word is the first half of the wake-word line's first word, 4-aligned
        // inside the mapping (which lives as long as `&self`), and only ever accessed as an
        // `AtomicU32` (never as part of a u64).
        unsafe { &*self.base.add(offset).cast::<AtomicU32>() }
    }
}

impl Header {
    fn zeroed_header() -> Header {
        bytemuck::Zeroable::zeroed()
    }
    /// The name as text.
    pub fn name(&self) -> String {
        let end = self.name.iter().position(|&b| b == 0).unwrap_or(NAME_BYTES);
        String::from_utf8_lossy(&self.name[..end]).into_owned()
    }
}

/// One triple buffer inside a segment, with its writer-owner word and futex word.
#[derive(Debug, Clone, Copy)]
pub struct Region<'a> {
    /// The protocol state.
    pub triple: Triple<'a, AtomicU64>,
    /// The writer role: owner pid and start time packed (see `owner`).
    pub owner: &'a AtomicU64,
    /// Bumped on every publish; readers sleep on it.
    pub futex: &'a AtomicU32,
    /// `CLOCK_MONOTONIC` nanoseconds until which some reader has asked for values (0: never).
    /// Readers raise it with `fetch_max`; the writer only reads it.
    pub watched_until: &'a AtomicU64,
    /// The wake word of the process whose health-board slot this region is (unused in a
    /// channel): writers of its trigger channels bump it; it sleeps on it.
    pub wake: &'a AtomicU32,
    /// The consumers to wake after each publish of this channel (unused in a health board):
    /// 0 for a free entry, else a health board's identity and slot (see `crate::wake`).
    pub consumers: &'a [AtomicU64],
}

impl AsFd for Segment {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl Drop for Segment {
    fn drop(&mut self) {
        // SAFETY: `base` and `size` are exactly the mapping made in `map`; every reference into
        // it borrows `self`, so none outlives this call.
        let _ = unsafe { rustix::mm::munmap(self.base.cast(), self.size) };
    }
}

fn map(fd: &OwnedFd, size: usize) -> rustix::io::Result<*mut u8> {
    // SAFETY: a fresh shared mapping of a sealed memfd at an address the kernel chooses; it
    // aliases no Rust object. The size matches the (sealed) file size, so no access faults.
    let pointer = unsafe {
        rustix::mm::mmap(
            std::ptr::null_mut(),
            size,
            ProtFlags::READ | ProtFlags::WRITE,
            MapFlags::SHARED,
            fd,
            0,
        )?
    };
    Ok(pointer.cast())
}
