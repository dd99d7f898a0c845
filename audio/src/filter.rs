//! Stage 3 of the whistle detector: a whistle is a whistle-like tone that lasts.
//!
//! Over the last `window_ms`, the newest whistle-like spectra that form one continuous tone
//! (each peak within `max_frequency_jump_hz` of the next; spectra that are not whistle-like
//! are gaps, a jump ends the tone, and the tone stays within `max_frequency_spread_hz`: a
//! sweep through the band is not a whistle) must cover `min_evidence_ms`. Clicks,
//! single notes of speech and the odd squeak are shorter; a whistle from a referee lasts
//! several hundred ms. Once heard, a whistle lasts until `release_ms` pass without evidence,
//! and the next one is reported no sooner than `min_interval_ms` after it.

use crate::detector::WhistleEvidence;
use crate::parameters::WhistleDetectorParameters;
use std::collections::VecDeque;
use std::time::Duration;

/// What the robot knows about the whistle (B-Human's `Whistle`, HULKs' `DetectedWhistle`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WhistleState {
    /// A whistle is being heard now.
    pub detected: bool,
    /// When the last whistle was recognised (the source's clock), if ever.
    pub last_whistle_time: Option<Duration>,
    /// 0..1: how sure the detector is of the whistle being heard now (0 when none is).
    pub confidence: f32,
}

/// Turns per-spectrum evidence into whistles.
#[derive(Debug, Clone)]
pub struct WhistleFilter {
    window: Duration,
    min_evidence: Duration,
    max_frequency_jump_hz: f32,
    max_frequency_spread_hz: f32,
    release: Duration,
    min_interval: Duration,
    /// Recent evidence with the time each spectrum stands for.
    recent: VecDeque<(WhistleEvidence, Duration)>,
    last_time: Option<Duration>,
    last_evidence_time: Option<Duration>,
    state: WhistleState,
}

/// The longest time one spectrum may stand for (a gap in the input is not evidence).
const MAX_SPECTRUM_SPAN: Duration = Duration::from_millis(50);

fn milliseconds(value: f32) -> Duration {
    Duration::from_secs_f64(f64::from(value.max(0.0)) / 1000.0)
}

impl WhistleFilter {
    pub fn new(parameters: &WhistleDetectorParameters) -> WhistleFilter {
        WhistleFilter {
            window: milliseconds(parameters.window_ms),
            min_evidence: milliseconds(parameters.min_evidence_ms),
            max_frequency_jump_hz: parameters.max_frequency_jump_hz,
            max_frequency_spread_hz: parameters.max_frequency_spread_hz,
            release: milliseconds(parameters.release_ms),
            min_interval: milliseconds(parameters.min_interval_ms),
            recent: VecDeque::new(),
            last_time: None,
            last_evidence_time: None,
            state: WhistleState::default(),
        }
    }

    /// The state after the last update.
    pub fn state(&self) -> WhistleState {
        self.state
    }

    /// Takes the evidence of one spectrum; returns the time of a whistle recognised with it.
    pub fn update(&mut self, evidence: &WhistleEvidence) -> Option<Duration> {
        let now = evidence.time;
        let span = match self.last_time {
            Some(last) if now > last => (now - last).min(MAX_SPECTRUM_SPAN),
            _ => Duration::ZERO,
        };
        self.last_time = Some(now);
        self.recent.push_back((*evidence, span));
        while let Some((oldest, _)) = self.recent.front() {
            if now.saturating_sub(oldest.time) >= self.window {
                self.recent.pop_front();
            } else {
                break;
            }
        }
        if evidence.whistle_like {
            self.last_evidence_time = Some(now);
        }

        let (covered, confidence) = self.continuous_tone();
        if self.state.detected {
            let silent_since = self.last_evidence_time.unwrap_or_default();
            if now.saturating_sub(silent_since) >= self.release {
                self.state.detected = false;
                self.state.confidence = 0.0;
            } else {
                self.state.confidence = self.state.confidence.max(confidence);
            }
            return None;
        }
        let too_soon = self
            .state
            .last_whistle_time
            .is_some_and(|last| now.saturating_sub(last) < self.min_interval);
        if covered >= self.min_evidence && !too_soon {
            self.state = WhistleState {
                detected: true,
                last_whistle_time: Some(now),
                confidence,
            };
            return Some(now);
        }
        None
    }

    /// How much of the window the newest continuous tone covers, and its mean confidence.
    fn continuous_tone(&self) -> (Duration, f32) {
        let mut covered = Duration::ZERO;
        let mut confidence_sum = 0.0;
        let mut count = 0;
        let mut previous_frequency: Option<f32> = None;
        let (mut lowest, mut highest) = (f32::INFINITY, f32::NEG_INFINITY);
        for (evidence, span) in self.recent.iter().rev() {
            if !evidence.whistle_like {
                continue;
            }
            let frequency = evidence.peak_frequency_hz;
            if let Some(previous) = previous_frequency {
                if (frequency - previous).abs() > self.max_frequency_jump_hz {
                    break;
                }
            }
            lowest = lowest.min(frequency);
            highest = highest.max(frequency);
            if highest - lowest > self.max_frequency_spread_hz {
                break;
            }
            previous_frequency = Some(frequency);
            covered += *span;
            confidence_sum += evidence.confidence;
            count += 1;
        }
        let confidence = if count > 0 {
            confidence_sum / count as f32
        } else {
            0.0
        };
        (covered, confidence)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOP_MS: u64 = 10;

    fn evidence(step: u64, whistle_like: bool, frequency: f32) -> WhistleEvidence {
        WhistleEvidence {
            time: Duration::from_millis(step * HOP_MS),
            whistle_like,
            peak_frequency_hz: frequency,
            confidence: if whistle_like { 0.8 } else { 0.0 },
            ..WhistleEvidence::default()
        }
    }

    fn parameters() -> WhistleDetectorParameters {
        WhistleDetectorParameters {
            window_ms: 200.0,
            min_evidence_ms: 100.0,
            max_frequency_jump_hz: 200.0,
            max_frequency_spread_hz: 500.0,
            release_ms: 100.0,
            min_interval_ms: 1000.0,
            ..WhistleDetectorParameters::default()
        }
    }

    /// Feeds `pattern` (one entry per hop, `Some(frequency)` for whistle-like) from `start`,
    /// returning the hops at which whistles were recognised.
    fn run(filter: &mut WhistleFilter, start: u64, pattern: &[Option<f32>]) -> Vec<u64> {
        let mut recognised = Vec::new();
        for (offset, entry) in pattern.iter().enumerate() {
            let step = start + offset as u64;
            let item = evidence(step, entry.is_some(), entry.unwrap_or(0.0));
            if filter.update(&item).is_some() {
                recognised.push(step);
            }
        }
        recognised
    }

    #[test]
    fn a_steady_tone_is_recognised_once_after_the_evidence_time() {
        let mut filter = WhistleFilter::new(&parameters());
        let recognised = run(&mut filter, 0, &[Some(3000.0); 60]);
        // The first spectrum stands for no time; ten more cover 100 ms.
        assert_eq!(recognised, vec![10]);
        let state = filter.state();
        assert!(state.detected);
        assert_eq!(state.last_whistle_time, Some(Duration::from_millis(100)));
        assert!((state.confidence - 0.8).abs() < 1e-6);
    }

    #[test]
    fn short_bursts_are_not_whistles() {
        let mut filter = WhistleFilter::new(&parameters());
        let mut pattern = Vec::new();
        for _ in 0..10 {
            pattern.extend([Some(3000.0); 4]);
            pattern.extend([None; 16]);
        }
        assert!(run(&mut filter, 0, &pattern).is_empty());
        assert!(!filter.state().detected);
    }

    #[test]
    fn peaks_jumping_around_the_band_are_not_one_tone() {
        let mut filter = WhistleFilter::new(&parameters());
        let pattern: Vec<Option<f32>> = (0..60)
            .map(|step| Some(if step % 2 == 0 { 2200.0 } else { 3600.0 }))
            .collect();
        assert!(run(&mut filter, 0, &pattern).is_empty());
    }

    #[test]
    fn a_fast_sweep_is_not_one_tone() {
        let mut parameters = parameters();
        parameters.max_frequency_spread_hz = 400.0;
        let mut filter = WhistleFilter::new(&parameters);
        // 100 Hz per hop: continuous, but 1000 Hz within the evidence time.
        let pattern: Vec<Option<f32>> = (0..20)
            .map(|step| Some(2300.0 + step as f32 * 100.0))
            .collect();
        assert!(run(&mut filter, 0, &pattern).is_empty());
        let mut filter = WhistleFilter::new(&parameters);
        let pattern: Vec<Option<f32>> = (0..20)
            .map(|step| Some(2300.0 + step as f32 * 20.0))
            .collect();
        assert_eq!(run(&mut filter, 0, &pattern), vec![10]);
    }

    #[test]
    fn a_tone_with_small_gaps_counts() {
        let mut filter = WhistleFilter::new(&parameters());
        let pattern: Vec<Option<f32>> = (0..40)
            .map(|step| (step % 4 != 3).then_some(3000.0 + (step % 3) as f32 * 40.0))
            .collect();
        assert_eq!(run(&mut filter, 0, &pattern).len(), 1);
    }

    #[test]
    fn whistles_end_after_the_release_and_repeat_after_the_interval() {
        let mut filter = WhistleFilter::new(&parameters());
        assert_eq!(run(&mut filter, 0, &[Some(3000.0); 30]), vec![10]);
        // Silence: the whistle ends after 100 ms.
        run(&mut filter, 30, &[None; 20]);
        let state = filter.state();
        assert!(!state.detected);
        assert_eq!(state.confidence, 0.0);
        assert_eq!(state.last_whistle_time, Some(Duration::from_millis(100)));
        // A second whistle at 500 ms is within the minimum interval: not reported.
        assert!(run(&mut filter, 50, &[Some(3000.0); 30]).is_empty());
        run(&mut filter, 80, &[None; 40]);
        // At 1.2 s it is (each spectrum now stands for the 10 ms since the one before).
        assert_eq!(run(&mut filter, 120, &[Some(3000.0); 30]), vec![129]);
    }
}
