//! One sleep for several channels: [`wait_any`] returns as soon as any of them publishes.
//!
//! A process triggered by several channels (cognition on the vision of two cameras, say) must
//! wake on whichever publishes first. One futex wait covers one word, so the kernel's
//! `futex_waitv` (Linux ≥ 5.16) is asked to sleep on every channel's futex word at once:
//!
//! ```text
//!   reader                                  writers
//!   load each word, check each `published`  ─ nothing new
//!   set the waiters bit of each word        ─ a publish in between changes the word: retry
//!   futex_waitv([word a, word b, …])  ◄──── writer b: publish, word += 2, bit was set → wake
//! ```
//!
//! The waiters-bit discipline of a single wait is kept word by word, so a writer whose channel
//! nobody sleeps on still makes no system call. A waiter that wakes on one channel leaves the
//! bit set on the others; their next publish makes one needless wake call and clears it.
//!
//! On a kernel without `futex_waitv` (`ENOSYS`, or `EPERM` from a seccomp filter; found out at
//! the first call and remembered: the NAO's stock system runs a 4.x kernel), a process that
//! names itself as a [`Consumer`] ([`wait_any_as`], with its health-board slot) sleeps on its own
//! wake word instead: it registers in every trigger channel's consumer table and each of their
//! writers bumps and wakes the word after publishing (see `crate::wake` for the design and why
//! no wake-up is lost). Only a wait that names no consumer ([`wait_any`]), or one whose trigger
//! has a full consumer table, falls back to sleeping on the first channel's word in 1 ms slices
//! and checking the others between them. [`multi_wait_strategy`] says which one this process
//! uses; the environment variable `CORTEX_NO_FUTEX_WAITV=1` (read once, at the first wait)
//! makes the process behave as on a kernel without `futex_waitv`.
//!
//! ```
//! # fn main() -> Result<(), ipc::Error> {
//! use std::time::Duration;
//! let upper = ipc::TripleBuffer::create("BallPercept-upper", 64)?;
//! let lower = ipc::TripleBuffer::create("BallPercept-lower", 64)?;
//! let (upper_reader, lower_reader) = (upper.reader(), lower.reader());
//! lower.writer()?.publish(b"ball")?;
//! let woken = ipc::wait_any(
//!     [(&upper_reader, 0), (&lower_reader, 0)],
//!     Duration::from_secs(1),
//!     None,
//! )?;
//! assert_eq!(woken, ipc::Wake::Published { index: 1, count: 1 });
//! # Ok(()) }
//! ```

use crate::{Error, Reader};
use rustix::thread::futex;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU8, Ordering};
use std::sync::Once;
use std::time::Duration;

/// Why [`wait_any`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wake {
    /// Channel `index` (in the order given) has a value newer than the one seen; `count` is the
    /// publish count of its newest value. When several have one, the first in order is named.
    Published {
        /// Position of the channel in the list given to [`wait_any`].
        index: usize,
        /// Publish count of its newest value.
        count: u64,
    },
    /// The timeout passed without a newer value.
    TimedOut,
    /// The stop flag was set.
    Stopped,
}

/// How this process waits on several channels at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MultiWait {
    /// One `futex_waitv` on every channel's word: wakes on any publish at once.
    FutexWaitv,
    /// The kernel has no `futex_waitv` (or `CORTEX_NO_FUTEX_WAITV=1`): a [`Consumer`] sleeps on
    /// its own wake word, which every trigger's writer wakes; a wait without one sleeps 1 ms at
    /// a time on the first channel and checks the others between them.
    WakeWord,
}

/// The process of one health-board slot as the consumer of trigger channels: the wake word its
/// triggers' writers bump ([`crate::HealthBoard::consumer`]).
#[derive(Debug, Clone, Copy)]
pub struct Consumer<'b> {
    pub(crate) word: &'b AtomicU32,
    /// The consumer-table entry naming it; `None` if the board's identity does not fit one.
    pub(crate) entry: Option<u64>,
}

impl Consumer<'_> {
    /// Whether the consumer has announced that it may be asleep on its wake word (the waiters
    /// bit; a writer's next publish clears it). For tests and diagnostics.
    pub fn may_be_asleep(&self) -> bool {
        self.word.load(Ordering::SeqCst) & crate::futex::WAITERS != 0
    }
}

/// How a wait on several channels sleeps; anything but `Auto` is for the tests and the bench.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Force {
    /// `futex_waitv` where the kernel has it, else the consumer's wake word, else slices.
    Auto,
    /// The old fallback: 1 ms slices on the first channel.
    Slices,
    /// The consumer's wake word (slices without a consumer).
    WakeWord,
}

/// Most channels one `futex_waitv` covers (the kernel's `FUTEX_WAITV_MAX`). A longer list is
/// waited for in slices.
pub const MAX_CHANNELS: usize = 128;

/// Longest sleep between two looks at the stop flag. A stop signal does not interrupt the
/// futex wait (the handlers restart system calls), so the flag is checked at least this often.
pub const STOP_CHECK: Duration = Duration::from_millis(50);

/// The slice of the fallback for kernels without `futex_waitv`.
const FALLBACK_SLICE: Duration = Duration::from_millis(1);

const UNKNOWN: u8 = 0;
const WAITV: u8 = 1;
const SLICES: u8 = 2;
static STRATEGY: AtomicU8 = AtomicU8::new(UNKNOWN);

/// Which way this process waits on several channels: `futex_waitv` unless the kernel refused
/// it. Before the first wait on several channels it answers [`MultiWait::FutexWaitv`] when the
/// kernel is expected to have it; the first wait settles it.
pub fn multi_wait_strategy() -> MultiWait {
    if waitv_refused() {
        MultiWait::WakeWord
    } else {
        MultiWait::FutexWaitv
    }
}

/// Whether this process does without `futex_waitv` (the kernel refused it, or the environment
/// says so).
fn waitv_refused() -> bool {
    static ENVIRONMENT: Once = Once::new();
    ENVIRONMENT.call_once(|| {
        if std::env::var_os("CORTEX_NO_FUTEX_WAITV").is_some_and(|value| value == "1") {
            STRATEGY.store(SLICES, Ordering::Relaxed);
        }
    });
    STRATEGY.load(Ordering::Relaxed) == SLICES
}

/// Sleeps until one of `channels` — pairs of a reader and the publish count its owner last
/// saw — has a newer value, `timeout` passes, or `stop` is set (checked at least every
/// [`STOP_CHECK`]). Returns at once if a value is already newer. No polling: every channel's
/// writer wakes the sleeper directly (see the module documentation for kernels without
/// `futex_waitv`). A channel whose writer died simply never wakes it; the timeout still does.
///
/// `channels` is iterated several times per wait (hence `Clone`), never collected: the call
/// allocates nothing. An empty list sleeps until the timeout or the stop flag.
pub fn wait_any<'r, 'a: 'r, I>(
    channels: I,
    timeout: Duration,
    stop: Option<&AtomicBool>,
) -> Result<Wake, Error>
where
    I: IntoIterator<Item = (&'r Reader<'a>, u64)>,
    I::IntoIter: Clone,
{
    wait_any_with(channels.into_iter(), timeout, stop, None, Force::Auto)
}

/// [`wait_any`] for the process of `consumer`'s health-board slot: on a kernel without
/// `futex_waitv` it sleeps on its own wake word instead of in slices (see the module
/// documentation). What the framework's runtime calls.
pub fn wait_any_as<'r, 'a: 'r, I>(
    channels: I,
    timeout: Duration,
    stop: Option<&AtomicBool>,
    consumer: Consumer<'_>,
) -> Result<Wake, Error>
where
    I: IntoIterator<Item = (&'r Reader<'a>, u64)>,
    I::IntoIter: Clone,
{
    wait_any_with(
        channels.into_iter(),
        timeout,
        stop,
        Some(consumer),
        Force::Auto,
    )
}

/// [`wait_any`] / [`wait_any_as`] with the way of sleeping forced, for the tests and the bench.
#[doc(hidden)]
pub fn wait_any_with<'r, 'a: 'r, I>(
    channels: I,
    timeout: Duration,
    stop: Option<&AtomicBool>,
    consumer: Option<Consumer<'_>>,
    force: Force,
) -> Result<Wake, Error>
where
    I: Iterator<Item = (&'r Reader<'a>, u64)> + Clone,
{
    let start = crate::health::monotonic_ns();
    let deadline = start.saturating_add(u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX));
    let count = channels.clone().count();
    loop {
        if let Some(found) = newer(channels.clone()) {
            return Ok(found);
        }
        if stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
            return Ok(Wake::Stopped);
        }
        let now = crate::health::monotonic_ns();
        if now >= deadline {
            return Ok(Wake::TimedOut);
        }
        let mut until = deadline;
        if stop.is_some() {
            until = until.min(now.saturating_add(STOP_CHECK.as_nanos() as u64));
        }
        if count == 0 {
            crate::sched::sleep_until(until);
            continue;
        }
        if count == 1 {
            // One word: the classic futex wait, on every kernel.
            let (reader, seen) = channels.clone().next().expect("count > 0");
            sleep_on_one(reader, seen, until)?;
            continue;
        }
        let refused = waitv_refused();
        let wake_word = match force {
            Force::Auto => refused || count > MAX_CHANNELS,
            Force::Slices => false,
            Force::WakeWord => true,
        };
        if wake_word {
            if let Some(consumer) = consumer {
                if sleep_on_wake_word(consumer, channels.clone(), until)? {
                    continue;
                }
            }
        } else if force == Force::Auto && !refused {
            if !sleep_on_all(channels.clone(), until)? {
                STRATEGY.store(SLICES, Ordering::Relaxed);
            }
            continue;
        }
        // Without `futex_waitv` and without a wake word: the first word, in short slices.
        until = until.min(now.saturating_add(FALLBACK_SLICE.as_nanos() as u64));
        let (reader, seen) = channels.clone().next().expect("count > 0");
        sleep_on_one(reader, seen, until)?;
    }
}

/// The first channel with a value newer than its owner saw.
fn newer<'r, 'a: 'r>(channels: impl Iterator<Item = (&'r Reader<'a>, u64)>) -> Option<Wake> {
    channels.enumerate().find_map(|(index, (reader, seen))| {
        let count = reader.published();
        (count > seen).then_some(Wake::Published { index, count })
    })
}

/// Sets the waiters bit of `word` unless it moved from `value` (a publish in between).
/// Returns the word to expect while asleep, or `None` to look again.
fn announce(word: &AtomicU32, value: u32) -> Option<u32> {
    let expected = value | crate::futex::WAITERS;
    if value & crate::futex::WAITERS == 0
        && word
            .compare_exchange(value, expected, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
    {
        return None;
    }
    Some(expected)
}

/// Sleeps on one channel's futex word until a publish changes it or `until_ns` passes.
fn sleep_on_one(reader: &Reader<'_>, seen: u64, until_ns: u64) -> Result<(), Error> {
    let word = reader.futex_word();
    let value = word.load(Ordering::SeqCst);
    // The word was loaded before `published`: a publish after this check changes it.
    if reader.published() > seen {
        return Ok(());
    }
    let Some(expected) = announce(word, value) else {
        return Ok(());
    };
    crate::futex::wait_until(word, expected, until_ns)
        .map_err(|source| reader.io("futex wait", source))
}

/// Sleeps on the consumer's own wake word until a trigger's writer bumps it or `until_ns`
/// passes. Returns `false` (nothing done) if the consumer cannot be registered in every
/// trigger's table; the caller then sleeps in slices.
///
/// No lost wake-up (the whole argument is at `crate::wake::Consumers::wake`): registered in
/// every table and the waiters bit set, a read-modify-write on each trigger's futex word orders
/// this wait against each writer's update of that word, before the publish counts are looked
/// at. Either this look sees the publish, or the writer sees the bit and changes the word, so
/// the futex wait below finds another value (returns at once) or is woken.
fn sleep_on_wake_word<'r, 'a: 'r>(
    consumer: Consumer<'_>,
    channels: impl Iterator<Item = (&'r Reader<'a>, u64)> + Clone,
    until_ns: u64,
) -> Result<bool, Error> {
    let Some(entry) = consumer.entry else {
        return Ok(false);
    };
    for (reader, _) in channels.clone() {
        if !crate::wake::ensure_registered(reader.consumer_table(), entry) {
            return Ok(false);
        }
    }
    let word = consumer.word;
    let value = word.load(Ordering::SeqCst);
    let Some(expected) = announce(word, value) else {
        // A writer bumped the word in between: look at the channels again.
        return Ok(true);
    };
    for (reader, _) in channels.clone() {
        // (On x86-64 the compiler may emit this as `mfence` and a load: a full barrier there,
        // which orders it against the writer's locked update just as well.)
        reader.futex_word().fetch_add(0, Ordering::AcqRel);
    }
    if newer(channels.clone()).is_some() {
        return Ok(true);
    }
    let (reader, _) = channels.clone().next().expect("at least two channels");
    crate::futex::wait_until(word, expected, until_ns)
        .map_err(|source| reader.io("futex wait on the wake word", source))?;
    Ok(true)
}

/// Sleeps on every channel's futex word with one `futex_waitv`. Returns `false` if the kernel
/// does not have it.
fn sleep_on_all<'r, 'a: 'r>(
    channels: impl Iterator<Item = (&'r Reader<'a>, u64)> + Clone,
    until_ns: u64,
) -> Result<bool, Error> {
    let mut waits = [futex::Wait::new(); MAX_CHANNELS];
    let mut used = 0;
    for (slot, (reader, seen)) in waits.iter_mut().zip(channels.clone()) {
        let word = reader.futex_word();
        let value = word.load(Ordering::SeqCst);
        // The word was loaded before `published`: a publish after this check changes it.
        if reader.published() > seen {
            return Ok(true);
        }
        let Some(expected) = announce(word, value) else {
            return Ok(true);
        };
        slot.val = u64::from(expected);
        slot.uaddr = futex::WaitPtr::new(word.as_ptr().cast());
        slot.flags = futex::WaitFlags::SIZE_U32;
        used += 1;
    }
    let timeout = rustix::time::Timespec {
        tv_sec: (until_ns / 1_000_000_000) as i64,
        tv_nsec: (until_ns % 1_000_000_000) as i64,
    };
    match futex::waitv(
        &waits[..used],
        futex::WaitvFlags::empty(),
        Some(&timeout),
        rustix::thread::ClockId::Monotonic,
    ) {
        Ok(_) => {
            STRATEGY.store(WAITV, Ordering::Relaxed);
            Ok(true)
        }
        Err(rustix::io::Errno::AGAIN | rustix::io::Errno::INTR | rustix::io::Errno::TIMEDOUT) => {
            STRATEGY.store(WAITV, Ordering::Relaxed);
            Ok(true)
        }
        // No such call (Linux < 5.16), or a seccomp filter that refuses calls it does not know
        // (some container runtimes answer EPERM).
        Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => Ok(false),
        Err(error) => {
            let (reader, _) = channels.clone().next().expect("at least two channels");
            Err(reader.io("futex_waitv", error.into()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::futex::WAITERS;
    use crate::{HealthBoard, TripleBuffer};
    use std::sync::mpsc;
    use std::sync::Arc;
    use std::time::Instant;

    /// A generous bound on the test itself: a wait that ends only by its 60 s timeout fails.
    const JOIN_DEADLINE: Duration = Duration::from_secs(30);

    /// Runs `wait` on a thread over two fresh channels (the readers have seen nothing), as the
    /// consumer of slot 1 of a fresh health board, and hands back the buffers, the board and the
    /// result.
    #[allow(clippy::type_complexity)]
    fn sleeper(
        force: Force,
        stop: Option<Arc<AtomicBool>>,
    ) -> (
        Arc<[TripleBuffer; 2]>,
        Arc<HealthBoard>,
        mpsc::Receiver<Result<Wake, Error>>,
    ) {
        let buffers = Arc::new([
            TripleBuffer::create("wait-a", 64).unwrap(),
            TripleBuffer::create("wait-b", 64).unwrap(),
        ]);
        let board = Arc::new(HealthBoard::create("wait-health", 2).unwrap());
        let (sender, receiver) = mpsc::channel();
        let (shared, shared_board) = (buffers.clone(), board.clone());
        std::thread::spawn(move || {
            let (a, b) = (shared[0].reader(), shared[1].reader());
            let result = wait_any_with(
                [(&a, 0), (&b, 0)].into_iter(),
                Duration::from_secs(60),
                stop.as_deref(),
                Some(shared_board.consumer(1).unwrap()),
                force,
            );
            let _ = sender.send(result);
        });
        (buffers, board, receiver)
    }

    fn wake_word_asleep(board: &HealthBoard) -> bool {
        board.consumer(1).unwrap().word.load(Ordering::SeqCst) & WAITERS != 0
    }

    fn wait_until_wake_word_asleep(board: &HealthBoard) {
        let deadline = Instant::now() + JOIN_DEADLINE;
        while !wake_word_asleep(board) {
            assert!(Instant::now() < deadline, "the waiter never went to sleep");
            std::thread::sleep(Duration::from_millis(1));
        }
        std::thread::sleep(Duration::from_millis(20));
    }

    fn asleep(buffer: &TripleBuffer) -> bool {
        buffer.reader().futex_word().load(Ordering::SeqCst) & WAITERS != 0
    }

    fn wait_until_asleep(buffer: &TripleBuffer) {
        let deadline = Instant::now() + JOIN_DEADLINE;
        while !asleep(buffer) {
            assert!(Instant::now() < deadline, "the waiter never went to sleep");
            std::thread::sleep(Duration::from_millis(1));
        }
        // Past the bit, into the system call (a publish before it is caught too, by EAGAIN).
        std::thread::sleep(Duration::from_millis(20));
    }

    #[test]
    fn the_second_of_two_channels_wakes_the_sleeper() {
        let (buffers, _board, result) = sleeper(Force::Auto, None);
        wait_until_asleep(&buffers[0]);
        if multi_wait_strategy() == MultiWait::FutexWaitv {
            assert!(asleep(&buffers[1]), "asleep on the second word as well");
        }
        buffers[1].writer().unwrap().publish(b"second").unwrap();
        let woken = result.recv_timeout(JOIN_DEADLINE).expect("woke");
        assert_eq!(woken.unwrap(), Wake::Published { index: 1, count: 1 });
        assert!(!asleep(&buffers[1]), "the writer cleared the bit it woke");
    }

    #[test]
    fn in_slices_the_second_channel_is_still_seen() {
        let (buffers, _board, result) = sleeper(Force::Slices, None);
        wait_until_asleep(&buffers[0]);
        assert!(
            !asleep(&buffers[1]),
            "the fallback sleeps on the first word only"
        );
        buffers[1].writer().unwrap().publish(b"second").unwrap();
        let woken = result.recv_timeout(JOIN_DEADLINE).expect("woke");
        assert_eq!(woken.unwrap(), Wake::Published { index: 1, count: 1 });
    }

    #[test]
    fn the_stop_flag_ends_the_wait() {
        let stop = Arc::new(AtomicBool::new(false));
        let (buffers, _board, result) = sleeper(Force::Auto, Some(stop.clone()));
        wait_until_asleep(&buffers[0]);
        stop.store(true, Ordering::Relaxed);
        let woken = result.recv_timeout(JOIN_DEADLINE).expect("woke");
        assert_eq!(woken.unwrap(), Wake::Stopped);
        // The same on the wake word.
        let stop = Arc::new(AtomicBool::new(false));
        let (_buffers, board, result) = sleeper(Force::WakeWord, Some(stop.clone()));
        wait_until_wake_word_asleep(&board);
        stop.store(true, Ordering::Relaxed);
        let woken = result.recv_timeout(JOIN_DEADLINE).expect("woke");
        assert_eq!(woken.unwrap(), Wake::Stopped);
    }

    #[test]
    fn on_the_wake_word_the_second_channel_wakes_the_sleeper() {
        let (buffers, board, result) = sleeper(Force::WakeWord, None);
        wait_until_wake_word_asleep(&board);
        assert!(
            !asleep(&buffers[0]) && !asleep(&buffers[1]),
            "asleep on its own word, not on the channels'"
        );
        // Registered in both tables.
        let entry = board.consumer(1).unwrap().entry.unwrap();
        for buffer in buffers.iter() {
            let table = buffer.reader().consumer_table();
            assert_eq!(
                table
                    .iter()
                    .filter(|e| e.load(Ordering::SeqCst) == entry)
                    .count(),
                1
            );
        }
        buffers[1].writer().unwrap().publish(b"second").unwrap();
        let woken = result.recv_timeout(JOIN_DEADLINE).expect("woke");
        assert_eq!(woken.unwrap(), Wake::Published { index: 1, count: 1 });
        assert!(
            !wake_word_asleep(&board),
            "the writer cleared the bit it woke"
        );
    }

    #[test]
    fn a_full_consumer_table_falls_back_to_slices_and_a_corrupt_entry_wakes_nobody() {
        let (a, b) = (
            TripleBuffer::create("wait-full-a", 64).unwrap(),
            TripleBuffer::create("wait-full-b", 64).unwrap(),
        );
        let board = HealthBoard::create("wait-full-health", 1).unwrap();
        // Other consumers fill b's table: entries of a board nobody here maps, and of a slot
        // this board does not have.
        let table = b.reader().consumer_table();
        let stranger = crate::wake::entry(board.segment_identity() + 1, 0).unwrap();
        for (index, slot) in table.iter().enumerate() {
            let entry = if index == 0 {
                crate::wake::entry(board.segment_identity(), 500).unwrap()
            } else {
                stranger + index as u64
            };
            slot.store(entry, Ordering::SeqCst);
        }
        let mut writer = b.writer().unwrap();
        writer.publish(b"nobody to wake").unwrap();
        let (ra, rb) = (a.reader(), b.reader());
        let started = Instant::now();
        let woken = wait_any_with(
            [(&ra, 0), (&rb, 1)].into_iter(),
            Duration::from_millis(30),
            None,
            Some(board.consumer(0).unwrap()),
            Force::WakeWord,
        )
        .unwrap();
        assert_eq!(woken, Wake::TimedOut);
        assert!(started.elapsed() >= Duration::from_millis(30));
        assert_eq!(
            board.consumer(0).unwrap().word.load(Ordering::SeqCst) & WAITERS,
            0,
            "it never slept on its wake word: b's table had no room"
        );
    }

    #[test]
    fn a_value_already_newer_returns_at_once_and_silence_times_out() {
        let a = TripleBuffer::create("wait-now-a", 8).unwrap();
        let b = TripleBuffer::create("wait-now-b", 8).unwrap();
        let mut writer = a.writer().unwrap();
        writer.publish(b"1").unwrap();
        writer.publish(b"2").unwrap();
        let (ra, rb) = (a.reader(), b.reader());
        assert_eq!(
            wait_any([(&ra, 1), (&rb, 0)], Duration::from_secs(60), None).unwrap(),
            Wake::Published { index: 0, count: 2 }
        );
        // Nothing newer than what was seen: only the timeout ends it.
        let started = Instant::now();
        assert_eq!(
            wait_any([(&ra, 2), (&rb, 0)], Duration::from_millis(30), None).unwrap(),
            Wake::TimedOut
        );
        assert!(started.elapsed() >= Duration::from_millis(30));
        let none: [(&Reader<'_>, u64); 0] = [];
        assert_eq!(
            wait_any(none, Duration::from_millis(5), None).unwrap(),
            Wake::TimedOut
        );
    }

    #[test]
    fn a_publish_nobody_sleeps_on_counts_and_leaves_no_waiters_bit() {
        let buffer = TripleBuffer::create("wait-quiet", 8).unwrap();
        let mut writer = buffer.writer().unwrap();
        let before = buffer.reader().futex_word().load(Ordering::SeqCst);
        writer.publish(b"x").unwrap();
        let after = buffer.reader().futex_word().load(Ordering::SeqCst);
        assert_eq!(after, before + 2, "counted, and no waiters bit to clear");
    }
}
