//! Liveness locks: how the supervisor learns that an active process died within microseconds
//! of its death, before the kernel has torn the process down.
//!
//! ```text
//!  active process (tick thread)            liveness board (memfd)        supervisor thread
//!  hold(slot): robust pthread mutex ──────► slot k: [owner tid|flags]
//!  … ticks …                                                  ◄── wait_while_held(k, tid):
//!                                                                 FUTEX_WAITERS, FUTEX_WAIT
//!  SIGKILL ─► do_exit ─► exit_mm_release:                     ──► woken: OWNER_DIED
//!             the kernel walks the thread's                       (activate the standby)
//!             robust list, marks the word
//!             OWNER_DIED, FUTEX_WAKE
//!             … then unmaps, closes files …
//!             pidfd readable (milliseconds later for a process with many shared mappings)
//! ```
//!
//! A process's pidfd becomes readable only after the kernel has unmapped its memory and closed
//! its files; for a process that maps many shared segments this takes milliseconds. The robust
//! futex list (the kernel ABI behind `PTHREAD_MUTEX_ROBUST`) is walked at the very start of a
//! dying thread's teardown, before any of that. Each active process therefore holds a robust,
//! process-shared mutex in its slot of this board from the thread that ticks; the supervisor
//! sleeps on the mutex's futex word (it never takes the mutex) and wakes the moment the kernel
//! marks the owner dead. The tick thread is the one that writes the process's channels, and it
//! can never run again once the kernel has marked its word.
//!
//! An orderly end unlocks the mutex ([`Held`]'s `Drop`), so a watcher sees the word go free
//! without `OWNER_DIED` and leaves the verdict to the exit status. The next holder of a slot
//! whose owner died makes the mutex consistent again.
//!
//! The owner's thread id must be in the first word of a `pthread_mutex_t` (glibc: `__lock`);
//! [`LivenessBoard::create`] checks this and fails with [`LivenessError::Layout`] otherwise, so
//! the supervisor falls back to the pidfd alone on a C library that lays the mutex out
//! differently.

use rustix::fs::{MemfdFlags, SealFlags};
use rustix::mm::{MapFlags, ProtFlags};
use std::marker::PhantomData;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

/// First word of a liveness board: `b"CORTEXLV"`.
const MAGIC: u64 = u64::from_le_bytes(*b"CORTEXLV");
/// Bytes of the header and of each slot (one cache line).
const LINE: usize = 64;
/// Largest number of slots.
pub const MAX_SLOTS: usize = 1024;

/// The kernel's robust futex word (`linux/futex.h`): the owner's thread id …
const TID_MASK: u32 = 0x3fff_ffff;
/// … set by the kernel when the owner died holding it …
const OWNER_DIED: u32 = 0x4000_0000;
/// … and set by a sleeper, so that the kernel wakes it.
const WAITERS: u32 = 0x8000_0000;

const _: () = assert!(
    std::mem::size_of::<libc::pthread_mutex_t>() <= LINE
        && std::mem::align_of::<libc::pthread_mutex_t>() <= 8
);

/// What went wrong with a liveness board.
#[derive(Debug, thiserror::Error)]
pub enum LivenessError {
    /// A system call failed.
    #[error("liveness board: {what} failed: {source}")]
    Io {
        /// The operation.
        what: &'static str,
        /// The error.
        source: std::io::Error,
    },
    /// The descriptor is not a liveness board.
    #[error("liveness board: not a liveness board ({why})")]
    Invalid {
        /// What did not match.
        why: String,
    },
    /// A slot the board does not have.
    #[error("liveness board: no slot {slot} (the board has {slots})")]
    NoSlot {
        /// The slot asked for.
        slot: usize,
        /// Slots on the board.
        slots: usize,
    },
    /// A `pthread_mutex_*` call failed.
    #[error("liveness board: slot {slot}: pthread_mutex_{what} failed: {source}")]
    Mutex {
        /// The slot.
        slot: usize,
        /// The call.
        what: &'static str,
        /// The error it returned.
        source: std::io::Error,
    },
    /// Another live thread holds the slot.
    #[error("liveness board: slot {slot} is held by thread {tid}")]
    Busy {
        /// The slot.
        slot: usize,
        /// Its holder.
        tid: u32,
    },
    /// This C library does not keep a robust mutex's owner in its first word.
    #[error(
        "liveness board: a robust mutex held by thread {expected} reads {found:#x} in its first \
         word; this C library lays mutexes out differently (deaths are noticed through the pidfd \
         only)"
    )]
    Layout {
        /// The thread that held it.
        expected: u32,
        /// The word found.
        found: u32,
    },
}

/// Who holds a slot, read from its futex word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holder {
    /// Nobody (never held, or released in order).
    Free,
    /// The thread with this id.
    Thread(u32),
    /// The last holder died holding it, and nobody has taken it since.
    OwnerDied,
}

impl Holder {
    fn of(word: u32) -> Holder {
        if word & OWNER_DIED != 0 {
            Holder::OwnerDied
        } else if word & TID_MASK == 0 {
            Holder::Free
        } else {
            Holder::Thread(word & TID_MASK)
        }
    }
}

/// A shared board of robust mutexes, one per process slot.
#[derive(Debug)]
pub struct LivenessBoard {
    fd: OwnedFd,
    base: NonNull<u8>,
    len: usize,
    slots: usize,
}

// SAFETY: the mapping is shared memory touched only through atomics and pthread calls that are
// made for concurrent use; the pointer is valid for the board's whole life.
unsafe impl Send for LivenessBoard {}
// SAFETY: as above.
unsafe impl Sync for LivenessBoard {}

fn io(what: &'static str) -> impl FnOnce(rustix::io::Errno) -> LivenessError {
    move |source| LivenessError::Io {
        what,
        source: source.into(),
    }
}

fn pthread(slot: usize, what: &'static str, code: i32) -> Result<(), LivenessError> {
    if code == 0 {
        Ok(())
    } else {
        Err(LivenessError::Mutex {
            slot,
            what,
            source: std::io::Error::from_raw_os_error(code),
        })
    }
}

/// The calling thread's id.
fn gettid() -> u32 {
    rustix::thread::gettid().as_raw_nonzero().get() as u32
}

impl LivenessBoard {
    /// A new board with `slots` robust, process-shared mutexes, none held. Checks that the C
    /// library keeps the owner's thread id in the mutex's first word.
    pub fn create(slots: usize) -> Result<LivenessBoard, LivenessError> {
        if slots == 0 || slots > MAX_SLOTS {
            return Err(LivenessError::Invalid {
                why: format!("{slots} slots; a board has between 1 and {MAX_SLOTS}"),
            });
        }
        let fd = rustix::fs::memfd_create(
            "cortex:liveness",
            MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING,
        )
        .map_err(io("memfd_create"))?;
        let len = LINE * (1 + slots);
        rustix::fs::ftruncate(&fd, len as u64).map_err(io("ftruncate"))?;
        rustix::fs::fcntl_add_seals(&fd, SealFlags::GROW | SealFlags::SHRINK | SealFlags::SEAL)
            .map_err(io("sealing"))?;
        let board = LivenessBoard::map(fd, len, slots)?;
        board.header()[1].store(slots as u64, Ordering::SeqCst);
        for slot in 0..slots {
            board.init_mutex(slot)?;
        }
        board.header()[0].store(MAGIC, Ordering::SeqCst);
        board.check_layout()?;
        Ok(board)
    }

    /// Maps a board created by [`LivenessBoard::create`] in another process.
    pub fn from_fd(fd: OwnedFd) -> Result<LivenessBoard, LivenessError> {
        let stat = rustix::fs::fstat(&fd).map_err(io("fstat"))?;
        let len = usize::try_from(stat.st_size).unwrap_or(0);
        if len < LINE || len % LINE != 0 || len > LINE * (1 + MAX_SLOTS) {
            return Err(LivenessError::Invalid {
                why: format!("{len} bytes"),
            });
        }
        let slots = len / LINE - 1;
        let board = LivenessBoard::map(fd, len, slots)?;
        let (magic, declared) = (
            board.header()[0].load(Ordering::SeqCst),
            board.header()[1].load(Ordering::SeqCst),
        );
        if magic != MAGIC || declared != slots as u64 {
            return Err(LivenessError::Invalid {
                why: format!("magic {magic:#x}, {declared} slots declared in {len} bytes"),
            });
        }
        Ok(board)
    }

    fn map(fd: OwnedFd, len: usize, slots: usize) -> Result<LivenessBoard, LivenessError> {
        // SAFETY: a fresh shared mapping of the whole file; nothing else is at the address the
        // kernel picks, and it stays mapped until `Drop`.
        let base = unsafe {
            rustix::mm::mmap(
                std::ptr::null_mut(),
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
                &fd,
                0,
            )
        }
        .map_err(io("mmap"))?;
        let base = NonNull::new(base.cast::<u8>()).ok_or_else(|| LivenessError::Invalid {
            why: "mapped at address 0".to_owned(),
        })?;
        Ok(LivenessBoard {
            fd,
            base,
            len,
            slots,
        })
    }

    fn header(&self) -> &[AtomicU64; 2] {
        // SAFETY: the header line is at the start of the mapping, 64-aligned (page-aligned), and
        // its first two words are only ever accessed as atomics.
        unsafe { &*self.base.as_ptr().cast::<[AtomicU64; 2]>() }
    }

    fn mutex(&self, slot: usize) -> Result<*mut libc::pthread_mutex_t, LivenessError> {
        if slot >= self.slots {
            return Err(LivenessError::NoSlot {
                slot,
                slots: self.slots,
            });
        }
        // SAFETY: slot `slot` is inside the mapping (checked above), 64-aligned.
        Ok(unsafe { self.base.as_ptr().add(LINE * (1 + slot)) }.cast())
    }

    /// The futex word of slot `slot`: the first word of its mutex.
    fn word(&self, slot: usize) -> Result<&AtomicU32, LivenessError> {
        let mutex = self.mutex(slot)?;
        // SAFETY: the first 4 bytes of the slot, 4-aligned, inside the mapping that lives as
        // long as `&self`; the C library and the kernel change it only with atomic operations.
        Ok(unsafe { &*mutex.cast::<AtomicU32>() })
    }

    fn init_mutex(&self, slot: usize) -> Result<(), LivenessError> {
        let mutex = self.mutex(slot)?;
        // SAFETY: the attribute object is initialised before use and destroyed after; the mutex
        // is in shared memory nobody else has mapped yet.
        unsafe {
            let mut attr: libc::pthread_mutexattr_t = std::mem::zeroed();
            pthread(slot, "attr_init", libc::pthread_mutexattr_init(&mut attr))?;
            let result = pthread(
                slot,
                "attr_setrobust",
                libc::pthread_mutexattr_setrobust(&mut attr, libc::PTHREAD_MUTEX_ROBUST),
            )
            .and_then(|()| {
                pthread(
                    slot,
                    "attr_setpshared",
                    libc::pthread_mutexattr_setpshared(&mut attr, libc::PTHREAD_PROCESS_SHARED),
                )
            })
            .and_then(|()| pthread(slot, "init", libc::pthread_mutex_init(mutex, &attr)));
            libc::pthread_mutexattr_destroy(&mut attr);
            result
        }
    }

    fn check_layout(&self) -> Result<(), LivenessError> {
        let held = self.hold(0)?;
        let found = self.word(0)?.load(Ordering::SeqCst);
        drop(held);
        let expected = gettid();
        if found & TID_MASK != expected {
            return Err(LivenessError::Layout { expected, found });
        }
        Ok(())
    }

    /// The board's descriptor, to hand to a child.
    pub fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// Slots on the board.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Takes slot `slot` for the calling thread, never waiting: a slot whose holder died is made
    /// consistent and taken; one a live thread holds is [`LivenessError::Busy`]. The slot is
    /// released when the returned guard is dropped (by the same thread: the guard cannot move
    /// to another one).
    pub fn hold(&self, slot: usize) -> Result<Held<'_>, LivenessError> {
        let mutex = self.mutex(slot)?;
        // SAFETY: an initialised process-shared mutex inside the mapping.
        match unsafe { libc::pthread_mutex_trylock(mutex) } {
            0 => {}
            libc::EOWNERDEAD => {
                // SAFETY: this thread holds the mutex (EOWNERDEAD hands it over).
                pthread(slot, "consistent", unsafe {
                    libc::pthread_mutex_consistent(mutex)
                })?;
            }
            libc::EBUSY => {
                let word = self.word(slot)?.load(Ordering::SeqCst);
                return Err(LivenessError::Busy {
                    slot,
                    tid: word & TID_MASK,
                });
            }
            code => pthread(slot, "trylock", code)?,
        }
        Ok(Held {
            mutex,
            _board: PhantomData,
        })
    }

    /// Who holds slot `slot` now.
    pub fn holder(&self, slot: usize) -> Result<Holder, LivenessError> {
        Ok(Holder::of(self.word(slot)?.load(Ordering::SeqCst)))
    }

    /// Sleeps while thread `tid` holds slot `slot`, at most `timeout`; returns the holder then:
    /// [`Holder::OwnerDied`] the moment the kernel marks `tid` dead, [`Holder::Free`] after an
    /// orderly release, `Thread(tid)` when the time is up. Never takes the mutex.
    pub fn wait_while_held(
        &self,
        slot: usize,
        tid: u32,
        timeout: Duration,
    ) -> Result<Holder, LivenessError> {
        let word = self.word(slot)?;
        let deadline_ns = crate::health::monotonic_ns()
            .saturating_add(u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX));
        loop {
            let value = word.load(Ordering::SeqCst);
            if value & OWNER_DIED != 0 || value & TID_MASK != tid {
                return Ok(Holder::of(value));
            }
            // The kernel wakes a sleeper on the owner's death only if the waiters bit is set
            // (and the C library on an orderly unlock likewise).
            let expected = value | WAITERS;
            if value & WAITERS == 0
                && word
                    .compare_exchange(value, expected, Ordering::SeqCst, Ordering::SeqCst)
                    .is_err()
            {
                continue;
            }
            if crate::health::monotonic_ns() >= deadline_ns {
                return Ok(Holder::Thread(tid));
            }
            crate::futex::wait_until(word, expected, deadline_ns).map_err(|source| {
                LivenessError::Io {
                    what: "futex wait",
                    source,
                }
            })?;
        }
    }
}

impl Drop for LivenessBoard {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `map`, with its length; nothing borrows it any more.
        let _ = unsafe { rustix::mm::munmap(self.base.as_ptr().cast(), self.len) };
    }
}

/// A slot held by the calling thread; dropping it releases the slot in order.
#[derive(Debug)]
pub struct Held<'a> {
    mutex: *mut libc::pthread_mutex_t,
    _board: PhantomData<&'a LivenessBoard>,
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        // SAFETY: this thread took the mutex in `hold` (the raw pointer keeps the guard on the
        // thread), and the board outlives the guard.
        unsafe {
            libc::pthread_mutex_unlock(self.mutex);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_orderly_release_frees_the_slot_and_a_second_holder_is_refused() {
        let board = LivenessBoard::create(2).unwrap();
        assert_eq!(board.holder(1).unwrap(), Holder::Free);
        let held = board.hold(1).unwrap();
        assert_eq!(board.holder(1).unwrap(), Holder::Thread(gettid()));
        std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    assert!(matches!(
                        board.hold(1),
                        Err(LivenessError::Busy { slot: 1, tid }) if tid != 0
                    ));
                    let holder = board.holder(1).unwrap();
                    assert_eq!(
                        board
                            .wait_while_held(1, gettid(), Duration::from_millis(1))
                            .unwrap(),
                        holder,
                        "a thread that is not the holder returns at once with the holder"
                    );
                })
                .join()
                .unwrap();
        });
        drop(held);
        assert_eq!(board.holder(1).unwrap(), Holder::Free);
        assert!(matches!(board.hold(2), Err(LivenessError::NoSlot { .. })));
    }

    #[test]
    fn a_waiter_is_woken_by_an_orderly_release_with_the_slot_free() {
        let board = LivenessBoard::create(1).unwrap();
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            let holder = scope.spawn(|| {
                let held = board.hold(0).unwrap();
                sender.send(gettid()).unwrap();
                std::thread::sleep(Duration::from_millis(50));
                drop(held);
            });
            let tid = receiver.recv().unwrap();
            let seen = board
                .wait_while_held(0, tid, Duration::from_secs(30))
                .unwrap();
            assert_eq!(seen, Holder::Free);
            holder.join().unwrap();
        });
    }

    #[test]
    fn the_kernel_marks_a_killed_holder_dead_and_the_next_holder_repairs_the_slot() {
        // A real process, killed with SIGKILL while it holds the slot: a forked copy of this
        // test that takes the slot, says so through a pipe and sleeps.
        let board = LivenessBoard::create(1).unwrap();
        let (mut read, write) = std::io::pipe().unwrap();
        let mutex = board.mutex(0).unwrap();
        // SAFETY: the forked child calls only `pthread_mutex_trylock` on shared memory,
        // `write`, `pause` and `_exit` (no allocation, no lock another thread could hold).
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            // SAFETY: see above; the child never returns into the test harness.
            unsafe {
                if libc::pthread_mutex_trylock(mutex) == 0 {
                    libc::write(
                        std::os::fd::AsRawFd::as_raw_fd(&write),
                        b"x".as_ptr().cast(),
                        1,
                    );
                }
                loop {
                    libc::pause();
                }
            }
        }
        drop(write);
        let mut byte = [0u8; 1];
        assert_eq!(
            std::io::Read::read(&mut read, &mut byte).unwrap(),
            1,
            "the child took the slot"
        );
        let tid = pid as u32;
        assert_eq!(board.holder(0).unwrap(), Holder::Thread(tid));
        // Still held after a while: a sleeping holder is no death.
        assert_eq!(
            board
                .wait_while_held(0, tid, Duration::from_millis(20))
                .unwrap(),
            Holder::Thread(tid)
        );
        let waiter = std::thread::spawn({
            let fd = board.as_fd().try_clone_to_owned().unwrap();
            move || {
                let board = LivenessBoard::from_fd(fd).unwrap();
                board
                    .wait_while_held(0, tid, Duration::from_secs(30))
                    .unwrap()
            }
        });
        std::thread::sleep(Duration::from_millis(20));
        // SAFETY: signalling our own child.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
        assert_eq!(waiter.join().unwrap(), Holder::OwnerDied);
        let mut status = 0;
        // SAFETY: reaping our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        // The next holder repairs the mutex: held, released, free again.
        let held = board.hold(0).unwrap();
        assert_eq!(board.holder(0).unwrap(), Holder::Thread(gettid()));
        drop(held);
        assert_eq!(board.holder(0).unwrap(), Holder::Free);
    }

    #[test]
    fn a_board_crosses_a_descriptor_and_foreign_files_are_refused() {
        let board = LivenessBoard::create(3).unwrap();
        let copy = LivenessBoard::from_fd(board.as_fd().try_clone_to_owned().unwrap()).unwrap();
        assert_eq!(copy.slots(), 3);
        let held = board.hold(2).unwrap();
        assert_eq!(copy.holder(2).unwrap(), Holder::Thread(gettid()));
        drop(held);
        let file = rustix::fs::memfd_create("not-a-board", MemfdFlags::CLOEXEC).unwrap();
        rustix::fs::ftruncate(&file, 128).unwrap();
        assert!(matches!(
            LivenessBoard::from_fd(file),
            Err(LivenessError::Invalid { .. })
        ));
        assert!(matches!(
            LivenessBoard::create(0),
            Err(LivenessError::Invalid { .. })
        ));
    }
}
