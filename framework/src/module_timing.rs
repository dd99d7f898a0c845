//! Each module's update time over the same fixed windows as the process's tick statistics
//! ([`TickStats`]): the last update, and the mean and maximum of the last complete window. The
//! runtime records one duration per module per tick (no allocation: the statistics are sized
//! from the plan at start-up) and copies them into the health record with every heartbeat, where
//! `cortex status --modules` reads them.

use ipc::health::{HealthRecord, TickStats, MODULE_SLOTS};
use std::time::{Duration, Instant};

/// The update-time statistics of a process's modules, by their position in the plan's order.
#[derive(Debug, Clone)]
pub struct ModuleTimings {
    modules: Vec<(TickStats, Duration)>,
}

impl ModuleTimings {
    /// Statistics for `count` modules over windows of `window`.
    pub fn new(count: usize, window: Duration) -> ModuleTimings {
        ModuleTimings {
            modules: vec![(TickStats::new(window), Duration::ZERO); count],
        }
    }

    /// Records that module `index` took `duration` in an update that started at `started`. An
    /// index outside the plan is ignored.
    pub fn record(&mut self, index: usize, duration: Duration, started: Instant) {
        if let Some((stats, last)) = self.modules.get_mut(index) {
            stats.record(duration, started + duration);
            *last = duration;
        }
    }

    /// The last update time of module `index` (zero before its first update).
    pub fn last(&self, index: usize) -> Duration {
        self.modules.get(index).map_or(Duration::ZERO, |m| m.1)
    }
    /// The mean update time of module `index` over the last complete window (zero before one).
    pub fn mean(&self, index: usize) -> Duration {
        self.modules
            .get(index)
            .map_or(Duration::ZERO, |m| m.0.mean())
    }
    /// The longest update of module `index` in the last complete window (zero before one).
    pub fn max(&self, index: usize) -> Duration {
        self.modules
            .get(index)
            .map_or(Duration::ZERO, |m| m.0.max())
    }

    /// Writes the times into the record's module entries (named before with
    /// [`HealthRecord::set_modules`] in the same order); modules beyond [`MODULE_SLOTS`] are left
    /// out.
    pub fn fill(&self, record: &mut HealthRecord) {
        for (entry, (stats, last)) in record.modules.iter_mut().zip(&self.modules) {
            entry.last_ns = last.as_nanos() as u64;
            entry.mean_ns = stats.mean().as_nanos() as u64;
            entry.max_ns = stats.max().as_nanos() as u64;
        }
        debug_assert!(record.modules().len() <= MODULE_SLOTS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_reports_last_mean_and_max_once_the_window_is_complete() {
        let window = Duration::from_millis(100);
        let mut timings = ModuleTimings::new(2, window);
        let start = Instant::now();
        // Module 0 takes 1 ms and 3 ms in turn, module 1 always 2 ms, one tick every 10 ms.
        for tick in 0..10u32 {
            let at = start + Duration::from_millis(10 * u64::from(tick));
            timings.record(0, Duration::from_millis(1 + 2 * u64::from(tick % 2)), at);
            timings.record(1, Duration::from_millis(2), at);
        }
        // 90 ms into the window: nothing complete yet, but the last update is known.
        assert_eq!(timings.mean(0), Duration::ZERO);
        assert_eq!(timings.max(0), Duration::ZERO);
        assert_eq!(timings.last(0), Duration::from_millis(3));
        for tick in 10..12u32 {
            let at = start + Duration::from_millis(10 * u64::from(tick));
            timings.record(0, Duration::from_millis(1 + 2 * u64::from(tick % 2)), at);
            timings.record(1, Duration::from_millis(2), at);
        }
        assert_eq!(timings.max(0), Duration::from_millis(3));
        assert!(
            timings.mean(0) > Duration::from_millis(1)
                && timings.mean(0) < Duration::from_millis(3),
            "{:?}",
            timings.mean(0)
        );
        assert_eq!(timings.mean(1), Duration::from_millis(2));
        assert_eq!(timings.last(0), Duration::from_millis(3));
        // An index outside the plan changes nothing and reads as zero.
        timings.record(7, Duration::from_secs(1), start);
        assert_eq!(timings.last(7), Duration::ZERO);

        let mut record = HealthRecord::named("motion");
        record.set_modules(["FallStateProvider", "MotionCombinator"]);
        timings.fill(&mut record);
        assert_eq!(record.modules()[1].name(), "MotionCombinator");
        assert_eq!(record.modules()[1].mean_ns, 2_000_000);
        assert_eq!(record.modules()[0].max_ns, 3_000_000);
        assert_eq!(record.modules()[0].last_ns, 3_000_000);
    }
}
