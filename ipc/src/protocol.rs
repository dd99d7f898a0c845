//! The seqlock-guarded triple buffer protocol, independent of where its memory lives.
//!
//! This module holds the whole algorithm of `docs/architecture.md` §3 and nothing else: it works
//! on references to 64-bit atomic words, so the same code runs over a shared-memory segment
//! ([`crate::TripleBuffer`]) and over `loom`'s model atomics in the model-check test
//! (`ipc/tests/loom_seqlock.rs`).
//!
//! ```text
//!   control: latest ─┐   published
//!                    ▼
//!   slot 0: seq count len data…     the writer only ever writes a slot that is not `latest`:
//!   slot 1: seq count len data…     the older of the other two; readers copy `latest` and
//!   slot 2: seq count len data…     retry only if the writer published twice during the copy
//! ```
//!
//! Writer: `seq` odd, release fence, relaxed word stores, `seq` even (release), then `latest`
//! and `published` (release). Reader: `latest` and `seq` (acquire), relaxed word loads, acquire
//! fence, `seq` again; a change means retry.

use std::sync::atomic::Ordering;

/// A 64-bit atomic word. Implemented for `std::sync::atomic::AtomicU64` here and for loom's
/// model atomic in the model-check test.
pub trait AtomicWord: Sync {
    /// Atomic load.
    fn load(&self, order: Ordering) -> u64;
    /// Atomic store.
    fn store(&self, value: u64, order: Ordering);
    /// A memory fence of the same memory model as the word.
    fn fence(order: Ordering);
    /// Asks the processor to fetch the word's cache line for writing ahead of time, taking it
    /// from any other core that holds it. Only a hint: memory is unchanged, nothing waits.
    #[inline(always)]
    fn prepare_write(&self) {}
    /// Called by a reader before retrying; `attempt` counts from 1. Spins, and now and then
    /// yields the processor to a writer it may be racing.
    fn relax(attempt: u32) {
        if attempt % SPINS_BEFORE_YIELD == 0 {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

impl AtomicWord for std::sync::atomic::AtomicU64 {
    #[inline(always)]
    fn load(&self, order: Ordering) -> u64 {
        std::sync::atomic::AtomicU64::load(self, order)
    }
    #[inline(always)]
    fn store(&self, value: u64, order: Ordering) {
        std::sync::atomic::AtomicU64::store(self, value, order)
    }
    #[inline(always)]
    fn fence(order: Ordering) {
        std::sync::atomic::fence(order)
    }
    #[inline(always)]
    fn prepare_write(&self) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `prefetchw` is a hint: it never faults (not even on an invalid address), does
        // not change memory or flags, and touches no stack; the address is a live atomic anyway.
        unsafe {
            std::arch::asm!(
                "prefetchw [{address}]",
                address = in(reg) self.as_ptr(),
                options(nostack, preserves_flags, readonly)
            );
        }
    }
}

/// One of the three slots: its sequence counter, the publish count and length of the value it
/// holds (both written inside the sequence window), and its data words.
#[derive(Debug)]
pub struct Slot<'a, W> {
    /// Odd while the writer is inside the slot.
    pub seq: &'a W,
    /// Publish count of the value in the slot; 0 for "no value".
    pub count: &'a W,
    /// Length of the value in bytes.
    pub len: &'a W,
    /// The data, as whole words.
    pub data: &'a [W],
}

/// The shared state of one triple buffer: the control words and three slots.
#[derive(Debug)]
pub struct Triple<'a, W> {
    /// Index (0..3) of the slot holding the newest complete value.
    pub latest: &'a W,
    /// Publish count of the newest complete value (0 before the first publish).
    pub published: &'a W,
    /// The three slots.
    pub slots: [Slot<'a, W>; 3],
}

impl<W> Clone for Slot<'_, W> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<W> Copy for Slot<'_, W> {}
impl<W> Clone for Triple<'_, W> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<W> Copy for Triple<'_, W> {}

/// What the single writer remembers between publishes. It is rebuilt from shared memory by
/// [`Triple::claim`], so a new writer process continues where a dead one stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriterState {
    latest: usize,
    target: usize,
    next_count: u64,
    prepare_next: bool,
}

impl WriterState {
    /// The publish count the next publish will carry.
    pub fn next_count(&self) -> u64 {
        self.next_count
    }

    /// Whether each publish ends by fetching the next slot's first lines for writing
    /// (default: yes; see [`Triple::publish`]). Off only to measure what it brings.
    pub fn set_prepare_next(&mut self, on: bool) {
        self.prepare_next = on;
    }
}

/// Most data lines a publish fetches ahead for the next one (values up to 256 bytes entirely).
const PREPARED_DATA_LINES: usize = 4;

/// The result of one read attempt sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadOutcome<R> {
    /// Nothing was ever published.
    Empty,
    /// A complete value with its publish count.
    Value(u64, R),
    /// The control or slot words hold values no writer of this protocol writes.
    Corrupt(&'static str),
}

/// A read-only view of a slot's data during an in-place read. The words may change under the
/// reader; whatever is computed from them is discarded unless the sequence check passes.
#[derive(Debug)]
pub struct SlotView<'a, W> {
    words: &'a [W],
    len: usize,
}

impl<'a, W: AtomicWord> SlotView<'a, W> {
    /// Length of the value in bytes.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the value is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The value's words (the last one padded with whatever the slot held).
    pub fn words(&self) -> &'a [W] {
        &self.words[..self.len.div_ceil(8)]
    }
    /// One word, loaded with relaxed ordering.
    #[inline(always)]
    pub fn word(&self, index: usize) -> u64 {
        self.words[index].load(Ordering::Relaxed)
    }
    /// Copies bytes `offset..offset + out.len()` of the value into `out`.
    ///
    /// # Panics
    /// If the range is outside the value.
    pub fn copy_bytes(&self, offset: usize, out: &mut [u8]) {
        assert!(offset + out.len() <= self.len, "range outside the value");
        let mut position = offset;
        let mut written = 0;
        while written < out.len() {
            let word = self.word(position / 8).to_ne_bytes();
            let start = position % 8;
            let take = (8 - start).min(out.len() - written);
            out[written..written + take].copy_from_slice(&word[start..start + take]);
            written += take;
            position += take;
        }
    }
}

/// How often a reader retries before it yields the processor to a writer it may be racing.
const SPINS_BEFORE_YIELD: u32 = 64;

impl<'a, W: AtomicWord> Triple<'a, W> {
    /// Capacity of each slot in bytes.
    pub fn capacity_bytes(&self) -> usize {
        self.slots[0].data.len() * 8
    }

    /// Takes over the writer role from whatever state the shared memory is in: repairs slots
    /// left odd by a writer that died in the middle of a write and picks the slot to write next.
    /// Returns the writer state and the number of slots repaired. Must only be called by the one
    /// writer (the caller enforces the role).
    pub fn claim(&self) -> Result<(WriterState, usize), &'static str> {
        let mut repaired = 0;
        for slot in &self.slots {
            let seq = slot.seq.load(Ordering::Relaxed);
            if seq & 1 == 1 {
                // The slot's data is torn. Mark it empty inside the still-odd window, then close
                // the window so that it can be reused; `latest` never names an odd slot.
                slot.count.store(0, Ordering::Relaxed);
                slot.len.store(0, Ordering::Relaxed);
                slot.seq.store(seq.wrapping_add(1), Ordering::Release);
                repaired += 1;
            }
        }
        let latest = self.latest.load(Ordering::Acquire);
        if latest > 2 {
            return Err("latest slot index out of range");
        }
        let latest = latest as usize;
        let (a, b) = ((latest + 1) % 3, (latest + 2) % 3);
        let count_a = self.slots[a].count.load(Ordering::Relaxed);
        let count_b = self.slots[b].count.load(Ordering::Relaxed);
        let target = if count_a <= count_b { a } else { b };
        let newest = self
            .slots
            .iter()
            .map(|slot| slot.count.load(Ordering::Relaxed))
            .chain(std::iter::once(self.published.load(Ordering::Acquire)))
            .max()
            .unwrap_or(0);
        Ok((
            WriterState {
                latest,
                target,
                next_count: newest + 1,
                prepare_next: true,
            },
            repaired,
        ))
    }

    /// Publishes the concatenation of `parts`. The caller has checked that it fits.
    /// Never waits. Returns the publish count of the new value.
    ///
    /// It ends by asking for the next target slot's header line and first data lines for
    /// writing ([`AtomicWord::prepare_write`]): a reader that read that slot two publishes ago
    /// still holds them, and taking them back now, while nobody waits, spares the next publish
    /// those transfers before its value can become visible (docs/performance.md, "One wake-up
    /// and small-message latency"). Nobody reads the target slot, so nobody is slowed.
    pub fn publish(&self, state: &mut WriterState, parts: &[&[u8]]) -> u64 {
        let slot = &self.slots[state.target];
        let count = state.next_count;
        let seq = slot.seq.load(Ordering::Relaxed);
        slot.seq.store(seq.wrapping_add(1), Ordering::Relaxed);
        W::fence(Ordering::Release);
        let length: usize = parts.iter().map(|part| part.len()).sum();
        slot.count.store(count, Ordering::Relaxed);
        slot.len.store(length as u64, Ordering::Relaxed);
        store_words(slot.data, parts);
        slot.seq.store(seq.wrapping_add(2), Ordering::Release);
        self.latest.store(state.target as u64, Ordering::Release);
        self.published.store(count, Ordering::Release);
        // The next target is the slot that is neither the new latest nor the one before it.
        let previous = state.latest;
        state.latest = state.target;
        state.target = 3 - previous - state.latest;
        state.next_count = count + 1;
        if state.prepare_next {
            let next = &self.slots[state.target];
            next.seq.prepare_write();
            let lines = length.div_ceil(64).min(PREPARED_DATA_LINES);
            for line in next.data.chunks(8).take(lines) {
                line[0].prepare_write();
            }
        }
        count
    }

    /// Publish count of the newest complete value (0 before the first publish).
    pub fn published(&self) -> u64 {
        self.published.load(Ordering::Acquire)
    }

    /// Copies the newest complete value into `out` (resized to its length).
    pub fn read(&self, out: &mut Vec<u8>) -> ReadOutcome<()> {
        self.read_with(|view| {
            out.resize(view.len(), 0);
            load_words(view.words(), out);
        })
    }

    /// Runs `inspect` on the newest value in place and returns its result once the sequence
    /// check shows that the value did not change during the call; otherwise `inspect` runs
    /// again on the new newest value. `inspect` must tolerate torn data (its result is
    /// discarded then) and must not panic on it.
    pub fn read_with<R>(&self, mut inspect: impl FnMut(&SlotView<'a, W>) -> R) -> ReadOutcome<R> {
        let mut attempts: u32 = 0;
        loop {
            if attempts > 0 {
                W::relax(attempts);
            }
            attempts = attempts.wrapping_add(1);
            let latest = self.latest.load(Ordering::Acquire);
            if latest > 2 {
                return ReadOutcome::Corrupt("latest slot index out of range");
            }
            let slot = &self.slots[latest as usize];
            let before = slot.seq.load(Ordering::Acquire);
            if before & 1 == 1 {
                continue;
            }
            let count = slot.count.load(Ordering::Relaxed);
            let len = slot.len.load(Ordering::Relaxed);
            let capacity = slot.data.len() * 8;
            let view = SlotView {
                words: slot.data,
                len: (len as usize).min(capacity),
            };
            let result = if count == 0 || len as usize > capacity {
                None
            } else {
                Some(inspect(&view))
            };
            W::fence(Ordering::Acquire);
            let after = slot.seq.load(Ordering::Relaxed);
            if before != after {
                continue;
            }
            return match result {
                None if count == 0 => ReadOutcome::Empty,
                None => ReadOutcome::Corrupt("slot length larger than the slot capacity"),
                Some(result) => ReadOutcome::Value(count, result),
            };
        }
    }
}

/// Stores the concatenation of `parts` into `words` with relaxed atomic stores, whole words only.
#[inline]
fn store_words<W: AtomicWord>(words: &[W], parts: &[&[u8]]) {
    let mut index = 0;
    let mut pending = [0u8; 8];
    let mut pending_len = 0;
    for part in parts {
        let mut bytes: &[u8] = part;
        if pending_len > 0 {
            let take = (8 - pending_len).min(bytes.len());
            pending[pending_len..pending_len + take].copy_from_slice(&bytes[..take]);
            pending_len += take;
            bytes = &bytes[take..];
            if pending_len < 8 {
                continue;
            }
            words[index].store(u64::from_ne_bytes(pending), Ordering::Relaxed);
            index += 1;
        }
        let chunks = bytes.chunks_exact(8);
        let rest = chunks.remainder();
        for (word, chunk) in words[index..].iter().zip(chunks) {
            let value = u64::from_ne_bytes(chunk.try_into().expect("chunks_exact gives 8 bytes"));
            word.store(value, Ordering::Relaxed);
        }
        index += bytes.len() / 8;
        pending[..rest.len()].copy_from_slice(rest);
        pending_len = rest.len();
    }
    if pending_len > 0 {
        pending[pending_len..].fill(0);
        words[index].store(u64::from_ne_bytes(pending), Ordering::Relaxed);
    }
}

/// Loads `out.len()` bytes from `words` with relaxed atomic loads, whole words only. Whole cache
/// lines are loaded into a local array first, which lets the compiler keep eight loads in flight
/// (twice as fast for large values as one load, one store per word; see docs/performance.md).
#[inline]
fn load_words<W: AtomicWord>(words: &[W], out: &mut [u8]) {
    let line_bytes = out.len() / 64 * 64;
    let (lines, rest) = out.split_at_mut(line_bytes);
    for (chunk, line) in lines.chunks_exact_mut(64).zip(words.chunks_exact(8)) {
        let mut values = [0u64; 8];
        for (value, word) in values.iter_mut().zip(line) {
            *value = word.load(Ordering::Relaxed);
        }
        chunk.copy_from_slice(bytemuck::bytes_of(&values));
    }
    let words = &words[line_bytes / 8..];
    let whole_words = rest.len() / 8;
    let mut chunks = rest.chunks_exact_mut(8);
    for (chunk, word) in (&mut chunks).zip(words) {
        chunk.copy_from_slice(&word.load(Ordering::Relaxed).to_ne_bytes());
    }
    let tail = chunks.into_remainder();
    if !tail.is_empty() {
        let last = words[whole_words].load(Ordering::Relaxed).to_ne_bytes();
        tail.copy_from_slice(&last[..tail.len()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    struct Memory {
        control: [AtomicU64; 2],
        slot_words: Vec<AtomicU64>,
        words_per_slot: usize,
    }

    impl Memory {
        fn new(words_per_slot: usize) -> Self {
            Memory {
                control: [AtomicU64::new(0), AtomicU64::new(0)],
                slot_words: (0..3 * (3 + words_per_slot))
                    .map(|_| AtomicU64::new(0))
                    .collect(),
                words_per_slot,
            }
        }
        fn triple(&self) -> Triple<'_, AtomicU64> {
            let stride = 3 + self.words_per_slot;
            let slot = |i: usize| {
                let w = &self.slot_words[i * stride..(i + 1) * stride];
                Slot {
                    seq: &w[0],
                    count: &w[1],
                    len: &w[2],
                    data: &w[3..],
                }
            };
            Triple {
                latest: &self.control[0],
                published: &self.control[1],
                slots: [slot(0), slot(1), slot(2)],
            }
        }
    }

    #[test]
    fn empty_before_first_publish_then_values_in_order() {
        let memory = Memory::new(4);
        let triple = memory.triple();
        let mut out = Vec::new();
        assert_eq!(triple.read(&mut out), ReadOutcome::Empty);
        let (mut state, repaired) = triple.claim().unwrap();
        assert_eq!(repaired, 0);
        for n in 1..=10u64 {
            let payload: Vec<u8> = (0..(n as usize % 30))
                .map(|i| (i as u8) ^ (n as u8))
                .collect();
            assert_eq!(triple.publish(&mut state, &[&payload]), n);
            assert_eq!(triple.read(&mut out), ReadOutcome::Value(n, ()));
            assert_eq!(out, payload);
        }
    }

    #[test]
    fn every_length_round_trips_across_word_and_line_boundaries() {
        let memory = Memory::new(32);
        let triple = memory.triple();
        let (mut state, _) = triple.claim().unwrap();
        let mut out = Vec::new();
        for len in 0..=256usize {
            let payload: Vec<u8> = (0..len).map(|i| (i * 7 + len) as u8).collect();
            triple.publish(&mut state, &[&payload]);
            triple.read(&mut out);
            assert_eq!(out, payload, "length {len}");
        }
    }

    #[test]
    fn parts_are_concatenated_across_word_boundaries() {
        let memory = Memory::new(8);
        let triple = memory.triple();
        let (mut state, _) = triple.claim().unwrap();
        let parts: [&[u8]; 4] = [b"abc", b"defghijklm", b"", b"nopqrstuvwxyz0123"];
        triple.publish(&mut state, &parts);
        let mut out = Vec::new();
        triple.read(&mut out);
        assert_eq!(out, b"abcdefghijklmnopqrstuvwxyz0123");
    }

    #[test]
    fn writer_never_writes_latest_and_rotates_three_slots() {
        let memory = Memory::new(1);
        let triple = memory.triple();
        let (mut state, _) = triple.claim().unwrap();
        let mut seen = Vec::new();
        for n in 0..6u8 {
            let latest_before = triple.latest.load(Ordering::Relaxed);
            triple.publish(&mut state, &[&[n]]);
            let latest_after = triple.latest.load(Ordering::Relaxed);
            assert_ne!(latest_before, latest_after);
            seen.push(latest_after);
        }
        assert_eq!(seen, vec![1, 2, 0, 1, 2, 0]);
    }

    #[test]
    fn claim_repairs_a_slot_left_odd_and_continues_the_count() {
        let memory = Memory::new(2);
        let triple = memory.triple();
        let (mut state, _) = triple.claim().unwrap();
        triple.publish(&mut state, &[b"first"]);
        triple.publish(&mut state, &[b"second"]);
        // A writer dies inside the next slot: odd sequence, half-written data.
        let torn = &triple.slots[state.target];
        torn.seq
            .store(torn.seq.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        torn.count.store(3, Ordering::Relaxed);
        torn.data[0].store(u64::MAX, Ordering::Relaxed);
        let mut out = Vec::new();
        assert_eq!(triple.read(&mut out), ReadOutcome::Value(2, ()));
        assert_eq!(out, b"second");
        let (mut state, repaired) = triple.claim().unwrap();
        assert_eq!(repaired, 1);
        assert!(triple
            .slots
            .iter()
            .all(|s| s.seq.load(Ordering::Relaxed) % 2 == 0));
        // The torn value was never published, so its count is given to the next value.
        assert_eq!(triple.publish(&mut state, &[b"third"]), 3);
        triple.read(&mut out);
        assert_eq!(out, b"third");
    }

    #[test]
    fn corrupt_control_is_reported() {
        let memory = Memory::new(1);
        let triple = memory.triple();
        triple.latest.store(7, Ordering::Relaxed);
        assert!(matches!(
            triple.read(&mut Vec::new()),
            ReadOutcome::Corrupt(_)
        ));
        assert!(triple.claim().is_err());
        triple.latest.store(0, Ordering::Relaxed);
        triple.slots[0].count.store(1, Ordering::Relaxed);
        triple.slots[0].len.store(1 << 40, Ordering::Relaxed);
        assert!(matches!(
            triple.read(&mut Vec::new()),
            ReadOutcome::Corrupt(_)
        ));
    }

    #[test]
    fn in_place_view_copies_byte_ranges() {
        let memory = Memory::new(4);
        let triple = memory.triple();
        let (mut state, _) = triple.claim().unwrap();
        let payload: Vec<u8> = (0..29).collect();
        triple.publish(&mut state, &[&payload]);
        let outcome = triple.read_with(|view| {
            let mut middle = [0u8; 11];
            view.copy_bytes(5, &mut middle);
            (view.len(), middle)
        });
        let ReadOutcome::Value(1, (len, middle)) = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(len, 29);
        assert_eq!(&middle[..], &payload[5..16]);
    }
}
