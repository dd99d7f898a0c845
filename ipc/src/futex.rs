//! Wake-ups between processes through a futex word in shared memory (not `FUTEX_PRIVATE`).
//!
//! The word counts publishes in steps of two; its lowest bit says "someone may be asleep".
//! A reader sets the bit before it sleeps; the writer clears it with the same atomic step that
//! counts the publish and calls `FUTEX_WAKE` only when it was set, so a publish nobody waits for
//! costs no system call. A reader that dies asleep leaves the bit set: the next publish makes one
//! needless wake call and clears it. Nothing here can be held by a dead process.

use rustix::thread::futex;
use std::io;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The lowest bit of a futex word: someone may be asleep on it.
pub(crate) const WAITERS: u32 = 1;

/// Called by the writer after each publish.
pub(crate) fn notify(word: &AtomicU32) {
    let previous = word
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |value| {
            Some(value.wrapping_add(2) & !WAITERS)
        })
        .unwrap_or_else(|value| value);
    if previous & WAITERS != 0 {
        // Waking can only fail for a bad address, which the mapping rules out.
        let _ = futex::wake(word, futex::Flags::empty(), i32::MAX as u32);
    }
}

/// Waits until `published()` exceeds `than` or `timeout` passes.
pub(crate) fn wait_newer(
    word: &AtomicU32,
    published: impl Fn() -> u64,
    than: u64,
    timeout: Duration,
) -> io::Result<Option<u64>> {
    let deadline = Instant::now().checked_add(timeout);
    loop {
        let value = word.load(Ordering::SeqCst);
        let count = published();
        if count > than {
            return Ok(Some(count));
        }
        let remaining = match deadline {
            Some(deadline) => match deadline.checked_duration_since(Instant::now()) {
                Some(remaining) if !remaining.is_zero() => Some(remaining),
                _ => return Ok(None),
            },
            None => None,
        };
        let expected = value | WAITERS;
        if value & WAITERS == 0
            && word
                .compare_exchange(value, expected, Ordering::SeqCst, Ordering::SeqCst)
                .is_err()
        {
            continue;
        }
        let timespec = remaining.map(|remaining| rustix::time::Timespec {
            tv_sec: remaining.as_secs() as i64,
            tv_nsec: i64::from(remaining.subsec_nanos()),
        });
        match futex::wait(word, futex::Flags::empty(), expected, timespec.as_ref()) {
            Ok(()) => {}
            Err(
                rustix::io::Errno::AGAIN | rustix::io::Errno::INTR | rustix::io::Errno::TIMEDOUT,
            ) => {}
            Err(error) => return Err(error.into()),
        }
    }
}

/// Sleeps on `word` while it holds `expected` (the caller has set the waiters bit in it), until
/// a writer wakes it, a signal interrupts it, or `CLOCK_MONOTONIC` reaches `until_ns`. Whatever
/// ended the sleep, the caller looks at its channels again.
pub(crate) fn wait_until(word: &AtomicU32, expected: u32, until_ns: u64) -> io::Result<()> {
    let remaining = until_ns.saturating_sub(crate::health::monotonic_ns());
    if remaining == 0 {
        return Ok(());
    }
    let timespec = rustix::time::Timespec {
        tv_sec: (remaining / 1_000_000_000) as i64,
        tv_nsec: (remaining % 1_000_000_000) as i64,
    };
    match futex::wait(word, futex::Flags::empty(), expected, Some(&timespec)) {
        Ok(())
        | Err(rustix::io::Errno::AGAIN | rustix::io::Errno::INTR | rustix::io::Errno::TIMEDOUT) => {
            Ok(())
        }
        Err(error) => Err(error.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;

    #[test]
    fn times_out_without_a_publish_and_wakes_on_one() {
        let word = Arc::new(AtomicU32::new(0));
        let count = Arc::new(AtomicU64::new(0));
        let started = Instant::now();
        let result = wait_newer(
            &word,
            || count.load(Ordering::SeqCst),
            0,
            Duration::from_millis(30),
        );
        assert_eq!(result.unwrap(), None);
        assert!(started.elapsed() >= Duration::from_millis(30));

        let (word2, count2) = (word.clone(), count.clone());
        let waiter = std::thread::spawn(move || {
            wait_newer(
                &word2,
                || count2.load(Ordering::SeqCst),
                0,
                Duration::from_secs(30),
            )
        });
        // Let it fall asleep (the waiters bit is set), then publish.
        while word.load(Ordering::SeqCst) & WAITERS == 0 {
            std::thread::yield_now();
        }
        count.store(1, Ordering::SeqCst);
        notify(&word);
        assert_eq!(waiter.join().unwrap().unwrap(), Some(1));
        assert_eq!(
            word.load(Ordering::SeqCst) & WAITERS,
            0,
            "the writer cleared the bit"
        );
    }

    #[test]
    fn returns_at_once_when_already_newer() {
        let word = AtomicU32::new(0);
        assert_eq!(
            wait_newer(&word, || 5, 4, Duration::from_secs(60)).unwrap(),
            Some(5)
        );
    }
}
