//! The time base of one process cycle.

use serde::{Deserialize, Serialize};

/// When the current cycle's input was taken, and how many cycles the providing process has run.
///
/// Times come from `CLOCK_MONOTONIC`, which every process on the machine shares, so a time
/// written by one process can be compared with a time read in another.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FrameInfo {
    /// `CLOCK_MONOTONIC` time of the frame, in nanoseconds.
    pub time_monotonic_ns: u64,
    /// Number of cycles the providing process has completed before this one (0 for the first).
    pub cycle: u64,
}

impl FrameInfo {
    /// Milliseconds elapsed from `earlier_monotonic_ns` to this frame; negative if `earlier`
    /// lies in the future.
    pub fn milliseconds_since(&self, earlier_monotonic_ns: u64) -> f64 {
        (self.time_monotonic_ns as f64 - earlier_monotonic_ns as f64) / 1.0e6
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_since_counts_both_directions() {
        let frame = FrameInfo {
            time_monotonic_ns: 5_000_000,
            cycle: 3,
        };
        assert_eq!(frame.milliseconds_since(2_000_000), 3.0);
        assert_eq!(frame.milliseconds_since(6_000_000), -1.0);
    }
}
