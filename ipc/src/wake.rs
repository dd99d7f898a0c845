//! One wake word per consumer: how a process with several triggers sleeps on one futex word on
//! every kernel (the fallback for kernels without `futex_waitv`; see [`crate::wait`]).
//!
//! ```text
//!   health board (every process maps it)          channel segment (wake-word line)
//!   slot k: … wake word W_k ◄──── bump + FUTEX_WAKE ──── consumers: [board id | k+1, 0, …]
//!                  ▲                                         ▲ the consumer registers itself
//!   consumer k sleeps on W_k                                   in each trigger it waits on
//! ```
//!
//! Each process owns the wake word of its health-board slot. Before it sleeps on several
//! triggers it makes sure each trigger channel's consumer table names it (board identity and
//! slot, one 64-bit entry; a fixed table of [`crate::segment::WAKE_TABLE`] entries, so a
//! publish never allocates). A writer, after each publish, looks at its channel's table and,
//! for each consumer whose word has the waiters bit set, bumps the word (clearing the bit) and
//! `FUTEX_WAKE`s it. A consumer that is not asleep costs the writer one load, no system call.
//!
//! The writer finds a board by its identity (the memfd's inode) among the boards this process
//! has mapped (every child maps the health board it inherited; registering happens when a
//! [`crate::HealthBoard`] is created or opened). An entry naming a board this process does not
//! map, or a slot the board does not have, is ignored: a corrupt table wakes nobody wrongly and
//! breaks nothing, and the consumer's timeout still ends its sleep.
//!
//! A dead consumer's entry stays: its writer keeps looking at a word nobody sleeps on (one load
//! per publish; one needless wake if it died asleep). A restarted consumer gets the same slot,
//! finds its entry and uses it again.

use crate::segment::{Segment, WAKE_TABLE};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// Identities up to this many bits fit an entry beside the slot.
const IDENTITY_BITS: u32 = 48;

/// The table entry naming slot `slot` of the board with `identity`; `None` if it does not fit
/// (an inode number above 2^48: that consumer sleeps in slices instead).
pub(crate) fn entry(identity: u64, slot: usize) -> Option<u64> {
    if identity >> IDENTITY_BITS != 0 || slot >= 0xffff {
        return None;
    }
    Some(identity << 16 | (slot as u64 + 1))
}

fn split(entry: u64) -> (u64, Option<usize>) {
    let slot = (entry & 0xffff) as usize;
    (entry >> 16, slot.checked_sub(1))
}

/// The health boards this process maps, for writers to find consumers' words in.
static BOARDS: Mutex<Vec<Weak<Segment>>> = Mutex::new(Vec::new());
/// Bumped whenever a board is added, so that a writer retries an entry it could not resolve.
static GENERATION: AtomicU64 = AtomicU64::new(1);

/// Makes `board` findable by the writers of this process.
pub(crate) fn register_board(board: &Arc<Segment>) {
    let mut boards = BOARDS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    boards.retain(|known| known.strong_count() > 0);
    boards.push(Arc::downgrade(board));
    GENERATION.fetch_add(1, Ordering::SeqCst);
}

fn find_board(identity: u64) -> Option<Arc<Segment>> {
    let boards = BOARDS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    boards
        .iter()
        .filter_map(Weak::upgrade)
        .find(|board| board.identity() == identity)
}

/// Makes sure `table` names `entry`: finds it, or takes a free entry. Returns `false` if the
/// table is full of other consumers (the caller then sleeps in slices).
pub(crate) fn ensure_registered(table: &[AtomicU64], entry: u64) -> bool {
    if table
        .iter()
        .any(|slot| slot.load(Ordering::SeqCst) == entry)
    {
        return true;
    }
    for slot in table {
        match slot.compare_exchange(0, entry, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => return true,
            Err(found) if found == entry => return true,
            Err(_) => {}
        }
    }
    false
}

/// What a writer remembers of one table entry: the entry, and the board it names (kept mapped
/// while the entry stays), or the board generation at which it was not found.
#[derive(Debug, Default)]
struct Resolved {
    entry: u64,
    generation: u64,
    board: Option<(Arc<Segment>, usize)>,
}

/// A writer's view of its channel's consumer table.
#[derive(Debug, Default)]
pub(crate) struct Consumers {
    resolved: [Resolved; WAKE_TABLE],
}

impl Consumers {
    /// Called after each publish, after the locked update of the channel's futex word: wakes
    /// every registered consumer asleep on its wake word. Costs no fence: one load per entry
    /// (the table line stays in the writer's cache while nobody registers), one per consumer.
    ///
    /// No lost wake-up, with the consumer's side in `crate::wait` (`sleep_on_wake_word`). The
    /// consumer (1) registers in every trigger's table and sets the waiters bit of its word,
    /// (2) does a read-modify-write that changes nothing (`fetch_add(0)`, acquire-release) on
    /// every trigger's futex word, (3) loads every trigger's publish count, (4) sleeps while its
    /// word still holds the value with the bit. The writer (a) stores the publish count,
    /// (b) updates its futex word (a SeqCst read-modify-write, `crate::futex::notify`), (c)
    /// loads the table and the word. The two read-modify-writes of one futex word are ordered:
    /// if (b) comes first, (2) reads from it and synchronizes with it, so (3) sees the publish
    /// and the consumer does not sleep; if (2) comes first, (b) reads from it, so (c) sees the
    /// entry and the bit, and the writer changes the word (+2, bit cleared): the futex wait at
    /// (4) finds another value and returns at once, or is woken. Two writers at once: the one
    /// that clears the bit wakes; the other sees no bit, and the awake consumer looks at every
    /// trigger anyway.
    pub(crate) fn wake(&mut self, table: &[AtomicU64]) {
        for (resolved, slot) in self.resolved.iter_mut().zip(table) {
            let entry = slot.load(Ordering::Acquire);
            if entry == 0 {
                continue;
            }
            let generation = GENERATION.load(Ordering::Relaxed);
            if resolved.entry != entry
                || (resolved.board.is_none() && resolved.generation != generation)
            {
                resolved.entry = entry;
                resolved.generation = generation;
                let (identity, index) = split(entry);
                resolved.board = index.and_then(|index| {
                    find_board(identity)
                        .filter(|board| index < board.regions())
                        .map(|board| (board, index))
                });
            }
            if let Some((board, index)) = &resolved.board {
                wake_if_waiting(board.wake_word(*index));
            }
        }
    }
}

/// Bumps `word` and wakes its sleeper if its waiters bit is set; nothing (one load) otherwise.
pub(crate) fn wake_if_waiting(word: &AtomicU32) {
    if word.load(Ordering::SeqCst) & crate::futex::WAITERS != 0 {
        crate::futex::notify(word);
    }
}
