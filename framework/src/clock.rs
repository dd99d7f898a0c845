//! The time modules read as "now" ([`now_ns`]): `CLOCK_MONOTONIC` on a robot, and the
//! recording's time of the tick in a replay (`cortex replay`), so that a module that filters,
//! debounces or times out by the clock computes the same outputs on every run of the same file.
//!
//! The runtime sets the replay time once per tick ([`crate::lockstep`]), before the modules
//! run; nothing else writes it. Module code calls [`now_ns`] instead of reading a clock itself.

use std::sync::atomic::{AtomicU64, Ordering};

/// The replay time of the current tick in ns; 0: not replaying (the monotonic clock is used).
static REPLAY_NOW_NS: AtomicU64 = AtomicU64::new(0);

/// "Now" for module code, in ns: `CLOCK_MONOTONIC` (as `ipc::health::monotonic_ns`), or in a
/// replay the recorded time of the tick being replayed.
pub fn now_ns() -> u64 {
    match REPLAY_NOW_NS.load(Ordering::Relaxed) {
        0 => ipc::health::monotonic_ns(),
        replayed => replayed,
    }
}

/// Whether the clock is the replay's (a replayed tick's recorded time).
pub fn is_replay() -> bool {
    REPLAY_NOW_NS.load(Ordering::Relaxed) != 0
}

/// Makes [`now_ns`] return `time_ns` (at least 1 ns) from now on in this process: the replay
/// runtime calls it before each replayed tick.
pub fn set_replay_time(time_ns: u64) {
    REPLAY_NOW_NS.store(time_ns.max(1), Ordering::Relaxed);
}

/// The clock is one per process: tests that set it take turns.
#[cfg(test)]
pub(crate) static TEST_CLOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[cfg(test)]
mod tests {
    #[test]
    fn the_replay_time_replaces_the_monotonic_clock() {
        let _turn = super::TEST_CLOCK.lock().unwrap_or_else(|e| e.into_inner());
        let before = super::now_ns();
        assert!(before > 0);
        super::set_replay_time(42);
        assert_eq!(super::now_ns(), 42);
        super::set_replay_time(0);
        assert_eq!(super::now_ns(), 1);
        assert!(super::is_replay());
    }
}
