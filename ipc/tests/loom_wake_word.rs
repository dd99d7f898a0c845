//! Model check, with `loom`, of the hand-shake between a consumer going to sleep on its wake word
//! and a writer publishing (`ipc/src/wake.rs`, `Consumers::wake`, and `ipc/src/wait.rs`,
//! `sleep_on_wake_word`): the same steps with the same orderings, over loom's atomics, explored
//! over every interleaving and loom's weak-memory behaviours.
//!
//! Property: a consumer that decides to sleep (it saw no publish) does so only on a value of its
//! wake word that the writer then changes (so the futex wait returns at once or is woken): no
//! lost wake-up. The same model with the consumer's read-modify-write on the futex word left out
//! finds the lost wake-up (`the_handshake_needs_the_consumers_read_modify_write`), so the check
//! can fail. (loom treats SeqCst as acquire-release; the argument for the real code needs no
//! more than that: it rests on the two read-modify-writes of one futex word.)

use loom::sync::atomic::{AtomicU32, AtomicU64};
use loom::sync::Arc;
use std::sync::atomic::Ordering;

const WAITERS: u32 = 1;
const ENTRY: u64 = 7 << 16 | 1;

#[derive(Default)]
struct Shared {
    /// The channel's publish count.
    published: AtomicU64,
    /// The channel's futex word.
    futex: AtomicU32,
    /// One entry of the channel's consumer table.
    entry: AtomicU64,
    /// The consumer's wake word.
    wake: AtomicU32,
}

/// `crate::futex::notify`: +2, bit cleared; returns whether the bit was set.
fn notify(word: &AtomicU32) -> bool {
    let previous = word
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |value| {
            Some(value.wrapping_add(2) & !WAITERS)
        })
        .unwrap_or_else(|value| value);
    previous & WAITERS != 0
}

/// The writer: publish, update the channel's futex word, wake registered sleepers.
fn writer(shared: &Shared) {
    shared.published.store(1, Ordering::Release);
    notify(&shared.futex);
    if shared.entry.load(Ordering::Acquire) == ENTRY
        && shared.wake.load(Ordering::SeqCst) & WAITERS != 0
    {
        notify(&shared.wake);
    }
}

/// The consumer up to its futex wait. Returns the value it would sleep on, or `None` if it saw
/// the publish (or the word moved) and does not sleep.
fn consumer(shared: &Shared, with_rmw: bool) -> Option<u32> {
    if shared.entry.load(Ordering::SeqCst) != ENTRY {
        let _ = shared
            .entry
            .compare_exchange(0, ENTRY, Ordering::SeqCst, Ordering::SeqCst);
    }
    let value = shared.wake.load(Ordering::SeqCst);
    let expected = value | WAITERS;
    if value & WAITERS == 0
        && shared
            .wake
            .compare_exchange(value, expected, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
    {
        return None;
    }
    if with_rmw {
        shared.futex.fetch_add(0, Ordering::AcqRel);
    }
    if shared.published.load(Ordering::Acquire) > 0 {
        return None;
    }
    Some(expected)
}

/// Runs writer and consumer; returns whether some execution lost the wake-up.
fn explore(with_rmw: bool) -> bool {
    let lost = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let seen = lost.clone();
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(move || {
        let shared = Arc::new(Shared::default());
        let other = shared.clone();
        let thread = loom::thread::spawn(move || writer(&other));
        let sleeps_on = consumer(&shared, with_rmw);
        thread.join().unwrap();
        // Once the writer is done, a sleeper whose value is still there would sleep for ever.
        if let Some(expected) = sleeps_on {
            if shared.wake.load(Ordering::SeqCst) == expected {
                seen.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
    });
    lost.load(std::sync::atomic::Ordering::SeqCst)
}

#[test]
fn no_wake_up_is_lost() {
    assert!(!explore(true), "an execution lost the wake-up");
}

#[test]
fn the_handshake_needs_the_consumers_read_modify_write() {
    assert!(
        explore(false),
        "without it, loom should find the consumer asleep on a word the writer never changed"
    );
}
