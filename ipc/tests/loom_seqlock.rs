//! Model check of the seqlock triple-buffer protocol with `loom`: the real code of
//! `ipc::protocol`, run over loom's model atomics, explored over all interleavings (up to a
//! preemption bound) and loom's weak-memory behaviours of relaxed loads and fences.
//!
//! Properties checked in every execution: a read returns either "empty" or a complete value
//! whose every word matches its publish count; successive reads never go backwards; a slot left
//! half-written by a dead writer is never returned.

use ipc::protocol::{AtomicWord, ReadOutcome, Slot, Triple};
use loom::sync::atomic::AtomicU64;
use loom::sync::Arc;
use std::sync::atomic::Ordering;

struct Word(AtomicU64);

impl AtomicWord for Word {
    fn load(&self, order: Ordering) -> u64 {
        self.0.load(order)
    }
    fn store(&self, value: u64, order: Ordering) {
        self.0.store(value, order)
    }
    fn fence(order: Ordering) {
        loom::sync::atomic::fence(order)
    }
    fn relax(_attempt: u32) {
        loom::thread::yield_now();
    }
}

const DATA_WORDS: usize = 2;

struct Memory {
    words: Vec<Word>,
}

impl Memory {
    fn new() -> Arc<Memory> {
        let count = 2 + 3 * (3 + DATA_WORDS);
        Arc::new(Memory {
            words: (0..count).map(|_| Word(AtomicU64::new(0))).collect(),
        })
    }
    fn triple(&self) -> Triple<'_, Word> {
        let slot = |i: usize| {
            let w = &self.words[2 + i * (3 + DATA_WORDS)..2 + (i + 1) * (3 + DATA_WORDS)];
            Slot {
                seq: &w[0],
                count: &w[1],
                len: &w[2],
                data: &w[3..],
            }
        };
        Triple {
            latest: &self.words[0],
            published: &self.words[1],
            slots: [slot(0), slot(1), slot(2)],
        }
    }
}

/// The value published with count `n`: every word says `n`.
fn value(n: u64) -> Vec<u8> {
    (0..DATA_WORDS).flat_map(|_| n.to_ne_bytes()).collect()
}

/// Checks a read: a complete value of its own count; returns the count (0 for empty).
fn check(outcome: ReadOutcome<()>, out: &[u8]) -> u64 {
    match outcome {
        ReadOutcome::Empty => 0,
        ReadOutcome::Value(count, ()) => {
            assert_eq!(
                out,
                value(count).as_slice(),
                "a torn or mismatched value for count {count}"
            );
            count
        }
        ReadOutcome::Corrupt(what) => panic!("corrupt: {what}"),
    }
}

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(f);
}

#[test]
fn readers_see_complete_values_in_order_while_the_writer_publishes() {
    model(|| {
        let memory = Memory::new();
        let writer_memory = memory.clone();
        let writer = loom::thread::spawn(move || {
            let triple = writer_memory.triple();
            let (mut state, _) = triple.claim().unwrap();
            for n in 1..=3 {
                assert_eq!(triple.publish(&mut state, &[&value(n)]), n);
            }
        });
        let triple = memory.triple();
        let mut out = Vec::new();
        let first = check(triple.read(&mut out), &out);
        let second = check(triple.read(&mut out), &out);
        assert!(second >= first, "went backwards: {first} then {second}");
        writer.join().unwrap();
        assert_eq!(check(triple.read(&mut out), &out), 3);
    });
}

#[test]
fn two_readers_and_a_writer() {
    model(|| {
        let memory = Memory::new();
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let memory = memory.clone();
                loom::thread::spawn(move || {
                    let mut out = Vec::new();
                    check(memory.triple().read(&mut out), &out)
                })
            })
            .collect();
        let triple = memory.triple();
        let (mut state, _) = triple.claim().unwrap();
        triple.publish(&mut state, &[&value(1)]);
        triple.publish(&mut state, &[&value(2)]);
        for reader in readers {
            assert!(reader.join().unwrap() <= 2);
        }
    });
}

#[test]
fn a_slot_left_half_written_is_never_read_and_is_repaired() {
    model(|| {
        let memory = Memory::new();
        {
            let triple = memory.triple();
            let (mut state, _) = triple.claim().unwrap();
            triple.publish(&mut state, &[&value(1)]);
        }
        let reader_memory = memory.clone();
        let reader = loom::thread::spawn(move || {
            let triple = reader_memory.triple();
            let mut out = Vec::new();
            let first = check(triple.read(&mut out), &out);
            let second = check(triple.read(&mut out), &out);
            assert!(first >= 1 && second >= first);
        });
        let triple = memory.triple();
        // The first publish went to slot 1, so the next target is slot 2. A writer dies inside
        // it: odd sequence, count and data half-written.
        let torn = &triple.slots[2];
        torn.seq.store(1, Ordering::Relaxed);
        torn.count.store(2, Ordering::Relaxed);
        torn.len.store(16, Ordering::Relaxed);
        torn.data[0].store(2, Ordering::Relaxed);
        // A new writer takes over, repairs and publishes.
        let (mut state, repaired) = triple.claim().unwrap();
        assert_eq!(repaired, 1);
        assert_eq!(triple.publish(&mut state, &[&value(2)]), 2);
        reader.join().unwrap();
    });
}
