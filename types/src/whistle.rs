//! The referee's whistle as the `audio` process hears it: [`WhistleState`].

use serde::{Deserialize, Serialize};

/// What the whistle detector knows after its newest buffer of sound.
///
/// Times are on the monotonic clock (`CLOCK_MONOTONIC`, nanoseconds), which every process of a
/// robot shares, so that cognition can compare them with its own tick time.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WhistleState {
    /// A whistle is being heard now.
    pub detected: bool,
    /// When the last whistle was recognised, monotonic ns, if ever.
    pub last_whistle_ns: Option<u64>,
    /// How many whistles were recognised since the detector started: a reader recognises a new
    /// whistle by a changed count.
    pub whistle_count: u64,
    /// 0..1: how sure the detector is of the whistle being heard now (0 when none is).
    pub confidence: f32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_old_bytes_decode() {
        let state = WhistleState {
            detected: true,
            last_whistle_ns: Some(42),
            whistle_count: 3,
            confidence: 0.5,
        };
        let bytes = rmp_serde::to_vec_named(&state).unwrap();
        assert_eq!(
            rmp_serde::from_slice::<WhistleState>(&bytes).unwrap(),
            state
        );
        // Bytes written before `whistle_count` existed still decode.
        #[derive(Serialize)]
        struct Older {
            detected: bool,
        }
        let older = rmp_serde::to_vec_named(&Older { detected: true }).unwrap();
        let decoded: WhistleState = rmp_serde::from_slice(&older).unwrap();
        assert!(decoded.detected);
        assert_eq!(decoded.whistle_count, 0);
    }
}
